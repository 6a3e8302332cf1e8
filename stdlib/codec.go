package stdlib

// This file is the JSON codec between Go and Lua: JSON text straight into
// Lua tables and back, without an intermediate Go value. JSON arrays become
// sequence tables marked with a shared metatable so that they encode back
// as arrays even when empty; JSON null becomes the json.null sentinel.
// Object keys keep their order: gopher-lua iterates a table's string keys
// in insertion order, so a decoded object encodes back byte for byte.

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/session"
)

// Registry keys of the per-state sentinels.
const (
	regArrayMeta = "lunar.json.array"
	regNull      = "lunar.json.null"
)

// maxDepth bounds nesting in both directions (and catches cyclic tables).
const maxDepth = 512

// Codec converts between JSON text and Lua values of one state. It is
// cheap to create; it is bound to its state and, like the state, used by
// one goroutine at a time.
type Codec struct {
	L         *glua.LState
	arrayMeta *glua.LTable
	null      glua.LValue
	intern    map[string]glua.LValue // short strings seen before (keys, roles, types)
}

// Interning: JSON documents repeat the same short strings (keys, roles,
// block types); reusing them saves two allocations each.
const (
	maxInternLen   = 24
	maxInternCount = 4096
)

// internString returns b as an LString value, shared when short.
func (c *Codec) internString(b []byte) glua.LValue {
	if len(b) > maxInternLen {
		return glua.LString(b)
	}
	if v, ok := c.intern[string(b)]; ok {
		return v
	}
	if c.intern == nil || len(c.intern) >= maxInternCount {
		c.intern = make(map[string]glua.LValue, 64)
	}
	s := string(b)
	v := glua.LValue(glua.LString(s))
	c.intern[s] = v
	return v
}

// NewCodec returns the codec of L, creating the state's array metatable
// and null sentinel on first use.
func NewCodec(L *glua.LState) *Codec {
	reg := L.Get(glua.RegistryIndex).(*glua.LTable)
	meta, ok := reg.RawGetString(regArrayMeta).(*glua.LTable)
	if !ok {
		meta = L.NewTable()
		meta.RawSetString("__name", glua.LString("json.array"))
		reg.RawSetString(regArrayMeta, meta)
		null := L.NewUserData()
		nm := L.NewTable()
		nm.RawSetString("__name", glua.LString("json.null"))
		nm.RawSetString("__tostring", L.NewFunction(func(L *glua.LState) int {
			L.Push(glua.LString("null"))
			return 1
		}))
		null.Metatable = nm
		reg.RawSetString(regNull, null)
	}
	return &Codec{L: L, arrayMeta: meta, null: reg.RawGetString(regNull)}
}

// Null returns the json.null sentinel of the codec's state.
func (c *Codec) Null() glua.LValue { return c.null }

// IsNull reports whether v is json.null.
func (c *Codec) IsNull(v glua.LValue) bool { return v == c.null }

// NewArray returns an empty table marked as a JSON array.
func (c *Codec) NewArray(capacity int) *glua.LTable {
	t := c.L.CreateTable(capacity, 0)
	t.Metatable = c.arrayMeta
	return t
}

// MarkArray marks t as a JSON array and returns it.
func (c *Codec) MarkArray(t *glua.LTable) *glua.LTable {
	t.Metatable = c.arrayMeta
	return t
}

// IsArray reports whether t is marked as a JSON array.
func (c *Codec) IsArray(t *glua.LTable) bool { return t.Metatable == c.arrayMeta }

// SyntaxError is a JSON decoding error with its position.
type SyntaxError struct {
	Msg    string
	Offset int // byte offset of the error
	Line   int // 1-based
	Column int // 1-based, in bytes
}

// Error formats the message with its line and column.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s at line %d, column %d", e.Msg, e.Line, e.Column)
}

// Decode parses one JSON value into a Lua value.
func (c *Codec) Decode(data []byte) (glua.LValue, error) {
	d := decoder{c: c, data: data}
	d.skipSpace()
	v, err := d.value(0)
	if err != nil {
		return glua.LNil, err
	}
	d.skipSpace()
	if d.pos < len(d.data) {
		return glua.LNil, d.errorf("unexpected %s after the JSON value", d.describe())
	}
	return v, nil
}

type decoder struct {
	c    *Codec
	data []byte
	pos  int
	// Members being parsed, for every object and array open at once:
	// tables are created with their exact size once complete (gopher-lua
	// otherwise starts every table at 32 slots).
	vals []glua.LValue
	keys []string
}

