package pattern

import (
	"errors"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// find renders every match of p in src from offset as ours does.
func find(t *testing.T, p, src string, offset int) []string {
	t.Helper()
	o := ours(p, src, offset, -1)
	require.Empty(t, o.err, "pattern %q", p)
	return o.matches
}

// TestManual checks the pieces of the reference manual's §5.4.1 (Lua
// 5.1), one case each, with the answers Lua gives: entries are
// "start-end" (0-based, end exclusive) for the match and each capture,
// "@n" for a position capture.
func TestManual(t *testing.T) {
	for _, tc := range []struct {
		name, pat, src string
		want           []string
	}{
		{"plain bytes", "ab", "xabab", []string{"1-3 ", "3-5 "}},
		{"dot is any byte", "a.c", "a\x00c a\nc", []string{"0-3 ", "4-7 "}},
		{"%a letters, ASCII only", "%a+", "é1Ab_c", []string{"3-5 ", "6-7 "}},
		{"%c control", "%c", "a\x7f\tb", []string{"1-2 ", "2-3 "}},
		{"%d digits", "%d+", "a12b3", []string{"1-3 ", "4-5 "}},
		{"%l lower", "%l+", "aBcd", []string{"0-1 ", "2-4 "}},
		{"%p punctuation", "%p+", "a,.!b", []string{"1-4 "}},
		{"%s space", "%s+", "a \t\n\v\f\rb", []string{"1-7 "}},
		{"%u upper", "%u+", "aBCd", []string{"1-3 "}},
		{"%w alphanumeric", "%w+", "a1_b2", []string{"0-2 ", "3-5 "}},
		{"%x hexadecimal", "%x+", "fFgG09", []string{"0-2 ", "4-6 "}},
		{"%z the byte 0", "%z", "a\x00b", []string{"1-2 "}},
		{"upper case is the complement", "%D+", "12ab3", []string{"2-4 "}},
		{"%x of a non-alphanumeric is that byte", "%.%%%(", "a.%(", []string{"1-4 "}},
		{"set", "[abc]+", "xcabz", []string{"1-4 "}},
		{"set with a range", "[0-7]+", "8012789", []string{"1-5 "}},
		{"set with a class", "[%d_]+", "a1_2b", []string{"1-4 "}},
		{"complement set", "[^%s,]+", "a, b,c", []string{"0-1 ", "3-4 ", "5-6 "}},
		{"] first in a set", "[]a]+", "x]a]", []string{"1-4 "}},
		{"] first in a complement", "[^]]+", "ab]c", []string{"0-2 ", "3-4 "}},
		{"- at the end of a set", "[a-]+", "b-a-", []string{"1-4 "}},
		{"escaped ] in a set", "[%]x]+", "a]x]", []string{"1-4 "}},
		{"* longest", "a*", "baa", []string{"0-0 ", "1-3 ", "3-3 "}},
		{"+ longest, at least one", "a+", "baa", []string{"1-3 "}},
		{"- shortest", "<.->", "<a><b>", []string{"0-3 ", "3-6 "}},
		{"- extends to let the rest match", "a.-b", "axxbxb", []string{"0-4 "}},
		{"? optional", "colou?r", "color colour", []string{"0-5 ", "6-12 "}},
		{"* backs off for the rest", "a*ab", "aaab", []string{"0-4 "}},
		{"quantifier after a set", "[ab]-c", "abac", []string{"0-4 "}},
		{"^ anchors", "^a", "aa", []string{"0-1 "}},
		{"^ elsewhere is a byte", "a^", "a^", []string{"0-2 "}},
		{"$ anchors", "a$", "aa", []string{"1-2 "}},
		{"$ elsewhere is a byte", "$a", "$a", []string{"0-2 "}},
		{"^ and $", "^%d+$", "123", []string{"0-3 "}},
		{"captures, in order of (", "((%a+) (%a+))", "hi there", []string{"0-8 0-8 0-2 3-8 "}},
		{"position capture", "()ll()", "hello", []string{"2-4 @3 @5 "}},
		{"empty capture", "a()", "a", []string{"0-1 @2 "}},
		{"back-reference", "([\"'])(.-)%1", `say "it's" ok`, []string{`4-10 4-5 5-9 `}},
		{"back-reference repeats nothing", "(a)%1*", "aa*", []string{"0-3 0-1 "}},
		{"%b balanced", "%b()", "f(a(b)c) (d", []string{"1-8 "}},
		{"%b same delimiters", "%b''", "'a'b'", []string{"0-3 "}},
		{"%b then a quantifier byte", "%b()+", "()+", []string{"0-3 "}},
		{"empty pattern", "", "ab", []string{"0-0 ", "1-1 ", "2-2 "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, find(t, tc.pat, tc.src, 0))
		})
	}
}

