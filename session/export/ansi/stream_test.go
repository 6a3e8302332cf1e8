package ansi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// feed streams md in chunks of n bytes and returns everything written.
func feed(s *Stream, md string, n int) string {
	var b strings.Builder
	for len(md) > 0 {
		k := min(n, len(md))
		b.WriteString(s.Write(md[:k]))
		md = md[k:]
	}
	b.WriteString(s.Flush())
	return b.String()
}

// TestStreamEndsAsRendered streams each testdata/*.md in chunks of
// several sizes (splitting words, escape-free runes and markers) and
// checks that the screen ends exactly as Render draws the whole text,
// with each block redrawn the same number of times whatever the chunks.
func TestStreamEndsAsRendered(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.md"))
	require.NoError(t, err)
	for _, in := range inputs {
		src, err := os.ReadFile(in)
		require.NoError(t, err)
		md := string(src)
		for _, w := range []int{80, 40} {
			want := newScreen(t, w)
			want.write(Render(md, Options{Width: w, Color: true}))
			redraws := -1
			for _, n := range []int{1, 2, 5, 13, 64, len(md)} {
				t.Run(filepath.Base(in)+"/"+itoa(w)+"/"+itoa(n), func(t *testing.T) {
					got := newScreen(t, w)
					got.write(feed(NewStream(StreamOptions{Options: Options{Width: w, Color: true}, Rows: 1000}), md, n))
					assert.Equal(t, want.text(), got.text())
					if redraws < 0 {
						redraws = got.redraws
					}
					assert.Equal(t, redraws, got.redraws, "redraws depend on the chunks")
				})
			}
		}
	}
}

// TestStreamGolden keeps the exact bytes a stream writes for an answer
// streamed in 7-byte chunks at 40 columns: raw text, word wrapping,
// cursor moves and redrawn blocks.
func TestStreamGolden(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "answer.md"))
	require.NoError(t, err)
	golden(t, "answer.stream.40.golden", feed(NewStream(StreamOptions{Options: Options{Width: 40, Color: true}}), string(src), 7))
}

func TestStreamBlockCompletion(t *testing.T) {
	type step struct {
		chunk   string
		redraws int // redraws so far, after the chunk
	}
	tests := []struct {
		name  string
		steps []step
		flush int    // redraws after Flush
		want  string // the screen at the end
	}{
		{
			name:  "a paragraph split across many chunks is drawn once, at the blank line",
			steps: []step{{"Some **bo", 0}, {"ld** te", 0}, {"xt\n", 0}, {"and more", 0}, {"\n", 0}, {"\n", 1}, {"*Next*", 1}},
			flush: 2, want: "Some bold text\nand more\n\nNext",
		},
		{
			name:  "a code fence stays open until it is closed, blank lines and all",
			steps: []step{{"```go\n", 0}, {"x := 1\n", 0}, {"\n", 0}, {"y := ", 0}, {"2\n", 0}, {"``", 0}, {"`\n", 1}},
			flush: 1, want: "  x := 1\n\n  y := 2",
		},
		{
			name:  "a longer fence is not closed by a shorter one",
			steps: []step{{"````\n", 0}, {"```\n", 0}, {"````\n", 1}},
			flush: 1, want: "  ```",
		},
		{
			name:  "a heading is drawn at the end of its line",
			steps: []step{{"## Ti", 0}, {"tle", 0}, {"\n", 1}, {"`text`\n", 1}},
			flush: 2, want: "## Title\ntext",
		},
		{
			name:  "a rule is drawn at the end of its line",
			steps: []step{{"---\n", 1}},
			flush: 1, want: strings.Repeat("─", 20),
		},
		{
			name:  "a paragraph with its setext underline is a heading",
			steps: []step{{"Title\n", 0}, {"===\n", 1}},
			flush: 1, want: "# Title",
		},
		{
			name:  "the unfinished last line is drawn by Flush",
			steps: []step{{"just *one* line", 0}},
			flush: 1, want: "just one line",
		},
		{
			name:  "an unclosed fence is drawn by Flush",
			steps: []step{{"```\nopen", 0}},
			flush: 1, want: "  open",
		},
		{
			name:  "a paragraph wrapped over several rows is redrawn from its first",
			steps: []step{{"one two three four five six seven eight nine ten\n\n", 1}},
			flush: 1, want: "one two three four\nfive six seven eight\nnine ten",
		},
		{
			name:  "a list and its indented continuation",
			steps: []step{{"1. first\n2. second\n\n", 1}, {"   ```sh\n   ls\n   ```\n", 2}, {"\n3. third\n", 2}},
			flush: 3, want: "1. first\n2. second\n\n     ls\n\n3. third",
		},
		{
			name:  "whitespace-only lines end a block",
			steps: []step{{"*a*\n   \n*b*\n", 1}},
			flush: 2, want: "a\n\nb",
		},
		{
			name:  "plain prose that renders as itself is not redrawn",
			steps: []step{{"Just words\nand more words.\n\n", 0}, {"The end", 0}},
			flush: 0, want: "Just words\nand more words.\n\nThe end",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStream(StreamOptions{Options: Options{Width: 20, Color: true}})
			scr := newScreen(t, 20)
			for _, st := range tt.steps {
				scr.write(s.Write(st.chunk))
				assert.Equal(t, st.redraws, scr.redraws, "after %q", st.chunk)
			}
			scr.write(s.Flush())
			assert.Equal(t, tt.flush, scr.redraws, "after Flush")
			assert.Equal(t, tt.want, scr.text())
		})
	}
}

