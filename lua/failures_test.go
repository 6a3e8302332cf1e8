package lua_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/session"
)

// fireInputs are the arguments fireAll passes, built once so that
// measuring fireAll measures only the runtime.
type fireInputs struct {
	msgs     []agent.ContextMessage
	end      agent.Event
	input    json.RawMessage
	result   agent.ToolResult
	compact  lua.CompactEvent
	info     lua.CompactInfo
	params   agent.Params
	model    agent.Model
	start    agent.Event
	turn     agent.Event
	turnEnd  agent.Event
	sysShort string
}

func newFireInputs() *fireInputs {
	return &fireInputs{
		msgs:    contextMessages(),
		end:     agent.Event{Type: agent.EventAgentEnd, Messages: []session.Message{userMsg("x")}},
		input:   json.RawMessage(`{"path":"x"}`),
		result:  agent.TextResult("x", false),
		compact: lua.CompactEvent{Reason: lua.CompactManual},
		info:    lua.CompactInfo{Summary: "s"},
		start:   agent.Event{Type: agent.EventAgentStart},
		turn:    agent.Event{Type: agent.EventTurnStart},
		turnEnd: agent.Event{Type: agent.EventTurnEnd},
	}
}

// fireAll calls every event once and returns how many it fired.
func fireAll(rt *lua.Runtime, ctx context.Context, in *fireInputs) int {
	rt.AppStart(ctx, "1.0", "repl")
	rt.SessionStart(ctx, "s", "f", "startup")
	rt.SessionStart(ctx, "s", "f", "resume")
	rt.BeforeClear(ctx, "s")
	rt.Clear(ctx, "s2")
	rt.BeforeSwitch(ctx, "t")
	rt.Switch(ctx, "p")
	rt.BeforeBranch(ctx, "a", "b")
	rt.Branch(ctx, "a", "b")
	rt.BeforeFork(ctx, "e")
	rt.Fork(ctx, "e", "p")
	rt.BeforeCompact(ctx, in.compact)
	rt.Compact(ctx, in.info)
	rt.Shutdown(ctx, "s")
	rt.ChatMessage(ctx, "interactive", "hi", nil)
	rt.BeforeStart(ctx, "hi", nil, "sys")
	rt.Notify(ctx, in.start)
	rt.Notify(ctx, in.end)
	rt.Notify(ctx, in.turn)
	rt.Notify(ctx, in.turnEnd)
	rt.Context(ctx, in.msgs)
	rt.SystemPrompt(ctx, "sys")
	rt.Params(ctx, in.params)
	rt.ResolveModel(ctx, in.model)
	rt.Auth(ctx, "p", "m")
	rt.BeforeTool(ctx, "read", "c", in.input)
	rt.AfterTool(ctx, "read", "c", in.input, nil, in.result)
	rt.ModelChange(ctx, "a", "b", "c", "d", "off", "set")
	return 29 // the resume fires session.start and session.resume
}

func TestErroringHookLeavesEverythingWorking(t *testing.T) {
	rt, reps := loadHooks(t, newHost(t), lua.Options{}, "erroring.lua", "events/system.lua")
	n := fireAll(rt, bg, newFireInputs())
	lines := reps.Lines()
	require.Len(t, lines, n, "one report per failed handler:\n%s", reps)
	for _, l := range lines {
		assert.Regexp(t, `^hook erroring\.lua: [a-z._]+: erroring\.lua:\d+: boom on [a-z._]+$`, l)
	}
	assert.Equal(t, "base\n\nAlways answer in French.", rt.SystemPrompt(bg, "base"), "the next hook still applies")
	text, _, _ := rt.ChatMessage(bg, "interactive", "unchanged", nil)
	assert.Equal(t, "unchanged", text)
	in := contextMessages()
	assert.Equal(t, in, rt.Context(bg, in))
	assert.Equal(t, agent.Params{MaxTokens: 7}, rt.Params(bg, agent.Params{MaxTokens: 7}))
	cancel, _ := rt.BeforeClear(bg, "s")
	assert.False(t, cancel)
	dec := rt.BeforeTool(bg, "read", "c", json.RawMessage(`{}`))
	assert.True(t, dec.Block, "an error in tool.execute.before blocks the tool")
	assert.Regexp(t, `^hook erroring\.lua: tool\.execute\.before: erroring\.lua:\d+: boom on tool\.execute\.before$`, dec.Reason)
	res := rt.AfterTool(bg, "read", "c", nil, nil, agent.TextResult("kept", false))
	assert.Equal(t, agent.TextResult("kept", false), res)
}

