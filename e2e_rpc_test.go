package main

// End-to-end tests of --mode rpc through the binary: commands as JSON
// lines on stdin, responses, events and dialogs on stdout, which must
// carry nothing but JSON objects with a "type".

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// rpcProc is lunar in RPC mode.
type rpcProc struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan map[string]any
	stderr *syncBuffer
	ids    int
	exited chan struct{}

	mu  sync.Mutex
	bad []string // stdout lines that are not JSON objects with a type
}

// startRPC starts lunar --mode rpc with args; it is killed at the end of
// the test unless closed.
func (e *e2e) startRPC(args ...string) *rpcProc {
	t := e.t
	cmd := e.cmd("", append([]string{"--mode", "rpc"}, args...)...)
	cmd.Stdin = nil
	return startRPCCmd(t, cmd)
}

func startRPCCmd(t testing.TB, cmd *exec.Cmd) *rpcProc {
	r := &rpcProc{t: t, cmd: cmd, lines: make(chan map[string]any, 4096), stderr: &syncBuffer{}, exited: make(chan struct{})}
	var err error
	r.stdin, err = cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = r.stderr
	require.NoError(t, cmd.Start())
	go func() {
		defer close(r.lines)
		br := bufio.NewReader(stdout)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				var ev map[string]any
				if json.Unmarshal(line, &ev) != nil || ev["type"] == nil || line[len(line)-1] != '\n' {
					r.mu.Lock()
					r.bad = append(r.bad, string(line))
					r.mu.Unlock()
				} else {
					r.lines <- ev
				}
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(r.exited)
	}()
	t.Cleanup(func() {
		_ = r.cmd.Process.Kill()
		<-r.exited
		r.mu.Lock()
		defer r.mu.Unlock()
		assert.Empty(t, r.bad, "stdout carries protocol lines only")
	})
	return r
}

func (r *rpcProc) fatalf(format string, args ...any) {
	r.t.Helper()
	r.t.Fatalf("lunar rpc: %s\nstderr:\n%s", fmt.Sprintf(format, args...), r.stderr)
}

// next returns the next line, failing after a minute.
func (r *rpcProc) next(what string) map[string]any {
	r.t.Helper()
	select {
	case ev, ok := <-r.lines:
		if !ok {
			r.fatalf("lunar exited while waiting for %s", what)
		}
		return ev
	case <-time.After(time.Minute):
		r.fatalf("no %s after a minute", what)
	}
	return nil
}

// until collects lines up to and including the first that match
// accepts.
func (r *rpcProc) until(what string, match func(ev map[string]any) bool) []map[string]any {
	r.t.Helper()
	var seen []map[string]any
	for {
		ev := r.next(what)
		seen = append(seen, ev)
		if match(ev) {
			return seen
		}
	}
}

func (r *rpcProc) sendLine(line string) {
	r.t.Helper()
	_, err := io.WriteString(r.stdin, line+"\n")
	require.NoError(r.t, err)
}

// send writes a command with a fresh id and returns the id.
func (r *rpcProc) send(cmd map[string]any) string {
	r.t.Helper()
	r.ids++
	id := fmt.Sprintf("r%d", r.ids)
	cmd["id"] = id
	line, err := json.Marshal(cmd)
	require.NoError(r.t, err)
	r.sendLine(string(line))
	return id
}

func isResponse(id string) func(map[string]any) bool {
	return func(ev map[string]any) bool { return ev["type"] == "response" && ev["id"] == id }
}

// call sends a command and returns its response; the lines before it
// must be events (no other response).
func (r *rpcProc) call(cmd map[string]any) map[string]any {
	r.t.Helper()
	id := r.send(cmd)
	seen := r.until(fmt.Sprintf("the response to %v", cmd["type"]), isResponse(id))
	for _, ev := range seen[:len(seen)-1] {
		require.NotEqual(r.t, "response", ev["type"], "an unexpected response before %s's: %v", cmd["type"], ev)
	}
	return seen[len(seen)-1]
}

// ok calls a command that must succeed and returns its data.
func (r *rpcProc) ok(cmd map[string]any) any {
	r.t.Helper()
	res := r.call(cmd)
	require.Equal(r.t, true, res["success"], "%v: %v", cmd["type"], res)
	return res["data"]
}

// promptAndWait sends a prompt and returns the lines up to agent_end.
func (r *rpcProc) promptAndWait(text string) []map[string]any {
	r.t.Helper()
	id := r.send(map[string]any{"type": "prompt", "message": text})
	seen := r.until("agent_end of "+text, func(ev map[string]any) bool { return ev["type"] == "agent_end" })
	require.Equal(r.t, "response", seen[0]["type"], "the prompt's response comes first")
	require.Equal(r.t, id, seen[0]["id"])
	require.Equal(r.t, true, seen[0]["success"], "%v", seen[0])
	return seen
}

// close closes stdin and waits for lunar to exit with code 0.
func (r *rpcProc) close() {
	r.t.Helper()
	require.NoError(r.t, r.stdin.Close())
	select {
	case <-r.exited:
	case <-time.After(time.Minute):
		r.fatalf("lunar does not exit after its stdin closed")
	}
	assert.Equal(r.t, 0, r.cmd.ProcessState.ExitCode(), r.stderr.String())
}

