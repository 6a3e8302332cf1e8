package lua

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestChunkCacheSkipsFIFO(t *testing.T) {
	// A FIFO in a chunk's place is neither read nor waited on (opening
	// it for reading would block until a writer came).
	dir := t.TempDir()
	c := OpenChunkCache(dir)
	src := cachedSources()[0]
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, c.key(src.Name, src.Code)), 0o600))
	assert.Nil(t, c.get(src.Name, src.Code))
}
