//go:build unix

package session

// flock(2) locks: released by the kernel when the process dies, so a
// crashed lunar never leaves a session locked.

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on the lock file at path. It returns
// (nil, pid, nil) when another process holds it.
func tryLock(path string) (*fileLock, int, error) {
	for range 10 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, 0, err
		}
		if err := flock(f); err != nil {
			if errors.Is(err, syscall.EWOULDBLOCK) {
				pid := readPID(f)
				f.Close()
				return nil, pid, nil
			}
			f.Close()
			return nil, 0, err
		}
		// A holder removes the lock file on release while still holding
		// it. If that happened between our open and flock, we hold a lock
		// on an unlinked file that nobody else will ever see: try again.
		fi, err1 := f.Stat()
		cur, err2 := os.Stat(path)
		if err1 != nil || err2 != nil || !os.SameFile(fi, cur) {
			f.Close()
			continue
		}
		l := &fileLock{f: f, path: path}
		if err := l.writePID(); err != nil {
			l.release()
			return nil, 0, err
		}
		return l, 0, nil
	}
	return nil, 0, errors.New("the lock file keeps being replaced")
}

func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			return err
		}
	}
}

// release removes the lock file, then drops the lock (removing it first
// means nobody can lock the old file after we let go; see tryLock).
func (l *fileLock) release() error {
	rmErr := os.Remove(l.path)
	err := l.f.Close()
	if err == nil && rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
		err = rmErr
	}
	return err
}
