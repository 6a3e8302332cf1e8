package lua_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/lua/luatest"
	"github.com/lunar-cli/lunar/session"
)

func TestHookTools(t *testing.T) {
	rt, reps := loadHooks(t, newHost(t), lua.Options{}, "tools.lua")
	assert.Empty(t, reps.Lines())
	tools := map[string]*agent.Tool{}
	var names []string
	for _, tl := range rt.Tools() {
		tools[tl.Name] = tl
		names = append(names, tl.Name)
	}
	assert.Equal(t, []string{"greet", "measure", "fail", "weird"}, names)
	assert.JSONEq(t, `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`, string(tools["greet"].Parameters))
	assert.JSONEq(t, `{"type":"object","properties":{},"required":[]}`, string(tools["measure"].Parameters), "empty required is an array")
	assert.JSONEq(t, `{"type":"object","properties":{}}`, string(tools["fail"].Parameters), "default schema")
	assert.Equal(t, "Greets someone", tools["greet"].Description)

	res, err := tools["greet"].Execute(bg, "c1", json.RawMessage(`{"name":"Ada"}`), nil)
	require.NoError(t, err)
	assert.Equal(t, agent.TextResult("hello Ada from gpt-test", false), res)

	res, err = tools["measure"].Execute(bg, "c2", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, "42", res.Content[0].Text)
	assert.JSONEq(t, `{"unit":"cm"}`, string(res.Details))
	assert.False(t, res.IsError)

	_, err = tools["fail"].Execute(bg, "c3", json.RawMessage(`{}`), nil)
	require.Error(t, err)
	assert.Regexp(t, `^tool fail \(tools\.lua\): tools\.lua:\d+: disk on fire$`, err.Error())

	_, err = tools["weird"].Execute(bg, "c4", json.RawMessage(`{}`), nil)
	assert.ErrorContains(t, err, "bad result: unknown field colour")
}

func TestCommands(t *testing.T) {
	host := newHost(t)
	rt, reps := loadHooks(t, host, lua.Options{}, "commands.lua")
	assert.Equal(t, []lua.CommandInfo{
		{Name: "greet", Description: "Say hi", Hook: "commands.lua"},
		{Name: "switch", Description: "switch model", Hook: "commands.lua"},
		{Name: "fail", Hook: "commands.lua"},
	}, rt.Commands())

	prompt, handled, err := rt.RunCommand(bg, "greet", "  big   world ")
	require.NoError(t, err)
	assert.True(t, handled)
	assert.Equal(t, "hi   big   world  (2 words, first big)", prompt)

	prompt, handled, err = rt.RunCommand(bg, "/switch", "")
	require.NoError(t, err)
	assert.True(t, handled)
	assert.Empty(t, prompt)
	assert.Equal(t, []string{"anthropic/claude-x"}, host.ModelSets)
	assert.Equal(t, []string{"high"}, host.ThinkingSets)
	assert.Equal(t, 1, host.Aborts)

	rt.Notify(bg, agent.Event{Type: agent.EventTurnStart})
	out := lastCustom(t, host.Sess, "outside")
	assert.Equal(t, false, out["ok"], "a command ctx kept for later cannot switch models")
	assert.Contains(t, out["err"], "ctx.set_model is only available in command handlers")
	assert.Equal(t, false, out["has"], "event handlers' ctx has no set_model")

	_, handled, err = rt.RunCommand(bg, "fail", "")
	assert.True(t, handled)
	assert.Regexp(t, `^hook commands\.lua: /fail: commands\.lua:\d+: nope$`, err.Error())

	_, handled, err = rt.RunCommand(bg, "unknown", "")
	assert.False(t, handled)
	assert.NoError(t, err)
	assert.Empty(t, reps.Lines())
}

