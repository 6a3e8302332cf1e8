package session

// Safe whole-file replacement (only for migration and header repair;
// sessions are otherwise append-only): the original is kept as a backup
// and the new content appears atomically.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// backupFile keeps the current content of path as path+suffix (or
// path+suffix+".N" when that exists) and returns the backup's name. A hard
// link costs nothing and is atomic; a copy is the fallback.
func backupFile(path, suffix string) (string, error) {
	name := path + suffix
	for i := 2; ; i++ {
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			break
		}
		name = path + suffix + "." + strconv.Itoa(i)
	}
	if err := os.Link(path, name); err == nil {
		return name, syncDir(filepath.Dir(path))
	}
	if err := copyFile(path, name); err != nil {
		return "", fmt.Errorf("back up %s: %w", path, err)
	}
	return name, syncDir(filepath.Dir(path))
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// writeAtomic replaces path with data: a temporary file in the same
// folder is written and fsynced, renamed over path, and the folder is
// fsynced, so a crash leaves either the old or the new file, never a mix.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	mode := fs.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("rewrite %s: %w", path, err)
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("rewrite %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("rewrite %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("rewrite %s: %w", path, err)
	}
	return syncDir(dir)
}

// fsyncFile is (*os.File).Sync; tests count the calls.
var fsyncFile = (*os.File).Sync

// syncDir makes a folder's entries (new, renamed files) durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := fsyncFile(d); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		// Some file systems and platforms cannot fsync a folder; the data
		// itself was synced, so this is not worth failing for.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil
		}
		return err
	}
	return nil
}