// TestMalformed: the manual does not say how a malformed pattern fails;
// these are pm's messages (what hooks saw before), positions included.
func TestMalformed(t *testing.T) {
	for _, tc := range []struct{ pat, err string }{
		{"[a", "unexpected EOS at 1"},
		{"x[^", "unexpected EOS at 2"},
		{"[]", "unexpected EOS at 1"},
		{"[%]", "unexpected EOS at 2"},
		{"[a%", "unexpected EOS at EOS"},
		{"(a", "unfinished capture at EOS"},
		{"((a)", "unfinished capture at EOS"},
		{"a)", "invalid ')' at 0"},
		{"()))", "invalid ')' at 1"},
		{"x%0", "invalid capture index at 1"},
		{"%f", "missing '[' after '%f' in pattern at 1"},
		{"x%f%w", "missing '[' after '%f' in pattern at 2"},
		{"%f[a", "unexpected EOS at 3"},
	} {
		_, err := Compile(tc.pat)
		assert.EqualError(t, err, tc.err, tc.pat)
	}
	// A back-reference to no closed capture fails when it is reached.
	for _, tc := range []struct {
		pat, src string
		fails    bool
	}{
		{"%1", "a", true},
		{"(a%1)", "aa", true},
		{"(a)%2", "aa", true},
		{"x(a)%2", "bbb", false},
	} {
		o := ours(tc.pat, tc.src, 0, -1)
		if tc.fails {
			assert.Equal(t, "invalid capture index", o.err, tc.pat)
		} else {
			assert.Empty(t, o.err, tc.pat)
		}
	}
	// Accepted, never matching, as in pm (Lua 5.1 raises "malformed
	// pattern"): a trailing "%", "%b" without two bytes.
	for _, p := range []string{"%", "a%", "%b", "%b("} {
		assert.Empty(t, find(t, p, "a%b(", 0), p)
	}
}

// TestDifferencesFromPM lists the cases where this package means to
// answer otherwise than gopher-lua's pm, with Lua 5.1's answer here.
func TestDifferencesFromPM(t *testing.T) {
	for _, tc := range []struct {
		name, pat, src string
		offset         int
		want           []string
		pm             string // what pm answers: "same" for the same answer
	}{
		// %f[set]: pm reads %f as a literal "f", so a gate never matched.
		{"frontier: word start", "%f[%w]%w+", "THE (quick) fox", 0, []string{"0-3 ", "5-10 ", "12-15 "}, "differs"},
		{"frontier: word end", "%w+%f[%W]", "THE (quick) fox", 0, []string{"0-3 ", "5-10 ", "12-15 "}, "no match"},
		{"frontier: gate", "%f[%w]rm%s+%-rf", "cd /; rm -rf /", 0, []string{"6-12 "}, "no match"},
		{"frontier: not inside a word", "%f[%w]rm%s+%-rf", "farm -rf", 0, nil, "differs"}, // pm: "farm -rf" is f, a, rm -rf
		{"frontier: start of subject is \\0", "%f[%a]", "abc", 0, []string{"0-0 "}, "no match"},
		{"frontier: end of subject is \\0", "%f[%z]", "abc", 0, []string{"3-3 "}, "no match"},
		{"frontier: complement at the end", "%f[^%w]", "ab", 0, []string{"2-2 "}, "no match"},
		{"frontier: byte before the offset", "%f[%a]%a+", "xab cd", 1, []string{"4-6 "}, "no match"},
		{"frontier: anchored", "^%f[%a]", " a", 0, nil, "same"},
		{"frontier: a quantifier after it is a byte", "%f[a]*", "*a", 0, nil, "same"},
		{"frontier: range", "%f[a-c]", "xxbyy", 0, []string{"2-2 "}, "no match"},
		// pm leaves b out of [a-b-c]: a range, "-", c.
		{"range then -", "[a-b-c]+", "xab-cx", 0, []string{"1-5 "}, "no match"},
		// pm panics on a back-reference to a position capture; in Lua it
		// never matches.
		{"back-reference to a position capture", "()%1", "aa", 0, nil, "panic"},
		// pm panics or reads an unfinished capture as empty when another
		// capture opens inside it.
		{"back-reference to an unfinished capture", "(()a%1)", "aa", 0, nil, "panic"},
		// No depth limit: pm fails "pattern/input too complex" past a
		// million bytes taken by one repetition.
		{"long subject", "^(.*)$", strings.Repeat("a", 1_200_000), 0, []string{"0-1200000 0-1200000 "}, "pattern/input too complex"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := ours(tc.pat, tc.src, tc.offset, -1)
			if tc.name == "back-reference to an unfinished capture" {
				assert.Equal(t, "invalid capture index", o.err)
			} else {
				require.Empty(t, o.err)
				assert.Equal(t, tc.want, o.matches)
			}
			theirs, err := theirs(tc.pat, tc.src, tc.offset, -1)
			switch tc.pm {
			case "panic":
				assert.ErrorIs(t, err, errPMPanicked)
			case "same":
				assert.Equal(t, tc.want, theirs.matches)
			case "no match":
				assert.Empty(t, theirs.matches)
				assert.NotEqual(t, tc.want, theirs.matches)
			case "differs":
				assert.NotEqual(t, tc.want, theirs.matches)
			default:
				assert.Equal(t, tc.pm, theirs.err)
			}
		})
	}
	// Find with limit 0 finds nothing (gsub's n = 0); pm reads it as
	// no limit.
	assert.Empty(t, ours("a", "aaa", 0, 0).matches)
	theirsAll, _ := theirs("a", "aaa", 0, 0)
	assert.Len(t, theirsAll.matches, 3)
}

