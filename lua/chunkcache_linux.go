//go:build linux

package lua

import (
	"syscall"
	"time"

	"github.com/lunar-cli/lunar/stdlib"
)

// readChunkFile reads a cache file that is a regular file of at most max
// bytes, and its modification time; ok is false otherwise. It makes only
// the system calls the read needs (open, fstat, read, close; see
// stdlib.OpenRegularFD); a file shorter than fstat said is refused.
func readChunkFile(path string, max int64) (data []byte, mod time.Time, ok bool) {
	fd, st, err := stdlib.OpenRegularFD(path, max)
	if err != nil {
		return nil, time.Time{}, false
	}
	defer syscall.Close(fd)
	buf := make([]byte, st.Size)
	for n := 0; n < len(buf); {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil || m <= 0 { // m == 0: shorter than fstat said
			return nil, time.Time{}, false
		}
		n += m
	}
	return buf, time.Unix(st.Mtim.Unix()), true
}
