package pattern

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/gopher-lua/pm"
)

// captures renders matches the same way for both implementations.
func render(n int, capLen func(i int) int, isPos func(i, j int) bool, capture func(i, j int) int) [][3]int {
	var out [][3]int
	for i := range n {
		for j := range capLen(i) {
			pos := 0
			if isPos(i, j) {
				pos = 1
			}
			out = append(out, [3]int{i, capture(i, j), pos})
		}
	}
	return out
}

func ours(t *testing.T, p, src string, offset, limit int) ([][3]int, error) {
	t.Helper()
	pat, err := Compile(p)
	if err != nil {
		return nil, err
	}
	var mt Matcher
	ms, err := mt.Find(pat, src, offset, limit)
	if err != nil {
		return nil, err
	}
	return render(len(ms), func(i int) int { return ms[i].CaptureLength() },
		func(i, j int) bool { return ms[i].IsPosCapture(j) },
		func(i, j int) int { return ms[i].Capture(j) }), nil
}

func theirs(p, src string, offset, limit int) (out [][3]int, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = errors.New("panic")
		}
	}()
	ms, err := pm.Find(p, []byte(src), offset, limit)
	if err != nil {
		return nil, err
	}
	return render(len(ms), func(i int) int { return ms[i].CaptureLength() },
		func(i, j int) bool { return ms[i].IsPosCapture(j) },
		func(i, j int) int { return ms[i].Capture(j) }), nil
}

// TestSameMatchesAsGopherLua runs random patterns over random subjects
// through both matchers: same matches, same captures, same errors.
func TestSameMatchesAsGopherLua(t *testing.T) {
	atoms := []string{"a", "b", "(", ")", ".", "%a", "%d", "[ab]", "[^a]", "[a-c]", "%b()", "%1", "()", "*", "+", "-", "?", "^", "$", "%%", "x", "%s", "[%a-]"}
	subj := "ab()x1 -%"
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 30000 {
		var pb strings.Builder
		for range rng.IntN(7) + 1 {
			pb.WriteString(atoms[rng.IntN(len(atoms))])
		}
		var sb strings.Builder
		for range rng.IntN(14) {
			sb.WriteByte(subj[rng.IntN(len(subj))])
		}
		p, s := pb.String(), sb.String()
		offset := rng.IntN(3)
		limit := []int{-1, 1, 2}[rng.IntN(3)]
		want, werr := theirs(p, s, offset, limit)
		got, gerr := ours(t, p, s, offset, limit)
		if werr != nil {
			assert.Error(t, gerr, "case %d: pattern %q subject %q: gopher-lua fails with %v", i, p, s, werr)
			continue
		}
		require.NoError(t, gerr, "case %d: pattern %q subject %q", i, p, s)
		require.Equal(t, want, got, "case %d: pattern %q subject %q offset %d limit %d", i, p, s, offset, limit)
	}
}

func TestDeepInputsFailLikeGopherLua(t *testing.T) {
	long := strings.Repeat("a", 1_200_000)
	_, err := ours(t, "^(.*)$", long, 0, 1)
	assert.EqualError(t, err, "pattern/input too complex")
	got, err := ours(t, "^(.*)$", long[:900_000], 0, 1)
	require.NoError(t, err)
	assert.Equal(t, [][3]int{{0, 0, 0}, {0, 900_000, 0}, {0, 0, 0}, {0, 900_000, 0}}, got)
}

