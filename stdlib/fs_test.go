package stdlib_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/stdlib"
)

// fsState returns a state with the fs module bound to work (writable
// with data) and a function running Lua that returns one string.
func fsState(t *testing.T, work string, roots ...string) func(code string) string {
	t.Helper()
	env := &stdlib.Env{Cwd: work, WriteRoots: func() []string { return append([]string{work}, roots...) }}
	L := newState(t, env)
	require.NoError(t, L.DoString(`fs = require("fs")`))
	return func(code string) string { return eval(t, L, code) }
}

func TestFSReadRefusesWhatIsNotARegularFile(t *testing.T) {
	work := t.TempDir()
	run := fsState(t, work)
	big := filepath.Join(work, "big")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(stdlib.MaxReadSize+1)) // sparse: nothing is written
	require.NoError(t, f.Close())
	require.NoError(t, os.Symlink(big, filepath.Join(work, "big-link")))
	require.NoError(t, os.WriteFile(filepath.Join(work, "ok"), []byte("fine"), 0o644))
	require.NoError(t, os.Symlink("ok", filepath.Join(work, "ok-link")))

	tests := []struct{ path, want string }{
		{"big", "big: too large (64.0 MiB; at most 64 MiB)"},
		{"big-link", "too large"},
		{".", "is a folder"},
		{"ok", "fine"},
		{"ok-link", "fine"},
	}
	if runtime.GOOS != "windows" {
		tests = append(tests, struct{ path, want string }{"/dev/zero", "/dev/zero: not a regular file"})
	}
	for _, tt := range tests {
		got := run(`local data, err = fs.read("` + tt.path + `") return data or err`)
		assert.Contains(t, got, tt.want, tt.path)
	}
}

// A symlink whose target does not exist yet must not let a write create
// that target outside the write roots.
func TestFSWriteDoesNotFollowADanglingLinkOut(t *testing.T) {
	root := t.TempDir()
	work, outside := filepath.Join(root, "work"), filepath.Join(root, "outside")
	require.NoError(t, os.MkdirAll(work, 0o755))
	require.NoError(t, os.MkdirAll(outside, 0o755))
	links := map[string]string{
		"dangling": filepath.Join(outside, "created.txt"),
		"relative": "../outside/created-rel.txt",
		"chain":    "dangling",
		"dir":      filepath.Join(outside, "newdir"), // a missing folder
		"inside":   "made-inside.txt",                // dangling but inside: fine
		"loop":     "loop",
	}
	for name, target := range links {
		require.NoError(t, os.Symlink(target, filepath.Join(work, name)))
	}
	run := fsState(t, work)
	for _, target := range []string{"dangling", "relative", "chain", "dir/x.txt", filepath.Join(work, "dangling")} {
		msg := run(`local ok, err = fs.write("` + target + `", "x") return tostring(ok) .. " " .. tostring(err)`)
		assert.True(t, strings.HasPrefix(msg, "nil "+target+": writing outside"), "%s: %s", target, msg)
		msg = run(`local ok, err = fs.write("` + target + `", "x", { append = true }) return tostring(ok)`)
		assert.Equal(t, "nil", msg, target)
	}
	assert.Equal(t, "nil", run(`return tostring(fs.mkdir("dir/sub"))`))
	assert.Equal(t, "nil", run(`return tostring(fs.write("loop", "x"))`))
	ents, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, ents, "nothing was created outside")

	assert.Equal(t, "true", run(`return tostring(fs.write("inside", "x"))`), "a dangling link inside the folder is followed")
	assert.FileExists(t, filepath.Join(work, "made-inside.txt"))
}

// A folder swapped for a symlink to outside while fs.write runs must never
// let a write land outside: the check and the open are one step.
func TestFSWriteSymlinkRace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	root := t.TempDir()
	work, outside := filepath.Join(root, "work"), filepath.Join(root, "outside")
	require.NoError(t, os.MkdirAll(work, 0o755))
	require.NoError(t, os.MkdirAll(outside, 0o755))
	sub := filepath.Join(work, "sub")
	stop, stopped := make(chan struct{}), make(chan struct{})
	swaps := 0
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			default:
			}
			os.RemoveAll(sub)
			os.Mkdir(sub, 0o755)
			os.RemoveAll(sub) // the link only, never its target
			os.Symlink(outside, sub)
			swaps++
		}
	}()
	run := fsState(t, work)
	written := 0
	for range 3000 {
		if run(`return tostring(fs.write("sub/f.txt", "x") and fs.mkdir("sub/d"))`) == "true" {
			written++
		}
	}
	close(stop)
	<-stopped
	t.Logf("%d swaps, %d writes inside", swaps, written)
	ents, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, ents, "a write escaped through the swapped folder")
}

func TestReadRegularWholeFileAtEverySize(t *testing.T) {
	// A read that stops exactly at the size fstat gave ends the file; every
	// other read goes on to EOF: sizes around the 1 MiB reads, and an
	// empty file.
	dir := t.TempDir()
	for _, size := range []int{0, 1, 217, 1<<20 - 1, 1 << 20, 1<<20 + 1, 3 << 20} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte('a' + i%26)
		}
		p := filepath.Join(dir, "f")
		require.NoError(t, os.WriteFile(p, data, 0o644))
		got, err := stdlib.ReadRegular(p, 4<<20)
		require.NoError(t, err)
		assert.Equal(t, data, got, "size %d", size)
	}
	if runtime.GOOS == "linux" {
		// Its size says 0: read to the end.
		got, err := stdlib.ReadRegular("/proc/self/status", 1<<20)
		require.NoError(t, err)
		assert.Contains(t, string(got), "\nPid:")
		assert.True(t, strings.HasSuffix(string(got), "\n"))
	}
}
