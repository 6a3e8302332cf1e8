// Styled text: runs of text with a style, broken between words into
// lines of a given width, written with SGR escape sequences.

package ansi

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// Foreground colours (SGR codes; 0 is the terminal's default). Only the 16
// theme colours are used, so the terminal's palette decides the shades.
const (
	fgRed     = 31
	fgGreen   = 32
	fgYellow  = 33
	fgBlue    = 34
	fgMagenta = 35
	fgCyan    = 36
	fgGray    = 90
)

// style is how a run of text looks.
type style struct {
	bold, dim, italic, under, strike bool
	fg                               uint8
}

// sgr is the escape sequence that sets s (after a reset); "" for the
// default style. With nocolor (NO_COLOR) the colour is left out and the
// attributes (bold, dim, italic, underline, strikethrough) stay.
func (s style) sgr(nocolor bool) string {
	if nocolor {
		s.fg = 0
	}
	if s == (style{}) {
		return ""
	}
	var b strings.Builder
	b.WriteString("\x1b[")
	sep := false
	add := func(code int) {
		if sep {
			b.WriteByte(';')
		}
		b.WriteString(strconv.Itoa(code))
		sep = true
	}
	if s.bold {
		add(1)
	}
	if s.dim {
		add(2)
	}
	if s.italic {
		add(3)
	}
	if s.under {
		add(4)
	}
	if s.strike {
		add(9)
	}
	if s.fg != 0 {
		add(int(s.fg))
	}
	b.WriteByte('m')
	return b.String()
}

const reset = "\x1b[0m"

// run is text in one style. A run "\n" is a line break.
type run struct {
	text string
	st   style
}

// painter writes runs with or without escape sequences.
type painter struct {
	color   bool // escape sequences at all
	nocolor bool // attributes only
	b       strings.Builder
	cur     style
}

// write appends text in style st.
func (p *painter) write(text string, st style) {
	if text == "" {
		return
	}
	if p.nocolor {
		st.fg = 0
	}
	if p.color && st != p.cur {
		if p.cur != (style{}) {
			p.b.WriteString(reset)
		}
		p.b.WriteString(st.sgr(p.nocolor))
		p.cur = st
	}
	p.b.WriteString(text)
}

// end closes the current style (at the end of a line).
func (p *painter) end() {
	if p.color && p.cur != (style{}) {
		p.b.WriteString(reset)
	}
	p.cur = style{}
}

// take returns what was written and starts afresh.
func (p *painter) take() string {
	p.end()
	s := p.b.String()
	p.b.Reset()
	return s
}

// paint returns text in style st as one string.
func paint(color, nocolor bool, text string, st style) string {
	p := painter{color: color, nocolor: nocolor}
	p.write(text, st)
	return p.take()
}

// width is the number of columns s takes.
func width(s string) int { return runewidth.StringWidth(s) }

// piece is part of a word in one style.
type piece struct {
	text string
	st   style
}

// word is a run of non-space text, possibly in several styles; spaces is
// the number of spaces before it and gap their style.
type word struct {
	pieces []piece
	width  int
	spaces int
	gap    style
	brk    bool // a line break, not a word
}

// words splits runs into words and line breaks.
func words(runs []run) []word {
	var out []word
	var cur word
	spaces, gap := 0, style{}
	flush := func() {
		if len(cur.pieces) > 0 {
			out = append(out, cur)
		}
		cur = word{}
	}
	for _, r := range runs {
		if r.text == "\n" {
			flush()
			out = append(out, word{brk: true})
			spaces = 0
			continue
		}
		start := 0
		text := r.text
		for i := 0; i <= len(text); i++ {
			if i < len(text) && text[i] != ' ' && text[i] != '\t' && text[i] != '\n' {
				continue
			}
			if i > start {
				if len(cur.pieces) == 0 {
					cur.spaces, cur.gap = spaces, gap
					spaces = 0
				}
				t := text[start:i]
				cur.pieces = append(cur.pieces, piece{t, r.st})
				cur.width += width(t)
			}
			if i < len(text) {
				flush()
				if text[i] == '\t' {
					spaces += 4
				} else {
					spaces++
				}
				gap = r.st
			}
			start = i + 1
		}
	}
	flush()
	return out
}

// wrap lays runs out in lines of at most w columns, each line in its own
// styles and closed with a reset. Spaces at line breaks are dropped. A
// word longer than a line is cut when cut is set (a table cell); else it
// is left whole for the terminal to wrap (a long address stays one when
// copied).
func wrap(runs []run, w int, color, nocolor, cut bool) []string {
	w = max(w, 1)
	p := painter{color: color, nocolor: nocolor}
	var lines []string
	col := 0
	newline := func() {
		lines = append(lines, p.take())
		col = 0
	}
	for _, wd := range words(runs) {
		if wd.brk {
			newline()
			continue
		}
		spaces := wd.spaces
		if col > 0 && col+spaces+wd.width > w {
			newline()
			spaces = 0
		}
		if col == 0 {
			spaces = 0 // no spaces at the start of a line
		}
		if spaces > 0 {
			p.write(strings.Repeat(" ", min(spaces, w-1)), wd.gap)
			col += min(spaces, w-1)
		}
		for _, pc := range wd.pieces {
			text := pc.text
			for text != "" {
				if col+width(text) <= w || !cut {
					p.write(text, pc.st)
					col += width(text)
					break
				}
				// Cut what fits of a word longer than the line.
				n, cw := 0, 0
				for i, r := range text {
					rw := runewidth.RuneWidth(r)
					if col+cw+rw > w {
						n = i
						break
					}
					cw += rw
				}
				if n == 0 && col == 0 { // a rune wider than the line
					_, n = utf8.DecodeRuneInString(text)
				}
				p.write(text[:n], pc.st)
				text = text[n:]
				newline()
			}
		}
	}
	if col > 0 || len(lines) == 0 {
		lines = append(lines, p.take())
	}
	return lines
}