func rpcTypes(evs []map[string]any) []string {
	var out []string
	for _, ev := range evs {
		t, _ := ev["type"].(string)
		if t == "message_update" || t == "tool_execution_update" {
			continue // as many as the stream has chunks
		}
		out = append(out, t)
	}
	return out
}

func rpcData(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// TestRPCBadInput: lines that are no command, unknown commands and
// missing or mistyped fields get an error response each, and lunar goes
// on answering.
func TestRPCBadInput(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	r := e.startRPC()
	cases := []struct {
		name, line, command, err string
		id                       any
	}{
		{"not JSON", `not json`, "parse", "Failed to parse command: invalid character 'o' in literal null (expecting 'u')", nil},
		{"not an object", `[1, 2]`, "parse", "Failed to parse command: a command is a JSON object, not array", nil},
		{"no type", `{"id": "a"}`, "", `the command has no "type"`, "a"},
		{"type not a string", `{"id": "b", "type": 7}`, "", `"type" must be a string`, "b"},
		{"unknown command", `{"id": "c", "type": "dance"}`, "dance", "Unknown command: dance", "c"},
		{"missing message", `{"id": "d", "type": "prompt"}`, "prompt", `prompt: "message" is required`, "d"},
		{"mistyped field", `{"id": 5, "type": "steer", "message": ["x"]}`, "steer", `steer: "message" must be a string, not array`, float64(5)},
		{"missing provider", `{"id": "e", "type": "set_model", "modelId": "x"}`, "set_model", `set_model: "provider" is required`, "e"},
		{"unknown model", `{"id": "f", "type": "set_model", "provider": "openai", "modelId": "nope"}`, "set_model", "Model not found: openai/nope", "f"},
		{"bad level", `{"id": "g", "type": "set_thinking_level", "level": "extreme"}`, "set_thinking_level", `thinking level "extreme" is not one of off|minimal|low|medium|high`, "g"},
		{"bad mode", `{"id": "h", "type": "set_steering_mode", "mode": "some"}`, "set_steering_mode", `set_steering_mode: mode must be "all" or "one-at-a-time", not "some"`, "h"},
		{"empty name", `{"id": "i", "type": "set_session_name", "name": "  "}`, "set_session_name", "Session name cannot be empty", "i"},
		{"missing enabled", `{"id": "j", "type": "set_auto_compaction"}`, "set_auto_compaction", `set_auto_compaction: "enabled" is required`, "j"},
		{"fork of no entry", `{"id": "k", "type": "fork", "entryId": "nope"}`, "fork", `no entry "nope" in this session (see /tree)`, "k"},
		{"bad image", `{"id": "m", "type": "prompt", "message": "x", "images": [{"type": "image"}]}`, "prompt", `prompt: images[0] must be {type: "image", data, mimeType}`, "m"},
		{"no retry", `{"id": "n", "type": "set_auto_retry", "enabled": false}`, "set_auto_retry",
			"set_auto_retry: lunar has no automatic retry to switch or stop: the provider clients retry a failed request themselves (LUNAR_MAX_RETRIES times), and abort stops it", "n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r.t = t
			r.sendLine(c.line)
			res := r.next("the answer to " + c.line)
			want := map[string]any{"type": "response", "command": c.command, "success": false, "error": c.err}
			if c.id != nil {
				want["id"] = c.id
			}
			assert.Equal(t, want, res)
		})
	}
	r.t = t
	st := rpcData(r.ok(map[string]any{"type": "get_state"}))
	assert.Equal(t, "gpt-4.1", rpcData(st["model"])["id"], "lunar still answers")
	r.close()
	assert.Empty(t, r.stderr.String())
}

