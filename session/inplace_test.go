package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInPlaceStrings checks the loader's in-place decoding of long escaped
// strings: the decoded values are right, lines written by JSON.stringify
// are rebuilt byte for byte, and lines whose escapes JSON.stringify would
// not write keep their bytes as they are.
func TestInPlaceStrings(t *testing.T) {
	long := strings.Repeat(`func main() {\n\tfmt.Println(\"hi\\n\")\n}\n`, 3) + "\u2028 😀 \\u0001"
	longText := strings.Repeat("func main() {\n\tfmt.Println(\"hi\\n\")\n}\n", 3) + "\u2028 😀 \x01"
	canonical := `{"type":"message","id":"b0000001","parentId":null,"timestamp":"2025-06-01T10:00:01.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"` + long + `"},{"type":"text","text":"short\nescape"}],"details":{"diff":"` + long + `"},"isError":false,"timestamp":1}}`
	// Escapes JSON.stringify never writes: \/ and \u0041 and upper-case hex.
	odd := `{"type":"message","id":"b0000002","parentId":"b0000001","timestamp":"2025-06-01T10:00:02.000Z","message":{"role":"user","content":"` + long + `\/ \u0041 \u001F","timestamp":2}}`
	summary := `{"type":"compaction","id":"b0000003","parentId":"b0000002","timestamp":"2025-06-01T10:00:03.000Z","summary":"` + long + `","firstKeptEntryId":"b0000002","tokensBefore":1,"fromHook":false}`
	unknown := `{"type":"stack_pop","id":"b0000004","parentId":"b0000003","timestamp":"2025-06-01T10:00:04.000Z","summary":"` + long + `","extra":1}`
	lines := []string{testHeader, canonical, odd, summary, unknown}
	path := writeLines(t, lines...)

	s, err := Open(path)
	require.NoError(t, err)
	e1, e2, e3, e4 := s.Get("b0000001"), s.Get("b0000002"), s.Get("b0000003"), s.Get("b0000004")
	assert.Nil(t, e1.Raw, "decoded in place")
	require.NotNil(t, e1.inPlace)
	assert.Len(t, e1.inPlace.patches, 1, "only the long string; details stay raw")
	assert.NotNil(t, e2.Raw, "not rebuildable: kept as it is")
	assert.Nil(t, e2.inPlace)
	assert.Nil(t, e3.Raw)
	assert.Nil(t, e4.Raw)

	assert.Equal(t, longText, e1.Message.Content[0].Text)
	assert.Equal(t, "short\nescape", e1.Message.Content[1].Text)
	assert.Equal(t, `{"diff":"`+long+`"}`, string(e1.Message.Details))
	assert.Equal(t, longText+"/ A \x1f", e2.Message.Text())
	assert.Equal(t, longText, e3.Summary())
	assert.Equal(t, longText, e4.Summary())

	for i, e := range []*Entry{e1, e2, e3, e4} {
		assert.Equal(t, lines[i+1], string(e.line()), "entry %d", i)
		b, err := e.MarshalJSON()
		require.NoError(t, err)
		assert.Equal(t, lines[i+1], string(b), "entry %d", i)
	}
	assert.Equal(t, longText, e1.Message.Content[0].Text, "rebuilding leaves the decoded string alone")
	assert.Equal(t, []string{"compactionSummary:" + longText, "user:" + longText + "/ A \x1f"}, texts(s.BuildContext().Messages))

	// Appending keeps every earlier byte.
	id := mustAppend(t, s, assistantMsg("ok"))
	require.NoError(t, s.Close())
	got := fileLines(t, path)
	assert.Equal(t, lines, got[:len(lines)])
	assert.Equal(t, "b0000004", decodeStrict(t, got[len(got)-1]).ParentID)

	// A fork writes the lines as they were, and re-chains an in-place
	// entry (after a label left out) from its rebuilt line.
	withLabel := []string{testHeader, canonical,
		`{"type":"label","id":"b0000009","parentId":"b0000001","timestamp":"2025-06-01T10:00:02.000Z","targetId":"b0000001","label":"x"}`,
		strings.Replace(summary, `"parentId":"b0000002"`, `"parentId":"b0000009"`, 1)}
	l, err := Load(writeLines(t, withLabel...))
	require.NoError(t, err)
	f, err := l.Fork("", filepath.Join(t.TempDir(), "fork"))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	fl := fileLines(t, f.File())
	require.Len(t, fl, 4)
	assert.Equal(t, canonical, fl[1])
	assert.Equal(t, strings.Replace(summary, `"parentId":"b0000002"`, `"parentId":"b0000001"`, 1), fl[2])
	_ = id
}

// TestMigrationKeepsItsOutput checks that the migrated file written to
// disk is not the buffer the loader decodes in place.
func TestMigrationKeepsItsOutput(t *testing.T) {
	long := strings.Repeat(`line\n\t\"q\"`, 10)
	path := writeLines(t,
		`{"type":"session","id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}`,
		`{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"`+long+`","timestamp":1}}`,
	)
	s, err := Open(path)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"content":"`+long+`"`)
	e := s.Entries()[0]
	assert.Equal(t, strings.Repeat("line\n\t\"q\"", 10), e.Message.Text())
}
