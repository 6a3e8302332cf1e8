package export

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/session/export/highlight"
)

func markdown(t *testing.T, src string) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, newMarkdowns().For(src, false).Convert([]byte(src), &b))
	return b.String()
}

func TestMarkdown(t *testing.T) {
	tests := []struct {
		name, src    string
		want, unwant []string
	}{
		{"heading list table", "# Title\n\n- a\n- b\n\n| x | y |\n|---|---|\n| 1 | 2 |\n",
			[]string{"<h1>Title</h1>", "<li>a</li>", "<table>", "<td>1</td>"}, nil},
		{"task list and strikethrough", "- [x] done\n- [ ] todo\n\n~~old~~", []string{`type="checkbox"`, "<del>old</del>"}, nil},
		{"fenced code is highlighted and escaped", "```go\nfunc f() string { return \"</script>\" } // <b>\n```",
			[]string{`<pre class="code"><code><span class="h-k">func</span>`, `<span class="h-s">&#34;&lt;/script&gt;&#34;</span>`, `<span class="h-c">// &lt;b&gt;</span>`}, []string{"</script>"}},
		{"unknown language is plain", "```brainfuck\n<+>\n```", []string{"&lt;+&gt;"}, []string{"<span"}},
		{"inline html is text", "a <script>alert(1)</script> b", []string{"&lt;script&gt;", "&lt;/script&gt;"}, []string{"<script"}},
		{"html block is text", "<div onclick=\"x()\">\n<iframe src=\"http://evil\"></iframe>\n</div>", []string{`<pre class="raw">&lt;div onclick=`, "&lt;iframe"}, []string{"<div", "<iframe"}},
		{"comment is text", "<!-- secret -->", []string{"&lt;!-- secret --&gt;"}, []string{"<!--"}},
		{"javascript link", "[x](javascript:alert(1))", []string{`<span class="bad-link"`}, []string{"href"}},
		{"upper-case scheme", "[x](JaVaScRiPt:alert(1))", nil, []string{"href"}},
		{"entity-encoded scheme", "[x](&#106;avascript:alert(1))", nil, []string{"href"}},
		{"vbscript and data links", "[a](vbscript:x) [b](data:text/html,<script>x</script>)", nil, []string{"href", "<script"}},
		{"autolink with script scheme", "<javascript:alert(1)>", nil, []string{"href"}},
		{"http link", "[ok](https://example.com/?a=1&b=<2>)", []string{`<a href="https://example.com/?a=1&amp;b=%3C2%3E" rel="noopener noreferrer nofollow">ok</a>`}, nil},
		{"bare link", "see https://example.com/x", []string{`<a href="https://example.com/x"`}, nil},
		{"relative and fragment links", "[a](docs/x.md) [b](#top)", []string{`href="docs/x.md"`, `href="#top"`}, nil},
		{"remote image becomes a link", "![logo](https://example.com/l.png)", []string{`<a class="img-link" href="https://example.com/l.png"`, "[image: logo]"}, []string{"<img"}},
		{"data image shows", "![dot](data:image/png;base64," + tinyPNG + ")", []string{`<img class="img" loading="lazy" alt="dot" src="data:image/png;base64,` + tinyPNG + `">`}, nil},
		{"svg data image with a script is an image", "![x](data:image/svg+xml;base64,PHN2Zz48c2NyaXB0Pjwvc2NyaXB0Pjwvc3ZnPg==)", []string{`<img class="img"`}, nil},
		{"data image that is not base64", "![x](data:image/png;base64,\"onerror=alert(1))", nil, []string{"<img", "onerror=alert"}},
		{"quotes in alt text", `![a "b" <c>](data:image/png;base64,` + tinyPNG + ")", []string{`alt="a &#34;b&#34; &lt;c&gt;"`}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := markdown(t, tc.src)
			for _, w := range tc.want {
				assert.Contains(t, out, w)
			}
			for _, u := range tc.unwant {
				assert.NotContains(t, out, u)
			}
		})
	}
}

func TestPlainParagraphMatchesMarkdown(t *testing.T) {
	for _, s := range []string{"Let me run the failing test first.", "  Done. Costs 0.000123 $.  ", "Ça marche, 日本語 too 😀", "a\u2028b"} {
		require.True(t, plainParagraph(s), s)
		var b bytes.Buffer
		escapeTo(&b, strings.TrimSpace(s))
		assert.Equal(t, "<p>"+b.String()+"</p>\n", markdown(t, s), s)
	}
	for _, s := range []string{"1. one", "# h", "a *b*", "a\nb", "see www.example.com", "x: http://y", "a_b_c", "- x", "a <b>", "a & b", "`c`", "    code"} {
		assert.False(t, plainParagraph(s), s)
	}
}

func TestSafeURL(t *testing.T) {
	for u, ok := range map[string]bool{
		"https://x": true, "http://x": true, "mailto:a@b": true, "docs/a.md": true, "#id": true, "/abs": true, "?q=1": true, "a/b:c": true,
		"javascript:x": false, " javascript:x": false, "\x01javascript:x": false, "java\tscript:x": false, "java\nscript:x": false,
		"JAVASCRIPT:x": false, "vbscript:x": false, "data:text/html,x": false, "file:///etc/passwd": false,
	} {
		assert.Equal(t, ok, safeURL([]byte(u)), "%q", u)
	}
}

