// End-to-end tests of what one-shot runs write and read back: the session
// file (v3, loadable, the same context the requests carried), resuming
// with -c and --session, --fork, --session-dir and `lunar sessions`.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// wireMsg is a model-call message reduced to what both APIs carry, so a
// request body can be compared with a session's context.
type wireMsg struct {
	Role       string // user, assistant, tool
	Text       string
	ToolCalls  []wireCall
	ToolCallID string
	IsError    bool
}

type wireCall struct {
	ID, Name, Args string // Args: compact JSON
}

func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, json.Compact(&b, []byte(s)), "arguments are JSON: %s", s)
	return b.String()
}

// contextWire is what a model call built from a session context must send:
// ConvertToLLM of the context messages, errored and aborted replies left out.
func contextWire(t *testing.T, msgs []session.ContextMessage) []wireMsg {
	t.Helper()
	plain := make([]session.Message, len(msgs))
	for i := range msgs {
		plain[i] = msgs[i].Message
	}
	var out []wireMsg
	for _, m := range session.ConvertToLLM(plain) {
		switch m.Role {
		case session.RoleUser:
			out = append(out, wireMsg{Role: "user", Text: m.Text()})
		case session.RoleAssistant:
			if m.StopReason == session.StopError || m.StopReason == session.StopAborted {
				continue
			}
			w := wireMsg{Role: "assistant", Text: m.Text()}
			for _, c := range m.ToolCalls() {
				w.ToolCalls = append(w.ToolCalls, wireCall{c.ID, c.Name, compactJSON(t, string(c.Arguments))})
			}
			out = append(out, w)
		case session.RoleToolResult:
			out = append(out, wireMsg{Role: "tool", Text: m.Text(), ToolCallID: m.ToolCallID, IsError: m.IsError})
		}
	}
	return out
}

// requestWire reads the messages of a recorded request body of either API.
func requestWire(t *testing.T, req llmtest.Request) []wireMsg {
	t.Helper()
	var body struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(req.Body, &body))
	var out []wireMsg
	str := func(raw json.RawMessage) string {
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	}
	for _, m := range body.Messages {
		role := str(m["role"])
		if req.API == llmtest.APIOpenAI {
			switch role {
			case "system", "developer":
				continue
			case "user":
				out = append(out, wireMsg{Role: "user", Text: contentText(m["content"])}) // a string or parts, as pi sends it
			case "assistant":
				w := wireMsg{Role: "assistant", Text: str(m["content"])}
				var calls []struct {
					ID       string `json:"id"`
					Function struct{ Name, Arguments string }
				}
				_ = json.Unmarshal(m["tool_calls"], &calls)
				for _, c := range calls {
					w.ToolCalls = append(w.ToolCalls, wireCall{c.ID, c.Function.Name, compactJSON(t, c.Function.Arguments)})
				}
				out = append(out, w)
			case "tool":
				out = append(out, wireMsg{Role: "tool", Text: str(m["content"]), ToolCallID: str(m["tool_call_id"])})
			default:
				t.Fatalf("unexpected role %q in %s", role, req.Body)
			}
			continue
		}
		var blocks []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			IsError   bool            `json:"is_error"`
			Content   json.RawMessage `json:"content"` // a string or blocks, as pi sends it
		}
		if s := str(m["content"]); s != "" { // string content, as pi sends it
			m["content"], _ = json.Marshal([]map[string]string{{"type": "text", "text": s}})
		}
		require.NoError(t, json.Unmarshal(m["content"], &blocks))
		var cur *wireMsg
		for _, b := range blocks {
			switch b.Type {
			case "text":
				if cur == nil {
					out = append(out, wireMsg{Role: map[string]string{"user": "user", "assistant": "assistant"}[role]})
					cur = &out[len(out)-1]
				}
				cur.Text += b.Text
			case "tool_use":
				if cur == nil {
					out = append(out, wireMsg{Role: "assistant"})
					cur = &out[len(out)-1]
				}
				cur.ToolCalls = append(cur.ToolCalls, wireCall{b.ID, b.Name, compactJSON(t, string(b.Input))})
			case "tool_result":
				out = append(out, wireMsg{Role: "tool", Text: contentText(b.Content), ToolCallID: b.ToolUseID, IsError: b.IsError})
				cur = nil
			default:
				t.Fatalf("unexpected block %q in %s", b.Type, req.Body)
			}
		}
	}
	return out
}

