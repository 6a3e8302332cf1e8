// Code in the page: the highlight package's tokens as spans of the
// page's h-* classes.

package export

import (
	"bytes"
	"strings"

	"github.com/lunar-cli/lunar/session/export/highlight"
)

// tokenClass is the page's CSS class of each token class: h-k (keyword),
// h-t (type, built-in, constant), h-s (string), h-c (comment), h-n
// (number), h-f (function), h-v (variable), h-a (key, attribute), h-g
// (tag), h-add/h-del/h-hunk (diff lines).
var tokenClass = [...]string{
	highlight.Keyword: "h-k", highlight.Type: "h-t", highlight.String: "h-s", highlight.Comment: "h-c",
	highlight.Number: "h-n", highlight.Func: "h-f", highlight.Var: "h-v", highlight.Key: "h-a",
	highlight.Tag: "h-g", highlight.Added: "h-add", highlight.Removed: "h-del", highlight.Hunk: "h-hunk",
}

// highlightCode writes code as <pre class="code"><code>…</code></pre>,
// coloured when l is not nil.
func highlightCode(b *bytes.Buffer, code string, l *highlight.Lang) {
	b.WriteString(`<pre class="code"><code>`)
	writeTokens(b, strings.TrimSuffix(code, "\n"), l)
	b.WriteString("</code></pre>\n")
}

// writeTokens writes code escaped, its tokens in spans of their class.
func writeTokens(b *bytes.Buffer, code string, l *highlight.Lang) {
	highlight.Tokens(code, l, func(c highlight.Class, text string) {
		span(b, tokenClass[c], text)
	})
}

// span writes text escaped, in a span of class cls unless cls is "".
func span(b *bytes.Buffer, cls, text string) {
	if text == "" {
		return
	}
	if cls == "" {
		escapeTo(b, text)
		return
	}
	b.WriteString(`<span class="`)
	b.WriteString(cls)
	b.WriteString(`">`)
	escapeTo(b, text)
	b.WriteString("</span>")
}
