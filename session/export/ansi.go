// Terminal text to HTML: SGR colour and style sequences (what hook
// renderers and commands' output use) become spans; every other escape
// sequence (cursor moves, titles, hyperlinks) and stray control
// characters are dropped.

package export

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// hasEscapes says s holds an escape sequence or a carriage return worth
// the converter's time.
func hasEscapes(s string) bool {
	return strings.ContainsAny(s, "\x1b\r\b")
}

// sgr is the current text style.
type sgr struct {
	fg, bg                           string // "c1" (class of a 16-colour) or "#rrggbb"; "" default
	bold, dim, italic, under, strike bool
}

func (s sgr) zero() bool { return s == sgr{} }

// open writes a span for the style.
func (s sgr) open(b *bytes.Buffer) {
	var cls []string
	var style []string
	if s.bold {
		cls = append(cls, "a-b")
	}
	if s.dim {
		cls = append(cls, "a-d")
	}
	if s.italic {
		cls = append(cls, "a-i")
	}
	if s.under {
		cls = append(cls, "a-u")
	}
	if s.strike {
		cls = append(cls, "a-s")
	}
	if strings.HasPrefix(s.fg, "#") {
		style = append(style, "color:"+s.fg)
	} else if s.fg != "" {
		cls = append(cls, "a-f"+s.fg)
	}
	if strings.HasPrefix(s.bg, "#") {
		style = append(style, "background:"+s.bg)
	} else if s.bg != "" {
		cls = append(cls, "a-g"+s.bg)
	}
	b.WriteString("<span")
	if len(cls) > 0 {
		b.WriteString(` class="` + strings.Join(cls, " ") + `"`)
	}
	if len(style) > 0 {
		b.WriteString(` style="` + strings.Join(style, ";") + `"`)
	}
	b.WriteString(">")
}

// ansiToHTML writes terminal text as escaped HTML with styled spans.
// Carriage returns overwrite the line as a terminal would (progress
// bars), keeping only what was written last.
func ansiToHTML(b *bytes.Buffer, text string) {
	var cur sgr
	open := false
	scanANSI(collapseCR(text), func(s string) { escapeTo(b, s) }, func(params string) {
		next := applySGR(cur, params)
		if next == cur {
			return
		}
		if open {
			b.WriteString("</span>")
			open = false
		}
		cur = next
		if !cur.zero() {
			cur.open(b)
			open = true
		}
	})
	if open {
		b.WriteString("</span>")
	}
}

// scanANSI splits terminal text into runs of plain text and the
// parameters of SGR sequences; other escape sequences and control
// characters but newline and tab are dropped.
func scanANSI(text string, onText func(string), onSGR func(params string)) {
	start := 0
	flush := func(end int) {
		if end > start {
			onText(text[start:end])
		}
	}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == 0x1b && i+1 < len(text) && text[i+1] == '[': // CSI: parameters, then a final byte
			flush(i)
			j := i + 2
			for j < len(text) && (text[j] < 0x40 || text[j] > 0x7e) {
				j++
			}
			if j < len(text) && text[j] == 'm' {
				onSGR(text[i+2 : j])
			}
			i = min(j+1, len(text))
			start = i
		case c == 0x1b && i+1 < len(text) && text[i+1] == ']': // OSC, ended by BEL or ST
			flush(i)
			j := i + 2
			for j < len(text) && text[j] != 0x07 && !(text[j] == 0x1b && j+1 < len(text) && text[j+1] == '\\') {
				j++
			}
			switch {
			case j < len(text) && text[j] == 0x07:
				j++
			case j < len(text):
				j += 2
			}
			i, start = j, j
		case c == 0x1b:
			flush(i)
			i = min(i+2, len(text)) // a two-byte escape (ESC 7, ESC =, …)
			start = i
		case (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f:
			flush(i)
			i++
			start = i
		default:
			i++
		}
	}
	flush(len(text))
}

// collapseCR keeps, on each line, the text after its last carriage return
// (a line ending in \r\n keeps its text).
func collapseCR(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if k := strings.LastIndexByte(l, '\r'); k >= 0 {
			l = l[k+1:]
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// applySGR applies the parameters of one SGR sequence ("1;31", "38;5;208").
func applySGR(s sgr, params string) sgr {
	if params == "" {
		return sgr{}
	}
	ps := strings.FieldsFunc(params, func(r rune) bool { return r == ';' || r == ':' })
	num := func(i int) int {
		if i >= len(ps) {
			return -1
		}
		n, err := strconv.Atoi(ps[i])
		if err != nil {
			return -1
		}
		return n
	}
	for i := 0; i < len(ps); i++ {
		switch n := num(i); {
		case n == 0:
			s = sgr{}
		case n == 1:
			s.bold = true
		case n == 2:
			s.dim = true
		case n == 3:
			s.italic = true
		case n == 4:
			s.under = true
		case n == 9:
			s.strike = true
		case n == 22:
			s.bold, s.dim = false, false
		case n == 23:
			s.italic = false
		case n == 24:
			s.under = false
		case n == 29:
			s.strike = false
		case n >= 30 && n <= 37:
			s.fg = strconv.Itoa(n - 30)
		case n >= 90 && n <= 97:
			s.fg = strconv.Itoa(n - 90 + 8)
		case n == 39:
			s.fg = ""
		case n >= 40 && n <= 47:
			s.bg = strconv.Itoa(n - 40)
		case n >= 100 && n <= 107:
			s.bg = strconv.Itoa(n - 100 + 8)
		case n == 49:
			s.bg = ""
		case n == 38 || n == 48:
			var col string
			switch num(i + 1) {
			case 5:
				col = color256(num(i + 2))
				i += 2
			case 2:
				r, g, bl := num(i+2), num(i+3), num(i+4)
				if r >= 0 && r < 256 && g >= 0 && g < 256 && bl >= 0 && bl < 256 {
					col = fmt.Sprintf("#%02x%02x%02x", r, g, bl)
				}
				i += 4
			}
			if n == 38 {
				s.fg = col
			} else {
				s.bg = col
			}
		}
	}
	return s
}

// color256 is the colour of an xterm 256-colour index: a class for the
// first 16 (the theme's), an RGB value for the rest.
func color256(n int) string {
	switch {
	case n < 0 || n > 255:
		return ""
	case n < 16:
		return strconv.Itoa(n)
	case n < 232:
		n -= 16
		level := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + v*40
		}
		return fmt.Sprintf("#%02x%02x%02x", level(n/36), level(n/6%6), level(n%6))
	}
	v := 8 + (n-232)*10
	return fmt.Sprintf("#%02x%02x%02x", v, v, v)
}

// stripControls removes escape sequences and control characters from
// one line of text; tabs become spaces.
func stripControls(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	scanANSI(strings.ReplaceAll(s, "\t", " "), func(t string) { b.WriteString(t) }, func(string) {})
	return b.String()
}
