// Streaming: text is shown as it arrives, broken between words at the
// terminal's width; when a markdown block is complete (a blank line after
// it, its closing fence, the end of a heading or rule, the end of the
// text) the cursor goes back up over the rows its raw text took and the
// block is drawn again, rendered — once. A block whose raw text has
// scrolled past the top of the screen, or during which the terminal's
// width changed, stays as it streamed: its rows can no longer be
// reached, or counted.

package ansi

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
	"github.com/yuin/goldmark/ast"
)

// StreamOptions configure a Stream.
type StreamOptions struct {
	Options
	// Rows is the terminal's height (24 when 0).
	Rows int
	// Plain only wraps the text between words (thinking, --raw), or
	// passes it through when Width is 0: nothing is redrawn.
	Plain bool
	// Size, when set, gives the terminal's current size; it is asked when
	// a block is complete.
	Size func() (cols, rows int)
}

// Stream turns streamed markdown into what to write to a terminal. Its
// text must start at the beginning of a line, and nothing else may be
// written to the terminal until Flush.
type Stream struct {
	o     StreamOptions
	wrap  wrapper
	line  strings.Builder // the source line being streamed
	block []string        // complete source lines of the pending block
	fence string          // the opening fence of an open code block
	// rows is how many rows below the pending block's first row the
	// cursor is.
	rows int
	// partial is the start of a character whose rest has not arrived.
	partial string
	// afterList: the last block drawn ended in a list, so an indented
	// block continues one of its items.
	afterList bool
}

// NewStream returns a stream for text that starts at the beginning of a
// line.
func NewStream(o StreamOptions) *Stream {
	s := &Stream{o: o}
	s.wrap = wrapper{width: o.Width, rows: &s.rows}
	if !o.Plain {
		s.wrap.width = o.width()
	}
	if o.Rows <= 0 {
		s.o.Rows = 24
	}
	return s
}

// Write takes streamed text and returns what to write now.
func (s *Stream) Write(text string) string {
	// A character split between two deltas is sanitised whole: the
	// start of one at the end of text waits for the rest (and a CR for
	// the newline that makes it a line end).
	text = s.partial + text
	n := incompleteSuffix(text)
	text, s.partial = Sanitize(text[:len(text)-n]), text[len(text)-n:]
	return s.write(text)
}

// write takes sanitised text.
func (s *Stream) write(text string) string {
	if s.o.Plain {
		return s.wrap.add(text)
	}
	var out strings.Builder
	for text != "" {
		part, rest, nl := strings.Cut(text, "\n")
		s.line.WriteString(part)
		out.WriteString(s.wrap.add(part))
		if nl {
			out.WriteString(s.endLine())
		}
		text = rest
	}
	return out.String()
}

// Flush ends the text: the pending block is drawn rendered, and the
// cursor is left at the start of a line when anything was redrawn.
func (s *Stream) Flush() string {
	var out string
	if s.partial != "" { // a character never completed
		out = s.write(Sanitize(s.partial))
		s.partial = ""
	}
	s.wrap.flush()
	if s.o.Plain {
		return out
	}
	if line := s.line.String(); strings.TrimSpace(line) != "" {
		s.block = append(s.block, line)
	}
	s.line.Reset()
	s.fence = ""
	return out + s.complete(s.wrap.col > 0)
}

// incompleteSuffix is how many bytes at the end of s begin a UTF-8
// character that is not complete, or are a CR that may start a CRLF.
func incompleteSuffix(s string) int {
	if strings.HasSuffix(s, "\r") {
		return 1
	}
	for n := 1; n <= utf8.UTFMax-1 && n <= len(s); n++ {
		c := s[len(s)-n]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRuneInString(s[len(s)-n:]) {
				return 0
			}
			return n
		}
	}
	return 0
}

// newline writes the end of a source line.
func (s *Stream) newline() string { return s.wrap.add("\n") }

// endLine handles a source line that just ended.
func (s *Stream) endLine() string {
	line := s.line.String()
	s.line.Reset()
	if s.fence != "" {
		s.block = append(s.block, line)
		if closesFence(line, s.fence) {
			s.fence = ""
			return s.newline() + s.complete(false)
		}
		return s.newline()
	}
	if strings.TrimSpace(line) == "" {
		out := s.complete(false) + s.newline()
		s.rows = 0 // the next block starts below the blank line
		return out
	}
	s.block = append(s.block, line)
	if f := openingFence(line); f != "" {
		s.fence = f
		return s.newline()
	}
	if endsBlock(line) {
		return s.newline() + s.complete(false)
	}
	return s.newline()
}

