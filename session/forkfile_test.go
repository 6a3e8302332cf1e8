package session

// Tests of what resuming and --fork need from a session: ForkFile (pi's
// --fork), PathSettings and ConvertContextToLLM.

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestForkFileCopiesEveryEntry(t *testing.T) {
	fakeClock(t, time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC))
	src := writeLines(t, forkSource...)
	dir := filepath.Join(t.TempDir(), "forks")
	f, err := ForkFile(src, dir, "/elsewhere")
	require.NoError(t, err)
	h := f.Header()
	assert.Equal(t, src, h.ParentSession)
	assert.Equal(t, "/elsewhere", h.Cwd, "the fork belongs to the folder it was made in, as pi's")
	assert.Regexp(t, uuidv7Re, h.ID)
	assert.Equal(t, filepath.Join(dir, "2025-07-01T00-00-00-000Z_"+h.ID+".jsonl"), f.File())
	_, err = Open(f.File())
	require.ErrorIs(t, err, ErrLocked, "written at once and locked")

	// Every entry, in file order: other branches and labels too. The one
	// line not written as JSON.stringify writes it is normalised.
	lines := fileLines(t, f.File())
	require.Len(t, lines, len(forkSource))
	assert.Equal(t, `{"type":"session","version":3,"id":"`+h.ID+`","timestamp":"2025-07-01T00:00:00.000Z","cwd":"/elsewhere","parentSession":"`+src+`"}`, lines[0])
	for i := 1; i < len(forkSource); i++ {
		want := forkSource[i]
		if i == 4 {
			want = strings.Replace(want, "[2.50]", "[2.5]", 1)
		}
		assert.Equal(t, want, lines[i], "line %d", i+1)
	}
	assert.Equal(t, "1000000b", f.LeafID(), "the leaf is the last entry")
	assert.Equal(t, "y", f.Label("10000002"))
	assert.Equal(t, "off", f.Label("10000009"), "labels off the path come along")
	assert.Equal(t, []string{"user:one", "assistant:two", "user:three", "assistant:four"}, texts(f.BuildContext().Messages))

	next := mustAppend(t, f, userMsg("five"))
	require.NoError(t, f.Close())
	re, err := Load(f.File())
	require.NoError(t, err)
	assert.Equal(t, next, re.LeafID())
	assert.Empty(t, re.Warnings())
	assert.Equal(t, forkSource, fileLines(t, src), "the source is untouched")
}

func TestForkFileRefusesWhatIsNoSession(t *testing.T) {
	notes := writeLines(t, `{"a":1}`, "plain text")
	_, err := ForkFile(notes, t.TempDir(), "/w")
	require.ErrorIs(t, err, ErrNoHeader)
	_, err = ForkFile(writeLines(t, testHeader), t.TempDir(), "/w")
	assert.ErrorContains(t, err, "no entries")
	f, err := ForkFile(writeLines(t, forkSource...), "", "/w")
	require.NoError(t, err)
	assert.Equal(t, "", f.File(), "no folder: an in-memory fork")
}

func TestPathSettings(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  PathSettings
	}{
		{"nothing", []string{testHeader}, PathSettings{ThinkingLevel: "off"}},
		{"messages, no level", forkSource, PathSettings{ThinkingLevel: "off", Provider: "p", ModelID: "m", HasMessages: true}},
		{"a level and a model, no messages", []string{testHeader,
			`{"type":"model_change","id":"a1","parentId":null,"timestamp":"2025-06-01T10:00:01.000Z","provider":"x","modelId":"y"}`,
			`{"type":"thinking_level_change","id":"a2","parentId":"a1","timestamp":"2025-06-01T10:00:02.000Z","thinkingLevel":"high"}`},
			PathSettings{ThinkingLevel: "high", ThinkingLevelSet: true, Provider: "x", ModelID: "y"}},
		{"a custom message is a message", []string{testHeader,
			`{"type":"custom_message","customType":"n","content":"","display":true,"id":"a1","parentId":null,"timestamp":"2025-06-01T10:00:01.000Z"}`},
			PathSettings{ThinkingLevel: "off", HasMessages: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Load(writeLines(t, tc.lines...))
			require.NoError(t, err)
			assert.Equal(t, tc.want, s.PathSettings())
			c := s.BuildContext()
			assert.Equal(t, c.ThinkingLevel, tc.want.ThinkingLevel, "as BuildContext says")
			assert.Equal(t, c.Provider, tc.want.Provider)
			assert.Equal(t, len(c.Messages) > 0, tc.want.HasMessages)
		})
	}
}

