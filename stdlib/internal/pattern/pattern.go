// Package pattern is Lua 5.1 pattern matching as gopher-lua does it (its
// pm package, MIT licence, Copyright (c) 2015 Yusuke Inuzuka), with two
// changes that let a hook's call be stopped: the matcher backtracks with
// an explicit stack instead of Go recursion (no goroutine stack of
// hundreds of megabytes), and it calls a check function every few
// thousand steps so that a cancelled call ends at once, however
// pathological the pattern. The patterns it accepts and the matches it
// finds are gopher-lua's (a test compares the two), with one addition:
// the frontier pattern %f[set], which gopher-lua reads as a literal "f"
// (a gate written as "%f[%w]rm" would silently never match); here it
// matches as in Lua 5.1-5.4, and "%f" without a set is an error.
package pattern

import (
	"fmt"
)

const (
	eos = -1
	// maxDepth is gopher-lua's recursion limit, kept as the limit of the
	// backtracking stack so that the same inputs fail.
	maxDepth = 1000000
	// checkEvery is how many matcher steps run between two checks.
	checkEvery = 4096
)

// Error is a malformed pattern or a pattern too complex for its input.
type Error struct {
	Pos     int // -1: at the end of the pattern; -2: no position
	Message string
}

func (e *Error) Error() string {
	switch e.Pos {
	case eos:
		return e.Message + " at EOS"
	case -2:
		return e.Message
	}
	return fmt.Sprintf("%s at %d", e.Message, e.Pos)
}

func newError(pos int, format string, args ...any) *Error {
	if len(args) == 0 {
		return &Error{pos, format}
	}
	return &Error{pos, fmt.Sprintf(format, args...)}
}

// Match is one match: capture 0 is the whole match, then each capture.
// Positions are byte offsets into the subject.
type Match struct {
	// captures holds start and end of each capture, shifted left by one;
	// the low bit marks a position capture, "()".
	captures []uint32
}

func (m *Match) addPosCapture(s, pos int) {
	for s+1 >= len(m.captures) {
		m.captures = append(m.captures, 0)
	}
	m.captures[s] = uint32(pos)<<1 | 1
	m.captures[s+1] = uint32(pos)<<1 | 1
}

func (m *Match) setCapture(s, pos int) uint32 {
	for s >= len(m.captures) {
		m.captures = append(m.captures, 0)
	}
	v := m.captures[s]
	m.captures[s] = uint32(pos) << 1
	return v
}

// CaptureLength is twice the number of captures, the whole match included.
func (m *Match) CaptureLength() int { return len(m.captures) }

// IsPosCapture reports whether capture slot idx is a position capture.
func (m *Match) IsPosCapture(idx int) bool { return m.captures[idx]&1 == 1 }

// Capture is the offset in capture slot idx (even: start, odd: end).
func (m *Match) Capture(idx int) int { return int(m.captures[idx] >> 1) }

// scanner reads a pattern.
type scanner struct {
	src   string
	pos   int
	start bool
	saved struct {
		pos   int
		start bool
	}
}

func (sc *scanner) length() int { return len(sc.src) }

func (sc *scanner) next() int {
	if !sc.start {
		sc.start = true
		if len(sc.src) == 0 {
			sc.pos = eos
		}
	} else {
		sc.pos = sc.nextPos()
	}
	if sc.pos == eos {
		return eos
	}
	return int(sc.src[sc.pos])
}

func (sc *scanner) currentPos() int { return sc.pos }

func (sc *scanner) nextPos() int {
	if sc.pos == eos || sc.pos >= len(sc.src)-1 {
		return eos
	}
	if !sc.start {
		return 0
	}
	return sc.pos + 1
}

func (sc *scanner) peek() int {
	cureof := sc.pos == eos
	ch := sc.next()
	if !cureof {
		if sc.pos == eos {
			sc.pos = len(sc.src) - 1
		} else {
			sc.pos--
			if sc.pos < 0 {
				sc.pos = 0
				sc.start = false
			}
		}
	}
	return ch
}

