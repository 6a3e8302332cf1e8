package stdlib

// The fs module: reads anywhere, writes only under the hook's write roots
// (the working folder, lunar's data folder, the hook's data_dir). A target
// is checked after resolving "..", symlinks (a dangling one included) and
// relative paths, then opened through an os.Root on its write root, so
// that a symlink swapped in between the check and the open cannot lead
// the write outside either. Reads take regular files only (never a
// device or a FIFO, which could block or never end), up to MaxReadSize.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/agent/tools"
)

func fsModule(env *Env) *Module {
	return &Module{
		Name: "fs",
		Doc:  "Files. Reads anywhere; writes only under the working folder, lunar's data folder and ctx.data_dir. Relative paths are relative to the working folder. Failures return nil and a message.",
		Funcs: []Func{
			{Name: "read", Fn: env.fsRead, Returns: "string?, string?",
				Params: []Param{{Name: "path", Type: "string"}},
				Doc:    "Returns the whole content of a regular file (at most 64 MiB)."},
			{Name: "write", Fn: env.fsWrite, Returns: "true?, string?",
				Params: []Param{{Name: "path", Type: "string"}, {Name: "content", Type: "string"}, {Name: "opts", Type: "fs.WriteOptions", Optional: true}},
				Doc:    "Writes (or with append=true appends to) a file, creating it if needed. The folder must exist (fs.mkdir). A file that is not a regular one, or has other hard links, is refused."},
			{Name: "list", Fn: env.fsList, Returns: "string[]?, string?",
				Params: []Param{{Name: "path", Type: "string"}},
				Doc:    "Returns the names in a folder, sorted."},
			{Name: "exists", Fn: env.fsExists, Returns: "boolean",
				Params: []Param{{Name: "path", Type: "string"}},
				Doc:    "Reports whether a path exists."},
			{Name: "stat", Fn: env.fsStat, Returns: "fs.Stat?, string?",
				Params: []Param{{Name: "path", Type: "string"}},
				Doc:    "Returns size, kind and modification time of a path."},
			{Name: "realpath", Fn: env.fsRealpath, Returns: "string",
				Params: []Param{{Name: "path", Type: "string"}},
				Doc:    "Returns the absolute path with `..` applied as written (as lunar's tools do), then symlinks resolved (`/proc/self/root` and other magic links too) as far as it exists; a missing tail is appended, a dangling link followed, as a write through it would. The file a tool call on path really opens, for checks on paths."},
			{Name: "mkdir", Fn: env.fsMkdir, Returns: "true?, string?",
				Params: []Param{{Name: "path", Type: "string"}},
				Doc:    "Creates a folder and its parents."},
		},
		Classes: []Class{
			{Name: "fs.WriteOptions", Fields: []Field{{Name: "append", Type: "boolean?", Doc: "append instead of replacing"}}},
			{Name: "fs.Stat", Fields: []Field{
				{Name: "size", Type: "integer"},
				{Name: "is_dir", Type: "boolean"},
				{Name: "mtime_ms", Type: "integer", Doc: "modification time, Unix milliseconds"},
				{Name: "mode", Type: "string", Doc: `permission bits, e.g. "-rw-r--r--"`},
			}},
		},
	}
}

func (env *Env) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	base := env.Cwd
	if base == "" {
		base, _ = os.Getwd()
	}
	return filepath.Join(base, p)
}

// resolve returns p with symlinks resolved as far as the path exists
// (tools.RealPath: a dangling link followed, the missing tail appended).
func resolve(p string) string { return tools.RealPath(p) }

// writeRoot finds the write root path lies under once resolved, and the
// resolved path relative to it.
func (env *Env) writeRoot(path string) (root, rel string, err error) {
	target := resolve(env.abs(path))
	var roots []string
	if env.WriteRoots != nil {
		roots = env.WriteRoots()
	}
	for _, r := range roots {
		if r == "" {
			continue
		}
		root := resolve(env.abs(r))
		if target == root || strings.HasPrefix(target, root+string(filepath.Separator)) {
			rel, err := filepath.Rel(root, target)
			if err != nil {
				break
			}
			return root, rel, nil
		}
	}
	return "", "", fmt.Errorf("%s: writing outside the working folder and the data folders is not allowed", path)
}

// Writable reports whether path (absolute, or relative to env.Cwd) lies
// under one of the write roots once resolved.
func (env *Env) Writable(path string) error {
	_, _, err := env.writeRoot(path)
	return err
}

