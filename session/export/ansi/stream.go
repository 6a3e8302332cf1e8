// Streaming: each line of the answer is rendered once, when it is
// complete, and never drawn again. Prose is wrapped at the terminal's
// width as it is then (a resize takes effect at the next line) with its
// inline styles, and a long source line gives its screen lines as soon
// as each is full; code lines are highlighted as they arrive under a
// styled fence header; list items, quotes and headings as they end. Only
// a table, which needs every row to size its columns, is held until it
// is complete (Held reports it, for the caller to show that it waits).
// What a Stream returns is always whole lines: nothing needs the cursor
// to go back, so a caller may keep a line of its own (a prompt, a
// spinner) below the output and redraw it between writes.

package ansi

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"

	"github.com/lunar-cli/lunar/session/export/highlight"
)

// StreamOptions configure a Stream.
type StreamOptions struct {
	Options
	// Plain only wraps the text between words (thinking, --raw), or
	// passes it through when Width is 0; its lines are shown as they
	// stream.
	Plain bool
	// Size, when set, gives the terminal's current size; it is asked at
	// each line, so that a resize takes effect at the next one.
	Size func() (cols, rows int)
}

// Stream turns streamed markdown into what to write to a terminal. Its
// text must start at the beginning of a line.
type Stream struct {
	o       StreamOptions
	wrap    wrapper // Plain
	partial string  // the start of a character whose rest has not arrived

	out   strings.Builder
	line  strings.Builder // the source line being streamed
	para  *lineWrap       // the line's prose, shown as its screen lines fill
	cut   int             // bytes of line given to para
	fence string          // the opening fence of an open code block
	fpad  string          // the code block's left margin
	find  int             // the fence's indentation, removed from its lines
	lang  *highlight.Lang
	table []string // held table lines
	items []item   // open list items, outermost first
	blank bool     // the last line written was blank
	any   bool     // a line was written
}

// item is an open list item: where its marker is in the source, where
// its text starts there, and the screen column its text starts at.
type item struct{ indent, content, col int }

// NewStream returns a stream for text that starts at the beginning of a
// line.
func NewStream(o StreamOptions) *Stream {
	s := &Stream{o: o}
	s.wrap = wrapper{width: o.Width}
	if !o.Plain {
		s.wrap.width = o.width()
	}
	return s
}

// Write takes streamed text and returns what to write now: with Plain,
// the text wrapped; else the lines rendered, each ending in a newline.
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
	text = strings.ReplaceAll(text, "\t", "    ")
	for text != "" {
		part, rest, nl := strings.Cut(text, "\n")
		s.line.WriteString(part)
		if nl {
			s.endLine()
		} else if strings.IndexByte(part, ' ') >= 0 {
			s.early() // screen lines can only be complete at a space
		}
		text = rest
	}
	return s.take()
}

// Held reports whether lines are held back (a table waiting for its
// end).
func (s *Stream) Held() bool { return len(s.table) > 0 }

// Pending is the text that arrived but is not shown yet, as plain text
// (sanitised): the words of the screen line being filled, or the source
// line so far. A caller may show it provisionally in a line it redraws.
func (s *Stream) Pending() string {
	if s.o.Plain {
		return ""
	}
	line := s.line.String()
	if s.para == nil {
		return strings.TrimLeft(line, " ")
	}
	var b strings.Builder
	for i, wd := range s.para.pend {
		if i > 0 {
			b.WriteByte(' ')
		}
		for _, pc := range wd.pieces {
			b.WriteString(pc.text)
		}
	}
	if rest := strings.TrimSpace(line[s.cut:]); rest != "" {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(rest)
	}
	return b.String()
}

// Flush ends the text: its last line and anything held are rendered.
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
	if s.line.Len() > 0 {
		s.endLine()
	}
	if len(s.table) > 0 {
		s.flushTable()
	}
	s.fence = ""
	return out + s.take()
}

func (s *Stream) take() string {
	t := s.out.String()
	s.out.Reset()
	return t
}

// width is the terminal's width now.
func (s *Stream) width() int {
	if s.o.Size != nil {
		if c, _ := s.o.Size(); c > 0 {
			return c
		}
	}
	return s.o.width()
}

// emit writes rendered lines; blank lines do not repeat, nor open the
// text.
func (s *Stream) emit(lines ...string) {
	for _, l := range lines {
		if l == "" {
			if s.blank || !s.any {
				continue
			}
			s.blank = true
		} else {
			s.blank = false
		}
		s.any = true
		s.out.WriteString(l)
		s.out.WriteByte('\n')
	}
}

