//go:build unix

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// gogc reads the process's GOGC without changing it.
func gogc() uint64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// deferFirstGC starts at startHeapPercent and goes back to Go's default
// once a collection has run; a GOGC in the environment is left alone.
func TestDeferFirstGC(t *testing.T) {
	old := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(old) })

	t.Setenv("GOGC", "100")
	deferFirstGC()
	assert.EqualValues(t, 100, gogc(), "the user's GOGC wins")
	require.NoError(t, os.Unsetenv("GOGC")) // t.Setenv puts it back

	deferFirstGC()
	assert.EqualValues(t, startHeapPercent, gogc())
	runtime.GC()
	require.Eventually(t, func() bool { return gogc() == 100 }, 10*time.Second, time.Millisecond,
		"GOGC is back to 100 after the first collection")
}

// A one-shot answer with 30 trivial global hooks (session written,
// their chunks cached) fits in the start-up heap: no garbage collection
// runs (GODEBUG=gctrace=1 prints a line per cycle). Go's default heap
// took one, most of what the hooks cost.
func TestOneShot30HooksNoCollection(t *testing.T) {
	e := newE2E(t)
	writeTrivialHooks(t, e.home, 30)
	e.env = append(e.env, "GODEBUG=gctrace=1")
	oneShot := func() string {
		t.Helper()
		e.srv.Reply(llmtest.Text("Hello there."))
		cmd := e.cmd("", "-p", "say hello")
		// The test's own GOGC, if any, does not reach lunar (e.env's
		// does).
		cmd.Env = slices.DeleteFunc(cmd.Env[:len(cmd.Env)-len(e.env)], func(kv string) bool {
			return strings.HasPrefix(kv, "GOGC=")
		})
		cmd.Env = append(cmd.Env, e.env...)
		r := e.exec(cmd)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "Hello there.\n", r.stdout)
		return r.stderr
	}
	oneShot() // compiles the hooks and caches their chunks
	assert.NotRegexp(t, regexp.MustCompile(`(?m)^gc \d+ @`), oneShot())

	// A hook that allocates 10 MB at load: the first cycle's goal is
	// the start-up heap's 8 MB; with the user's GOGC, Go's 4 MB.
	big := "local t = {}\nfor i = 1, 100 do t[i] = string.rep(\"x\", 100000) .. i end\n"
	require.NoError(t, os.WriteFile(filepath.Join(e.home, "config", "hooks.d", "big.lua"), []byte(big), 0o644))
	assert.Regexp(t, regexp.MustCompile(`(?m)^gc 1 @.*, 8 MB goal`), oneShot())
	e.env = append(e.env, "GOGC=100")
	assert.Regexp(t, regexp.MustCompile(`(?m)^gc 1 @.*, 4 MB goal`), oneShot())
}
