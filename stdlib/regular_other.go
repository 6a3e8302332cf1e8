//go:build !linux

package stdlib

import (
	"io"
	"os"
)

// openRegular opens path for readRegular: a regular file of at most limit
// bytes, and its size.
func openRegular(path string, limit int64) (io.ReadCloser, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNoBlock, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = notRegular(path, fi.Mode().IsRegular(), fi.IsDir(), fi.Size(), limit)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}
