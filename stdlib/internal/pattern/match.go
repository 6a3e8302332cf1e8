// Running a compiled pattern over a subject. A pattern is a straight line
// of items, so a match walks them in order and, on failure, goes back to
// the last item that can take another length (a repetition, "?"): one
// choice per such item, kept in a slice. Captures need no undoing: each
// capture is written only by its own items, which the walk passes again
// after going back before them.

package pattern

import (
	"errors"
	"strings"
)

// checkEvery is how many steps (items tried, bytes scanned) run between
// two calls of the check function.
const checkEvery = 4096

// errCaptureIndex is a back-reference to a capture that is not closed
// where it stands (or does not exist), raised when the matcher reaches it
// as Lua does.
var errCaptureIndex = errors.New("invalid capture index")

// Match is a match's span and captures.
type Match struct {
	// spans holds start, end of the whole match, then of each capture;
	// a position capture holds its 1-based position twice.
	spans      []int
	positional []bool
	inline     [4]int // spans without a capture or with one: one allocation a match
}

// CaptureLength is the number of entries: 2 for the whole match and 2 for
// each capture.
func (m *Match) CaptureLength() int { return len(m.spans) }

// IsPosCapture reports whether entry idx belongs to a position capture.
func (m *Match) IsPosCapture(idx int) bool { return idx >= 2 && m.positional[idx/2-1] }

// Capture is entry idx: a byte offset, or a position capture's 1-based
// position.
func (m *Match) Capture(idx int) int { return m.spans[idx] }

// Matcher runs patterns. Its check function, when set, is called every
// few thousand steps; an error it returns ends the match with that error.
// A Matcher is not safe for concurrent use; its zero value is ready.
type Matcher struct {
	Check func() error

	steps   int      // steps since the last check
	spans   []int    // the captures of the match being tried
	choices []choice // the items that can take another length, innermost last
}

// choice is a repeated item that can match a different number of bytes:
// it started at base and takes n bytes now.
type choice struct {
	item, base, n int
}

