package agent

// This file holds the request bodies lunar writes itself: a JSON writer
// with JavaScript's string escaping (and pi's removal of lone UTF-16
// surrogates where pi removes them), and the glue that hands a body to
// either SDK. The SDKs' reflection-based encoders cost seconds and twice
// the body's size in memory on a long session; the SDKs still send the
// request, retry it and parse the stream.

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/lunar-cli/lunar/session"
)

// streamBodyMin is the estimated body size from which a body is streamed
// to the connection as it is encoded instead of being built in memory
// first. Requests that large only come from sessions far beyond any
// model's context window; streaming keeps lunar's memory near the
// session's own.
var streamBodyMin = 8 << 20

// bodyChunk is how much a streaming body encodes before handing it on.
const bodyChunk = 256 << 10

// jsonWriter appends JSON text to buf. With a sink, flush hands buf to it
// once it holds bodyChunk bytes.
type jsonWriter struct {
	buf  []byte
	sink func([]byte) error
	err  error // the sink's first error; later output is dropped
}

// flush hands the buffer to the sink when it is full enough (or always,
// when final).
func (w *jsonWriter) flush(final bool) {
	if w.sink == nil || (!final && len(w.buf) < bodyChunk) {
		return
	}
	if w.err == nil {
		w.err = w.sink(w.buf)
	}
	w.buf = w.buf[:0]
}

// raw appends s as it is (JSON punctuation and keys).
func (w *jsonWriter) raw(s string) { w.buf = append(w.buf, s...) }

// rawJSON appends an already encoded JSON value.
func (w *jsonWriter) rawJSON(b []byte) { w.buf = append(w.buf, b...) }

// int appends an integer.
func (w *jsonWriter) int(n int64) { w.buf = strconv.AppendInt(w.buf, n, 10) }

// float appends a number as JavaScript writes it (integers without a
// fraction).
func (w *jsonWriter) float(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		w.raw("null")
		return
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		w.buf = strconv.AppendFloat(w.buf, f, 'f', -1, 64)
		return
	}
	w.buf = strconv.AppendFloat(w.buf, f, 'g', -1, 64)
}

// bool appends true or false.
func (w *jsonWriter) bool(v bool) {
	if v {
		w.raw("true")
	} else {
		w.raw("false")
	}
}

// str appends s as a JSON string the way JSON.stringify writes it: only
// '"', '\\' and control characters are escaped, and a lone UTF-16
// surrogate (held in its 3-byte WTF-8 form, as session files loaded from
// pi can have them) becomes its \u escape. Other invalid UTF-8 becomes
// U+FFFD.
func (w *jsonWriter) str(s string) { w.buf = appendJSONString(w.buf, s, false) }

// text appends s as a JSON string with lone surrogates removed, as pi's
// sanitizeSurrogates does to the text it sends.
func (w *jsonWriter) text(s string) { w.buf = appendJSONString(w.buf, s, true) }

// arguments appends a tool call's arguments as the JSON string chat
// completions carry them in (see argumentText).
func (w *jsonWriter) arguments(args json.RawMessage) {
	if len(args) == 0 || args[0] == '"' || spaceOutsideStrings(args) {
		w.str(argumentText(args))
		return
	}
	w.str(unsafe.String(&args[0], len(args))) // read only, for this call
}

const hexDigit = "0123456789abcdef"

// appendJSONString appends s quoted; sanitize drops lone surrogates
// instead of escaping them.
func appendJSONString(b []byte, s string, sanitize bool) []byte {
	b = append(b, '"')
	b = appendJSONBody(b, s, sanitize)
	return append(b, '"')
}