// complete draws the pending block rendered over its raw text. The
// cursor is on the row below the block's last line, or on that line
// when it is unfinished (Flush).
func (s *Stream) complete(unfinished bool) string {
	block, rows := s.block, s.rows
	s.block, s.rows = nil, 0
	if len(block) == 0 {
		return ""
	}
	if s.o.Size != nil {
		cols, height := s.o.Size()
		if height > 0 {
			s.o.Rows = height
		}
		if cols > 0 && cols != s.o.width() {
			// The terminal reflowed the raw text: its rows are unknown.
			s.o.Width, s.wrap.width = cols, cols
			return ""
		}
	}
	if rows >= s.o.Rows {
		return "" // its first rows have scrolled out of reach
	}
	raw := strings.Join(block, "\n")
	indent := 0
	if s.afterList {
		indent = commonIndent(block)
	}
	if indent > 0 {
		for i, l := range block {
			block[i] = l[min(indent, len(l)-len(strings.TrimLeft(l, " "))):]
		}
	}
	src := []byte(strings.Join(block, "\n"))
	r := &renderer{src: src, color: s.o.Color}
	doc := parse(src)
	lines := r.blocks(doc, max(s.o.width()-indent, 10))
	_, list := doc.LastChild().(*ast.List)
	s.afterList = list || indent > 0 && s.afterList

	pad := strings.Repeat(" ", indent)
	drawn := make([]string, len(lines))
	for i, l := range lines {
		if l != "" {
			l = pad + l
		}
		drawn[i] = l
	}
	// Text that renders as itself (plain prose), each line on one row, is
	// left as it is: no redraw, no flicker.
	if strings.Join(drawn, "\n") == raw && (rows == len(block) || rows == len(block)-1 && unfinished) {
		return ""
	}
	var b strings.Builder
	b.WriteByte('\r')
	if rows > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", rows)
	}
	b.WriteString("\x1b[J")
	for _, l := range drawn {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	s.wrap.reset()
	return b.String()
}

// commonIndent is the indentation all non-blank lines share.
func commonIndent(lines []string) int {
	n := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		k := len(l) - len(strings.TrimLeft(l, " "))
		if n < 0 || k < n {
			n = k
		}
	}
	return max(n, 0)
}

// openingFence returns the fence a line opens a code block with ("```",
// "~~~~"), or "". Any indentation is accepted: a fence inside a list item
// is indented.
func openingFence(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || t[0] == '`' && strings.IndexByte(t[n:], '`') >= 0 {
		return ""
	}
	return t[:n]
}

// closesFence reports whether line closes a block opened by fence.
func closesFence(line, fence string) bool {
	t := strings.TrimSpace(line)
	if len(t) < len(fence) {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] != fence[0] {
			return false
		}
	}
	return true
}

// endsBlock reports whether a line ends the block it is in: an ATX
// heading, a thematic break, a setext underline.
func endsBlock(line string) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || t == "" {
		return false
	}
	if t[0] == '#' {
		n := 0
		for n < len(t) && t[n] == '#' {
			n++
		}
		return n <= 6 && (n == len(t) || t[n] == ' ' || t[n] == '\t')
	}
	switch t[0] {
	case '-', '*', '_', '=':
		n := 0
		for i := 0; i < len(t); i++ {
			switch t[i] {
			case t[0]:
				n++
			case ' ', '\t':
				if t[0] == '=' {
					return false
				}
			default:
				return false
			}
		}
		return n >= 3 || t[0] == '='
	}
	return false
}

// wrapper breaks streamed text between words so that a terminal does not
// cut words at its edge. Text is written as it arrives; when the word
// being streamed outgrows the line, it is erased and written again at the
// start of the next one (the cursor never left its line, so a carriage
// return and a cursor move reach it). It counts the rows the cursor moves
// down. Width 0 passes text through.
type wrapper struct {
	width  int
	col    int    // cursor column
	spaces int    // spaces held until the next word starts
	word   []rune // the word being streamed, already on screen
	from   int    // column where the word's leading spaces start; 0: at the line start, never moved
	rows   *int   // incremented for every row the cursor goes down (nil: not counted)
}

func (w *wrapper) down() {
	if w.rows != nil {
		*w.rows++
	}
}

// add takes streamed text and returns what to write now.
func (w *wrapper) add(s string) string {
	if w.width <= 0 {
		if w.rows != nil {
			*w.rows += strings.Count(s, "\n")
		}
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\n':
			b.WriteByte('\n')
			w.down()
			w.col, w.spaces, w.word = 0, 0, w.word[:0]
		case ' ':
			w.spaces++
			w.word = w.word[:0]
		case '\t':
			w.spaces += 4
			w.word = w.word[:0]
		default:
			w.rune(&b, r)
		}
	}
	return b.String()
}

func (w *wrapper) rune(b *strings.Builder, r rune) {
	rw := runewidth.RuneWidth(r)
	if len(w.word) == 0 {
		if w.col > 0 && w.col+w.spaces+rw > w.width {
			b.WriteByte('\n')
			w.down()
			w.col, w.spaces = 0, 0
		}
		w.from = w.col
		b.WriteString(strings.Repeat(" ", w.spaces))
		w.col += w.spaces
		w.spaces = 0
	} else if w.col+rw > w.width && w.from > 0 {
		// Move the word (and the spaces before it) to the next line.
		fmt.Fprintf(b, "\r\x1b[%dC\x1b[K\n%s", w.from, string(w.word))
		w.down()
		w.col, w.from = runewidth.StringWidth(string(w.word)), 0
	}
	if w.col+rw > w.width {
		w.col = 0 // the terminal wraps a word longer than the line
		w.from = 0
		w.down()
	}
	b.WriteRune(r)
	w.col += rw
	w.word = append(w.word, r)
}

// flush ends the text (its last word is already on screen).
func (w *wrapper) flush() {
	w.word, w.spaces = w.word[:0], 0
}

// reset starts afresh at the beginning of a line.
func (w *wrapper) reset() {
	w.col, w.spaces, w.word, w.from = 0, 0, w.word[:0], 0
}
