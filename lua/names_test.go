package lua

import (
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNameChecksMatchTheirPatterns runs the hand-written name checks and
// the patterns they stand for over the same strings: hand-picked ones and
// random strings over an alphabet of the characters that matter.
func TestNameChecksMatchTheirPatterns(t *testing.T) {
	checks := []struct {
		name    string
		pattern *regexp.Regexp
		check   func(string) bool
	}{
		{"tool", regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`), validToolName},
		{"command", regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_:.-]*$`), validCommandName},
		{"lib", regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_-]*(\.[A-Za-z0-9_][A-Za-z0-9_-]*)*$`), validLibName},
	}
	inputs := []string{"", "a", "A", "0", "_", "-", ".", ":", "a.b", "a..b", ".a", "a.", "a.-b", "a._b", "_a", "-a",
		"read_file", "web-fetch", "pop", "ns:cmd", "a/b", "a b", "é", "a\n", "\na", "x\x00",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",  // 64
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"} // 65
	const alphabet = "aZ09_-.:/ é\n"
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		n := r.IntN(8)
		if r.IntN(50) == 0 {
			n = 60 + r.IntN(8)
		}
		b := make([]rune, n)
		al := []rune(alphabet)
		for i := range b {
			b[i] = al[r.IntN(len(al))]
		}
		inputs = append(inputs, string(b))
	}
	for _, c := range checks {
		for _, s := range inputs {
			if !assert.Equal(t, c.pattern.MatchString(s), c.check(s), "%s name %q", c.name, s) {
				return
			}
		}
	}
}