// TestRPCConversation drives a session through the commands: a prompt
// with a tool call, the queries, naming, forking, cloning, new sessions
// and switching back.
func TestRPCConversation(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command": "echo from-the-tool"}`), llmtest.Usage(100, 10, 0, 0))
	e.srv.Reply(llmtest.Text("the answer"), llmtest.Usage(150, 5, 0, 0))
	r := e.startRPC()

	st := rpcData(r.ok(map[string]any{"type": "get_state"}))
	assert.Equal(t, false, st["isStreaming"])
	assert.Equal(t, float64(0), st["messageCount"])
	first := st["sessionFile"].(string)

	evs := r.promptAndWait("run it")
	assert.Equal(t, []string{"response", "agent_start", "turn_start", "message_start", "message_end", "message_start", "message_end",
		"tool_execution_start", "tool_execution_end", "message_start", "message_end", "turn_end",
		"turn_start", "message_start", "message_end", "turn_end", "agent_end"}, rpcTypes(evs))
	end := evs[len(evs)-1]
	assert.Len(t, end["messages"], 4, "user, tool call, result, answer")

	st = rpcData(r.ok(map[string]any{"type": "get_state"}))
	assert.Equal(t, float64(4), st["messageCount"])
	assert.Equal(t, first, st["sessionFile"])
	msgs := rpcData(r.ok(map[string]any{"type": "get_messages"}))["messages"].([]any)
	require.Len(t, msgs, 4)
	assert.Equal(t, "toolResult", rpcData(msgs[2])["role"])
	assert.Equal(t, map[string]any{"text": "the answer"}, r.ok(map[string]any{"type": "get_last_assistant_text"}))
	stats := rpcData(r.ok(map[string]any{"type": "get_session_stats"}))
	assert.Equal(t, float64(1), stats["userMessages"])
	assert.Equal(t, float64(2), stats["assistantMessages"])
	assert.Equal(t, float64(1), stats["toolCalls"])
	assert.Equal(t, float64(1), stats["toolResults"])
	assert.Equal(t, map[string]any{"input": float64(250), "output": float64(15), "cacheRead": float64(0), "cacheWrite": float64(0), "total": float64(265)}, stats["tokens"])

	// Naming, with pi's session_info_changed event before the response.
	id := r.send(map[string]any{"type": "set_session_name", "name": "the name"})
	ev := r.next("session_info_changed")
	assert.Equal(t, map[string]any{"type": "session_info_changed", "name": "the name"}, ev)
	assert.Equal(t, true, r.next("the response")["success"], id)
	assert.Equal(t, "the name", rpcData(r.ok(map[string]any{"type": "get_state"}))["sessionName"])

	// A fork before the prompt: an empty session whose parent is the first,
	// and the prompt's text back.
	forks := rpcData(r.ok(map[string]any{"type": "get_fork_messages"}))["messages"].([]any)
	require.Len(t, forks, 1)
	assert.Equal(t, "run it", rpcData(forks[0])["text"])
	fork := rpcData(r.ok(map[string]any{"type": "fork", "entryId": rpcData(forks[0])["entryId"]}))
	assert.Equal(t, map[string]any{"text": "run it", "cancelled": false}, fork)
	st = rpcData(r.ok(map[string]any{"type": "get_state"}))
	assert.Equal(t, float64(0), st["messageCount"])
	assert.NotEqual(t, first, st["sessionFile"])

	// Back to the first, then a clone of it.
	assert.Equal(t, map[string]any{"cancelled": false}, r.ok(map[string]any{"type": "switch_session", "sessionPath": first}))
	st = rpcData(r.ok(map[string]any{"type": "get_state"}))
	assert.Equal(t, first, st["sessionFile"])
	assert.Equal(t, float64(4), st["messageCount"])
	assert.Equal(t, map[string]any{"cancelled": false}, r.ok(map[string]any{"type": "clone"}))
	st = rpcData(r.ok(map[string]any{"type": "get_state"}))
	assert.Equal(t, float64(4), st["messageCount"])
	clone := st["sessionFile"].(string)
	assert.NotEqual(t, first, clone)

	// A new session with a parent.
	assert.Equal(t, map[string]any{"cancelled": false}, r.ok(map[string]any{"type": "new_session", "parentSession": clone}))
	st = rpcData(r.ok(map[string]any{"type": "get_state"}))
	assert.Equal(t, float64(0), st["messageCount"])
	assert.Equal(t, map[string]any{}, r.ok(map[string]any{"type": "get_last_assistant_text"}), "pi leaves text out")

	// bash: the output comes back and is kept in the session.
	res := rpcData(r.ok(map[string]any{"type": "bash", "command": "echo out; exit 3"}))
	assert.Equal(t, map[string]any{"output": "out\n", "exitCode": float64(3), "cancelled": false, "truncated": false}, res)
	msgs = rpcData(r.ok(map[string]any{"type": "get_messages"}))["messages"].([]any)
	require.Len(t, msgs, 1)
	assert.Equal(t, "bashExecution", rpcData(msgs[0])["role"])

	// HTML export.
	out := filepath.Join(t.TempDir(), "s.html")
	assert.Equal(t, map[string]any{"path": out}, r.ok(map[string]any{"type": "export_html", "outputPath": out}))
	html, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(html), "echo out")

	// Thinking: gpt-4.1 does not reason, so there is nothing to cycle.
	assert.Nil(t, r.ok(map[string]any{"type": "cycle_thinking_level"}))
	assert.Nil(t, r.ok(map[string]any{"type": "cycle_model"}), "no models list in config.json")
	r.ok(map[string]any{"type": "set_auto_compaction", "enabled": false})
	assert.Equal(t, false, rpcData(r.ok(map[string]any{"type": "get_state"}))["autoCompactionEnabled"])
	r.close()
	assert.Empty(t, r.stderr.String())
}

// TestRPCAbort: abort stops a reply that hangs, and is answered once the
// run has ended; a prompt during a run is refused as pi refuses it.
func TestRPCAbort(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("partial "), llmtest.Hang())
	r := e.startRPC()
	id := r.send(map[string]any{"type": "prompt", "message": "hang"})
	r.until("the first text", func(ev map[string]any) bool { return ev["type"] == "message_update" })
	assert.Equal(t, true, rpcData(r.ok(map[string]any{"type": "get_state"}))["isStreaming"])
	res := r.call(map[string]any{"type": "prompt", "message": "another"})
	assert.Equal(t, "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.", res["error"])
	abortID := r.send(map[string]any{"type": "abort"})
	seen := r.until("the abort's response", isResponse(abortID))
	assert.Contains(t, rpcTypes(seen), "agent_end", "the run ended before abort is answered")
	assert.Equal(t, true, seen[len(seen)-1]["success"])
	_ = id
	st := rpcData(r.ok(map[string]any{"type": "get_state"}))
	assert.Equal(t, false, st["isStreaming"])
	r.close()
}