// TestStreamShowsTextAsItArrives checks that nothing is held back: each
// chunk is on screen as soon as it is written.
func TestStreamShowsTextAsItArrives(t *testing.T) {
	s := NewStream(StreamOptions{Options: Options{Width: 40}})
	scr := newScreen(t, 40)
	scr.write(s.Write("a partial **answ"))
	assert.Equal(t, "a partial **answ", scr.text())
	scr.write(s.Write("er**\n```go\nfunc"))
	assert.Equal(t, "a partial **answer**\n```go\nfunc", scr.text())
}

func TestStreamLeavesUnreachableBlocksRaw(t *testing.T) {
	t.Run("taller than the screen", func(t *testing.T) {
		s := NewStream(StreamOptions{Options: Options{Width: 20}, Rows: 3})
		scr := newScreen(t, 20)
		scr.write(feed(s, "*a*\n*b*\n*c*\n\n*d*\n", 4))
		assert.Equal(t, "*a*\n*b*\n*c*\n\nd", scr.text())
		assert.Equal(t, 1, scr.redraws)
	})
	t.Run("the width changed", func(t *testing.T) {
		cols := 20
		s := NewStream(StreamOptions{Options: Options{Width: 20}, Size: func() (int, int) { return cols, 24 }})
		scr := newScreen(t, 20)
		scr.write(s.Write("*a*\n"))
		cols = 30
		scr.write(s.Write("\n*b*\n"))
		scr.write(s.Flush())
		assert.Equal(t, "*a*\n\nb", scr.text(), "the first block stays raw, the next is drawn at the new width")
		assert.Equal(t, 1, scr.redraws)
	})
}

func TestStreamDropsControlCharacters(t *testing.T) {
	s := NewStream(StreamOptions{Options: Options{Width: 20}})
	out := s.Write("a\x1b[2Jb\r\n") + s.Flush()
	assert.NotContains(t, out, "\x1b[2J")
	assert.NotContains(t, out, "\r\n")
}

// TestWrapper is the plain stream (thinking, --raw): text between words.
func TestWrapper(t *testing.T) {
	tests := []struct {
		name   string
		width  int
		chunks []string
		want   string
	}{
		{name: "fits", width: 20, chunks: []string{"hello ", "world"}, want: "hello world"},
		{name: "breaks between words", width: 10, chunks: []string{"hello wor", "ld again"}, want: "hello\nworld\nagain"},
		{name: "newlines reset the column", width: 10, chunks: []string{"abcdefgh\nabcdefgh"}, want: "abcdefgh\nabcdefgh"},
		{name: "indentation kept", width: 20, chunks: []string{"x:\n    indented line"}, want: "x:\n    indented line"},
		{name: "long word is not broken", width: 5, chunks: []string{"a verylongword b"}, want: "a\nveryl\nongwo\nrd b"},
		{name: "wide runes count double", width: 6, chunks: []string{"日本 語"}, want: "日本\n語"},
		{name: "exactly full line", width: 5, chunks: []string{"ab cd", "e"}, want: "ab\ncde"},
		{name: "markdown untouched", width: 20, chunks: []string{"# **raw**\n\n"}, want: "# **raw**"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStream(StreamOptions{Options: Options{Width: tt.width}, Plain: true})
			var b strings.Builder
			for _, c := range tt.chunks {
				b.WriteString(s.Write(c))
			}
			b.WriteString(s.Flush())
			scr := newScreen(t, tt.width)
			scr.write(b.String())
			assert.Equal(t, tt.want, scr.text())
			assert.Zero(t, scr.redraws)
		})
	}
}

// TestWrapperCountsRows checks the row count the redraw relies on against
// the screen, for text that wraps in every way the wrapper knows.
func TestWrapperCountsRows(t *testing.T) {
	for _, text := range []string{
		"short", "one two three four five six", "abcdefghijklmnopqrstuvwxyz and more", "ab cdefghij\n\nklm nopqrs",
		"exactly10c\nnext", "exactly10c more", "日本語日本語 日本語", "a\tb\tc\td",
	} {
		rows := 0
		w := wrapper{width: 10, rows: &rows}
		scr := newScreen(t, 10)
		for _, r := range text {
			scr.write(w.add(string(r)))
		}
		assert.Equal(t, scr.row, rows, "%q", text)
	}
}

func BenchmarkStream(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "answer.md"))
	require.NoError(b, err)
	long := strings.Repeat(string(src)+"\n", 20) // ~20 KB
	b.SetBytes(int64(len(long)))
	b.ReportAllocs()
	for b.Loop() {
		s := NewStream(StreamOptions{Options: Options{Width: 100, Color: true}, Rows: 1000})
		for i := 0; i < len(long); i += 8 { // token-sized chunks
			s.Write(long[i:min(i+8, len(long))])
		}
		s.Flush()
	}
}

// TestStreamSanitisesSplitInput: a character or a CRLF split between two
// writes is sanitised whole; one never completed is shown escaped.
func TestStreamSanitisesSplitInput(t *testing.T) {
	s := NewStream(StreamOptions{Plain: true})
	out := s.Write("a —"[:3]) + s.Write("—"[1:]+"b\r") + s.Write("\nc\x1b]2;t\x07\r") + s.Write("d\xe2\x80") + s.Flush()
	assert.Equal(t, "a —b\nc"+`\x1b]2;t\x07\x0dd\xe2\x80`, out)
}