func TestRenderer(t *testing.T) {
	rt, reps := loadHooks(t, newHost(t), lua.Options{}, "renderer.lua")
	m := &session.Message{Role: session.RoleCustom, Content: []session.ContentBlock{{Type: session.BlockText, Text: "fact"}},
		ContentIsString: true, Timestamp: 1,
		Extra: &session.MessageExtra{CustomType: "memory", Display: true}}
	text, ok := rt.Render(m, false)
	assert.True(t, ok)
	assert.Equal(t, "[memory] fact", text)
	text, _ = rt.Render(m, true)
	assert.Equal(t, "[memory+] fact", text)
	_, ok = rt.Render(&session.Message{Role: session.RoleCustom, Extra: &session.MessageExtra{CustomType: "silent"}}, false)
	assert.False(t, ok, "nil: the default rendering")
	_, ok = rt.Render(&session.Message{Role: session.RoleCustom, Extra: &session.MessageExtra{CustomType: "other"}}, false)
	assert.False(t, ok)
	assert.Empty(t, reps.Lines())
}

func TestCtx(t *testing.T) {
	host := newHost(t)
	host.UIValue.SelectAnswer, host.UIValue.ConfirmAnswer, host.UIValue.InputAnswer = "b", true, "Ada"
	host.Usage = &agent.TokenStats{Input: 1, Output: 2, Total: 3}
	host.Models = []agent.Model{host.ModelValue}
	host.Keys = map[string]string{"openai/gpt-test": "sk-test"}
	first := host.Sess.AppendMessage(userMsg("hello"))
	host.Sess.AppendMessage(userMsg("again"))
	dataDir := t.TempDir()
	rt, reps := loadHooks(t, host, lua.Options{DataDir: dataDir}, "ctx.lua")

	out, _, err := rt.RunCommand(bg, "ctx", "")
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	want := map[string]any{
		"cwd": host.Dir, "has_ui": true, "session_id": "sess-1", "session_file": "/sessions/sess-1.jsonl",
		"model": map[string]any{"provider": "openai", "id": "gpt-test", "api": "openai-completions", "base_url": "",
			"context_window": 128000.0, "max_tokens": 4096.0, "reasoning": false, "input": []any{"text"}},
		"thinking_level": "low", "data_dir": filepath.Join(dataDir, "hooks", "ctx"),
		"select": "b", "confirm": true, "input": "Ada",
		"entries": 2.0, "all_entries": 2.0, "first_type": "message", "first_role": "user", "get": first, "missing": true,
		"leaf_id": "00000002", "label_id": "00000003", "label": "start", "tree_roots": 1.0, "tree_children": 1.0, "tree_label": "start",
		"usage": map[string]any{"input": 1.0, "output": 2.0, "cache_read": 0.0, "cache_write": 0.0, "total": 3.0},
		"limit": 128000.0, "found": 128000.0, "available": 1.0, "key": "sk-test", "key_missing": "no API key for x",
		"editor": "prefill", "compact": "not available",
	}
	assert.Equal(t, want, got)
	assert.DirExists(t, filepath.Join(dataDir, "hooks", "ctx"), "data_dir is created on first use")
	assert.Equal(t, []string{"select: Pick", "confirm: Sure?", "input: Name"}, host.UIValue.Asked)
	assert.Equal(t, []string{"warning: note", "success: Title: body"}, host.UIValue.Notices)
	assert.Equal(t, []string{first + ":back to start"}, host.Branches)
	assert.Equal(t, first, host.Sess.LeafID())
	assert.Empty(t, reps.Lines())
}

func TestCtxWithoutSessionOrUI(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bare.lua")
	writeFile(t, file, `local json = require("json")
lunar.command("bare", { handler = function(args, ctx)
  return json.encode({ ctx.has_ui, ctx.session_id == nil, #ctx.session.entries(), ctx.session.leaf_id() == nil,
    ctx.ui.select("x", {"a"}) == nil, ctx.ui.confirm("x"), ctx.ui.input("x") == nil, select(2, lunar.append_entry("t", 1)) })
end })`)
	src, err := lua.FileSource(file, lua.OriginCLI)
	require.NoError(t, err)
	var notes []string
	rt := lua.Load([]lua.Source{src}, lua.Options{Host: hostNoSession{ui: lua.NoUI{Notifier: func(m, l string) { notes = append(notes, m) }}}})
	defer rt.Close()
	out, _, err := rt.RunCommand(bg, "bare", "")
	require.NoError(t, err)
	assert.JSONEq(t, `[false, true, 0, true, true, false, true, "no session: not available"]`, out)
}

