//go:build linux

package lua

import (
	"syscall"
	"time"
)

// readChunkFile reads a cache file that is a regular file of at most max
// bytes, and its modification time; ok is false otherwise. It makes only
// the system calls the read needs (open, fstat, read, close): os.Open
// would also offer the file to the runtime's poller (four fcntl and an
// epoll_ctl the kernel refuses for a regular file) and allocate an
// *os.File with its cleanup, for each hook of each run. O_NONBLOCK: a
// FIFO put in the folder does not block the open (fstat then refuses it).
func readChunkFile(path string, max int64) (data []byte, mod time.Time, ok bool) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, time.Time{}, false
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size > max {
		return nil, time.Time{}, false
	}
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
