package session

// A small JSON scanner with JSON.parse's grammar, shared by the typed entry
// decoder (codec.go) and the order-preserving generic values (jsvalue.go).
//
// When a whole session file is loaded, decoded strings without escapes are
// substrings of the file buffer (no copy) and escaped strings are unescaped
// into a shared arena: this keeps loading fast and its memory close to the
// file size. The file buffer is never written to after loading.

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// maxDepth bounds nesting so a hostile line cannot exhaust the stack.
const maxDepth = 10000

// errSyntax is wrapped by every syntax error.
var errSyntax = errors.New("invalid JSON")

// scanner reads JSON from data starting at pos.
type scanner struct {
	data []byte
	pos  int

	// view is data as a string when decoded strings may share its memory
	// (zero copy); "" means strings are copied.
	view  string
	arena *arena
	// inPlace, when set, decodes long escaped strings into their own
	// bytes in data (see inplace.go); data is then written to.
	inPlace *inPlace
}

func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("%w at offset %d: %s", errSyntax, s.pos, fmt.Sprintf(format, args...))
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (s *scanner) skipSpace() {
	for s.pos < len(s.data) && isSpace(s.data[s.pos]) {
		s.pos++
	}
}

// peek returns the next non-space byte without consuming it (0 at the end).
func (s *scanner) peek() byte {
	s.skipSpace()
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// expect consumes the next non-space byte, which must be c.
func (s *scanner) expect(c byte) error {
	if s.peek() != c {
		if s.pos >= len(s.data) {
			return s.errorf("unexpected end, want %q", c)
		}
		return s.errorf("unexpected %q, want %q", s.data[s.pos], c)
	}
	s.pos++
	return nil
}

// end checks that only whitespace follows.
func (s *scanner) end() error {
	s.skipSpace()
	if s.pos != len(s.data) {
		return s.errorf("unexpected %q after the value", s.data[s.pos])
	}
	return nil
}

// objectStart consumes '{' and reports whether the object is empty (its
// '}' consumed too).
func (s *scanner) objectStart() (empty bool, err error) {
	if err := s.expect('{'); err != nil {
		return false, err
	}
	if s.peek() == '}' {
		s.pos++
		return true, nil
	}
	return false, nil
}

// objectNext is called after a member value: it consumes ',' (more members
// follow) or '}' (done).
func (s *scanner) objectNext() (more bool, err error) {
	switch s.peek() {
	case ',':
		s.pos++
		return true, nil
	case '}':
		s.pos++
		return false, nil
	}
	return false, s.errorf("want ',' or '}' in object")
}

// arrayStart and arrayNext are objectStart and objectNext for arrays.
func (s *scanner) arrayStart() (empty bool, err error) {
	if err := s.expect('['); err != nil {
		return false, err
	}
	if s.peek() == ']' {
		s.pos++
		return true, nil
	}
	return false, nil
}

func (s *scanner) arrayNext() (more bool, err error) {
	switch s.peek() {
	case ',':
		s.pos++
		return true, nil
	case ']':
		s.pos++
		return false, nil
	}
	return false, s.errorf("want ',' or ']' in array")
}

// key reads a member name and its ':'. The returned bytes are only valid
// until the next call (escaped names are unescaped into scratch).
func (s *scanner) key(scratch *[]byte) ([]byte, error) {
	if s.peek() != '"' {
		return nil, s.errorf("want a member name")
	}
	start := s.pos + 1
	end, escaped, err := s.stringEnd()
	if err != nil {
		return nil, err
	}
	k := s.data[start:end]
	if escaped {
		*scratch = unescape((*scratch)[:0], k)
		k = *scratch
	}
	if err := s.expect(':'); err != nil {
		return nil, err
	}
	return k, nil
}

// stringEnd scans the string starting at pos (a '"'), leaves pos after its
// closing quote and returns the index of that quote and whether the
// string has escapes. Raw control characters are rejected as JSON.parse
// does.
func (s *scanner) stringEnd() (end int, escaped bool, err error) {
	end, escaped, _, err = s.scanString(false)
	return end, escaped, err
}

// scanString is stringEnd; with check set, it also reports whether the
// string's body is what JSON.stringify writes for its decoded form (so
// that the line can be rebuilt after decoding it in place, see
// inplace.go): its raw bytes are valid UTF-8 and each escape is one
// JSON.stringify writes.
func (s *scanner) scanString(check bool) (end int, escaped, stringified bool, err error) {
	i := s.pos + 1
	d := s.data
	stringified = check
	for i < len(d) {
		i += plainLen(d[i:], stringified)
		if i >= len(d) {
			break
		}
		c := d[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return i, escaped, stringified, nil
		case c == '\\':
			escaped = true
			if i+1 >= len(d) {
				s.pos = i
				return 0, false, false, s.errorf("unterminated escape")
			}
			switch d[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i += 2
			case '/':
				stringified = false
				i += 2
			case 'u':
				if i+6 > len(d) || !isHex4(d[i+2:i+6]) {
					s.pos = i
					return 0, false, false, s.errorf("bad \\u escape")
				}
				if stringified {
					stringified = stringifiedEscape(d, i)
				}
				i += 6
			default:
				s.pos = i
				return 0, false, false, s.errorf("bad escape \\%c", d[i+1])
			}
		case c < 0x20:
			s.pos = i
			return 0, false, false, s.errorf("control character in string")
		case c >= utf8.RuneSelf && stringified:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				stringified = false
			}
			i += size
		default:
			i++
		}
	}
	s.pos = i
	return 0, false, false, s.errorf("unterminated string")
}