type hostNoSession struct {
	lua.NopHost
	ui lua.UI
}

func (h hostNoSession) UI() lua.UI { return h.ui }

func TestActions(t *testing.T) {
	host := newHost(t)
	host.CompleteFunc = func(_ context.Context, req lua.CompleteRequest) (string, error) {
		return "summary of " + req.Prompt, nil
	}
	var logs []string
	rt, reps := loadHooks(t, host, lua.Options{Log: func(hook, level, msg string) { logs = append(logs, level+" "+msg) }}, "actions.lua")
	out, _, err := rt.RunCommand(bg, "act", "now")
	require.NoError(t, err)
	assert.JSONEq(t, `{"send": true, "send_message": true, "entry": "00000002", "complete": "summary of summarise",
		"complete_msgs": "summary of ", "exec": [3, "out\n", "err\n", false],
		"exec_missing": "fork/exec /nonexistent/program: no such file or directory"}`, out)

	require.Len(t, host.Sends, 1)
	assert.Equal(t, "hello", host.Sends[0].Text)
	require.Len(t, host.Sends[0].Attachments, 2)
	assert.Equal(t, "a.png", host.Sends[0].Attachments[0].Path)
	assert.Equal(t, &session.ContentBlock{Type: session.BlockImage, Extra: &session.BlockExtra{Data: "aGk=", MimeType: "image/png"}}, host.Sends[0].Attachments[1].Image)

	require.Len(t, host.Messages, 1)
	assert.True(t, host.Messages[0].TriggerTurn)
	assert.Equal(t, "note", host.Messages[0].Message.CustomType)
	assert.Equal(t, "n", host.Messages[0].Message.Content[0].Text)
	assert.JSONEq(t, `{"x":1}`, string(host.Messages[0].Message.Details))

	assert.JSONEq(t, `{"n":1,"list":[]}`, string(host.Sess.Custom("state")[0]), "json.array() stays an array")

	require.Len(t, host.Completions, 2)
	assert.Equal(t, lua.CompleteRequest{Prompt: "summarise", Model: "openai/gpt-mini", System: "be brief", MaxTokens: 100}, host.Completions[0])
	require.Len(t, host.Completions[1].Messages, 1)
	assert.Equal(t, "q", host.Completions[1].Messages[0].Text())

	assert.Equal(t, []string{`sh -c echo out; echo err >&2; exit 3`, "/nonexistent/program"}, host.Execs)
	assert.Equal(t, []string{"info logged now", "print printed\t1"}, logs)
	assert.Empty(t, reps.Lines())

	host.ExecDeny = "exec disabled by policy"
	out, _, err = rt.RunCommand(bg, "spawn", "")
	require.NoError(t, err)
	assert.Equal(t, "null", out, "a refused exec returns nil, message")
}