func TestCheckStopsABacktrackingMatch(t *testing.T) {
	pat, err := Compile(strings.Repeat("a*", 8) + "b")
	require.NoError(t, err)
	stop := errors.New("stop")
	deadline := time.Now().Add(50 * time.Millisecond)
	mt := Matcher{Check: func() error {
		if time.Now().After(deadline) {
			return stop
		}
		return nil
	}}
	start := time.Now()
	_, err = mt.Find(pat, strings.Repeat("a", 300), 0, 1)
	assert.ErrorIs(t, err, stop)
	assert.Less(t, time.Since(start), 60*time.Millisecond+50*time.Millisecond)

	// %b and back-references count their scanning too.
	for _, tc := range []struct{ p, s string }{
		{"%b()", strings.Repeat("(", 200_000)},
		{"(a*)%1%1b", strings.Repeat("a", 3000)},
	} {
		pat, err := Compile(tc.p)
		require.NoError(t, err)
		deadline = time.Now().Add(20 * time.Millisecond)
		start = time.Now()
		_, err = mt.Find(pat, tc.s, 0, -1)
		assert.ErrorIs(t, err, stop, tc.p)
		assert.Less(t, time.Since(start), 100*time.Millisecond, tc.p)
	}
}

func TestLimitZeroFindsNothing(t *testing.T) {
	got, err := ours(t, "a", "aaa", 0, 0)
	require.NoError(t, err)
	assert.Empty(t, got, "gsub(s, p, r, 0) replaces nothing, as in Lua")
}

func BenchmarkFindWords(b *testing.B) {
	src := strings.Repeat("the quick brown fox jumps over the lazy dog ", 1000)
	pat, _ := Compile("%a+")
	var mt Matcher
	for b.Loop() {
		mt.Find(pat, src, 0, -1)
	}
}

func BenchmarkGopherLuaFindWords(b *testing.B) {
	src := []byte(strings.Repeat("the quick brown fox jumps over the lazy dog ", 1000))
	for b.Loop() {
		pm.Find("%a+", src, 0, -1)
	}
}

// TestFrontier checks %f[set] against what Lua 5.1-5.4 answer (results of
// string.find in the reference interpreter): a frontier is where the
// previous character (or '\0' before the start) is not in the set and the
// current one (or '\0' after the end) is.
func TestFrontier(t *testing.T) {
	cases := []struct {
		name, pat, src string
		offset         int
		want           [][2]int // start, end of each match (0-based, end exclusive)
	}{
		{"word start", "%f[%w]%w+", "THE (quick) fox", 0, [][2]int{{0, 3}, {5, 10}, {12, 15}}},
		{"word end", "%w+%f[%W]", "THE (quick) fox", 0, [][2]int{{0, 3}, {5, 10}, {12, 15}}},
		{"gate matches", "%f[%w]rm%s+%-rf", "cd /; rm -rf /", 0, [][2]int{{6, 12}}},
		{"gate ignores inside a word", "%f[%w]rm%s+%-rf", "farm -rf", 0, nil},
		{"start of subject counts as \\0", "%f[%a]", "abc", 0, [][2]int{{0, 0}}},
		{"end of subject counts as \\0", "%f[%z]", "abc", 0, [][2]int{{3, 3}}},
		{"negated set at the end", "%f[^%w]", "ab", 0, [][2]int{{2, 2}}},
		{"previous char before the offset", "%f[%a]%a+", "xab cd", 1, [][2]int{{4, 6}}},
		{"anchored", "^%f[%a]", " a", 0, nil},
		{"quantifier after it is literal", "%f[a]*", "*a", 0, nil},
		{"set with range", "%f[a-c]", "xxbyy", 0, [][2]int{{2, 2}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pat, err := Compile(c.pat)
			require.NoError(t, err)
			var mt Matcher
			ms, err := mt.Find(pat, c.src, c.offset, -1)
			require.NoError(t, err)
			var got [][2]int
			for _, m := range ms {
				got = append(got, [2]int{m.Capture(0), m.Capture(1)})
			}
			assert.Equal(t, c.want, got)
		})
	}
}

func TestFrontierWithoutSetIsAnError(t *testing.T) {
	for _, p := range []string{"%f", "%fa", "x%f%w"} {
		_, err := Compile(p)
		require.Error(t, err, p)
		assert.Contains(t, err.Error(), "missing '[' after '%f'", p)
	}
}
