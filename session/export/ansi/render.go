// Package ansi renders markdown for a terminal: headings, emphasis,
// code spans, links, block quotes, lists, fenced code with syntax
// highlighting, tables fitted to the width and rules, written with SGR
// escape sequences (none at all when styling is off, no colours with
// NO_COLOR). Render draws a whole text; Stream renders text as it
// streams, each line once, when it is complete.
//
// It is also where terminal safety lives: Sanitize is the one function
// that every writer passes the text it did not write itself through
// before it reaches a terminal (control characters shown escaped), and
// Writer lets only lunar's own sequences through. Both sit in this
// package because the REPL, one-shot mode, `lunar sessions` and the hook
// runtime (package lua) can all import it without an upward import.
//
// It is built on goldmark's parser (already lunar's for the HTML export)
// and the highlight package, so that terminal rendering costs the binary
// and its start-up nothing more: no styles or lexers are loaded at
// package initialisation, the parser is built on first use.
package ansi

import (
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/lunar-cli/lunar/session/export/highlight"
)

// Options say how text is rendered.
type Options struct {
	// Width is the terminal's width in columns (80 when 0). Text is
	// wrapped between words to fit it; tables are fitted into it.
	Width int
	// Color enables escape sequences; without it structure is kept
	// (bullets, indentation, tables) and nothing is styled.
	Color bool
	// NoColor (NO_COLOR, no-color.org) leaves colours out of the escape
	// sequences Color enables: bold, dim, italic, underline and
	// strikethrough stay.
	NoColor bool
}

func (o Options) width() int {
	if o.Width <= 0 {
		return 80
	}
	return o.Width
}

var (
	parserOnce sync.Once
	md         goldmark.Markdown
)

// parse parses markdown source (GitHub's tables, strikethrough and task
// lists included). goldmark's parser may be shared between goroutines.
func parse(src []byte) ast.Node {
	parserOnce.Do(func() {
		md = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList))
	})
	return md.Parser().Parse(text.NewReader(src))
}

// Render returns markdown as terminal text: one line per screen line,
// each ending in a newline, blocks one blank line apart.
func Render(markdown string, o Options) string {
	lines := renderLines(markdown, o)
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// renderLines renders markdown into screen lines.
func renderLines(markdown string, o Options) []string {
	src := []byte(Sanitize(markdown))
	r := &renderer{src: src, color: o.Color, nocolor: o.NoColor}
	return r.blocks(parse(src), o.width())
}

// Styles of the elements.
var (
	headingStyle = [7]style{
		{},
		{bold: true, under: true, fg: fgMagenta},
		{bold: true, fg: fgMagenta},
		{bold: true},
		{bold: true, italic: true},
		{italic: true},
		{italic: true},
	}
	codeStyle   = style{fg: fgCyan}
	linkStyle   = style{fg: fgBlue, under: true}
	urlStyle    = style{dim: true}
	quoteStyle  = style{fg: fgGray}
	markerStyle = style{fg: fgCyan}
	ruleStyle   = style{dim: true}
	tableStyle  = style{dim: true}
)

// renderer turns a parsed document into screen lines.
type renderer struct {
	src     []byte
	color   bool
	nocolor bool
}

func (r *renderer) paint(text string, st style) string { return paint(r.color, r.nocolor, text, st) }

// blocks renders the children of a container. Blocks are separated as
// the source separates them: by a blank line where it has one (several
// count as one), else not at all (a heading right above its text, a
// tight list), so that a block drawn while streaming takes the place
// its raw text had.
func (r *renderer) blocks(parent ast.Node, w int) []string {
	var out []string
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		lines := r.block(n, w)
		if lines == nil {
			continue
		}
		if len(out) > 0 && blankBefore(n) {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

// blankBefore reports whether the source has a blank line before block
// n. A table is made from a paragraph after parsing and does not know:
// it always has one.
func blankBefore(n ast.Node) bool {
	if _, ok := n.(*east.Table); ok {
		return true
	}
	return n.HasBlankPreviousLines()
}

// block renders one block node.
func (r *renderer) block(n ast.Node, w int) []string {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return wrap(r.inline(n, style{}), w, r.color, r.nocolor, false)
	case *ast.Heading:
		level := min(max(n.Level, 1), 6)
		st := headingStyle[level]
		runs := append([]run{{strings.Repeat("#", level) + " ", st}}, r.inline(n, st)...)
		return wrap(runs, w, r.color, r.nocolor, false)
	case *ast.ThematicBreak:
		return []string{r.paint(strings.Repeat("─", w), ruleStyle)}
	case *ast.FencedCodeBlock:
		return r.code(n, string(n.Language(r.src)), w)
	case *ast.CodeBlock:
		return r.code(n, "", w)
	case *ast.Blockquote:
		return r.quote(n, w)
	case *ast.List:
		return r.list(n, w)
	case *ast.HTMLBlock:
		var b strings.Builder
		lines := n.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			b.Write(seg.Value(r.src))
		}
		if n.HasClosure() {
			b.Write(n.ClosureLine.Value(r.src))
		}
		return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	case *east.Table:
		return r.table(n, w)
	}
	// Anything else (an extension's block): its children.
	return r.blocks(n, w)
}

// code renders a code block highlighted (by its fence's language), two
// columns in. Lines are not wrapped: what is copied stays the code.
func (r *renderer) code(n ast.Node, lang string, w int) []string {
	var b strings.Builder
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		b.Write(seg.Value(r.src))
	}
	code := strings.TrimRight(strings.ReplaceAll(b.String(), "\t", "    "), "\n")
	var out []string
	p := painter{color: r.color, nocolor: r.nocolor}
	p.write("  ", style{})
	highlight.Tokens(code, highlight.ByName(lang), func(c highlight.Class, text string) {
		st := tokenStyle[c]
		for {
			line, rest, nl := strings.Cut(text, "\n")
			p.write(line, st)
			if !nl {
				return
			}
			out = append(out, p.take())
			p.write("  ", style{})
			text = rest
		}
	})
	out = append(out, p.take())
	return out
}