// appendJSONBody appends s escaped as inside a JSON string, without the
// quotes.
func appendJSONBody(b []byte, s string, sanitize bool) []byte {
	start := 0
	for i := 0; i < len(s); {
		if i += session.PlainLen(s[i:]); i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b = session.AppendEscape(append(b, s[start:i]...), c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || size != 1 {
			i += size
			continue
		}
		b = append(b, s[start:i]...)
		if hi, ok := surrogateAt(s, i); ok {
			// A high surrogate right before a low one is a pair, as it
			// would be in a JavaScript string: the character it encodes.
			if lo, ok := surrogateAt(s, i+3); ok && hi < 0xDC00 && lo >= 0xDC00 {
				b = utf8.AppendRune(b, 0x10000+(hi-0xD800)<<10+(lo-0xDC00))
				i += 6
			} else {
				if !sanitize {
					b = append(b, '\\', 'u', hexDigit[hi>>12], hexDigit[hi>>8&0xF], hexDigit[hi>>4&0xF], hexDigit[hi&0xF])
				}
				i += 3
			}
		} else {
			b = append(b, "\uFFFD"...)
			i++
		}
		start = i
	}
	return append(b, s[start:]...)
}

// surrogateAt returns the UTF-16 surrogate whose WTF-8 form starts at
// s[i], if one does.
func surrogateAt(s string, i int) (rune, bool) {
	if i+2 >= len(s) || s[i] != 0xED || s[i+1] < 0xA0 || s[i+1] > 0xBF || s[i+2] < 0x80 || s[i+2] > 0xBF {
		return 0, false
	}
	return 0xD000 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F), true
}

// sanitizedLen is the length of s once its lone surrogates are removed.
func sanitizedLen(s string) int {
	n := len(s)
	for i := strings.IndexByte(s, 0xED); i >= 0 && i < len(s); {
		if hi, ok := surrogateAt(s, i); ok {
			if lo, ok := surrogateAt(s, i+3); ok && hi < 0xDC00 && lo >= 0xDC00 {
				n -= 2 // a pair: 4 bytes of UTF-8 for 6 of WTF-8
				i += 6
			} else {
				n -= 3
				i += 3
			}
		} else {
			i++
		}
		j := strings.IndexByte(s[i:], 0xED)
		if j < 0 {
			break
		}
		i += j
	}
	return n
}

// sanitizeText returns s without lone surrogates, as pi's
// sanitizeSurrogates does (for text that is tested before it is written).
func sanitizeText(s string) string {
	if sanitizedLen(s) == len(s) {
		return s
	}
	b := appendJSONBody(make([]byte, 0, len(s)), s, true)
	var out string
	_ = json.Unmarshal(append(append([]byte{'"'}, b...), '"'), &out)
	return out
}

// isJSBlank reports whether s is empty or only whitespace as JavaScript's
// String.prototype.trim sees it (pi drops such blocks).
func isJSBlank(s string) bool {
	for _, r := range s {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		default:
			if r < 0x2000 || r > 0x200A {
				return false
			}
		}
	}
	return true
}

// utf16Prefix cuts s to at most n UTF-16 units, as JavaScript's slice does
// (a pair cut in half leaves its high surrogate, in WTF-8 form).
func utf16Prefix(s string, n int) string {
	if len(s) <= n { // UTF-16 is never longer than UTF-8
		return s
	}
	units := 0
	for i, r := range s {
		w := 1
		if r > 0xFFFF {
			w = 2
		}
		if units+w > n {
			if units < n && w == 2 {
				hi := 0xD800 + (r-0x10000)>>10
				return s[:i] + string([]byte{0xED, byte(0x80 | (hi>>6)&0x3F), byte(0x80 | hi&0x3F)})
			}
			return s[:i]
		}
		units += w
	}
	return s
}

// firstText is the text of the first block (a message whose content was a
// string holds it as one text block).
func firstText(content []session.ContentBlock) string {
	if len(content) > 0 && content[0].Type == session.BlockText {
		return content[0].Text
	}
	return ""
}

// countParts counts the text and image blocks of content.
func countParts(content []session.ContentBlock) int {
	n := 0
	for i := range content {
		if t := content[i].Type; t == session.BlockText || t == session.BlockImage {
			n++
		}
	}
	return n
}

