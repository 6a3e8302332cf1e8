//go:build unix

package stdlib

import (
	"os"
	"syscall"
)

// linkCount is how many names the open file has (its hard links).
func linkCount(f *os.File) (uint64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink), nil
	}
	return 1, nil
}
