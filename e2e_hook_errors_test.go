// Hook error messages through the binary: however long the message a
// hook raises, lunar keeps its first 8 KiB wherever it becomes text (the
// line on stderr, the tool result the model reads, the session).
package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/stdlib"
)

// error() with a 120 MiB message: cut to 8 KiB, saying how much was cut.
// The message took a one-shot run to a peak of 1.2 GiB as it was copied
// into the report, the trace, the tool result and the session; cut, the
// peak is what Lua itself took to raise it.
func TestHookErrorMessageIsCut(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	// No memory cap: with one, the copies gopher-lua makes of the message
	// (error() prefixes the position) may or may not cross it.
	e.hkConfig(`{"hook_memory_limit_mb": 0}`)
	writeHook(t, filepath.Join(e.home, "config", "hooks.d", "10-loud.lua"), `lunar.on("tool.execute.before", function()
  error(("x"):rep(120 * 2^20))
end)`)
	e.srv.Reply(llmtest.ToolCall("read", `{"path":"a.txt"}`))
	e.srv.Reply(llmtest.Text("done"))
	cmd := e.cmd("", "-p", "go")
	r := e.exec(cmd)
	require.Equal(t, 0, r.code, "%.2000s", r.stderr)
	if rss := peakRSS(cmd.ProcessState); rss > 0 {
		t.Logf("peak RSS %s", stdlib.FormatBytes(rss))
	}
	cut := "x… (" + stdlib.FormatBytes(int64(120<<20+len("10-loud.lua:2: ")-8<<10)) + " more cut)"
	assert.Less(t, len(r.stderr), 32<<10)
	assert.Contains(t, r.stderr, "lunar: hook 10-loud.lua: tool.execute.before: 10-loud.lua:2: xxxx")
	assert.Contains(t, r.stderr, cut+"\n")
	results := toolResults(t, e.onlySession())
	require.Len(t, results, 1)
	assert.True(t, strings.HasPrefix(results[0], "true hook 10-loud.lua: tool.execute.before: 10-loud.lua:2: xxx"), "%.100s", results[0])
	assert.True(t, strings.HasSuffix(results[0], cut), "%.100s", results[0])
	assert.Less(t, len(results[0]), 9<<10)
}
