package main

// Differential tests against pi of choosing and copying session files:
// --fork copies what pi's --fork copies (every entry of the file in file
// order, not only the leaf's path), and -c with --session-dir continues
// the newest session, never a newer .jsonl that is no session. Skipped
// when pi is not installed.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// piFileLines reads a session file's lines.
func piFileLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// onlyFile is the one .jsonl file in dir.
func onlyFile(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	require.Len(t, files, 1, "one session file in %s", dir)
	return files[0]
}

func TestPiForkCopiesEveryEntry(t *testing.T) {
	t.Parallel()
	h := newPiRequests(t)
	var src string
	for _, f := range piSessionFiles(t, h.e.cwd) {
		if strings.HasSuffix(f, "synthesised-openai.jsonl") {
			src = f // a branch left behind, a branch summary, a model change
		}
	}
	require.NotEmpty(t, src)
	srcLines := piFileLines(t, src)
	s, err := session.Load(src)
	require.NoError(t, err)
	require.Less(t, len(s.Path("")), len(s.Entries()), "the file has entries off the leaf's path")

	lunarDir, piDir := t.TempDir(), t.TempDir()
	h.e.srv.Reply(llmtest.Text("the reply"))
	r := h.lunar("--session-dir", lunarDir, "--fork", src, "-p", "next")
	require.Equal(t, 0, r.code, r.stderr)
	h.e.srv.Reply(llmtest.Text("the reply"))
	r = h.pi("--session-dir", piDir, "--fork", src, "-p", "next")
	require.Equal(t, 0, r.code, r.stderr)

	lunarFork, piFork := piFileLines(t, onlyFile(t, lunarDir)), piFileLines(t, onlyFile(t, piDir))
	assert.Equal(t, srcLines, piFileLines(t, src), "the source is untouched")
	for name, lines := range map[string][]string{"lunar": lunarFork, "pi": piFork} {
		var h session.Header
		require.NoError(t, h.UnmarshalJSON([]byte(lines[0])), name)
		assert.Equal(t, src, h.ParentSession, "%s: the fork names its source", name)
		assert.NotEqual(t, s.ID(), h.ID, name)
		require.Greater(t, len(lines), len(srcLines), name)
		assert.Equal(t, srcLines[1:], lines[1:len(srcLines)], "%s: every entry of the source, in file order, as it was", name)
	}
	assert.Equal(t, len(piFork), len(lunarFork), "both appended as many entries")

	reqs := h.e.srv.Requests()
	require.Len(t, reqs, 2)
	_, lmsgs := piWireMessages(t, reqs[0])
	_, pmsgs := piWireMessages(t, reqs[1])
	assert.Equal(t, pmsgs, lmsgs, "the fork continues the same conversation")
}

func TestPiContinueSkipsWhatIsNoSession(t *testing.T) {
	t.Parallel()
	h := newPiRequests(t)
	dir := t.TempDir()
	var src string
	for _, f := range piSessionFiles(t, h.e.cwd) {
		if strings.HasSuffix(f, "texts-openai.jsonl") {
			src = f
		}
	}
	sess := filepath.Join(dir, filepath.Base(src))
	hkCopyFile(t, src, sess)
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(sess, old, old))
	notes := filepath.Join(dir, "notes.jsonl")
	const notesText = "{\"not\":\"a session\"}\nmy own notes\n"
	require.NoError(t, os.WriteFile(notes, []byte(notesText), 0o644))

	for _, run := range []func() result{
		func() result { return h.lunar("--session-dir", dir, "-c", "-p", "next") },
		func() result { return h.pi("--session-dir", dir, "-c", "-p", "next") },
	} {
		before := len(piFileLines(t, sess))
		h.e.srv.Reply(llmtest.Text("the reply"))
		r := run()
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "the reply\n", r.stdout)
		assert.Greater(t, len(piFileLines(t, sess)), before, "the session was continued")
		data, err := os.ReadFile(notes)
		require.NoError(t, err)
		assert.Equal(t, notesText, string(data), "the newer .jsonl that is no session is left alone")
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		assert.ElementsMatch(t, []string{sess, notes}, files, "nothing renamed, backed up or created")
	}
	reqs := h.e.srv.Requests()
	require.Len(t, reqs, 2)
	_, lmsgs := piWireMessages(t, reqs[0])
	_, pmsgs := piWireMessages(t, reqs[1])
	assert.Equal(t, len(pmsgs)-2, len(lmsgs), "pi continued after lunar's turn: two messages more")
	assert.Equal(t, pmsgs[:len(lmsgs)-1], lmsgs[:len(lmsgs)-1])
}