// inRoot runs fn on the write root of path, with path relative to it.
// os.Root refuses any step (a symlink, "..") that leads out of the root,
// whenever it appears.
func (env *Env) inRoot(path string, fn func(r *os.Root, rel string) error) error {
	root, rel, err := env.writeRoot(path)
	if err != nil {
		return err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := fn(r, rel); err != nil {
		if strings.Contains(err.Error(), "path escapes from parent") {
			return fmt.Errorf("%s: writing outside the working folder and the data folders is not allowed", path)
		}
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	return nil
}

// unwrapPath drops os.Root's relative path from an error (the caller
// names the path the hook gave).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// MaxReadSize is the largest file fs.read returns (and the largest hook
// source lunar loads is smaller still).
const MaxReadSize = 64 << 20

// ReadRegular reads a regular file of at most limit bytes (following
// symlinks). Anything else (a folder, a device such as /dev/zero, a FIFO,
// a socket) is refused without reading, and opening never blocks.
func ReadRegular(path string, limit int64) ([]byte, error) {
	return readRegular(path, limit, nil, nil)
}

// notRegular is the error for what readRegular refuses: a file that is
// not a regular one, or larger than limit.
func notRegular(path string, regular, dir bool, size, limit int64) error {
	switch {
	case dir:
		return fmt.Errorf("%s: is a folder", path)
	case !regular:
		return fmt.Errorf("%s: not a regular file", path)
	case size > limit:
		return fmt.Errorf("%s: too large (%s; at most %s)", path, FormatBytes(size), FormatBytes(limit))
	}
	return nil
}

// readRegular is ReadRegular that calls sized (when set) with the size
// before reading and check (when set) between chunks.
func readRegular(path string, limit int64, sized func(int64), check func() error) ([]byte, error) {
	f, size, err := openRegular(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if sized != nil {
		sized(size)
	}
	// The size may be wrong (/proc) or change while reading: read until
	// EOF, never past limit. A read that stops short exactly at the size
	// is the end (a read of nothing would say so, one system call later).
	buf := make([]byte, 0, size+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		want := min(cap(buf), len(buf)+chunkSize) - len(buf)
		n, err := f.Read(buf[len(buf) : len(buf)+want])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, fmt.Errorf("%s: too large (more than %s)", path, FormatBytes(limit))
		}
		if err == io.EOF || err == nil && size > 0 && n < want && int64(len(buf)) == size {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if check != nil {
			if err := check(); err != nil {
				return nil, err
			}
		}
	}
}

func pushErr(L *glua.LState, err error) int {
	L.Push(glua.LNil)
	L.Push(glua.LString(err.Error()))
	return 2
}

func (env *Env) fsRead(L *glua.LState) int {
	p := L.CheckString(1)
	b, err := readRegular(env.abs(p), MaxReadSize,
		func(n int64) { reserve(L, "fs.read", n) },
		func() error { return stopped(L) })
	if err != nil {
		if serr := stopped(L); serr != nil {
			L.RaiseError("%s", serr.Error())
		}
		return pushErr(L, err)
	}
	L.Push(glua.LString(unsafe.String(unsafe.SliceData(b), len(b))))
	return 1
}

func (env *Env) fsWrite(L *glua.LState) int {
	p := L.CheckString(1)
	content := L.CheckString(2)
	appendMode := false
	if t, ok := L.Get(3).(*glua.LTable); ok {
		appendMode = glua.LVAsBool(t.RawGetString("append"))
	}
	// Never O_TRUNC: the file is judged on the descriptor written to
	// before anything changes. openNoBlock: a FIFO does not block.
	flags := os.O_WRONLY | os.O_CREATE | openNoBlock
	if appendMode {
		flags |= os.O_APPEND
	}
	err := env.inRoot(p, func(r *os.Root, rel string) error {
		f, err := r.OpenFile(rel, flags, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := writableFile(f); err != nil {
			return err
		}
		if !appendMode {
			if err := f.Truncate(0); err != nil {
				return err
			}
		}
		if _, err := f.WriteString(content); err != nil {
			return err
		}
		return f.Close()
	})
	if err != nil {
		return pushErr(L, err)
	}
	L.Push(glua.LTrue)
	return 1
}

// writableFile refuses what fs.write must not write through: anything
// but a regular file, and a file with other hard links (a link made in
// the working folder to a file outside the write roots would otherwise
// lead the write there; os.Root only sees the name).
func writableFile(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return errors.New("not a regular file")
	}
	n, err := linkCount(f)
	if err != nil {
		return err
	}
	if n > 1 {
		return fmt.Errorf("the file has %d hard links: fs.write does not write through them (one may lead outside the write roots); remove it first", n)
	}
	return nil
}

func (env *Env) fsList(L *glua.LState) int {
	p := L.CheckString(1)
	ents, err := os.ReadDir(env.abs(p))
	if err != nil {
		return pushErr(L, err)
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	slices.Sort(names)
	t := NewCodec(L).NewArray(len(names))
	for i, n := range names {
		t.RawSetInt(i+1, glua.LString(n))
	}
	L.Push(t)
	return 1
}

func (env *Env) fsExists(L *glua.LState) int {
	_, err := os.Stat(env.abs(L.CheckString(1)))
	L.Push(glua.LBool(err == nil))
	return 1
}

func (env *Env) fsStat(L *glua.LState) int {
	fi, err := os.Stat(env.abs(L.CheckString(1)))
	if err != nil {
		return pushErr(L, err)
	}
	t := L.CreateTable(0, 4)
	t.RawSetString("size", glua.LNumber(fi.Size()))
	t.RawSetString("is_dir", glua.LBool(fi.IsDir()))
	t.RawSetString("mtime_ms", glua.LNumber(fi.ModTime().UnixMilli()))
	t.RawSetString("mode", glua.LString(fi.Mode().Perm().String()))
	L.Push(t)
	return 1
}

func (env *Env) fsRealpath(L *glua.LState) int {
	L.Push(glua.LString(resolve(env.abs(L.CheckString(1)))))
	return 1
}

func (env *Env) fsMkdir(L *glua.LState) int {
	p := L.CheckString(1)
	err := env.inRoot(p, func(r *os.Root, rel string) error {
		if rel == "." {
			return nil
		}
		return r.MkdirAll(rel, 0o755)
	})
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return pushErr(L, err)
	}
	L.Push(glua.LTrue)
	return 1
}
