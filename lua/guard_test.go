package lua_test

// Guards (guard.go): a tool call a guard cannot decide is refused, the
// overrun rules never disable a guard, and a guard out of order refuses
// every call; features still fail open.

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/lua/luatest"
)

// bashCall asks the hooks about a bash call of command.
func bashCall(rt *lua.Runtime, command string) (blocked bool, reason string) {
	in, _ := json.Marshal(map[string]string{"command": command})
	dec := rt.BeforeTool(bg, "bash", "call-1", in)
	return dec.Block, dec.Reason
}

// gate is a guard that loops on "loop", allocates without end on "grow",
// refuses "rm" and allows the rest.
const gate = `lunar.guard()
lunar.on("tool.execute.before", function(ev)
  local c = ev.input.command
  if c == "loop" then while true do end end
  if c == "grow" then local t, i = {}, 0 while true do i = i + 1 t[i] = { i } end end
  if c == "rm" then return { block = true, reason = "no rm" } end
end)`

// couldNotDecide matches the refusal of a call gate.lua could not decide
// for why (a regexp). On a loaded machine a stopped call may not return
// within the grace lunar gives it: the refusal then says so, and the
// calls after it find the hook busy until it has.
func couldNotDecide(why string) string {
	return `^Refused: the guard gate\.lua could not decide on this call \((` + why +
		`|.* \(the call did not stop within 80ms; lunar stopped waiting for it\)|hook busy: .*)\)\. Do not retry it; tell the user\.$`
}

// askedAgain waits until the hook is no longer busy with a call lunar
// gave up on, and returns its decision on command.
func askedAgain(t *testing.T, rt *lua.Runtime, command string) (blocked bool, reason string) {
	t.Helper()
	require.Eventually(t, func() bool {
		blocked, reason = bashCall(rt, command)
		return !strings.Contains(reason, "hook busy")
	}, 10*time.Second, time.Millisecond)
	return blocked, reason
}

func TestGuardTimeoutsRefuseAndNeverDisable(t *testing.T) {
	for _, guard := range []bool{true, false} {
		t.Run(map[bool]string{true: "guard", false: "feature"}[guard], func(t *testing.T) {
			code := gate
			if !guard {
				code = strings.TrimPrefix(gate, "lunar.guard()\n")
			}
			rt, reps := loadLimited(t, newHost(t), lua.Options{Timeout: 30 * time.Millisecond, MaxTimeouts: 2}, "gate.lua", code)
			if guard {
				for range 3 {
					blocked, reason := bashCall(rt, "loop")
					assert.True(t, blocked, "a call that timed out is refused")
					assert.Regexp(t, couldNotDecide(`gate\.lua:4: timed out after 30ms`), reason)
				}
			} else {
				// Gone after hook_max_timeouts in a row (a call that found
				// it busy on a loaded machine starts the count again).
				require.Eventually(t, func() bool {
					bashCall(rt, "loop")
					return len(rt.Report()[0].Errors) > 0
				}, 10*time.Second, time.Millisecond)
			}
			blocked, _ := askedAgain(t, rt, "ls")
			assert.False(t, blocked)
			blocked, reason := askedAgain(t, rt, "rm")
			if guard {
				assert.True(t, blocked, "the guard is asked again")
				assert.Equal(t, "no rm", reason)
				assert.True(t, rt.Listening("tool.execute.before"))
				assert.Empty(t, rt.Report()[0].Errors)
				assert.NotContains(t, reps.String(), "disabled")
			} else {
				assert.False(t, blocked, "a feature is disabled after hook_max_timeouts")
				assert.Equal(t, []string{"disabled for this session: timed out 2 times in a row"}, rt.Report()[0].Errors)
			}
		})
	}
}

