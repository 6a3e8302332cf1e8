// End-to-end tests of the Lua hooks: scripts from testdata/hooks run
// through the built binary against the fake LLM server, each test
// asserting the real effect of an event or API function (what reaches the
// request, what is stored, what runs and what does not).
package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/session"
)

// hkDir is testdata/hooks, absolute (for --hook and for copying).
func hkDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "hooks"))
	require.NoError(t, err)
	return dir
}

// hkFile is the absolute path of testdata/hooks/name.
func hkFile(t *testing.T, name string) string {
	return filepath.Join(hkDir(t), name)
}

// newHookE2E is an e2e whose hooks record into $HOOK_LOG (see
// testdata/hooks/lib/testlog.lua).
func newHookE2E(t *testing.T) *e2e {
	t.Helper()
	e := newE2E(t)
	e.env = append(e.env, "HOOK_LOG="+e.hkLogPath())
	return e
}

func (e *e2e) hkLogPath() string { return filepath.Join(e.cwd, "hooks.log") }

// hkInstall copies testdata/hooks files (and the shared lib/) into dir.
func (e *e2e) hkInstall(dir string, names ...string) {
	e.t.Helper()
	src := hkDir(e.t)
	require.NoError(e.t, os.MkdirAll(filepath.Join(dir, "lib"), 0o755))
	libs, err := os.ReadDir(filepath.Join(src, "lib"))
	require.NoError(e.t, err)
	for _, l := range libs {
		hkCopyFile(e.t, filepath.Join(src, "lib", l.Name()), filepath.Join(dir, "lib", l.Name()))
	}
	for _, n := range names {
		hkCopyFile(e.t, filepath.Join(src, n), filepath.Join(dir, n))
	}
}

// hkGlobal installs hooks into $LUNAR_HOME/config/hooks.d.
func (e *e2e) hkGlobal(names ...string) {
	e.hkInstall(filepath.Join(e.home, "config", "hooks.d"), names...)
}

// hkProject installs hooks into the project's .lunar/hooks.d.
func (e *e2e) hkProject(names ...string) {
	e.hkInstall(filepath.Join(e.cwd, ".lunar", "hooks.d"), names...)
}

// hkConfig writes $LUNAR_HOME/config/config.json.
func (e *e2e) hkConfig(text string) {
	e.t.Helper()
	dir := filepath.Join(e.home, "config")
	require.NoError(e.t, os.MkdirAll(dir, 0o755))
	require.NoError(e.t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(text), 0o644))
}

func hkCopyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, data, 0o644))
}

// hkLine is one record of testlog.lua.
type hkLine struct {
	Hook  string `json:"hook"`
	Kind  string `json:"kind"`
	Value any    `json:"value"`
}

// obj is the record's value as a JSON object.
func (l hkLine) obj() map[string]any {
	m, _ := l.Value.(map[string]any)
	return m
}

// hkLines reads what the hooks recorded so far.
func (e *e2e) hkLines() []hkLine {
	e.t.Helper()
	return hkReadLog(e.t, e.hkLogPath())
}

// hkReadLog reads a testlog.lua file (none yet: no records).
func hkReadLog(t *testing.T, path string) []hkLine {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	defer f.Close()
	var out []hkLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var l hkLine
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l), sc.Text())
		out = append(out, l)
	}
	require.NoError(t, sc.Err())
	return out
}

// hkRecorded returns the records of one kind.
func (e *e2e) hkRecorded(kind string) []hkLine {
	var out []hkLine
	for _, l := range e.hkLines() {
		if l.Kind == kind {
			out = append(out, l)
		}
	}
	return out
}

// hkKinds lists the records' kinds, in order.
func hkKinds(lines []hkLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Kind
	}
	return out
}

// hkClearLog forgets what was recorded so far.
func (e *e2e) hkClearLog() {
	e.t.Helper()
	err := os.Remove(e.hkLogPath())
	if !os.IsNotExist(err) {
		require.NoError(e.t, err)
	}
}

// hkNum reads a JSON number as an int.
func hkNum(v any) int {
	f, _ := v.(float64)
	return int(f)
}

