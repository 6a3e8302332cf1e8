package stdlib

// The re module: regular expressions with Go's regexp (RE2 syntax), for
// what Lua patterns cannot say (alternation, counted repetition, named
// groups) and for matching in linear time whatever the input. Compiled
// expressions are cached (bounded); a long subject is matched in one pass
// per call, and the functions that walk many matches (gsub, split,
// find_all, gmatch) check the call's stop and memory cap as they go.

import (
	"container/list"
	"regexp"
	"strings"
	"sync"

	glua "github.com/yuin/gopher-lua"
)

func reModule() *Module {
	pat := Param{Name: "pattern", Type: "string", Doc: "RE2 syntax, as Go's regexp"}
	return &Module{
		Name: "re",
		Doc: "Regular expressions in RE2 syntax (Go's regexp: no backreferences or lookaround; matching takes time linear in the input). " +
			"Positions are 1-based byte offsets, inclusive, as string.find's. An invalid expression raises an error with the parser's message. " +
			"A capture group that did not take part in a match is nil in returned values and false in match tables.",
		Funcs: []Func{
			{Name: "match", Fn: reMatch, Returns: "string?, ...string?",
				Params: []Param{{Name: "s", Type: "string"}, pat, {Name: "init", Type: "integer", Optional: true, Doc: "where the search starts (negative: from the end); ^ anchors there"}},
				Doc:    "As string.match: the capture groups of the first match, or the whole match when the expression has none; nil when nothing matches."},
			{Name: "find", Fn: reFind, Returns: "integer?, integer?, ...string?",
				Params: []Param{{Name: "s", Type: "string"}, pat, {Name: "init", Type: "integer", Optional: true, Doc: "where the search starts (negative: from the end); ^ anchors there"}},
				Doc:    "As string.find: start and end of the first match, then its capture groups; nil when nothing matches."},
			{Name: "exec", Fn: reExec, Returns: "re.Match?",
				Params: []Param{{Name: "s", Type: "string"}, pat, {Name: "init", Type: "integer", Optional: true}},
				Doc:    "The first match as a table: whole text, position, groups by number and by name; nil when nothing matches."},
			{Name: "find_all", Fn: reFindAll, Returns: "re.Match[]",
				Params: []Param{{Name: "s", Type: "string"}, pat, {Name: "n", Type: "integer", Optional: true, Doc: "at most n matches (default all)"}},
				Doc:    "Every non-overlapping match, as match tables."},
			{Name: "gmatch", Fn: reGmatch, Returns: "fun(): string?, ...string?",
				Params: []Param{{Name: "s", Type: "string"}, pat},
				Doc:    "As string.gmatch: an iterator over the matches, giving the capture groups (or the whole match) of each."},
			{Name: "gsub", Fn: reGsub, Returns: "string, integer",
				Params: []Param{{Name: "s", Type: "string"}, pat,
					{Name: "repl", Type: "string|table|fun(...: string?): string?", Doc: "a string with $1, ${1}, ${name} ($$ for a $; write ${1}x rather than $1x); a table indexed by the first group (or the whole match); or a function given the groups (or the whole match). A nil or false result keeps the match."},
					{Name: "n", Type: "integer", Optional: true, Doc: "replace at most n matches"}},
				Doc: "As string.gsub: s with the matches replaced, and the number of matches."},
			{Name: "split", Fn: reSplit, Returns: "string[]",
				Params: []Param{{Name: "s", Type: "string"}, pat, {Name: "n", Type: "integer", Optional: true, Doc: "at most n pieces, the last one the rest (default all)"}},
				Doc:    "The pieces of s between the matches, as Go's regexp.Split (re.split(\"a,b,\", \",\") is {\"a\", \"b\", \"\"})."},
			{Name: "escape", Fn: reEscape, Returns: "string",
				Params: []Param{{Name: "s", Type: "string"}},
				Doc:    "s with every metacharacter escaped: an expression matching s literally."},
		},
		Classes: []Class{
			{Name: "re.Match", Doc: "One match. [1], [2], ... are the capture groups; named groups are also under their names.", Fields: []Field{
				{Name: "match", Type: "string", Doc: "the whole match"},
				{Name: "start", Type: "integer", Doc: "its first byte (1-based)"},
				{Name: "stop", Type: "integer", Doc: "its last byte (start - 1 for an empty match)"},
				{Name: "[integer]", Type: "string|false"},
				{Name: "[string]", Type: "string|false"}}},
		},
	}
}

// reCacheSize bounds the compiled expressions kept; reCacheMaxLen is the
// longest expression cached (longer ones are compiled at every call).
const (
	reCacheSize   = 256
	reCacheMaxLen = 4096
)

// reCache is a small LRU of compiled expressions, shared by every hook
// (a *regexp.Regexp is safe for concurrent use).
var reCache = struct {
	sync.Mutex
	order *list.List // of *reEntry, most recent first
	byPat map[string]*list.Element
}{order: list.New(), byPat: map[string]*list.Element{}}