// wireFor drops IsError for the OpenAI API, which does not carry it.
func wireFor(api string, msgs []wireMsg) []wireMsg {
	if api != llmtest.APIOpenAI {
		return msgs
	}
	out := make([]wireMsg, len(msgs))
	for i, m := range msgs {
		m.IsError = false
		out[i] = m
	}
	return out
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	require.NoError(t, sc.Err())
	return lines
}

var (
	sessionFileName = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_([0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})\.jsonl$`)
	entryID         = regexp.MustCompile(`^[0-9a-f]{8}$`)
)

// checkSessionFile checks the format of a session file line by line: a v3
// header, then entries with 8-hex ids chained by parentId, and that the
// session package loads it without warnings.
func checkSessionFile(t *testing.T, path, cwd string) *session.Session {
	t.Helper()
	m := sessionFileName.FindStringSubmatch(filepath.Base(path))
	require.NotNil(t, m, "file name %s", filepath.Base(path))
	assert.Equal(t, session.Dir(filepath.Dir(filepath.Dir(path)), cwd), filepath.Dir(path), "per-cwd folder")
	lines := readLines(t, path)
	require.NotEmpty(t, lines)
	var h map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &h))
	assert.Equal(t, "session", h["type"])
	assert.EqualValues(t, 3, h["version"])
	assert.Equal(t, m[1], h["id"])
	assert.Equal(t, cwd, h["cwd"])
	assert.True(t, strings.HasPrefix(lines[0], `{"type":"session","version":3,"id":`), "header keys in pi's order: %s", lines[0])
	prev := any(nil)
	for i, line := range lines[1:] {
		var e map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &e), "line %d", i+2)
		assert.Regexp(t, entryID, e["id"], "line %d", i+2)
		assert.Equal(t, prev, e["parentId"], "line %d chains to the previous entry", i+2)
		prev = e["id"]
	}
	s, err := session.Load(path)
	require.NoError(t, err)
	assert.Empty(t, s.Warnings())
	assert.Equal(t, 3, s.Header().Version)
	return s
}

func TestSessionFileMatchesWhatWasSent(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			e := newE2E(t)
			e.api = api
			e.srv.Reply(llmtest.Text("Let me look."), llmtest.ToolCall("bash", `{"command":"echo one; echo two"}`).Split(3))
			e.srv.Reply(llmtest.ToolCall("read", `{"path":"missing.txt"}`))
			e.srv.Reply(llmtest.Text("Done: one, two."), llmtest.Usage(40, 5, 0, 0))
			r := e.run("", "-p", "run the thing")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, "Let me look.\n\nDone: one, two.\n", r.stdout)

			files := e.sessionFiles()
			require.Len(t, files, 1)
			s := checkSessionFile(t, files[0], e.cwd)
			entries := s.Entries()
			require.GreaterOrEqual(t, len(entries), 2)
			assert.Equal(t, session.TypeModelChange, entries[0].Type)
			assert.Equal(t, session.TypeThinkingLevelChange, entries[1].Type)
			c := s.BuildContext()
			assert.Equal(t, e.modelArgs()[1], c.Provider+"/"+c.ModelID)
			require.Len(t, c.Messages, 6) // user, assistant+bash, result, assistant+read, error result, answer
			assert.True(t, c.Messages[4].Message.IsError, "reading a missing file is an error result")

			reqs := e.srv.Requests()
			require.Len(t, reqs, 3)
			ctxWire := contextWire(t, c.Messages)
			for i, n := range []int{1, 3, 5} { // each request carries the context as it was then
				assert.Equal(t, wireFor(reqs[i].API, ctxWire[:n]), requestWire(t, reqs[i]), "request %d", i+1)
			}
			assert.Contains(t, ctxWire[2].Text, "one\ntwo\n")
		})
	}
}

// resumeCase is one way of naming the session to resume.
type resumeCase struct {
	name string
	args func(e *e2e, file, id string) []string
}

var resumeCases = []resumeCase{
	{"continue", func(*e2e, string, string) []string { return []string{"-c"} }},
	{"continue long", func(*e2e, string, string) []string { return []string{"--continue"} }},
	{"session path", func(_ *e2e, file, _ string) []string { return []string{"--session", file} }},
	{"session id", func(_ *e2e, _, id string) []string { return []string{"--session", id} }},
	{"session id prefix", func(_ *e2e, _, id string) []string { return []string{"--session", id[:8]} }},
}

func TestResumedRequestCarriesEarlierContext(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"openai", "anthropic"} {
		for _, rc := range resumeCases {
			t.Run(api+"/"+rc.name, func(t *testing.T) {
				e := newE2E(t)
				e.api = api
				e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo earlier"}`))
				e.srv.Reply(llmtest.Text("First answer."))
				require.Equal(t, 0, e.run("", "-p", "first question").code)
				before := e.onlySession()
				beforeCtx := before.BuildContext().Messages
				require.Len(t, beforeCtx, 4)

				e.srv.Reply(llmtest.Text("Second answer."))
				args := append(rc.args(e, before.File(), before.ID()), "-p", "second question")
				r := e.run("", args...)
				require.Equal(t, 0, r.code, r.stderr)
				assert.Equal(t, "Second answer.\n", r.stdout)

				reqs := e.srv.Requests()
				require.Len(t, reqs, 3)
				want := append(contextWire(t, beforeCtx), wireMsg{Role: "user", Text: "second question"})
				assert.Equal(t, wireFor(reqs[2].API, want), requestWire(t, reqs[2]))

				files := e.sessionFiles()
				require.Len(t, files, 1, "resuming appends to the same file")
				after := checkSessionFile(t, files[0], e.cwd)
				assert.Equal(t, before.ID(), after.ID())
				msgs := after.BuildContext().Messages
				require.Len(t, msgs, 6)
				assert.Equal(t, contextWire(t, beforeCtx), contextWire(t, msgs[:4]), "earlier entries untouched")
				changes := 0
				for _, en := range after.Entries() {
					if en.Type == session.TypeModelChange || en.Type == session.TypeThinkingLevelChange {
						changes++
					}
				}
				assert.Equal(t, 2, changes, "a resumed run with the same model and level adds no change entries")
			})
		}
	}
}