// hkEntries returns a session's entries of one type, in file order.
func hkEntries(s *session.Session, typ string) []*session.Entry {
	var out []*session.Entry
	for _, e := range s.Entries() {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func TestHookRecorderListensToEveryEvent(t *testing.T) {
	code, err := os.ReadFile(hkFile(t, "events.lua"))
	require.NoError(t, err)
	for _, name := range lua.EventNames() {
		assert.Contains(t, string(code), `"`+name+`"`, "events.lua must record %s", name)
	}
}

// hkNonRequest drops the per-request events (context, chat.params,
// model.resolve, chat.system.transform, auth.get, provider.request,
// provider.response), checked separately.
func hkNonRequest(kinds []string) []string {
	var out []string
	for _, k := range kinds {
		switch k {
		case "context", "chat.params", "model.resolve", "chat.system.transform", "auth.get", "provider.request", "provider.response":
			continue
		}
		out = append(out, k)
	}
	return out
}

func TestHookEventsOfAOneShotRun(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo hi"}`), llmtest.Usage(100, 10, 0, 0))
	e.srv.Reply(llmtest.Text("done"), llmtest.Usage(130, 5, 20, 0))
	r := e.run("", "--hook", hkFile(t, "events.lua"), "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "done\n", r.stdout)
	assert.Equal(t, "→ bash  echo hi\n", r.stderr, "no hook problem reported")
	lines := e.hkLines()
	kinds := hkKinds(lines)
	assert.Equal(t, []string{"app.start", "session.start", "chat.message", "agent.before_start", "agent.start",
		"turn.start", "tool.execute.before", "tool.execute.after", "turn.end",
		"turn.start", "turn.end", "agent.end", "session.shutdown"}, hkNonRequest(kinds))
	// Every model call is preceded, inside its turn, by each per-request event once.
	var turns [][]string
	for _, k := range kinds {
		switch {
		case k == "turn.start":
			turns = append(turns, nil)
		case len(hkNonRequest([]string{k})) == 0:
			turns[len(turns)-1] = append(turns[len(turns)-1], k)
		}
	}
	require.Len(t, turns, 2)
	for _, tr := range turns {
		assert.ElementsMatch(t, []string{"context", "model.resolve", "chat.params", "chat.system.transform", "auth.get", "provider.request", "provider.response"}, tr)
		assert.Equal(t, []string{"provider.request", "provider.response"}, tr[len(tr)-2:], "the provider events come last, around the HTTP call")
	}

	s := e.onlySession()
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	byKind := func(k string) []map[string]any {
		var out []map[string]any
		for _, l := range lines {
			if l.Kind == k {
				out = append(out, l.obj())
			}
		}
		return out
	}
	ver := e.run("", "--version")
	assert.Equal(t, "lunar "+byKind("app.start")[0]["version"].(string)+"\n", ver.stdout)
	assert.Equal(t, "oneshot", byKind("app.start")[0]["mode"])
	assert.Equal(t, s.ID(), byKind("session.start")[0]["session_id"])
	assert.Equal(t, s.File(), byKind("session.start")[0]["session_file"])
	assert.Equal(t, s.ID(), byKind("session.shutdown")[0]["session_id"])
	assert.Equal(t, "go", byKind("chat.message")[0]["text"])
	assert.Equal(t, []any{}, byKind("chat.message")[0]["parts"])
	bs := byKind("agent.before_start")[0]
	assert.Equal(t, "go", bs["prompt"])
	assert.Equal(t, systemPrompt(t, reqs[0]), bs["system_prompt"])
	assert.Equal(t, systemPrompt(t, reqs[0]), byKind("chat.system.transform")[0]["system_prompt"])

	// context: the messages with the ids of the entries they come from.
	var msgIDs []string
	for _, en := range hkEntries(s, session.TypeMessage) {
		msgIDs = append(msgIDs, en.ID)
	}
	require.Len(t, msgIDs, 4)
	ctxIDs := func(ev map[string]any) []string {
		var ids []string
		for _, m := range ev["messages"].([]any) {
			ids = append(ids, m.(map[string]any)["entry_id"].(string))
		}
		return ids
	}
	assert.Equal(t, msgIDs[:1], ctxIDs(byKind("context")[0]))
	assert.Equal(t, msgIDs[:3], ctxIDs(byKind("context")[1]))
	second := byKind("context")[1]["messages"].([]any)
	assert.Equal(t, "toolResult", second[2].(map[string]any)["role"], "messages are session JSON (camelCase)")
	assert.Equal(t, "call_llmtest_1_0", second[2].(map[string]any)["toolCallId"])

	model := byKind("model.resolve")[0]["model"].(map[string]any)
	assert.Equal(t, "openai", model["provider"])
	assert.Equal(t, "gpt-4.1", model["id"])
	assert.Equal(t, "openai-completions", model["api"])
	assert.Equal(t, e.srv.URL(), model["base_url"])
	limit := hkNum(model["context_window"])
	assert.Positive(t, limit)
	params := byKind("chat.params")[0]["params"].(map[string]any)
	assert.Equal(t, "off", params["thinking_level"])
	assert.Equal(t, hkNum(model["max_tokens"]), hkNum(params["max_tokens"]))
	assert.Equal(t, map[string]any{"type": "auth.get", "provider": "openai", "model_id": "gpt-4.1"}, byKind("auth.get")[0])
	for i, pr := range byKind("provider.request") {
		assert.Equal(t, reqs[i].JSON, pr["body"], "provider.request %d: the body as sent", i)
		assert.Equal(t, e.srv.URL()+"/chat/completions", pr["url"])
		assert.Equal(t, "openai-completions", pr["api"])
	}
	for _, pr := range byKind("provider.response") {
		assert.Equal(t, 200, hkNum(pr["status"]))
		assert.Contains(t, pr["headers"].(map[string]any)["content-type"], "text/event-stream")
	}

	before := byKind("tool.execute.before")[0]
	assert.Equal(t, "bash", before["tool_name"])
	assert.Equal(t, "call_llmtest_1_0", before["tool_call_id"])
	assert.Equal(t, map[string]any{"command": "echo hi"}, before["input"])
	after := byKind("tool.execute.after")[0]
	assert.Equal(t, "bash", after["tool_name"])
	assert.Equal(t, map[string]any{"command": "echo hi"}, after["input"])
	assert.Equal(t, []any{map[string]any{"type": "text", "text": "hi\n"}}, after["content"])
	assert.Equal(t, false, after["is_error"])

	// Token usage and the context limit at the end of each turn and run.
	ends := byKind("turn.end")
	require.Len(t, ends, 2)
	assert.Equal(t, 0, hkNum(ends[0]["turn_index"]))
	assert.Equal(t, 1, hkNum(ends[1]["turn_index"]))
	assert.Equal(t, map[string]any{"input": 100.0, "output": 10.0, "cache_read": 0.0, "cache_write": 0.0, "total": 110.0}, ends[0]["tokens"])
	assert.Equal(t, 110, hkNum(ends[0]["context_tokens"]))
	assert.Equal(t, limit, hkNum(ends[0]["context_limit"]))
	assert.Equal(t, "toolUse", ends[0]["message"].(map[string]any)["stopReason"])
	assert.Len(t, ends[0]["tool_results"], 1)
	assert.Equal(t, map[string]any{"input": 130.0, "output": 5.0, "cache_read": 20.0, "cache_write": 0.0, "total": 155.0}, ends[1]["tokens"])
	assert.Equal(t, 155, hkNum(ends[1]["context_tokens"]))
	assert.Equal(t, []any{}, ends[1]["tool_results"])
	end := byKind("agent.end")[0]
	assert.Equal(t, 265, hkNum(end["total_tokens"]))
	assert.Equal(t, map[string]any{"input": 230.0, "output": 15.0, "cache_read": 20.0, "cache_write": 0.0, "total": 265.0}, end["tokens"])
	assert.Equal(t, 155, hkNum(end["context_tokens"]))
	assert.Equal(t, limit, hkNum(end["context_limit"]))
	assert.Len(t, end["messages"], 4)

	// A resumed session fires session.start (reason "resume"), then
	// session.resume; JSON mode says so in app.start.
	e.hkClearLog()
	e.srv.Reply(llmtest.Text("again"))
	r = e.run("", "--hook", hkFile(t, "events.lua"), "--mode", "json", "-c", "-p", "more")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "resume", e.hkRecorded("session.start")[0].obj()["reason"])
	assert.Equal(t, []string{"app.start", "session.start", "session.resume", "chat.message", "agent.before_start", "agent.start",
		"turn.start", "turn.end", "agent.end", "session.shutdown"}, hkNonRequest(hkKinds(e.hkLines())))
	resumed := e.hkRecorded("session.resume")[0].obj()
	assert.Equal(t, s.ID(), resumed["session_id"])
	assert.Equal(t, s.File(), resumed["session_file"])
	assert.Equal(t, "json", e.hkRecorded("app.start")[0].obj()["mode"])
	assert.Len(t, e.hkRecorded("context")[0].obj()["messages"], 5, "the resumed context")
}

// hkUserTexts lists the text of the user-role messages of a request (both APIs).
func hkUserTexts(req llmtest.Request) []string {
	var out []string
	msgs, _ := req.JSON["messages"].([]any)
	for _, m := range msgs {
		mm := m.(map[string]any)
		if mm["role"] != "user" {
			continue
		}
		switch c := mm["content"].(type) {
		case string:
			out = append(out, c)
		case []any:
			for _, p := range c {
				if pm, ok := p.(map[string]any); ok && pm["type"] == "text" {
					out = append(out, pm["text"].(string))
				}
			}
		}
	}
	return out
}

func TestHooksShapeTheRequest(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			e := newHookE2E(t)
			e.api = api
			// The hook's extra field: OpenAI knows seed, Anthropic does not
			// (it would refuse the body); lunar sends it as asked.
			e.srv.AllowFields("seed")
			e.srv.Reply(llmtest.Text("ok"))
			r := e.run("", "--hook", hkFile(t, "request.lua"), "-p", "go")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Empty(t, r.stderr)
			reqs := e.srv.Requests()
			require.Len(t, reqs, 1)
			req := reqs[0]

			// chat.message: the rewritten text is sent and stored.
			// agent.before_start: its message follows the prompt, in the request and the file.
			assert.Equal(t, []string{"go (rewritten by chat.message)", "Remember the hook."}, hkUserTexts(req))
			s := e.onlySession()
			msgs := s.BuildContext().Messages
			require.Len(t, msgs, 3)
			assert.Equal(t, "go (rewritten by chat.message)", msgs[0].Message.Text())
			cms := hkEntries(s, session.TypeCustomMessage)
			require.Len(t, cms, 1)
			assert.Equal(t, "reminder", cms[0].CustomType())
			assert.Equal(t, "Remember the hook.", session.BlocksText(cms[0].Content()))
			assert.False(t, cms[0].Display())
			assert.JSONEq(t, `{"n":1}`, string(cms[0].Details()))
			assert.Equal(t, msgs[0].EntryID, cms[0].ParentID, "injected after the prompt")

			// agent.before_start's system prompt, then chat.system.transform.
			assert.Equal(t, "HOOK SYSTEM PROMPT for: go (rewritten by chat.message)\n(transformed)", systemPrompt(t, req))

			// chat.params
			assert.Equal(t, 0.25, req.Field("temperature"))
			assert.Equal(t, 0.5, req.Field("top_p"))
			assert.Equal(t, 7.0, req.Field("seed"), "extra is merged into the body")
			if api == "openai" {
				assert.Equal(t, 123.0, req.Field("max_completion_tokens"))
			} else {
				assert.Equal(t, 123.0, req.Field("max_tokens"))
			}

			// model.resolve, and auth.get sees the resolved model.
			base := map[string]string{"openai": "gpt-4.1", "anthropic": "claude-sonnet-4-5"}[api]
			assert.Equal(t, base+"-resolved", req.Field("model"))
			auth := e.hkRecorded("auth.get")
			require.Len(t, auth, 1)
			assert.Equal(t, base+"-resolved", auth[0].obj()["model_id"])
			assert.Equal(t, api, auth[0].obj()["provider"])

			// auth.get: the key and the headers reach the server.
			assert.Equal(t, "hook "+base+"-resolved", req.Header.Get("X-Hook-Header"))
			if api == "openai" {
				assert.Equal(t, "Bearer sk-from-hook", req.Header.Get("Authorization"))
			} else {
				assert.Equal(t, "sk-from-hook", req.Header.Get("X-Api-Key"))
			}
			raw, err := os.ReadFile(s.File())
			require.NoError(t, err)
			assert.NotContains(t, string(raw), "sk-from-hook")
		})
	}
}