func (s *Stream) paint(text string, st style) string { return paint(s.o.Color, s.o.NoColor, text, st) }

// endLine renders the source line that just ended.
func (s *Stream) endLine() {
	line := s.line.String()
	s.line.Reset()
	if s.fence != "" {
		s.code(line)
		return
	}
	if p := s.para; p != nil {
		s.para = nil
		if p.shown > 0 {
			p.add(s.inline(line[s.cut:], p.base))
			s.emit(p.finish()...)
			s.cut = 0
			return
		}
		s.cut = 0 // nothing shown yet: the line may still be a table's
	}
	if len(s.table) > 0 {
		if strings.TrimSpace(line) != "" && strings.Contains(line, "|") {
			s.table = append(s.table, line)
			return
		}
		s.flushTable()
	}
	s.block(line, true)
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

// block renders a complete source line that starts a block or continues
// one: a blank, a fence, a table's first row (held), a rule, a heading,
// a quote, a list item, a paragraph's line.
func (s *Stream) block(line string, tables bool) {
	t := strings.TrimLeft(line, " ")
	indent := len(line) - len(t)
	w := s.width()
	switch {
	case t == "":
		s.emit("")
		return
	case openingFence(line) != "":
		f := openingFence(line)
		s.fence, s.find = f, indent
		info := strings.Fields(t[len(f):])
		lang := ""
		if len(info) > 0 {
			lang = info[0]
		}
		s.lang = highlight.ByName(lang)
		s.fpad = strings.Repeat(" ", s.margin(indent))
		s.emit(s.fpad + s.paint(fenceHeader(lang, w-len(s.fpad)), fenceStyle))
		return
	case tables && strings.Contains(t, "|") && (indent < 4 || len(s.items) > 0):
		s.table = []string{line}
		return
	case indent >= 4 && len(s.items) == 0 && (s.blank || !s.any):
		s.fpad, s.find, s.lang = "", 0, nil
		s.code(line[4:])
		return
	}
	k := s.classify(line)
	if k.quote {
		// A quote line is rendered whole: what is in it (a heading, a
		// list item, emphasis) is its own markdown.
		src := []byte(k.content)
		r := &renderer{src: src, color: s.o.Color, nocolor: s.o.NoColor}
		pad := strings.Repeat(" ", k.col)
		bar := s.paint("│", quoteStyle)
		lines := r.blocks(parse(src), max(w-k.col-2, 10))
		if len(lines) == 0 {
			lines = []string{""}
		}
		for _, l := range lines {
			s.emit(strings.TrimRight(pad+bar+" "+l, " "))
		}
		return
	}
	if k.rule {
		s.emit(s.paint(strings.Repeat("─", w), ruleStyle))
		return
	}
	p := s.newLineWrap(k)
	p.add(s.inline(k.content, k.base))
	s.emit(p.finish()...)
}

// margin is the column a block indented by indent in the source starts
// at: inside the list item it belongs to, or at the left edge.
func (s *Stream) margin(indent int) int {
	for i := len(s.items) - 1; i >= 0; i-- {
		if indent >= s.items[i].content {
			return s.items[i].col
		}
	}
	return 0
}

// fenceHeader is the line shown for a code block's opening fence.
func fenceHeader(lang string, w int) string {
	if lang == "" {
		return "╭─"
	}
	return "╭─ " + truncate(lang, max(w-3, 1))
}

func truncate(s string, w int) string { return runewidth.Truncate(s, w, "…") }

// Styles of the streamed blocks' frames.
var fenceStyle = style{dim: true}

// code renders a line of a code block: the closing fence ends it; other
// lines are highlighted, two columns in, cut at the width (the terminal
// would wrap them anyway; cut here, the margin stays).
func (s *Stream) code(line string) {
	if s.fence != "" && closesFence(line, s.fence) {
		s.fence = ""
		s.emit(s.fpad + s.paint("╰─", fenceStyle))
		return
	}
	n := 0
	for n < s.find && n < len(line) && line[n] == ' ' {
		n++
	}
	line = line[n:]
	w := s.width()
	pad := s.fpad + "  "
	p := painter{color: s.o.Color, nocolor: s.o.NoColor}
	p.write(pad, style{})
	col := len(pad)
	var out []string
	highlight.Tokens(line, s.lang, func(c highlight.Class, text string) {
		st := tokenStyle[c]
		for text != "" {
			k, cw := 0, 0
			for i, r := range text {
				rw := runewidth.RuneWidth(r)
				if col+cw+rw > w && col > len(pad) || col+cw+rw > w && cw > 0 {
					break
				}
				cw += rw
				k = i + utf8.RuneLen(r)
			}
			p.write(text[:k], st)
			col += cw
			text = text[k:]
			if text != "" {
				out = append(out, p.take())
				p.write(pad, style{})
				col = len(pad)
			}
		}
	})
	out = append(out, strings.TrimRight(p.take(), " "))
	// Lines of code are written as they are, blank ones too.
	for _, l := range out {
		s.blank = false
		s.any = true
		s.out.WriteString(l)
		s.out.WriteByte('\n')
	}
}

// kind is what a source line is, and how its text is laid out.
type kind struct {
	quote, rule bool
	content     string // the line's text without its markers
	start       int    // where content starts in the line
	col         int    // the screen column the block starts at
	first, cont string // styled prefixes of the first and further screen lines
	lead        string // text before content, in its style (a heading's "## ")
	base        style
}

// classify finds what a line starts, updating the open list items.
func (s *Stream) classify(line string) kind {
	t := strings.TrimLeft(line, " ")
	indent := len(line) - len(t)
	if isRule(t) && indent < 4 {
		s.items = nil
		return kind{rule: true}
	}
	if mark, n := listMarker(t); n > 0 {
		for len(s.items) > 0 && s.items[len(s.items)-1].indent >= indent {
			s.items = s.items[:len(s.items)-1]
		}
		col := 0
		if len(s.items) > 0 {
			col = s.items[len(s.items)-1].col
		}
		if mark == "" {
			mark = bullets[len(s.items)%len(bullets)]
		}
		it := item{indent: indent, content: indent + n, col: col + width(mark) + 1}
		s.items = append(s.items, it)
		content := t[n:]
		return kind{content: content, start: len(line) - len(content), col: col,
			first: strings.Repeat(" ", col) + s.paint(mark, markerStyle) + " ", cont: strings.Repeat(" ", it.col)}
	}
	if indent == 0 && s.blank {
		s.items = nil // a paragraph after a blank line ends the lists
	}
	col := s.margin(indent)
	pad := strings.Repeat(" ", col)
	switch {
	case t[0] == '>':
		c := strings.TrimPrefix(t[1:], " ")
		return kind{quote: true, content: c, start: len(line) - len(c), col: col}
	case t[0] == '#' && indent < 4:
		n := 0
		for n < len(t) && t[n] == '#' {
			n++
		}
		if n <= 6 && (n == len(t) || t[n] == ' ') {
			st := headingStyle[n]
			c := strings.TrimLeft(t[n:], " ")
			return kind{content: c, start: len(line) - len(c), col: col, base: st, lead: t[:n] + " ",
				first: pad, cont: pad + strings.Repeat(" ", n+1)}
		}
	}
	return kind{content: t, start: indent, col: col, first: pad, cont: pad}
}

// isRule reports whether t (trimmed on the left) is a thematic break or a
// setext underline.
func isRule(t string) bool {
	if t == "" {
		return false
	}
	c := t[0]
	if c != '-' && c != '*' && c != '_' && c != '=' {
		return false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case c:
			n++
		case ' ':
			if c == '=' {
				return strings.TrimSpace(t[i:]) == ""
			}
		default:
			return false
		}
	}
	return n >= 3
}

