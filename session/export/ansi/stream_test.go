package ansi

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// feed streams md in chunks of n bytes and returns everything written.
// Every write must be whole lines.
func feed(t testing.TB, s *Stream, md string, n int) string {
	var b strings.Builder
	for len(md) > 0 {
		k := min(n, len(md))
		out := s.Write(md[:k])
		if out != "" && !strings.HasSuffix(out, "\n") {
			t.Fatalf("a write ended inside a line: %q", out)
		}
		b.WriteString(out)
		md = md[k:]
	}
	b.WriteString(s.Flush())
	return b.String()
}

// TestStreamLineAtATime streams each testdata/*.md in chunks of several
// sizes (splitting words, runes and markers) at several widths: the
// output never moves the cursor back or erases, each write is whole
// lines, no line is wider than the terminal, and the chunks change
// nothing.
func TestStreamLineAtATime(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.md"))
	require.NoError(t, err)
	for _, in := range inputs {
		src, err := os.ReadFile(in)
		require.NoError(t, err)
		md := string(src)
		for _, w := range []int{100, 80, 60, 40} {
			want := ""
			for _, n := range []int{len(md), 1, 2, 5, 13, 64} {
				t.Run(filepath.Base(in)+"/"+itoa(w)+"/"+itoa(n), func(t *testing.T) {
					got := feed(t, NewStream(StreamOptions{Options: Options{Width: w, Color: true}}), md, n)
					for _, seq := range []string{"\r", "\x1b[J", "\x1b[K", "A", "C"} {
						if len(seq) > 1 {
							assert.NotContains(t, got, seq)
						} else {
							assert.NotRegexp(t, "\x1b\\[[0-9]*"+seq, got)
						}
					}
					for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
						assert.LessOrEqual(t, visibleWidth(l), w, "%q", l)
					}
					if want == "" {
						want = got
					}
					assert.Equal(t, want, got, "the output depends on the chunks")
				})
			}
		}
	}
}

// TestStreamGolden keeps the exact bytes a stream writes for an answer
// streamed in 7-byte chunks at 40 columns.
func TestStreamGolden(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "answer.md"))
	require.NoError(t, err)
	golden(t, "answer.stream.40.golden", feed(t, NewStream(StreamOptions{Options: Options{Width: 40, Color: true}}), string(src), 7))
}

func TestStreamLines(t *testing.T) {
	tests := []struct {
		name   string
		width  int
		steps  [][2]string // chunk, what it shows
		flush  string
		styled bool
	}{
		{
			name: "a line shows when it ends, rendered", width: 40,
			steps: [][2]string{{"Some **bo", ""}, {"ld** te", ""}, {"xt\n", "Some bold text\n"}, {"\n", "\n"}, {"*Next*", ""}},
			flush: "Next\n",
		},
		{
			name: "a long line shows each screen line once full", width: 20,
			steps: [][2]string{
				{"one two three four five six ", "one two three four\n"},
				{"seven ", ""},
				{"eight nine ten eleven twelve", "five six seven eight\n"},
				{"\n", "nine ten eleven\ntwelve\n"},
			},
		},
		{
			name: "emphasis still open holds the screen line", width: 20,
			steps: [][2]string{
				{"one two three **four five six seven ", ""},
				{"eight** nine ", "one two three four\nfive six seven eight\n"},
			},
			flush: "nine\n",
		},
		{
			name: "code lines as they arrive under a header", width: 40,
			steps: [][2]string{
				{"```go\n", "╭─ go\n"}, {"x := 1\n", "  x := 1\n"}, {"\ty()\n", "      y()\n"}, {"```\n", "╰─\n"},
			},
		},
		{
			name: "a code line is cut at the width", width: 10,
			steps: [][2]string{{"```\nabcdefghijklmnop\n", "╭─\n  abcdefgh\n  ijklmnop\n"}},
		},
		{
			name: "lists and quotes", width: 40,
			steps: [][2]string{
				{"- one\n", "• one\n"}, {"  - nested\n", "  ◦ nested\n"}, {"2. two\n", "2. two\n"},
				{"> **quoted**\n", "│ quoted\n"},
			},
		},
		{
			name: "a table is held until it ends", width: 40,
			steps: [][2]string{
				{"| a | b |\n", ""}, {"|---|---|\n", ""}, {"| 1 | 2 |\n", ""},
				{"\nafter\n", "a │ b\n──┼──\n1 │ 2\n\nafter\n"},
			},
		},
		{
			name: "a line with a bar that is no table", width: 40,
			steps: [][2]string{{"a | b\n", ""}, {"c\n", "a | b\nc\n"}},
		},
		{
			name: "a table too wide is shown as records", width: 16,
			steps: [][2]string{{"| name | description |\n|--|--|\n| x | a rather long description words |\n| y | short |\n", ""}},
			flush: "name: x\ndescription: a\n  rather long\n  description\n  words\n\nname: y\ndescription:\n  short\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStream(StreamOptions{Options: Options{Width: tt.width, Color: tt.styled}})
			for _, st := range tt.steps {
				assert.Equal(t, st[1], s.Write(st[0]), "after %q", st[0])
			}
			assert.Equal(t, tt.flush, s.Flush())
		})
	}
}