func TestAuthHookBaseURL(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	alt := llmtest.New(t)
	alt.Reply(llmtest.Text("from the other server"))
	e.env = append(e.env, "ALT_BASE_URL="+alt.URL())
	r := e.run("", "--hook", hkFile(t, "auth_base_url.lua"), "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "from the other server\n", r.stdout)
	assert.Empty(t, e.srv.Requests())
	assert.Len(t, alt.Requests(), 1)
}

func TestContextHookChangesOnlyTheRequest(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	e.srv.Reply(llmtest.Text("first answer"))
	require.Equal(t, 0, e.run("", "-p", "drop me").code)

	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo secret-$((40+2))"}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "--hook", hkFile(t, "context.lua"), "-c", "-p", "second")
	require.Equal(t, 0, r.code, r.stderr)
	reqs := e.srv.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, []string{"drop me"}, hkUserTexts(reqs[0]))
	assert.Equal(t, []string{"second"}, hkUserTexts(reqs[1]), "the hook dropped the first prompt")
	assert.Contains(t, string(reqs[1].Body), "first answer")
	assert.NotContains(t, string(reqs[2].Body), "secret-42")
	assert.Contains(t, string(reqs[2].Body), "[tool output hidden by hook]")

	// The file keeps everything.
	msgs := e.onlySession().BuildContext().Messages
	require.Len(t, msgs, 6)
	assert.Equal(t, "drop me", msgs[0].Message.Text())
	assert.Equal(t, "secret-42\n", msgs[4].Message.Text())
	raw, err := os.ReadFile(e.onlySession().File())
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "hidden by hook")
}

func TestToolEventHooks(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	e.srv.Reply(llmtest.ToolCall("write", `{"path":"blocked.txt","content":"x"}`))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo original"}`))
	e.srv.Reply(llmtest.ToolCall("read", `{"path":"missing.txt"}`))
	e.srv.Reply(llmtest.ToolCall("bash", `{"cmd":"ls"}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "--hook", hkFile(t, "tool_events.lua"), "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)

	// A blocked tool never runs; the model gets the reason.
	assert.NoFileExists(t, filepath.Join(e.cwd, "blocked.txt"))
	msgs := e.onlySession().BuildContext().Messages
	require.Len(t, msgs, 10)
	results := []*session.Message{&msgs[2].Message, &msgs[4].Message, &msgs[6].Message, &msgs[8].Message}
	assert.True(t, results[0].IsError)
	assert.Equal(t, "writes are not allowed here", results[0].Text())
	assert.Contains(t, string(e.srv.Requests()[1].Body), "writes are not allowed here")

	// {input=} replaces the arguments the tool runs with.
	assert.False(t, results[1].IsError)
	assert.Equal(t, "replaced\n", results[1].Text())

	// tool.execute.after sees errors and may replace the result.
	assert.True(t, results[2].IsError)
	assert.True(t, strings.HasPrefix(results[2].Text(), "hook saw: "), results[2].Text())
	assert.Contains(t, results[2].Text(), "missing.txt")
	assert.JSONEq(t, `{"seen":true}`, string(results[2].Details))
	assert.Contains(t, string(e.srv.Requests()[3].Body), "hook saw: ")

	// Invalid arguments: the tool and tool.execute.before never run, tool.execute.after does.
	assert.True(t, results[3].IsError)
	var before []string
	for _, l := range e.hkRecorded("before") {
		before = append(before, l.obj()["tool_name"].(string))
	}
	assert.Equal(t, []string{"write", "bash", "read"}, before)
	after := e.hkRecorded("after")
	require.Len(t, after, 4)
	for i, want := range []struct {
		tool    string
		isError bool
	}{{"write", true}, {"bash", false}, {"read", true}, {"bash", true}} {
		assert.Equal(t, want.tool, after[i].obj()["tool_name"], i)
		assert.Equal(t, want.isError, after[i].obj()["is_error"], i)
	}
	assert.Equal(t, "writes are not allowed here", after[0].obj()["text"])
	assert.Equal(t, results[3].Text(), after[3].obj()["text"])
}

func TestHookToolRunsThroughValidationAndToolEvents(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	e.srv.Reply(llmtest.ToolCall("word_count", `{"txt":"a b"}`))
	e.srv.Reply(llmtest.ToolCall("word_count", `{"text":"one two three"}`))
	e.srv.Reply(llmtest.ToolCall("explode", `{}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "--no-tools", "--hook", hkFile(t, "hook_tool.lua"), "-p", "count")
	require.Equal(t, 0, r.code, r.stderr)

	reqs := e.srv.Requests()
	require.Len(t, reqs, 4)
	assert.Equal(t, []string{"word_count", "explode"}, toolNames(t, reqs[0]), "hook tools stay with --no-tools")
	assert.Equal(t, "Counts the words of a text", reqs[0].Field("tools.0.function.description"))
	assert.Equal(t, []any{"text"}, reqs[0].Field("tools.0.function.parameters.required"))
	assert.Equal(t, map[string]any{"type": "object", "properties": map[string]any{}}, reqs[0].Field("tools.1.function.parameters"))

	msgs := e.onlySession().BuildContext().Messages
	require.Len(t, msgs, 8)
	invalid, ok, failed := msgs[2].Message, msgs[4].Message, msgs[6].Message
	assert.True(t, invalid.IsError)
	assert.Equal(t, `invalid arguments for tool "word_count": missing property "text"; unknown property "txt"`, invalid.Text())
	assert.False(t, ok.IsError)
	assert.Equal(t, "3 words", ok.Text())
	assert.JSONEq(t, `{"count":3}`, string(ok.Details))
	assert.True(t, failed.IsError)
	assert.Equal(t, "tool explode (hook_tool.lua): hook_tool.lua:27: kaboom", failed.Text(), "with the Lua line")

	exec := e.hkRecorded("execute")
	require.Len(t, exec, 1, "execute never runs with invalid arguments")
	assert.Equal(t, map[string]any{"text": "one two three"}, exec[0].Value)
	var before []any
	for _, l := range e.hkRecorded("before") {
		before = append(before, l.Value)
	}
	assert.Equal(t, []any{"word_count", "explode"}, before)
	var after []map[string]any
	for _, l := range e.hkRecorded("after") {
		after = append(after, l.obj())
	}
	assert.Equal(t, []map[string]any{
		{"tool_name": "word_count", "is_error": true},
		{"tool_name": "word_count", "is_error": false},
		{"tool_name": "explode", "is_error": true},
	}, after)
}

func TestHookChainingOrderGlobalProjectCLI(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	e.hkGlobal("chain_global.lua")
	e.hkProject("chain_project.lua")
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"touch ran.txt"}`))
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "--trust", "--hook", hkFile(t, "chain_cli.lua"), "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)

	// transform: each hook sees the previous result, the last has the last word.
	assert.True(t, strings.HasSuffix(systemPrompt(t, reqs[0]), "[global][project][cli]"), systemPrompt(t, reqs[0]))
	params := e.hkRecorded("params")
	require.GreaterOrEqual(t, len(params), 3)
	assert.Equal(t, []string{"global", "project", "cli"}, []string{params[0].Hook, params[1].Hook, params[2].Hook})
	assert.Nil(t, params[0].obj()["temperature"])
	assert.Equal(t, 0.1, params[1].obj()["temperature"])
	assert.Equal(t, 0.2, params[2].obj()["temperature"])
	assert.Equal(t, 0.3, reqs[0].Field("temperature"))

	// notification: every handler, in load order.
	var starts []string
	for _, l := range e.hkRecorded("agent.start") {
		starts = append(starts, l.Hook)
	}
	assert.Equal(t, []string{"global", "project", "cli"}, starts)

	// cancel: the project hook blocks, the --hook one never runs, nor the tool.
	var before []string
	for _, l := range e.hkRecorded("before") {
		before = append(before, l.Hook)
	}
	assert.Equal(t, []string{"global", "project"}, before)
	assert.NoFileExists(t, filepath.Join(e.cwd, "ran.txt"))
	assert.Contains(t, string(reqs[1].Body), "blocked by the project hook")

	// Without --trust the project hooks are skipped, with a warning, in one-shot mode.
	e.hkClearLog()
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"touch ran.txt"}`))
	e.srv.Reply(llmtest.Text("ok"))
	r = e.run("", "--hook", hkFile(t, "chain_cli.lua"), "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "project hooks in "+filepath.Join(e.cwd, ".lunar", "hooks.d")+" are not trusted: skipped")
	assert.Contains(t, r.stderr, "--trust")
	assert.True(t, strings.HasSuffix(systemPrompt(t, e.srv.Requests()[2]), "[global][cli]"))
	assert.FileExists(t, filepath.Join(e.cwd, "ran.txt"), "no project hook blocked the tool")
	for _, l := range e.hkLines() {
		assert.NotEqual(t, "project", l.Hook)
	}
}

