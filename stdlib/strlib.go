package stdlib

// This file holds lunar's versions of the string functions that can run
// long or build large values. They behave as gopher-lua's (same patterns,
// same results, but for the frontier %f and a few bugs of gopher-lua's
// listed in stdlib/internal/pattern) but stop when the hook call is
// stopped and reserve what they build against the call's memory cap: the
// pattern functions match with stdlib/internal/pattern, which checks the
// context as it backtracks; gmatch finds one match per iteration instead of all of them
// up front; gsub builds its result in one pass (gopher-lua's copies the
// whole string once per match).

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
	"unsafe"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/stdlib/internal/pattern"
)

// LimitLibs replaces, in L's string and table libraries and base library
// (opened before), the functions that can run long or build large values
// with versions bounded by the call's context and Limits (WithLimits):
// string.find, match, gmatch, gsub, rep, format, upper, lower, reverse;
// table.concat, table.sort; load and loadstring, which refuse chunks
// larger than MaxChunk.
func LimitLibs(L *glua.LState) {
	if s, ok := L.GetGlobal("string").(*glua.LTable); ok {
		for name, fn := range map[string]glua.LGFunction{
			"find": strFind, "match": strMatch, "gmatch": strGmatch, "gfind": strGmatch, "gsub": strGsub,
			"rep": strRep, "format": strFormat, "upper": strUpper, "lower": strLower, "reverse": strReverse,
		} {
			s.RawSetString(name, L.NewFunction(fn))
		}
	}
	if t, ok := L.GetGlobal("table").(*glua.LTable); ok {
		t.RawSetString("concat", L.NewFunction(tabConcat))
		t.RawSetString("sort", L.NewFunction(tabSort))
	}
	if L.GetGlobal("load") != glua.LNil {
		L.SetGlobal("load", L.NewFunction(baseLoad))
	}
	if L.GetGlobal("loadstring") != glua.LNil {
		L.SetGlobal("loadstring", L.NewFunction(baseLoadString))
	}
}

// compile compiles a pattern, raising its error.
func compile(L *glua.LState, p string) *pattern.Pattern {
	pat, err := pattern.Compile(p)
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	return pat
}

// matcher returns a matcher that stops when L's call is stopped.
func matcher(L *glua.LState) *pattern.Matcher {
	return &pattern.Matcher{Check: func() error { return stopped(L) }}
}

// next finds the next match, raising errors (a stopped call raises the
// context's error, like the VM).
func next(L *glua.LState, mt *pattern.Matcher, pat *pattern.Pattern, s string, from int) (*pattern.Match, int) {
	m, nxt, err := mt.Next(pat, s, from)
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	return m, nxt
}

// pushCaptures pushes captures 1.. of m (or the whole match when there are
// none, if whole) and returns how many.
func pushCaptures(L *glua.LState, m *pattern.Match, s string, whole bool) int {
	if m.CaptureLength() == 2 && whole {
		L.Push(glua.LString(s[m.Capture(0):m.Capture(1)]))
		return 1
	}
	n := 0
	for i := 2; i < m.CaptureLength(); i += 2 {
		if m.IsPosCapture(i) {
			L.Push(glua.LNumber(m.Capture(i)))
		} else {
			L.Push(glua.LString(s[m.Capture(i):m.Capture(i+1)]))
		}
		n++
	}
	return n
}

// strIndex converts a Lua string index (1-based, negative from the end)
// to an offset, as gopher-lua does.
func strIndex(s string, i int, start bool) int {
	if start && i != 0 {
		i--
	}
	l := len(s)
	if i < 0 {
		i = l + i + 1
	}
	i = max(0, i)
	if !start && i > l {
		i = l
	}
	return i
}

func strFind(L *glua.LState) int {
	s := L.CheckString(1)
	p := L.CheckString(2)
	if len(p) == 0 {
		L.Push(glua.LNumber(1))
		L.Push(glua.LNumber(0))
		return 2
	}
	init := strIndex(s, L.OptInt(3, 1), true)
	if L.GetTop() == 4 && glua.LVAsBool(L.Get(4)) {
		if init > len(s) {
			L.Push(glua.LNil)
			return 1
		}
		pos := strings.Index(s[init:], p)
		if pos < 0 {
			L.Push(glua.LNil)
			return 1
		}
		L.Push(glua.LNumber(init + pos + 1))
		L.Push(glua.LNumber(init + pos + len(p)))
		return 2
	}
	m, _ := next(L, matcher(L), compile(L, p), s, init)
	if m == nil {
		L.Push(glua.LNil)
		return 1
	}
	L.Push(glua.LNumber(m.Capture(0) + 1))
	L.Push(glua.LNumber(m.Capture(1)))
	return 2 + pushCaptures(L, m, s, false)
}

