package tools

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func numbered(n int) string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i+1)
	}
	return strings.Join(lines, "\n")
}

func TestTruncateHead(t *testing.T) {
	tests := []struct {
		name               string
		text               string
		maxLines, maxBytes int
		want               string
		wantTr             Truncation
	}{
		{"fits", "a\nb\nc", 3, 100, "a\nb\nc",
			Truncation{TotalLines: 3, TotalBytes: 5, OutputLines: 3, OutputBytes: 5}},
		{"empty", "", 3, 100, "",
			Truncation{TotalLines: 1, OutputLines: 1}},
		{"by lines", "a\nb\nc\nd", 2, 100, "a\nb",
			Truncation{Truncated: true, TruncatedBy: "lines", TotalLines: 4, TotalBytes: 7, OutputLines: 2, OutputBytes: 3}},
		{"trailing newline counts a line", "a\nb\n", 2, 100, "a\nb",
			Truncation{Truncated: true, TruncatedBy: "lines", TotalLines: 3, TotalBytes: 4, OutputLines: 2, OutputBytes: 3}},
		{"by bytes at a line boundary", "aaaa\nbbbb\ncccc", 10, 8, "aaaa",
			Truncation{Truncated: true, TruncatedBy: "bytes", TotalLines: 3, TotalBytes: 14, OutputLines: 1, OutputBytes: 4}},
		{"exact byte fit", "aaaa\nbbbb\ncccc", 10, 9, "aaaa\nbbbb",
			Truncation{Truncated: true, TruncatedBy: "bytes", TotalLines: 3, TotalBytes: 14, OutputLines: 2, OutputBytes: 9}},
		{"first line too long", "aaaaaaaaaa\nb", 10, 5, "",
			Truncation{Truncated: true, TruncatedBy: "bytes", TotalLines: 2, TotalBytes: 12, FirstLineExceedsLimit: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, tr := TruncateHead(tc.text, tc.maxLines, tc.maxBytes)
			tc.wantTr.MaxLines, tc.wantTr.MaxBytes = tc.maxLines, tc.maxBytes
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.wantTr, tr)
		})
	}
}

func TestTruncateTail(t *testing.T) {
	tests := []struct {
		name               string
		text               string
		maxLines, maxBytes int
		want               string
		wantTr             Truncation
	}{
		{"fits", "a\nb\nc", 3, 100, "a\nb\nc",
			Truncation{TotalLines: 3, TotalBytes: 5, OutputLines: 3, OutputBytes: 5}},
		{"by lines", "a\nb\nc\nd", 2, 100, "c\nd",
			Truncation{Truncated: true, TruncatedBy: "lines", TotalLines: 4, TotalBytes: 7, OutputLines: 2, OutputBytes: 3}},
		{"trailing newline is an empty last line", "a\nb\nc\n", 2, 100, "c\n",
			Truncation{Truncated: true, TruncatedBy: "lines", TotalLines: 4, TotalBytes: 6, OutputLines: 2, OutputBytes: 2}},
		{"by bytes", "aaaa\nbbbb\ncccc", 10, 8, "cccc",
			Truncation{Truncated: true, TruncatedBy: "bytes", TotalLines: 3, TotalBytes: 14, OutputLines: 1, OutputBytes: 4}},
		{"last line partial", "a\n0123456789", 10, 4, "6789",
			Truncation{Truncated: true, TruncatedBy: "bytes", TotalLines: 2, TotalBytes: 12, OutputLines: 1, OutputBytes: 4, LastLinePartial: true}},
		// "é" is 2 bytes, "€" 3: a cut 4 bytes from the end lands inside "€".
		{"partial never cuts a rune", "x\néé€", 10, 4, "€",
			Truncation{Truncated: true, TruncatedBy: "bytes", TotalLines: 2, TotalBytes: 9, OutputLines: 1, OutputBytes: 3, LastLinePartial: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, tr := TruncateTail(tc.text, tc.maxLines, tc.maxBytes)
			tc.wantTr.MaxLines, tc.wantTr.MaxBytes = tc.maxLines, tc.maxBytes
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.wantTr, tr)
		})
	}
}

