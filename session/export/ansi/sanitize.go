// Terminal safety: the one sanitiser that everything lunar did not write
// itself (model text, thinking, tool names, arguments and output, errors,
// file and session content, hook UI text) passes before it reaches a
// terminal, and the Writer that lets through only lunar's own styling.
//
// It lives here, in the package that draws on terminals, because every
// writer can reach it without an upward import: the REPL and one-shot
// printer (package main), `lunar sessions`, hook UI output (package lua)
// and this package's markdown renderer.

package ansi

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Sanitize returns s with every character that a terminal would act on
// instead of showing made visible, so that text cannot set the clipboard
// (OSC 52), the window title (OSC 2), move the cursor, recolour the screen
// or reorder what the user reads. Newlines and tabs are kept; a carriage
// return before a newline is dropped (a CRLF line end). Everything else is
// escaped as Go writes it in a quoted string:
//
//   - C0 controls (ESC, BEL, a lone CR, …) and DEL as \x1b, \x07, \x0d, \x7f;
//   - C1 controls U+0080–U+009F (CSI, OSC, ST as one character) as \u009b;
//   - bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069,
//     which make text read differently from what it is) as \u202e;
//   - bytes that are not UTF-8 (a terminal might read 0x9b as CSI) as \x9b.
//
// The result is valid UTF-8 and holds no control character but newline
// and tab; sanitising it again changes nothing. Text without anything to
// escape is returned as it is, without allocating (the streaming path).
func Sanitize(s string) string {
	i := cleanPrefix(s)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case !asciiControl[c]:
				b.WriteByte(c)
			case c == '\r' && i+1 < len(s) && s[i+1] == '\n':
			default:
				writeEscape(&b, `\x`, rune(c), 2)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			writeEscape(&b, `\x`, rune(c), 2)
		case hidden(r):
			writeEscape(&b, `\u`, r, 4)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// asciiControl marks the ASCII bytes Sanitize escapes.
var asciiControl = func() (t [utf8.RuneSelf]bool) {
	for c := range 0x20 {
		t[c] = c != '\n' && c != '\t'
	}
	t[0x7f] = true
	return t
}()

// hidden reports whether r, a non-ASCII character, acts on a terminal or
// on the order of the text instead of being shown.
func hidden(r rune) bool {
	return r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// cleanPrefix is the length of s's longest prefix with nothing to escape.
func cleanPrefix(s string) int {
	for i := 0; i < len(s); {
		// Eight printable ASCII bytes at a time, tested as one word: the
		// common case of a streamed answer.
		const ones, highs = 0x0101010101010101, 0x8080808080808080
		for ; i+8 <= len(s); i += 8 {
			w := s[i : i+8]
			x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
				uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
			below := (x - 0x20*ones) & ^x // a high bit where a byte is < 0x20 (or ≥ 0x80)
			del := x ^ 0x7f*ones
			isDel := (del - ones) & ^del // a high bit where a byte is 0x7f
			if (x|below|isDel)&highs != 0 {
				break
			}
		}
		// The word that stopped it (a newline, say) byte by byte.
		for end := min(i+8, len(s)); i < end && s[i] < utf8.RuneSelf; i++ {
			if asciiControl[s[i]] {
				return i
			}
		}
		if i == len(s) || s[i] < utf8.RuneSelf {
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || hidden(r) {
			return i
		}
		i += n
	}
	return len(s)
}

func writeEscape(b *strings.Builder, prefix string, r rune, digits int) {
	const hex = "0123456789abcdef"
	b.WriteString(prefix)
	for shift := 4 * (digits - 1); shift >= 0; shift -= 4 {
		b.WriteByte(hex[r>>shift&0xf])
	}
}

// Writer is a terminal (or lunar's stderr) that shows only lunar's own
// escape sequences: SGR styling (CSI … m), the cursor moves and erases
// that redraw a streamed block or a spinner line (CSI n A, CSI n C,
// CSI K, CSI J, and a carriage return directly before one of these) and
// bracketed paste on and off (CSI ?2004 h/l). Everything else goes through
// Sanitize. It is the backstop behind the writers, which sanitise what
// they did not write before styling it (text from outside could otherwise
// still redraw lines with the sequences allowed here). Each Write is
// taken as whole: lunar writes a sequence in one piece.
type Writer struct {
	w io.Writer
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes p with everything but lunar's own sequences made visible.
// It reports len(p) written when the underlying write succeeds.
func (w *Writer) Write(p []byte) (int, error) {
	s := string(p)
	if _, err := io.WriteString(w.w, confine(s)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteString is Write without the copy.
func (w *Writer) WriteString(s string) (int, error) {
	if _, err := io.WriteString(w.w, confine(s)); err != nil {
		return 0, err
	}
	return len(s), nil
}

// confine keeps the sequences Writer allows and sanitises the rest.
func confine(s string) string {
	if cleanPrefix(s) == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b && s[i] != '\r' {
			continue
		}
		n := ownSequence(s[i:])
		if n == 0 {
			continue
		}
		b.WriteString(Sanitize(s[start:i]))
		b.WriteString(s[i : i+n])
		i += n - 1
		start = i + 1
	}
	b.WriteString(Sanitize(s[start:]))
	return b.String()
}

// ownSequence is the length of the sequence of lunar's own drawing that s
// starts with, or 0.
func ownSequence(s string) int {
	if s[0] == '\r' {
		if len(s) > 1 && s[1] == 0x1b && ownSequence(s[1:]) > 0 {
			return 1
		}
		return 0
	}
	if len(s) < 3 || s[1] != '[' {
		return 0
	}
	for _, p := range []string{"\x1b[?2004h", "\x1b[?2004l"} {
		if strings.HasPrefix(s, p) {
			return len(p)
		}
	}
	for i := 2; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9' || c == ';':
		case strings.IndexByte("mACKJ", c) >= 0:
			return i + 1
		default:
			return 0
		}
	}
	return 0
}