func (d *decoder) errorf(format string, args ...any) error {
	line, col := 1, 1
	for i := 0; i < d.pos && i < len(d.data); i++ {
		if d.data[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return &SyntaxError{Msg: fmt.Sprintf(format, args...), Offset: d.pos, Line: line, Column: col}
}

func (d *decoder) describe() string {
	if d.pos >= len(d.data) {
		return "end of input"
	}
	r, _ := utf8.DecodeRune(d.data[d.pos:])
	return strconv.QuoteRune(r)
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (glua.LValue, error) {
	if depth > maxDepth {
		return nil, d.errorf("nested too deeply")
	}
	if d.pos >= len(d.data) {
		return nil, d.errorf("unexpected end of input")
	}
	switch ch := d.data[d.pos]; {
	case ch == '{':
		return d.object(depth)
	case ch == '[':
		return d.array(depth)
	case ch == '"':
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		return s, nil
	case ch == '-' || (ch >= '0' && ch <= '9'):
		return d.number()
	case ch == 't':
		return glua.LTrue, d.literal("true")
	case ch == 'f':
		return glua.LFalse, d.literal("false")
	case ch == 'n':
		return d.c.null, d.literal("null")
	default:
		return nil, d.errorf("unexpected %s", d.describe())
	}
}

func (d *decoder) literal(word string) error {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return d.errorf("unexpected %s", d.describe())
	}
	d.pos += len(word)
	return nil
}

func (d *decoder) object(depth int) (glua.LValue, error) {
	d.pos++ // {
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return d.c.L.CreateTable(0, 0), nil
	}
	base := len(d.keys)
	for {
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.errorf("expected a string key, found %s", d.describe())
		}
		kv, err := d.str()
		if err != nil {
			return nil, err
		}
		k := string(kv.(glua.LString))
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.errorf("expected ':' after object key, found %s", d.describe())
		}
		d.pos++
		d.skipSpace()
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		d.keys = append(d.keys, k)
		d.vals = append(d.vals, v)
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.errorf("unexpected end of input in object")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			continue
		case '}':
			d.pos++
		default:
			return nil, d.errorf("expected ',' or '}' in object, found %s", d.describe())
		}
		// vals holds array elements too; object members are its tail
		vbase := len(d.vals) - (len(d.keys) - base)
		t := d.c.L.CreateTable(0, len(d.keys)-base)
		for i, k := range d.keys[base:] {
			v := d.vals[vbase+i]
			if v == glua.LNil {
				continue
			}
			t.RawSetString(k, v)
		}
		clear(d.vals[vbase:])
		d.keys = d.keys[:base]
		d.vals = d.vals[:vbase]
		return t, nil
	}
}

func (d *decoder) array(depth int) (glua.LValue, error) {
	d.pos++ // [
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return d.c.NewArray(0), nil
	}
	base := len(d.vals)
	for {
		d.skipSpace()
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		d.vals = append(d.vals, v)
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.errorf("unexpected end of input in array")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			continue
		case ']':
			d.pos++
		default:
			return nil, d.errorf("expected ',' or ']' in array, found %s", d.describe())
		}
		t := d.c.NewArray(len(d.vals) - base)
		for i, v := range d.vals[base:] {
			t.RawSetInt(i+1, v)
		}
		clear(d.vals[base:])
		d.vals = d.vals[:base]
		return t, nil
	}
}

func (d *decoder) number() (glua.LValue, error) {
	start := d.pos
	if d.data[d.pos] == '-' {
		d.pos++
	}
	digits := d.pos
	for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
		d.pos++
	}
	if d.pos == digits {
		return nil, d.errorf("invalid number")
	}
	if d.data[digits] == '0' && d.pos-digits > 1 {
		d.pos = digits + 1
		return nil, d.errorf("invalid number: leading zero")
	}
	integral := true
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		integral = false
		d.pos++
		f := d.pos
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
		}
		if d.pos == f {
			return nil, d.errorf("invalid number: no digits after '.'")
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		integral = false
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		e := d.pos
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
		}
		if d.pos == e {
			return nil, d.errorf("invalid number: no digits in exponent")
		}
	}
	if integral && d.pos-digits <= 15 {
		var n int64
		for _, ch := range d.data[digits:d.pos] {
			n = n*10 + int64(ch-'0')
		}
		if digits > start {
			n = -n
		}
		return glua.LNumber(n), nil
	}
	text := string(d.data[start:d.pos])
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		d.pos = start
		return nil, d.errorf("invalid number %q", text)
	}
	return glua.LNumber(f), nil
}