func strMatch(L *glua.LState) int {
	s := L.CheckString(1)
	p := L.CheckString(2)
	offset := L.OptInt(3, 1)
	if offset < 0 {
		offset = len(s) + offset + 1
	}
	offset = max(offset-1, 0)
	m, _ := next(L, matcher(L), compile(L, p), s, offset)
	if m == nil {
		L.Push(glua.LNil)
		return 1
	}
	return pushCaptures(L, m, s, true)
}

// strGmatch returns an iterator that finds one match per call.
func strGmatch(L *glua.LState) int {
	s := L.CheckString(1)
	pat := compile(L, L.CheckString(2))
	pos := 0
	var mt pattern.Matcher
	L.Push(L.NewFunction(func(L *glua.LState) int {
		if pos > len(s) {
			return 0
		}
		mt.Check = func() error { return stopped(L) }
		m, nxt := next(L, &mt, pat, s, pos)
		pos = nxt
		if m == nil {
			return 0
		}
		return pushCaptures(L, m, s, true)
	}))
	return 1
}

// replPiece is a piece of a gsub replacement string: a literal or a
// capture (slot >= 0).
type replPiece struct {
	lit  string
	slot int
}

// parseRepl splits a replacement string as gopher-lua reads it: "%%" is
// "%", "%0".."%9" a capture, "%" before any other character stays as is.
func parseRepl(r string) []replPiece {
	var out []replPiece
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			out = append(out, replPiece{lit: lit.String(), slot: -1})
			lit.Reset()
		}
	}
	for i := 0; i < len(r); i++ {
		c := r[i]
		if c == '%' && i+1 < len(r) {
			i++
			switch d := r[i]; {
			case d == '%':
				lit.WriteByte('%')
			case d >= '0' && d <= '9':
				flush()
				out = append(out, replPiece{slot: 2 * int(d-'0')})
			default:
				lit.WriteByte('%')
				lit.WriteByte(d)
			}
			continue
		}
		lit.WriteByte(c)
	}
	flush()
	return out
}

// captured is capture slot idx of m as gsub's %n reads it: %1 without
// captures is the whole match; a position capture is its number.
func captured(L *glua.LState, m *pattern.Match, s string, idx int) string {
	if idx > 2 && idx >= m.CaptureLength() {
		L.RaiseError("invalid capture index")
	}
	if idx >= m.CaptureLength() && idx == 2 {
		idx = 0
	}
	if m.IsPosCapture(idx) {
		return fmt.Sprint(m.Capture(idx))
	}
	return s[m.Capture(idx):m.Capture(idx+1)]
}

func strGsub(L *glua.LState) int {
	s := L.CheckString(1)
	pat := compile(L, L.CheckString(2))
	L.CheckTypes(3, glua.LTString, glua.LTTable, glua.LTFunction)
	repl := L.CheckAny(3)
	limit := L.OptInt(4, -1)
	var pieces []replPiece
	if r, ok := repl.(glua.LString); ok {
		pieces = parseRepl(string(r))
	}
	mt := matcher(L)
	var b strings.Builder
	count, last, checked := 0, 0, 0
	for from := 0; from <= len(s) && limit != 0; limit-- {
		m, nxt := next(L, mt, pat, s, from)
		if m == nil {
			break
		}
		from = nxt
		count++
		start, end := m.Capture(0), m.Capture(1)
		b.WriteString(s[last:start])
		last = end
		switch r := repl.(type) {
		case glua.LString:
			for _, p := range pieces {
				if p.slot < 0 {
					b.WriteString(p.lit)
				} else {
					b.WriteString(captured(L, m, s, p.slot))
				}
			}
		case *glua.LTable:
			idx := 0
			if m.CaptureLength() > 2 {
				idx = 2
			}
			var v glua.LValue
			if m.IsPosCapture(idx) {
				v = L.GetTable(r, glua.LNumber(m.Capture(idx)))
			} else {
				v = L.GetField(r, s[m.Capture(idx):m.Capture(idx+1)])
			}
			if glua.LVIsFalse(v) {
				b.WriteString(s[start:end])
			} else {
				b.WriteString(glua.LVAsString(v))
			}
		case *glua.LFunction:
			L.Push(r)
			nargs := 0
			if m.CaptureLength() > 2 {
				for i := 2; i < m.CaptureLength(); i += 2 {
					if m.IsPosCapture(i) {
						L.Push(glua.LNumber(m.Capture(i)))
					} else {
						L.Push(glua.LString(captured(L, m, s, i)))
					}
					nargs++
				}
			} else {
				L.Push(glua.LString(captured(L, m, s, 0)))
				nargs++
			}
			L.Call(nargs, 1)
			v := L.Get(-1)
			L.Pop(1)
			if glua.LVIsFalse(v) {
				b.WriteString(s[start:end])
			} else {
				b.WriteString(glua.LVAsString(v))
			}
		}
		if b.Len()-checked >= chunkSize {
			checked = b.Len()
			checkStop(L)
			holding(L, "string.gsub", int64(b.Len()))
		}
	}
	if count == 0 {
		L.SetTop(1)
		L.Push(glua.LNumber(0))
		return 2
	}
	b.WriteString(s[last:])
	L.Push(glua.LString(b.String()))
	L.Push(glua.LNumber(count))
	return 2
}

