package session

// JavaScript-compatible JSON: the string and number forms JSON.stringify
// writes, and an order-preserving generic value that behaves like a
// JavaScript object (used where pi re-serialises parsed objects: migration,
// forking, and normalising embedded raw JSON).

import (
	"math"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// shortEscapes are the bytes JSON escapes with a backslash and one letter.
const shortEscapes = "\"\\\b\f\n\r\t"

// AppendEscape appends JSON's escape of c, an ASCII byte a JSON string
// cannot hold as it is ('"', '\\' or a control character): a backslash
// and a letter where JSON has one (\n, \t, ...), otherwise \u00XX in
// lowercase hex, as JSON.stringify writes it.
func AppendEscape(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}

// appendJSString appends s as JSON.stringify writes a string: only '"',
// '\\' and control characters are escaped (U+2028, U+2029, '<', '>', '&'
// are not), \u escapes use lowercase hex. A lone surrogate held in WTF-8
// form is written as its \u escape; other invalid UTF-8 becomes U+FFFD.
func appendJSString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if i += PlainLen(s[i:]); i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b = AppendEscape(append(b, s[start:i]...), c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			if i+2 < len(s) && c == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2] >= 0x80 && s[i+2] <= 0xBF {
				u := 0xD000 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
				b = append(b, '\\', 'u', hexDigits[u>>12], hexDigits[u>>8&0xF], hexDigits[u>>4&0xF], hexDigits[u&0xF])
				i += 3
			} else {
				b = append(b, "\uFFFD"...)
				i++
			}
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendJSNumber appends f as JavaScript's Number.prototype.toString (and
// so JSON.stringify) writes it: shortest round-trip digits, plain notation
// for 1e-7 < |f| < 1e21, otherwise exponent notation like 1e-7 or
// 1.5e+21; NaN and ±Infinity become null, -0 becomes 0.
func appendJSNumber(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return append(b, "null"...)
	case f == 0:
		return append(b, '0')
	case f == math.Trunc(f) && math.Abs(f) < 1<<53:
		return strconv.AppendInt(b, int64(f), 10)
	}
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	// Shortest digits d1.d2...dk and exponent e, value = 0.d1...dk × 10^n.
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	mant, exp := e, 0
	for i, c := range e {
		if c == 'e' {
			mant = e[:i]
			x, _ := strconv.Atoi(string(e[i+1:]))
			exp = x
			break
		}
	}
	var digits [24]byte
	k := 0
	for _, c := range mant {
		if c != '.' {
			digits[k] = c
			k++
		}
	}
	n := exp + 1
	switch {
	case k <= n && n <= 21:
		b = append(b, digits[:k]...)
		for range n - k {
			b = append(b, '0')
		}
	case 0 < n && n <= 21:
		b = append(b, digits[:n]...)
		b = append(b, '.')
		b = append(b, digits[n:k]...)
	case -6 < n && n <= 0:
		b = append(b, '0', '.')
		for range -n {
			b = append(b, '0')
		}
		b = append(b, digits[:k]...)
	default:
		b = append(b, digits[0])
		if k > 1 {
			b = append(b, '.')
			b = append(b, digits[1:k]...)
		}
		b = append(b, 'e')
		if n-1 >= 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(n-1), 10)
	}
	return b
}

// jsKind is the type of a jsValue.
type jsKind uint8

const (
	jsNull jsKind = iota
	jsBool
	jsNumber
	jsString
	jsArray
	jsObject
)

// jsValue is a parsed JSON value with JavaScript semantics: numbers are
// doubles, strings are what JSON.parse would produce, and objects keep
// their members in JavaScript property order.
type jsValue struct {
	kind jsKind
	b    bool
	num  float64
	str  string
	arr  []jsValue
	obj  *jsObj
}

// jsObj is a JavaScript object's own properties in enumeration order:
// array-index names first (ascending), then the others in insertion order.
type jsObj struct {
	keys []string
	vals []jsValue
}

func (o *jsObj) index(k string) int {
	for i, key := range o.keys {
		if key == k {
			return i
		}
	}
	return -1
}

// get returns the member named k.
func (o *jsObj) get(k string) (jsValue, bool) {
	if i := o.index(k); i >= 0 {
		return o.vals[i], true
	}
	return jsValue{}, false
}

// set assigns a property the way JavaScript does: an existing property
// keeps its position; a new one goes after the others (array-index names
// into their numeric place among the leading index names).
func (o *jsObj) set(k string, v jsValue) {
	if i := o.index(k); i >= 0 {
		o.vals[i] = v
		return
	}
	pos := len(o.keys)
	if idx, ok := arrayIndex(k); ok {
		pos = 0
		for pos < len(o.keys) {
			j, isIdx := arrayIndex(o.keys[pos])
			if !isIdx || j > idx {
				break
			}
			pos++
		}
	}
	o.keys = append(o.keys, "")
	o.vals = append(o.vals, jsValue{})
	copy(o.keys[pos+1:], o.keys[pos:])
	copy(o.vals[pos+1:], o.vals[pos:])
	o.keys[pos], o.vals[pos] = k, v
}

// del removes the property named k (JavaScript's delete).
func (o *jsObj) del(k string) {
	if i := o.index(k); i >= 0 {
		o.keys = append(o.keys[:i], o.keys[i+1:]...)
		o.vals = append(o.vals[:i], o.vals[i+1:]...)
	}
}

