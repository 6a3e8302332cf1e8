// This file resolves the path a file operation really reaches, for the
// checks that must not be fooled by a link: the write and edit tools'
// pinning (sandbox.go) and the fs module's write roots and fs.realpath
// (stdlib).

package tools

import (
	"io/fs"
	"os"
	"path/filepath"
)

// maxLinks bounds the symlinks RealPath follows by hand (as the kernel's
// ELOOP does).
const maxLinks = 40

// RealPath returns p (absolute) cleaned, then with symlinks resolved as
// far as the path exists; the missing tail is appended as is (it cannot
// contain ".." after Clean). A symlink whose target is missing (dangling)
// is followed too: writing through it would create its target.
func RealPath(p string) string { return realPath(p, 0) }

func realPath(p string, depth int) string {
	p = filepath.Clean(p)
	var tail []string
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{r}, tail...)...)
		}
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 && depth < maxLinks {
			target, err := os.Readlink(p)
			dir, derr := filepath.EvalSymlinks(filepath.Dir(p))
			if err == nil && derr == nil {
				if !filepath.IsAbs(target) {
					target = filepath.Join(dir, target)
				}
				return realPath(filepath.Join(append([]string{target}, tail...)...), depth+1)
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(append([]string{p}, tail...)...)
		}
		tail = append([]string{filepath.Base(p)}, tail...)
		p = parent
	}
}