// listMarker returns a list item's marker as shown ("" for a bullet, the
// number and its delimiter for an ordered item) and how many bytes of t
// the marker and the spaces after it take; 0 when t is no list item.
func listMarker(t string) (string, int) {
	if t == "" {
		return "", 0
	}
	n := 0
	mark := ""
	switch {
	case t[0] == '-' || t[0] == '*' || t[0] == '+':
		n = 1
	case t[0] >= '0' && t[0] <= '9':
		for n < len(t) && n < 9 && t[n] >= '0' && t[n] <= '9' {
			n++
		}
		if n == len(t) || t[n] != '.' && t[n] != ')' {
			return "", 0
		}
		n++
		mark = t[:n]
	default:
		return "", 0
	}
	if n < len(t) && t[n] != ' ' {
		return "", 0
	}
	for n < len(t) && t[n] == ' ' {
		n++
	}
	return mark, n
}

// inline parses text (part of a line, whose inline markup is complete)
// into styled runs. It is parsed behind a word so that its start is
// never taken for a block's marker.
func (s *Stream) inline(text string, base style) []run {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if !strings.ContainsAny(text, "*_`[]<&\\~") {
		return []run{{text, base}} // no inline markup: no parse
	}
	src := []byte("a " + text)
	r := &renderer{src: src, color: s.o.Color, nocolor: s.o.NoColor}
	doc := parse(src)
	p := doc.FirstChild()
	if p == nil {
		return nil
	}
	runs := r.inline(p, base)
	if len(runs) > 0 {
		runs[0].text = strings.TrimPrefix(runs[0].text, "a ")
		if runs[0].text == "" {
			runs = runs[1:]
		}
	}
	return runs
}