type reEntry struct {
	pat string
	re  *regexp.Regexp
}

// compileRE returns the compiled expression at argument idx, raising the
// parser's error as a Lua error.
func compileRE(L *glua.LState, idx int) *regexp.Regexp {
	pat := L.CheckString(idx)
	if len(pat) <= reCacheMaxLen {
		reCache.Lock()
		if el, ok := reCache.byPat[pat]; ok {
			reCache.order.MoveToFront(el)
			re := el.Value.(*reEntry).re
			reCache.Unlock()
			return re
		}
		reCache.Unlock()
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		L.ArgError(idx, err.Error())
	}
	if len(pat) <= reCacheMaxLen {
		reCache.Lock()
		if _, ok := reCache.byPat[pat]; !ok {
			reCache.byPat[pat] = reCache.order.PushFront(&reEntry{pat, re})
			for reCache.order.Len() > reCacheSize {
				old := reCache.order.Remove(reCache.order.Back()).(*reEntry)
				delete(reCache.byPat, old.pat)
			}
		}
		reCache.Unlock()
	}
	return re
}

// reInit reads the optional init argument (1-based, negative from the
// end) as a byte offset; ok is false when it lies past the end.
func reInit(L *glua.LState, idx int, n int) (int, bool) {
	init := L.OptInt(idx, 1)
	switch {
	case init < 0:
		init = max(n+init+1, 1)
	case init == 0:
		init = 1
	}
	if init > n+1 {
		return 0, false
	}
	return init - 1, true
}

// groupValue is group g of match loc in s, or nil when it did not take
// part.
func groupValue(s string, loc []int, g int) glua.LValue {
	if loc[2*g] < 0 {
		return glua.LNil
	}
	return glua.LString(s[loc[2*g]:loc[2*g+1]])
}

// pushGroups pushes the groups of loc (or the whole match when the
// expression has none) and returns how many.
func pushGroups(L *glua.LState, re *regexp.Regexp, s string, loc []int) int {
	n := re.NumSubexp()
	if n == 0 {
		L.Push(glua.LString(s[loc[0]:loc[1]]))
		return 1
	}
	for g := 1; g <= n; g++ {
		L.Push(groupValue(s, loc, g))
	}
	return n
}

// matchTable is a re.Match for loc, positions shifted by off.
func matchTable(L *glua.LState, re *regexp.Regexp, s string, loc []int, off int) *glua.LTable {
	n := re.NumSubexp()
	t := L.CreateTable(n, 3)
	t.RawSetString("match", glua.LString(s[loc[0]:loc[1]]))
	t.RawSetString("start", glua.LNumber(off+loc[0]+1))
	t.RawSetString("stop", glua.LNumber(off+loc[1]))
	names := re.SubexpNames()
	for g := 1; g <= n; g++ {
		v := groupValue(s, loc, g)
		if v == glua.LNil {
			v = glua.LFalse
		}
		t.RawSetInt(g, v)
		if names[g] != "" {
			t.RawSetString(names[g], v)
		}
	}
	return t
}

// reLocate reads the (s, pattern, init) arguments and finds the first
// match at or after init: its submatch indexes relative to s[off:], nil
// when there is none.
func reLocate(L *glua.LState) (s string, re *regexp.Regexp, off int, loc []int) {
	s = L.CheckString(1)
	re = compileRE(L, 2)
	off, ok := reInit(L, 3, len(s))
	if ok {
		loc = re.FindStringSubmatchIndex(s[off:])
	}
	return s, re, off, loc
}

func reMatch(L *glua.LState) int {
	s, re, off, loc := reLocate(L)
	if loc == nil {
		L.Push(glua.LNil)
		return 1
	}
	return pushGroups(L, re, s[off:], loc)
}

func reFind(L *glua.LState) int {
	s, re, off, loc := reLocate(L)
	if loc == nil {
		L.Push(glua.LNil)
		return 1
	}
	L.Push(glua.LNumber(off + loc[0] + 1))
	L.Push(glua.LNumber(off + loc[1]))
	if re.NumSubexp() == 0 {
		return 2
	}
	return 2 + pushGroups(L, re, s[off:], loc)
}

func reExec(L *glua.LState) int {
	s, re, off, loc := reLocate(L)
	if loc == nil {
		L.Push(glua.LNil)
		return 1
	}
	L.Push(matchTable(L, re, s[off:], loc, off))
	return 1
}