// stringifiedEscape reports whether the valid \u escape at b[i:] is one
// JSON.stringify writes: lowercase hex, for a control character without
// a short escape or for a surrogate that is not the high half of an
// escaped pair (such a pair decodes to a character written as it is).
func stringifiedEscape(b []byte, i int) bool {
	hex := b[i+2 : i+6]
	for _, h := range hex {
		if 'A' <= h && h <= 'F' {
			return false
		}
	}
	switch r := hexVal(hex); {
	case r < 0x20:
		return strings.IndexByte(shortEscapes, byte(r)) < 0
	case 0xD800 <= r && r < 0xDC00:
		if i+12 <= len(b) && b[i+6] == '\\' && b[i+7] == 'u' && isHex4(b[i+8:i+12]) {
			if lo := hexVal(b[i+8 : i+12]); 0xDC00 <= lo && lo < 0xE000 {
				return false
			}
		}
		return true
	case 0xDC00 <= r && r < 0xE000:
		return true
	}
	return false
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func hexVal(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c <= '9':
			r |= rune(c - '0')
		case c >= 'a':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// unescape appends the decoded form of a validated string body. A lone
// UTF-16 surrogate (which JavaScript strings may hold) is kept as its
// 3-byte WTF-8 form so that it is written back as the same \u escape.
func unescape(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		c := src[i]
		if c != '\\' {
			j := len(src)
			if k := bytes.IndexByte(src[i+1:], '\\'); k >= 0 {
				j = i + 1 + k
			}
			dst = append(dst, src[i:j]...)
			i = j
			continue
		}
		switch src[i+1] {
		case '"', '\\', '/':
			dst = append(dst, src[i+1])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hexVal(src[i+2 : i+6])
			if 0xD800 <= r && r < 0xDC00 && i+12 <= len(src) && src[i+6] == '\\' && src[i+7] == 'u' {
				if lo := hexVal(src[i+8 : i+12]); 0xDC00 <= lo && lo < 0xE000 {
					dst = utf8.AppendRune(dst, 0x10000+(r-0xD800)<<10+(lo-0xDC00))
					i += 12
					continue
				}
			}
			if 0xD800 <= r && r < 0xE000 {
				dst = append(dst, 0xED, byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
			} else {
				dst = utf8.AppendRune(dst, r)
			}
			i += 6
			continue
		}
		i += 2
	}
	return dst
}

// str reads a string value.
func (s *scanner) str() (string, error) {
	if s.peek() != '"' {
		return "", s.errorf("want a string")
	}
	start := s.pos + 1
	end, escaped, stringified, err := s.scanString(s.inPlace != nil)
	if err != nil {
		return "", err
	}
	body := s.data[start:end]
	if !escaped {
		if s.view != "" {
			return s.view[start:end], nil
		}
		return string(body), nil
	}
	if stringified && len(body) >= inPlaceMin {
		if v, ok := s.inPlace.decode(s.data, start, end); ok {
			return v, nil
		}
	}
	if s.arena != nil {
		return s.arena.unescape(body), nil
	}
	return string(unescape(make([]byte, 0, len(body)), body)), nil
}

// numberToken validates a number with JSON's grammar and returns its text.
func (s *scanner) numberToken() ([]byte, error) {
	s.skipSpace()
	d := s.data
	start := s.pos
	i := start
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	default:
		s.pos = i
		return nil, s.errorf("want a number")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.pos = i
			return nil, s.errorf("want a digit after '.'")
		}
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.pos = i
			return nil, s.errorf("want a digit in exponent")
		}
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	}
	s.pos = i
	return d[start:i], nil
}

