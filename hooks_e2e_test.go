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
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/session"
)

// hookDir is testdata/hooks, absolute (for --hook and for copying).
func hookDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "hooks"))
	require.NoError(t, err)
	return dir
}

// hookFile is the absolute path of testdata/hooks/name.
func hookFile(t *testing.T, name string) string {
	return filepath.Join(hookDir(t), name)
}

// newHookE2E is an e2e whose hooks record into $HOOK_LOG (see
// testdata/hooks/lib/testlog.lua).
func newHookE2E(t *testing.T) *e2e {
	t.Helper()
	e := newE2E(t)
	e.env = append(e.env, "HOOK_LOG="+e.hookLogPath())
	return e
}

func (e *e2e) hookLogPath() string { return filepath.Join(e.cwd, "hooks.log") }

// installHooks copies testdata/hooks files (and the shared lib/) into dir.
func (e *e2e) installHooks(dir string, names ...string) {
	e.t.Helper()
	src := hookDir(e.t)
	require.NoError(e.t, os.MkdirAll(filepath.Join(dir, "lib"), 0o755))
	libs, err := os.ReadDir(filepath.Join(src, "lib"))
	require.NoError(e.t, err)
	for _, l := range libs {
		copyFile(e.t, filepath.Join(src, "lib", l.Name()), filepath.Join(dir, "lib", l.Name()))
	}
	for _, n := range names {
		copyFile(e.t, filepath.Join(src, n), filepath.Join(dir, n))
	}
}

// globalHooks installs hooks into $LUNAR_HOME/config/hooks.d.
func (e *e2e) globalHooks(names ...string) {
	e.installHooks(filepath.Join(e.home, "config", "hooks.d"), names...)
}

// projectHooks installs hooks into the project's .lunar/hooks.d.
func (e *e2e) projectHooks(names ...string) {
	e.installHooks(filepath.Join(e.cwd, ".lunar", "hooks.d"), names...)
}

// writeConfig writes $LUNAR_HOME/config/config.json.
func (e *e2e) writeConfig(json string) {
	e.t.Helper()
	dir := filepath.Join(e.home, "config")
	require.NoError(e.t, os.MkdirAll(dir, 0o755))
	require.NoError(e.t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(json), 0o644))
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, data, 0o644))
}

// hookLine is one record of testlog.lua.
type hookLine struct {
	Hook  string `json:"hook"`
	Kind  string `json:"kind"`
	Value any    `json:"value"`
}

// obj is the record's value as a JSON object.
func (l hookLine) obj() map[string]any {
	m, _ := l.Value.(map[string]any)
	return m
}

// hookLines reads what the hooks recorded so far.
func (e *e2e) hookLines() []hookLine {
	e.t.Helper()
	f, err := os.Open(e.hookLogPath())
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(e.t, err)
	defer f.Close()
	var out []hookLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var l hookLine
		require.NoError(e.t, json.Unmarshal(sc.Bytes(), &l), sc.Text())
		out = append(out, l)
	}
	require.NoError(e.t, sc.Err())
	return out
}

// recorded returns the records of one kind.
func (e *e2e) recorded(kind string) []hookLine {
	var out []hookLine
	for _, l := range e.hookLines() {
		if l.Kind == kind {
			out = append(out, l)
		}
	}
	return out
}

// kindsOf lists the records' kinds, in order.
func kindsOf(lines []hookLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Kind
	}
	return out
}

// clearHookLog forgets what was recorded so far.
func (e *e2e) clearHookLog() {
	e.t.Helper()
	err := os.Remove(e.hookLogPath())
	if !os.IsNotExist(err) {
		require.NoError(e.t, err)
	}
}

// num reads a JSON number as an int.
func num(v any) int {
	f, _ := v.(float64)
	return int(f)
}

