package lua_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/lua/luatest"
)

// loadLimited loads one hook from source text, with opts.
func loadLimited(t *testing.T, host lua.Host, opts lua.Options, name, code string) (*lua.Runtime, *luatest.Reports) {
	t.Helper()
	reps := &luatest.Reports{}
	opts.Host = host
	if opts.Report == nil {
		opts.Report = reps.Add
	}
	rt := lua.Load([]lua.Source{{Name: name, Origin: lua.OriginGlobal, Code: []byte(code)}}, opts)
	t.Cleanup(rt.Close)
	require.Empty(t, reps.Lines(), "loading %s", name)
	return rt, reps
}

// onSystem wraps code as a chat.system.transform handler.
func onSystem(code string) string {
	return `lunar.on("chat.system.transform", function(ev) ` + code + ` end)`
}

// backtrack is a pattern search gopher-lua's matcher needs minutes for.
const backtrack = `local s = ("a"):rep(60) local p = ("a*"):rep(6) .. "b" `

// TestRunawayBuiltinsStopAtTheTimeout: whatever a handler runs, its call
// ends within the timeout plus 100 ms (the assertion leaves room for a
// loaded machine; the log shows the real overrun).
func TestRunawayBuiltinsStopAtTheTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	tests := []struct{ name, code string }{
		{"string.find", backtrack + `s:find(p)`},
		{"string.match", backtrack + `s:match(p)`},
		{"string.gmatch", backtrack + `for m in s:gmatch(p) do end`},
		{"string.gsub", backtrack + `s:gsub(p, "")`},
		{"gsub with a function", backtrack + `("x"):rep(10):gsub(".", function() return s:find(p) end)`},
		{"table.sort", `local t = {} for i = 1, 2^20 do t[i] = (i * 7919) % 1000003 end while true do table.sort(t, function(a, b) return a > b end) end`},
		{"string.rep", `while true do local s = ("x"):rep(2^27) end`},
		{"table.concat", `local t = {} for i = 1, 2^16 do t[i] = ("x"):rep(1000) end while true do table.concat(t, ",") end`}, // 62.5 MiB a concat: twice that stays under the 256 MiB cap
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt, reps := loadLimited(t, newHost(t), lua.Options{Timeout: timeout}, "bomb.lua", onSystem(tt.code))
			start := time.Now()
			assert.Equal(t, "base", rt.SystemPrompt(bg, "base"))
			took := time.Since(start)
			t.Logf("returned %v after the timeout", took-timeout)
			assert.Less(t, took, timeout+time.Second)
			require.Len(t, reps.Lines(), 1)
			// On a loaded machine the stopped call may not be scheduled within
			// the grace period: the caller has stopped waiting either way.
			assert.Regexp(t, `^hook bomb\.lua: chat\.system\.transform: (bomb\.lua:1: timed out after 300ms|timed out after 300ms \(the call did not stop within 80ms; lunar stopped waiting for it\))$`, reps.Lines()[0])
		})
	}
}