// tokenStyle is the look of each highlight class.
var tokenStyle = [...]style{
	highlight.Keyword: {fg: fgMagenta},
	highlight.Type:    {fg: fgCyan},
	highlight.String:  {fg: fgGreen},
	highlight.Comment: {fg: fgGray, italic: true},
	highlight.Number:  {fg: fgYellow},
	highlight.Func:    {fg: fgBlue},
	highlight.Var:     {fg: fgCyan},
	highlight.Key:     {fg: fgBlue},
	highlight.Tag:     {fg: fgRed},
	highlight.Added:   {fg: fgGreen},
	highlight.Removed: {fg: fgRed},
	highlight.Hunk:    {fg: fgCyan},
}

// quote renders a block quote behind a bar.
func (r *renderer) quote(n *ast.Blockquote, w int) []string {
	lines := r.blocks(n, max(w-2, 10))
	bar := r.paint("│", quoteStyle)
	for i, l := range lines {
		if l == "" {
			lines[i] = bar
		} else {
			lines[i] = bar + " " + l
		}
	}
	return lines
}

// bullets are the markers of unordered lists by depth.
var bullets = []string{"•", "◦", "▪"}

// list renders a list: bullets by depth, numbers right-aligned, item
// text aligned after its marker.
func (r *renderer) list(n *ast.List, w int) []string {
	depth := 0
	for p := n.Parent(); p != nil; p = p.Parent() {
		if _, ok := p.(*ast.List); ok {
			depth++
		}
	}
	count := n.ChildCount()
	markW := 1
	if n.IsOrdered() {
		markW = len(itoa(n.Start+count-1)) + 1
	}
	var out []string
	i := 0
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		var mark string
		if n.IsOrdered() {
			num := itoa(n.Start+i) + string(n.Marker)
			mark = strings.Repeat(" ", markW-len(num)) + num
		} else {
			mark = bullets[depth%len(bullets)]
		}
		i++
		body := r.blocks(item, max(w-markW-1, 10))
		if len(body) == 0 {
			body = []string{""}
		}
		if len(out) > 0 && blankBefore(item) {
			out = append(out, "")
		}
		out = append(out, r.paint(mark, markerStyle)+" "+body[0])
		pad := strings.Repeat(" ", markW+1)
		for _, l := range body[1:] {
			if l == "" {
				out = append(out, "")
			} else {
				out = append(out, pad+l)
			}
		}
	}
	return out
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// inline collects the styled runs of an inline container.
func (r *renderer) inline(n ast.Node, st style) []run {
	var runs []run
	r.inlineInto(&runs, n, st)
	return runs
}

func (r *renderer) inlineInto(runs *[]run, parent ast.Node, st style) {
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Text:
			v := n.Segment.Value(r.src)
			if !n.IsRaw() {
				v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
			}
			*runs = append(*runs, run{string(v), st})
			if n.SoftLineBreak() || n.HardLineBreak() {
				// A line break in an answer is kept as the model wrote it.
				*runs = append(*runs, run{"\n", st})
			}
		case *ast.String:
			*runs = append(*runs, run{string(n.Value), st})
		case *ast.CodeSpan:
			var b strings.Builder
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					b.Write(t.Segment.Value(r.src))
				}
			}
			cs := st
			cs.fg = codeStyle.fg
			*runs = append(*runs, run{strings.ReplaceAll(b.String(), "\n", " "), cs})
		case *ast.Emphasis:
			es := st
			if n.Level >= 2 {
				es.bold = true
			} else {
				es.italic = true
			}
			r.inlineInto(runs, n, es)
		case *east.Strikethrough:
			ss := st
			ss.strike = true
			r.inlineInto(runs, n, ss)
		case *ast.Link:
			ls := st
			ls.fg, ls.under = linkStyle.fg, true
			start := len(*runs)
			r.inlineInto(runs, n, ls)
			var label strings.Builder
			for _, x := range (*runs)[start:] {
				label.WriteString(x.text)
			}
			if dest := string(n.Destination); dest != "" && dest != label.String() && "mailto:"+label.String() != dest {
				*runs = append(*runs, run{" (" + dest + ")", urlStyle})
			}
		case *ast.AutoLink:
			ls := st
			ls.fg, ls.under = linkStyle.fg, true
			*runs = append(*runs, run{string(n.Label(r.src)), ls})
		case *ast.Image:
			alt := r.inline(n, st)
			var b strings.Builder
			for _, x := range alt {
				b.WriteString(x.text)
			}
			label := "[image]"
			if b.Len() > 0 {
				label = "[image: " + b.String() + "]"
			}
			*runs = append(*runs, run{label, style{dim: true}})
			if dest := string(n.Destination); dest != "" {
				*runs = append(*runs, run{" (" + dest + ")", urlStyle})
			}
		case *ast.RawHTML:
			for i := range n.Segments.Len() {
				seg := n.Segments.At(i)
				*runs = append(*runs, run{string(seg.Value(r.src)), st})
			}
		case *east.TaskCheckBox:
			if n.IsChecked {
				*runs = append(*runs, run{"[x]", style{fg: fgGreen}}, run{" ", st})
			} else {
				*runs = append(*runs, run{"[ ]", markerStyle}, run{" ", st})
			}
		default:
			r.inlineInto(runs, n, st)
		}
	}
}
