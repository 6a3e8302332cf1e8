// End-to-end tests of --export: a session written by a one-shot run is
// exported to HTML by the binary, as a user would.
package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

func TestExportToHTML(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("Use <b>bold</b> and `code`."), llmtest.Usage(10, 5, 0, 0))
	r := e.run("", "-p", "say <hi>")
	require.Equal(t, 0, r.code, r.stderr)
	s := e.onlySession()
	file := e.sessionFiles()[0]
	check := func(t *testing.T, page string) {
		t.Helper()
		assert.True(t, strings.HasPrefix(page, "<!DOCTYPE html>"))
		assert.Contains(t, page, "say &lt;hi&gt;")
		assert.Contains(t, page, "&lt;b&gt;")
		assert.Contains(t, page, "<code>code</code>")
		assert.Contains(t, page, s.ID())
		assert.NotContains(t, page, "sk-test", "no API key in an export")
	}

	t.Run("by id prefix, default name in the working folder", func(t *testing.T) {
		r := e.run("", "--export", s.ID()[:13])
		require.Equal(t, 0, r.code, r.stderr)
		want := filepath.Join(e.cwd, "lunar-session-"+strings.TrimSuffix(filepath.Base(file), ".jsonl")+".html")
		assert.Equal(t, want+"\n", r.stdout)
		page, err := os.ReadFile(want)
		require.NoError(t, err)
		check(t, string(page))
	})
	t.Run("by path, to -o FILE", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "chat.html")
		r := e.run("", "--export", file, "-o", out)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, out+"\n", r.stdout)
		page, err := os.ReadFile(out)
		require.NoError(t, err)
		check(t, string(page))
	})
	t.Run("to stdout", func(t *testing.T) {
		r := e.run("", "--export", s.ID(), "-o", "-")
		require.Equal(t, 0, r.code, r.stderr)
		check(t, r.stdout)
	})
	t.Run("no such session", func(t *testing.T) {
		r := e.run("", "--export", "ffffffff")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "--export")
		assert.Empty(t, r.stdout)
	})
	t.Run("unwritable output", func(t *testing.T) {
		r := e.run("", "--export", s.ID(), "-o", filepath.Join(e.cwd, "missing", "x.html"))
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "export")
	})
	// The session is only read: it is unchanged and not locked.
	after, err := os.ReadFile(file)
	require.NoError(t, err)
	before := s.Entries()
	assert.Equal(t, len(before), strings.Count(string(after), "\n")-1)
	_, err = os.Stat(file + ".lock")
	assert.True(t, os.IsNotExist(err))
}