func (sc *scanner) save()    { sc.saved.pos, sc.saved.start = sc.pos, sc.start }
func (sc *scanner) restore() { sc.pos, sc.start = sc.saved.pos, sc.saved.start }

// Instructions of the matcher.
type opCode uint8

const (
	opChar opCode = iota
	opMatch
	opTailMatch
	opJmp
	opSplit
	opSave
	opPSave
	opBrace
	opNumber
	opFrontier
)

type inst struct {
	op    opCode
	class class
	a, b  int
}

// Character classes.
type class interface {
	matches(ch int) bool
}

type dotClass struct{}

func (dotClass) matches(int) bool { return true }

type charClass struct{ ch int }

func (c charClass) matches(ch int) bool { return c.ch == ch }

type singleClass struct{ class int }

func (c singleClass) matches(ch int) bool {
	ret := false
	switch c.class {
	case 'a', 'A':
		ret = 'A' <= ch && ch <= 'Z' || 'a' <= ch && ch <= 'z'
	case 'c', 'C':
		ret = (0x00 <= ch && ch <= 0x1F) || ch == 0x7F
	case 'd', 'D':
		ret = '0' <= ch && ch <= '9'
	case 'l', 'L':
		ret = 'a' <= ch && ch <= 'z'
	case 'p', 'P':
		ret = (0x21 <= ch && ch <= 0x2f) || (0x3a <= ch && ch <= 0x40) || (0x5b <= ch && ch <= 0x60) || (0x7b <= ch && ch <= 0x7e)
	case 's', 'S':
		switch ch {
		case ' ', '\f', '\n', '\r', '\t', '\v':
			ret = true
		}
	case 'u', 'U':
		ret = 'A' <= ch && ch <= 'Z'
	case 'w', 'W':
		ret = '0' <= ch && ch <= '9' || 'A' <= ch && ch <= 'Z' || 'a' <= ch && ch <= 'z'
	case 'x', 'X':
		ret = '0' <= ch && ch <= '9' || 'a' <= ch && ch <= 'f' || 'A' <= ch && ch <= 'F'
	case 'z', 'Z':
		ret = ch == 0
	default:
		return ch == c.class
	}
	if 'A' <= c.class && c.class <= 'Z' {
		return !ret
	}
	return ret
}

type setClass struct {
	not     bool
	classes []class
}

func (c *setClass) matches(ch int) bool {
	for _, cl := range c.classes {
		if cl.matches(ch) {
			return !c.not
		}
	}
	return c.not
}

type rangeClass struct{ begin, end class }

func (c rangeClass) matches(ch int) bool {
	begin, ok := c.begin.(charClass)
	if !ok {
		return false
	}
	end, ok := c.end.(charClass)
	if !ok {
		return false
	}
	return begin.ch <= ch && ch <= end.ch
}

// Parsed patterns.
type (
	node          any
	singlePattern struct{ class class }
	seqPattern    struct {
		mustHead, mustTail bool
		patterns           []node
	}
	repeatPattern struct {
		kind  int
		class class
	}
	posCapPattern struct{}
	capPattern    struct{ pattern node }
	numberPattern struct{ n int }
	bracePattern  struct{ begin, end int }
	// frontierPattern is %f[set]: the empty string between a character
	// not in set and one in set ('\0' before the start and after the end).
	frontierPattern struct{ class class }
)

func parseClass(sc *scanner, allowSet bool) class {
	ch := sc.next()
	switch ch {
	case '%':
		return singleClass{sc.next()}
	case '.':
		if allowSet {
			return dotClass{}
		}
		return charClass{ch}
	case '[':
		if allowSet {
			return parseClassSet(sc)
		}
		return charClass{ch}
	case eos:
		panic(newError(sc.currentPos(), "unexpected EOS"))
	default:
		return charClass{ch}
	}
}