// joinedLen is the length of content's text blocks joined with one
// character between them.
func joinedLen(content []session.ContentBlock) int {
	n, k := 0, 0
	for i := range content {
		if content[i].Type == session.BlockText {
			n += len(content[i].Text)
			k++
		}
	}
	if k > 1 {
		n += k - 1
	}
	return n
}

// parts writes content's text and image blocks as content parts, each
// after a comma once k parts precede it; image writes one image part.
func (w *jsonWriter) parts(content []session.ContentBlock, k int, image func(*jsonWriter, session.ContentBlock)) {
	for _, c := range content {
		switch c.Type {
		case session.BlockText:
			if k++; k > 1 {
				w.raw(",")
			}
			w.raw(`{"type":"text","text":`)
			w.text(c.Text)
			w.raw("}")
		case session.BlockImage:
			if k++; k > 1 {
				w.raw(",")
			}
			image(w, c)
		}
	}
}

// joinedText writes content's text blocks as one JSON string, joined by
// sep (already escaped).
func (w *jsonWriter) joinedText(content []session.ContentBlock, sep string, sanitize bool) {
	w.raw(`"`)
	k := 0
	for i := range content {
		if content[i].Type == session.BlockText {
			if k++; k > 1 {
				w.raw(sep)
			}
			w.buf = appendJSONBody(w.buf, content[i].Text, sanitize)
		}
	}
	w.raw(`"`)
}

// estimateBody is about how many bytes a request body takes: its text,
// images and arguments plus some for the JSON around them.
func estimateBody(req *Request, msgs []llmMessage) int {
	n := len(req.SystemPrompt) + 1024
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Parameters) + 64
	}
	for i := range msgs {
		n += 64
		for j := range msgs[i].content {
			c := &msgs[i].content[j]
			n += len(c.Text) + len(c.Thinking) + len(c.Data()) + len(c.Arguments) + len(c.ID) + len(c.Name) + 32
		}
	}
	return n
}

// object writes the members of a JSON object one by one, placing the
// commas; keys listed in skip are left out (a hook's extra field replaces
// lunar's).
type object struct {
	w     *jsonWriter
	n     int
	skip  map[string]any
	extra bool
}

// begin opens an object.
func (w *jsonWriter) object(skip map[string]any) *object {
	w.raw("{")
	return &object{w: w, skip: skip}
}

// key starts the member name and reports whether it is written (false:
// the caller writes no value).
func (o *object) key(name string) bool {
	if _, ok := o.skip[name]; ok {
		return false
	}
	if o.n > 0 {
		o.w.raw(",")
	}
	o.n++
	o.w.str(name)
	o.w.raw(":")
	return true
}

// end writes the skipped members' values from skip (sorted by key, for
// deterministic bodies) and closes the object.
func (o *object) end() {
	for _, k := range sortedKeys(o.skip) {
		v, err := json.Marshal(o.skip[k])
		if err != nil {
			continue // checked by checkExtra before encoding
		}
		if o.n > 0 {
			o.w.raw(",")
		}
		o.n++
		o.w.str(k)
		o.w.raw(":")
		o.w.rawJSON(v)
	}
	o.w.raw("}")
}

// requestBody is a request body encoded on demand by encode, which may
// run more than once (a streamed body is encoded again for each retry).
type requestBody struct {
	encode   func(w *jsonWriter)
	estimate int // the body's approximate size
}

// bytes encodes the whole body.
func (rb *requestBody) bytes() []byte {
	w := &jsonWriter{buf: make([]byte, 0, rb.estimate+rb.estimate/8+1024)}
	rb.encode(w)
	return w.buf
}

// reader streams the body. net/http's HTTP/1 transport copies it with
// WriteTo: the body is then encoded straight into the connection, a write
// of bodyChunk bytes at a time. A transport that reads it instead (HTTP/2)
// gets it from a goroutine that encodes it while the connection reads;
// closing the reader stops the encoder either way.
func (rb *requestBody) reader() io.ReadCloser { return &bodyReader{rb: rb} }

