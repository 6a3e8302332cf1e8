//go:build !linux

package lua

import (
	"io"
	"os"
	"time"
)

// readChunkFile reads a cache file that is a regular file of at most max
// bytes, and its modification time; ok is false otherwise.
func readChunkFile(path string, max int64) (data []byte, mod time.Time, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, time.Time{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > max {
		return nil, time.Time{}, false
	}
	buf := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, time.Time{}, false
	}
	return buf, fi.ModTime(), true
}