// allMatches finds up to n matches (n < 0: all). Go's regexp gathers them
// in one pass, so the number is bounded by what the call's memory cap
// allows for their positions: more is a memory-limit error, raised
// before a runaway expression (say "" over a large subject) takes it.
func allMatches(L *glua.LState, what string, re *regexp.Regexp, s string, n int) [][]int {
	perMatch := int64(24 + 16*(re.NumSubexp()+1)) // slice header + positions
	if lim := limitsOf(L); lim != nil && lim.MaxBytes > 0 {
		most := lim.MaxBytes / perMatch
		if n < 0 || int64(n) > most {
			locs := re.FindAllStringSubmatchIndex(s, int(most)+1)
			if int64(len(locs)) > most {
				L.RaiseError("%s: %s: more than %d matches would take over %s (the cap is %s)", MemoryLimitError, what, most, FormatBytes(most*perMatch), FormatBytes(lim.MaxBytes))
			}
			checkStop(L)
			return locs
		}
	}
	locs := re.FindAllStringSubmatchIndex(s, n)
	checkStop(L)
	return locs
}

func reFindAll(L *glua.LState) int {
	s := L.CheckString(1)
	re := compileRE(L, 2)
	locs := allMatches(L, "re.find_all", re, s, L.OptInt(3, -1))
	out := L.CreateTable(len(locs), 0)
	for i, loc := range locs {
		if i%4096 == 4095 {
			checkStop(L)
		}
		out.RawSetInt(i+1, matchTable(L, re, s, loc, 0))
	}
	L.Push(out)
	return 1
}

func reGmatch(L *glua.LState) int {
	s := L.CheckString(1)
	re := compileRE(L, 2)
	var locs [][]int
	started := false
	i := 0
	L.Push(L.NewFunction(func(L *glua.LState) int {
		if !started {
			started = true
			locs = allMatches(L, "re.gmatch", re, s, -1)
		}
		if i >= len(locs) {
			return 0
		}
		loc := locs[i]
		i++
		return pushGroups(L, re, s, loc)
	}))
	return 1
}

func reGsub(L *glua.LState) int {
	s := L.CheckString(1)
	re := compileRE(L, 2)
	L.CheckTypes(3, glua.LTString, glua.LTNumber, glua.LTTable, glua.LTFunction)
	repl := L.Get(3)
	locs := allMatches(L, "re.gsub", re, s, L.OptInt(4, -1))
	var b strings.Builder
	var dst []byte
	last, checked := 0, 0
	for _, loc := range locs {
		b.WriteString(s[last:loc[0]])
		last = loc[1]
		whole := s[loc[0]:loc[1]]
		switch r := repl.(type) {
		case glua.LString, glua.LNumber:
			dst = re.ExpandString(dst[:0], r.String(), s, loc)
			b.Write(dst)
		case *glua.LTable:
			key := glua.LValue(glua.LString(whole))
			if re.NumSubexp() > 0 {
				key = groupValue(s, loc, 1)
			}
			v := glua.LValue(glua.LNil)
			if key != glua.LNil {
				v = L.GetTable(r, key)
			}
			writeReplacement(L, &b, v, whole)
		case *glua.LFunction:
			L.Push(r)
			nargs := pushGroups(L, re, s, loc)
			L.Call(nargs, 1)
			v := L.Get(-1)
			L.Pop(1)
			writeReplacement(L, &b, v, whole)
		}
		if b.Len()-checked >= chunkSize {
			checked = b.Len()
			checkStop(L)
			holding(L, "re.gsub", int64(b.Len()))
		}
	}
	if len(locs) == 0 {
		L.Push(glua.LString(s))
		L.Push(glua.LNumber(0))
		return 2
	}
	b.WriteString(s[last:])
	holding(L, "re.gsub", int64(b.Len()))
	L.Push(glua.LString(b.String()))
	L.Push(glua.LNumber(len(locs)))
	return 2
}

// writeReplacement writes a table's or function's replacement: the match
// itself for nil or false, else a string or number.
func writeReplacement(L *glua.LState, b *strings.Builder, v glua.LValue, whole string) {
	switch v := v.(type) {
	case glua.LString, glua.LNumber:
		b.WriteString(v.String())
	default:
		if glua.LVIsFalse(v) {
			b.WriteString(whole)
			return
		}
		L.RaiseError("invalid replacement value (a %s)", v.Type())
	}
}

func reSplit(L *glua.LState) int {
	s := L.CheckString(1)
	re := compileRE(L, 2)
	n := L.OptInt(3, -1)
	out := L.CreateTable(0, 0)
	if n == 0 {
		L.Push(out)
		return 1
	}
	if len(s) == 0 {
		out.RawSetInt(1, glua.LString(""))
		L.Push(out)
		return 1
	}
	// as Go's regexp.Split
	locs := allMatches(L, "re.split", re, s, n)
	pieces, beg, end := 0, 0, 0
	for _, loc := range locs {
		if n > 0 && pieces == n-1 {
			break
		}
		end = loc[0]
		if loc[1] != 0 {
			pieces++
			out.RawSetInt(pieces, glua.LString(s[beg:end]))
		}
		beg = loc[1]
	}
	if end != len(s) {
		out.RawSetInt(pieces+1, glua.LString(s[beg:]))
	}
	L.Push(out)
	return 1
}

func reEscape(L *glua.LState) int {
	L.Push(glua.LString(regexp.QuoteMeta(L.CheckString(1))))
	return 1
}