// bodyReader is a streamed body (see reader).
type bodyReader struct {
	rb     *requestBody
	mu     sync.Mutex
	pr     *io.PipeReader // the encoding goroutine's, from the first Read
	closed bool
}

func (r *bodyReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	if r.pr == nil {
		if r.closed {
			r.mu.Unlock()
			return 0, io.ErrClosedPipe
		}
		r.pr = r.rb.pipe()
	}
	pr := r.pr
	r.mu.Unlock()
	return pr.Read(p)
}

// WriteTo encodes the body into w, unless it is already being read.
func (r *bodyReader) WriteTo(w io.Writer) (int64, error) {
	r.mu.Lock()
	pr, closed := r.pr, r.closed
	r.mu.Unlock()
	if pr != nil {
		return io.Copy(w, pr)
	}
	if closed {
		return 0, io.ErrClosedPipe
	}
	var n int64
	jw := &jsonWriter{buf: make([]byte, 0, bodyChunk+bodyChunk/4), sink: func(b []byte) error {
		r.mu.Lock()
		closed := r.closed
		r.mu.Unlock()
		if closed {
			return io.ErrClosedPipe
		}
		k, err := w.Write(b)
		n += int64(k)
		return err
	}}
	r.rb.encode(jw)
	jw.flush(true)
	return n, jw.err
}

func (r *bodyReader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.pr != nil {
		return r.pr.Close()
	}
	return nil
}

// pipe starts a goroutine that encodes the body into a pipe and returns
// the pipe's reader; closing it stops the encoder.
func (rb *requestBody) pipe() *io.PipeReader {
	pr, pw := io.Pipe()
	go func() {
		w := &jsonWriter{buf: make([]byte, 0, bodyChunk+bodyChunk/4), sink: func(b []byte) error {
			_, err := pw.Write(b)
			return err
		}}
		rb.encode(w)
		w.flush(true)
		pw.CloseWithError(w.err)
	}()
	return pr
}

// stream reports whether the body is large enough to be streamed.
func (rb *requestBody) stream() bool { return rb.estimate >= streamBodyMin }

// sdkBody returns what to give an SDK's Execute as the raw body, and a
// middleware (nil for a body built in memory) that puts the streamed body
// into each attempt of the request: the SDK itself replays the small
// placeholder it was given, so its retries stay on.
func (rb *requestBody) sdkBody() (body []byte, middleware func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error)) {
	if !rb.stream() {
		return rb.bytes(), nil
	}
	return []byte("{}"), func(r *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		r.Body = rb.reader()
		r.GetBody = func() (io.ReadCloser, error) { return rb.reader(), nil }
		r.ContentLength = -1 // sent chunked (HTTP/1.1) or as it comes (HTTP/2)
		return next(r)
	}
}

// checkExtra reports the first extra field a hook set that is no JSON.
func checkExtra(extra map[string]any) error {
	for _, k := range sortedKeys(extra) {
		if _, err := json.Marshal(extra[k]); err != nil {
			return &ProviderError{Message: "chat.params extra field " + strconv.Quote(k) + ": " + err.Error()}
		}
	}
	return nil
}

// compactJSON returns raw without insignificant whitespace (as
// JSON.stringify would write the parsed value's structure), or raw itself
// when it has none.
func compactJSON(raw []byte) []byte {
	if !spaceOutsideStrings(raw) {
		return raw
	}
	var out bytes.Buffer
	out.Grow(len(raw))
	if json.Compact(&out, raw) != nil {
		return raw
	}
	return out.Bytes()
}

// spaceOutsideStrings reports whether JSON text has whitespace between
// its tokens.
func spaceOutsideStrings(raw []byte) bool {
	in, esc := false, false
	for _, c := range raw {
		switch {
		case esc:
			esc = false
		case in:
			switch c {
			case '\\':
				esc = true
			case '"':
				in = false
			}
		case c == '"':
			in = true
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			return true
		}
	}
	return false
}