// arrayIndex reports whether k is a canonical array index (0 ≤ n < 2³²−1),
// which JavaScript orders before all other property names.
func arrayIndex(k string) (uint64, bool) {
	if k == "" || len(k) > 10 || (k[0] == '0' && len(k) > 1) {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, n < 1<<32-1
}

func jsStr(s string) jsValue { return jsValue{kind: jsString, str: s} }

func jsNum(f float64) jsValue { return jsValue{kind: jsNumber, num: f} }

// parseJS parses one complete JSON text as JSON.parse does.
func parseJS(data []byte) (jsValue, error) {
	s := scanner{data: data}
	v, err := s.jsValue(0)
	if err != nil {
		return jsValue{}, err
	}
	return v, s.end()
}

// jsValue parses a value. Strings are decoded as JavaScript's UTF-8 reader
// sees them: invalid byte sequences become U+FFFD (one per maximal
// subpart, the WHATWG rule Node.js follows).
func (s *scanner) jsValue(depth int) (jsValue, error) {
	if depth > maxDepth {
		return jsValue{}, s.errorf("nesting too deep")
	}
	switch c := s.peek(); c {
	case '{':
		obj := &jsObj{}
		empty, err := s.objectStart()
		if err != nil || empty {
			return jsValue{kind: jsObject, obj: obj}, err
		}
		for {
			if s.peek() != '"' {
				return jsValue{}, s.errorf("want a member name")
			}
			key, err := s.jsString()
			if err != nil {
				return jsValue{}, err
			}
			if err := s.expect(':'); err != nil {
				return jsValue{}, err
			}
			v, err := s.jsValue(depth + 1)
			if err != nil {
				return jsValue{}, err
			}
			obj.set(key, v)
			more, err := s.objectNext()
			if err != nil {
				return jsValue{}, err
			}
			if !more {
				return jsValue{kind: jsObject, obj: obj}, nil
			}
		}
	case '[':
		arr := []jsValue{}
		empty, err := s.arrayStart()
		if err != nil || empty {
			return jsValue{kind: jsArray, arr: arr}, err
		}
		for {
			v, err := s.jsValue(depth + 1)
			if err != nil {
				return jsValue{}, err
			}
			arr = append(arr, v)
			more, err := s.arrayNext()
			if err != nil {
				return jsValue{}, err
			}
			if !more {
				return jsValue{kind: jsArray, arr: arr}, nil
			}
		}
	case '"':
		str, err := s.jsString()
		return jsStr(str), err
	case 't', 'f':
		b, err := s.boolean()
		return jsValue{kind: jsBool, b: b}, err
	case 'n':
		return jsValue{}, s.literal("null")
	default:
		f, err := s.float()
		return jsNum(f), err
	}
}

// jsString reads a string as JSON.parse in Node.js sees it: invalid UTF-8
// in the file is replaced first, then escapes are decoded.
func (s *scanner) jsString() (string, error) {
	start := s.pos + 1
	end, escaped, err := s.stringEnd()
	if err != nil {
		return "", err
	}
	body := toWellFormed(s.data[start:end])
	if escaped {
		body = unescape(nil, body)
	}
	return string(body), nil
}

// toWellFormed returns raw string bytes (before unescaping) as Node.js
// reads them: invalid UTF-8 replaced by U+FFFD per maximal subpart
// (WHATWG). Valid input is returned as is.
func toWellFormed(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || size > 1 {
			out = append(out, b[i:i+size]...)
			i += size
			continue
		}
		out = append(out, "\uFFFD"...)
		i += maximalSubpart(b[i:])
	}
	return out
}

// maximalSubpart returns how many bytes of an invalid sequence at the start
// of b one U+FFFD replaces: the lead byte plus the continuation bytes that
// were still valid for it.
func maximalSubpart(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case 0xC2 <= c && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case 0xE1 <= c && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case 0xF1 <= c && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for n <= need && n < len(b) {
		if b[n] < lo || b[n] > hi {
			break
		}
		lo, hi = 0x80, 0xBF
		n++
	}
	return n
}

// appendJS appends v as JSON.stringify writes it.
func appendJS(b []byte, v jsValue) []byte {
	switch v.kind {
	case jsNull:
		return append(b, "null"...)
	case jsBool:
		if v.b {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case jsNumber:
		return appendJSNumber(b, v.num)
	case jsString:
		return appendJSString(b, v.str)
	case jsArray:
		b = append(b, '[')
		for i, e := range v.arr {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJS(b, e)
		}
		return append(b, ']')
	default:
		b = append(b, '{')
		for i, k := range v.obj.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSString(b, k)
			b = append(b, ':')
			b = appendJS(b, v.obj.vals[i])
		}
		return append(b, '}')
	}
}

// appendNormalized appends raw JSON re-serialised as JSON.stringify(
// JSON.parse(raw)) would: compact, JavaScript escaping and number forms,
// JavaScript member order. A value already in that form is copied as is.
func appendNormalized(b, raw []byte) ([]byte, error) {
	v, err := parseJS(raw)
	if err != nil {
		return b, err
	}
	return appendJS(b, v), nil
}

// jsLength is the length in UTF-16 code units of JSON.stringify(
// JSON.parse(raw)): what pi's token estimate counts for tool arguments.
func jsLength(raw []byte) int {
	out, err := appendNormalized(nil, raw)
	if err != nil {
		return utf16Len(string(raw))
	}
	return utf16Len(string(out))
}

// utf16Len is JavaScript's String.prototype.length for s.
func utf16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}
