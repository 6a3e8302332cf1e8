package pattern

import (
	"strings"
	"testing"

	"github.com/yuin/gopher-lua/pm"
)

// hookPatterns are patterns as hooks write them, each over a subject of
// the kind it meets; compiling is timed too, as string.find compiles on
// every call.
var hookPatterns = []struct{ name, pat, src string }{
	{"words", "%a+", strings.Repeat("the quick brown fox jumps over the lazy dog ", 100)},
	{"trim", "^%s*(.-)%s*$", "   some text with spaces around it \n"},
	{"key=value", "(%w+)%s*=%s*(%w+)", strings.Repeat("alpha = 1, beta=two, gamma =3; ", 20)},
	{"command split", "^(%S+)%s+(.*)$", "git commit -m 'fix: the thing' --no-verify"},
	{"gate, no match", "rm%s+%-[rf]+", strings.Repeat("ls -la /tmp && cat notes.txt | grep x; ", 30)},
	{"path suffix", "[%w_%-]+%.lua$", "/home/user/.config/lunar/hooks.d/10-permission_gate.lua"},
	{"template", "%$(%w+)", strings.Repeat("hello $name, you are $age; ", 20)},
	{"balanced", "%b()", strings.Repeat("f(a, g(b, c), (d)) ", 30)},
}

func BenchmarkHookPatterns(b *testing.B) {
	for _, tc := range hookPatterns {
		b.Run(tc.name+"/ours", func(b *testing.B) {
			b.SetBytes(int64(len(tc.src)))
			var mt Matcher
			for b.Loop() {
				pat, err := Compile(tc.pat)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := mt.Find(pat, tc.src, 0, -1); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/pm", func(b *testing.B) {
			b.SetBytes(int64(len(tc.src)))
			src := []byte(tc.src)
			for b.Loop() {
				if _, err := pm.Find(tc.pat, src, 0, -1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