// TestTruncateUTF8 cuts multi-byte text at every byte limit: the result is
// always valid UTF-8 and within the limit.
func TestTruncateUTF8(t *testing.T) {
	text := strings.Repeat("日本語テキスト🙂\n", 20) + strings.Repeat("ü€😀", 40)
	for limit := 1; limit < len(text)+2; limit++ {
		head, _ := TruncateHead(text, DefaultMaxLines, limit)
		tail, tr := TruncateTail(text, DefaultMaxLines, limit)
		assert.True(t, utf8.ValidString(head), "head %d", limit)
		assert.True(t, utf8.ValidString(tail), "tail %d", limit)
		assert.LessOrEqual(t, len(head), limit)
		assert.LessOrEqual(t, len(tail), limit)
		assert.True(t, strings.HasSuffix(text, tail), "tail %d", limit)
		assert.Equal(t, len(tail), tr.OutputBytes)
	}
}

func TestTruncateDefaults(t *testing.T) {
	text := numbered(5000)
	head, tr := TruncateHead(text, DefaultMaxLines, DefaultMaxBytes)
	assert.Equal(t, "lines", tr.TruncatedBy)
	assert.Equal(t, 2000, tr.OutputLines)
	assert.True(t, strings.HasSuffix(head, "\nline 2000"))

	tail, tr := TruncateTail(text, DefaultMaxLines, DefaultMaxBytes)
	assert.Equal(t, 2000, tr.OutputLines)
	assert.True(t, strings.HasPrefix(tail, "line 3001\n"))
	assert.True(t, strings.HasSuffix(tail, "\nline 5000"))
}

func BenchmarkTruncateTail10MB(b *testing.B) {
	text := strings.Repeat("some build output line with a path/to/file.go:123: message\n", 10*1024*1024/60)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		out, tr := TruncateTail(text, DefaultMaxLines, DefaultMaxBytes)
		if !tr.Truncated || len(out) == 0 {
			b.Fatal("expected truncation")
		}
	}
}

func BenchmarkTruncateHead10MB(b *testing.B) {
	text := strings.Repeat("some source line of a large generated file, with content\n", 10*1024*1024/58)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, tr := TruncateHead(text, DefaultMaxLines, DefaultMaxBytes); !tr.Truncated {
			b.Fatal("expected truncation")
		}
	}
}

// FuzzTruncate checks the invariants of both truncations on any input:
// limits respected, output is a prefix/suffix of the input made of whole
// lines (except a partial last line), and the counts add up.
func FuzzTruncate(f *testing.F) {
	f.Add("a\nb\nc", 2, 3)
	f.Add("héllo wörld\n€€€\n", 1, 4)
	f.Add("\n\n\n", 1, 0)
	f.Fuzz(func(t *testing.T, text string, maxLines, maxBytes int) {
		if maxLines < 1 || maxLines > 1000 || maxBytes < 0 || maxBytes > 1<<16 {
			t.Skip()
		}
		head, htr := TruncateHead(text, maxLines, maxBytes)
		if !strings.HasPrefix(text, head) || len(head) != htr.OutputBytes {
			t.Fatalf("head %q not a prefix of %q", head, text)
		}
		if htr.Truncated {
			if len(head) > maxBytes || htr.OutputLines > maxLines {
				t.Fatalf("head over limits: %+v", htr)
			}
			if htr.FirstLineExceedsLimit != (head == "" && len(text) > 0 && text[0] != '\n') {
				t.Fatalf("FirstLineExceedsLimit %v with head %q", htr.FirstLineExceedsLimit, head)
			}
			if !htr.FirstLineExceedsLimit && len(head) < len(text) && text[len(head)] != '\n' {
				t.Fatalf("head cut inside a line: %q of %q", head, text)
			}
		} else if head != text {
			t.Fatalf("untruncated head changed text")
		}

		tail, ttr := TruncateTail(text, maxLines, maxBytes)
		if !strings.HasSuffix(text, tail) || len(tail) != ttr.OutputBytes {
			t.Fatalf("tail %q not a suffix of %q", tail, text)
		}
		if ttr.Truncated {
			if len(tail) > maxBytes || ttr.OutputLines > maxLines {
				t.Fatalf("tail over limits: %+v", ttr)
			}
			start := len(text) - len(tail)
			if !ttr.LastLinePartial && start > 0 && text[start-1] != '\n' {
				t.Fatalf("tail cut inside a line: %q of %q", tail, text)
			}
			if ttr.LastLinePartial && utf8.ValidString(text) && !utf8.ValidString(tail) {
				t.Fatalf("tail cut a rune: %q", tail)
			}
		} else if tail != text {
			t.Fatalf("untruncated tail changed text")
		}
		if htr.TotalLines != strings.Count(text, "\n")+1 || htr.TotalLines != ttr.TotalLines {
			t.Fatalf("line counts: %d %d", htr.TotalLines, ttr.TotalLines)
		}
	})
}
