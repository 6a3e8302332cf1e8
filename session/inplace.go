package session

// In-place decoding of long escaped strings. Loading a session keeps the
// file's bytes and makes decoded strings point into them; a string with
// escapes (code with newlines, tabs and quotes: most of a tool result)
// needs its decoded form somewhere else, which would cost about a third
// of the file again. Its decoded form is never longer than the escaped
// one, so it is written over the escaped bytes instead — when the line can
// be rebuilt exactly afterwards: that is when JSON.stringify's escaping of
// the decoded string gives back the same bytes, as it does for every line
// pi or lunar wrote. The entry then has no Raw; its line is rebuilt on
// demand from the patched bytes and the list of patched strings.

import (
	"bytes"
	"unsafe"
)

// inPlaceMin is the shortest escaped string body decoded in place:
// shorter ones go to the arena, where they cost less than a patch record.
const inPlaceMin = 64

// patch records a string body decoded in place: bytes [start, end) of the
// line held the escaped form; the first n of them now hold the decoded
// string.
type patch struct {
	start, end, n int32
}

// inPlaceLine is a loaded line some of whose strings were decoded in
// place.
type inPlaceLine struct {
	line    []byte // the line's bytes in the file buffer, as patched
	patches []patch
}

// rebuild returns the line as it was in the file.
func (l *inPlaceLine) rebuild() []byte {
	out := bytes.Clone(l.line)
	var esc []byte
	for _, p := range l.patches {
		decoded := l.line[p.start : p.start+p.n]
		esc = appendJSString(esc[:0], unsafe.String(unsafe.SliceData(decoded), len(decoded)))
		copy(out[p.start:p.end], esc[1:len(esc)-1])
	}
	return out
}

// inPlace is the scanner state for decoding one line's strings in place.
type inPlace struct {
	lineStart int // offset of the current line in the scanner's data
	patches   []patch
}

// decode decodes the escaped string body data[start:end], which the
// scanner found to be what JSON.stringify writes for it, in place and
// returns the string sharing its memory.
func (ip *inPlace) decode(data []byte, start, end int) (string, bool) {
	if end-ip.lineStart >= 1<<31 {
		return "", false
	}
	body := data[start:end]
	// The decoded form is never longer than the escaped one: unescape
	// writes each byte at or before the one it reads.
	n := len(unescape(body[:0:len(body)], body))
	if n == 0 {
		return "", false
	}
	ip.patches = append(ip.patches, patch{int32(start - ip.lineStart), int32(end - ip.lineStart), int32(n)})
	return unsafe.String(&body[0], n), true
}

// startLine prepares for the line starting at offset start.
func (ip *inPlace) startLine(start int) {
	ip.lineStart = start
	ip.patches = ip.patches[:0]
}

// take returns the current line's in-place record (nil if no string was
// decoded in place).
func (ip *inPlace) take(line []byte, sl *slab) *inPlaceLine {
	if len(ip.patches) == 0 {
		return nil
	}
	l := sl.inPlaceLine()
	l.line = line
	l.patches = sl.patchSlice(ip.patches)
	return l
}