// answerUI answers the extension_ui_request that comes next (events may
// come before it) with answer, and returns the request.
func (r *rpcProc) answerUI(method string, answer map[string]any) map[string]any {
	r.t.Helper()
	seen := r.until("a "+method+" dialog", func(ev map[string]any) bool { return ev["type"] == "extension_ui_request" })
	req := seen[len(seen)-1]
	require.Equal(r.t, method, req["method"], "%v", req)
	if answer != nil {
		answer["type"], answer["id"] = "extension_ui_response", req["id"]
		line, err := json.Marshal(answer)
		require.NoError(r.t, err)
		r.sendLine(string(line))
	}
	return req
}

// TestRPCDialogs: a hook's ctx.ui dialogs become extension_ui_request
// lines, the client's extension_ui_response lines answer them, and
// ctx.has_ui is true.
func TestRPCDialogs(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.hkGlobal("rpc_ui.lua")
	e.srv.Reply(llmtest.Text("noted"))
	r := e.startRPC()
	cmds := rpcData(r.ok(map[string]any{"type": "get_commands"}))["commands"].([]any)
	var names []string
	for _, c := range cmds {
		names = append(names, rpcData(c)["name"].(string))
	}
	assert.Contains(t, names, "dialogs")

	id := r.send(map[string]any{"type": "prompt", "message": "/dialogs"})
	sel := r.answerUI("select", map[string]any{"value": "green"})
	assert.Equal(t, "Pick one", sel["title"])
	assert.Equal(t, []any{"red", "green"}, sel["options"])
	conf := r.answerUI("confirm", map[string]any{"confirmed": true})
	assert.Equal(t, "It matters", conf["message"])
	in := r.answerUI("input", map[string]any{"value": "Ada"})
	assert.Equal(t, "a name", in["placeholder"])
	r.answerUI("input", map[string]any{"cancelled": true})
	edit := r.answerUI("editor", map[string]any{"value": "line one\nline two"})
	assert.Equal(t, "Edit the plan", edit["title"])
	assert.Equal(t, "line one", edit["prefill"])
	note := r.answerUI("notify", nil)
	assert.Equal(t, "heads up", note["message"])
	assert.Equal(t, "warning", note["notifyType"])
	ed := r.answerUI("set_editor_text", nil)
	assert.Equal(t, "prefilled", ed["text"])
	seen := r.until("agent_end", func(ev map[string]any) bool { return ev["type"] == "agent_end" })
	assert.Equal(t, "response", seen[0]["type"])
	assert.Equal(t, id, seen[0]["id"])
	reqs := e.srv.Requests()
	require.Len(t, reqs, 1)
	text, _ := reqs[0].LastUserText()
	assert.Equal(t, "has_ui=true choice=green yes=true typed=Ada dismissed=nil edited=line one\nline two editor=prefilled", text)
	r.close()
}

// TestRPCPermissionDialog: the permission policy asks through select
// before bash runs (without --yes); "yes" runs it, a cancelled dialog
// refuses it.
func TestRPCPermissionDialog(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.ask = true
	e.srv.Reply(llmtest.ToolCall("bash", `{"command": "echo allowed > out.txt"}`))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command": "echo refused > no.txt"}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.startRPC()
	r.send(map[string]any{"type": "prompt", "message": "write"})
	req := r.answerUI("select", map[string]any{"value": "yes"})
	assert.Contains(t, req["title"], "echo allowed")
	assert.Equal(t, "yes", rpcData(req)["options"].([]any)[0])
	r.answerUI("select", map[string]any{"cancelled": true})
	r.until("agent_end", func(ev map[string]any) bool { return ev["type"] == "agent_end" })
	out, err := os.ReadFile(filepath.Join(e.cwd, "out.txt"))
	require.NoError(t, err)
	assert.Equal(t, "allowed\n", string(out))
	assert.NoFileExists(t, filepath.Join(e.cwd, "no.txt"))
	r.close()
}

// TestRPCQueue: steer and follow_up during a run join it (queue_update
// events show the queues), as pi's: the steering message before the next
// model call, the follow-up once the agent would stop.
func TestRPCQueue(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	gate := filepath.Join(e.cwd, "gate")
	// The tool waits for the test to open the gate, so that the messages
	// are queued while the run goes on.
	e.srv.Reply(llmtest.ToolCall("bash", fmt.Sprintf(`{"command": "while [ ! -e %s ]; do sleep 0.02; done; echo through"}`, gate)))
	e.srv.Reply(llmtest.Text("after the steer"))
	e.srv.Reply(llmtest.Text("after the follow-up"))
	r := e.startRPC()
	r.ok(map[string]any{"type": "set_follow_up_mode", "mode": "all"})
	r.send(map[string]any{"type": "prompt", "message": "start"})
	r.until("the tool", func(ev map[string]any) bool { return ev["type"] == "tool_execution_start" })
	var queues []any
	queueUpdates := func(seen []map[string]any) { queues = append(queues, rpcQueues(seen)...) }
	queueUpdates(r.until("steer's response", isResponse(r.send(map[string]any{"type": "steer", "message": "steered"}))))
	// A prompt during the run with streamingBehavior is a follow-up.
	queueUpdates(r.until("follow_up's response", isResponse(r.send(map[string]any{"type": "prompt", "message": "later", "streamingBehavior": "followUp"}))))
	st := rpcData(r.ok(map[string]any{"type": "get_state"}))
	assert.Equal(t, float64(2), st["pendingMessageCount"])
	assert.Equal(t, "all", st["followUpMode"])
	assert.Equal(t, "one-at-a-time", st["steeringMode"])
	require.NoError(t, os.WriteFile(gate, nil, 0o644))
	queueUpdates(r.until("agent_end", func(ev map[string]any) bool { return ev["type"] == "agent_end" }))
	assert.Equal(t, []any{
		[]any{[]any{"steered"}, []any{}},
		[]any{[]any{"steered"}, []any{"later"}},
		[]any{[]any{}, []any{"later"}},
		[]any{[]any{}, []any{}},
	}, queues, "queued, then delivered: the steering message first")
	reqs := e.srv.Requests()
	require.Len(t, reqs, 3)
	for i, want := range []string{"start", "steered", "later"} {
		text, _ := reqs[i].LastUserText()
		assert.Equal(t, want, text, "request %d", i)
	}
	r.close()
}

