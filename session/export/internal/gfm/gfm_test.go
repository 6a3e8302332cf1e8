package gfm

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/testutil"
)

// TestSpec runs goldmark's own test cases for the four extensions
// (testdata/*.txt, copied from goldmark v1.8.7's extension/_test), with
// the options goldmark's tests use.
func TestSpec(t *testing.T) {
	for _, tc := range []struct {
		file string
		ext  goldmark.Extender
		opts []renderer.Option
	}{
		{"table.txt", Table, []renderer.Option{html.WithUnsafe(), html.WithXHTML()}},
		{"strikethrough.txt", Strikethrough, []renderer.Option{html.WithUnsafe()}},
		{"tasklist.txt", TaskList, []renderer.Option{html.WithUnsafe()}},
		{"linkify.txt", Linkify, []renderer.Option{html.WithUnsafe()}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			md := goldmark.New(goldmark.WithRendererOptions(tc.opts...), goldmark.WithExtensions(tc.ext))
			testutil.DoTestCaseFile(md, filepath.Join("testdata", tc.file), t)
		})
	}
}

// TestSameAsGoldmark renders every test case's markdown, and texts that
// mix the extensions, with all four extensions as lunar configures them
// (HTML, not XHTML, so tables align cells with a style attribute) and
// with goldmark's extension package: the HTML must be the same.
func TestSameAsGoldmark(t *testing.T) {
	inputs := []string{
		"| a | b |\n|:--|--:|\n| `x \\| y` | ~~old~~ http://example.com/a_(b) |\n| [ ] c | d@example.com. |",
		"- [x] done www.example.com/path?q=1!\n- [ ] todo ~~no~~ ~~~three~~~\n  1. nested | not | a table",
		"text\n| c |\n| :-: |\n| *x* |\n\nmore ftp://files.example.org:21/x and (https://example.com/(a)).",
		"<b>raw</b> mail me: first.last+tag@sub.example.co.uk; or `code | pipe`",
	}
	for _, name := range []string{"table.txt", "strikethrough.txt", "tasklist.txt", "linkify.txt"} {
		inputs = append(inputs, specMarkdown(t, filepath.Join("testdata", name))...)
	}
	require.Greater(t, len(inputs), 40)
	for _, unsafe := range []bool{false, true} {
		var opts []goldmark.Option
		if unsafe {
			opts = append(opts, goldmark.WithRendererOptions(html.WithUnsafe()))
		}
		ours := goldmark.New(append(opts, goldmark.WithExtensions(Table, Strikethrough, TaskList, Linkify))...)
		theirs := goldmark.New(append(opts, goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList, extension.Linkify))...)
		for _, in := range inputs {
			var want, got bytes.Buffer
			require.NoError(t, theirs.Convert([]byte(in), &want))
			require.NoError(t, ours.Convert([]byte(in), &got))
			assert.Equal(t, want.String(), got.String(), "unsafe=%v, markdown:\n%s", unsafe, in)
		}
	}
}

// specMarkdown returns the markdown of each case in a goldmark test file.
func specMarkdown(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	const sep = "//- - - - - - - - -//"
	var out []string
	for _, c := range strings.Split(string(data), "//= = = = = = = = = = = = = = = = = = = = = = = =//") {
		parts := strings.Split(c, "\n"+sep+"\n")
		if len(parts) == 3 {
			out = append(out, parts[1])
		}
	}
	require.NotEmpty(t, out, path)
	return out
}
