package stdlib

import (
	"io"
	"os"
	"syscall"
)

// OpenRegularFD opens path read-only and checks it is a regular file of
// at most limit bytes: the file descriptor and its status (Linux only;
// the chunk cache of package lua reads through it too). Plain system
// calls: an *os.File would first offer a regular file to the poller (an
// epoll_ctl the kernel refuses) and set up a cleanup, for each hook
// source and cached chunk of each run. O_NONBLOCK: opening a FIFO does
// not wait for a writer (fstat then refuses it).
func OpenRegularFD(path string, limit int64) (int, syscall.Stat_t, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return -1, syscall.Stat_t{}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return -1, st, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	mode := st.Mode & syscall.S_IFMT
	if err := notRegular(path, mode == syscall.S_IFREG, mode == syscall.S_IFDIR, st.Size, limit); err != nil {
		syscall.Close(fd)
		return -1, st, err
	}
	return fd, st, nil
}

// openRegular opens path for readRegular: a regular file of at most limit
// bytes, and its size.
func openRegular(path string, limit int64) (io.ReadCloser, int64, error) {
	fd, st, err := OpenRegularFD(path, limit)
	if err != nil {
		return nil, 0, err
	}
	return &rawFile{fd: fd, path: path}, st.Size, nil
}

// rawFile reads a file descriptor until EOF.
type rawFile struct {
	fd   int
	path string
}

func (f *rawFile) Read(b []byte) (int, error) {
	for {
		n, err := syscall.Read(f.fd, b)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, &os.PathError{Op: "read", Path: f.path, Err: err}
		case n == 0 && len(b) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f *rawFile) Close() error { return syscall.Close(f.fd) }
