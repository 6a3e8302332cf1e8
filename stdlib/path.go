package stdlib

// The path module: file path manipulation as Go's path/filepath does it on
// the current OS (separators, volume names). Pure string operations: no
// function touches the file system.

import (
	"path/filepath"
	"strings"

	glua "github.com/yuin/gopher-lua"
)

func pathModule(env *Env) *Module {
	return &Module{
		Name: "path",
		Doc:  "File paths, as Go's path/filepath handles them on the current OS (\\ and volumes on Windows). Pure string operations: nothing here reads the file system.",
		Funcs: []Func{
			{Name: "join", Fn: pathJoin, Returns: "string",
				Params: []Param{{Name: "...", Type: "string"}},
				Doc:    "Joins the parts with the separator and cleans the result (empty parts are ignored; \"\" when all are empty)."},
			{Name: "resolve", Fn: env.pathResolve, Returns: "string",
				Params: []Param{{Name: "...", Type: "string"}},
				Doc:    "Resolves the parts, right to left, into a clean absolute path: the last absolute part starts it; relative parts are taken against the working folder (ctx.cwd)."},
			{Name: "relative", Fn: env.pathRelative, Returns: "string?, string?",
				Params: []Param{{Name: "from", Type: "string"}, {Name: "to", Type: "string"}},
				Doc:    "The path of to relative to from (both resolved against the working folder first); nil and a message when there is none (different volumes)."},
			{Name: "dirname", Fn: pathDirname, Returns: "string",
				Params: []Param{{Name: "p", Type: "string"}},
				Doc:    "All but the last element (\".\" for a bare name)."},
			{Name: "basename", Fn: pathBasename, Returns: "string",
				Params: []Param{{Name: "p", Type: "string"}, {Name: "suffix", Type: "string", Optional: true, Doc: "removed from the end when present (\".lua\")"}},
				Doc:    "The last element, trailing separators removed."},
			{Name: "ext", Fn: pathExt, Returns: "string",
				Params: []Param{{Name: "p", Type: "string"}},
				Doc:    "The extension of the last element, with its dot (\".go\"); \"\" when it has none."},
			{Name: "is_abs", Fn: pathIsAbs, Returns: "boolean",
				Params: []Param{{Name: "p", Type: "string"}},
				Doc:    "Reports whether p is absolute."},
			{Name: "normalize", Fn: pathNormalize, Returns: "string",
				Params: []Param{{Name: "p", Type: "string"}},
				Doc:    "Cleans p: no repeated separators, no . elements, .. resolved where it can be (\".\" for \"\")."},
		},
		Fields: []Field{{Name: "sep", Type: "string", Doc: "the separator: \"/\", or \"\\\\\" on Windows"}},
		Init: func(_ *glua.LState, mod *glua.LTable) {
			mod.RawSetString("sep", glua.LString(string(filepath.Separator)))
		},
	}
}

// pathArgs reads every argument as a string.
func pathArgs(L *glua.LState) []string {
	parts := make([]string, L.GetTop())
	for i := range parts {
		parts[i] = L.CheckString(i + 1)
	}
	return parts
}

func pathJoin(L *glua.LState) int {
	L.Push(glua.LString(filepath.Join(pathArgs(L)...)))
	return 1
}

func (env *Env) pathResolve(L *glua.LState) int {
	parts := pathArgs(L)
	start := 0
	for i, p := range parts {
		if filepath.IsAbs(p) {
			start = i
		}
	}
	L.Push(glua.LString(env.abs(filepath.Join(parts[start:]...))))
	return 1
}

func (env *Env) pathRelative(L *glua.LState) int {
	rel, err := filepath.Rel(env.abs(L.CheckString(1)), env.abs(L.CheckString(2)))
	if err != nil {
		L.Push(glua.LNil)
		L.Push(glua.LString(err.Error()))
		return 2
	}
	L.Push(glua.LString(rel))
	return 1
}

func pathDirname(L *glua.LState) int {
	L.Push(glua.LString(filepath.Dir(L.CheckString(1))))
	return 1
}

func pathBasename(L *glua.LState) int {
	base := filepath.Base(L.CheckString(1))
	if suffix := L.OptString(2, ""); suffix != "" && suffix != base {
		base = strings.TrimSuffix(base, suffix)
	}
	L.Push(glua.LString(base))
	return 1
}

func pathExt(L *glua.LState) int {
	L.Push(glua.LString(filepath.Ext(L.CheckString(1))))
	return 1
}

func pathIsAbs(L *glua.LState) int {
	L.Push(glua.LBool(filepath.IsAbs(L.CheckString(1))))
	return 1
}

func pathNormalize(L *glua.LState) int {
	L.Push(glua.LString(filepath.Clean(L.CheckString(1))))
	return 1
}