func TestHookSendsAndMessages(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "attached.txt"), []byte("attached content\n"), 0o644))
	e.srv.Reply(llmtest.Text("first"))
	e.srv.Reply(llmtest.Text("second"))
	e.srv.Reply(llmtest.Text("third"))
	r := e.run("", "--hook", hkFile(t, "sends.lua"), "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "first\n\nsecond\n\nthird\n", r.stdout)
	for _, k := range []string{"send", "note", "nudge"} {
		assert.Equal(t, map[string]any{"ok": true}, e.hkRecorded(k)[0].Value, k)
	}

	// lunar.send: a user prompt with the attachment, after the first reply;
	// send_message with trigger_turn: a custom message the model answers.
	reqs := e.srv.Requests()
	require.Len(t, reqs, 3)
	attached := "follow-up from the hook\n\n<file name=\"" + filepath.Join(e.cwd, "attached.txt") + "\">\nattached content\n\n</file>"
	assert.Equal(t, []string{"go", "a quiet note", attached}, hkUserTexts(reqs[1]))
	assert.Equal(t, []string{"go", "a quiet note", attached, "please continue"}, hkUserTexts(reqs[2]))
	for _, req := range reqs {
		assert.NotContains(t, string(req.Body), "hook-state", "custom entries never reach the model")
	}

	s := e.onlySession()
	var types []string
	for _, en := range s.Path("") {
		switch en.Type {
		case session.TypeMessage:
			types = append(types, en.Message.Role+":"+en.Message.Text())
		case session.TypeCustomMessage:
			types = append(types, "custom_message:"+en.CustomType()+":"+session.BlocksText(en.Content()))
		case session.TypeCustom:
			types = append(types, "custom:"+en.CustomType()+":"+string(en.Data()))
		}
	}
	assert.Equal(t, []string{"user:go", "assistant:first", "custom_message:note:a quiet note", `custom:hook-state:{"step":1,"items":[]}`,
		"user:" + attached, "assistant:second", "custom_message:nudge:please continue", "assistant:third"}, types)
	nudge := hkEntries(s, session.TypeCustomMessage)[1]
	assert.JSONEq(t, `{"k":1}`, string(nudge.Details()))
	assert.True(t, nudge.Display())
	custom := hkEntries(s, session.TypeCustom)[0]
	assert.Equal(t, custom.ID, e.hkRecorded("append_entry")[0].obj()["ok"], "append_entry returns the entry id")
}

