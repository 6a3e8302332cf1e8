// The differential test: this package against gopher-lua's pm, the
// matcher hooks used before, over random patterns and subjects (a seeded
// generator, and a fuzz target whose corpus is in testdata/fuzz). Both
// must find the same matches and captures, or fail with the same message,
// except where the two are meant to differ (TestDifferencesFromPM).

package pattern

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/yuin/gopher-lua/pm"
)

// outcome is what a matcher answered: every match's entries as
// "start-end" or "@position", or an error.
type outcome struct {
	matches []string
	err     string
}

func ours(p, src string, offset, limit int) outcome {
	pat, err := Compile(p)
	if err != nil {
		return outcome{err: err.Error()}
	}
	var mt Matcher
	ms, err := mt.Find(pat, src, offset, limit)
	if err != nil {
		return outcome{err: err.Error()}
	}
	var out outcome
	for _, m := range ms {
		out.matches = append(out.matches, render(m.CaptureLength(), m.IsPosCapture, m.Capture))
	}
	return out
}

// errPMPanicked is pm failing with a Go panic.
var errPMPanicked = errors.New("pm panicked")

func theirs(p, src string, offset, limit int) (out outcome, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: %v", errPMPanicked, v)
		}
	}()
	ms, perr := pm.Find(p, []byte(src), offset, limit)
	if perr != nil {
		return outcome{err: perr.Error()}, nil
	}
	for _, m := range ms {
		out.matches = append(out.matches, render(m.CaptureLength(), m.IsPosCapture, m.Capture))
	}
	return out, nil
}

func render(n int, isPos func(int) bool, capture func(int) int) string {
	var b strings.Builder
	for i := 0; i < n; i += 2 {
		if isPos(i) {
			fmt.Fprintf(&b, "@%d ", capture(i))
		} else {
			fmt.Fprintf(&b, "%d-%d ", capture(i), capture(i+1))
		}
	}
	return b.String()
}

// meantToDiffer reports why p is left out of the comparison, or "".
func meantToDiffer(p string) string {
	if strings.Contains(p, "%f") {
		return "frontier" // pm reads %f as a literal f
	}
	pat, err := Compile(p)
	if err != nil {
		return ""
	}
	opened := 0
	for _, it := range pat.items {
		switch it.kind {
		case posRef:
			return "back-reference to a position capture" // pm panics or misreads it
		case badRef:
			if it.n+1 < opened {
				// pm panics or reads it as empty
				return "back-reference to an unfinished capture with another opened inside it"
			}
		case open, position:
			opened++
		}
	}
	if setMixesRanges(p) {
		return "set mixing ranges with escapes or ranges"
	}
	return ""
}

// setMixesRanges reports whether a set in p puts a range next to an
// escape ("[%a-z]", "[a-%%]"), or a "-" in or right after a range
// ("[a-b-c]", "[a--]", "[--a]").
// The manual gives the first no meaning, pm reads both its own way (it
// leaves b out of [a-b-c]); this package reads them as the reference
// interpreter does.
func setMixesRanges(p string) bool {
	for i := 0; i < len(p); i++ {
		switch {
		case p[i] == '%':
			i++
		case p[i] == '[':
			first := i + 1
			if first < len(p) && p[first] == '^' {
				first++
			}
			last := first
			for last < len(p) && (p[last] != ']' || last == first) {
				if p[last] == '%' {
					last++
				}
				last++
			}
			body := p[first:min(last, len(p))]
			for j := 0; j < len(body); j++ {
				switch {
				case body[j] == '%' && j+2 < len(body) && body[j+2] == '-':
					return true
				case body[j] == '%':
					j++
				case j+2 < len(body) && body[j+1] == '-':
					if body[j] == '-' || body[j+2] == '-' || body[j+2] == '%' || (j+3 < len(body) && body[j+3] == '-') {
						return true
					}
					j += 2
				}
			}
			i = last
		}
	}
	return false
}

// compare runs one case through both and reports a difference, or "".
func compare(p, src string, offset, limit int) string {
	if meantToDiffer(p) != "" {
		return ""
	}
	want, err := theirs(p, src, offset, limit)
	if err != nil {
		// pm's other panics are its bugs; this package must answer.
		ours(p, src, offset, limit)
		return ""
	}
	got := ours(p, src, offset, limit)
	if fmt.Sprint(want) == fmt.Sprint(got) {
		return ""
	}
	return fmt.Sprintf("pattern %q subject %q offset %d limit %d:\npm:   %v\nours: %v", p, src, offset, limit, want, got)
}

// generator makes random patterns from the pieces of §5.4.1 and random
// subjects over the bytes those pieces name.
type generator struct{ rng *rand.Rand }