func TestGuardMemoryCapRefusesAndNeverDisables(t *testing.T) {
	if !inLimitedChild(t, 2<<30) {
		return
	}
	rt, reps := loadLimited(t, newHost(t), lua.Options{Timeout: time.Minute, MemoryLimit: 32 << 20}, "gate.lua", gate)
	for range 2 {
		blocked, reason := askedAgain(t, rt, "grow")
		assert.True(t, blocked)
		assert.Regexp(t, couldNotDecide(`(gate\.lua:5: )?memory limit exceeded \(the call held \d+(\.\d)? MiB; the cap is 32 MiB\)`), reason)
	}
	blocked, reason := askedAgain(t, rt, "rm")
	assert.True(t, blocked, "the guard is asked again")
	assert.Equal(t, "no rm", reason)
	blocked, _ = bashCall(rt, "ls")
	assert.False(t, blocked)
	assert.Empty(t, rt.Report()[0].Errors)
	assert.NotContains(t, reps.String(), "disabled")
}

// A guard that fails at load refuses every tool call, also the tools no
// handler of it would have looked at; the user is told once.
func TestGuardBrokenAtLoadRefusesEveryCall(t *testing.T) {
	tests := []struct{ name, code, why string }{
		{"error after lunar.guard", "lunar.guard()\nerror(\"misconfigured\")", "it failed to load: gate.lua:2: misconfigured"},
		{"syntax error", "lunar.guard(", "it failed to load: gate.lua:1: syntax error: unexpected end of file (a missing 'end', ')' or '}'?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reps := &luatest.Reports{}
			src := lua.Source{Name: "gate.lua", Origin: lua.OriginGlobal, Code: []byte(tt.code)}
			if strings.Contains(tt.name, "syntax") {
				src.Guard = true // it never runs: only a bundled guard is known before
			}
			rt := lua.Load([]lua.Source{src}, lua.Options{Host: newHost(t), Report: reps.Add})
			defer rt.Close()
			for _, tool := range []string{"bash", "read", "my_tool"} {
				dec := rt.BeforeTool(bg, tool, "call-1", json.RawMessage(`{}`))
				assert.True(t, dec.Block, tool)
				assert.Equal(t, "Refused: the guard gate.lua is not working ("+tt.why+"), so lunar refuses every tool call. "+
					`Do not retry; tell the user. They can fix it, or switch it off with "disabled_hooks" in their own config.json.`, dec.Reason)
			}
			lines := reps.Lines()
			require.Len(t, lines, 2, reps.String())
			assert.Equal(t, "guard gate.lua is out of order ("+tt.why+`): every tool call is refused until it is fixed, or switched off with "disabled_hooks" in your config.json`, lines[1])
		})
	}
}

// Source.Guard (the bundled guards) makes a hook a guard before its
// first instruction: a load stopped before lunar.guard() still refuses.
func TestBundledGuardIsOneBeforeItRuns(t *testing.T) {
	reps := &luatest.Reports{}
	rt := lua.Load([]lua.Source{{Name: "permissions.lua", Origin: lua.OriginBundled, Guard: true,
		Code: []byte("while true do end\nlunar.guard()")}}, lua.Options{Host: newHost(t), Report: reps.Add, Timeout: 30 * time.Millisecond})
	defer rt.Close()
	blocked, reason := bashCall(rt, "ls")
	assert.True(t, blocked)
	assert.Contains(t, reason, "Refused: the guard permissions.lua is not working (it failed to load: permissions.lua:1: timed out after 30ms)")

	// Discover marks the bundled policy.
	sources, _, err := lua.Discover(lua.DiscoverOptions{})
	require.NoError(t, err)
	guards := map[string]bool{}
	for _, s := range sources {
		guards[s.Name] = s.Guard
	}
	assert.Equal(t, map[string]bool{"permissions.lua": true, "prune.lua": false, "skills.lua": false, "stack.lua": false, "templates.lua": false}, guards)
}

// A guard that does not listen to tool.execute.before, in order, lets
// every call through; so do no hooks at all.
func TestGuardInOrderWithoutHandlerAllows(t *testing.T) {
	rt, _ := loadLimited(t, newHost(t), lua.Options{}, "quiet.lua", "lunar.guard()")
	blocked, _ := bashCall(rt, "ls")
	assert.False(t, blocked)
	assert.False(t, rt.Listening("tool.execute.before"))
}