func TestHookCommandsInOneShotMode(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	e.srv.SetDefault(llmtest.Text("ok"))
	run := func(prompt string) result {
		t.Helper()
		return e.run("", "--hook", hkFile(t, "commands.lua"), "-c", "-p", prompt)
	}
	requests := func() int { return len(e.srv.Requests()) }

	// A returned string is sent as the prompt; args raw, ctx.args the words.
	r := run("/ask what  is lunar")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "ok\n", r.stdout)
	require.Equal(t, 1, requests())
	assert.Equal(t, []string{"The user asks: what  is lunar"}, hkUserTexts(e.srv.Requests()[0]))
	assert.Equal(t, map[string]any{"args": "what  is lunar", "words": []any{"what", "is", "lunar"}, "has_ui": false},
		e.hkRecorded("ask")[0].Value)
	// The command-only functions are not in the ctx of events.
	assert.Equal(t, false, e.hkRecorded("set_model_outside")[0].obj()["has_fn"])

	// nil: nothing is sent.
	r = run("/quiet x")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stdout)
	assert.Equal(t, 1, requests())
	assert.Equal(t, "x", e.hkRecorded("quiet")[0].Value)

	// ctx.set_model and ctx.set_thinking_level: entries, model.change, the next request.
	r = run("/switch")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, 2, requests())
	req := e.srv.Requests()[1]
	assert.Equal(t, "gpt-4.1-mini", req.Field("model"))
	assert.Equal(t, []string{"The user asks: what  is lunar", "after the switch"}, hkUserTexts(req))
	assert.Equal(t, map[string]any{"ok": true, "tok": true, "model": "gpt-4.1-mini", "thinking": "high"}, e.hkRecorded("switch")[0].Value)
	change := e.hkRecorded("model.change")
	require.Len(t, change, 1)
	assert.Equal(t, map[string]any{"type": "model.change", "previous_provider": "openai", "previous_model_id": "gpt-4.1",
		"new_provider": "openai", "new_model_id": "gpt-4.1-mini", "thinking_level": "off", "source": "set"}, change[0].Value)
	s := e.onlySession()
	var models []string
	for _, en := range hkEntries(s, session.TypeModelChange) {
		models = append(models, en.Provider()+"/"+en.ModelID())
	}
	assert.Equal(t, []string{"openai/gpt-4.1", "openai/gpt-4.1-mini"}, models)
	ctx := s.BuildContext()
	assert.Equal(t, "gpt-4.1-mini", ctx.ModelID)
	assert.Equal(t, "high", ctx.ThinkingLevel)

	// lunar.complete: one call with its own system prompt and max tokens, nothing stored.
	r = run("/summarize the text")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, 4, requests())
	call := e.srv.Requests()[2]
	assert.Equal(t, []string{"Summarise: the text"}, hkUserTexts(call))
	assert.Equal(t, "You summarise.", systemPrompt(t, call))
	assert.Equal(t, 50.0, call.Field("max_completion_tokens"))
	assert.Nil(t, call.Field("tools"))
	assert.Equal(t, map[string]any{"text": "ok"}, e.hkRecorded("complete")[0].Value)
	assert.Equal(t, "The summary was: ok", hkUserTexts(e.srv.Requests()[3])[2])
	assert.NotContains(t, hkUserTexts(e.srv.Requests()[3]), "Summarise: the text")

	// lunar.complete with a message list and another model of the same
	// provider (which goes where --base-url points); an unknown model fails.
	r = run("/other_model")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, 5, requests())
	call = e.srv.Requests()[4]
	assert.Equal(t, "gpt-4o", call.Field("model"))
	assert.Equal(t, []string{"first message", "second message"}, hkUserTexts(call))
	assert.Equal(t, map[string]any{"text": "ok"}, e.hkRecorded("other_model")[0].Value)
	assert.Contains(t, e.hkRecorded("bad_model")[0].obj()["err"], "nosuch")
	assert.Nil(t, e.hkRecorded("bad_model")[0].obj()["text"])

	// A failing command: reported once with the hook, the command and the Lua line; exit 1.
	r = run("/fail")
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "lunar: hook commands.lua: /fail: commands.lua:44: the command failed\n", r.stderr)
	assert.Equal(t, 5, requests())

	// Not a hook command: the text is the prompt.
	r = run("/unknown-cmd hello")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, 6, requests())
	texts := hkUserTexts(e.srv.Requests()[5])
	assert.Equal(t, "/unknown-cmd hello", texts[len(texts)-1])
}

func TestHookExec(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	require.NoError(t, os.Mkdir(filepath.Join(e.cwd, "sub"), 0o755))
	r := e.run("", "--hook", hkFile(t, "exec.lua"), "-p", "/run")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, e.srv.Requests())
	rec := func(kind string) map[string]any {
		t.Helper()
		l := e.hkRecorded(kind)
		require.Len(t, l, 1, kind)
		return l[0].obj()
	}
	assert.Equal(t, map[string]any{"code": 3.0, "stdout": "out\n", "stderr": "err\n", "killed": false}, rec("plain"))
	assert.Equal(t, filepath.Join(e.cwd, "sub")+"\n", rec("cwd")["stdout"])
	slow := rec("timeout")
	assert.Equal(t, true, slow["killed"])
	assert.Equal(t, -1, hkNum(slow["code"]))
	assert.Less(t, hkNum(slow["elapsed_ms"]), 5000, "killed at its timeout_ms, not after sleep 30")
	assert.Contains(t, rec("missing")["err"], "no-such-program-lunar-test")
	assert.Nil(t, rec("missing")["result"])
	assert.Equal(t, "$HOME ; ls\n", rec("shell_is_not_used")["stdout"], "arguments are not interpreted by a shell")
}

