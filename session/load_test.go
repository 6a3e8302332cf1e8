package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGoldenAppend loads a pi file, appends one entry of every kind and
// checks that every earlier byte is unchanged and that the new lines
// decode back to what was appended.
func TestGoldenAppend(t *testing.T) {
	path := copyFixture(t, "pi-v3.jsonl")
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	s, err := Open(path)
	require.NoError(t, err)
	leaf := s.LeafID()
	exit := 0
	var added []string
	add := func(id string, err error) {
		t.Helper()
		require.NoError(t, err)
		added = append(added, id)
	}
	add(s.AppendMessage(userMsg("<b>naïve</b> & \u2028 \"q\"")))
	add(s.AppendMessage(assistantMsg("answer")))
	add(s.AppendMessage(&Message{Role: RoleToolResult, ToolCallID: "c1", ToolName: "read", Content: []ContentBlock{{Type: BlockText, Text: "x"}}, Timestamp: 3}))
	add(s.AppendMessage(&Message{Role: RoleBashExecution, Timestamp: 4, Extra: &MessageExtra{Command: "ls", Output: "a", ExitCode: &exit}}))
	add(s.AppendMessage(&Message{Role: RoleCustom, Content: []ContentBlock{{Type: BlockText, Text: "c"}}, Timestamp: 5, Extra: &MessageExtra{CustomType: "k", Display: true}}))
	add(s.AppendCustom("state", json.RawMessage(`{"b":2,"a":1}`)))
	add(s.AppendCustomMessage("note", []ContentBlock{{Type: BlockText, Text: "n"}}, false, nil))
	add(s.AppendModelChange("openai", "gpt-5"))
	add(s.AppendThinkingLevel("high"))
	add(s.AppendCompaction("sum", added[1], 42, json.RawMessage(`{"readFiles":[]}`), false))
	add(s.SetLabel(added[0], "first"))
	add(s.SetName("golden"))
	add(s.BranchWithSummary(leaf, "went elsewhere", nil, false))
	require.NoError(t, s.Close())

	after, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(after, before), "every earlier byte is identical")
	newLines := strings.Split(strings.TrimSuffix(string(after[len(before):]), "\n"), "\n")
	require.Len(t, newLines, len(added))
	assert.Contains(t, newLines[0], "\"text\":\"<b>naïve</b> & \u2028 \\\"q\\\"\"", "written as JSON.stringify writes it")

	l, err := Load(path)
	require.NoError(t, err)
	assert.Equal(t, []string{`session has entries of unknown types: "stack_pop" (kept in the file, skipped in the context)`}, l.Warnings())
	all := l.Entries()
	require.Len(t, all, 24+len(added))
	for i, id := range added {
		e := all[24+i]
		assert.Equal(t, id, e.ID)
		assert.Equal(t, newLines[i], string(e.line()))
		// Each new line is in pi's byte form: re-encoding the decoded
		// fields gives the same bytes.
		d := decodeStrict(t, newLines[i])
		d.Raw = nil
		assert.Equal(t, newLines[i], encode(t, d), "line %d", i)
	}
	assert.Equal(t, leaf, l.Get(added[0]).ParentID)
	assert.Equal(t, "first", l.Label(added[0]))
	assert.Equal(t, "golden", l.Name())
	assert.Equal(t, added[len(added)-1], l.LeafID())
	assert.Equal(t, leaf, l.Get(added[len(added)-1]).ParentID)
}

func TestTornLastLine(t *testing.T) {
	l1 := userLine("a0000001", "", "2025-06-01T10:00:01.000Z", "one")
	l2 := userLine("a0000002", "a0000001", "2025-06-01T10:00:02.000Z", "two")
	l3 := userLine("a0000003", "a0000002", "2025-06-01T10:00:03.000Z", "three")
	path := filepath.Join(t.TempDir(), "s.jsonl")
	torn := testHeader + "\n" + l1 + "\n" + l2 + "\n" + l3[:40]
	require.NoError(t, os.WriteFile(path, []byte(torn), 0o600))

	s, err := Open(path)
	require.NoError(t, err)
	assert.Equal(t, []string{path + " line 4: incomplete last line skipped (the write was interrupted); new entries start on a fresh line"}, s.Warnings())
	assert.Len(t, s.Entries(), 2)
	assert.Equal(t, "a0000002", s.LeafID())
	id := mustAppend(t, s, userMsg("after the crash"))
	require.NoError(t, s.Close())

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, torn+"\n"+string(s.Get(id).Raw)+"\n", string(data), "the new entry starts on a fresh line")

	l, err := Load(path)
	require.NoError(t, err)
	assert.Equal(t, id, l.LeafID())
	assert.Equal(t, "a0000002", l.Get(id).ParentID)
	require.Len(t, l.Warnings(), 1)
	assert.True(t, strings.HasPrefix(l.Warnings()[0], path+" line 4: malformed line skipped: invalid JSON"), l.Warnings()[0])
}

func TestCompleteLastLineWithoutNewline(t *testing.T) {
	l1 := userLine("a0000001", "", "2025-06-01T10:00:01.000Z", "one")
	path := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(testHeader+"\n"+l1), 0o600))
	s, err := Open(path)
	require.NoError(t, err)
	assert.Empty(t, s.Warnings())
	assert.Equal(t, "a0000001", s.LeafID())
	id := mustAppend(t, s, userMsg("two"))
	require.NoError(t, s.Close())
	assert.Equal(t, []string{testHeader, l1, string(s.Get(id).Raw)}, fileLines(t, path))
}

