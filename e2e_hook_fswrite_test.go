package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// TestHookFsWriteRefusesHardLinks: a hard link in the working folder to
// a file outside the write roots does not lead fs.write there (os.Root
// sees only the name); writing through it is refused and the file
// outside keeps its content, while a fresh file and a file of one link
// are written (issue 20, item 11).
func TestHookFsWriteRefusesHardLinks(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	outside := filepath.Join(t.TempDir(), "outside.txt")
	require.NoError(t, os.WriteFile(outside, []byte("keep me"), 0o644))
	if err := os.Link(outside, filepath.Join(e.cwd, "link.txt")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	writeFile(t, filepath.Join(e.cwd, "own.txt"), "old")
	hook := filepath.Join(t.TempDir(), "w.lua")
	writeFile(t, hook, `local fs = require("fs")
local report = {}
for _, name in ipairs({"link.txt", "own.txt", "fresh.txt"}) do
  local ok, err = fs.write(name, "written")
  report[#report + 1] = name .. "=" .. tostring(ok or err)
end
local ok, err = fs.write("link.txt", "appended", {append = true})
report[#report + 1] = "append=" .. tostring(ok or err)
fs.write("report.txt", table.concat(report, "\n"))`)
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "--no-session", "--hook", hook, "-p", "hi")
	require.Equal(t, 0, r.code, r.stderr)

	data, err := os.ReadFile(outside)
	require.NoError(t, err)
	assert.Equal(t, "keep me", string(data), "the file outside the roots is untouched")
	report, err := os.ReadFile(filepath.Join(e.cwd, "report.txt"))
	require.NoError(t, err, r.stderr)
	assert.Regexp(t, `^link.txt=link.txt: the file has 2 hard links: fs.write does not write through them`, string(report))
	assert.Contains(t, string(report), "\nown.txt=true\nfresh.txt=true\nappend=link.txt: the file has 2 hard links")
	for name, want := range map[string]string{"own.txt": "written", "fresh.txt": "written"} {
		got, err := os.ReadFile(filepath.Join(e.cwd, name))
		require.NoError(t, err)
		assert.Equal(t, want, string(got), name)
	}
}
