// Markdown to HTML with goldmark (CommonMark + GitHub tables, strike-
// through, task lists and bare links), made safe for a page that shows
// what a model or a user wrote: raw HTML is shown as text, links keep
// only http, https, mailto and relative targets, images load only from
// data URLs (any other becomes a link), and fenced code is highlighted.

package export

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"

	"github.com/lunar-cli/lunar/session/export/highlight"
)

// newMarkdown returns a converter; hardWraps keeps single line breaks
// (for what users type), tables and links add GitHub's tables and bare
// links (each costs time on every paragraph, so they are used only for
// text that may hold them). A converter is not shared between goroutines.
func newMarkdown(hardWraps, tables, links bool) goldmark.Markdown {
	opts := []renderer.Option{renderer.WithNodeRenderers(util.Prioritized(safeRenderer{}, 100))}
	if hardWraps {
		opts = append(opts, html.WithHardWraps())
	}
	exts := []goldmark.Extender{extension.Strikethrough, extension.TaskList}
	if tables {
		exts = append(exts, extension.Table)
	}
	if links {
		exts = append(exts, extension.Linkify)
	}
	return goldmark.New(goldmark.WithExtensions(exts...), goldmark.WithRendererOptions(opts...))
}

// markdowns holds a converter for each combination of newMarkdown's
// options.
type markdowns [8]goldmark.Markdown

func newMarkdowns() *markdowns {
	var m markdowns
	for i := range m {
		m[i] = newMarkdown(i&1 != 0, i&2 != 0, i&4 != 0)
	}
	return &m
}

// For returns the converter for text.
func (m *markdowns) For(text string, hardWraps bool) goldmark.Markdown {
	i := 0
	if hardWraps {
		i |= 1
	}
	if strings.IndexByte(text, '|') >= 0 {
		i |= 2
	}
	if strings.Contains(text, "://") || strings.Contains(text, "www.") || strings.IndexByte(text, '@') >= 0 {
		i |= 4
	}
	return m[i]
}

// safeRenderer overrides goldmark's renderers for the nodes that could
// carry markup, scripts or requests into the page.
type safeRenderer struct{}

func (safeRenderer) RegisterFuncs(r renderer.NodeRendererFuncRegisterer) {
	r.Register(ast.KindRawHTML, renderRawHTML)
	r.Register(ast.KindHTMLBlock, renderHTMLBlock)
	r.Register(ast.KindLink, renderLink)
	r.Register(ast.KindAutoLink, renderAutoLink)
	r.Register(ast.KindImage, renderImage)
	r.Register(ast.KindFencedCodeBlock, renderCodeBlock)
	r.Register(ast.KindCodeBlock, renderCodeBlock)
}

// renderRawHTML shows inline HTML as the text it is.
func renderRawHTML(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		n := node.(*ast.RawHTML)
		w.WriteString(`<code class="raw">`)
		for i := range n.Segments.Len() {
			seg := n.Segments.At(i)
			w.Write(util.EscapeHTML(seg.Value(source)))
		}
		w.WriteString(`</code>`)
	}
	return ast.WalkSkipChildren, nil
}

// renderHTMLBlock shows a block of HTML as preformatted text.
func renderHTMLBlock(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		n := node.(*ast.HTMLBlock)
		w.WriteString(`<pre class="raw">`)
		lines := n.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			w.Write(util.EscapeHTML(seg.Value(source)))
		}
		if n.HasClosure() {
			w.Write(util.EscapeHTML(n.ClosureLine.Value(source)))
		}
		w.WriteString("</pre>\n")
	}
	return ast.WalkSkipChildren, nil
}

func renderLink(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.Link)
	// The address as the browser will read it: entities such as &#106;
	// resolved, so that they cannot hide a scheme.
	href := util.URLEscape(n.Destination, true)
	if !entering {
		if safeURL(href) {
			w.WriteString("</a>")
		} else {
			w.WriteString("</span>")
		}
		return ast.WalkContinue, nil
	}
	if !safeURL(href) {
		w.WriteString(`<span class="bad-link" title="link removed: `)
		w.Write(util.EscapeHTML(href))
		w.WriteString(`">`)
		return ast.WalkContinue, nil
	}
	w.WriteString(`<a href="`)
	w.Write(util.EscapeHTML(href))
	w.WriteString(`" rel="noopener noreferrer nofollow"`)
	if n.Title != nil {
		w.WriteString(` title="`)
		w.Write(util.EscapeHTML(n.Title))
		w.WriteByte('"')
	}
	w.WriteByte('>')
	return ast.WalkContinue, nil
}

