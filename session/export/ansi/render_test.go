package ansi

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/name, or writes it there with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create it")
	assert.Equal(t, string(want), got, "%s differs (go test -update rewrites it)", path)
}

// TestRenderGolden renders each testdata/*.md at 80 and 40 columns, in
// colour, and compares the bytes with testdata/NAME.WIDTH.golden; a
// screen shows no line wider than the terminal but code (left as it is).
func TestRenderGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, inputs)
	for _, in := range inputs {
		src, err := os.ReadFile(in)
		require.NoError(t, err)
		name := strings.TrimSuffix(filepath.Base(in), ".md")
		for _, w := range []int{80, 40} {
			t.Run(name+"/"+itoa(w), func(t *testing.T) {
				out := Render(string(src), Options{Width: w, Color: true})
				golden(t, name+"."+itoa(w)+".golden", out)
				for _, l := range strings.Split(out, "\n") {
					if strings.HasPrefix(l, "  ") || visibleWidth(l) <= w { // code is left as it is
						continue
					}
					// Only a word longer than the line may make it wider.
					longest := 0
					for _, f := range strings.Fields(stripSGR(l)) {
						longest = max(longest, width(f))
					}
					assert.Greater(t, longest, w/2, "line wider than the terminal: %q", l)
				}
			})
		}
	}
}

// stripSGR drops escape sequences.
func stripSGR(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func TestRender(t *testing.T) {
	plain := Options{Width: 40}
	tests := []struct {
		name, md, want string
	}{
		{"paragraph wraps between words", "one two three four five six seven eight nine ten eleven", "one two three four five six seven eight\nnine ten eleven\n"},
		{"soft line break kept", "a\nb", "a\nb\n"},
		{"heading keeps its level", "## Two", "## Two\n"},
		{"emphasis loses its marks", "*a* **b** ~~c~~ `d`", "a b c d\n"},
		{"escapes and entities", `\*not\* &amp; &#65;`, "*not* & A\n"},
		{"link shows its address", "[docs](https://x.io)", "docs (https://x.io)\n"},
		{"link named by its address", "[https://x.io](https://x.io)", "https://x.io\n"},
		{"image", "![a cat](cat.png)", "[image: a cat] (cat.png)\n"},
		{"nested lists", "- a\n  - b\n    - c\n- d", "• a\n  ◦ b\n    ▪ c\n• d\n"},
		{"ordered list keeps its start", "3. c\n4. d", "3. c\n4. d\n"},
		{"numbers aligned", "9. i\n10. j", " 9. i\n10. j\n"},
		{"loose list", "- a\n\n- b", "• a\n\n• b\n"},
		{"task list", "- [ ] todo\n- [x] done", "• [ ] todo\n• [x] done\n"},
		{"list item wraps under its text", "- " + strings.Repeat("word ", 10), "• word word word word word word word\n  word word word\n"},
		{"quote", "> quoted\n>\n> more", "│ quoted\n│\n│ more\n"},
		{"code block", "```\nx := 1\n```", "  x := 1\n"},
		{"indented code", "    y", "  y\n"},
		{"rule", "---", strings.Repeat("─", 40) + "\n"},
		{"blocks apart as in the source", "# T\n\n\ntext\n- a\n\n- b\n- c", "# T\n\ntext\n• a\n\n• b\n• c\n"},
		{"heading right above its text", "# T\ntext", "# T\ntext\n"},
		{"raw html as text", "<b>bold</b>", "<b>bold</b>\n"},
		{"control characters shown escaped", "a\x1b[2Jb\rc", `a\x1b[2Jb\x0dc` + "\n"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Render(tt.md, plain))
		})
	}
}

func TestRenderColor(t *testing.T) {
	assert.Equal(t, "\x1b[1mbold\x1b[0m and \x1b[3mit\x1b[0m\n", Render("**bold** and *it*", Options{Color: true}))
	assert.Equal(t, "  \x1b[35mfunc\x1b[0m \x1b[34mf\x1b[0m()\n", Render("```go\nfunc f()\n```", Options{Color: true}))
	assert.NotContains(t, Render("# T\n\n**b** `c`\n\n```go\nfunc f()\n```", Options{}), "\x1b", "no colour: no escapes")
}

func TestTableFitsWidth(t *testing.T) {
	md := "| a | b |\n|---|---:|\n| short | a much longer cell that will not fit in the width |\n| x | 1 |"
	out := Render(md, Options{Width: 30})
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		assert.LessOrEqual(t, visibleWidth(l), 30, l)
	}
	assert.Equal(t, "a     │                      b\n"+
		"──────┼───────────────────────\n"+
		"short │     a much longer cell\n"+
		"      │   that will not fit in\n"+
		"      │              the width\n"+
		"x     │                      1\n", out)

	// A table that fits keeps its natural widths.
	assert.Equal(t, "k │ v\n──┼──\n1 │ 2\n", Render("| k | v |\n|---|---|\n| 1 | 2 |", Options{Width: 30}))
}

func TestFitColumns(t *testing.T) {
	w := []int{5, 50, 20}
	fitColumns(w, []int{5, 8, 8}, 40)
	assert.Equal(t, []int{5, 17, 18}, w)
	w = []int{30, 30}
	assert.True(t, fitColumns(w, []int{16, 3}, 24))
	assert.Equal(t, []int{16, 8}, w, "the longest words are kept whole while they can be")
	assert.False(t, fitColumns(w, []int{16, 3}, 4), "a table that only fits by cutting words does not fit")
}

func BenchmarkRender(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "all.md"))
	require.NoError(b, err)
	long := strings.Repeat(string(src)+"\n\n", 20) // ~25 KB, an unusually long answer
	b.SetBytes(int64(len(long)))
	b.ReportAllocs()
	for b.Loop() {
		Render(long, Options{Width: 100, Color: true})
	}
}
