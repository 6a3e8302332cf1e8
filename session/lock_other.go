//go:build !unix

package session

// Where flock(2) is not available the lock file itself is the lock: it is
// created exclusively and removed on release. A crash leaves it behind;
// the error then names the pid recorded in it so the user can check that
// process and delete the file.

import (
	"errors"
	"os"
)

// tryLock creates the lock file at path exclusively. It returns (nil, pid,
// nil) when the file already exists.
func tryLock(path string) (*fileLock, int, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		pid := 0
		if g, err := os.Open(path); err == nil {
			pid = readPID(g)
			g.Close()
		}
		return nil, pid, nil
	}
	if err != nil {
		return nil, 0, err
	}
	l := &fileLock{f: f, path: path}
	if err := l.writePID(); err != nil {
		l.release()
		return nil, 0, err
	}
	return l, 0, nil
}

// release closes and removes the lock file.
func (l *fileLock) release() error {
	err := l.f.Close()
	if rmErr := os.Remove(l.path); err == nil && rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
		err = rmErr
	}
	return err
}