func TestExecKillsTheProcessGroupOnTimeout(t *testing.T) {
	rt, reps := loadHooks(t, newHost(t), lua.Options{}, "actions.lua")
	start := time.Now()
	out, _, err := rt.RunCommand(bg, "spawn", "")
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 10*time.Second)
	var res struct {
		Code   int
		Stdout string
		Killed bool
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.True(t, res.Killed)
	assert.Equal(t, -1, res.Code)
	pids := strings.Fields(res.Stdout)
	require.Len(t, pids, 2, "the shell printed its pid and the background sleep's")
	for _, p := range pids {
		pid, err := strconv.Atoi(p)
		require.NoError(t, err)
		// SIGKILL is delivered asynchronously: allow the kernel a moment
		assert.Eventually(t, func() bool { return !alive(pid) }, 5*time.Second, 10*time.Millisecond, "process %d survived", pid)
	}
	assert.Empty(t, reps.Lines())
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

func TestDialogsPauseTheTimeout(t *testing.T) {
	host := newHost(t)
	host.UIValue.ConfirmAnswer = true
	host.UIValue.OnDialog = func() { time.Sleep(750 * time.Millisecond) } // a user who takes longer than the timeout
	file := filepath.Join(t.TempDir(), "gate.lua")
	writeFile(t, file, `lunar.on("tool.execute.before", function(ev, ctx)
  if not ctx.ui.confirm("Run " .. ev.tool_name .. "?") then return { block = true, reason = "denied" } end
end)`)
	src, err := lua.FileSource(file, lua.OriginGlobal)
	require.NoError(t, err)
	reps := &luatest.Reports{}
	rt := lua.Load([]lua.Source{src}, lua.Options{Host: host, Timeout: 500 * time.Millisecond, Report: reps.Add})
	defer rt.Close()
	dec := rt.BeforeTool(bg, "bash", "c", json.RawMessage(`{"command":"ls"}`))
	assert.False(t, dec.Block, "the handler's timeout does not run while the user decides: %s", dec.Reason)
	assert.Empty(t, reps.Lines())
}

func TestConcurrentCallsAreSerialisedPerHook(t *testing.T) {
	file := filepath.Join(t.TempDir(), "counter.lua")
	writeFile(t, file, `local n = 0
lunar.on("chat.system.transform", function(ev)
  local before = n
  for i = 1, 200 do n = n + 1 end
  assert(n == before + 200, "interleaved")
  return { system_prompt = ev.system_prompt }
end)
lunar.tool({ name = "count", description = "count", execute = function() n = n + 1 return tostring(n) end })
lunar.on("turn.end", function() lunar.on("turn.start", function() end) end)`)
	src, err := lua.FileSource(file, lua.OriginGlobal)
	require.NoError(t, err)
	reps := &luatest.Reports{}
	rt := lua.Load([]lua.Source{src}, lua.Options{Host: newHost(t), Report: reps.Add})
	defer rt.Close()
	tool := rt.Tools()[0]
	done := make(chan struct{})
	for g := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 50 {
				switch g % 4 {
				case 0:
					rt.SystemPrompt(bg, "p")
				case 1:
					_, _ = tool.Execute(bg, "c", nil, nil)
				case 2:
					rt.Notify(bg, agent.Event{Type: agent.EventTurnEnd})
				default:
					rt.Report()
					rt.Commands()
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
	assert.Empty(t, reps.Lines())
}

// lunar.exec's env sets and removes variables of lunar's environment for
// the program, stdin feeds it; a malformed env is the caller's error.
func TestExecEnvAndStdin(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sh")
	}
	t.Setenv("LUNAR_EXEC_KEEP", "kept")
	t.Setenv("LUNAR_EXEC_DROP", "dropped")
	file := filepath.Join(t.TempDir(), "envy.lua")
	writeFile(t, file, `lunar.command("envy", { handler = function()
  local r, err = lunar.exec("sh", { "-c", 'printf "%s|%s|%s|" "$LUNAR_EXEC_KEEP" "${LUNAR_EXEC_DROP-unset}" "$LUNAR_EXEC_NEW"; cat' },
    { env = { LUNAR_EXEC_DROP = false, LUNAR_EXEC_NEW = "new value", LUNAR_EXEC_NUM = 7 }, stdin = "from stdin" })
  if not r then return "error: " .. err end
  return r.stdout
end })
lunar.command("bad-env", { handler = function()
  local ok, err = pcall(lunar.exec, "true", {}, { env = { ["A=B"] = "x" } })
  local ok2, err2 = pcall(lunar.exec, "true", {}, { env = { A = true } })
  return tostring(ok) .. " " .. err .. " / " .. tostring(ok2) .. " " .. err2
end })`)
	src, err := lua.FileSource(file, lua.OriginGlobal)
	require.NoError(t, err)
	reps := &luatest.Reports{}
	rt := lua.Load([]lua.Source{src}, lua.Options{Host: newHost(t), Report: reps.Add})
	defer rt.Close()
	out, _, err := rt.RunCommand(bg, "envy", "")
	require.NoError(t, err)
	assert.Equal(t, "kept|unset|new value|from stdin", out)
	out, _, err = rt.RunCommand(bg, "bad-env", "")
	require.NoError(t, err)
	assert.Contains(t, out, "false")
	assert.Contains(t, out, `env: A=B is not a variable name`)
	assert.Contains(t, out, `env.A: string or false expected, got true`)
	assert.Empty(t, reps.Lines())
}
