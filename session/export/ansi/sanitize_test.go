package ansi

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSanitize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"clean text is kept", "héllo wörld 日本語 ✓\n\tindented", "héllo wörld 日本語 ✓\n\tindented"},
		{"OSC 52 clipboard", "\x1b]52;c;cm0gLXJmIH4=\x07", `\x1b]52;c;cm0gLXJmIH4=\x07`},
		{"OSC 2 title ended by ST", "\x1b]2;pwned\x1b\\", `\x1b]2;pwned\x1b\`},
		{"CSI", "a\x1b[2J\x1b[1;1Hb", `a\x1b[2J\x1b[1;1Hb`},
		{"CRLF is a line end", "a\r\nb", "a\nb"},
		{"a lone CR would overwrite the line", "safe\rrm -rf ~", `safe\x0drm -rf ~`},
		{"NUL, BS, DEL", "\x00\b\x7f", `\x00\x08\x7f`},
		{"C1 CSI and OSC as characters", "a\u009b2Jb\u009d0;t\u009c", `a\u009b2Jb\u009d0;t\u009c`},
		{"bidi override", "if x \u202e} {\u2066", `if x \u202e} {\u2066`},
		{"bytes that are not UTF-8", "a\x9b2J\xff", `a\x9b2J\xff`},
		{"a cut character", "\xe2\x80", `\xe2\x80`},
		{"line separators are text", "a\u2028b\u200fc", "a\u2028b\u200fc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sanitize(tt.in)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, got, Sanitize(got), "sanitising twice changes nothing")
		})
	}
}

func TestSanitizeCleanTextDoesNotAllocate(t *testing.T) {
	s := strings.Repeat("streamed answer text, ünïcödé too\n", 10)
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = Sanitize(s) }))
}

func TestWriterKeepsOnlyOwnSequences(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"styling", "\x1b[1;36m→\x1b[0m bash", "\x1b[1;36m→\x1b[0m bash"},
		{"redraw of a block", "\r\x1b[12C\x1b[K\nword\x1b[3A\x1b[J", "\r\x1b[12C\x1b[K\nword\x1b[3A\x1b[J"},
		{"bracketed paste", "\x1b[?2004h", "\x1b[?2004h"},
		{"OSC 52", "\x1b]52;c;eA==\x07", `\x1b]52;c;eA==\x07`},
		{"cursor position", "\x1b[1;1H", `\x1b[1;1H`},
		{"private modes", "\x1b[?1049h", `\x1b[?1049h`},
		{"a lone CR", "a\rb", `a\x0db`},
		{"a CR before an OSC", "\r\x1b]2;x\x07", `\x0d\x1b]2;x\x07`},
		{"a cut sequence", "x\x1b[", `x\x1b[`},
		{"C1", "\u009b2J", `\u009b2J`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			n, err := NewWriter(&b).Write([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, len(tt.in), n)
			assert.Equal(t, tt.want, b.String())
		})
	}
}

// FuzzSanitize: whatever comes in, what goes out holds no control
// character but newline and tab (C0, DEL, C1, bidi controls), is valid
// UTF-8, and is its own sanitisation.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b]52;c;cm0gLXJmIH4=\x07", "a\r\nb\rc", "\u009b\u202e\xff\xe2\x80", "\t\n\x00\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Sanitize(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Sanitize(%q) = %q: not UTF-8", s, out)
		}
		for _, r := range out {
			if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
				t.Fatalf("Sanitize(%q) = %q: holds %U", s, out, r)
			}
		}
		if again := Sanitize(out); again != out {
			t.Fatalf("Sanitize is not idempotent on %q: %q then %q", s, out, again)
		}
		if want := referenceCleanPrefix(s); cleanPrefix(s) != want {
			t.Fatalf("cleanPrefix(%q) = %d, want %d", s, cleanPrefix(s), want)
		}
		if printableASCII(s) && out != s {
			t.Fatalf("clean %q changed to %q", s, out)
		}
		if bad := foreignControl(confine(s)); bad != "" {
			t.Fatalf("confine(%q) lets through %q", s, bad)
		}
	})
}

// referenceCleanPrefix is cleanPrefix one character at a time.
func referenceCleanPrefix(s string) int {
	for i, r := range s {
		if r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") || r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f ||
			r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			return i
		}
	}
	return len(s)
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 || c >= 0x7f) && c != '\n' && c != '\t' {
			return false
		}
	}
	return true
}

// foreignControl returns the first control sequence in s that is not one
// of lunar's own (SGR, CSI n A/C/K/J, bracketed paste, a CR before one of
// these), or "".
func foreignControl(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\r':
			if !strings.HasPrefix(s[i+1:], "\x1b[") {
				return s[i:]
			}
		case c == 0x1b:
			j := i + 1
			if j == len(s) || s[j] != '[' {
				return s[i:]
			}
			j++
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';' || s[j] == '?') {
				j++
			}
			if j == len(s) || !strings.ContainsRune("mACKJhl", rune(s[j])) {
				return s[i:]
			}
			i = j
		case c < 0x20 && c != '\n' && c != '\t' || c == 0x7f:
			return s[i:]
		}
	}
	return ""
}

// BenchmarkSanitize measures the streaming hot path: a delta of clean
// text (returned as it is) and one with escapes; MB/s is bytes per µs.
func BenchmarkSanitize(b *testing.B) {
	clean := strings.Repeat("The answer streams in: ünïcödé, `code`, and **bold** text.\n", 4)
	dirty := strings.Repeat("tool output \x1b[31mred\x1b[0m and \x1b]52;c;eA==\x07 \u009b\n", 4)
	ascii := strings.Repeat("The answer streams in: plain ASCII prose, `code` and **bold**.\n", 4)
	for _, c := range []struct{ name, s string }{{"clean", clean}, {"ascii", ascii}, {"ascii-delta", "Hello, wor"}, {"escapes", dirty}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.s)))
			for b.Loop() {
				_ = Sanitize(c.s)
			}
		})
	}
	// The floor: checking that the text is UTF-8 at all.
	b.Run("utf8.ValidString-clean", func(b *testing.B) {
		b.SetBytes(int64(len(clean)))
		for b.Loop() {
			_ = utf8.ValidString(clean)
		}
	})
}