// rpcQueues are the queue_update events among seen, each as its
// [steering, followUp] lists.
func rpcQueues(seen []map[string]any) []any {
	var queues []any
	for _, ev := range seen {
		if ev["type"] == "queue_update" {
			queues = append(queues, []any{ev["steering"], ev["followUp"]})
		}
	}
	return queues
}

// TestRPCQueueWhileIdle: steer and follow_up sent while the agent is
// idle wait, counted by get_state, for the next prompt's run, as pi's
// (TestPiRPCSameProtocol compares them with pi): the steering message
// joins it after the prompt, before the first model call; the
// follow-up when the agent would stop.
func TestRPCQueueWhileIdle(t *testing.T) {
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("after the steer"))
	e.srv.Reply(llmtest.Text("after the follow-up"))
	r := e.startRPC()
	var queues []any
	queueUpdates := func(seen []map[string]any) { queues = append(queues, rpcQueues(seen)...) }
	queueUpdates(r.until("steer's response", isResponse(r.send(map[string]any{"type": "steer", "message": "steered"}))))
	queueUpdates(r.until("follow_up's response", isResponse(r.send(map[string]any{"type": "follow_up", "message": "later"}))))
	st := rpcData(r.ok(map[string]any{"type": "get_state"}))
	assert.Equal(t, float64(2), st["pendingMessageCount"])
	assert.Equal(t, false, st["isStreaming"])
	assert.Empty(t, e.srv.Requests(), "nothing runs before a prompt")

	seen := r.promptAndWait("start")
	queueUpdates(seen)
	assert.Equal(t, []any{
		[]any{[]any{"steered"}, []any{}},
		[]any{[]any{"steered"}, []any{"later"}},
		[]any{[]any{}, []any{"later"}},
		[]any{[]any{}, []any{}},
	}, queues, "queued while idle, delivered by the prompt's run")
	assert.Equal(t, []string{"response", "agent_start", "turn_start", "message_start", "message_end",
		"queue_update", "message_start", "message_end", "message_start", "message_end", "turn_end",
		"turn_start", "queue_update", "message_start", "message_end", "message_start", "message_end", "turn_end", "agent_end"},
		rpcTypes(seen), "one run: the prompt and the steering message, a reply, the follow-up, a reply")
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"start", "steered"}, hkUserTexts(reqs[0]), "the first model call has the prompt, then the steering message")
	assert.Equal(t, "later", lastUser(t, reqs[1]))
	assert.Equal(t, float64(0), rpcData(r.ok(map[string]any{"type": "get_state"}))["pendingMessageCount"])
	r.close()
}

// TestRPCQueuedSource: a steer and a follow-up sent over RPC reach the
// chat.message hooks with source "rpc" when they are delivered, as the
// prompt does (they were "extension", a hook's).
func TestRPCQueuedSource(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.hkGlobal("rpc_ui.lua")
	e.srv.Reply(llmtest.Text("one"))
	e.srv.Reply(llmtest.Text("two"))
	r := e.startRPC()
	r.ok(map[string]any{"type": "steer", "message": "which source?"})
	r.ok(map[string]any{"type": "follow_up", "message": "which source?"})
	r.promptAndWait("start")
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"start", "source=rpc"}, hkUserTexts(reqs[0]), "the steer")
	assert.Equal(t, "source=rpc", lastUser(t, reqs[1]), "the follow-up")
	r.close()
}

// TestRPCQueueCommands: as pi's steer and follow_up, a prompt
// template is queued expanded, and a hook's own command cannot be queued
// (pi's error); other text, a slash included, is queued as it is.
func TestRPCQueueCommands(t *testing.T) {
	e := newE2E(t)
	e.hkGlobal("rpc_ui.lua")
	writeFile(t, filepath.Join(e.home, "config", "prompts", "greet.md"), "Say hello to $1")
	e.srv.Reply(llmtest.Text("hello"))
	r := e.startRPC()
	seen := r.until("steer's response", isResponse(r.send(map[string]any{"type": "steer", "message": "/greet Ada"})))
	assert.Equal(t, map[string]any{"type": "queue_update", "steering": []any{"Say hello to Ada"}, "followUp": []any{}}, seen[0])
	for _, typ := range []string{"steer", "follow_up"} {
		res := r.call(map[string]any{"type": typ, "message": "/quiet now"})
		assert.Equal(t, false, res["success"])
		assert.Equal(t, `Extension command "/quiet" cannot be queued. Use prompt() or execute the command when not streaming.`, res["error"])
	}
	r.ok(map[string]any{"type": "follow_up", "message": "/not-a-command"})
	assert.Equal(t, float64(2), rpcData(r.ok(map[string]any{"type": "get_state"}))["pendingMessageCount"])
	e.srv.Reply(llmtest.Text("as typed"))
	r.promptAndWait("go")
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"go", "Say hello to Ada"}, hkUserTexts(reqs[0]))
	assert.Equal(t, "/not-a-command", lastUser(t, reqs[1]))
	r.close()
}

