package session

// Decoding a large file in parts gives exactly what one pass gives.

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeInPartsIsOnePass(t *testing.T) {
	lines := []string{testHeader}
	parent := ""
	for i := 1; i <= 400; i++ {
		id := fmt.Sprintf("%08x", i)
		switch {
		case i%97 == 0:
			lines = append(lines, `{"type":"message","id":`) // malformed
			continue
		case i%89 == 0:
			lines = append(lines, `[1,2]`, "   ")
			continue
		case i%83 == 0:
			lines = append(lines, fmt.Sprintf(`{"type":"future_%d","id":%q,"parentId":%q,"timestamp":"2025-06-01T10:00:00.000Z"}`, i%2, id, parent))
		default:
			lines = append(lines, userLine(id, parent, "2025-06-01T10:00:00.000Z", fmt.Sprintf("line %d with \"quotes\"\nand a long enough escaped text to be decoded in place, %064d", i, i)))
		}
		parent = id
	}
	path := writeLines(t, lines...)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"type":"message","id":"torn"`) // a torn last line
	require.NoError(t, err)
	require.NoError(t, f.Close())
	load := func(min, workers int) *Session {
		defer func(m int, w func() int) { parallelMin, decodeWorkers = m, w }(parallelMin, decodeWorkers)
		parallelMin, decodeWorkers = min, func() int { return workers }
		s, err := Load(path)
		require.NoError(t, err)
		return s
	}
	one := load(1<<30, 1)
	require.NotEmpty(t, one.Warnings())
	for _, workers := range []int{2, 3, 7} {
		parts := load(1024, workers)
		assert.Equal(t, one.Warnings(), parts.Warnings(), "%d parts", workers)
		require.Len(t, parts.Entries(), len(one.Entries()))
		for i, e := range one.Entries() {
			assert.Equal(t, string(e.line()), string(parts.Entries()[i].line()), "entry %d, %d parts", i, workers)
		}
		assert.Equal(t, texts(one.BuildContext().Messages), texts(parts.BuildContext().Messages))
	}
	assert.Len(t, splitLines([]byte("{}\n{}\n{}\n"), 0, 8), 1, "a small file is one part")
}