func TestANSI(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain <b>", "plain &lt;b&gt;"},
		{"\x1b[31mred\x1b[0m ok", `<span class="a-f1">red</span> ok`},
		{"\x1b[1;92mbold bright\x1b[22m green", `<span class="a-b a-f10">bold bright</span><span class="a-f10"> green</span>`},
		{"\x1b[38;5;208mx\x1b[39m", `<span style="color:#ff8700">x</span>`},
		{"\x1b[48;2;1;2;3mx\x1b[m", `<span style="background:#010203">x</span>`},
		{"\x1b[38;2;999;0;0mx", "x"},
		{"\x1b]8;;https://x\x07link\x1b]8;;\x07", "link"},
		{"\x1b]0;title\x1b\\after", "after"},
		{"\x1b[2K\x1b[1Gclear", "clear"},
		{"10%\r50%\r100%\ndone\r\n", "100%\ndone\n"},
		{"bell\x07 nul\x00", "bell nul"},
		{"\x1b[1m<unclosed", `<span class="a-b">&lt;unclosed</span>`},
	}
	for _, tc := range tests {
		var b bytes.Buffer
		ansiToHTML(&b, tc.in)
		assert.Equal(t, tc.want, b.String(), "%q", tc.in)
	}
	assert.Equal(t, "ok  pkg 0.01s", stripControls("ok  \x1b[32mpkg\x1b[0m\t0.01s"))
}

func TestHighlight(t *testing.T) {
	hl := func(code string, l *highlight.Lang) string {
		var b bytes.Buffer
		writeTokens(&b, code, l)
		return b.String()
	}
	tests := []struct {
		name, code string
		l          *highlight.Lang
		want       []string
	}{
		{"go", "package main // c\nfunc f(x int) string { return `a\nb` + \"q\\\"<\" + 0x1F }",
			highlight.ByName("go"), []string{`<span class="h-k">package</span>`, `<span class="h-c">// c</span>`, `<span class="h-k">func</span> <span class="h-f">f</span>(x <span class="h-t">int</span>)`,
				"<span class=\"h-s\">`a\nb`</span>", `<span class="h-s">&#34;q\&#34;&lt;&#34;</span>`, `<span class="h-n">0x1F</span>`}},
		{"python", "def f():\n    \"\"\"doc\n    more\"\"\"\n    return None  # done",
			highlight.ByName("python"), []string{`<span class="h-k">def</span>`, "<span class=\"h-s\">&#34;&#34;&#34;doc\n    more&#34;&#34;&#34;</span>", `<span class="h-t">None</span>`, `<span class="h-c"># done</span>`}},
		{"shell", "echo \"$HOME\" ${X} a#b # note\nexport Y=1",
			highlight.ByName("bash"), []string{`<span class="h-t">echo</span>`, `<span class="h-s">&#34;$HOME&#34;</span>`, `<span class="h-v">${X}</span>`, "a#b ", `<span class="h-c"># note</span>`, `<span class="h-k">export</span>`}},
		{"json", `{"key": "value", "n": 1.5e3, "t": true}`,
			highlight.ByName("json"), []string{`<span class="h-a">&#34;key&#34;</span>`, `<span class="h-s">&#34;value&#34;</span>`, `<span class="h-n">1.5e3</span>`, `<span class="h-t">true</span>`}},
		{"yaml", "name: x # c\nlist:\n  - key: 'v'", highlight.ByName("yaml"), []string{`<span class="h-a">name</span>`, `<span class="h-c"># c</span>`, `<span class="h-a">key</span>`, `<span class="h-s">&#39;v&#39;</span>`}},
		{"html", `<a href="x">&amp; <!-- c --></a>`, highlight.ByName("html"), []string{`<span class="h-g">&lt;a</span> <span class="h-a">href</span>=<span class="h-s">&#34;x&#34;</span><span class="h-g">&gt;</span>`, `<span class="h-t">&amp;amp;</span>`, `<span class="h-c">&lt;!-- c --&gt;</span>`}},
		{"diff", "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n ctx", highlight.ByName("diff"), []string{`<span class="h-hunk">@@ -1 +1 @@</span>`, `<span class="h-del">-old</span>`, `<span class="h-add">+new</span>`, " ctx"}},
		{"unterminated string and comment", "x = \"abc\n/* open", highlight.ByName("js"), []string{`<span class="h-s">&#34;abc</span>`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := hl(tc.code, tc.l)
			for _, w := range tc.want {
				assert.Contains(t, out, w)
			}
			assert.Equal(t, tc.code, htmlTextForTest(out), "the text is unchanged")
		})
	}
	assert.Equal(t, "a &lt;b&gt;", hl("a <b>", nil))
}

// htmlTextForTest drops tags and decodes the escapes escapeTo writes.
func htmlTextForTest(h string) string {
	var b strings.Builder
	for i := 0; i < len(h); i++ {
		if h[i] == '<' {
			i += strings.IndexByte(h[i:], '>')
			continue
		}
		b.WriteByte(h[i])
	}
	r := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&#34;", `"`, "&#39;", "'", "&amp;", "&")
	return r.Replace(b.String())
}