// BenchmarkRPCGetState measures the round trip of get_state: the command
// written to lunar's stdin until its response is read from stdout.
func BenchmarkRPCGetState(b *testing.B) {
	srv := llmtest.New(b)
	cwd := b.TempDir()
	cmd := exec.Command(lunarBin, "--mode", "rpc", "--model", "openai/gpt-4.1", "--base-url", srv.URL(), "--api-key", "sk-test")
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), "LUNAR_HOME="+b.TempDir(), "NO_COLOR=1")
	r := startRPCCmd(b, cmd)
	r.ok(map[string]any{"type": "get_state"}) // started
	for b.Loop() {
		r.ok(map[string]any{"type": "get_state"})
	}
	b.StopTimer()
	r.close()
}

// TestRPCCompact: compact resumes a session and compacts it, with the
// compaction events before its response (pi's CompactionResult); the
// next prompt sends the summary.
func TestRPCCompact(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.hkConfig(`{"compaction": {"keep_recent_tokens": 50}}`)
	e.threeTurns()
	e.srv.Reply(llmtest.Text("## Goal\nAnswer three questions."))
	r := e.startRPC("-c")
	assert.Equal(t, float64(6), rpcData(r.ok(map[string]any{"type": "get_state"}))["messageCount"])
	id := r.send(map[string]any{"type": "compact", "customInstructions": "keep the numbers"})
	seen := r.until("compact's response", isResponse(id))
	assert.Equal(t, []string{"compaction_start", "compaction_end", "response"}, rpcTypes(seen))
	assert.Equal(t, "manual", seen[0]["reason"])
	res := rpcData(seen[2]["data"])
	assert.Equal(t, "## Goal\nAnswer three questions.", res["summary"])
	assert.NotEmpty(t, res["firstKeptEntryId"])
	assert.Greater(t, res["tokensBefore"], float64(0))
	reqs := e.srv.Requests()
	assert.Contains(t, lastUser(t, reqs[len(reqs)-1]), "keep the numbers")

	e.srv.Reply(llmtest.Text("answer 4"))
	r.promptAndWait("question 4")
	reqs = e.srv.Requests()
	assert.Contains(t, contentText(reqMessages(t, reqs[len(reqs)-1])[1].Content), compactedPrefix)

	// Nothing left to compact: pi's error shape.
	res2 := r.call(map[string]any{"type": "compact"})
	assert.Equal(t, false, res2["success"])
	assert.NotEmpty(t, res2["error"])
	r.close()
}

func lastUser(t *testing.T, req llmtest.Request) string {
	t.Helper()
	text, ok := req.LastUserText()
	require.True(t, ok)
	return text
}

// TestRPCHookCommands: a hook command that starts no run is answered when
// it ends; one that fails is answered with its error.
func TestRPCHookCommands(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.hkGlobal("rpc_ui.lua")
	r := e.startRPC()
	assert.Nil(t, r.ok(map[string]any{"type": "prompt", "message": "/quiet"}))
	res := r.call(map[string]any{"type": "prompt", "message": "/failing"})
	assert.Equal(t, false, res["success"])
	assert.Contains(t, res["error"], "rpc_ui.lua")
	assert.Contains(t, res["error"], "on purpose")
	assert.Empty(t, e.srv.Requests(), "no run")

	// chat.message hooks see the source "rpc".
	e.srv.Reply(llmtest.Text("ok"))
	r.promptAndWait("which source?")
	require.Len(t, e.srv.Requests(), 1)
	assert.Equal(t, "source=rpc", lastUser(t, e.srv.Requests()[0]))

	// The REPL's built-ins are not RPC commands: as in pi, the line goes
	// to the model (and nothing but protocol lines to stdout).
	e.srv.Reply(llmtest.Text("a tree?"))
	r.promptAndWait("/tree")
	require.Len(t, e.srv.Requests(), 2)
	assert.Equal(t, "/tree", lastUser(t, e.srv.Requests()[1]))
	r.close()
}

