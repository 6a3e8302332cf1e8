package session

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)

func entryIDs(entries []*Entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.ID)
	}
	return out
}

func TestAppendAdvancesLeaf(t *testing.T) {
	fakeClock(t, t0)
	s := CreateInMemory("/w")
	assert.Equal(t, "", s.LeafID())
	assert.Empty(t, s.Path(""))

	a := mustAppend(t, s, userMsg("one"))
	require.Regexp(t, hex8Re, a)
	assert.Equal(t, a, s.LeafID())
	ea := s.Get(a)
	require.NotNil(t, ea)
	assert.Equal(t, "", ea.ParentID)
	assert.Equal(t, TypeMessage, ea.Type)
	assert.Regexp(t, isoRe, ea.Timestamp)
	assert.Equal(t, "2025-06-01T10:00:01.000Z", ea.Timestamp, "the header took the first tick")

	b, err := s.AppendModelChange("openai", "gpt-5")
	require.NoError(t, err)
	c, err := s.AppendThinkingLevel("high")
	require.NoError(t, err)
	d := mustAppend(t, s, assistantMsg("two"))
	for _, id := range []string{b, c, d} {
		require.Regexp(t, hex8Re, id)
	}
	assert.Equal(t, a, s.Get(b).ParentID)
	assert.Equal(t, b, s.Get(c).ParentID)
	assert.Equal(t, c, s.Get(d).ParentID)
	assert.Equal(t, d, s.LeafID())
	assert.Equal(t, []string{a, b, c, d}, entryIDs(s.Path("")))
	assert.Equal(t, []string{a, b}, entryIDs(s.Path(b)))
	assert.Equal(t, []string{a, b, c, d}, entryIDs(s.Entries()))
	assert.Nil(t, s.Get("nope"))
	assert.Nil(t, s.Path("nope"))

	// The appended entry is encoded at once (Raw) and the message copied.
	m := userMsg("three")
	e := mustAppend(t, s, m)
	m.Content[0].Text = "changed"
	assert.Contains(t, string(s.Get(e).Raw), `"text":"three"`)

	// An explicit timestamp is kept.
	id, err := s.Append(&Entry{Type: TypeCustom, Timestamp: "2020-01-01T00:00:00.000Z", Fields: &EntryFields{CustomType: "x"}})
	require.NoError(t, err)
	assert.Equal(t, "2020-01-01T00:00:00.000Z", s.Get(id).Timestamp)
}

func TestAppendKinds(t *testing.T) {
	s := CreateInMemory("/w")
	a := mustAppend(t, s, userMsg("hi"))
	c, err := s.AppendCustom("state", json.RawMessage(`{"n":1}`))
	require.NoError(t, err)
	cm, err := s.AppendCustomMessage("note", []ContentBlock{{Type: BlockText, Text: "n"}}, true, json.RawMessage(`{"d":1}`))
	require.NoError(t, err)
	comp, err := s.AppendCompaction("sum", a, 500, nil, false)
	require.NoError(t, err)
	assert.Contains(t, string(s.Get(c).Raw), `{"type":"custom","customType":"state","data":{"n":1},"id":"`+c+`","parentId":"`+a+`"`)
	assert.Contains(t, string(s.Get(cm).Raw), `{"type":"custom_message","customType":"note","content":[{"type":"text","text":"n"}],"display":true,"details":{"d":1},"id":"`+cm+`"`)
	assert.Contains(t, string(s.Get(comp).Raw), `"summary":"sum","firstKeptEntryId":"`+a+`","tokensBefore":500,"fromHook":false}`)
	_, err = s.AppendMessage(nil)
	assert.Error(t, err)
}