func TestRunawayHandlerIsKilledAtItsTimeout(t *testing.T) {
	rt, reps := loadHooks(t, newHost(t), lua.Options{Timeout: 50 * time.Millisecond}, "loop.lua")
	start := time.Now()
	assert.Equal(t, "base", rt.SystemPrompt(bg, "base"), "a timed-out handler counts as no result")
	assert.Less(t, time.Since(start), 2*time.Second)
	require.Len(t, reps.Lines(), 1)
	assert.Regexp(t, `^hook loop\.lua: chat\.system\.transform: loop\.lua:\d+: timed out after 50ms$`, reps.Lines()[0])

	assert.Equal(t, "still-alive", rt.Auth(bg, "p", "m").APIKey, "the state stays usable")

	tools := rt.Tools()
	require.Len(t, tools, 1)
	_, err := tools[0].Execute(bg, "c1", json.RawMessage(`{}`), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "timed out after 50ms")
	assert.Equal(t, "still-alive", rt.Auth(bg, "p", "m").APIKey)
}

func TestCallerCancellationStopsAnyHandler(t *testing.T) {
	rt, reps := loadHooks(t, newHost(t), lua.Options{Timeout: time.Hour}, "loop.lua")
	ctx, cancel := context.WithCancel(bg)
	done := make(chan string)
	go func() { done <- rt.SystemPrompt(ctx, "base") }()
	cancel()
	assert.Equal(t, "base", <-done)
	assert.Empty(t, reps.Lines(), "a handler the user stopped did not fail")
}

