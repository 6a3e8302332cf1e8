package stdlib

// This file holds lunar's table.concat and table.sort, which check the
// call's context and memory cap (gopher-lua's push every element on the
// Lua stack, which fails past 128k elements, and sort without a way to
// stop), and load/loadstring, which refuse chunks too large to compile
// quickly: compiling takes time no timeout can interrupt and tens of
// times the source's size in memory.

import (
	"fmt"
	"sort"
	"strings"

	glua "github.com/yuin/gopher-lua"
)

// MaxChunk is the largest chunk load and loadstring compile.
const MaxChunk = 256 << 10

func tabConcat(L *glua.LState) int {
	tbl := L.CheckTable(1)
	sep := L.OptString(2, "")
	n := tbl.Len()
	i := L.OptInt(3, 1)
	j := L.OptInt(4, n)
	// gopher-lua's clamping, kept as is
	if L.GetTop() == 3 && (i > n || i < 1) {
		L.Push(glua.LString(""))
		return 1
	}
	i = max(min(i, n), 1)
	j = min(j, n)
	if i > j {
		L.Push(glua.LString(""))
		return 1
	}
	// Two passes over the elements (no Lua code runs in between): sizes
	// and types first, so that the cap is checked before anything is built.
	total := int64(len(sep)) * int64(j-i)
	for k := i; k <= j; k++ {
		v := tbl.RawGetInt(k)
		if !glua.LVCanConvToString(v) {
			L.RaiseError("invalid value (%s) at index %d in table for concat", v.Type().String(), k)
		}
		if s, ok := v.(glua.LString); ok {
			total += int64(len(s))
		} else {
			total += int64(len(glua.LVAsString(v)))
		}
		if k%65536 == 0 {
			checkStop(L)
		}
	}
	reserve(L, "table.concat", total)
	var b strings.Builder
	b.Grow(int(total))
	last := 0
	for k := i; k <= j; k++ {
		if k > i {
			b.WriteString(sep)
		}
		b.WriteString(glua.LVAsString(tbl.RawGetInt(k)))
		if b.Len()-last >= chunkSize || k%65536 == 0 {
			last = b.Len()
			checkStop(L)
		}
	}
	L.Push(glua.LString(b.String()))
	return 1
}

// luaSorter sorts values with Lua's < or a comparison function, checking
// the context every few thousand comparisons.
type luaSorter struct {
	L     *glua.LState
	fn    *glua.LFunction
	vals  []glua.LValue
	calls int
}

func (s *luaSorter) Len() int      { return len(s.vals) }
func (s *luaSorter) Swap(i, j int) { s.vals[i], s.vals[j] = s.vals[j], s.vals[i] }
func (s *luaSorter) Less(i, j int) bool {
	s.calls++
	if s.calls%4096 == 0 {
		checkStop(s.L)
	}
	if s.fn == nil {
		return s.L.LessThan(s.vals[i], s.vals[j])
	}
	s.L.Push(s.fn)
	s.L.Push(s.vals[i])
	s.L.Push(s.vals[j])
	s.L.Call(2, 1)
	v := s.L.Get(-1)
	s.L.Pop(1)
	return glua.LVAsBool(v)
}

// tabSort sorts t[1..#t] in place (the same algorithm as gopher-lua, so
// the same order); on an error the table is left unchanged.
func tabSort(L *glua.LState) int {
	tbl := L.CheckTable(1)
	s := &luaSorter{L: L}
	if L.GetTop() != 1 {
		s.fn = L.CheckFunction(2)
	}
	n := tbl.Len()
	reserve(L, "table.sort", int64(n)*16)
	s.vals = make([]glua.LValue, n)
	for i := range s.vals {
		s.vals[i] = tbl.RawGetInt(i + 1)
	}
	sort.Sort(s)
	for i, v := range s.vals {
		tbl.RawSetInt(i+1, v)
	}
	return 0
}

// chunkTooLarge is load's message for a chunk over MaxChunk.
func chunkTooLarge(n int) glua.LString {
	return glua.LString(fmt.Sprintf("chunk too large: %s (load compiles at most %s)", FormatBytes(int64(n)), FormatBytes(MaxChunk)))
}

func loadChunk(L *glua.LState, src, name string) int {
	if len(src) > MaxChunk {
		L.Push(glua.LNil)
		L.Push(chunkTooLarge(len(src)))
		return 2
	}
	fn, err := L.Load(strings.NewReader(src), name)
	if err != nil {
		L.Push(glua.LNil)
		L.Push(glua.LString(err.Error()))
		return 2
	}
	L.Push(fn)
	return 1
}

func baseLoadString(L *glua.LState) int {
	return loadChunk(L, L.CheckString(1), L.OptString(2, "<string>"))
}

// baseLoad is load(fn, name): fn returns the chunk piece by piece.
func baseLoad(L *glua.LState) int {
	fn := L.CheckFunction(1)
	name := L.OptString(2, "?")
	top := L.GetTop()
	var b strings.Builder
	for {
		L.SetTop(top)
		L.Push(fn)
		L.Call(0, 1)
		ret := L.Get(-1)
		L.Pop(1)
		if ret == glua.LNil {
			break
		}
		if !glua.LVCanConvToString(ret) {
			L.Push(glua.LNil)
			L.Push(glua.LString("reader function must return a string"))
			return 2
		}
		piece := glua.LVAsString(ret)
		if piece == "" {
			break
		}
		if b.Len()+len(piece) > MaxChunk {
			L.Push(glua.LNil)
			L.Push(chunkTooLarge(b.Len() + len(piece)))
			return 2
		}
		b.WriteString(piece)
	}
	return loadChunk(L, b.String(), name)
}
