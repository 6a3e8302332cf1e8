package session

// Advisory locking: a session file is appended to by one process at a
// time. The lock is a "<session file>.lock" file beside it holding the
// owner's pid; the platform files decide how it is held.

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrLocked is wrapped by the error returned when another process holds
// a session's lock.
var ErrLocked = errors.New("session is in use by another process")

// LockError reports a session locked by another process.
type LockError struct {
	Path string // the session file
	PID  int    // the holder's pid, 0 if unknown
}

func (e *LockError) Error() string {
	holder := "another lunar process"
	if e.PID > 0 {
		holder = fmt.Sprintf("another lunar process (pid %d)", e.PID)
	}
	return fmt.Sprintf("session %s is in use by %s; finish it there, or continue in a copy with --fork", e.Path, holder)
}

// Unwrap makes errors.Is(err, ErrLocked) work.
func (e *LockError) Unwrap() error { return ErrLocked }

// fileLock is a held session lock.
type fileLock struct {
	f    *os.File
	path string // the lock file
}

// lockPath is the lock file of a session file.
func lockPath(sessionFile string) string { return sessionFile + ".lock" }

// acquireLock takes the lock of sessionFile without waiting.
func acquireLock(sessionFile string) (*fileLock, error) {
	l, holder, err := tryLock(lockPath(sessionFile))
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", sessionFile, err)
	}
	if l == nil {
		return nil, &LockError{Path: sessionFile, PID: holder}
	}
	return l, nil
}

// writePID records the holder in the lock file (informational only: the
// lock itself is what counts).
func (l *fileLock) writePID() error {
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	_, err := l.f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return err
}

// readPID reads the pid a holder wrote into its lock file.
func readPID(f *os.File) int {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil {
		return 0
	}
	return pid
}
