package session

// Skipping plain text eight bytes at a time. Most of a session file is
// long strings (code, prose) with nothing to escape; the scanner, the
// in-place decoder and the request encoders find the next byte that needs
// a look by testing a word at a time instead of a byte at a time.

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special has the high bit of a byte lane set for the lowest byte of a
// word (loaded little endian) that is '"', '\\', a control character or,
// when ascii is set, not ASCII; zero when there is none. (Lanes above the
// lowest one flagged may be flagged falsely, by a borrow.)
func special(x uint64, ascii bool) uint64 {
	q := x ^ ('"' * ones)
	b := x ^ ('\\' * ones)
	m := (q-ones)&^q | (b-ones)&^b
	if ascii {
		return (m | (x - 0x20*ones) | x) & highs
	}
	return (m | (x-0x20*ones)&^x) & highs
}

// PlainLen returns the length of the longest prefix of s whose bytes are
// ASCII, not control characters and neither '"' nor '\\': text a JSON
// string holds as it is, which JSON.stringify writes unchanged.
func PlainLen(s string) int {
	return plainLen(unsafe.Slice(unsafe.StringData(s), len(s)), true)
}

// plainLen returns the length of the longest prefix of b without '"',
// '\\' and control characters, and without bytes of 0x80 and above when
// ascii is set.
func plainLen(b []byte, ascii bool) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if m := special(binary.LittleEndian.Uint64(b[i:]), ascii); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c == '"' || c == '\\' || ascii && c >= 0x80 {
			break
		}
	}
	return i
}