// TestStreamHeld: Held is true while a table waits for its end.
func TestStreamHeld(t *testing.T) {
	s := NewStream(StreamOptions{Options: Options{Width: 40}})
	s.Write("text\n")
	assert.False(t, s.Held())
	s.Write("| a |\n")
	assert.True(t, s.Held())
	s.Write("|---|\n\n")
	assert.False(t, s.Held())
}

// TestStreamResize: a resize takes effect at the next screen line, and
// no word is split by the terminal.
func TestStreamResize(t *testing.T) {
	cols := 30
	s := NewStream(StreamOptions{Options: Options{Width: 30}, Size: func() (int, int) { return cols, 24 }})
	words := make([]string, 40)
	for i := range words {
		words[i] = "word" + itoa(i)
	}
	text := strings.Join(words, " ")
	out := s.Write(text[:150])
	require.NotEmpty(t, out)
	cols = 15
	out2 := s.Write(text[150:] + "\n")
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		assert.LessOrEqual(t, width(l), 30)
	}
	for _, l := range strings.Split(strings.TrimSuffix(out2, "\n"), "\n") {
		assert.LessOrEqual(t, width(l), 15, "%q", l)
	}
	assert.Equal(t, text, strings.Join(strings.Fields(out+out2), " "), "every word whole, once, in order")
}

// TestStreamNoColor: NO_COLOR drops the colours and keeps the attributes.
func TestStreamNoColor(t *testing.T) {
	s := NewStream(StreamOptions{Options: Options{Width: 40, Color: true, NoColor: true}})
	out := feed(t, s, "# Head\n\n**b** *i* ~~s~~ [l](u) `c`\n\n```go\nfunc f()\n```\n", 3)
	assert.Contains(t, out, "\x1b[1;4m# Head\x1b[0m")
	assert.Contains(t, out, "\x1b[1mb\x1b[0m \x1b[3mi\x1b[0m \x1b[9ms\x1b[0m \x1b[4ml\x1b[0m")
	assert.NotRegexp(t, "\x1b\\[[0-9;]*(3[0-9]|9[0-7])m", out, "no colour")
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
		})
	}
}

// BenchmarkStreamLines renders a 3,000-line answer streamed in
// token-sized chunks.
func BenchmarkStreamLines(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "answer.md"))
	require.NoError(b, err)
	one := string(src) + "\n"
	long := strings.Repeat(one, 3000/strings.Count(one, "\n")+1)
	b.ReportMetric(float64(strings.Count(long, "\n")), "lines")
	b.SetBytes(int64(len(long)))
	b.ReportAllocs()
	for b.Loop() {
		s := NewStream(StreamOptions{Options: Options{Width: 100, Color: true}})
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

// TestStreamPending: what arrived but is not shown yet, for a caller's
// provisional line.
func TestStreamPending(t *testing.T) {
	s := NewStream(StreamOptions{Options: Options{Width: 20}})
	assert.Equal(t, "one two three four\n", s.Write("one two three four five **six"))
	assert.Equal(t, "five **six", s.Pending())
	s.Write("**\n")
	assert.Equal(t, "", s.Pending())
	s.Write("  short")
	assert.Equal(t, "short", s.Pending())
}

// FuzzStream: whatever streams in, in whatever chunks, a stream writes
// whole lines whose only escape sequences are its own SGR styling.
func FuzzStream(f *testing.F) {
	for _, s := range []string{"# h\n\n- a\n  - b\n> q\n", "```go\nx\n```\n", "| a | b |\n|---|---|\n| 1 | 2 |\n", "**a b** `c d` [e](f) ~~g~~\n", "\x1b[2J\tx\r\n"} {
		f.Add(s, uint8(7), uint8(40))
	}
	sgr := regexp.MustCompile("\x1b\\[[0-9;]*m")
	f.Fuzz(func(t *testing.T, md string, chunk, w uint8) {
		width := 10 + int(w)%120
		var out string
		done := make(chan bool)
		go func() {
			defer close(done)
			out = feed(t, NewStream(StreamOptions{Options: Options{Width: width, Color: true}}), md, 1+int(chunk)%32)
		}()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			t.Fatalf("stuck on %q, width %d, chunk %d", md, width, 1+int(chunk)%32)
		}
		if rest := sgr.ReplaceAllString(out, ""); strings.ContainsAny(rest, "\x1b\r\x07") {
			t.Fatalf("%q wrote %q", md, out)
		}
	})
}