func TestResumeWithUnknownSession(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	r := e.run("", "--session", "0199ffff", "-p", "x")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "0199ffff")
	assert.Empty(t, r.stdout)
	assert.Empty(t, e.srv.Requests())

	r = e.run("", "--session", filepath.Join(e.cwd, "nope.jsonl"), "-p", "x")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "nope.jsonl")
}

func TestContinueWithoutSessionStartsOne(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("fresh"))
	r := e.run("", "-c", "-p", "hello")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, e.onlySession().BuildContext().Messages, 2)
}

func TestForkCopiesIntoANewSession(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("First answer."))
	require.Equal(t, 0, e.run("", "-p", "first question").code)
	orig := e.onlySession()
	origBytes, err := os.ReadFile(orig.File())
	require.NoError(t, err)

	e.srv.Reply(llmtest.Text("Forked answer."))
	r := e.run("", "--fork", orig.ID()[:13], "-p", "forked question")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "Forked answer.\n", r.stdout)

	after, err := os.ReadFile(orig.File())
	require.NoError(t, err)
	assert.Equal(t, string(origBytes), string(after), "the original session is untouched")
	files := e.sessionFiles()
	require.Len(t, files, 2)
	fork := files[0]
	if fork == orig.File() {
		fork = files[1]
	}
	s := checkSessionFile(t, fork, e.cwd)
	assert.NotEqual(t, orig.ID(), s.ID())
	assert.Equal(t, orig.File(), s.Header().ParentSession)
	msgs := s.BuildContext().Messages
	require.Len(t, msgs, 4)
	assert.Equal(t, "first question", msgs[0].Message.Text())
	assert.Equal(t, "forked question", msgs[2].Message.Text())

	reqs := e.srv.Requests()
	want := append(contextWire(t, orig.BuildContext().Messages), wireMsg{Role: "user", Text: "forked question"})
	assert.Equal(t, want, requestWire(t, reqs[1]))

	// by path too
	e.srv.Reply(llmtest.Text("again"))
	r = e.run("", "--fork", orig.File(), "-p", "q3")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, e.sessionFiles(), 3)
}