// float reads a number as JavaScript does (IEEE double; out of range
// values become ±Inf or 0).
func (s *scanner) float() (float64, error) {
	tok, err := s.numberToken()
	if err != nil {
		return 0, err
	}
	return parseFloat(tok), nil
}

func parseFloat(tok []byte) float64 {
	// Small integers are by far the most common: skip strconv for them.
	if n := len(tok); n > 0 && n < 16 {
		neg := tok[0] == '-'
		digits := tok
		if neg {
			digits = tok[1:]
		}
		var v int64
		ok := len(digits) > 0
		for _, c := range digits {
			if c < '0' || c > '9' {
				ok = false
				break
			}
			v = v*10 + int64(c-'0')
		}
		if ok {
			if neg {
				if v == 0 {
					return negZero
				}
				return float64(-v)
			}
			return float64(v)
		}
	}
	f, _ := strconv.ParseFloat(unsafe.String(unsafe.SliceData(tok), len(tok)), 64)
	return f
}

var negZero = func() float64 { var z float64; return -z }()

// int reads a number and converts it to an int64 the way a JavaScript
// number holding an integer would be (fractions truncated).
func (s *scanner) int() (int64, error) {
	f, err := s.float()
	if err != nil {
		return 0, err
	}
	return floatToInt(f), nil
}

func floatToInt(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= 9.2e18:
		return 1<<63 - 1
	case f <= -9.2e18:
		return -1 << 63
	}
	return int64(f)
}

// literal consumes the literal word (true, false or null).
func (s *scanner) literal(word string) error {
	s.skipSpace()
	if len(s.data)-s.pos < len(word) || string(s.data[s.pos:s.pos+len(word)]) != word {
		return s.errorf("want %s", word)
	}
	s.pos += len(word)
	return nil
}

// boolean reads true or false.
func (s *scanner) boolean() (bool, error) {
	switch s.peek() {
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	}
	return false, s.errorf("want true or false")
}

// skip consumes any value, validating it.
func (s *scanner) skip(depth int) error {
	if depth > maxDepth {
		return s.errorf("nesting too deep")
	}
	switch c := s.peek(); c {
	case '{':
		empty, err := s.objectStart()
		if err != nil || empty {
			return err
		}
		for {
			if s.peek() != '"' {
				return s.errorf("want a member name")
			}
			if _, _, err := s.stringEnd(); err != nil {
				return err
			}
			if err := s.expect(':'); err != nil {
				return err
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			more, err := s.objectNext()
			if err != nil || !more {
				return err
			}
		}
	case '[':
		empty, err := s.arrayStart()
		if err != nil || empty {
			return err
		}
		for {
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			more, err := s.arrayNext()
			if err != nil || !more {
				return err
			}
		}
	case '"':
		_, _, err := s.stringEnd()
		return err
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	case 0:
		return s.errorf("unexpected end")
	default:
		_, err := s.numberToken()
		return err
	}
}

// raw consumes any value and returns its exact text. In zero-copy mode it
// shares the buffer (capacity limited, so appending to it cannot clobber
// the bytes after it); otherwise it is a copy.
func (s *scanner) raw() ([]byte, error) {
	s.skipSpace()
	start := s.pos
	if err := s.skip(0); err != nil {
		return nil, err
	}
	if s.view != "" {
		return s.data[start:s.pos:s.pos], nil
	}
	return append([]byte(nil), s.data[start:s.pos]...), nil
}

// isNull consumes a null if one comes next.
func (s *scanner) isNull() (bool, error) {
	if s.peek() != 'n' {
		return false, nil
	}
	return true, s.literal("null")
}

// arena hands out strings carved from large shared blocks, so that
// millions of small decoded strings cost neither per-object headers nor
// size-class rounding. Bytes are only ever appended to a block, never
// changed once a string refers to them.
type arena struct {
	block []byte
	next  int // size of the next block
}

const (
	arenaMinBlock = 16 << 10
	arenaMaxBlock = 1 << 20
)

// unescape decodes a validated string body into the arena.
func (a *arena) unescape(body []byte) string {
	n := len(body) // the decoded form is never longer
	if n > arenaMaxBlock/8 {
		b := unescape(make([]byte, 0, n), body)
		return unsafe.String(unsafe.SliceData(b), len(b))
	}
	if cap(a.block)-len(a.block) < n {
		if a.next < arenaMinBlock {
			a.next = arenaMinBlock
		}
		a.block = make([]byte, 0, a.next)
		if a.next < arenaMaxBlock {
			a.next *= 2
		}
	}
	start := len(a.block)
	a.block = unescape(a.block, body)
	if len(a.block) == start {
		return ""
	}
	return unsafe.String(&a.block[start], len(a.block)-start)
}
