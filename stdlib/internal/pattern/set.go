// Sets of bytes: every single-byte item of a pattern (".", "%a", "[set]",
// a plain byte) becomes one 256-bit set, so matching a byte is one test
// whatever the class.

package pattern

// byteSet holds bit b%64 of word b/64 for each byte b in the set.
type byteSet [4]uint64

// anyByte is ".".
var anyByte = byteSet{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}

func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }

func (s byteSet) with(b byte) byteSet {
	s[b>>6] |= 1 << (b & 63)
	return s
}

func (s byteSet) union(t byteSet) byteSet {
	for i := range s {
		s[i] |= t[i]
	}
	return s
}

func (s byteSet) complement() byteSet {
	for i := range s {
		s[i] = ^s[i]
	}
	return s
}

// byteRange is the bytes from lo to hi (none when hi < lo).
func byteRange(lo, hi byte) byteSet {
	var s byteSet
	for b := int(lo); b <= int(hi); b++ {
		s = s.with(byte(b))
	}
	return s
}

// escaped is what "%c" stands for: a class when c names one (its
// complement when upper case), otherwise c itself.
func escaped(c byte) byteSet {
	if s, ok := class(c | 0x20); ok && isLetter(c) {
		if c&0x20 == 0 {
			return s.complement()
		}
		return s
	}
	return byteSet{}.with(c)
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// class returns the set a lower-case class letter names, in the C locale
// (ASCII only, as gopher-lua and Lua built for "C"). TestClasses checks
// the constants against their definitions.
func class(letter byte) (byteSet, bool) {
	switch letter {
	case 'a': // letters
		return byteSet{0, 0x07fffffe07fffffe}, true
	case 'c': // control characters
		return byteSet{0x00000000ffffffff, 0x8000000000000000}, true
	case 'd': // digits
		return byteSet{0x03ff000000000000}, true
	case 'l': // lower-case letters
		return byteSet{0, 0x07fffffe00000000}, true
	case 'p': // punctuation
		return byteSet{0xfc00fffe00000000, 0x78000001f8000001}, true
	case 's': // space characters
		return byteSet{0x0000000100003e00}, true
	case 'u': // upper-case letters
		return byteSet{0, 0x0000000007fffffe}, true
	case 'w': // letters and digits
		return byteSet{0x03ff000000000000, 0x07fffffe07fffffe}, true
	case 'x': // hexadecimal digits
		return byteSet{0x03ff000000000000, 0x0000007e0000007e}, true
	case 'z': // the byte 0 (Lua 5.1; later versions write "\0")
		return byteSet{1}, true
	}
	return byteSet{}, false
}