func TestBranch(t *testing.T) {
	s := CreateInMemory("/w")
	a := mustAppend(t, s, userMsg("a"))
	b := mustAppend(t, s, assistantMsg("b"))
	c := mustAppend(t, s, userMsg("c"))

	require.NoError(t, s.Branch(a))
	assert.Equal(t, a, s.LeafID())
	d := mustAppend(t, s, assistantMsg("d"))
	assert.Equal(t, a, s.Get(d).ParentID)
	assert.Equal(t, []string{a, d}, entryIDs(s.Path("")))
	assert.Equal(t, []string{a, b, c}, entryIDs(s.Path(c)), "the old branch is still there")
	assert.Equal(t, []string{"user:a", "assistant:d"}, texts(s.BuildContext().Messages))

	// "" moves the leaf before the first entry: the next entry is a new root.
	require.NoError(t, s.Branch(""))
	assert.Equal(t, "", s.LeafID())
	assert.Empty(t, s.BuildContext().Messages)
	e := mustAppend(t, s, userMsg("e"))
	assert.Equal(t, "", s.Get(e).ParentID)
	assert.Equal(t, []string{e}, entryIDs(s.Path("")))

	err := s.Branch("nope")
	assert.ErrorContains(t, err, `entry "nope" not found`)
	assert.Equal(t, e, s.LeafID(), "a failed branch leaves the leaf")
}

func TestBranchIsNotPersisted(t *testing.T) {
	dir := t.TempDir()
	s, err := Create(dir, "/w")
	require.NoError(t, err)
	a := mustAppend(t, s, userMsg("a"))
	mustAppend(t, s, assistantMsg("b"))
	last := mustAppend(t, s, userMsg("c"))
	require.NoError(t, s.Branch(a))
	require.NoError(t, s.Close())

	l, err := Load(s.File())
	require.NoError(t, err)
	assert.Equal(t, last, l.LeafID(), "on load the leaf is the last entry in the file")
}

func TestBranchWithSummary(t *testing.T) {
	s := CreateInMemory("/w")
	a := mustAppend(t, s, userMsg("a"))
	b := mustAppend(t, s, assistantMsg("b"))
	mustAppend(t, s, userMsg("c"))

	id, err := s.BranchWithSummary(b, "explored c", json.RawMessage(`{"readFiles":[],"modifiedFiles":["x.go"]}`), false)
	require.NoError(t, err)
	e := s.Get(id)
	assert.Equal(t, TypeBranchSummary, e.Type)
	assert.Equal(t, b, e.ParentID)
	assert.Equal(t, b, e.FromID())
	assert.Equal(t, id, s.LeafID())
	assert.Equal(t, `{"type":"branch_summary","id":"`+id+`","parentId":"`+b+`","timestamp":"`+e.Timestamp+`","fromId":"`+b+`","summary":"explored c","details":{"readFiles":[],"modifiedFiles":["x.go"]},"fromHook":false}`, string(e.Raw))
	ctx := s.BuildContext()
	assert.Equal(t, []string{"user:a", "assistant:b", "branchSummary:explored c"}, texts(ctx.Messages))
	assert.Equal(t, "", ctx.Messages[2].EntryID, "summaries are synthetic")
	assert.Equal(t, b, ctx.Messages[2].Message.FromID())

	// From the root: parentId null, fromId "root".
	root, err := s.BranchWithSummary("", "all of it", nil, true)
	require.NoError(t, err)
	r := s.Get(root)
	assert.Equal(t, "", r.ParentID)
	assert.Equal(t, "root", r.FromID())
	assert.True(t, r.FromHook())
	assert.Contains(t, string(r.Raw), `"parentId":null,`)
	assert.Equal(t, []string{"branchSummary:all of it"}, texts(s.BuildContext().Messages))

	_, err = s.BranchWithSummary("nope", "x", nil, false)
	assert.ErrorContains(t, err, `entry "nope" not found`)
	assert.Equal(t, root, s.LeafID())
	_ = a
}