func strRep(L *glua.LState) int {
	s := L.CheckString(1)
	n := L.CheckInt(2)
	if n <= 0 || len(s) == 0 {
		L.Push(glua.LString(""))
		return 1
	}
	if n > math.MaxInt/len(s) {
		L.RaiseError("%s: string.rep would take more than %s", MemoryLimitError, FormatBytes(math.MaxInt64))
	}
	total := len(s) * n
	reserve(L, "string.rep", int64(total))
	if total <= chunkSize {
		L.Push(glua.LString(strings.Repeat(s, n)))
		return 1
	}
	// Double the copied prefix, a bounded step at a time, checking the
	// context between steps; every step is a whole number of copies.
	buf := make([]byte, total)
	filled := copy(buf, s)
	step := max(len(s), chunkSize/len(s)*len(s))
	for filled < total {
		checkStop(L)
		filled += copy(buf[filled:], buf[:min(filled, step, total-filled)])
	}
	L.Push(glua.LString(unsafe.String(&buf[0], len(buf))))
	return 1
}

// strFormat formats one directive at a time, so that a huge width or a
// long run of directives is refused as it grows instead of after Go has
// built it. Each directive takes the next argument (or those its "*"
// widths ask for); arguments without a directive are ignored and a
// directive without an argument prints Go's %!v(MISSING).
func strFormat(L *glua.LState) int {
	f := L.CheckString(1)
	top := L.GetTop()
	arg := 2
	var b strings.Builder
	for i := 0; i < len(f); {
		j := strings.IndexByte(f[i:], '%')
		if j < 0 {
			b.WriteString(f[i:])
			break
		}
		b.WriteString(f[i : i+j])
		i += j
		if i+1 < len(f) && f[i+1] == '%' {
			b.WriteByte('%')
			i += 2
			continue
		}
		// %[flags][width][.precision]verb
		k := i + 1
		stars := 0
		for k < len(f) && strings.IndexByte("+- #0123456789.*", f[k]) >= 0 {
			if f[k] == '*' {
				stars++
			}
			k++
		}
		if k < len(f) {
			_, size := utf8.DecodeRuneInString(f[k:])
			k += size
		}
		var args []any
		for range stars + 1 {
			if arg <= top {
				args = append(args, L.Get(arg))
				arg++
			}
		}
		piece := fmt.Sprintf(f[i:k], args...)
		reserve(L, "string.format", int64(b.Len()+len(piece)))
		b.WriteString(piece)
		i = k
		if len(piece) >= 4096 {
			checkStop(L)
		}
	}
	L.Push(glua.LString(b.String()))
	return 1
}

// mapChunks applies f to s a megabyte at a time (cut where a UTF-8
// sequence starts), checking the context in between.
func mapChunks(L *glua.LState, what, s string, f func(string) string) string {
	if len(s) <= chunkSize {
		return f(s)
	}
	reserve(L, what, int64(len(s)))
	var b strings.Builder
	b.Grow(len(s))
	for len(s) > 0 {
		checkStop(L)
		n := min(chunkSize, len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		b.WriteString(f(s[:n]))
		s = s[n:]
	}
	return b.String()
}

func strUpper(L *glua.LState) int {
	L.Push(glua.LString(mapChunks(L, "string.upper", L.CheckString(1), strings.ToUpper)))
	return 1
}

func strLower(L *glua.LState) int {
	L.Push(glua.LString(mapChunks(L, "string.lower", L.CheckString(1), strings.ToLower)))
	return 1
}

func strReverse(L *glua.LState) int {
	s := L.CheckString(1)
	reserve(L, "string.reverse", int64(len(s)))
	out := make([]byte, len(s))
	for i, j := 0, len(s)-1; j >= 0; i, j = i+1, j-1 {
		if i%chunkSize == chunkSize-1 {
			checkStop(L)
		}
		out[i] = s[j]
	}
	L.Push(glua.LString(unsafe.String(unsafe.SliceData(out), len(out))))
	return 1
}
