package stdlib

// The fs module: reads anywhere, writes only under the hook's write roots
// (the working folder, lunar's data folder, the hook's data_dir). A target
// is checked after resolving "..", symlinks and relative paths, so neither
// can lead a write outside the roots.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	glua "github.com/yuin/gopher-lua"
)

func fsModule(env *Env) *Module {
	return &Module{
		Name: "fs",
		Doc:  "Files. Reads anywhere; writes only under the working folder, lunar's data folder and ctx.data_dir. Relative paths are relative to the working folder. Failures return nil and a message.",
		Funcs: []Func{
			{Name: "read", Fn: env.fsRead, Returns: "string?, string?",
				Params: []Param{{Name: "path", Type: "string"}},
				Doc:    "Returns the whole content of a file."},
			{Name: "write", Fn: env.fsWrite, Returns: "true?, string?",
				Params: []Param{{Name: "path", Type: "string"}, {Name: "content", Type: "string"}, {Name: "opts", Type: "fs.WriteOptions", Optional: true}},
				Doc:    "Writes (or with append=true appends to) a file, creating it if needed. The folder must exist (fs.mkdir)."},
			{Name: "list", Fn: env.fsList, Returns: "string[]?, string?",
				Params: []Param{{Name: "path", Type: "string"}},
				Doc:    "Returns the names in a folder, sorted."},
			{Name: "exists", Fn: env.fsExists, Returns: "boolean",
				Params: []Param{{Name: "path", Type: "string"}},
				Doc:    "Reports whether a path exists."},
			{Name: "stat", Fn: env.fsStat, Returns: "fs.Stat?, string?",
				Params: []Param{{Name: "path", Type: "string"}},
				Doc:    "Returns size, kind and modification time of a path."},
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

// resolve returns p with symlinks resolved as far as the path exists; the
// missing tail is appended as is (it cannot contain ".." after Clean).
func resolve(p string) string {
	p = filepath.Clean(p)
	var tail []string
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{r}, tail...)...)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(append([]string{p}, tail...)...)
		}
		tail = append([]string{filepath.Base(p)}, tail...)
		p = parent
	}
}

// Writable reports whether path (absolute, or relative to env.Cwd) lies
// under one of the write roots once resolved.
func (env *Env) Writable(path string) error {
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
			return nil
		}
	}
	return fmt.Errorf("%s: writing outside the working folder and the data folders is not allowed", path)
}

func pushErr(L *glua.LState, err error) int {
	L.Push(glua.LNil)
	L.Push(glua.LString(err.Error()))
	return 2
}

func (env *Env) fsRead(L *glua.LState) int {
	p := L.CheckString(1)
	b, err := os.ReadFile(env.abs(p))
	if err != nil {
		return pushErr(L, err)
	}
	L.Push(glua.LString(b))
	return 1
}

func (env *Env) fsWrite(L *glua.LState) int {
	p := L.CheckString(1)
	content := L.CheckString(2)
	appendMode := false
	if t, ok := L.Get(3).(*glua.LTable); ok {
		appendMode = glua.LVAsBool(t.RawGetString("append"))
	}
	if err := env.Writable(p); err != nil {
		return pushErr(L, err)
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendMode {
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := os.OpenFile(env.abs(p), flags, 0o644)
	if err != nil {
		return pushErr(L, err)
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return pushErr(L, err)
	}
	L.Push(glua.LTrue)
	return 1
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

func (env *Env) fsMkdir(L *glua.LState) int {
	p := L.CheckString(1)
	if err := env.Writable(p); err != nil {
		return pushErr(L, err)
	}
	if err := os.MkdirAll(env.abs(p), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return pushErr(L, err)
	}
	L.Push(glua.LTrue)
	return 1
}
