// Small HTML writers shared by the renderers: escaping, times, images.

package export

import (
	"bytes"
	"strings"
)

// escape escapes text for HTML content and quoted attributes.
func escape(s string) string {
	if !strings.ContainsAny(s, `&<>"'`) {
		return s
	}
	var b bytes.Buffer
	b.Grow(len(s) + 16)
	escapeTo(&b, s)
	return b.String()
}

// escapeTo writes s escaped for HTML content and quoted attributes.
func escapeTo(b *bytes.Buffer, s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		var rep string
		switch s[i] {
		case '&':
			rep = "&amp;"
		case '<':
			rep = "&lt;"
		case '>':
			rep = "&gt;"
		case '"':
			rep = "&#34;"
		case '\'':
			rep = "&#39;"
		default:
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(rep)
		last = i + 1
	}
	b.WriteString(s[last:])
}

// timeHTML shows an ISO timestamp (UTC) as <time>: the time of day, or
// with full the date and minutes; the title holds it all.
func timeHTML(ts string, full bool) string {
	if len(ts) < 19 || ts[10] != 'T' {
		return escape(ts)
	}
	date, clock := ts[:10], ts[11:19]
	shown := clock
	if full {
		shown = date + " " + clock[:5] + " UTC"
	}
	return `<time datetime="` + escape(ts) + `" title="` + escape(date+" "+clock) + ` UTC">` + escape(shown) + "</time>"
}

// imageTypes are the image types a page shows inline.
var imageTypes = map[string]bool{
	"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true,
	"image/bmp": true, "image/avif": true, "image/svg+xml": true, // an <img> never runs an SVG's scripts
}

// writeImage writes an image block as an <img> with a data URL, or a
// note when its type is not an image type or its data is not base64.
func writeImage(b *bytes.Buffer, mime, data, alt string) {
	mime = strings.ToLower(strings.TrimSpace(mime))
	if !imageTypes[mime] || !isBase64(data) {
		b.WriteString(`<span class="note">[image: `)
		escapeTo(b, orElse(mime, "unknown type"))
		b.WriteString(`, not shown]</span>`)
		return
	}
	b.WriteString(`<img class="img" loading="lazy" alt="`)
	escapeTo(b, orElse(alt, "image"))
	b.WriteString(`" src="data:`)
	b.WriteString(mime)
	b.WriteString(";base64,")
	for i := 0; i < len(data); i++ { // spaces dropped, base64url as base64
		switch c := data[i]; c {
		case '\n', '\r', ' ', '\t':
		case '-':
			b.WriteByte('+')
		case '_':
			b.WriteByte('/')
		default:
			b.WriteByte(c)
		}
	}
	b.WriteString(`">`)
}

// isBase64 says data holds only base64 characters (and line breaks).
func isBase64(data string) bool {
	if data == "" {
		return false
	}
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9',
			c == '+', c == '/', c == '=', c == '-', c == '_', c == '\n', c == '\r', c == ' ', c == '\t':
		default:
			return false
		}
	}
	return true
}

// parseDataImage splits a data:image/…;base64,… URL.
func parseDataImage(url string) (mime, data string, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(url), "data:")
	if !found {
		return "", "", false
	}
	meta, data, found := strings.Cut(rest, ",")
	mime, found2 := strings.CutSuffix(meta, ";base64")
	if !found || !found2 || !imageTypes[strings.ToLower(mime)] || !isBase64(data) {
		return "", "", false
	}
	return mime, data, true
}

// countLines counts the lines of s (a final newline ends the last one).
func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
