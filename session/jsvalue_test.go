package session

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readPairs reads "input<sep>expected" lines from a golden file made by
// testdata/gen/numbers.js with Node's JSON.stringify.
func readPairs(t *testing.T, path, sep string) [][2]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out [][2]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		in, want, ok := strings.Cut(sc.Text(), sep)
		require.True(t, ok, "bad golden line %q", sc.Text())
		out = append(out, [2]string{in, want})
	}
	require.NoError(t, sc.Err())
	return out
}

func TestAppendJSNumberMatchesNode(t *testing.T) {
	pairs := readPairs(t, "testdata/js_numbers.txt", " ")
	require.Greater(t, len(pairs), 9000)
	for _, p := range pairs {
		bits, err := hex.DecodeString(p[0])
		require.NoError(t, err)
		f := math.Float64frombits(binary.BigEndian.Uint64(bits))
		assert.Equal(t, p[1], string(appendJSNumber(nil, f)), "double %s (%v)", p[0], f)
	}
}

func TestAppendJSNumberCases(t *testing.T) {
	pointOne, pointTwo := 0.1, 0.2 // variables: constant arithmetic would be exact
	cases := []struct {
		in   float64
		want string
	}{
		{0.000123, "0.000123"},
		{1e-7, "1e-7"},
		{0.000001, "0.000001"},
		{1e21, "1e+21"},
		{1e20, "100000000000000000000"},
		{pointOne + pointTwo, "0.30000000000000004"},
		{-1.5, "-1.5"},
		{math.Copysign(0, -1), "0"},
		{math.NaN(), "null"},
		{math.Inf(-1), "null"},
		{123456, "123456"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, string(appendJSNumber(nil, c.in)), "%v", c.in)
	}
}

func TestAppendJSStringMatchesNode(t *testing.T) {
	pairs := readPairs(t, "testdata/js_strings.txt", "\t")
	require.Greater(t, len(pairs), 130)
	for _, p := range pairs {
		body := []byte(p[0][1 : len(p[0])-1])
		in := string(unescape(nil, body))
		assert.Equal(t, p[1], string(appendJSString(nil, in)), "input %s", p[0])
	}
}

func TestAppendJSStringInvalidUTF8(t *testing.T) {
	// Go strings may hold bytes no JavaScript string can: each becomes
	// U+FFFD, like Go's own encoder.
	assert.Equal(t, "\"a\uFFFDb\uFFFD\"", string(appendJSString(nil, "a\xffb\xc3")))
}

func TestJSObjectOrder(t *testing.T) {
	// JSON.parse + JSON.stringify puts array-index keys first (ascending),
	// keeps the first position of a duplicate key with the last value,
	// and canonicalises numbers and escapes.
	cases := []struct{ in, want string }{
		{`{"b":1,"2":2,"a":3,"1":4,"01":5,"4294967295":6,"4294967294":7}`, `{"1":4,"2":2,"4294967294":7,"b":1,"a":3,"01":5,"4294967295":6}`},
		{`{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`},
		{` { "x" : [ 1.50 , 1E3 , -0 , 1e400 , "\u00e9\/\u2028" ] } `, "{\"x\":[1.5,1000,0,null,\"é/\u2028\"]}"},
		{`"\ud800"`, `"\ud800"`},
		{"\"\xe2\x82A\"", "\"\uFFFDA\""},               // truncated sequence: one U+FFFD (maximal subpart)
		{"\"\xed\xa0\x80\"", "\"\uFFFD\uFFFD\uFFFD\""}, // raw surrogate bytes are invalid UTF-8
	}
	for _, c := range cases {
		got, err := appendNormalized(nil, []byte(c.in))
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, string(got), c.in)
	}
}

func TestJSObjectSetDelete(t *testing.T) {
	v, err := parseJS([]byte(`{"type":"message","timestamp":"t","message":{}}`))
	require.NoError(t, err)
	v.obj.set("id", jsStr("abc"))
	v.obj.set("type", jsStr("x")) // existing keys keep their place
	v.obj.set("7", jsNum(1))
	v.obj.del("timestamp")
	assert.Equal(t, `{"7":1,"type":"x","message":{},"id":"abc"}`, string(appendJS(nil, v)))
}

func TestParseJSRejectsWhatJSONParseRejects(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a":}`, `[1,]`, `01`, `1.`, `.5`, `+1`, `"a` + "\n" + `"`, `"\x"`, `"\u12"`, `tru`, `{"a":1}x`, `{'a':1}`, `NaN`, "\xef\xbb\xbf{}"} {
		_, err := parseJS([]byte(in))
		assert.ErrorIs(t, err, errSyntax, "%q", in)
	}
	deep := strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2)
	_, err := parseJS([]byte(deep))
	assert.ErrorIs(t, err, errSyntax)
}

func TestJSLength(t *testing.T) {
	// JSON.stringify({"a":"é😀","b":[1.0]}).length === 19
	assert.Equal(t, 19, jsLength([]byte(`{ "a": "\u00e9😀", "b": [1.0] }`)))
	assert.Equal(t, 3, utf16Len("é😀"))
}
