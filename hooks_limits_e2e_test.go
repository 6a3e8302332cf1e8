// End-to-end tests of the bounds on hooks, through the built binary: a
// runaway pattern search ends at the hook timeout, memory bombs are hook
// errors rather than a crash, and a hostile repository's hooks folder
// neither crashes lunar nor stops it from starting. The binary runs under
// an address-space limit (prlimit) so that a failure cannot take the
// machine's memory.
package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// limitedRun runs lunar like e.run, under an address space of limit bytes
// when prlimit exists, killed after deadline; it returns how long it took.
func (e *e2e) limitedRun(limit int64, deadline time.Duration, args ...string) (result, time.Duration) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	base := e.cmd("", args...)
	cmd := exec.CommandContext(ctx, base.Path, base.Args[1:]...)
	if p, err := exec.LookPath("prlimit"); err == nil {
		// prlimit takes bytes (a "4G" suffix is not understood).
		cmd = exec.CommandContext(ctx, p, append([]string{"--as=" + strconv.FormatInt(limit, 10), "--", base.Path}, base.Args[1:]...)...)
	}
	cmd.Dir, cmd.Env, cmd.Stdin = base.Dir, base.Env, base.Stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	require.NoError(e.t, ctx.Err(), "lunar still running after %v; stderr:\n%s", deadline, errb.String())
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(e.t, err)
	}
	return result{out.String(), errb.String(), code}, took
}

// writeHook writes a hook file (folders created).
func writeHook(t *testing.T, path, code string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(code), 0o644))
}

func TestHookLimitsRunawayPatternEndsAtTheTimeout(t *testing.T) {
	e := newE2E(t)
	e.hkConfig(`{"hook_timeout_ms": 1500}`)
	writeHook(t, filepath.Join(e.home, "config", "hooks.d", "10-backtrack.lua"), `
lunar.on("chat.system.transform", function(ev)
  local s, p = ("a"):rep(300), ("a*"):rep(8) .. "b"
  s:find(p)
end)`)
	e.srv.Reply(llmtest.Text("answered"))
	// The time a run without the hook takes, to subtract.
	r, base := e.limitedRun(4<<30, time.Minute, "--no-hooks", "-p", "hi")
	require.Equal(t, 0, r.code, r.stderr)

	e.srv.Reply(llmtest.Text("answered"))
	r, took := e.limitedRun(4<<30, time.Minute, "-p", "hi")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "answered\n", r.stdout)
	assert.Contains(t, r.stderr, "hook 10-backtrack.lua: chat.system.transform: 10-backtrack.lua:4: timed out after 1.5s")
	t.Logf("run with the hook: %v; without: %v; overrun past the timeout: about %v", took, base, took-base-1500*time.Millisecond)
	// Target: the timeout plus 100 ms; the margin absorbs a loaded machine.
	assert.Less(t, took, base+1500*time.Millisecond+time.Second)
}

func TestHookLimitsMemoryBombsAreHookErrors(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	dir := filepath.Join(e.home, "config", "hooks.d")
	writeHook(t, filepath.Join(dir, "10-rep.lua"), `lunar.on("chat.system.transform", function() local s = ("x"):rep(2^40) end)`)
	writeHook(t, filepath.Join(dir, "20-table.lua"), `lunar.on("chat.system.transform", function()
  local t, i = {}, 0
  while true do i = i + 1 t[i] = { i } end
end)`)
	writeHook(t, filepath.Join(dir, "30-zero.lua"), `lunar.on("chat.system.transform", function()
  local data, err = require("fs").read("/dev/zero")
  error(err)
end)`)
	writeHook(t, filepath.Join(dir, "40-ok.lua"), `lunar.on("chat.system.transform", function(ev)
  return { system_prompt = ev.system_prompt .. " STILL-HOOKED" }
end)`)
	e.srv.Reply(llmtest.Text("answered"))
	r, _ := e.limitedRun(4<<30, 2*time.Minute, "-p", "hi")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "answered\n", r.stdout)
	assert.NotContains(t, r.stderr, "fatal error")
	assert.Contains(t, r.stderr, "hook 10-rep.lua: chat.system.transform: 10-rep.lua:1: memory limit exceeded: string.rep would take 1 TiB (the cap is 256 MiB)")
	// Without the Lua line when the call was still in a long step when
	// stopped (a table resize, the garbage collector).
	assert.Regexp(t, `hook 20-table\.lua: chat\.system\.transform: (20-table\.lua:3: )?memory limit exceeded \(the call held [0-9.]+ MiB; the cap is 256 MiB\)`, r.stderr)
	assert.Contains(t, r.stderr, "hook 30-zero.lua: chat.system.transform: 30-zero.lua:3: /dev/zero: not a regular file")
	reqs := e.srv.Requests()
	require.Len(t, reqs, 1)
	assert.Contains(t, string(reqs[0].Body), "STILL-HOOKED", "the other hooks kept working")
}

func TestHookLimitsHostileRepositoryStillStarts(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	dir := filepath.Join(e.cwd, ".lunar", "hooks.d")
	writeHook(t, filepath.Join(dir, "50-ok.lua"), `lunar.on("chat.system.transform", function(ev)
  return { system_prompt = ev.system_prompt .. " PROJECT-HOOK" }
end)`)
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "10-zero.lua")))
	require.NoError(t, os.Symlink(filepath.Join(e.cwd, "missing.lua"), filepath.Join(dir, "20-dangling.lua")))
	require.NoError(t, os.Symlink("/", filepath.Join(dir, "lib")))

	// Untrusted in one-shot mode: skipped with a warning.
	e.srv.Reply(llmtest.Text("answered"))
	r, _ := e.limitedRun(4<<30, time.Minute, "-p", "hi")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "answered\n", r.stdout)
	assert.Contains(t, r.stderr, "not trusted")

	// Trusted: the readable hook loads; the others are skipped by name.
	e.srv.Reply(llmtest.Text("answered"))
	r, _ = e.limitedRun(4<<30, time.Minute, "--trust", "-p", "hi")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "answered\n", r.stdout)
	for _, name := range []string{"10-zero.lua", "20-dangling.lua"} {
		assert.Contains(t, r.stderr, name)
	}
	assert.False(t, strings.Contains(r.stderr, "fatal error"), r.stderr)
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	assert.Contains(t, string(reqs[1].Body), "PROJECT-HOOK")
}