// TestGuardJudgesWhatRuns: a hook loaded after the guard rewrites the
// arguments; the guard still judges (and the tool gets) the rewritten ones,
// and its sandbox stands over an earlier handler's.
func TestGuardJudgesWhatRuns(t *testing.T) {
	reps := &luatest.Reports{}
	rt := lua.Load([]lua.Source{
		{Name: "gate.lua", Origin: lua.OriginGlobal, Code: []byte(gate + `
lunar.on("tool.execute.before", function(ev) return { sandbox = { workdir = true } } end)`)},
		{Name: "rewrite.lua", Origin: lua.OriginGlobal, Code: []byte(`lunar.on("tool.execute.before", function(ev)
  return { input = { command = "rm" }, sandbox = { workdir = false, write = { "/" } } }
end)`)},
	}, lua.Options{Host: newHost(t), Report: reps.Add})
	t.Cleanup(rt.Close)
	require.Empty(t, reps.Lines())
	blocked, reason := bashCall(rt, "ls")
	assert.True(t, blocked, "the guard judged the rewritten command")
	assert.Equal(t, "no rm", reason)

	rt2 := lua.Load([]lua.Source{
		{Name: "gate.lua", Origin: lua.OriginGlobal, Code: []byte(`lunar.guard()
lunar.on("tool.execute.before", function(ev) return { sandbox = { workdir = true } } end)`)},
		{Name: "loose.lua", Origin: lua.OriginGlobal, Code: []byte(`lunar.on("tool.execute.before", function(ev)
  return { sandbox = { workdir = false, write = { "/" } } }
end)`)},
	}, lua.Options{Host: newHost(t), Report: reps.Add})
	t.Cleanup(rt2.Close)
	in, _ := json.Marshal(map[string]string{"command": "ls"})
	dec := rt2.BeforeTool(bg, "bash", "call-1", in)
	require.NotNil(t, dec.Sandbox)
	assert.True(t, dec.Sandbox.Workdir)
	assert.Empty(t, dec.Sandbox.Write, "the guard's sandbox stands")
}

// TestHandlersRunWhileACommandWaitsForTheUser: a command waiting in a
// dialog does not hold its hook's state: the hook's tool.execute.before
// (a guard's) decides meanwhile, at once and as it decides any call, with
// its own timeout; a second command of the hook runs and asks too, and
// each command, answered, goes on with its own ctx.args and what the
// handlers in between left in the state.
func TestHandlersRunWhileACommandWaitsForTheUser(t *testing.T) {
	host := newHost(t)
	host.UIValue.ConfirmAnswer = true
	asked := make(chan string)
	answer := map[string]chan struct{}{"first": make(chan struct{}), "second": make(chan struct{})}
	host.UIValue.OnDialog = func() {
		title := <-asked
		<-answer[title]
	}
	rt, reps := loadLimited(t, host, lua.Options{Timeout: time.Second}, "gate.lua", `lunar.guard()
local asking, decided = {}, 0
lunar.command("ask", { handler = function(args, ctx)
  asking[#asking + 1] = args
  local yes = ctx.ui.confirm(args)
  table.remove(asking)
  return string.format("%s: yes=%s args=%s decided=%d", args, tostring(yes), ctx.args[1], decided)
end })
lunar.on("tool.execute.before", function(ev)
  if ev.input.command == "loop" then while true do end end
  decided = decided + 1
  if #asking > 0 then return { block = true, reason = "while asking " .. table.concat(asking, ",") } end
end)`)
	type result struct{ prompt string }
	first := make(chan result)
	go func() {
		prompt, handled, err := rt.RunCommand(bg, "ask", "first")
		assert.True(t, handled)
		assert.NoError(t, err)
		first <- result{prompt}
	}()
	asked <- "first"
	decided := make(chan string, 1)
	go func() {
		_, reason := bashCall(rt, "ls")
		decided <- reason
	}()
	var reason string
	select {
	case reason = <-decided:
	case <-time.After(time.Minute):
		close(answer["first"]) // lets the test end
		t.Fatal("the guard waits for its command's dialog")
	}
	assert.Equal(t, "while asking first", reason, "decided while the command waits for the user")

	second := make(chan result)
	go func() {
		prompt, _, err := rt.RunCommand(bg, "ask", "second")
		assert.NoError(t, err)
		second <- result{prompt}
	}()
	asked <- "second"
	_, reason = bashCall(rt, "ls")
	assert.Equal(t, "while asking first,second", reason)
	close(answer["second"])
	assert.Equal(t, "second: yes=true args=second decided=2", (<-second).prompt)
	// The guard's own timeout still bounds it, and refuses.
	blocked, reason := bashCall(rt, "loop")
	assert.True(t, blocked)
	assert.Regexp(t, couldNotDecide(`gate\.lua:\d+: timed out after 1s`), reason)
	close(answer["first"])
	assert.Equal(t, "first: yes=true args=first decided=2", (<-first).prompt)
	blocked, _ = askedAgain(t, rt, "ls")
	assert.False(t, blocked, "nobody asks any more")
	require.NotEmpty(t, reps.Lines())
	assert.Contains(t, reps.Lines()[0], "timed out after 1s", "the loop's timeout is the first report (a later one may say the hook is busy)")
}