func parseClassSet(sc *scanner) class {
	set := &setClass{}
	if sc.peek() == '^' {
		set.not = true
		sc.next()
	}
	isRange := false
	for {
		ch := sc.peek()
		switch ch {
		case eos:
			panic(newError(sc.currentPos(), "unexpected EOS"))
		case ']':
			if len(set.classes) > 0 {
				sc.next()
				goto exit
			}
			fallthrough
		case '-':
			if len(set.classes) > 0 {
				sc.next()
				isRange = true
				continue
			}
			fallthrough
		default:
			set.classes = append(set.classes, parseClass(sc, false))
		}
		if isRange {
			begin := set.classes[len(set.classes)-2]
			end := set.classes[len(set.classes)-1]
			set.classes = set.classes[:len(set.classes)-2]
			set.classes = append(set.classes, rangeClass{begin, end})
			isRange = false
		}
	}
exit:
	if isRange {
		set.classes = append(set.classes, charClass{'-'})
	}
	return set
}

func parsePattern(sc *scanner, toplevel bool) *seqPattern {
	pat := &seqPattern{}
	if toplevel && sc.peek() == '^' {
		sc.next()
		pat.mustHead = true
	}
	for {
		ch := sc.peek()
		switch ch {
		case '%':
			sc.save()
			sc.next()
			switch sc.peek() {
			case '0':
				panic(newError(sc.currentPos(), "invalid capture index"))
			case '1', '2', '3', '4', '5', '6', '7', '8', '9':
				pat.patterns = append(pat.patterns, &numberPattern{sc.next() - 48})
			case 'b':
				sc.next()
				begin := sc.next()
				pat.patterns = append(pat.patterns, &bracePattern{begin, sc.next()})
			case 'f':
				sc.next()
				if sc.peek() != '[' {
					panic(&Error{sc.currentPos(), "missing '[' after '%f' in pattern"})
				}
				pat.patterns = append(pat.patterns, &frontierPattern{parseClass(sc, true)})
			default:
				sc.restore()
				pat.patterns = append(pat.patterns, &singlePattern{parseClass(sc, true)})
			}
		case '.', '[', ']':
			pat.patterns = append(pat.patterns, &singlePattern{parseClass(sc, true)})
		case ')':
			if toplevel {
				panic(newError(sc.currentPos(), "invalid ')'"))
			}
			return pat
		case '(':
			sc.next()
			if sc.peek() == ')' {
				sc.next()
				pat.patterns = append(pat.patterns, &posCapPattern{})
			} else {
				ret := &capPattern{parsePattern(sc, false)}
				if sc.peek() != ')' {
					panic(newError(sc.currentPos(), "unfinished capture"))
				}
				sc.next()
				pat.patterns = append(pat.patterns, ret)
			}
		case '*', '+', '-', '?':
			sc.next()
			if n := len(pat.patterns); n > 0 {
				if sp, ok := pat.patterns[n-1].(*singlePattern); ok {
					pat.patterns[n-1] = &repeatPattern{ch, sp.class}
					continue
				}
			}
			pat.patterns = append(pat.patterns, &singlePattern{charClass{ch}})
		case '$':
			if toplevel && (sc.nextPos() == sc.length()-1 || sc.nextPos() == eos) {
				pat.mustTail = true
			} else {
				pat.patterns = append(pat.patterns, &singlePattern{charClass{ch}})
			}
			sc.next()
		case eos:
			sc.next()
			return pat
		default:
			sc.next()
			pat.patterns = append(pat.patterns, &singlePattern{charClass{ch}})
		}
	}
}

type program struct {
	insts   []inst
	capture int
}