func TestHookUIInOneShotMode(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"touch gated.txt"}`))
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "--hook", hkFile(t, "ui.lua"), "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "ok\n", r.stdout)
	assert.NoFileExists(t, filepath.Join(e.cwd, "gated.txt"), "confirm answers false without a UI: the gate blocks")
	assert.Contains(t, r.stderr, "[warning] denied: touch gated.txt\n", "notify prints to stderr")
	assert.Equal(t, map[string]any{"confirm": false, "has_ui": false, "select": "nil", "input": "nil", "editor": ""},
		e.hkRecorded("gate")[0].Value)
	msgs := e.onlySession().BuildContext().Messages
	require.Len(t, msgs, 4)
	assert.True(t, msgs[2].Message.IsError)
	assert.Equal(t, "The user refused: touch gated.txt", msgs[2].Message.Text())
}

func TestHookSessionAPI(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	e.srv.Reply(llmtest.Text("first answer"), llmtest.Usage(50, 5, 0, 0))
	require.Equal(t, 0, e.run("", "-p", "first question").code)
	e.srv.Reply(llmtest.Text("second answer"), llmtest.Usage(70, 6, 10, 0))
	require.Equal(t, 0, e.run("", "-c", "-p", "second question").code)
	before := e.onlySession()
	path := before.Path("")
	require.Len(t, path, 6)
	firstAnswer, oldLeaf := path[3].ID, path[5].ID

	e.srv.Reply(llmtest.Text("third answer"))
	r := e.run("", "--hook", hkFile(t, "session_api.lua"), "-c", "-p", "/inspect")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "third answer\n", r.stdout)
	assert.Equal(t, "[warning] Inspect: all done\n", r.stderr, "toast")

	s := e.onlySession()
	got := e.hkRecorded("inspect")[0].obj()
	labels := hkEntries(s, session.TypeLabel)
	require.Len(t, labels, 1)
	assert.Equal(t, firstAnswer, labels[0].TargetID())
	assert.Equal(t, "important", labels[0].Label())
	assert.Equal(t, "important", s.Label(firstAnswer))

	assert.Equal(t, e.cwd, got["cwd"])
	assert.Equal(t, s.ID(), got["session_id"])
	assert.Equal(t, s.File(), got["session_file"])
	assert.Equal(t, "gpt-4.1", got["model"].(map[string]any)["id"])
	assert.Equal(t, e.srv.URL(), got["model"].(map[string]any)["base_url"])
	assert.Equal(t, "off", got["thinking_level"])
	assert.Equal(t, filepath.Join(e.home, "data", "hooks", "session_api"), got["data_dir"])
	assert.Equal(t, false, got["has_ui"])
	assert.Equal(t, []any{"model_change", "thinking_level_change", "message", "message", "message", "message"}, got["types"])
	assert.Equal(t, 7, hkNum(got["all_count"]), "all_entries includes the new label")
	assert.Equal(t, labels[0].ID, got["label_id"])
	assert.Equal(t, labels[0].ID, got["leaf_id"])
	assert.Equal(t, "label", got["leaf_type"])
	assert.Equal(t, true, got["missing"])
	assert.Equal(t, 1, hkNum(got["roots"]))
	assert.Equal(t, 1, hkNum(got["root_children"]))
	assert.Equal(t, "important", got["label"])
	assert.Nil(t, got["label_err"])
	assert.Equal(t, false, got["compact_ok"])
	assert.Contains(t, got["compact_err"], "nothing to compact", "the session is too small to compact")
	// Usage summed over the path (totals 55 + 86), as agent.end's tokens.
	assert.Equal(t, map[string]any{"input": 120.0, "output": 11.0, "cache_read": 10.0, "cache_write": 0.0, "total": 141.0}, got["usage"])
	rebuilt := got["rebuilt"].(map[string]any)
	assert.Equal(t, 4, hkNum(rebuilt["messages"]))
	assert.Positive(t, hkNum(rebuilt["tokens"]))
	assert.Equal(t, 1047576, hkNum(got["limit"]))
	assert.Equal(t, "gpt-4.1", got["found"].(map[string]any)["id"])
	assert.Equal(t, true, got["available"])
	assert.Equal(t, "sk-test", got["key"])

	// ctx.session.branch: the branch events fire, a summary is stored, and
	// the prompt the command returns continues from there.
	assert.Equal(t, map[string]any{"type": "session.before_branch", "target_id": firstAnswer, "from_id": labels[0].ID}, e.hkRecorded("session.before_branch")[0].Value)
	assert.Equal(t, map[string]any{"type": "session.branch", "target_id": firstAnswer, "from_id": labels[0].ID}, e.hkRecorded("session.branch")[0].Value)
	assert.Equal(t, map[string]any{"ok": true, "leaf_type": "branch_summary"}, e.hkRecorded("branch")[0].Value)
	sums := hkEntries(s, session.TypeBranchSummary)
	require.Len(t, sums, 1)
	assert.Equal(t, firstAnswer, sums[0].ParentID)
	assert.Equal(t, "summary of the abandoned branch", sums[0].Summary())
	assert.True(t, sums[0].FromHook())
	texts := hkUserTexts(e.srv.Requests()[2])
	require.Len(t, texts, 3)
	assert.Equal(t, "first question", texts[0])
	assert.Contains(t, texts[1], "summary of the abandoned branch")
	assert.Equal(t, "asked again after branching", texts[2])
	assert.NotContains(t, string(e.srv.Requests()[2].Body), "second question")
	assert.NotEqual(t, oldLeaf, s.LeafID())
}

func TestHookSandboxThroughTheBinary(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	outside := filepath.Join(e.home, "config") // not a write root
	require.NoError(t, os.MkdirAll(outside, 0o755))
	target := filepath.Join(outside, "pwned")
	evil := filepath.Join(outside, "evil.lua")
	require.NoError(t, os.WriteFile(evil, []byte(`return "evil"`), 0o644))
	e.env = append(e.env, "SANDBOX_TARGET="+target, "SANDBOX_LUA="+evil)
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "--hook", hkFile(t, "sandbox.lua"), "-p", "go")
	require.Equal(t, 0, r.code, "os.exit is refused: %s", r.stderr)
	assert.Equal(t, "ok\n", r.stdout, "io.write never reaches stdout")
	assert.Empty(t, r.stderr)
	assert.NoFileExists(t, target)
	assert.FileExists(t, evil, "os.remove is refused")

	names := []string{"io.open", "io.write", "os.execute", "os.remove", "os.exit", "debug.getinfo", "debug via require",
		"dofile", "loadfile", "package.loadlib", "require io", "require absolute path", "require relative escape",
		"require outside lib/", "string.dump", "bytecode", "fs.write outside the roots"}
	for _, when := range []string{"load", "agent.start"} {
		var seen []string
		for _, l := range e.hkRecorded("attempt") {
			if l.obj()["when"] != when {
				continue
			}
			name := l.obj()["name"].(string)
			seen = append(seen, name)
			assert.Equal(t, true, l.obj()["refused"], "%s at %s: %v", name, when, l.obj()["err"])
			assert.True(t, strings.HasPrefix(l.obj()["err"].(string), "sandbox.lua:"), "the error names the Lua line: %v", l.obj()["err"])
		}
		assert.Equal(t, names, seen, when)
	}
	assert.Equal(t, map[string]any{"stdlib": true, "lib": true, "os_time": true}, e.hkRecorded("allowed")[0].Value)
}

func TestHookTimeouts(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	e.hkConfig(`{"hook_timeout_ms": 200}`)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"touch ran.txt"}`))
	e.srv.Reply(llmtest.ToolCall("spin", `{}`))
	e.srv.Reply(llmtest.Text("finished"))
	start := time.Now()
	r := e.run("", "--hook", hkFile(t, "loop_at_load.lua"), "--hook", hkFile(t, "timeout.lua"), "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.Equal(t, "finished\n", r.stdout, "the turn completes")
	// On a loaded machine a stopped call may not return within the grace
	// lunar gives it: the line then says so instead of naming the Lua line.
	late := regexp.MustCompile(`: timed out after 200ms \(the call did not stop within \d+ms; lunar stopped waiting for it\)$`)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		lines = append(lines, late.ReplaceAllString(l, ": LINE: timed out after 200ms"))
	}
	lineNo := regexp.MustCompile(`: [a-z_]+\.lua:\d+: timed out`)
	for i, l := range lines {
		lines[i] = lineNo.ReplaceAllString(l, ": LINE: timed out")
	}
	assert.Equal(t, []string{
		"lunar: hook loop_at_load.lua: LINE: timed out after 200ms",
		"lunar: hook timeout.lua: chat.system.transform: LINE: timed out after 200ms",
		"→ bash  touch ran.txt",
		"lunar: hook timeout.lua: tool.execute.before: LINE: timed out after 200ms",
		"  ✗ hook timeout.lua: tool.execute.before: LINE: timed out after 200ms",
		"→ spin  ",
		"  ✗ tool spin (timeout.lua): LINE: timed out after 200ms",
	}, lines)
	// The first call timed out (no change); later ones work.
	reqs := e.srv.Requests()
	require.Len(t, reqs, 3)
	assert.False(t, strings.HasSuffix(systemPrompt(t, reqs[0]), "[after the timeout]"))
	assert.True(t, strings.HasSuffix(systemPrompt(t, reqs[1]), "[after the timeout]"))
	assert.Equal(t, 3.0, e.hkRecorded("agent.end")[0].Value, "three model calls reached the handler")
	// A timed-out tool.execute.before blocks the tool.
	assert.NoFileExists(t, filepath.Join(e.cwd, "ran.txt"))
	// The hook whose top-level code never finished registered nothing.
	rep := e.run("", "--hook", hkFile(t, "loop_at_load.lua"), "hooks")
	assert.Contains(t, rep.stdout, "loop_at_load.lua  (cli, NOT LOADED)")
}