func TestWrongShapeResultsAreReported(t *testing.T) {
	tests := []struct {
		name   string
		script string
		fire   func(rt *lua.Runtime) bool // reports whether the result was ignored
		want   string
	}{
		{"not a table", `lunar.on("chat.system.transform", function() return "x" end)`,
			func(rt *lua.Runtime) bool { return rt.SystemPrompt(bg, "p") == "p" }, "bad result: a table or nil expected, got string"},
		{"wrong type", `lunar.on("chat.system.transform", function() return {system_prompt = 42} end)`,
			func(rt *lua.Runtime) bool { return rt.SystemPrompt(bg, "p") == "p" }, "bad result: system_prompt: string expected, got number"},
		{"unknown key", `lunar.on("chat.system.transform", function() return {systm_prompt = "x"} end)`,
			func(rt *lua.Runtime) bool { return rt.SystemPrompt(bg, "p") == "p" }, "bad result: unknown field systm_prompt (expected system_prompt)"},
		{"context message not a table", `lunar.on("context", function() return {messages = {"x"}} end)`,
			func(rt *lua.Runtime) bool { return len(rt.Context(bg, contextMessages())) == 4 }, "messages[1]: a message table expected, got string"},
		{"context bad role", `lunar.on("context", function() return {messages = {{role = "robot", content = "x"}}} end)`,
			func(rt *lua.Runtime) bool { return len(rt.Context(bg, contextMessages())) == 4 }, `messages[1]: role must be one of`},
		{"params type", `lunar.on("chat.params", function() return {params = {temperature = "hot"}} end)`,
			func(rt *lua.Runtime) bool { return rt.Params(bg, agent.Params{}).Temperature == nil }, "params.temperature: number expected, got string"},
		{"params unknown", `lunar.on("chat.params", function() return {params = {temprature = 1}} end)`,
			func(rt *lua.Runtime) bool { return rt.Params(bg, agent.Params{}).Temperature == nil }, "params: unknown field temprature"},
		{"partial result not applied", `lunar.on("chat.message", function() return {text = "new", parts = 5} end)`,
			func(rt *lua.Runtime) bool {
				t, _, _ := rt.ChatMessage(bg, "interactive", "old", nil)
				return t == "old"
			}, "parts: table expected, got number"},
		{"auth headers", `lunar.on("auth.get", function() return {headers = {X = 1}} end)`,
			func(rt *lua.Runtime) bool { return rt.Auth(bg, "p", "m").Headers == nil }, "headers: string names and values expected"},
		{"before_start message", `lunar.on("agent.before_start", function() return {message = {content = "x"}} end)`,
			func(rt *lua.Runtime) bool { m, _ := rt.BeforeStart(bg, "p", nil, ""); return len(m) == 0 }, "message: custom_type must be a non-empty string"},
		{"tool input not an object", `lunar.on("tool.execute.before", function() return {input = {1, 2}} end)`,
			func(rt *lua.Runtime) bool { return rt.BeforeTool(bg, "read", "c", json.RawMessage(`{}`)).Block },
			"input: an object expected"},
		{"tool content", `lunar.on("tool.execute.after", function() return {content = 5} end)`,
			func(rt *lua.Runtime) bool {
				return rt.AfterTool(bg, "read", "c", nil, nil, agent.TextResult("a", false)).Content[0].Text == "a"
			}, "content: a string or an array of content blocks expected, got number"},
		{"model input", `lunar.on("model.resolve", function() return {model = {input = {"text", "video"}}} end)`,
			func(rt *lua.Runtime) bool {
				return !rt.ResolveModel(bg, agent.Model{Input: []string{"text"}}).TakesImages()
			}, `model.input: "video" is not "text" or "image"`},
		{"model api", `lunar.on("model.resolve", function() return {model = {api = "carrier-pigeon"}} end)`,
			func(rt *lua.Runtime) bool { return rt.ResolveModel(bg, agent.Model{API: "x"}).API == "x" }, `model.api: unknown API "carrier-pigeon"`},
		{"cancel type", `lunar.on("session.before_clear", function() return {cancel = "yes"} end)`,
			func(rt *lua.Runtime) bool { c, _ := rt.BeforeClear(bg, "s"); return !c }, "cancel: boolean expected, got string"},
		{"details function", `lunar.on("tool.execute.after", function() return {details = {f = print}} end)`,
			func(rt *lua.Runtime) bool {
				return rt.AfterTool(bg, "r", "c", nil, nil, agent.TextResult("a", false)).Details == nil
			},
			"details: cannot encode a function value at .f"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "shape.lua")
			writeFile(t, file, tt.script)
			src, err := lua.FileSource(file, lua.OriginGlobal)
			require.NoError(t, err)
			var reps []string
			rt := lua.Load([]lua.Source{src}, lua.Options{Host: newHost(t), Report: func(m string) { reps = append(reps, m) }})
			defer rt.Close()
			assert.True(t, tt.fire(rt), "the bad result is ignored")
			require.Len(t, reps, 1)
			assert.True(t, strings.HasPrefix(reps[0], "hook shape.lua: "), reps[0])
			assert.Contains(t, reps[0], tt.want)
		})
	}
}