// TestRPCHookCommandWhileStreaming: as in pi, a prompt that is a hook's
// command runs at once while the agent streams (no streamingBehavior
// needed), with ctx.is_idle() false; the prompt it returns follows up. A
// prompt template is queued expanded, as its streamingBehavior says.
func TestRPCHookCommandWhileStreaming(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.hkGlobal("rpc_ui.lua")
	writeFile(t, filepath.Join(e.home, "config", "prompts", "greet.md"), "Say hello to $1")
	gate, started := filepath.Join(e.cwd, "gate"), filepath.Join(e.cwd, "started")
	e.srv.Reply(llmtest.ToolCall("bash", fmt.Sprintf(`{"command": "touch %s; while [ ! -e %s ]; do sleep 0.02; done; echo through"}`, started, gate)))
	e.srv.Reply(llmtest.Text("after the tool"))
	e.srv.Reply(llmtest.Text("after the probe"))
	r := e.startRPC()
	r.send(map[string]any{"type": "prompt", "message": "start"})
	r.until("the tool", func(ev map[string]any) bool { return ev["type"] == "tool_execution_start" })
	id := r.send(map[string]any{"type": "prompt", "message": "/probe"})
	seen := r.until("the probe's response", isResponse(id))
	var notes []any
	for _, ev := range seen {
		if ev["type"] == "extension_ui_request" && ev["method"] == "notify" {
			notes = append(notes, ev["message"])
		}
	}
	assert.Equal(t, []any{"probe: idle=false"}, notes, "ran during the run")
	assert.Equal(t, true, seen[len(seen)-1]["success"])
	// A prompt template is no command to run: as other text, it needs a
	// streamingBehavior, and is queued expanded.
	res := r.call(map[string]any{"type": "prompt", "message": "/greet Bob"})
	assert.Equal(t, errRPCStreaming.Error(), res["error"])
	seen = r.until("/greet's response", isResponse(r.send(map[string]any{"type": "prompt", "message": "/greet Bob", "streamingBehavior": "steer"})))
	assert.Equal(t, []any{"Say hello to Bob"}, seen[0]["steering"], "%v", seen[0])
	require.NoError(t, os.WriteFile(gate, nil, 0o644))
	r.until("agent_end", func(ev map[string]any) bool { return ev["type"] == "agent_end" })
	reqs := e.srv.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, "Say hello to Bob", lastUser(t, reqs[1]), "the steered template joined the run")
	text, _ := reqs[2].LastUserText()
	assert.Equal(t, "from the probe", text, "the command's prompt followed the run up")
	r.close()
}

// TestRPCSettingsEvents: thinking_level_changed and session_info_changed
// come from the runtime, so a hook command that changes the level and
// names the session tells the client too, before the prompt's response
// (as pi's); a level that stays the same is no change.
func TestRPCSettingsEvents(t *testing.T) {
	e := newE2E(t)
	e.hkGlobal("rpc_ui.lua")
	r := e.startRPC()
	settings := func(level string) []map[string]any {
		t.Helper()
		seen := r.until("/settings' response", isResponse(r.send(map[string]any{"type": "prompt", "message": "/settings " + level})))
		require.Equal(t, true, seen[len(seen)-1]["success"], "%v", seen[len(seen)-1])
		return seen[:len(seen)-1]
	}
	assert.Equal(t, []map[string]any{
		{"type": "thinking_level_changed", "level": "high"},
		{"type": "session_info_changed", "name": "named by /settings high"},
	}, settings("high"))
	assert.Equal(t, []map[string]any{
		{"type": "session_info_changed", "name": "named by /settings high"},
	}, settings("high"), "the same level: no thinking_level_changed")
	st := rpcData(r.ok(map[string]any{"type": "get_state"}))
	assert.Equal(t, "high", st["thinkingLevel"])
	assert.Equal(t, "named by /settings high", st["sessionName"])

	// The RPC commands still tell it, once.
	id := r.send(map[string]any{"type": "set_thinking_level", "level": "low"})
	assert.Equal(t, map[string]any{"type": "thinking_level_changed", "level": "low"}, r.next("thinking_level_changed"))
	assert.Equal(t, id, r.next("set_thinking_level's response")["id"])
	id = r.send(map[string]any{"type": "set_thinking_level", "level": "low"})
	assert.Equal(t, id, r.next("set_thinking_level's response")["id"], "no event for the same level")
	assert.Empty(t, e.srv.Requests(), "no run")
	r.close()
}

// TestRPCHookDecidesWhileItsCommandAsks: a hook command that waits for
// the client's answer while the agent runs does not hold its hook: the
// hook's tool.execute.before (a guard's) decides the run's next tool call
// meanwhile, and the run ends before the dialog is answered.
func TestRPCHookDecidesWhileItsCommandAsks(t *testing.T) {
	e := newE2E(t)
	e.hkGlobal("rpc_ask.lua")
	gate, started := filepath.Join(e.cwd, "gate"), filepath.Join(e.cwd, "started")
	e.srv.Reply(llmtest.ToolCall("bash", fmt.Sprintf(`{"command": "touch %s; while [ ! -e %s ]; do sleep 0.02; done; echo through"}`, started, gate)))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command": "echo second > second.txt"}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.startRPC()
	r.send(map[string]any{"type": "prompt", "message": "start"})
	r.until("the first tool", func(ev map[string]any) bool { return ev["type"] == "tool_execution_start" })
	// tool_execution_start comes before the guard has judged the call:
	// /ask waits until the command runs, so that it was judged before.
	waitFor(t, func() bool { _, err := os.Stat(started); return err == nil }, func() string { return "the first command never started" })
	id := r.send(map[string]any{"type": "prompt", "message": "/ask while it runs"})
	req := r.answerUI("confirm", nil)
	assert.Equal(t, "while it runs", req["message"])
	require.NoError(t, os.WriteFile(gate, nil, 0o644))
	seen := r.until("agent_end while the dialog waits", func(ev map[string]any) bool { return ev["type"] == "agent_end" })
	var results []any
	for _, ev := range seen {
		if ev["type"] == "tool_execution_end" {
			content := rpcData(ev["result"])["content"].([]any)
			results = append(results, []any{ev["isError"], rpcData(content[0])["text"]})
		}
	}
	assert.Equal(t, []any{[]any{false, "through\n"}, []any{true, "refused while /ask waits"}}, results)
	assert.NoFileExists(t, filepath.Join(e.cwd, "second.txt"))
	r.sendLine(fmt.Sprintf(`{"type": "extension_ui_response", "id": %q, "confirmed": true}`, req["id"]))
	seen = r.until("/ask's response", isResponse(id))
	assert.Equal(t, true, seen[len(seen)-1]["success"])
	assert.Equal(t, "ask: yes=true", seen[len(seen)-2]["message"])
	r.close()
}