func TestMalformedLinesAreSkipped(t *testing.T) {
	path := writeLines(t,
		testHeader,
		userLine("a0000001", "", "2025-06-01T10:00:01.000Z", "one"),
		`{"type":"message","id":"a0000002",`,
		``,
		`   `,
		`[1,2,3]`,
		`{"type":"message","parentId":"a0000001","timestamp":"2025-06-01T10:00:03.000Z","message":{"role":"user","content":"no id","timestamp":1}}`,
		// A known key holding the wrong type is ignored, as pi does not
		// validate what it loads.
		`{"type":"message","id":"a0000004","parentId":"a0000001","timestamp":5,"message":{"role":"user","content":"odd","timestamp":"yesterday"}}`,
		userLine("a0000005", "a0000004", "2025-06-01T10:00:05.000Z", "five"),
		userLine("a0000005", "a0000001", "2025-06-01T10:00:06.000Z", "five again"),
	)
	s, err := Open(path)
	require.NoError(t, err)
	defer s.Close()
	w := s.Warnings()
	require.Len(t, w, 4)
	assert.True(t, strings.HasPrefix(w[0], path+" line 3: malformed line skipped: invalid JSON at offset"), w[0])
	assert.Equal(t, path+" line 6: not a JSON object, skipped", w[1])
	assert.Equal(t, path+` line 7: "message" entry without an id ignored`, w[2])
	assert.Equal(t, `duplicate entry id "a0000005" (entries 3 and 4); lookups find the later one`, w[3])

	require.Len(t, s.Entries(), 4)
	odd := s.Get("a0000004")
	assert.Equal(t, "", odd.Timestamp)
	assert.Equal(t, "odd", odd.Message.Text())
	assert.Equal(t, int64(0), odd.Message.Timestamp)
	assert.Equal(t, "five again", s.Get("a0000005").Message.Text(), "a later duplicate wins")
	assert.Equal(t, []string{"user:one", "user:five again"}, texts(s.BuildContext().Messages))
}

// A file that is no session is refused and left exactly as it was: no
// rewrite, no backup, no lock file (pi resets such a file; lunar will not
// write into what may be the user's own file given by mistake).
func TestBadHeaderIsRefused(t *testing.T) {
	noHeader := []string{userLine("a0000001", "", "2025-06-01T10:00:01.000Z", "one")}
	cases := []struct {
		name  string
		lines []string
	}{
		{"no header", noHeader},
		{"id not a string", []string{`{"type":"session","version":3,"id":7,"timestamp":"t","cwd":"/"}`, noHeader[0]}},
		{"wrong type", []string{`{"type":"sesion","version":3,"id":"x","timestamp":"t","cwd":"/"}`}},
		{"garbage only", []string{`not json`}},
		{"text file", []string{"# Notes", "", "Some text the user wrote.", "42", "- [ ] more"}},
		{"other JSON lines", []string{`{"level":"info","msg":"started"}`, testHeader}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeLines(t, c.lines...)
			orig, err := os.ReadFile(path)
			require.NoError(t, err)
			before, err := os.Stat(path)
			require.NoError(t, err)

			_, err = Load(path)
			require.ErrorIs(t, err, ErrNoHeader)
			assert.Contains(t, err.Error(), path)

			s, err := Open(path)
			require.ErrorIs(t, err, ErrNoHeader)
			assert.Nil(t, s)
			assert.Equal(t, "open session "+path+": not a session file: first line is not a session header (the file is left as it is)", err.Error())

			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, orig, after, "the file is not rewritten")
			st, err := os.Stat(path)
			require.NoError(t, err)
			assert.True(t, os.SameFile(before, st), "the file is not replaced")
			assert.Equal(t, before.ModTime(), st.ModTime())
			names, err := os.ReadDir(filepath.Dir(path))
			require.NoError(t, err)
			require.Len(t, names, 1, "no backup, lock or temp file beside it")
		})
	}
}

func TestEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	_, err := Load(path)
	require.ErrorIs(t, err, ErrNoHeader)
	s, err := Open(path)
	require.NoError(t, err)
	defer s.Close()
	assert.Len(t, fileLines(t, path), 1)
	_, err = os.Stat(path + ".corrupt.bak")
	assert.True(t, errors.Is(err, os.ErrNotExist), "nothing to back up")
}

func TestHeaderAfterMalformedLine(t *testing.T) {
	// pi skips lines that do not parse before looking at the first entry.
	path := writeLines(t, `{"type":"sess`, testHeader, userLine("a0000001", "", "2025-06-01T10:00:01.000Z", "one"))
	s, err := Load(path)
	require.NoError(t, err)
	assert.Equal(t, "0197a3c4-5e6f-7a8b-9c0d-1e2f3a4b5c6d", s.ID())
	assert.Len(t, s.Entries(), 1)
	require.Len(t, s.Warnings(), 1)
	assert.Contains(t, s.Warnings()[0], path+" line 1: malformed line skipped")
}

func TestNewerVersionWarns(t *testing.T) {
	path := writeLines(t, `{"type":"session","version":4,"id":"x","timestamp":"2025-06-01T10:00:00.000Z","cwd":"/"}`,
		userLine("a0000001", "", "2025-06-01T10:00:01.000Z", "one"))
	s, err := Load(path)
	require.NoError(t, err)
	assert.Equal(t, []string{path + ": session format version 4 is newer than 3; unknown parts are kept as they are"}, s.Warnings())
	assert.Len(t, s.Entries(), 1)
}

func TestOpenMissingFile(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "nope.jsonl"))
	require.ErrorIs(t, err, os.ErrNotExist)
	assert.Contains(t, err.Error(), "nope.jsonl")
	_, err = Load(filepath.Join(t.TempDir(), "nope.jsonl"))
	require.ErrorIs(t, err, os.ErrNotExist)
}
