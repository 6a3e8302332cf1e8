// Package pattern is Lua 5.1's pattern matching (reference manual §5.4.1)
// for lunar's string library, written so that a hook's call can be
// stopped: the matcher keeps its backtracking choices in a slice, at most
// one for each repeated item of the pattern, so a pattern never recurses
// in Go whatever the subject's length; and it calls a check function
// every few thousand steps, so a cancelled call ends at once however
// pathological the pattern.
//
// This file turns a pattern's text into items; match.go runs them and
// set.go holds the character classes.
//
// Where the manual is silent (malformed patterns, a set mixing ranges and
// classes), the package answers as gopher-lua's pm package, which hooks
// used before, with its error messages; where pm departs from the manual
// this package follows the manual and the reference interpreter: the
// frontier %f[set] (pm reads "%f" as a literal "f"), "[a-b-c]" (pm drops
// the b), and a back-reference to a position capture (pm panics). The
// tests compare the two on random patterns and list these cases.
package pattern

import (
	"fmt"
	"strings"
)

// kind is what an item matches.
type kind uint8

const (
	single   kind = iota // one byte of set, repeated as rep says
	backref              // the text of capture n again
	balance              // %bxy: from x to its matching y
	frontier             // %f[set]: between a byte not in set and one in it
	open                 // the start of capture n
	close                // the end of capture n
	position             // the position capture n, "()"
	atEnd                // "$" at the end of the pattern: the subject's end
	never                // a trailing "%" or an incomplete "%b": no match
	posRef               // a back-reference to a position capture: no match
	badRef               // a back-reference to no closed capture: an error when reached
)

// item is one element of a pattern.
type item struct {
	kind kind
	// rep is the repetition of a single item: 0 (once), '*', '+', '-'
	// or '?'.
	rep byte
	// x and y are %b's delimiters.
	x, y byte
	// n is the capture of open, close, position and backref.
	n   int
	set byteSet
}

// Pattern is a compiled pattern; it may be shared between goroutines.
type Pattern struct {
	items    []item
	anchored bool
	// positional[n] says capture n is a position capture.
	positional []bool
	// choices is how many items can leave a backtracking choice.
	choices int
}

// Anchored reports whether the pattern starts with "^": it is tried at
// the starting offset only.
func (p *Pattern) Anchored() bool { return p.anchored }

// captures is the number of captures.
func (p *Pattern) captures() int { return len(p.positional) }

// errorAt is a malformed pattern's error; at < 0 is the pattern's end.
func errorAt(msg string, at int) error {
	if at < 0 {
		return fmt.Errorf("%s at EOS", msg)
	}
	return fmt.Errorf("%s at %d", msg, at)
}

// Compile parses a Lua pattern.
func Compile(src string) (*Pattern, error) {
	p := &Pattern{}
	i := 0
	if strings.HasPrefix(src, "^") {
		p.anchored = true
		i = 1
	}
	var unclosed []int // captures opened and not yet closed, innermost last
	var closed []bool  // closed[n]: capture n is closed at this point
	newCapture := func(pos bool) int {
		p.positional = append(p.positional, pos)
		closed = append(closed, pos)
		return len(p.positional) - 1
	}
	for i < len(src) {
		c := src[i]
		var next byte
		if i+1 < len(src) {
			next = src[i+1]
		}
		switch {
		case c == '(' && i+1 < len(src) && next == ')':
			p.items = append(p.items, item{kind: position, n: newCapture(true)})
			i += 2
		case c == '(':
			n := newCapture(false)
			unclosed = append(unclosed, n)
			p.items = append(p.items, item{kind: open, n: n})
			i++
		case c == ')':
			if len(unclosed) == 0 {
				return nil, errorAt("invalid ')'", max(i-1, 0))
			}
			n := unclosed[len(unclosed)-1]
			unclosed = unclosed[:len(unclosed)-1]
			closed[n] = true
			p.items = append(p.items, item{kind: close, n: n})
			i++
		case c == '$' && i == len(src)-1:
			p.items = append(p.items, item{kind: atEnd})
			i++
		case c == '%' && next == 'b':
			if i+3 >= len(src) {
				p.items = append(p.items, item{kind: never})
				i = len(src)
				break
			}
			p.items = append(p.items, item{kind: balance, x: src[i+2], y: src[i+3]})
			i += 4
		case c == '%' && next == 'f':
			if i+2 >= len(src) || src[i+2] != '[' {
				return nil, errorAt("missing '[' after '%f' in pattern", i+1)
			}
			set, end, err := parseSet(src, i+2)
			if err != nil {
				return nil, err
			}
			p.items = append(p.items, item{kind: frontier, set: set})
			i = end
		case c == '%' && next >= '0' && next <= '9':
			if next == '0' {
				return nil, errorAt("invalid capture index", i)
			}
			n := int(next - '1')
			it := item{kind: badRef, n: n}
			if n < len(closed) && closed[n] {
				it = item{kind: backref, n: n}
				if p.positional[n] {
					// Lua 5.1 compares the subject with a position
					// capture's length, which it marks with a value no
					// text has.
					it = item{kind: posRef}
				}
			}
			p.items = append(p.items, it)
			i += 2
		case c == '%' && i+1 == len(src):
			p.items = append(p.items, item{kind: never})
			i++
		default:
			set, end, err := parseSingle(src, i)
			if err != nil {
				return nil, err
			}
			it := item{kind: single, set: set}
			if end < len(src) && strings.IndexByte("*+-?", src[end]) >= 0 {
				it.rep = src[end]
				end++
				p.choices++
			}
			p.items = append(p.items, it)
			i = end
		}
	}
	if len(unclosed) > 0 {
		return nil, errorAt("unfinished capture", -1)
	}
	return p, nil
}

// parseSingle parses the single-byte class at src[i] (".", "%x", a set or
// a plain byte) and returns it and where it ends.
func parseSingle(src string, i int) (byteSet, int, error) {
	switch src[i] {
	case '.':
		return anyByte, i + 1, nil
	case '%':
		return escaped(src[i+1]), i + 2, nil
	case '[':
		return parseSet(src, i)
	}
	return byteSet{}.with(src[i]), i + 1, nil
}

// parseSet parses the set that starts with the "[" at src[i] and returns
// it and where it ends. A "]" right after "[" or "[^" is in the set; "%"
// escapes the byte after it, which then closes no set and starts no range.
func parseSet(src string, i int) (byteSet, int, error) {
	first := i + 1
	negate := first < len(src) && src[first] == '^'
	if negate {
		first++
	}
	last := first // the closing "]"
	for {
		if last >= len(src) {
			return byteSet{}, 0, errorAt("unexpected EOS", len(src)-1)
		}
		if src[last] == '%' {
			if last+1 >= len(src) {
				return byteSet{}, 0, errorAt("unexpected EOS", -1)
			}
			last += 2
			continue
		}
		if src[last] == ']' && last > first {
			break
		}
		last++
	}
	var set byteSet
	for j := first; j < last; {
		switch {
		case src[j] == '%':
			set = set.union(escaped(src[j+1]))
			j += 2
		case j+2 < last && src[j+1] == '-':
			set = set.union(byteRange(src[j], src[j+2]))
			j += 3
		default:
			set = set.with(src[j])
			j++
		}
	}
	if negate {
		set = set.complement()
	}
	return set, last + 1, nil
}
