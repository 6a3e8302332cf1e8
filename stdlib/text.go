package stdlib

// The text module: small string helpers Lua's string library lacks.

import (
	"strings"
	"unicode/utf8"

	glua "github.com/yuin/gopher-lua"
)

func textModule() *Module {
	return &Module{
		Name: "text",
		Doc:  "String helpers (plain text, no Lua patterns). Lengths count UTF-8 characters.",
		Funcs: []Func{
			{Name: "split", Fn: textSplit, Returns: "string[]",
				Params: []Param{{Name: "s", Type: "string"}, {Name: "sep", Type: "string", Optional: true, Doc: "plain separator; default: runs of whitespace"}},
				Doc:    "Splits s at every sep. Without sep, splits at whitespace and drops empty fields."},
			{Name: "trim", Fn: textTrim, Returns: "string",
				Params: []Param{{Name: "s", Type: "string"}},
				Doc:    "Removes leading and trailing whitespace."},
			{Name: "starts_with", Fn: textStartsWith, Returns: "boolean",
				Params: []Param{{Name: "s", Type: "string"}, {Name: "prefix", Type: "string"}},
				Doc:    "Reports whether s begins with prefix."},
			{Name: "ends_with", Fn: textEndsWith, Returns: "boolean",
				Params: []Param{{Name: "s", Type: "string"}, {Name: "suffix", Type: "string"}},
				Doc:    "Reports whether s ends with suffix."},
			{Name: "truncate", Fn: textTruncate, Returns: "string",
				Params: []Param{{Name: "s", Type: "string"}, {Name: "max", Type: "integer"}, {Name: "ellipsis", Type: "string", Optional: true, Doc: `default "…"`}},
				Doc:    "Returns s if it has at most max characters, else its beginning plus the ellipsis, max characters in all."},
		},
	}
}

func textSplit(L *glua.LState) int {
	s := L.CheckString(1)
	var parts []string
	if L.Get(2) == glua.LNil {
		parts = strings.Fields(s)
	} else {
		sep := L.CheckString(2)
		if sep == "" {
			L.ArgError(2, "separator must not be empty")
		}
		parts = strings.Split(s, sep)
	}
	t := NewCodec(L).NewArray(len(parts))
	for i, p := range parts {
		t.RawSetInt(i+1, glua.LString(p))
	}
	L.Push(t)
	return 1
}

func textTrim(L *glua.LState) int {
	L.Push(glua.LString(strings.TrimSpace(L.CheckString(1))))
	return 1
}

func textStartsWith(L *glua.LState) int {
	L.Push(glua.LBool(strings.HasPrefix(L.CheckString(1), L.CheckString(2))))
	return 1
}

func textEndsWith(L *glua.LState) int {
	L.Push(glua.LBool(strings.HasSuffix(L.CheckString(1), L.CheckString(2))))
	return 1
}

func textTruncate(L *glua.LState) int {
	s := L.CheckString(1)
	max := L.CheckInt(2)
	ell := L.OptString(3, "…")
	if max < 0 {
		L.ArgError(2, "max must not be negative")
	}
	if utf8.RuneCountInString(s) <= max {
		L.Push(glua.LString(s))
		return 1
	}
	keep := max - utf8.RuneCountInString(ell)
	if keep < 0 {
		keep = 0
		ell = string([]rune(ell)[:max])
	}
	i, n := 0, 0
	for n < keep {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	L.Push(glua.LString(s[:i] + ell))
	return 1
}
