package session

import (
	"bytes"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// plainLenByBytes is plainLen a byte at a time.
func plainLenByBytes(b []byte, ascii bool) int {
	for i, c := range b {
		if c < 0x20 || c == '"' || c == '\\' || ascii && c >= 0x80 {
			return i
		}
	}
	return len(b)
}

func TestPlainLen(t *testing.T) {
	for _, tc := range []struct {
		in           string
		ascii, mixed int
	}{
		{"", 0, 0},
		{"abc", 3, 3},
		{"0123456789abcdef", 16, 16},
		{`0123456"89abcdef`, 7, 7},
		{`01234567\9abcdef`, 8, 8},
		{"0123456789abcde\n", 15, 15},
		{"01é3456789abcdef", 2, 17},
		{"\x00", 0, 0},
		{"abcdefg\x1f", 7, 7},
		{"abcdefg\x7f", 8, 8},
		{"abcdefgh\x80", 8, 9},
		{"\x01\"\"\"\"\"\"\"", 0, 0},
		{"!!!!!!!!!!!!!!!!\x21#", 18, 18},
	} {
		assert.Equal(t, tc.ascii, PlainLen(tc.in), "%q", tc.in)
		assert.Equal(t, tc.mixed, plainLen([]byte(tc.in), false), "%q", tc.in)
	}
}

// FuzzPlainLen checks the word-at-a-time plainLen against a byte loop, at
// every offset of the input (so that every byte sits in every lane).
func FuzzPlainLen(f *testing.F) {
	f.Add([]byte(`The handler validates the request; "quoted" \ and é€😀 ` + "\x00\x1f\x20\x7f\x80\xff\n\t"))
	f.Add([]byte("\x21\x22\x5b\x5c\x5d\x1f\x20\x9f\xa0\xdf\xe0"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for i := range data {
			for _, ascii := range []bool{true, false} {
				if got, want := plainLen(data[i:], ascii), plainLenByBytes(data[i:], ascii); got != want {
					t.Fatalf("plainLen(%q, %v) = %d, want %d", data[i:], ascii, got, want)
				}
			}
		}
	})
}

// stringifyWrites reports what the scanner says of a string body: whether
// it is what JSON.stringify writes for its decoded form (false too when
// it is no valid string body).
func stringifyWrites(body []byte) bool {
	quoted := append(append([]byte{'"'}, body...), '"')
	s := scanner{data: quoted}
	end, _, stringified, err := s.scanString(true)
	return err == nil && end == len(quoted)-1 && stringified
}

// stringifyWritesByRoundTrip is what stringifyWrites decides, the long
// way: decode the body, encode it as JSON.stringify does, compare.
func stringifyWritesByRoundTrip(body []byte) bool {
	dec := unescape(nil, body)
	return bytes.Equal(appendJSString(nil, unsafe.String(unsafe.SliceData(dec), len(dec))), append(append([]byte{'"'}, body...), '"'))
}

func TestStringifyWrites(t *testing.T) {
	for _, tc := range []struct {
		body string
		want bool
	}{
		{``, true},
		{`plain text`, true},
		{`a\"b\\c\nd\re\tf\bg\fh`, true},
		{`\u0000\u001f\u000b`, true},
		{`\u001F`, false}, // upper-case hex
		{`\u0008`, false}, // \b
		{`\u000a`, false}, // \n
		{`\/`, false},
		{`\u0041`, false},
		{`\u007f`, false},
		{`\u00e9`, false},
		{"é€😀\u2028", true},
		{`\u2028`, false},
		{`\ud800`, true},
		{`\udc00`, true},
		{`\udc00\ud800`, true},
		{`\ud800x`, true},
		{`\ud800\udc00`, false}, // a pair: written as the character
		{`\ud800\ud800\udc00`, false},
		{`\ud800\u0041`, false},
		{`\uD800`, false},
		{"\xff", false},
		{"\xed\xa0\x80", false}, // a raw surrogate: written escaped
		{"ab\xc3", false},
	} {
		assert.Equal(t, tc.want, stringifyWrites([]byte(tc.body)), "%q", tc.body)
		assert.Equal(t, tc.want, stringifyWritesByRoundTrip([]byte(tc.body)), "reference: %q", tc.body)
	}
}

// FuzzStringifyWrites checks what the scanner decides of a string body
// against decoding and encoding it, on every string body the scanner
// accepts, and that a long escaped body it finds written by
// JSON.stringify, and only such a body, is decoded in place, to what
// unescape gives.
func FuzzStringifyWrites(f *testing.F) {
	for _, s := range []string{`a\"b\\c\nd\u0001`, `\ud800\udc00\ud800x\udc00\/\u00411`, "é\xff\xed\xa0\x80\u2028", strings.Repeat(`\t\"x\" `, 20),
		strings.Repeat(`\n`, 40) + `\/`, strings.Repeat(`\ud800`, 11) + `\udc00`, strings.Repeat("é", 40) + "\xc3\\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		quoted := append(append([]byte{'"'}, body...), '"')
		s := scanner{data: quoted}
		if end, _, err := s.stringEnd(); err != nil || end != len(quoted)-1 {
			return // not a string body
		}
		want := stringifyWritesByRoundTrip(body)
		if got := stringifyWrites(body); got != want {
			t.Fatalf("stringifyWrites(%q) = %v, want %v", body, got, want)
		}
		// A string the scanner accepts is decoded in place as unescape
		// decodes it; any other keeps its bytes.
		data := bytes.Clone(quoted)
		s = scanner{data: data, inPlace: &inPlace{}, arena: &arena{}}
		dec := string(unescape(nil, body))
		v, err := s.str()
		if err != nil || v != dec {
			t.Fatalf("str(%q) = %q, %v; want %q", quoted, v, err, dec)
		}
		if inPlace := len(s.inPlace.patches) > 0; inPlace != (want && len(body) >= inPlaceMin && bytes.IndexByte(body, '\\') >= 0) {
			t.Fatalf("str(%q): decoded in place %v, want %v", quoted, inPlace, want)
		}
		if len(s.inPlace.patches) == 0 {
			assert.Equal(t, quoted, data, "a string not decoded in place keeps its bytes")
		}
	})
}
