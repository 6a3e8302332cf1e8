package stdlib_test

import (
	"bytes"
	"encoding/json"
	"testing"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/stdlib"
)

// FuzzDecode checks the decoder against encoding/json: it accepts exactly
// the valid documents (nesting aside), and what it decodes encodes to valid
// JSON that decodes and encodes to the same text again.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"a":[1,2,{"b":null}],"c":"\u00e9\n","d":-1.5e-7,"e":{},"f":[]}`,
		`[true,false,null,"x",0,-0,1e21,123456789012345678]`,
		`"\ud83d\ude00\ud800"`, `{"a":}`, `[1,]`, `01`, `"\x"`, ` {"k" : "v" } `,
	} {
		f.Add([]byte(seed))
	}
	L := glua.NewState()
	defer L.Close()
	c := stdlib.NewCodec(L)
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := c.Decode(data)
		valid := json.Valid(data)
		if err != nil {
			if valid && err.(*stdlib.SyntaxError).Msg != "nested too deeply" {
				t.Fatalf("valid JSON refused: %q: %v", data, err)
			}
			return
		}
		if !valid {
			t.Fatalf("invalid JSON accepted: %q", data)
		}
		out, err := c.Encode(nil, v, stdlib.EncodeOptions{})
		if err != nil {
			// numbers beyond float64 decode as ±Inf, which JSON cannot hold
			return
		}
		if !json.Valid(out) {
			t.Fatalf("encoded invalid JSON %q from %q", out, data)
		}
		v2, err := c.Decode(out)
		if err != nil {
			t.Fatalf("re-decoding %q: %v", out, err)
		}
		out2, err := c.Encode(nil, v2, stdlib.EncodeOptions{})
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("not stable: %q then %q (%v)", out, out2, err)
		}
	})
}
