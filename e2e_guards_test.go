// Guards through the binary: the permission policy fails closed. When it
// cannot answer (its memory cap, a timeout, broken at load) the tool call
// is refused and the next call asks it again; the overrun rules never
// switch it off. --no-hooks says the policy is off.
package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// bangs is the oversized bash command of issue #20: 40 KB of "! ! ! …",
// which took the bundled policy over its memory cap.
var bangs = strings.Repeat("! ", 20<<10) + "true"

// The oversized command, then an ordinary one: both refused, in one-shot
// without --yes and in read-only mode.
func TestGuardOversizedCommandThenTouchRefused(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"ask", "read-only"} {
		t.Run(mode, func(t *testing.T) {
			e := newE2E(t)
			e.ask = true
			// A deny rule on bash: the policy parses every command. Read-only
			// under a smaller cap, which the command crosses sooner.
			limit := ""
			if mode == "read-only" {
				limit = `"hook_memory_limit_mb": 64, `
			}
			e.hkConfig(`{` + limit + `"permissions": {"mode": "` + mode + `", "deny": ["bash: rm -rf *"]}}`)
			e.srv.Reply(llmtest.ToolCall("bash", fmt.Sprintf(`{"command":%q}`, bangs)))
			e.srv.Reply(llmtest.ToolCall("bash", `{"command":"touch pwned"}`))
			e.srv.Reply(llmtest.ToolCall("write", `{"path":"pwned2","content":"x"}`))
			e.srv.Reply(llmtest.Text("done"))
			r, took := e.limitedRun(4<<30, 2*time.Minute, "-p", "go")
			t.Logf("took %v; stderr:\n%s", took, r.stderr)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, "<missing>", e.file("pwned"))
			assert.Equal(t, "<missing>", e.file("pwned2"))
			results := toolResults(t, e.onlySession())
			require.Len(t, results, 3)
			for _, res := range results {
				assert.True(t, strings.HasPrefix(res, "true "), "refused: %.300s", res)
			}
			assert.NotContains(t, r.stderr, "hook disabled", "a guard is never disabled")
		})
	}
}

// A guard hook that runs away: every call is refused, also after more
// than hook_max_timeouts of them, and the call that did not time out
// still asks the guard (which allows it).
func TestGuardTimeoutsRefusedEveryTime(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.hkConfig(`{"hook_timeout_ms": 300, "hook_max_timeouts": 2}`)
	writeHook(t, filepath.Join(e.home, "config", "hooks.d", "10-gate.lua"), `lunar.guard()
lunar.on("tool.execute.before", function(ev)
  if ev.input.command ~= "echo fine > fine.txt" then
    while true do end
  end
end)`)
	for i := range 4 {
		e.srv.Reply(llmtest.ToolCall("bash", fmt.Sprintf(`{"command":"echo %d >> ran.txt"}`, i)))
	}
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo fine > fine.txt"}`))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo 5 >> ran.txt"}`))
	e.srv.Reply(llmtest.Text("done"))
	r, _ := e.limitedRun(4<<30, 2*time.Minute, "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "<missing>", e.file("ran.txt"))
	assert.Equal(t, "fine\n", e.file("fine.txt"), "the guard is asked again after its timeouts")
	results := toolResults(t, e.onlySession())
	require.Len(t, results, 6)
	for i, res := range results {
		if i == 4 {
			assert.Equal(t, "false (no output)", res)
			continue
		}
		// On a loaded machine the call may outlast the grace lunar gives a
		// stopped call; the next then finds the guard busy: refused too.
		assert.Regexp(t, `^true Refused: the guard 10-gate\.lua could not decide on this call \((10-gate\.lua:4: timed out after 300ms|.*lunar stopped waiting for it\)|hook busy: .*)\)`, res, i)
	}
	assert.NotContains(t, r.stderr, "hook disabled")
}

// The bundled policy timing out (a tiny hook_timeout_ms makes the
// oversized command take too long) refuses every call, past
// hook_max_timeouts, in one-shot without --yes.
func TestGuardPermissionsTimeoutsRefused(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.ask = true
	e.hkConfig(`{"hook_timeout_ms": 100, "hook_max_timeouts": 1, "permissions": {"deny": ["bash: rm -rf *"]}}`)
	for range 3 {
		e.srv.Reply(llmtest.ToolCall("bash", fmt.Sprintf(`{"command":%q}`, bangs)))
	}
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"touch pwned"}`))
	e.srv.Reply(llmtest.Text("done"))
	r, _ := e.limitedRun(4<<30, 2*time.Minute, "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "<missing>", e.file("pwned"))
	results := toolResults(t, e.onlySession())
	require.Len(t, results, 4)
	for _, res := range results {
		assert.True(t, strings.HasPrefix(res, "true "), "refused: %.300s", res)
	}
	assert.NotContains(t, r.stderr, "hook disabled")
}

// A guard that fails at load refuses every tool call, with a reason that
// says how to switch it off; one line on stderr says so at start.
func TestGuardBrokenAtLoadRefuses(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	writeHook(t, filepath.Join(e.home, "config", "hooks.d", "10-gate.lua"), `lunar.guard()
error("misconfigured")`)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"touch pwned"}`))
	e.srv.Reply(llmtest.ToolCall("write", `{"path":"pwned2","content":"x"}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "-p", "go") // --yes: the bundled policy would allow them
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "<missing>", e.file("pwned"))
	assert.Equal(t, "<missing>", e.file("pwned2"))
	results := toolResults(t, e.onlySession())
	require.Len(t, results, 2)
	for _, res := range results {
		assert.Contains(t, res, "true Refused: the guard 10-gate.lua is not working (it failed to load: 10-gate.lua:2: misconfigured)")
	}
	assert.Contains(t, r.stderr, "hook 10-gate.lua: 10-gate.lua:2: misconfigured")

	// Switched off in the user's own config, it no longer refuses.
	e.hkConfig(`{"disabled_hooks": ["10-gate"]}`)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"touch ok"}`))
	e.srv.Reply(llmtest.Text("done"))
	r = e.run("", "--no-session", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "", e.file("ok"))
}

// --no-hooks says, once, that the permission policy is off.
func TestGuardNoHooksSaysThePolicyIsOff(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.ask = true
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"touch ran"}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "--no-hooks", "--no-session", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "", e.file("ran"))
	assert.Equal(t, 1, strings.Count(r.stderr, "permission policy is off"), r.stderr)
	assert.Contains(t, r.stderr, "lunar: warning: --no-hooks: the permission policy is off: every tool call runs without asking\n")
}