func TestHookErrorsEverywhere(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "notes.txt"), []byte("notes\n"), 0o644))
	e.srv.Reply(llmtest.ToolCall("read", `{"path":"notes.txt"}`))
	e.srv.Reply(llmtest.Text("still working"))
	r := e.run("", "--hook", hkFile(t, "errors.lua"), "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "still working\n", r.stdout)
	for _, ev := range []string{"app.start", "session.start", "chat.message", "agent.before_start", "agent.start", "turn.start",
		"context", "model.resolve", "chat.params", "chat.system.transform", "auth.get", "tool.execute.before",
		"tool.execute.after", "turn.end", "agent.end", "session.shutdown"} {
		assert.Contains(t, r.stderr, "lunar: hook errors.lua: "+ev+": errors.lua:14: boom in "+ev+"\n")
	}
	// Only tool.execute.before's error changes anything: it blocks the tool.
	msgs := e.onlySession().BuildContext().Messages
	require.Len(t, msgs, 4)
	assert.Equal(t, "go", msgs[0].Message.Text())
	assert.True(t, msgs[2].Message.IsError)
	assert.Equal(t, "hook errors.lua: tool.execute.before: errors.lua:14: boom in tool.execute.before", msgs[2].Message.Text())
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "gpt-4.1", reqs[0].Field("model"))
	assert.Equal(t, "Bearer sk-test", reqs[0].Header.Get("Authorization"))
	assert.True(t, strings.HasSuffix(systemPrompt(t, reqs[0]), "Current working directory: "+e.cwd))
}

func TestHookResultsOfTheWrongShape(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"false"}`))
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "--hook", hkFile(t, "bad_results.lua"), "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	for _, want := range []string{
		"lunar: hook bad_results.lua: chat.message: bad result: text: string expected, got number\n",
		"lunar: hook bad_results.lua: context: bad result: a table or nil expected, got string\n",
		"lunar: hook bad_results.lua: chat.params: bad result: params.temperature: number expected, got string\n",
		"lunar: hook bad_results.lua: chat.system.transform: bad result: unknown field systm_prompt (expected system_prompt)\n",
		"lunar: hook bad_results.lua: tool.execute.after: bad result: is_error: boolean expected, got string\n",
	} {
		assert.Contains(t, r.stderr, want)
	}
	// Treated as no result: nothing changed.
	req := e.srv.Requests()[0]
	assert.Equal(t, []string{"go"}, hkUserTexts(req))
	assert.Nil(t, req.Field("temperature"))
	assert.NotContains(t, string(req.Body), "misspelt")
	msgs := e.onlySession().BuildContext().Messages
	require.Len(t, msgs, 4)
	assert.True(t, msgs[2].Message.IsError, "bash false stays an error")
}

func TestHookLoadProblems(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	e.srv.Reply(llmtest.Text("ok"))
	args := []string{"--hook", hkFile(t, "syntax_error.lua"), "--hook", hkFile(t, "toplevel_error.lua"),
		"--hook", hkFile(t, "warnings.lua"), "--hook", hkFile(t, "tag.lua")}
	r := e.run("", append(args, "-p", "/hello")...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, []string{
		"lunar: hook syntax_error.lua: syntax_error.lua:4: near '=': syntax error",
		"lunar: hook toplevel_error.lua: toplevel_error.lua:5: failed while loading",
		`lunar: warning: warnings.lua:3: unknown event "tool.execute.befor" (did you mean "tool.execute.before"?)`,
		"lunar: warning: warnings.lua:4: command /model would shadow the built-in command: ignored",
	}, strings.Split(strings.TrimSpace(r.stderr), "\n")[:4])
	assert.Contains(t, r.stderr, `lunar: warning: warnings.lua:5: tool "bad_schema": invalid parameters schema`)
	// The others load and work: /hello, the transforms of warnings.lua and tag.lua.
	reqs := e.srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, []string{"hello"}, hkUserTexts(reqs[0]))
	assert.True(t, strings.HasSuffix(systemPrompt(t, reqs[0]), "[warnings][tag]"), "toplevel_error.lua's handler is not active")
	assert.NotContains(t, toolNames(t, reqs[0]), "bad_schema")
}

func TestHooksSubcommands(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	e.hkGlobal("syntax_error.lua", "tag.lua", "warnings.lua", "hook_tool.lua")
	e.hkProject("chain_project.lua")
	globalDir := filepath.Join(e.home, "config", "hooks.d")

	r := e.run("", "hooks")
	require.Equal(t, 0, r.code, r.stderr)
	out := r.stdout
	assert.Regexp(t, `(?m)^permissions\.lua  \(bundled, loaded in [0-9.]+[µm]?s\)\n`, out)
	assert.Regexp(t, `(?m)^hook_tool\.lua  \(global, loaded in [0-9.]+[µm]?s\)\n  file:      `+regexp.QuoteMeta(filepath.Join(globalDir, "hook_tool.lua"))+
		`\n  events:    tool\.execute\.before, tool\.execute\.after\n  tools:     word_count, explode\n`, out)
	assert.Contains(t, out, "syntax_error.lua  (global, NOT LOADED)\n  file:      "+filepath.Join(globalDir, "syntax_error.lua")+
		"\n  error:     syntax_error.lua:4: near '=': syntax error\n")
	assert.Regexp(t, `(?m)^warnings\.lua  \(global, loaded in .*\n.*\n  events:    chat\.system\.transform\n  commands:  /hello\n`+
		`  error:     warnings\.lua:5: tool "bad_schema": invalid parameters schema: parameters\.properties\.x\.type: [^\n]*: tool not registered\n`+
		`  warning:   warnings\.lua:3: unknown event "tool\.execute\.befor" \(did you mean "tool\.execute\.before"\?\)\n`, out)
	assert.NotContains(t, out, "chain_project.lua")
	assert.Equal(t, "lunar: warning: project hooks in "+filepath.Join(e.cwd, ".lunar", "hooks.d")+
		" are not trusted: skipped (run lunar in a terminal to review and trust them, or pass --trust)\n", r.stderr,
		"load problems are in the listing, not repeated on stderr")
	assert.Less(t, strings.Index(out, "hook_tool.lua"), strings.Index(out, "syntax_error.lua"), "file-name order")

	r = e.run("", "--trust", "--hook", hkFile(t, "commands.lua"), "hooks")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "chain_project.lua  (project, loaded in ")
	assert.Less(t, strings.Index(r.stdout, "warnings.lua"), strings.Index(r.stdout, "chain_project.lua"))
	assert.Less(t, strings.Index(r.stdout, "chain_project.lua"), strings.Index(r.stdout, "commands.lua  (cli"))
	assert.Contains(t, r.stdout, "  commands:  /ask, /quiet, /switch, /summarize, /fail, /other_model\n")

	// disabled_hooks and --no-hooks.
	e.hkConfig(`{"disabled_hooks": ["tag", "hook_tool.lua", "stack"]}`)
	r = e.run("", "hooks")
	assert.NotContains(t, r.stdout, "tag.lua")
	assert.NotContains(t, r.stdout, "hook_tool.lua")
	assert.NotContains(t, r.stdout, "stack.lua")
	assert.Contains(t, r.stdout, "prune.lua")
	assert.Contains(t, r.stdout, "warnings.lua")
	r = e.run("", "--no-hooks", "--hook", hkFile(t, "tag.lua"), "hooks")
	assert.True(t, strings.HasPrefix(r.stdout, "tag.lua  (cli, loaded in "), r.stdout)
	assert.Equal(t, 1, strings.Count(r.stdout, "  ("), "--no-hooks: only the --hook file")

	// hooks check
	r = e.run("", "hooks", "check", hkFile(t, "syntax_error.lua"))
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "syntax_error.lua  (cli, NOT LOADED)\n  error:     syntax_error.lua:4: near '=': syntax error\n", r.stdout)
	r = e.run("", "hooks", "check", hkFile(t, "warnings.lua"))
	assert.Equal(t, 1, r.code, "a tool that did not register fails the check")
	assert.Contains(t, r.stdout, `  warning:   warnings.lua:3: unknown event "tool.execute.befor" (did you mean "tool.execute.before"?)`)
	assert.Contains(t, r.stdout, `  error:     warnings.lua:5: tool "bad_schema": invalid parameters schema`)
	assert.NotContains(t, r.stdout, "  ok")
	r = e.run("", "hooks", "check", hkFile(t, "tag.lua"))
	assert.Equal(t, 0, r.code)
	assert.Regexp(t, `^tag\.lua  \(cli, loaded in .*\)\n  events:    chat\.system\.transform\n  ok\n$`, r.stdout)
	r = e.run("", "hooks", "check", hkFile(t, "nothere.lua"))
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "nothere.lua")
	assert.Contains(t, r.stderr, "no such file")
	r = e.run("", "hooks", "check")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "usage: lunar hooks check FILE")
	r = e.run("", "hooks", "frob")
	assert.Equal(t, 2, r.code)

	// hooks types: a LuaLS meta file covering every event.
	r = e.run("", "hooks", "types")
	require.Equal(t, 0, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "---@meta\n"))
	for _, name := range lua.EventNames() {
		assert.Contains(t, r.stdout, `"`+name+`"`)
	}
	assert.Equal(t, lua.TypesMeta(), r.stdout)
}

func TestHookDebugTracing(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"--debug", "LUNAR_DEBUG=1"} {
		t.Run(how, func(t *testing.T) {
			e := newHookE2E(t)
			e.srv.Reply(llmtest.Text("ok"))
			args := []string{"--no-hooks", "--hook", hkFile(t, "tag.lua"), "--hook", hkFile(t, "commands.lua"), "-p", "/fail"}
			if how == "--debug" {
				args = append([]string{"--debug"}, args...)
			} else {
				e.env = append(e.env, how)
			}
			r := e.run("", args...)
			assert.Equal(t, 1, r.code)
			assert.Regexp(t, `(?m)^hook tag\.lua: load: [0-9.]+[µm]?s ok$`, r.stderr)
			assert.Regexp(t, `(?m)^hook commands\.lua: load: [0-9.]+[µm]?s ok$`, r.stderr)
			assert.Regexp(t, `(?m)^hook commands\.lua: /fail: [0-9.]+[µm]?s error: commands\.lua:44: the command failed$`, r.stderr)

			e.srv.Reply(llmtest.Text("ok"))
			r = e.run("", append(args[:len(args)-1], "hi")...)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Regexp(t, `(?m)^hook tag\.lua: chat\.system\.transform: [0-9.]+[µm]?s ok$`, r.stderr)
			assert.Regexp(t, `(?m)^hook commands\.lua: agent\.start: [0-9.]+[µm]?s ok$`, r.stderr)
			assert.Equal(t, "ok\n", r.stdout, "traces never reach stdout")
		})
	}
	e := newHookE2E(t)
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "--hook", hkFile(t, "tag.lua"), "-p", "hi")
	require.Equal(t, 0, r.code)
	assert.Empty(t, r.stderr, "no tracing without --debug")
}

func TestHookPiEventNames(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"true"}`))
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "--hook", hkFile(t, "aliases.lua"), "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, strings.ReplaceAll(r.stderr, "→ bash  true\n", ""), "no unknown-event warnings")
	var got []string
	for _, l := range e.hkLines() {
		got = append(got, l.Kind+"="+l.Value.(string))
	}
	assert.Equal(t, []string{
		"session_start=session.start", "input=chat.message", "before_agent_start=agent.before_start",
		"agent_start=agent.start", "turn_start=turn.start", "context=context", "chat.messages.transform=context",
		"tool_call=tool.execute.before", "tool_result=tool.execute.after", "turn_end=turn.end",
		"turn_start=turn.start", "context=context", "chat.messages.transform=context", "turn_end=turn.end",
		"agent_end=agent.end", "session_shutdown=session.shutdown",
	}, got)
}