// TestCtrlCStopsABacktrackingFind: the caller's cancellation (Ctrl+C)
// stops a pattern search too, the first time (not a failure to report:
// --debug's trace says it).
func TestCtrlCStopsABacktrackingFind(t *testing.T) {
	var trace syncBuffer
	rt, reps := loadLimited(t, newHost(t), lua.Options{Timeout: time.Hour, Debug: &trace}, "bomb.lua", onSystem(backtrack+`s:find(p)`))
	ctx, cancel := context.WithCancel(bg)
	stop := time.AfterFunc(100*time.Millisecond, cancel)
	defer stop.Stop()
	start := time.Now()
	assert.Equal(t, "base", rt.SystemPrompt(ctx, "base"))
	assert.Less(t, time.Since(start), 100*time.Millisecond+time.Second)
	assert.Empty(t, reps.Lines())
	// On a loaded machine the stopped call may not be scheduled within the
	// grace period: the caller has stopped waiting either way.
	assert.Regexp(t, `bomb\.lua: chat\.system\.transform: .*(bomb\.lua:1: cancelled|cancelled \(the call did not stop within 80ms; lunar stopped waiting for it\))`, trace.String())
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader on two
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRepeatedTimeoutsDisableTheHook: MaxTimeouts timeouts in a row (3 by
// default) disable a hook for the session, with one report; a call that
// ends in time resets the count.
func TestRepeatedTimeoutsDisableTheHook(t *testing.T) {
	rt, reps := loadLimited(t, newHost(t), lua.Options{Timeout: 30 * time.Millisecond}, "loop.lua", `
lunar.on("chat.system.transform", function(ev)
  if ev.system_prompt == "loop" then while true do end end
  return { system_prompt = ev.system_prompt .. "!" }
end)`)
	for _, prompt := range []string{"loop", "loop", "ok", "loop", "loop", "ok"} {
		rt.SystemPrompt(bg, prompt)
		rt.Settled()
	}
	assert.Equal(t, "ok!", rt.SystemPrompt(bg, "ok"), "two timeouts in a row, twice: still active")
	require.Len(t, reps.Lines(), 4)

	for range 3 {
		rt.SystemPrompt(bg, "loop")
		rt.Settled()
	}
	lines := reps.Lines()
	require.Len(t, lines, 7)
	// (or, on a loaded machine, the late-stop form of the same timeout)
	timedOut := `(loop\.lua:3: timed out after 30ms|timed out after 30ms \(the call did not stop within \d+ms; lunar stopped waiting for it\))`
	assert.Regexp(t, `^hook loop\.lua: chat\.system\.transform: `+timedOut+`$`, lines[5])
	assert.Regexp(t, `^hook loop\.lua: chat\.system\.transform: `+timedOut+` \(timed out 3 times in a row\); hook disabled for this session$`, lines[6])

	start := time.Now()
	assert.Equal(t, "loop", rt.SystemPrompt(bg, "loop"), "a disabled hook no longer runs")
	assert.Equal(t, "ok", rt.SystemPrompt(bg, "ok"))
	assert.Less(t, time.Since(start), 30*time.Millisecond)
	assert.Len(t, reps.Lines(), 7, "reported once")
	assert.False(t, rt.Listening("chat.system.transform"))
	report := rt.Report()[0]
	assert.Equal(t, []string{"disabled for this session: timed out 3 times in a row"}, report.Errors)

	// MaxTimeouts < 0: never disabled.
	rt, reps = loadLimited(t, newHost(t), lua.Options{Timeout: 20 * time.Millisecond, MaxTimeouts: -1}, "loop.lua", onSystem(`while true do end`))
	for range 4 {
		rt.SystemPrompt(bg, "x")
		rt.Settled()
	}
	assert.Len(t, reps.Lines(), 4)
	assert.True(t, rt.Listening("chat.system.transform"))
}

// TestAStuckCallIsGivenUpOn: a call stuck in Go code that ignores its
// context (here a host callback) is given up on shortly after its
// timeout; the hook answers "busy" until the call returns, then works.
func TestAStuckCallIsGivenUpOn(t *testing.T) {
	host := newHost(t)
	release := make(chan struct{})
	host.CompleteFunc = func(context.Context, lua.CompleteRequest) (string, error) {
		<-release // deaf to the context
		return "late", nil
	}
	rt, reps := loadLimited(t, host, lua.Options{Timeout: 100 * time.Millisecond}, "stuck.lua", `
lunar.on("chat.system.transform", function(ev)
  if ev.system_prompt == "complete" then lunar.complete("hi") end
  return { system_prompt = ev.system_prompt .. "!" }
end)`)
	start := time.Now()
	assert.Equal(t, "complete", rt.SystemPrompt(bg, "complete"))
	took := time.Since(start)
	t.Logf("given up %v after the timeout", took-100*time.Millisecond)
	assert.Less(t, took, 100*time.Millisecond+time.Second)
	require.Len(t, reps.Lines(), 1)
	assert.Equal(t, "hook stuck.lua: chat.system.transform: timed out after 100ms (the call did not stop within 80ms; lunar stopped waiting for it)", reps.Lines()[0])

	assert.Equal(t, "x", rt.SystemPrompt(bg, "x"), "busy: no result")
	require.Len(t, reps.Lines(), 2)
	assert.Contains(t, reps.Lines()[1], "hook busy")

	close(release)
	assert.Eventually(t, func() bool { return rt.SystemPrompt(bg, "x") == "x!" }, 10*time.Second, time.Millisecond,
		"the hook works again once the stuck call returned")
}

// TestACallWaitingForTheUserIsNotGivenUpOn: Ctrl+C during a dialog does
// not abandon the call; the dialog ends it.
func TestACallWaitingForTheUserIsNotGivenUpOn(t *testing.T) {
	host := newHost(t)
	ctx, cancel := context.WithCancel(bg)
	inDialog, release := holdDialog(host)
	var trace syncBuffer
	rt, reps := loadLimited(t, host, lua.Options{Timeout: 50 * time.Millisecond, Debug: &trace}, "ask.lua", `
lunar.on("chat.system.transform", function(ev, ctx)
  local yes = ctx.ui.confirm("go?")
  return { system_prompt = "answered" }
end)`)
	done := make(chan string)
	go func() { done <- rt.SystemPrompt(ctx, "base") }()
	<-inDialog
	cancel()
	select {
	case <-done:
		t.Fatal("the call was given up on while it waited for the user")
	case <-time.After(300 * time.Millisecond): // well past abandonGrace and the timeout
	}
	close(release)
	assert.Equal(t, "base", <-done)
	assert.Empty(t, reps.Lines(), "the user stopped it: not a failure")
	assert.Contains(t, trace.String(), "cancelled")
	assert.NotContains(t, trace.String(), "stopped waiting")
}

// TestMemoryBombsAreHookErrors runs each bomb with the default memory cap
// (256 MiB): a hook error naming the cap, never a crash of the process.
// The test runs in a child process whose address space is limited, so
// that a failure cannot take the machine down.
func TestMemoryBombsAreHookErrors(t *testing.T) {
	if !inLimitedChild(t, 3<<30) {
		return
	}
	tests := []struct{ name, code, want string }{
		{"string.rep", `local s = ("x"):rep(2^40)`, "bomb.lua:1: memory limit exceeded: string.rep would take 1 TiB (the cap is 256 MiB)"},
		{"growing table", `local t = {} local i = 0 while true do i = i + 1 t[i] = {i} end`, "memory limit exceeded (the call held"},
		{"doubling concatenation", `local s = "x" while true do s = s .. s end`, "memory limit exceeded"},
		{"fs.read /dev/zero", `local data, err = require("fs").read("/dev/zero") error(err)`, "/dev/zero: not a regular file"},
		{"table.concat", `local t = {} for i = 1, 300 do t[i] = ("x"):rep(2^20) end table.concat(t)`, "memory limit exceeded"},
		{"string.format", `local t = {} local i = 0 while true do i = i + 1 t[i] = string.format("%999999d", i) end`, "memory limit exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt, reps := loadLimited(t, newHost(t), lua.Options{Timeout: time.Minute}, "bomb.lua", onSystem(tt.code))
			start := time.Now()
			assert.Equal(t, "base", rt.SystemPrompt(bg, "base"))
			t.Logf("%v: %s", time.Since(start), reps)
			require.NotEmpty(t, reps.Lines())
			assert.Contains(t, reps.Lines()[0], "hook bomb.lua: chat.system.transform: ")
			assert.Contains(t, reps.Lines()[0], tt.want)
		})
	}
}

// TestMemoryLimitOption: past Options.MemoryLimit the call stops, the
// hook is disabled (its state released) and the other hooks go on.
func TestMemoryLimitOption(t *testing.T) {
	if !inLimitedChild(t, 2<<30) {
		return
	}
	reps := &luatest.Reports{}
	rt := lua.Load([]lua.Source{
		{Name: "grow.lua", Code: []byte(onSystem(`keep = {} local i = 0 while true do i = i + 1 keep[i] = {i} end`))},
		{Name: "ok.lua", Code: []byte(`lunar.on("chat.system.transform", function(ev) return { system_prompt = ev.system_prompt .. "!" } end)`)},
	}, lua.Options{Host: newHost(t), Timeout: time.Minute, MemoryLimit: 32 << 20, Report: reps.Add})
	defer rt.Close()
	assert.Equal(t, "base!", rt.SystemPrompt(bg, "base"))
	lines := reps.Lines()
	require.Len(t, lines, 1, reps.String())
	assert.Regexp(t, `^hook grow\.lua: chat\.system\.transform: grow\.lua:1: memory limit exceeded \(the call held \d+(\.\d)? MiB; the cap is 32 MiB\); hook disabled for this session$`, lines[0])
	assert.Equal(t, "again!", rt.SystemPrompt(bg, "again"))
	assert.Len(t, reps.Lines(), 1)
	assert.Equal(t, []string{"disabled for this session: memory limit exceeded"}, rt.Report()[0].Errors)
}

// TestHostileProjectHooksFolder: links to /dev/zero, dangling links, a
// FIFO, lib -> / in an untrusted repository's .lunar/hooks.d neither crash
// discovery nor stop it; the good hook still loads once trusted.
func TestHostileProjectHooksFolder(t *testing.T) {
	if !inLimitedChild(t, 3<<30) {
		return
	}
	proj := project(t, map[string]string{"50-good.lua": "-- fine", "lib/util.lua": "return 1"})
	dir := filepath.Join(proj, ".lunar", "hooks.d")
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "10-zero.lua")))
	require.NoError(t, os.Symlink(filepath.Join(proj, "missing.lua"), filepath.Join(dir, "20-dangling.lua")))
	require.NoError(t, os.Symlink("/", filepath.Join(dir, "lib", "root")))
	require.NoError(t, os.Symlink("/", filepath.Join(dir, "30-root.lua")))
	mkfifo(t, filepath.Join(dir, "40-fifo.lua"))

	discover := func(opts lua.DiscoverOptions) ([]lua.Source, []string, error) {
		type result struct {
			srcs  []lua.Source
			warns []string
			err   error
		}
		done := make(chan result, 1)
		go func() {
			s, w, err := lua.Discover(opts)
			done <- result{s, w, err}
		}()
		select {
		case r := <-done:
			return r.srcs, r.warns, r.err
		case <-time.After(20 * time.Second):
			t.Fatal("discovery hangs")
			return nil, nil, nil
		}
	}
	var asked []string
	srcs, warns, err := discover(lua.DiscoverOptions{Bundled: emptyFS(), ProjectDir: proj,
		Ask: func(_ string, files []string) bool { asked = files; return true }})
	require.NoError(t, err)
	assert.Equal(t, []string{"project:50-good.lua"}, names(srcs))
	assert.Contains(t, asked, "10-zero.lua -> /dev/zero", "the trust question shows links as links")
	assert.Contains(t, asked, "lib/root -> /")
	assert.Contains(t, asked, "50-good.lua")
	joined := strings.Join(warns, "\n")
	for _, f := range []string{"10-zero.lua", "20-dangling.lua", "30-root.lua"} {
		assert.Contains(t, joined, f, "a skipped file is named")
	}
	_, _, err = lua.HashHookDir(dir)
	require.NoError(t, err)

	// One-shot: untrusted, skipped with a warning, no error.
	srcs, warns, err = discover(lua.DiscoverOptions{Bundled: emptyFS(), ProjectDir: filepath.Join(proj)})
	require.NoError(t, err)
	assert.Empty(t, srcs)
	assert.Contains(t, strings.Join(warns, "\n"), "are not trusted")
}

