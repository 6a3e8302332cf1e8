// This file holds how read, edit and write open files: regular files
// only, and at most MaxFileBytes of them. A device (/dev/zero), a FIFO
// or a socket is refused before anything is read or written, and the open
// itself never waits (O_NONBLOCK: a FIFO without a writer or reader would
// block it forever), so a model cannot exhaust lunar's memory or hang it
// with a path.

package tools

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxFileBytes bounds the files read and edit load, checked before
// reading (as the hooks' fs.read). Larger files are read in parts with
// bash (sed -n, head, tail).
const MaxFileBytes = 64 << 20

// notRegularError is what readRegular and writeRegular refuse.
type notRegularError struct {
	path string
	mode fs.FileMode
}

func (e *notRegularError) Error() string {
	kind := "not a regular file"
	switch {
	case e.mode.IsDir():
		kind = "a directory"
	case e.mode&fs.ModeNamedPipe != 0:
		kind = "a FIFO (named pipe)"
	case e.mode&fs.ModeSocket != 0:
		kind = "a socket"
	case e.mode&fs.ModeDevice != 0:
		kind = "a device"
	}
	return fmt.Sprintf("%s is %s, not a regular file; only regular files can be read, edited or written with this tool", e.path, kind)
}

// tooLargeError is a file over MaxFileBytes.
type tooLargeError struct {
	path string
	size int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%s is too large (%s; at most %s). Use bash to look at parts of it (sed -n '100,200p', head, tail, grep).",
		e.path, FormatSize(int(e.size)), FormatSize(MaxFileBytes))
}

// readRegular reads the regular file at abs (symlinks followed), shown
// to the model as path.
func readRegular(abs, path string) ([]byte, error) {
	f, err := os.OpenFile(abs, os.O_RDONLY|openNoBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &notRegularError{path, fi.Mode()}
	}
	if fi.Size() > MaxFileBytes {
		return nil, &tooLargeError{path, fi.Size()}
	}
	// The size is a hint (files in /proc say 0, a file may grow): the
	// limit holds while reading too.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, &tooLargeError{path, int64(len(data))}
	}
	return data, nil
}

// writeRegular writes data to abs, creating it or replacing the content
// of the regular file there (keeping its mode, owner and links, which a
// write-to-temp-and-rename would replace), shown to the model as path.
func writeRegular(abs, path string, data []byte) error {
	if fi, err := os.Stat(abs); err == nil && !fi.Mode().IsRegular() {
		return &notRegularError{path, fi.Mode()}
	}
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|openNoBlock, 0o644)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &notRegularError{path, fi.Mode()} // swapped in after the check above
	}
	if err == nil {
		err = f.Truncate(0)
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