func TestInterruptStopsHookHandlers(t *testing.T) {
	t.Parallel()
	t.Run("command", func(t *testing.T) {
		e := newHookE2E(t)
		r := e.interrupt(func(string, string) bool { return len(e.hkRecorded("started")) > 0 },
			"--hook", hkFile(t, "spin.lua"), "-p", "/spin")
		assert.Equal(t, 130, r.code)
		assert.Equal(t, "lunar: interrupted\n", r.stderr)
		assert.Empty(t, e.srv.Requests())
	})
	t.Run("lunar.exec in a command", func(t *testing.T) {
		e := newHookE2E(t)
		pidFile := filepath.Join(e.cwd, "exec.pid")
		r := e.interrupt(func(string, string) bool { _, err := os.Stat(pidFile); return err == nil },
			"--hook", hkFile(t, "spin.lua"), "-p", "/sleep")
		assert.Equal(t, 130, r.code)
		assert.Equal(t, "lunar: interrupted\n", r.stderr)
		data, err := os.ReadFile(pidFile)
		require.NoError(t, err)
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		require.NoError(t, err)
		assertDies(t, pid, 5*time.Second, "the program lunar.exec started is killed")
	})
	t.Run("event handler", func(t *testing.T) {
		e := newHookE2E(t)
		e.env = append(e.env, "SPIN_IN_AGENT_START=1")
		start := time.Now()
		r := e.interrupt(func(string, string) bool { return len(e.hkRecorded("started")) > 0 },
			"--hook", hkFile(t, "spin.lua"), "-p", "go")
		assert.Less(t, time.Since(start), 10*time.Second, "long before the 30 s hook timeout")
		assert.Equal(t, 130, r.code)
		assert.Equal(t, "lunar: interrupted\n", r.stderr, "a handler Ctrl+C stopped did not fail: not reported")
		assert.Empty(t, e.srv.Requests())
	})
}

func TestHookHTTP(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	e.env = append(e.env, "FETCH_URL="+e.srv.URL())
	r := e.run("", "--hook", hkFile(t, "http.lua"), "-p", "/fetch")
	require.Equal(t, 0, r.code, r.stderr)
	reqs := e.srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "GET", reqs[0].Method)
	assert.Equal(t, "/v1/models", reqs[0].Path)
	assert.Equal(t, "yes", reqs[0].Header.Get("X-From-Hook"))
	got := e.hkRecorded("fetch")[0].obj()
	assert.Equal(t, 200, hkNum(got["status"]))
	assert.Equal(t, "application/json", got["content_type"])
	assert.Contains(t, got["body"], `"llmtest-model"`)
	assert.Nil(t, got["err"])
	refused := e.hkRecorded("refused")[0].obj()
	assert.Nil(t, refused["res"])
	assert.Contains(t, refused["err"], "127.0.0.1:1")
}

func TestHookLogAndPrintGoToStderr(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	e.srv.SetDefault(llmtest.Text("ok"))
	r := e.run("", "--hook", hkFile(t, "log.lua"), "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "ok\n", r.stdout)
	assert.Equal(t, "[info] log.lua: an info line\n[print] log.lua: printed\t42\n", r.stderr)
	r = e.run("", "--debug", "--hook", hkFile(t, "log.lua"), "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "ok\n", r.stdout)
	assert.Contains(t, r.stderr, "[info] log.lua: an info line\n[debug] log.lua: a debug line\n[print] log.lua: printed\t42\n")
}