const subjectBytes = "aab()x1 -%.]^$\x00B9_\t"

func (g generator) pick(choices ...string) string { return choices[g.rng.IntN(len(choices))] }

// class is a single-byte class: a byte, ".", "%x" or a set.
func (g generator) class() string {
	switch g.rng.IntN(6) {
	case 0:
		return "."
	case 1:
		return "%" + g.pick("a", "c", "d", "l", "p", "s", "u", "w", "x", "z", "A", "D", "S", "W", "%", ".", "(", "]", "-", "q")
	case 2:
		var b strings.Builder
		b.WriteString(g.pick("[", "[", "[^"))
		if g.rng.IntN(5) == 0 {
			b.WriteString("]")
		}
		for range g.rng.IntN(4) + 1 {
			b.WriteString(g.pick("a", "b", "x", "1", "-", "(", "^", "a-c", "0-9", "]-a", "%a", "%d", "%s", "%%", "%]", "%-", "%W"))
		}
		b.WriteString("]")
		return b.String()
	}
	return g.pick("a", "b", "x", "1", " ", "-", "]", "^", "$", "\x00", "*")
}

// items writes up to n items, with captures nested up to depth.
func (g generator) items(b *strings.Builder, n, depth int, captures *int) {
	for range g.rng.IntN(n + 1) {
		switch r := g.rng.IntN(20); {
		case r < 10:
			b.WriteString(g.class())
			b.WriteString(g.pick("", "", "", "*", "+", "-", "?"))
		case r < 12 && depth > 0:
			*captures++
			b.WriteString("(")
			g.items(b, n/2+1, depth-1, captures)
			b.WriteString(")")
		case r < 13:
			*captures++
			b.WriteString("()")
		case r < 15:
			fmt.Fprintf(b, "%%%d", g.rng.IntN(*captures+2))
		case r < 17:
			b.WriteString("%b" + g.pick("()", "()", "ab", "xx", "("))
		default:
			b.WriteString(g.pick("a", "b", ".", "%a"))
		}
	}
}

func (g generator) pattern() string {
	var b strings.Builder
	if g.rng.IntN(4) == 0 {
		b.WriteString("^")
	}
	captures := 0
	g.items(&b, 6, 2, &captures)
	if g.rng.IntN(4) == 0 {
		b.WriteString("$")
	}
	if g.rng.IntN(8) == 0 {
		// malformed: an unbalanced or cut pattern
		p := b.String() + g.pick("(", ")", "[", "[^", "%", "[a", "[%")
		if len(p) > 1 && g.rng.IntN(2) == 0 {
			p = p[:g.rng.IntN(len(p))]
		}
		return p
	}
	return b.String()
}

func (g generator) subject() string {
	b := make([]byte, g.rng.IntN(16))
	for i := range b {
		b[i] = subjectBytes[g.rng.IntN(len(subjectBytes))]
	}
	return string(b)
}

// diffCases is the seeded test's size.
const diffCases = 200_000

func TestSameAsPM(t *testing.T) {
	n := diffCases
	if testing.Short() {
		n /= 10
	}
	g := generator{rand.New(rand.NewPCG(5, 1))}
	compared, matched := 0, 0
	for i := range n {
		p, s := g.pattern(), g.subject()
		offset := g.rng.IntN(3)
		limit := []int{-1, -1, 1, 2}[g.rng.IntN(4)]
		if d := compare(p, s, offset, limit); d != "" {
			t.Fatalf("case %d: %s", i, d)
		}
		if meantToDiffer(p) == "" {
			compared++
			if len(ours(p, s, offset, limit).matches) > 0 {
				matched++
			}
		}
	}
	// The generator must keep exercising both sides.
	require.Greater(t, compared, n*8/10, "cases compared")
	require.Greater(t, matched, n/5, "cases with a match")
	t.Logf("%d cases, %d compared, %d with a match", n, compared, matched)
}

// FuzzSameAsPM compares the two on any pattern and subject (small ones,
// for pm has no check and would run as long as a pathological pattern
// takes).
func FuzzSameAsPM(f *testing.F) {
	g := generator{rand.New(rand.NewPCG(7, 3))}
	for range 50 {
		f.Add(g.pattern(), g.subject(), uint8(0), int8(-1))
	}
	f.Fuzz(func(t *testing.T, p, s string, offset uint8, limit int8) {
		if len(p) > 24 || len(s) > 48 || strings.Count(p, "*")+strings.Count(p, "-")+strings.Count(p, "+") > 4 {
			return
		}
		if limit == 0 {
			limit = -1 // pm reads 0 as no limit; here it is none, as in Lua's gsub
		}
		if d := compare(p, s, int(offset%8), int(limit)); d != "" {
			t.Fatal(d)
		}
	})
}