func TestConvertContextToLLM(t *testing.T) {
	code := 2
	msgs := []ContextMessage{
		{EntryID: "a", Message: *userMsg("q")},
		{Message: Message{Role: RoleBashExecution, Extra: &MessageExtra{Command: "ls", Output: "x", ExitCode: &code}}},
		{Message: Message{Role: RoleBashExecution, Extra: &MessageExtra{Command: "secret", ExcludeFromContext: true}}},
		{Message: Message{Role: RoleCompactionSummary, Extra: &MessageExtra{Summary: "s"}}},
		{EntryID: "b", Message: *assistantMsg("a")},
	}
	plain := make([]Message, len(msgs))
	for i := range msgs {
		plain[i] = msgs[i].Message
	}
	assert.Equal(t, ConvertToLLM(plain), ConvertContextToLLM(msgs))
}

// LLMContext gives what converting the built context gives, sharing the
// stored messages instead of copying them.
func TestLLMContext(t *testing.T) {
	exit := 1
	u1, a1, u2, a2 := msgEntry(userMsg("u1")), msgEntry(assistantMsg("a1")), msgEntry(userMsg("u2")), msgEntry(assistantMsg("a2"))
	bash := msgEntry(&Message{Role: RoleBashExecution, Extra: &MessageExtra{Command: "ls", Output: "x", ExitCode: &exit}})
	hidden := msgEntry(&Message{Role: RoleBashExecution, Extra: &MessageExtra{Command: "secret", ExcludeFromContext: true}})
	cm := &Entry{Type: TypeCustomMessage, Fields: &EntryFields{CustomType: "note", Content: []ContentBlock{{Type: BlockText, Text: "kept note"}}, ContentIsString: true}}
	bs := &Entry{Type: TypeBranchSummary, Fields: &EntryFields{FromID: "x", Summary: "kept branch"}}
	empty := &Entry{Type: TypeBranchSummary, Fields: &EntryFields{FromID: "root"}}
	label := &Entry{Type: TypeLabel, Fields: &EntryFields{TargetID: "e0000001", Label: "l"}}
	comp := &Entry{Type: TypeCompaction, Fields: &EntryFields{Summary: "C1", TokensBefore: 5000}}
	u3, a3 := msgEntry(userMsg("u3")), msgEntry(assistantMsg("a3"))
	legacy := msgEntry(&Message{Role: RoleCustom, Content: []ContentBlock{{Type: BlockText, Text: "migrated"}}, Extra: &MessageExtra{CustomType: "hook"}})
	path := chain(u1, a1, u2, bash, hidden, a2, cm, bs, empty, label, comp, u3, legacy, a3)

	for _, c := range []struct {
		name      string
		firstKept string
		path      []*Entry
	}{
		{"no compaction", "", path[:10]},
		{"compaction keeping from u2", u2.ID, path},
		{"compaction keeping nothing before it", "missing0", path},
		{"empty", "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			comp.fields().FirstKeptEntryID = c.firstKept
			want := ConvertContextToLLM(BuildContext(c.path).Messages)
			got := LLMContext(c.path)
			require.Len(t, got, len(want))
			for i := range want {
				assert.Equal(t, want[i], *got[i], "message %d", i)
			}
		})
	}

	// Stored messages a model accepts as they are are shared, not copied.
	got := LLMContext(path[:10])
	assert.Same(t, u1.Message, got[0])
	assert.Same(t, a2.Message, got[4])
	refs := ContextLLMRefs(BuildContext(path[:10]).Messages)
	assert.Equal(t, len(got), len(refs))
	for i := range got {
		assert.Equal(t, *got[i], *refs[i], "message %d", i)
	}
}
