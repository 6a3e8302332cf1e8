package stdlib

// The utf8 module: Lua 5.1's strings are bytes; these count and cut them
// by characters (code points), as Lua 5.3's utf8 library does.

import (
	"strings"
	"unicode/utf8"

	glua "github.com/yuin/gopher-lua"
)

func utf8Module() *Module {
	return &Module{
		Name: "utf8",
		Doc:  "UTF-8 strings by characters (code points) rather than bytes. Positions are 1-based character indexes; negative ones count from the end, as in string.sub.",
		Funcs: []Func{
			{Name: "len", Fn: utf8Len, Returns: "integer?, integer?",
				Params: []Param{{Name: "s", Type: "string"}},
				Doc:    "The number of characters of s; nil and the byte position of the first invalid byte when s is not valid UTF-8."},
			{Name: "sub", Fn: utf8Sub, Returns: "string",
				Params: []Param{{Name: "s", Type: "string"}, {Name: "i", Type: "integer"}, {Name: "j", Type: "integer", Optional: true, Doc: "default -1 (the last character)"}},
				Doc:    "The characters i to j of s, never cutting one in half (an invalid byte counts as one character)."},
			{Name: "codepoint", Fn: utf8Codepoint, Returns: "integer...",
				Params: []Param{{Name: "s", Type: "string"}, {Name: "i", Type: "integer", Optional: true, Doc: "default 1"}, {Name: "j", Type: "integer", Optional: true, Doc: "default i"}},
				Doc:    "The code points of the characters i to j (an invalid byte is U+FFFD)."},
			{Name: "char", Fn: utf8Char, Returns: "string",
				Params: []Param{{Name: "...", Type: "integer"}},
				Doc:    "The string of the given code points (an invalid one becomes U+FFFD)."},
			{Name: "valid", Fn: utf8Valid, Returns: "boolean",
				Params: []Param{{Name: "s", Type: "string"}},
				Doc:    "Reports whether s is valid UTF-8."},
		},
	}
}

func utf8Len(L *glua.LState) int {
	s := L.CheckString(1)
	n := 0
	for i := 0; i < len(s); n++ {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			L.Push(glua.LNil)
			L.Push(glua.LNumber(i + 1))
			return 2
		}
		i += size
	}
	L.Push(glua.LNumber(n))
	return 1
}

// charRange turns string.sub-style character positions i..j of a string
// of n characters into a 0-based half-open range [from, to).
func charRange(i, j, n int) (from, to int) {
	if i < 0 {
		i = max(n+i+1, 1)
	} else if i == 0 {
		i = 1
	}
	if j < 0 {
		j = n + j + 1
	} else if j > n {
		j = n
	}
	if i > j {
		return 0, 0
	}
	return i - 1, j
}

// runeStarts returns the byte offset of every character of s, plus len(s).
func runeStarts(s string) []int {
	starts := make([]int, 0, len(s)+1)
	for i := 0; i < len(s); {
		starts = append(starts, i)
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return append(starts, len(s))
}

func utf8Sub(L *glua.LState) int {
	s := L.CheckString(1)
	starts := runeStarts(s)
	from, to := charRange(L.CheckInt(2), L.OptInt(3, -1), len(starts)-1)
	L.Push(glua.LString(s[starts[from]:starts[to]]))
	return 1
}

func utf8Codepoint(L *glua.LState) int {
	s := L.CheckString(1)
	i := L.OptInt(2, 1)
	starts := runeStarts(s)
	from, to := charRange(i, L.OptInt(3, i), len(starts)-1)
	if to-from > 10000 {
		L.ArgError(3, "range too large (at most 10000 characters)")
	}
	for k := from; k < to; k++ {
		r, _ := utf8.DecodeRuneInString(s[starts[k]:])
		L.Push(glua.LNumber(r))
	}
	return to - from
}

func utf8Char(L *glua.LState) int {
	var b strings.Builder
	for i := 1; i <= L.GetTop(); i++ {
		b.WriteRune(rune(L.CheckInt(i)))
	}
	L.Push(glua.LString(b.String()))
	return 1
}

func utf8Valid(L *glua.LState) int {
	L.Push(glua.LBool(utf8.ValidString(L.CheckString(1))))
	return 1
}