func (p *program) compile(n node) {
	switch pat := n.(type) {
	case *singlePattern:
		p.insts = append(p.insts, inst{op: opChar, class: pat.class})
	case *seqPattern:
		for _, cp := range pat.patterns {
			p.compile(cp)
		}
	case *repeatPattern:
		idx := len(p.insts)
		switch pat.kind {
		case '*':
			p.insts = append(p.insts,
				inst{op: opSplit, a: idx + 1, b: idx + 3},
				inst{op: opChar, class: pat.class},
				inst{op: opJmp, a: idx})
		case '+':
			p.insts = append(p.insts,
				inst{op: opChar, class: pat.class},
				inst{op: opSplit, a: idx, b: idx + 2})
		case '-':
			p.insts = append(p.insts,
				inst{op: opSplit, a: idx + 3, b: idx + 1},
				inst{op: opChar, class: pat.class},
				inst{op: opJmp, a: idx})
		case '?':
			p.insts = append(p.insts,
				inst{op: opSplit, a: idx + 1, b: idx + 2},
				inst{op: opChar, class: pat.class})
		}
	case *posCapPattern:
		p.insts = append(p.insts, inst{op: opPSave, a: p.capture})
		p.capture += 2
	case *capPattern:
		c0, c1 := p.capture, p.capture+1
		p.capture += 2
		p.insts = append(p.insts, inst{op: opSave, a: c0})
		p.compile(pat.pattern)
		p.insts = append(p.insts, inst{op: opSave, a: c1})
	case *bracePattern:
		p.insts = append(p.insts, inst{op: opBrace, a: pat.begin, b: pat.end})
	case *numberPattern:
		p.insts = append(p.insts, inst{op: opNumber, a: pat.n})
	case *frontierPattern:
		p.insts = append(p.insts, inst{op: opFrontier, class: pat.class})
	}
}

// Pattern is a compiled pattern.
type Pattern struct {
	insts    []inst
	anchored bool
}

// Compile parses a Lua pattern.
func Compile(p string) (pat *Pattern, err error) {
	defer func() {
		if v := recover(); v != nil {
			if perr, ok := v.(*Error); ok {
				err = perr
				return
			}
			err = newError(-2, "malformed pattern (%v)", v)
		}
	}()
	seq := parsePattern(&scanner{src: p}, true)
	prog := &program{insts: []inst{{op: opSave, a: 0}}, capture: 2}
	prog.compile(seq)
	if seq.mustTail {
		prog.insts = append(prog.insts, inst{op: opSave, a: 1}, inst{op: opTailMatch})
	}
	prog.insts = append(prog.insts, inst{op: opSave, a: 1}, inst{op: opMatch})
	return &Pattern{insts: prog.insts, anchored: seq.mustHead}, nil
}

// Anchored reports whether the pattern starts with "^": it is tried at
// the starting offset only.
func (p *Pattern) Anchored() bool { return p.anchored }

// Matcher runs patterns. Its check function, when set, is called every
// few thousand steps; an error it returns ends the match with that error.
// A Matcher is not safe for concurrent use.
type Matcher struct {
	Check func() error

	steps int
	stack []frame
	spare *Match // reused across failed attempts
}

// frame is a backtracking entry: an alternative to try (slot < 0: resume
// at pc, sp) or a capture to restore (slot >= 0: captures[slot] = old).
type frame struct {
	slot int32
	old  uint32
	pc   int
	sp   int
}

func (mt *Matcher) tick(n int) error {
	mt.steps += n
	if mt.steps < checkEvery {
		return nil
	}
	mt.steps = 0
	if mt.Check != nil {
		return mt.Check()
	}
	return nil
}

