package session

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Listing counts message lines by their first bytes; lines written with
// other spacing are decoded, and a torn last line is not counted.
func TestListCountsWithoutDecoding(t *testing.T) {
	root := t.TempDir()
	dir := Dir(root, "/home/ana/x")
	putSession(t, dir, "01970000-0000-7000-8000-000000000001", time.Now(),
		`{"type":"message","id":"a0000001","parentId":null,"timestamp":"2025-06-01T10:00:01.000Z","message":{"role":"user","content":"the question","timestamp":1}}`,
		`{"type":"message","id":"a0000002","parentId":"a0000001","timestamp":"2025-06-01T10:00:02.000Z","message":{"role":"user","content":"later","timestamp":2}}`,
		`{"type": "message", "id": "a0000003", "parentId": "a0000002", "timestamp": "2025-06-01T10:00:03.000Z", "message": {"role": "user", "content": "spaced", "timestamp": 3}}`,
		`{"type":"label","id":"a0000004","parentId":"a0000003","timestamp":"2025-06-01T10:00:04.000Z","targetId":"a0000001","label":"x"}`,
		`{"type":"session_info","id":"a0000005","parentId":"a0000004","timestamp":"2025-06-01T10:00:05.000Z","name":"named"}`,
		`{"type":"message","id":"a0000006","parentId":"a0000005","timestamp":"2025-06-01T10:00:06.000Z","message":{"role":"user","content":"torn`,
	)
	infos, err := List(root, "/home/ana/x")
	require.NoError(t, err)
	require.Len(t, infos, 1)
	assert.Equal(t, 3, infos[0].MessageCount)
	assert.Equal(t, "the question", infos[0].FirstMessage)
	assert.Equal(t, "named", infos[0].Name)
}

func TestLineType(t *testing.T) {
	for line, want := range map[string]string{
		`{"type":"message","id":"x"}`:    "message",
		`{"type":"session_info","a":1} `: "session_info",
		`{"type":"mess\"age","id":"x"}`:  "",
		`{"id":"x","type":"message"}`:    "",
		`{"type":"message","id":"x"`:     "",
		`{"type": "message", "id": "x"}`: "",
	} {
		got, ok := lineType([]byte(line))
		assert.Equal(t, want, got, line)
		assert.Equal(t, want != "", ok, line)
	}
}