func TestTreeSortsChildrenAndKeepsOrphans(t *testing.T) {
	lines := []string{testHeader,
		userLine("a0000001", "", "2025-06-01T10:00:01.000Z", "root"),
		userLine("a0000002", "a0000001", "2025-06-01T10:00:05.000Z", "late child"),
		userLine("a0000003", "a0000001", "2025-06-01T10:00:02.000Z", "early child"),
		userLine("a0000004", "a0000001", "2025-06-01T10:00:05.000Z", "late child 2"),
		userLine("a0000005", "missing1", "2025-06-01T10:00:06.000Z", "orphan"),
		userLine("a0000006", "a0000006", "2025-06-01T10:00:07.000Z", "own parent"),
		userLine("a0000007", "a0000005", "2025-06-01T10:00:08.000Z", "orphan's child"),
		`{"type":"label","id":"a0000008","parentId":"a0000007","timestamp":"2025-06-01T10:00:09.000Z","targetId":"a0000003","label":"pick"}`,
	}
	s, err := Load(writeLines(t, lines...))
	require.NoError(t, err)
	roots := s.Tree()
	require.Len(t, roots, 3)
	assert.Equal(t, "a0000001", roots[0].Entry.ID)
	assert.Equal(t, "a0000005", roots[1].Entry.ID)
	assert.Equal(t, "a0000006", roots[2].Entry.ID)
	var kids []string
	for _, c := range roots[0].Children {
		kids = append(kids, c.Entry.ID)
	}
	assert.Equal(t, []string{"a0000003", "a0000002", "a0000004"}, kids, "oldest first; equal timestamps keep file order")
	assert.Equal(t, "pick", roots[0].Children[0].Label)
	require.Len(t, roots[1].Children, 1)
	assert.Equal(t, "a0000007", roots[1].Children[0].Entry.ID)
	assert.Equal(t, "a0000008", roots[1].Children[0].Children[0].Entry.ID)
	assert.Empty(t, roots[2].Children)

	// Paths stop at an orphan, as pi's walk does.
	assert.Equal(t, []string{"a0000005", "a0000007", "a0000008"}, entryIDs(s.Path("")))
	assert.Equal(t, []string{"a0000006"}, entryIDs(s.Path("a0000006")))
}

func TestTreeCycleDoesNotHang(t *testing.T) {
	s, err := Load(writeLines(t, testHeader,
		userLine("a0000001", "a0000002", "2025-06-01T10:00:01.000Z", "x"),
		userLine("a0000002", "a0000001", "2025-06-01T10:00:02.000Z", "y"),
	))
	require.NoError(t, err)
	assert.Empty(t, s.Tree(), "a cycle has no root")
	assert.LessOrEqual(t, len(s.Path("")), 2)
	s.BuildContext()
}

func TestLabels(t *testing.T) {
	dir := t.TempDir()
	s, err := Create(dir, "/w")
	require.NoError(t, err)
	a := mustAppend(t, s, userMsg("a"))
	b := mustAppend(t, s, assistantMsg("b"))

	l1, err := s.SetLabel(a, "first")
	require.NoError(t, err)
	assert.Equal(t, l1, s.LeafID(), "a label entry advances the leaf")
	assert.Equal(t, b, s.Get(l1).ParentID)
	assert.Equal(t, "first", s.Label(a))
	_, err = s.SetLabel(a, "second")
	require.NoError(t, err)
	assert.Equal(t, "second", s.Label(a), "the latest label wins")
	_, err = s.SetLabel(b, "bee")
	require.NoError(t, err)
	clear, err := s.SetLabel(b, "")
	require.NoError(t, err)
	assert.Equal(t, "", s.Label(b), "an empty label clears")
	assert.NotContains(t, string(s.Get(clear).Raw), `"label":`)
	assert.Equal(t, "", s.Label("nope"))

	_, err = s.SetLabel("nope", "x")
	assert.ErrorContains(t, err, `entry "nope" not found`)

	// Labels are not context.
	assert.Equal(t, []string{"user:a", "assistant:b"}, texts(s.BuildContext().Messages))
	require.NoError(t, s.Close())

	l, err := Load(s.File())
	require.NoError(t, err)
	assert.Equal(t, "second", l.Label(a))
	assert.Equal(t, "", l.Label(b))
}