// matchAt tries the pattern at offset sp only.
func (mt *Matcher) matchAt(p *Pattern, src string, sp int) (bool, int, *Match, error) {
	m := mt.spare
	if m == nil {
		m = &Match{}
		mt.spare = m
	}
	m.captures = m.captures[:0]
	insts := p.insts
	stack := mt.stack[:0]
	defer func() { mt.stack = stack[:0] }()
	pc := 0
	for {
		if err := mt.tick(1); err != nil {
			return false, sp, m, err
		}
		in := &insts[pc]
		ok := true
		switch in.op {
		case opChar:
			if sp >= len(src) || !in.class.matches(int(src[sp])) {
				ok = false
				break
			}
			pc++
			sp++
		case opMatch:
			mt.spare = nil
			return true, sp, m, nil
		case opTailMatch:
			if sp >= len(src) {
				mt.spare = nil
				return true, sp, m, nil
			}
			ok = false
		case opJmp:
			pc = in.a
		case opSplit:
			if len(stack)+1 >= maxDepth {
				return false, sp, m, newError(-2, "pattern/input too complex")
			}
			stack = append(stack, frame{slot: -1, pc: in.b, sp: sp})
			pc = in.a
		case opSave:
			if len(stack)+1 >= maxDepth {
				return false, sp, m, newError(-2, "pattern/input too complex")
			}
			old := m.setCapture(in.a, sp)
			stack = append(stack, frame{slot: int32(in.a), old: old})
			pc++
		case opPSave:
			m.addPosCapture(in.a, sp+1)
			pc++
		case opBrace:
			if sp >= len(src) || int(src[sp]) != in.a {
				ok = false
				break
			}
			count := 1
			start := sp
			found := false
			for sp = sp + 1; sp < len(src); sp++ {
				if int(src[sp]) == in.b {
					count--
				}
				if count == 0 {
					pc++
					sp++
					found = true
					break
				}
				if int(src[sp]) == in.a {
					count++
				}
			}
			if err := mt.tick(sp - start); err != nil {
				return false, sp, m, err
			}
			ok = found
		case opNumber:
			idx := in.a * 2
			if idx >= m.CaptureLength()-1 {
				return false, sp, m, newError(-2, "invalid capture index")
			}
			from, to := m.Capture(idx), m.Capture(idx+1)
			if from > to || to > len(src) {
				// gopher-lua panics here (a capture still open)
				return false, sp, m, newError(-2, "invalid capture index")
			}
			capture := src[from:to]
			if err := mt.tick(len(capture)); err != nil {
				return false, sp, m, err
			}
			if len(src)-sp < len(capture) || src[sp:sp+len(capture)] != capture {
				ok = false
				break
			}
			pc++
			sp += len(capture)
		case opFrontier:
			prev, cur := 0, 0
			if sp > 0 {
				prev = int(src[sp-1])
			}
			if sp < len(src) {
				cur = int(src[sp])
			}
			if in.class.matches(prev) || !in.class.matches(cur) {
				ok = false
				break
			}
			pc++
		default:
			panic("pattern: unknown instruction")
		}
		if ok {
			continue
		}
		// Backtrack: undo captures down to the newest alternative.
		for {
			if len(stack) == 0 {
				return false, sp, m, nil
			}
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if f.slot >= 0 {
				m.captures[f.slot] = f.old
				continue
			}
			pc, sp = f.pc, f.sp
			break
		}
	}
}

// Next finds the first match at or after offset from (only at from when
// the pattern is anchored). It returns the match, or nil, and where the
// search for the following match starts (past the match, and at least one
// byte on); next > len(src) means there is none.
func (mt *Matcher) Next(p *Pattern, src string, from int) (m *Match, next int, err error) {
	for sp := from; sp <= len(src); {
		ok, nsp, md, err := mt.matchAt(p, src, sp)
		if err != nil {
			return nil, len(src) + 1, err
		}
		sp++
		if ok {
			if sp < nsp {
				sp = nsp
			}
			if p.anchored {
				sp = len(src) + 1
			}
			return md, sp, nil
		}
		if p.anchored {
			break
		}
	}
	return nil, len(src) + 1, nil
}

// Find returns up to limit matches (limit < 0: all) starting at offset,
// as gopher-lua's pm.Find does.
func (mt *Matcher) Find(p *Pattern, src string, offset, limit int) ([]*Match, error) {
	var out []*Match
	for from := offset; from <= len(src) && limit != 0; {
		m, next, err := mt.Next(p, src, from)
		if err != nil {
			return nil, err
		}
		if m == nil {
			break
		}
		out = append(out, m)
		limit--
		from = next
	}
	return out, nil
}