func TestLoadErrorsAndWarnings(t *testing.T) {
	rt, reps := loadHooks(t, newHost(t), lua.Options{Builtins: []string{"help", "model"}}, "load/10-good.lua", "load/20-bad.lua", "load/30-runtime.lua", "load/40-warnings.lua")
	lines := reps.Lines()
	require.Len(t, lines, 8, reps.String())
	assert.Regexp(t, `^hook 20-bad\.lua: 20-bad\.lua:7: .*'='`, lines[0])
	assert.Equal(t, "hook 30-runtime.lua: 30-runtime.lua:3: attempt to index a non-table object(nil) with key 'missing'", lines[1])
	assert.Equal(t, `warning: 40-warnings.lua:1: unknown event "tool.exeute.before" (did you mean "tool.execute.before"?)`, lines[2])
	assert.Equal(t, `warning: 40-warnings.lua:2: command /model would shadow the built-in command: ignored`, lines[3])
	assert.Equal(t, `warning: 40-warnings.lua:3: command /hello is already registered by 10-good.lua: ignored`, lines[4])
	assert.Contains(t, lines[5], `40-warnings.lua:4: tool name must be 1-64 letters, digits, _ or -, got bad tool: tool not registered`)
	assert.Contains(t, lines[6], `40-warnings.lua:5: tool "arr": parameters must be a schema with type = "object": tool not registered`)
	assert.Contains(t, lines[7], `40-warnings.lua:6: tool "broken": invalid parameters schema`)

	assert.Equal(t, "base (good) (warned)", rt.SystemPrompt(bg, "base"), "hooks that loaded work; failed ones register nothing")
	cmds := rt.Commands()
	require.Len(t, cmds, 1, "30-runtime.lua's /half was dropped with its failed load")
	assert.Equal(t, lua.CommandInfo{Name: "hello", Description: "says hello", Hook: "10-good.lua"}, cmds[0])
	assert.Empty(t, rt.Tools())

	report := rt.Report()
	require.Len(t, report, 4)
	assert.Equal(t, "10-good.lua", report[0].Name)
	assert.Equal(t, []string{"chat.system.transform"}, report[0].Events)
	assert.Equal(t, []string{"hello"}, report[0].Commands)
	assert.Positive(t, report[0].LoadTime)
	assert.Len(t, report[1].Errors, 1)
	assert.Len(t, report[2].Errors, 1)
	assert.Empty(t, report[2].Commands)
	assert.Len(t, report[3].Warnings, 3)
	assert.Len(t, report[3].ToolErrors, 3, "tools that failed to register are counted apart")
	assert.Empty(t, report[3].Errors)
}

func TestCheckReportsProblemsInIsolation(t *testing.T) {
	rep, err := lua.Check(filepath.Join("testdata", "load", "40-warnings.lua"), []string{"model"})
	require.NoError(t, err)
	assert.Empty(t, rep.Errors)
	require.Len(t, rep.Warnings, 2, "alone, /hello is not a duplicate")
	assert.Contains(t, rep.Warnings[0], `unknown event "tool.exeute.before" (did you mean "tool.execute.before"?)`)
	assert.Contains(t, rep.Warnings[1], "shadow the built-in command")
	require.Len(t, rep.ToolErrors, 3)
	assert.Contains(t, rep.ToolErrors[2], `tool "broken": invalid parameters schema: parameters.properties.n.type: `)
	assert.Equal(t, []string{"chat.system.transform"}, rep.Events)
	assert.Equal(t, []string{"hello"}, rep.Commands)

	rep, err = lua.Check(filepath.Join("testdata", "load", "20-bad.lua"), nil)
	require.NoError(t, err)
	require.Len(t, rep.Errors, 1)
	assert.True(t, strings.HasPrefix(rep.Errors[0], "20-bad.lua:7: "), rep.Errors[0])

	_, err = lua.Check(filepath.Join("testdata", "nope.lua"), nil)
	assert.ErrorContains(t, err, "nope.lua")
}

func TestDebugTracesEveryCall(t *testing.T) {
	var buf bytes.Buffer
	rt, _ := loadHooks(t, newHost(t), lua.Options{Debug: &buf}, "events/system.lua", "erroring.lua")
	rt.SystemPrompt(bg, "x")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 4)
	assert.Regexp(t, `^hook system\.lua: load: \d+(\.\d+)?(µs|ms|s) ok$`, lines[0])
	assert.Regexp(t, `^hook erroring\.lua: load: \d+(\.\d+)?(µs|ms|s) ok$`, lines[1])
	assert.Regexp(t, `^hook system\.lua: chat\.system\.transform: \d+(\.\d+)?(µs|ms|s) ok$`, lines[2])
	assert.Regexp(t, `^hook erroring\.lua: chat\.system\.transform: \d+(\.\d+)?(µs|ms|s) error: erroring\.lua:\d+: boom`, lines[3])
}
