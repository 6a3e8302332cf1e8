package session

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCrashAtEveryByte simulates a crash at every byte offset of the last
// two lines of a session file: each truncation loads, loses at most the
// torn entry, and accepts an append that the next load sees.
func TestCrashAtEveryByte(t *testing.T) {
	dir := t.TempDir()
	s, err := Create(dir, "/w")
	require.NoError(t, err)
	for i := range 6 {
		mustAppend(t, s, userMsg(fmt.Sprintf("question %d", i)))
		mustAppend(t, s, assistantMsg(fmt.Sprintf("answer %d", i)))
	}
	// The last two lines hold multi-byte characters and escapes, so that
	// cuts fall inside UTF-8 sequences and escape sequences too.
	mustAppend(t, s, userMsg("naïve 日本語 😀 \"quoted\" \\ \t\n\u2028 end"))
	two := 2
	mustAppend(t, s, &Message{Role: RoleBashExecution, Timestamp: 9, Extra: &MessageExtra{Command: "go test ./...", Output: "FAIL\tpkg\t0.01s\n😀", ExitCode: &two}})
	require.NoError(t, s.Close())
	src := s.File()
	full, err := os.ReadFile(src)
	require.NoError(t, err)
	all := s.Entries()
	n := len(all)

	// Line boundaries: ends[i] is the offset just after entry i's last
	// JSON byte (its newline not included).
	var ends []int
	for off := 0; off < len(full); {
		i := bytes.IndexByte(full[off:], '\n')
		ends = append(ends, off+i)
		off += i + 1
	}
	ends = ends[1:] // drop the header
	require.Len(t, ends, n)
	start := ends[n-3] + 1 // first byte of the second-to-last line

	for off := start; off <= len(full); off++ {
		data := full[:off]
		path := filepath.Join(t.TempDir(), filepath.Base(src))
		require.NoError(t, os.WriteFile(path, data, 0o600))

		// Entries whose JSON is complete survive, even without a newline.
		survivors := 0
		for _, e := range ends {
			if e <= off {
				survivors++
			}
		}
		torn := off > 0 && full[off-1] != '\n' && (survivors == 0 || ends[survivors-1] != off)

		s, err := Open(path)
		require.NoError(t, err, "offset %d", off)
		got := s.Entries()
		require.Len(t, got, survivors, "offset %d", off)
		require.GreaterOrEqual(t, survivors, n-2)
		for i, e := range got {
			require.Equal(t, all[i].ID, e.ID, "offset %d", off)
			require.Equal(t, string(all[i].Raw), string(e.line()), "offset %d", off)
		}
		if torn {
			require.Len(t, s.Warnings(), 1, "offset %d", off)
			require.Contains(t, s.Warnings()[0], "incomplete last line skipped", "offset %d", off)
		} else {
			require.Empty(t, s.Warnings(), "offset %d", off)
		}

		id := mustAppend(t, s, userMsg("after the crash"))
		require.NoError(t, s.Close())

		l, err := Load(path)
		require.NoError(t, err, "offset %d", off)
		require.Equal(t, id, l.LeafID(), "offset %d", off)
		path2 := l.Path("")
		require.Len(t, path2, survivors+1, "offset %d", off)
		require.Equal(t, all[survivors-1].ID, path2[survivors-1].ID, "offset %d", off)
		require.Len(t, l.Entries(), survivors+1, "offset %d", off)
		if torn {
			// The torn bytes are now a malformed middle line.
			require.Len(t, l.Warnings(), 1, "offset %d", off)
			require.Contains(t, l.Warnings()[0], "malformed line skipped", "offset %d", off)
		} else {
			require.Empty(t, l.Warnings(), "offset %d", off)
		}
		after, err := os.ReadFile(path)
		require.NoError(t, err)
		require.True(t, bytes.HasPrefix(after, data), "offset %d: earlier bytes are kept", off)
	}
	assert.Greater(t, len(full)-start, 200, "the test covered both lines")
}
