package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// TestHookChunkCache runs the same hooks through the binary with a cold
// chunk cache, a warm one, corrupt files, --no-session and a chunks/ that
// cannot be a folder: every run behaves the same (events, requests, load
// errors with their lines), and the cache is only ever a speed-up.
func TestHookChunkCache(t *testing.T) {
	t.Parallel()
	e := newHookE2E(t)
	e.hkGlobal("events.lua", "tag.lua", "warnings.lua", "toplevel_error.lua", "syntax_error.lua")
	chunks := filepath.Join(e.home, "state", "chunks")

	type outcome struct {
		stdout, stderr string
		kinds          []string
		system         string
		tools          []string
	}
	run := func(args ...string) outcome {
		t.Helper()
		e.hkClearLog()
		e.srv.Reply(llmtest.Text("done"))
		r := e.run("", append(args, "-p", "/hello")...)
		require.Equal(t, 0, r.code, r.stderr)
		reqs := e.srv.Requests()
		req := reqs[len(reqs)-1]
		return outcome{r.stdout, r.stderr, hkKinds(e.hkLines()), systemPrompt(t, req), toolNames(t, req)}
	}
	files := func() map[string][]byte {
		t.Helper()
		ents, err := os.ReadDir(chunks)
		require.NoError(t, err)
		out := map[string][]byte{}
		for _, en := range ents {
			data, err := os.ReadFile(filepath.Join(chunks, en.Name()))
			require.NoError(t, err)
			out[en.Name()] = data
		}
		return out
	}

	cold := run()
	assert.Contains(t, cold.stderr, "syntax_error.lua:4: near '=': syntax error")
	assert.Contains(t, cold.stderr, "toplevel_error.lua:5: failed while loading", "runtime errors keep their lines")
	assert.Contains(t, cold.kinds, "app.start")
	assert.Contains(t, cold.system, "[tag][warnings]")
	written := files()
	// The global hooks that compile (not syntax_error.lua), and the
	// bundled ones.
	assert.GreaterOrEqual(t, len(written), 4)

	warm := run()
	assert.Equal(t, cold, warm)
	assert.Equal(t, written, files(), "a warm run rewrites nothing")

	for name := range written {
		require.NoError(t, os.WriteFile(filepath.Join(chunks, name), written[name][:len(written[name])/2], 0o600))
	}
	assert.Equal(t, cold, run(), "truncated files are compiled again")
	assert.Equal(t, written, files(), "and rewritten")

	assert.Equal(t, cold, run("--no-session"))

	require.NoError(t, os.RemoveAll(chunks))
	require.NoError(t, os.WriteFile(chunks, []byte("not a folder"), 0o600))
	assert.Equal(t, cold, run(), "a cache that cannot be written is off, silently")

	// A changed hook is compiled again, not read stale.
	require.NoError(t, os.Remove(chunks))
	run()
	tag := filepath.Join(e.home, "config", "hooks.d", "tag.lua")
	require.NoError(t, os.WriteFile(tag, []byte(`lunar.on("chat.system.transform", function(ev)
  return { system_prompt = ev.system_prompt .. "[tag2]" }
end)`), 0o644))
	changed := run()
	assert.Contains(t, changed.system, "[tag2][warnings]")
	names := slices.Collect(func(yield func(string) bool) {
		for n := range files() {
			if _, ok := written[n]; !ok && !yield(n) {
				return
			}
		}
	})
	slices.Sort(names)
	require.Len(t, names, 2, "two new files: the changed hook's chunk, and the set of the user's hooks (the bundled hooks' set is unchanged)")
	assert.NotContains(t, names[0], "set-")
	assert.True(t, strings.HasPrefix(names[1], "set-"), names[1])
}
