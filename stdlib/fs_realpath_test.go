//go:build unix

package stdlib_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFSRealpath(t *testing.T) {
	work, outside := t.TempDir(), t.TempDir()
	work, _ = filepath.EvalSymlinks(work)
	outside, _ = filepath.EvalSymlinks(outside)
	require.NoError(t, os.Symlink(outside, filepath.Join(work, "out")))
	require.NoError(t, os.Symlink("out/new.txt", filepath.Join(work, "dangling")))
	require.NoError(t, os.Mkdir(filepath.Join(work, "sub"), 0o755))
	run := fsState(t, work)
	tests := []struct{ path, want string }{
		{"a.txt", filepath.Join(work, "a.txt")},
		{"out/x/y.txt", filepath.Join(outside, "x/y.txt")},
		{"dangling", filepath.Join(outside, "new.txt")},
		{"sub/../out", outside},
		{work + "/out/../a", filepath.Join(work, "a")}, // .. as written, as the tools apply it
	}
	if runtime.GOOS == "linux" {
		tests = append(tests, struct{ path, want string }{"/proc/self/root" + outside + "/k", filepath.Join(outside, "k")})
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, run(`return fs.realpath("`+tt.path+`")`), tt.path)
	}
}