func renderAutoLink(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.AutoLink)
	url, label := n.URL(source), n.Label(source)
	if n.AutoLinkType == ast.AutoLinkEmail && !bytes.HasPrefix(bytes.ToLower(url), []byte("mailto:")) {
		url = append([]byte("mailto:"), url...)
	}
	href := util.URLEscape(url, false)
	if !safeURL(href) {
		w.Write(util.EscapeHTML(label))
		return ast.WalkContinue, nil
	}
	w.WriteString(`<a href="`)
	w.Write(util.EscapeHTML(href))
	w.WriteString(`" rel="noopener noreferrer nofollow">`)
	w.Write(util.EscapeHTML(label))
	w.WriteString(`</a>`)
	return ast.WalkContinue, nil
}

// renderImage shows an image written as a data URL; any other image would
// be a request, so it becomes a link to its address.
func renderImage(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.Image)
	alt := plainText(n, source)
	if mime, data, ok := parseDataImage(string(n.Destination)); ok {
		var b bytes.Buffer
		writeImage(&b, mime, data, alt)
		w.Write(b.Bytes())
		return ast.WalkSkipChildren, nil
	}
	label := "image"
	if alt != "" {
		label = "image: " + alt
	}
	if href := util.URLEscape(n.Destination, true); safeURL(href) {
		w.WriteString(`<a class="img-link" href="`)
		w.Write(util.EscapeHTML(href))
		w.WriteString(`" rel="noopener noreferrer nofollow">`)
		w.WriteString(escape("[" + label + "]"))
		w.WriteString(`</a>`)
	} else {
		w.WriteString(escape("[" + label + "]"))
	}
	return ast.WalkSkipChildren, nil
}

// plainText is the text inside a node (an image's alt text).
func plainText(n ast.Node, source []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			switch t := c.(type) {
			case *ast.Text:
				b.Write(t.Segment.Value(source))
			case *ast.String:
				b.Write(t.Value)
			case *ast.RawHTML:
				for i := range t.Segments.Len() {
					seg := t.Segments.At(i)
					b.Write(seg.Value(source))
				}
			}
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

func renderCodeBlock(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	var lang string
	if f, ok := node.(*ast.FencedCodeBlock); ok && f.Info != nil {
		info := string(f.Info.Segment.Value(source))
		if fields := strings.Fields(info); len(fields) > 0 {
			lang = strings.Trim(fields[0], "{}.")
		}
	}
	var code bytes.Buffer
	lines := node.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		code.Write(seg.Value(source))
	}
	var b bytes.Buffer
	highlightCode(&b, code.String(), highlight.ByName(lang))
	w.Write(b.Bytes())
	return ast.WalkSkipChildren, nil
}

// safeURL accepts http, https and mailto links and links without a
// scheme (relative, #fragment). Browsers ignore tabs and line breaks in
// a URL and leading spaces and control characters, so those go before
// the scheme is read: "java\tscript:" is javascript: to them.
func safeURL(u []byte) bool {
	s := strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, string(u))
	s = strings.TrimLeft(s, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	i := strings.IndexAny(s, ":/?#")
	if i < 0 || s[i] != ':' {
		return true
	}
	switch strings.ToLower(s[:i]) {
	case "http", "https", "mailto":
		return true
	}
	return false
}

// plainParagraph says markdown would render text as one paragraph of the
// same text: one line with no character that starts or ends any markdown
// construct (or a bare link), not indented, not a list item or heading.
func plainParagraph(text string) bool {
	text = strings.TrimRight(text, " \t\r\n")
	if strings.HasPrefix(text, "    ") || strings.HasPrefix(text, "\t") { // an indented code block
		return false
	}
	text = strings.TrimLeft(text, " ")
	if text == "" || len(text) > 2000 {
		return false
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '\n', '\r', '\\', '`', '*', '_', '[', ']', '<', '>', '!', '#', '|', '~', '&', ':', '@', '=', '+', '-', '\t':
			return false
		default:
			if c >= '0' && c <= '9' && i == 0 {
				return false // "1. item"
			}
		}
	}
	return !strings.Contains(strings.ToLower(text), "www.")
}
