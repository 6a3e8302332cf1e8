package session

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// putSession writes a session file into dir with the given id, lines
// after the header and modification time.
func putSession(t *testing.T, dir, id string, mtime time.Time, lines ...string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	header := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2025-06-01T10:00:00.000Z","cwd":"/home/ana/x"}`
	path := filepath.Join(dir, fileName("2025-06-01T10:00:00.000Z", id))
	data := header + "\n"
	for _, l := range lines {
		data += l + "\n"
	}
	require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
	require.NoError(t, os.Chtimes(path, mtime, mtime))
	return path
}

func TestList(t *testing.T) {
	root := t.TempDir()
	dir := Dir(root, "/home/ana/x")
	now := time.Now().Truncate(time.Second)
	old := putSession(t, dir, "01970000-0000-7000-8000-000000000001", now.Add(-2*time.Hour),
		`{"type":"message","id":"a0000001","parentId":null,"timestamp":"2025-06-01T10:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"not a user"}],"timestamp":1}}`,
		`{"type":"message","id":"a0000002","parentId":"a0000001","timestamp":"2025-06-01T10:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":"first"},{"type":"image","data":"x","mimeType":"image/png"},{"type":"text","text":"question"}],"timestamp":2}}`,
		`{"type":"message","id":"a0000003","parentId":"a0000002","timestamp":"2025-06-01T10:00:03.000Z","message":{"role":"user","content":"second","timestamp":3}}`,
	)
	named := putSession(t, dir, "01970000-0000-7000-8000-000000000002", now.Add(-time.Minute),
		`{"type":"message","id":"a0000001","parentId":null,"timestamp":"2025-06-01T10:00:01.000Z","message":{"role":"user","content":"string content","timestamp":1}}`,
		`{"type":"session_info","id":"a0000002","parentId":"a0000001","timestamp":"2025-06-01T10:00:02.000Z","name":"old name"}`,
		`{"type":"session_info","id":"a0000003","parentId":"a0000002","timestamp":"2025-06-01T10:00:03.000Z","name":" new name "}`,
		`not json`,
	)
	empty := putSession(t, dir, "01970000-0000-7000-8000-000000000003", now.Add(-time.Hour))
	// Not sessions: a bad header, another extension, a folder.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "junk.jsonl"), []byte(`{"type":"message"}`+"\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o600))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub.jsonl"), 0o755))
	// Another project's session is not listed for this cwd.
	putSession(t, Dir(root, "/elsewhere"), "01970000-0000-7000-8000-000000000004", now)

	infos, err := List(root, "/home/ana/x")
	require.NoError(t, err)
	require.Len(t, infos, 3)
	assert.Equal(t, []string{named, empty, old}, []string{infos[0].Path, infos[1].Path, infos[2].Path}, "newest first")

	assert.Equal(t, Info{Path: named, ID: "01970000-0000-7000-8000-000000000002", Cwd: "/home/ana/x", Name: "new name",
		FirstMessage: "string content", Modified: now.Add(-time.Minute), MessageCount: 1}, normalize(infos[0]))
	assert.Equal(t, "first question", infos[2].FirstMessage, "text blocks joined with spaces; the first user message")
	assert.Equal(t, 3, infos[2].MessageCount)
	assert.Equal(t, "", infos[1].FirstMessage)
	assert.Equal(t, 0, infos[1].MessageCount)

	none, err := List(root, "/never/used")
	require.NoError(t, err)
	assert.Empty(t, none)

	all, err := ListAll(root)
	require.NoError(t, err)
	require.Len(t, all, 4)
	assert.Equal(t, "01970000-0000-7000-8000-000000000004", all[0].ID)
	missing, err := ListAll(filepath.Join(root, "missing"))
	require.NoError(t, err)
	assert.Empty(t, missing)
}

// normalize drops the monotonic clock reading so Infos compare equal.
func normalize(in Info) Info {
	in.Modified = in.Modified.Round(0)
	return in
}