// str parses a JSON string at d.pos (the opening quote).
func (d *decoder) str() (glua.LValue, error) {
	d.pos++ // "
	start := d.pos
	// Fast path: no escapes.
	for d.pos < len(d.data) {
		ch := d.data[d.pos]
		if ch == '"' {
			s := d.c.internString(d.data[start:d.pos])
			d.pos++
			return s, nil
		}
		if ch == '\\' || ch < 0x20 {
			break
		}
		d.pos++
	}
	buf := append([]byte(nil), d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		ch := d.data[d.pos]
		switch {
		case ch == '"':
			d.pos++
			return glua.LString(buf), nil
		case ch < 0x20:
			return nil, d.errorf("control character in string")
		case ch != '\\':
			buf = append(buf, ch)
			d.pos++
			continue
		}
		d.pos++ // backslash
		if d.pos >= len(d.data) {
			break
		}
		esc := d.data[d.pos]
		d.pos++
		switch esc {
		case '"', '\\', '/':
			buf = append(buf, esc)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return nil, d.errorf("invalid \\u escape")
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
					save := d.pos
					d.pos += 2
					var ok2 bool
					if r2, ok2 = d.hex4(); !ok2 {
						return nil, d.errorf("invalid \\u escape")
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						r = dec
					} else {
						d.pos = save
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			buf = utf8.AppendRune(buf, r)
		default:
			d.pos -= 2
			return nil, d.errorf("invalid escape '\\%c' in string", esc)
		}
	}
	return nil, d.errorf("unterminated string")
}

func (d *decoder) hex4() (rune, bool) {
	if d.pos+4 > len(d.data) {
		return 0, false
	}
	var r rune
	for _, ch := range d.data[d.pos : d.pos+4] {
		r <<= 4
		switch {
		case ch >= '0' && ch <= '9':
			r |= rune(ch - '0')
		case ch >= 'a' && ch <= 'f':
			r |= rune(ch - 'a' + 10)
		case ch >= 'A' && ch <= 'F':
			r |= rune(ch - 'A' + 10)
		default:
			return 0, false
		}
	}
	d.pos += 4
	return r, true
}

// EncodeOptions adjust Encode.
type EncodeOptions struct {
	// Indent, when set, pretty-prints with this indentation per level.
	Indent string
	// SkipKey, when set, leaves this key out of the top-level object (the
	// runtime strips its own entry_id field this way).
	SkipKey string
}

// EncodeError is a value that cannot be encoded, with the path to it.
type EncodeError struct {
	Path string // e.g. ".messages[3].content"
	Msg  string
}

// Error formats the message with the path to the value.
func (e *EncodeError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Msg + " at " + e.Path
}

// Encode appends the JSON encoding of v to buf. Tables marked as arrays,
// and tables whose keys are exactly 1..n, encode as arrays; other tables as
// objects (an empty unmarked table is {}); nil and json.null as null.
func (c *Codec) Encode(buf []byte, v glua.LValue, opts EncodeOptions) ([]byte, error) {
	e := encoder{c: c, opts: opts}
	out, err := e.value(buf, v, 0, opts.SkipKey)
	if err != nil {
		return buf, err
	}
	return out, nil
}

type encoder struct {
	c    *Codec
	opts EncodeOptions
}

func wrapPath(err error, seg string) error {
	var ee *EncodeError
	if errors.As(err, &ee) {
		ee.Path = seg + ee.Path
	}
	return err
}

func (e *encoder) newline(buf []byte, depth int) []byte {
	if e.opts.Indent == "" {
		return buf
	}
	buf = append(buf, '\n')
	for i := 0; i < depth; i++ {
		buf = append(buf, e.opts.Indent...)
	}
	return buf
}

func (e *encoder) value(buf []byte, v glua.LValue, depth int, skip string) ([]byte, error) {
	switch v := v.(type) {
	case *glua.LNilType:
		return append(buf, "null"...), nil
	case glua.LBool:
		if v {
			return append(buf, "true"...), nil
		}
		return append(buf, "false"...), nil
	case glua.LNumber:
		return appendNumber(buf, float64(v))
	case glua.LString:
		return AppendString(buf, string(v)), nil
	case *glua.LTable:
		if depth >= maxDepth {
			return buf, &EncodeError{Msg: "table nested too deeply (cyclic?)"}
		}
		return e.table(buf, v, depth, skip)
	case *glua.LUserData:
		if glua.LValue(v) == e.c.null {
			return append(buf, "null"...), nil
		}
	}
	return buf, &EncodeError{Msg: "cannot encode a " + v.Type().String() + " value"}
}

// arrayLen reports whether t is a sequence 1..n (n > 0) with nothing else.
func arrayLen(t *glua.LTable) (int, bool) {
	count, maxKey := 0, 0
	for k, _ := t.Next(glua.LNil); k != glua.LNil; k, _ = t.Next(k) {
		n, ok := k.(glua.LNumber)
		if !ok || n < 1 || float64(n) != math.Trunc(float64(n)) {
			return 0, false
		}
		count++
		if int(n) > maxKey {
			maxKey = int(n)
		}
	}
	return count, count > 0 && count == maxKey
}

// FillKey names the metatable field of a table with lazily built fields:
// a function that builds them into the table and removes the metatable.
// Iteration (pairs, next) and json.encode call it first, so a lazy table
// looks like any other table.
const FillKey = "__lunar_fill"

// Fill builds the lazy fields of t (see FillKey), if it has any.
func Fill(L *glua.LState, t *glua.LTable) error {
	mt, ok := t.Metatable.(*glua.LTable)
	if !ok {
		return nil
	}
	fn, ok := mt.RawGetString(FillKey).(*glua.LFunction)
	if !ok {
		return nil
	}
	return L.CallByParam(glua.P{Fn: fn, NRet: 0, Protect: true}, t)
}

func (e *encoder) table(buf []byte, t *glua.LTable, depth int, skip string) ([]byte, error) {
	if err := Fill(e.c.L, t); err != nil {
		return buf, &EncodeError{Msg: err.Error()}
	}
	var n int
	isArray := t.Metatable == e.c.arrayMeta
	if isArray {
		n = t.Len()
	} else {
		n, isArray = arrayLen(t)
	}
	var err error
	if isArray {
		buf = append(buf, '[')
		for i := 1; i <= n; i++ {
			if i > 1 {
				buf = append(buf, ',')
			}
			buf = e.newline(buf, depth+1)
			if buf, err = e.value(buf, t.RawGetInt(i), depth+1, ""); err != nil {
				return buf, wrapPath(err, "["+strconv.Itoa(i)+"]")
			}
		}
		if n > 0 {
			buf = e.newline(buf, depth)
		}
		return append(buf, ']'), nil
	}
	buf = append(buf, '{')
	first := true
	for k, v := t.Next(glua.LNil); k != glua.LNil; k, v = t.Next(k) {
		var key string
		switch k := k.(type) {
		case glua.LString:
			key = string(k)
		case glua.LNumber:
			key = k.String()
		default:
			return buf, &EncodeError{Msg: "cannot encode a table key of type " + k.Type().String()}
		}
		if skip != "" && key == skip {
			continue
		}
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = e.newline(buf, depth+1)
		buf = AppendString(buf, key)
		buf = append(buf, ':')
		if e.opts.Indent != "" {
			buf = append(buf, ' ')
		}
		if buf, err = e.value(buf, v, depth+1, ""); err != nil {
			return buf, wrapPath(err, "."+key)
		}
	}
	if !first {
		buf = e.newline(buf, depth)
	}
	return append(buf, '}'), nil
}

// appendNumber formats like encoding/json so that decoded numbers encode
// back to the same text.
func appendNumber(buf []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return buf, &EncodeError{Msg: "cannot encode " + strconv.FormatFloat(f, 'g', -1, 64)}
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(buf)
	buf = strconv.AppendFloat(buf, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(buf) - start
		if n >= 4 && buf[len(buf)-4] == 'e' && buf[len(buf)-3] == '-' && buf[len(buf)-2] == '0' {
			buf[len(buf)-2] = buf[len(buf)-1]
			buf = buf[:len(buf)-1]
		}
	}
	return buf, nil
}

// AppendString appends s as a JSON string the way lunar's session writer
// does: no HTML escaping, U+2028/U+2029 kept; invalid UTF-8 becomes U+FFFD.
func AppendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			buf = session.AppendEscape(append(buf, s[start:i]...), b)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, "\ufffd"...) // the character itself: stable when re-encoded
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