// spend counts n steps, calling the check function when they add up.
func (mt *Matcher) spend(n int) error {
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

// Next finds the first match at or after offset from (only at from when
// the pattern is anchored). It returns the match, or nil, and where the
// search for the following match starts (past the match, and at least one
// byte on); next > len(src) means there is none.
func (mt *Matcher) Next(p *Pattern, src string, from int) (m *Match, next int, err error) {
	first := firstSet(p)
	for start := from; start <= len(src); start++ {
		if first != nil && (start == len(src) || !first.has(src[start])) {
			if p.anchored {
				break
			}
			continue
		}
		end, ok, err := mt.matchAt(p, src, start)
		if err != nil {
			return nil, len(src) + 1, err
		}
		if ok {
			m := &Match{positional: p.positional}
			if n := len(mt.spans); n <= len(m.inline) {
				m.spans = m.inline[:n]
			} else {
				m.spans = make([]int, n)
			}
			copy(m.spans, mt.spans)
			next := max(end, start+1)
			if p.anchored {
				next = len(src) + 1
			}
			return m, next, nil
		}
		if p.anchored {
			break
		}
	}
	return nil, len(src) + 1, nil
}

// firstSet is the set the first byte of any match is in, when the
// pattern starts with an item that must take one, so that a search skips
// the offsets where no match can start.
func firstSet(p *Pattern) *byteSet {
	if len(p.items) > 0 {
		if it := &p.items[0]; it.kind == single && (it.rep == 0 || it.rep == '+') {
			return &it.set
		}
	}
	return nil
}

// Find returns up to limit matches (limit < 0: all) starting at offset,
// as gopher-lua's pm.Find does.
func (mt *Matcher) Find(p *Pattern, src string, offset, limit int) ([]*Match, error) {
	var out []*Match
	for from := offset; from <= len(src) && limit != 0; limit-- {
		m, next, err := mt.Next(p, src, from)
		if err != nil {
			return nil, err
		}
		if m == nil {
			break
		}
		out = append(out, m)
		from = next
	}
	return out, nil
}

// matchAt matches p at offset start of s only, leaving the captures in
// mt.spans, and returns where the match ends.
func (mt *Matcher) matchAt(p *Pattern, s string, start int) (int, bool, error) {
	if n := 2 + 2*p.captures(); cap(mt.spans) < n {
		mt.spans = make([]int, n)
	} else {
		mt.spans = mt.spans[:n]
	}
	mt.choices = mt.choices[:0]
	spans := mt.spans
	spans[0] = start
	i, at := 0, start
	for {
		if err := mt.spend(1); err != nil {
			return 0, false, err
		}
		if i == len(p.items) {
			spans[1] = at
			return at, true, nil
		}
		it := &p.items[i]
		ok := true
		switch it.kind {
		case single:
			switch it.rep {
			case 0:
				ok = at < len(s) && it.set.has(s[at])
				if ok {
					at++
				}
			case '*', '+':
				n := 0
				for at+n < len(s) && it.set.has(s[at+n]) {
					n++
				}
				if err := mt.spend(n); err != nil {
					return 0, false, err
				}
				least := 0
				if it.rep == '+' {
					least = 1
				}
				ok = n >= least
				if n > least {
					mt.choices = append(mt.choices, choice{item: i, base: at, n: n})
				}
				at += n
			case '-':
				mt.choices = append(mt.choices, choice{item: i, base: at})
			case '?':
				if at < len(s) && it.set.has(s[at]) {
					mt.choices = append(mt.choices, choice{item: i, base: at, n: 1})
					at++
				}
			}
		case open:
			spans[2+2*it.n] = at
		case close:
			spans[3+2*it.n] = at
		case position:
			spans[2+2*it.n] = at + 1
			spans[3+2*it.n] = at + 1
		case backref:
			text := s[spans[2+2*it.n]:spans[3+2*it.n]]
			if err := mt.spend(len(text)); err != nil {
				return 0, false, err
			}
			ok = strings.HasPrefix(s[at:], text)
			if ok {
				at += len(text)
			}
		case balance:
			end, err := mt.balanced(s, at, it.x, it.y)
			if err != nil {
				return 0, false, err
			}
			ok = end >= 0
			if ok {
				at = end
			}
		case frontier:
			var before, here byte // the byte 0 outside the subject, as in C
			if at > 0 {
				before = s[at-1]
			}
			if at < len(s) {
				here = s[at]
			}
			ok = !it.set.has(before) && it.set.has(here)
		case atEnd:
			ok = at == len(s)
		case never, posRef:
			ok = false
		case badRef:
			return 0, false, errCaptureIndex
		}
		if ok {
			i++
			continue
		}
		var found bool
		if i, at, found = mt.retry(p, s); !found {
			return 0, false, nil
		}
	}
}

// retry takes the innermost choice's next length and returns the item to
// go on from and the offset; false when no choice is left.
func (mt *Matcher) retry(p *Pattern, s string) (int, int, bool) {
	for len(mt.choices) > 0 {
		c := &mt.choices[len(mt.choices)-1]
		it := &p.items[c.item]
		switch it.rep {
		case '*', '+':
			// one byte fewer; the last choice pops it
			c.n--
			at, item := c.base+c.n, c.item
			if c.n == 0 || (c.n == 1 && it.rep == '+') {
				mt.choices = mt.choices[:len(mt.choices)-1]
			}
			return item + 1, at, true
		case '-':
			// one byte more, if the item takes it
			if at := c.base + c.n; at < len(s) && it.set.has(s[at]) {
				c.n++
				return c.item + 1, at + 1, true
			}
		case '?':
			// without the byte
			at, item := c.base, c.item
			mt.choices = mt.choices[:len(mt.choices)-1]
			return item + 1, at, true
		}
		mt.choices = mt.choices[:len(mt.choices)-1]
	}
	return 0, 0, false
}

// balanced matches %bxy at s[at:]: x, then bytes up to the y that closes
// it, x and y nesting. It returns the offset past that y, or -1.
func (mt *Matcher) balanced(s string, at int, x, y byte) (int, error) {
	if at >= len(s) || s[at] != x {
		return -1, nil
	}
	depth := 1
	for j := at + 1; j < len(s); j++ {
		if j&1023 == 0 {
			if err := mt.spend(1024); err != nil {
				return -1, err
			}
		}
		switch s[j] {
		case y:
			if depth--; depth == 0 {
				return j + 1, nil
			}
		case x:
			depth++
		}
	}
	return -1, nil
}