func TestSessionName(t *testing.T) {
	dir := t.TempDir()
	s, err := Create(dir, "/w")
	require.NoError(t, err)
	assert.Equal(t, "", s.Name())
	mustAppend(t, s, assistantMsg("hello"))
	id, err := s.SetName("  Fix the\nparser \r\n ")
	require.NoError(t, err)
	assert.Equal(t, "Fix the parser", s.Name())
	assert.Contains(t, string(s.Get(id).Raw), `,"name":"Fix the parser"}`)
	_, err = s.SetName("Second")
	require.NoError(t, err)
	assert.Equal(t, "Second", s.Name(), "the latest name wins")
	require.NoError(t, s.Sync())

	l, err := Load(s.File())
	require.NoError(t, err)
	assert.Equal(t, "Second", l.Name())

	_, err = s.SetName("   ")
	require.NoError(t, err)
	assert.Equal(t, "", s.Name(), "an empty name clears")
	require.NoError(t, s.Close())
	l, err = Load(s.File())
	require.NoError(t, err)
	assert.Equal(t, "", l.Name())
}

// forkSource is a session file with labels in the middle of the path, a
// cleared label, a label on another branch and an entry with a field
// lunar does not know.
var forkSource = []string{testHeader,
	userLine("10000001", "", "2025-06-01T10:00:01.000Z", "one"),
	`{"type":"message","id":"10000002","parentId":"10000001","timestamp":"2025-06-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"two"}],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}}`,
	`{"type":"label","id":"10000003","parentId":"10000002","timestamp":"2025-06-01T10:00:03.000Z","targetId":"10000001","label":"start"}`,
	`{"type":"message","id":"10000004","parentId":"10000003","timestamp":"2025-06-01T10:00:04.000Z","message":{"role":"user","content":"three","timestamp":4},"zExtra":{"b":1,"a":[2.50]}}`,
	`{"type":"label","id":"10000005","parentId":"10000004","timestamp":"2025-06-01T10:00:05.000Z","targetId":"10000002","label":"x"}`,
	`{"type":"label","id":"10000006","parentId":"10000005","timestamp":"2025-06-01T10:00:06.000Z","targetId":"10000002","label":"y"}`,
	`{"type":"label","id":"10000007","parentId":"10000006","timestamp":"2025-06-01T10:00:07.000Z","targetId":"10000004","label":"gone"}`,
	`{"type":"label","id":"10000008","parentId":"10000007","timestamp":"2025-06-01T10:00:08.000Z","targetId":"10000004"}`,
	userLine("10000009", "10000002", "2025-06-01T10:00:09.000Z", "other branch"),
	`{"type":"label","id":"1000000a","parentId":"10000009","timestamp":"2025-06-01T10:00:10.000Z","targetId":"10000009","label":"off"}`,
	`{"type":"message","id":"1000000b","parentId":"10000008","timestamp":"2025-06-01T10:00:11.000Z","message":{"role":"assistant","content":[{"type":"text","text":"four"}],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":11}}`,
}