// entriesOfType returns a session's entries of one type, in file order.
func entriesOfType(s *session.Session, typ string) []*session.Entry {
	var out []*session.Entry
	for _, e := range s.Entries() {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func TestHookRecorderListensToEveryEvent(t *testing.T) {
	code, err := os.ReadFile(hookFile(t, "events.lua"))
	require.NoError(t, err)
	for _, name := range lua.EventNames() {
		assert.Contains(t, string(code), `"`+name+`"`, "events.lua must record %s", name)
	}
}

// eventsLines keeps only the events.lua records.
func eventsLines(lines []hookLine) []hookLine {
	var out []hookLine
	for _, l := range lines {
		if l.Hook == "events" {
			out = append(out, l)
		}
	}
	return out
}

// dedupRuns collapses consecutive equal strings.
func dedupRuns(ss []string) []string {
	var out []string
	for _, s := range ss {
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}

// nonRequestKinds drops the per-request events (context, chat.params,
// model.resolve, chat.system.transform, auth.get), checked separately.
func nonRequestKinds(kinds []string) []string {
	var out []string
	for _, k := range kinds {
		switch k {
		case "context", "chat.params", "model.resolve", "chat.system.transform", "auth.get":
			continue
		}
		out = append(out, k)
	}
	return out
}

var _ = strings.TrimSpace

func TestHookEventsOfAOneShotRun(t *testing.T) {
	e := newHookE2E(t)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo hi"}`), llmtest.Usage(100, 10, 0, 0))
	e.srv.Reply(llmtest.Text("done"), llmtest.Usage(130, 5, 20, 0))
	r := e.run("", "--hook", hookFile(t, "events.lua"), "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "done\n", r.stdout)
	assert.Equal(t, "→ bash  echo hi\n", r.stderr, "no hook problem reported")
	lines := e.hookLines()
	kinds := kindsOf(lines)
	assert.Equal(t, []string{"app.start", "session.start", "chat.message", "agent.before_start", "agent.start",
		"turn.start", "tool.execute.before", "tool.execute.after", "turn.end",
		"turn.start", "turn.end", "agent.end", "session.shutdown"}, nonRequestKinds(kinds))
	// Every model call is preceded, inside its turn, by each per-request event once.
	var turns [][]string
	for _, k := range kinds {
		switch {
		case k == "turn.start":
			turns = append(turns, nil)
		case len(nonRequestKinds([]string{k})) == 0:
			turns[len(turns)-1] = append(turns[len(turns)-1], k)
		}
	}
	require.Len(t, turns, 2)
	for _, tr := range turns {
		assert.ElementsMatch(t, []string{"context", "model.resolve", "chat.params", "chat.system.transform", "auth.get"}, tr)
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
	for _, en := range entriesOfType(s, session.TypeMessage) {
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
	limit := num(model["context_window"])
	assert.Positive(t, limit)
	params := byKind("chat.params")[0]["params"].(map[string]any)
	assert.Equal(t, "off", params["thinking_level"])
	assert.Equal(t, num(model["max_tokens"]), num(params["max_tokens"]))
	assert.Equal(t, map[string]any{"type": "auth.get", "provider": "openai", "model_id": "gpt-4.1"}, byKind("auth.get")[0])

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
	assert.Equal(t, 0, num(ends[0]["turn_index"]))
	assert.Equal(t, 1, num(ends[1]["turn_index"]))
	assert.Equal(t, map[string]any{"input": 100.0, "output": 10.0, "cache_read": 0.0, "cache_write": 0.0, "total": 110.0}, ends[0]["tokens"])
	assert.Equal(t, 110, num(ends[0]["context_tokens"]))
	assert.Equal(t, limit, num(ends[0]["context_limit"]))
	assert.Equal(t, "toolUse", ends[0]["message"].(map[string]any)["stopReason"])
	assert.Len(t, ends[0]["tool_results"], 1)
	assert.Equal(t, map[string]any{"input": 130.0, "output": 5.0, "cache_read": 20.0, "cache_write": 0.0, "total": 155.0}, ends[1]["tokens"])
	assert.Equal(t, 155, num(ends[1]["context_tokens"]))
	assert.Equal(t, []any{}, ends[1]["tool_results"])
	end := byKind("agent.end")[0]
	assert.Equal(t, 265, num(end["total_tokens"]))
	assert.Equal(t, map[string]any{"input": 230.0, "output": 15.0, "cache_read": 20.0, "cache_write": 0.0, "total": 265.0}, end["tokens"])
	assert.Equal(t, 155, num(end["context_tokens"]))
	assert.Equal(t, limit, num(end["context_limit"]))
	assert.Len(t, end["messages"], 4)

	// A resumed session fires session.resume; JSON mode says so in app.start.
	e.clearHookLog()
	e.srv.Reply(llmtest.Text("again"))
	r = e.run("", "--hook", hookFile(t, "events.lua"), "--mode", "json", "-c", "-p", "more")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, []string{"app.start", "session.resume", "chat.message", "agent.before_start", "agent.start",
		"turn.start", "turn.end", "agent.end", "session.shutdown"}, nonRequestKinds(kindsOf(e.hookLines())))
	resumed := e.recorded("session.resume")[0].obj()
	assert.Equal(t, s.ID(), resumed["session_id"])
	assert.Equal(t, s.File(), resumed["session_file"])
	assert.Equal(t, "json", e.recorded("app.start")[0].obj()["mode"])
	assert.Len(t, e.recorded("context")[0].obj()["messages"], 5, "the resumed context")
}