// TestRPCAbortCancelsDialog: abort while a dialog waits cancels it (the
// permission policy refuses the call) and stops the run.
func TestRPCAbortCancelsDialog(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.ask = true
	e.srv.Reply(llmtest.ToolCall("bash", `{"command": "echo never > no.txt"}`))
	e.srv.SetDefault(llmtest.Text("unexpected"))
	r := e.startRPC()
	r.send(map[string]any{"type": "prompt", "message": "write"})
	r.answerUI("select", nil)
	id := r.send(map[string]any{"type": "abort"})
	seen := r.until("abort's response", isResponse(id))
	assert.Contains(t, rpcTypes(seen), "agent_end")
	assert.NoFileExists(t, filepath.Join(e.cwd, "no.txt"))
	assert.Equal(t, false, rpcData(r.ok(map[string]any{"type": "get_state"}))["isStreaming"])
	r.close()
}

// TestRPCManyCommandsWhileADialogWaits: commands sent while a dialog
// holds the command loop queue up; the dialog's answer still gets
// through and every command is answered, in order.
func TestRPCManyCommandsWhileADialogWaits(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.hkGlobal("rpc_ui.lua")
	r := e.startRPC()
	first := r.send(map[string]any{"type": "new_session"}) // session.before_clear asks
	req := r.answerUI("confirm", nil)
	var ids []string
	for range 300 {
		ids = append(ids, r.send(map[string]any{"type": "get_state"}))
	}
	r.sendLine(fmt.Sprintf(`{"type": "extension_ui_response", "id": %q, "confirmed": true}`, req["id"]))
	res := r.next("new_session's response")
	assert.Equal(t, first, res["id"])
	assert.Equal(t, map[string]any{"cancelled": false}, res["data"])
	for _, id := range ids {
		assert.Equal(t, id, r.next("get_state's response")["id"])
	}

	// Refused: the hook cancels, as pi's {cancelled: true}.
	id := r.send(map[string]any{"type": "new_session"})
	r.answerUI("confirm", map[string]any{"confirmed": false})
	res = r.next("new_session's response")
	assert.Equal(t, id, res["id"])
	assert.Equal(t, map[string]any{"cancelled": true}, res["data"])
	r.close()
}

// TestRPCEndOfInput: the end of stdin stops a hanging reply; lunar exits
// with 0 and the session file keeps the prompt. SIGTERM ends it too, with
// exit code 130.
func TestRPCEndOfInput(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("partial "), llmtest.Hang())
	r := e.startRPC()
	r.send(map[string]any{"type": "prompt", "message": "hang on"})
	r.until("the first text", func(ev map[string]any) bool { return ev["type"] == "message_update" })
	r.close()
	s := e.onlySession()
	var texts []string
	for _, m := range s.BuildContext().Messages {
		texts = append(texts, m.Message.Text())
	}
	assert.Contains(t, texts, "hang on")

	e.srv.Reply(llmtest.Text("partial "), llmtest.Hang())
	r = e.startRPC()
	r.send(map[string]any{"type": "prompt", "message": "hang again"})
	r.until("the first text", func(ev map[string]any) bool { return ev["type"] == "message_update" })
	require.NoError(t, r.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-r.exited:
	case <-time.After(time.Minute):
		r.fatalf("lunar does not exit after SIGTERM")
	}
	assert.Equal(t, exitInterrupted, r.cmd.ProcessState.ExitCode(), r.stderr.String())
}

// TestRPCAutoCompaction: set_auto_compaction false keeps a turn past the
// threshold from compacting; true again, the context past the threshold
// is compacted before the next prompt.
func TestRPCAutoCompaction(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	// gpt-4.1's window is 1,047,576: compact above 576 tokens.
	e.hkConfig(`{"compaction": {"reserve_tokens": 1047000, "keep_recent_tokens": 50}}`)
	e.threeTurns()
	r := e.startRPC("-c")
	r.ok(map[string]any{"type": "set_auto_compaction", "enabled": false})
	e.srv.Reply(llmtest.Text("big answer"), llmtest.Usage(900, 10, 0, 0))
	n := len(e.srv.Requests())
	r.promptAndWait("question 4")
	st := rpcData(r.ok(map[string]any{"type": "get_state"}))
	assert.Equal(t, false, st["autoCompactionEnabled"])
	assert.Len(t, e.srv.Requests(), n+1, "no summary request")

	r.ok(map[string]any{"type": "set_auto_compaction", "enabled": true})
	e.srv.Reply(llmtest.Text("## Goal\nauto summary"))
	e.srv.Reply(llmtest.Text("small answer"), llmtest.Usage(100, 10, 0, 0))
	seen := r.promptAndWait("question 5")
	assert.Equal(t, []string{"response", "compaction_start", "compaction_end", "agent_start"}, rpcTypes(seen)[:4])
	assert.Equal(t, "threshold", seen[1]["reason"])
	assert.Len(t, e.srv.Requests(), n+3)
	r.close()
	cs := compactions(e.onlySession())
	require.Len(t, cs, 1)
	assert.Equal(t, "## Goal\nauto summary", cs[0].Summary())
}