func TestSessionDirFlag(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	dir := filepath.Join(t.TempDir(), "my sessions")
	e.srv.Reply(llmtest.Text("one"))
	r := e.run("", "--session-dir", dir, "-p", "q1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, e.sessionFiles(), "nothing in the default folder")
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.Len(t, files, 1)

	e.srv.Reply(llmtest.Text("two"))
	r = e.run("", "--session-dir", dir, "-c", "-p", "q2")
	require.Equal(t, 0, r.code, r.stderr)
	files, _ = filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.Len(t, files, 1)
	s, err := session.Load(files[0])
	require.NoError(t, err)
	assert.Len(t, s.BuildContext().Messages, 4)
	assert.Contains(t, string(e.srv.Requests()[1].Body), "q1")

	r = e.run("", "sessions", "--session-dir", dir)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, s.ID()[:8])
}

func TestSessionsSubcommand(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	r := e.run("", "sessions")
	assert.Equal(t, 0, r.code)
	assert.Empty(t, r.stdout)
	assert.Contains(t, r.stderr, "no sessions")

	e.srv.Reply(llmtest.Text("a"))
	require.Equal(t, 0, e.run("", "-p", "the first\nquestion").code)
	e.srv.Reply(llmtest.Text("b"))
	require.Equal(t, 0, e.run("", "-p", "the second question").code)
	e.srv.Reply(llmtest.Text("c"))
	require.Equal(t, 0, e.run("", "--no-session", "-p", "not saved").code)

	r = e.run("", "sessions")
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	require.Len(t, lines, 3, r.stdout)
	assert.Regexp(t, `^ID +MODIFIED +MSGS +NAME / FIRST MESSAGE$`, lines[0])
	infos, err := session.List(filepath.Join(e.home, "data", "sessions"), e.cwd)
	require.NoError(t, err)
	require.Len(t, infos, 2)
	for i, in := range infos {
		short := strings.Fields(lines[i+1])[0]
		assert.True(t, len(short) >= 8 && strings.HasPrefix(in.ID, short), "line %d names session %s by a prefix: %s", i+1, in.ID, lines[i+1])
		assert.Regexp(t, `  just now +2  `, lines[i+1])
	}
	assert.Contains(t, r.stdout, "the first question", "first message on one line")
	assert.Contains(t, r.stdout, "the second question")
	assert.NotContains(t, r.stdout, "not saved")

	r = e.run("", "sessions", "frobnicate")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `unknown sessions command "frobnicate"`)
}

func TestSessionInUseByAnotherRun(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("one"))
	require.Equal(t, 0, e.run("", "-p", "q1").code)
	s := e.onlySession()

	e.srv.Reply(llmtest.Text("slow"), llmtest.Hang())
	first := e.cmd("", "--session", s.ID(), "-p", "q2")
	var out syncBuffer
	first.Stdout = &out
	e.startCmd(first) // killed at the test's end
	waitFor(t, func() bool { return out.String() == "slow" }, func() string { return "the first run's reply never started: " + out.String() })

	r := e.run("", "-c", "-p", "q3")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "in use by another lunar process")
	assert.Contains(t, r.stderr, "--fork")
	assert.Empty(t, r.stdout)
	assert.Len(t, e.srv.Requests(), 2, "the second run sent nothing")

	e.srv.Reply(llmtest.Text("forked"))
	r = e.run("", "--fork", s.ID(), "-p", "q3")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "forked\n", r.stdout, "a locked session can still be forked")
}