// TestProjectLibStaysInTheTrustedFolder: the trust hash covers the
// project's hooks folder only, so a lib/ that is a link out of it is
// refused (a global hook may link its lib/ anywhere).
func TestProjectLibStaysInTheTrustedFolder(t *testing.T) {
	shared := t.TempDir()
	writeFile(t, filepath.Join(shared, "ext", "m.lua"), `return "shared"`)
	writeFile(t, filepath.Join(shared, "own.lua"), `return "own"`)
	for _, origin := range []string{lua.OriginProject, lua.OriginGlobal} {
		dir := t.TempDir()
		require.NoError(t, os.Symlink(shared, filepath.Join(dir, "lib")))
		writeFile(t, filepath.Join(dir, "10-use.lua"), `
lunar.on("chat.system.transform", function(ev)
  local ok, m = pcall(require, ev.system_prompt)
  return { system_prompt = ok and m or "refused" }
end)`)
		src, err := lua.FileSource(filepath.Join(dir, "10-use.lua"), origin)
		require.NoError(t, err)
		rt := lua.Load([]lua.Source{src}, lua.Options{Host: newHost(t)})
		want := map[string]string{"own": "own", "ext.m": "shared"}
		if origin == lua.OriginProject {
			want = map[string]string{"own": "refused", "ext.m": "refused"}
		}
		for mod, w := range want {
			assert.Equal(t, w, rt.SystemPrompt(bg, mod), "%s: require %s", origin, mod)
		}
		rt.Close()
	}
}

// inLimitedChild runs the calling test again in a child process whose
// address space is limited to limit bytes more than it starts with, and
// reports whether this is the child (which then runs the test).
func inLimitedChild(t *testing.T, limit uint64) bool {
	t.Helper()
	const env = "LUNAR_LIMITED_TEST"
	if os.Getenv(env) == t.Name() {
		limitAddressSpace(t, limit)
		return true
	}
	if !canLimitAddressSpace {
		t.Skip("needs an address-space limit (Linux)")
	}
	if raceEnabled {
		t.Skip("the race detector maps more than an address-space limit allows")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), env+"="+t.Name())
	out, err := cmd.CombinedOutput()
	t.Logf("child:\n%s", out)
	require.NoError(t, err, "the child test failed (a crash is a failure)")
	require.Contains(t, string(out), "--- PASS: "+t.Name())
	return false
}