func TestFork(t *testing.T) {
	fakeClock(t, time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC))
	src := writeLines(t, forkSource...)
	s, err := Open(src)
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, "1000000b", s.LeafID())

	dir := filepath.Join(t.TempDir(), "forks")
	f, err := s.Fork("", dir)
	require.NoError(t, err)
	h := f.Header()
	assert.Equal(t, src, h.ParentSession)
	assert.Equal(t, "/w", h.Cwd)
	assert.Regexp(t, uuidv7Re, h.ID)
	assert.NotEqual(t, s.ID(), h.ID)
	assert.Equal(t, filepath.Join(dir, "2025-07-01T00-00-00-000Z_"+h.ID+".jsonl"), f.File())

	// Written at once and locked.
	_, err = Open(f.File())
	require.ErrorIs(t, err, ErrLocked)
	lines := fileLines(t, f.File())
	require.Len(t, lines, 7)
	assert.Equal(t, `{"type":"session","version":3,"id":"`+h.ID+`","timestamp":"2025-07-01T00:00:00.000Z","cwd":"/w","parentSession":"`+src+`"}`, lines[0])
	assert.Equal(t, forkSource[1], lines[1])
	assert.Equal(t, forkSource[2], lines[2])
	// Entries after a left-out label are re-chained; everything else in
	// the line (unknown fields, their order and number forms as
	// JSON.stringify writes them) stays.
	assert.Equal(t, `{"type":"message","id":"10000004","parentId":"10000002","timestamp":"2025-06-01T10:00:04.000Z","message":{"role":"user","content":"three","timestamp":4},"zExtra":{"b":1,"a":[2.5]}}`, lines[3])
	assert.Equal(t, strings.Replace(forkSource[11], `"parentId":"10000008"`, `"parentId":"10000004"`, 1), lines[4])
	// Labels of path entries are re-created after the path, in the order
	// pi's label map has them, with their original timestamps.
	l1 := decodeStrict(t, lines[5])
	l2 := decodeStrict(t, lines[6])
	assert.Equal(t, `{"type":"label","id":"`+l1.ID+`","parentId":"1000000b","timestamp":"2025-06-01T10:00:03.000Z","targetId":"10000001","label":"start"}`, lines[5])
	assert.Equal(t, `{"type":"label","id":"`+l2.ID+`","parentId":"`+l1.ID+`","timestamp":"2025-06-01T10:00:06.000Z","targetId":"10000002","label":"y"}`, lines[6])
	assert.Regexp(t, hex8Re, l1.ID)

	assert.Equal(t, l2.ID, f.LeafID())
	assert.Equal(t, "start", f.Label("10000001"))
	assert.Equal(t, "y", f.Label("10000002"))
	assert.Equal(t, "", f.Label("10000009"))
	assert.Equal(t, []string{"user:one", "assistant:two", "user:three", "assistant:four"}, texts(f.BuildContext().Messages))

	// The fork accepts appends and is a normal session.
	next := mustAppend(t, f, userMsg("five"))
	assert.Equal(t, l2.ID, f.Get(next).ParentID)
	require.NoError(t, f.Close())
	re, err := Load(f.File())
	require.NoError(t, err)
	assert.Equal(t, next, re.LeafID())
	assert.Empty(t, re.Warnings())

	// The source is untouched.
	assert.Equal(t, forkSource, fileLines(t, src))
}

func TestForkAtEntryAndInMemory(t *testing.T) {
	src := writeLines(t, forkSource...)
	s, err := Load(src)
	require.NoError(t, err)

	f, err := s.Fork("10000002", "")
	require.NoError(t, err)
	assert.Equal(t, "", f.File(), "no folder: an in-memory fork")
	assert.Equal(t, src, f.Header().ParentSession)
	path := f.Path("")
	require.Len(t, path, 4)
	assert.Equal(t, []string{"10000001", "10000002"}, entryIDs(path[:2]))
	assert.Equal(t, "10000001", path[2].TargetID())
	assert.Equal(t, "10000002", path[3].TargetID())

	_, err = s.Fork("nope", "")
	assert.ErrorContains(t, err, `entry "nope" not found`)
	empty := CreateInMemory("/w")
	_, err = empty.Fork("", "")
	assert.ErrorContains(t, err, "no entries")

	// An in-memory session forks without a parentSession.
	m := CreateInMemory("/w")
	mustAppend(t, m, userMsg("x"))
	mf, err := m.Fork("", t.TempDir())
	require.NoError(t, err)
	defer mf.Close()
	assert.Equal(t, "", mf.Header().ParentSession)
	_, err = os.Stat(mf.File())
	assert.NoError(t, err, "a fork into a folder is written at once")
}

func TestClosedAndReadOnly(t *testing.T) {
	s, err := Load(writeLines(t, forkSource...))
	require.NoError(t, err)
	_, err = s.AppendMessage(userMsg("x"))
	assert.ErrorIs(t, err, ErrReadOnly)
	_, err = s.BranchWithSummary("", "x", nil, false)
	assert.ErrorIs(t, err, ErrReadOnly)
	require.NoError(t, s.Branch("10000001"), "moving the leaf works read-only")
	require.NoError(t, s.Persist())

	m := CreateInMemory("/w")
	require.NoError(t, m.Close())
	require.NoError(t, m.Close(), "closing twice is harmless")
	_, err = m.AppendMessage(userMsg("x"))
	assert.True(t, errors.Is(err, ErrClosed))
	assert.ErrorIs(t, m.Sync(), ErrClosed)
	assert.ErrorIs(t, m.Persist(), ErrClosed)
}