// TestACommandAskingInACoroutine: a command that asks from inside a
// coroutine, while a handler of its hook runs coroutines of its own, goes
// on in its coroutine.
func TestACommandAskingInACoroutine(t *testing.T) {
	host := newHost(t)
	host.UIValue.ConfirmAnswer = true
	inDialog, release := holdDialog(host)
	rt, reps := loadLimited(t, host, lua.Options{Timeout: time.Second}, "co.lua", `
lunar.command("ask", { handler = function(args, ctx)
  local co = coroutine.create(function()
    local me = coroutine.running()
    local yes = ctx.ui.confirm("go?")
    coroutine.yield(tostring(yes) .. " " .. tostring(coroutine.running() == me))
  end)
  local ok, out = coroutine.resume(co)
  return tostring(ok) .. " " .. out .. " " .. coroutine.status(co)
end })
lunar.on("chat.system.transform", function(ev)
  local co = coroutine.wrap(function() coroutine.yield("!") end)
  return { system_prompt = ev.system_prompt .. co() }
end)`)
	done := make(chan string)
	go func() {
		prompt, _, err := rt.RunCommand(bg, "ask", "")
		assert.NoError(t, err)
		done <- prompt
	}()
	<-inDialog
	assert.Equal(t, "base!", rt.SystemPrompt(bg, "base"))
	close(release)
	assert.Equal(t, "true true true suspended", <-done)
	assert.Empty(t, reps.Lines())
}

// TestCloseWhileACommandWaitsForTheUser: the runtime closed while a
// command waits in a dialog (lunar exiting) leaves the state to the
// command, which ends normally; later calls are refused.
func TestCloseWhileACommandWaitsForTheUser(t *testing.T) {
	host := newHost(t)
	host.UIValue.ConfirmAnswer = true
	inDialog, release := holdDialog(host)
	rt, _ := loadLimited(t, host, lua.Options{Timeout: time.Second}, "ask.lua", `
lunar.command("ask", { handler = function(args, ctx)
  local t = {}
  for i = 1, 100 do t[i] = tostring(i) end
  return tostring(ctx.ui.confirm("go?")) .. " " .. table.concat(t, ",", 99)
end })`)
	done := make(chan string)
	go func() {
		prompt, _, err := rt.RunCommand(bg, "ask", "")
		assert.NoError(t, err)
		done <- prompt
	}()
	<-inDialog
	rt.Close()
	close(release)
	assert.Equal(t, "true 99,100", <-done)
	_, handled, err := rt.RunCommand(bg, "ask", "")
	assert.True(t, handled)
	assert.ErrorContains(t, err, "closed")
}