// early shows the screen lines of the source line being streamed that
// are already full: its text is given to the line's wrapper up to the
// last space before which all inline markup is closed.
func (s *Stream) early() {
	if s.fence != "" || len(s.table) > 0 {
		return
	}
	line := s.line.String()
	if s.para == nil {
		t := strings.TrimLeft(line, " ")
		sp := strings.IndexByte(t, ' ')
		if sp < 0 || len(t)-sp < 2 || strings.Contains(t, "|") || openingFence(line) != "" ||
			t[0] == '>' || isRule(strings.TrimRight(t, " ")) || len(line)-len(t) >= 4 && len(s.items) == 0 {
			return
		}
		if _, n := listMarker(t); n > 0 && n >= len(t) {
			return
		}
		// Wait until the line is at least a screen line long: most lines
		// are shorter and are rendered whole when they end.
		if width(line) < s.width() {
			return
		}
		items := append([]item(nil), s.items...)
		k := s.classify(line)
		if k.quote || k.rule {
			s.items = items
			return
		}
		s.para = s.newLineWrap(k)
		s.cut = k.start
	}
	seg := line[s.cut:]
	i := strings.LastIndexByte(seg, ' ')
	if i <= 0 || !closed(seg[:i]) {
		return
	}
	s.para.add(s.inline(seg[:i], s.para.base))
	s.cut += i
	s.emit(s.para.full()...)
}

// closed reports whether inline markup opened in text is closed in it:
// code spans, emphasis, strikethrough, links. Emphasis is counted in
// runs of its character that touch a word.
func closed(text string) bool {
	runs := map[byte]int{}
	brackets, parens := 0, 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '\\':
			i++
		case '`':
			n := 1
			for i+n < len(text) && text[i+n] == '`' {
				n++
			}
			end := strings.Index(text[i+n:], strings.Repeat("`", n))
			if end < 0 {
				return false
			}
			i += n + end + n - 1
		case '*', '~', '_':
			j := i
			for j < len(text) && text[j] == c {
				j++
			}
			before := i == 0 || text[i-1] == ' '
			after := j == len(text) || text[j] == ' '
			// Only a run at a word's edge opens or closes; an
			// underscore inside a word (snake_case) or a lone star
			// between spaces (2 * 3) is text.
			if before != after {
				runs[c]++
			}
			i = j - 1
		case '[':
			brackets++
		case ']':
			brackets--
		case '(':
			parens++
		case ')':
			parens--
		}
	}
	return runs['*']%2 == 0 && runs['~']%2 == 0 && runs['_']%2 == 0 && brackets <= 0 && parens <= 0
}

// flushTable renders the held lines: a table when they are one (its
// second line a delimiter row), else each as it would have been.
func (s *Stream) flushTable() {
	held := s.table
	s.table = nil
	if len(held) >= 2 && delimiterRow(held[1]) {
		src := []byte(strings.Join(held, "\n"))
		doc := parse(src)
		var tbl *east.Table
		ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if t, ok := n.(*east.Table); ok && entering && tbl == nil {
				tbl = t
				return ast.WalkStop, nil
			}
			return ast.WalkContinue, nil
		})
		if tbl != nil {
			r := &renderer{src: src, color: s.o.Color, nocolor: s.o.NoColor}
			s.emit("")
			s.emit(r.table(tbl, s.width())...)
			return
		}
	}
	for _, l := range held {
		s.block(l, false)
	}
}

// delimiterRow reports whether line is a table's delimiter row
// ("|---|:--:|").
func delimiterRow(line string) bool {
	t := strings.Trim(strings.TrimSpace(line), "|")
	if t == "" {
		return false
	}
	for _, c := range strings.Split(t, "|") {
		c = strings.Trim(strings.TrimSpace(c), ":")
		if c == "" || strings.Trim(c, "-") != "" {
			return false
		}
	}
	return true
}

// lineWrap lays out the text of one source line in screen lines, as its
// parts arrive: greedy, between words. The words of the screen line not
// yet complete are kept, not drawn, so that each screen line is laid out
// at the width the terminal has when it is complete: after a resize,
// the next screen line has the new width.
type lineWrap struct {
	size        func() int
	color       bool
	nocolor     bool
	first, cont string // prefixes (styled) of the first and further screen lines
	lead        string // written in base style before the first word
	base        style
	pend        []word // words of the screen line being filled
	shown       int    // screen lines returned
	lines       []string
}

