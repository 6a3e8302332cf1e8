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

func TestReadFileInPartsIsReadFile(t *testing.T) {
	defer func(m int, w func() int) { readParallelMin, decodeWorkers = m, w }(readParallelMin, decodeWorkers)
	readParallelMin = 16
	dir := t.TempDir()
	for _, size := range []int{0, 1, 15, 16, 17, 511, 512, 513, 4099} {
		for _, workers := range []int{1, 2, 3, 7} {
			t.Run(fmt.Sprintf("%d bytes, %d workers", size, workers), func(t *testing.T) {
				decodeWorkers = func() int { return workers }
				want := bytes.Repeat([]byte("0123456789abcdef\n"), size/17+1)[:size]
				path := filepath.Join(dir, fmt.Sprintf("f%d", size))
				require.NoError(t, os.WriteFile(path, want, 0o600))
				got, err := readFile(path)
				require.NoError(t, err)
				assert.Equal(t, want, got)
			})
		}
	}
	_, err := readFile(filepath.Join(dir, "missing"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}