func TestNextAnchoredMatchesOnce(t *testing.T) {
	pat, err := Compile("^a")
	require.NoError(t, err)
	var mt Matcher
	m, next, err := mt.Next(pat, "aaa", 0)
	require.NoError(t, err)
	require.NotNil(t, m)
	assert.Equal(t, 4, next, "an anchored pattern has no following match")
	m, _, err = mt.Next(pat, "aaa", 1)
	require.NoError(t, err)
	assert.NotNil(t, m, "anchored at the offset given")
}

func TestCheckStopsARunawayMatch(t *testing.T) {
	stop := errors.New("stop")
	for _, tc := range []struct{ name, pat, src string }{
		{"backtracking", strings.Repeat("a*", 8) + "b", strings.Repeat("a", 300)},
		{"lazy backtracking", strings.Repeat("a-", 8) + "b", strings.Repeat("a", 300)},
		{"%b scanning", "%b()", strings.Repeat("(", 200_000)},
		{"back-references", "(a*)%1%1b", strings.Repeat("a", 3000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pat, err := Compile(tc.pat)
			require.NoError(t, err)
			// The runaway match polls Check as it goes, and the first
			// error ends it: counted in calls, not time, so that a loaded
			// machine cannot fail it.
			calls, after := 0, 0
			mt := Matcher{Check: func() error {
				calls++
				if calls > 3 {
					after++
					return stop
				}
				return nil
			}}
			_, err = mt.Find(pat, tc.src, 0, -1)
			assert.ErrorIs(t, err, stop)
			assert.Equal(t, 1, after, "the match ends at the first error")
		})
	}
}

// TestClasses checks the class constants against the C locale's
// definitions.
func TestClasses(t *testing.T) {
	ascii := func(f func(rune) bool) func(int) bool {
		return func(b int) bool { return b < 128 && f(rune(b)) }
	}
	defs := map[byte]func(int) bool{
		'a': ascii(unicode.IsLetter),
		'c': ascii(unicode.IsControl),
		'd': ascii(unicode.IsDigit),
		'l': ascii(unicode.IsLower),
		'p': ascii(func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) }),
		's': func(b int) bool { return b == ' ' || b >= '\t' && b <= '\r' },
		'u': ascii(unicode.IsUpper),
		'w': ascii(func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }),
		'x': ascii(func(r rune) bool { return strings.ContainsRune("0123456789abcdefABCDEF", r) }),
		'z': func(b int) bool { return b == 0 },
	}
	for letter, def := range defs {
		set, ok := class(letter)
		require.True(t, ok, "%c", letter)
		upper := escaped(letter - 32)
		for b := range 256 {
			assert.Equal(t, def(b), set.has(byte(b)), "%%%c and byte %d", letter, b)
			assert.Equal(t, !def(b), upper.has(byte(b)), "%%%c and byte %d", letter-32, b)
		}
	}
	for _, letter := range "bgoq" {
		_, ok := class(byte(letter))
		assert.False(t, ok, "%%%c is not a class in Lua 5.1", letter)
	}
}