func (s *Stream) newLineWrap(k kind) *lineWrap {
	return &lineWrap{size: s.width, color: s.o.Color, nocolor: s.o.NoColor, first: k.first, cont: k.cont, lead: k.lead, base: k.base}
}

// add lays out runs after what came before.
func (l *lineWrap) add(runs []run) {
	if l.lead != "" {
		runs = append([]run{{l.lead, l.base}}, runs...)
		l.lead = ""
	}
	for _, wd := range words(runs) {
		if wd.brk {
			l.layout(true)
			continue
		}
		l.pend = append(l.pend, wd)
	}
	l.layout(false)
}

func (l *lineWrap) prefix() string {
	if l.shown+len(l.lines) == 0 {
		return l.first
	}
	return l.cont
}

// layout makes screen lines of the pending words that fill one at the
// current width; with all, of the rest too.
func (l *lineWrap) layout(all bool) {
	w := l.size()
	for len(l.pend) > 0 {
		col, n := visibleWidth(l.prefix()), 0
		for n < len(l.pend) {
			wd := l.pend[n]
			if n > 0 && col+wd.spaces+wd.width > w {
				break
			}
			if n > 0 {
				col += wd.spaces
			}
			col += wd.width
			n++
		}
		if n == len(l.pend) && !all {
			return // more words may fit on it
		}
		l.line(l.pend[:n], w)
		l.pend = l.pend[n:]
	}
}

// line draws a screen line of words; a word longer than the line (the
// only one on it) is cut.
func (l *lineWrap) line(ws []word, w int) {
	p := painter{color: l.color, nocolor: l.nocolor}
	prefix := l.prefix()
	p.b.WriteString(prefix)
	col := visibleWidth(prefix)
	for i, wd := range ws {
		if i > 0 && wd.spaces > 0 {
			p.write(strings.Repeat(" ", wd.spaces), wd.gap)
			col += wd.spaces
		}
		for _, pc := range wd.pieces {
			text := pc.text
			for col+width(text) > w {
				k, cw := 0, 0
				for j, r := range text {
					rw := runewidth.RuneWidth(r)
					if col+cw+rw > w {
						break
					}
					cw += rw
					k = j + utf8.RuneLen(r)
				}
				if k == 0 && col <= visibleWidth(prefix) {
					_, k = utf8.DecodeRuneInString(text) // a rune wider than the line
				}
				p.write(text[:k], pc.st)
				text = text[k:]
				l.lines = append(l.lines, strings.TrimRight(p.take(), " "))
				prefix = l.cont
				p.b.WriteString(prefix)
				col = visibleWidth(prefix)
			}
			p.write(text, pc.st)
			col += width(text)
		}
	}
	l.lines = append(l.lines, strings.TrimRight(p.take(), " "))
}

// full returns the screen lines that are complete.
func (l *lineWrap) full() []string {
	out := l.lines
	l.shown += len(out)
	l.lines = nil
	return out
}

// finish ends the source line and returns its remaining screen lines.
func (l *lineWrap) finish() []string {
	if l.lead != "" {
		l.add(nil)
	}
	l.layout(true)
	if l.shown+len(l.lines) == 0 {
		l.lines = append(l.lines, strings.TrimRight(l.first, " "))
	}
	return l.full()
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

// wrapper breaks streamed text between words so that a terminal does not
// cut words at its edge. Text is written as it arrives; when the word
// being streamed outgrows the line, it is erased and written again at the
// start of the next one (the cursor never left its line, so a carriage
// return and a cursor move reach it). Width 0 passes text through.
type wrapper struct {
	width  int
	col    int    // cursor column
	spaces int    // spaces held until the next word starts
	word   []rune // the word being streamed, already on screen
	from   int    // column where the word's leading spaces start; 0: at the line start, never moved
}

// add takes streamed text and returns what to write now.
func (w *wrapper) add(s string) string {
	if w.width <= 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\n':
			b.WriteByte('\n')
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
			w.col, w.spaces = 0, 0
		}
		w.from = w.col
		b.WriteString(strings.Repeat(" ", w.spaces))
		w.col += w.spaces
		w.spaces = 0
	} else if w.col+rw > w.width && w.from > 0 {
		// Move the word (and the spaces before it) to the next line.
		fmt.Fprintf(b, "\r\x1b[%dC\x1b[K\n%s", w.from, string(w.word))
		w.col, w.from = runewidth.StringWidth(string(w.word)), 0
	}
	if w.col+rw > w.width {
		w.col = 0 // the terminal wraps a word longer than the line
		w.from = 0
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