func TestListForkAndRealSession(t *testing.T) {
	root := t.TempDir()
	dir := Dir(root, "/w")
	s, err := Create(dir, "/w")
	require.NoError(t, err)
	mustAppend(t, s, userMsg("hello there"))
	mustAppend(t, s, assistantMsg("hi"))
	_, err = s.SetName("greeting")
	require.NoError(t, err)
	f, err := s.Fork("", dir)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, s.Close())
	later := time.Now().Add(time.Minute)
	require.NoError(t, os.Chtimes(f.File(), later, later))

	infos, err := List(root, "/w")
	require.NoError(t, err)
	require.Len(t, infos, 2)
	assert.Equal(t, f.File(), infos[0].Path)
	assert.Equal(t, s.File(), infos[0].ParentSession)
	assert.Equal(t, "hello there", infos[0].FirstMessage)
	assert.Equal(t, "greeting", infos[1].Name)
	assert.Equal(t, s.ID(), infos[1].ID)
}

func TestMostRecent(t *testing.T) {
	root := t.TempDir()
	dir := Dir(root, "/w")
	got, err := MostRecent(root, "/w")
	require.NoError(t, err)
	assert.Equal(t, "", got, "no folder, no session")

	now := time.Now()
	putSession(t, dir, "01970000-0000-7000-8000-000000000001", now.Add(-time.Hour))
	newest := putSession(t, dir, "01970000-0000-7000-8000-000000000002", now.Add(-time.Minute))
	putSession(t, dir, "01970000-0000-7000-8000-000000000003", now.Add(-2*time.Hour))
	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte("garbage\n"), 0o600))
	got, err = MostRecent(root, "/w")
	require.NoError(t, err)
	assert.Equal(t, newest, got, "files that are not sessions are skipped even when newer")
}

func TestFind(t *testing.T) {
	root := t.TempDir()
	own := Dir(root, "/w")
	other := Dir(root, "/other")
	now := time.Now()
	a := putSession(t, own, "0197aaaa-0000-7000-8000-000000000001", now)
	b := putSession(t, own, "0197aaab-0000-7000-8000-000000000002", now)
	c := putSession(t, other, "0197cccc-0000-7000-8000-000000000003", now)
	d := putSession(t, other, "0197aaaa-9999-7000-8000-000000000004", now)
	e := putSession(t, Dir(root, "/third"), "0197cccd-0000-7000-8000-000000000005", now)

	got, err := Find(root, "/w", "0197aaab")
	require.NoError(t, err)
	assert.Equal(t, b, got)

	// The cwd's folder first: its single match wins over other folders.
	got, err = Find(root, "/w", "0197aaaa")
	require.NoError(t, err)
	assert.Equal(t, a, got)

	// Then every other folder.
	got, err = Find(root, "/w", "0197cccc")
	require.NoError(t, err)
	assert.Equal(t, c, got)
	got, err = Find(root, "/w", "0197aaaa-9999-7000-8000-000000000004")
	require.NoError(t, err)
	assert.Equal(t, d, got)

	// Ambiguous prefixes are errors that list the candidates.
	_, err = Find(root, "/w", "0197aaa")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `session id "0197aaa" is ambiguous; it matches:`)
	assert.Contains(t, err.Error(), a)
	assert.Contains(t, err.Error(), b)
	_, err = Find(root, "/nowhere", "0197ccc")
	require.Error(t, err)
	assert.Contains(t, err.Error(), c)
	assert.Contains(t, err.Error(), e)

	_, err = Find(root, "/w", "ffff")
	require.ErrorIs(t, err, ErrNotFound)
	assert.Contains(t, err.Error(), `"ffff"`)
	_, err = Find(root, "/w", "")
	require.Error(t, err)
	_, err = Find(filepath.Join(root, "missing"), "/w", "0197")
	assert.True(t, errors.Is(err, ErrNotFound))
}
