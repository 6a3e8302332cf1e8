package lua_test

// FuzzToolArgs: whatever bytes a model sends as a built-in tool's
// arguments, either they are refused, or the permission policy (a hook,
// reading them as a Lua table) and the tool (reading them into a Go
// struct) read the same value. The seed corpus is in
// testdata/fuzz/FuzzToolArgs: the spellings the policy and the tool read
// differently before (a key twice, "Command", "\u0061", Kelvin sign and
// long s folding), numbers out of range, invalid UTF-8, lone surrogates.

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"testing"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/agent/jsonschema"
	"github.com/lunar-cli/lunar/agent/tools"
	"github.com/lunar-cli/lunar/stdlib"
)

// toolReader stands for a built-in tool's decoding: encoding/json into a
// struct with one field per declared property (tagged with its name, as
// the tools' argument structs are), each kept raw for comparison.
type toolReader struct {
	validator *agent.Validator
	typ       reflect.Type
	names     []string
}

func newToolReader(t testing.TB, tool *agent.Tool) toolReader {
	v, err := agent.CompileSchema(tool.Name, tool.Parameters)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.Decode(tool.Parameters)
	if err != nil {
		t.Fatal(err)
	}
	props := doc.(map[string]any)["properties"].(map[string]any)
	r := toolReader{validator: v}
	var fields []reflect.StructField
	for name := range props {
		r.names = append(r.names, name)
		fields = append(fields, reflect.StructField{Name: "F" + strconv.Itoa(len(fields)),
			Type: reflect.TypeFor[json.RawMessage](), Tag: reflect.StructTag(`json:"` + name + `"`)})
	}
	r.typ = reflect.StructOf(fields)
	return r
}

func FuzzToolArgs(f *testing.F) {
	readers := map[string]toolReader{}
	for _, tool := range tools.Builtins(f.TempDir()) {
		readers[tool.Name] = newToolReader(f, tool)
	}
	L := glua.NewState()
	defer L.Close()
	codec := stdlib.NewCodec(L)

	f.Fuzz(func(t *testing.T, name string, raw []byte) {
		r, ok := readers[name]
		if !ok {
			return
		}
		args, err := r.validator.Decode(raw)
		if err != nil {
			return // refused: nothing runs, the policy is not asked
		}
		// What the policy sees: the hooks' JSON codec.
		lv, err := codec.Decode(args)
		if err != nil {
			t.Fatalf("the policy cannot read accepted arguments %q: %v", args, err)
		}
		policy := lv.(*glua.LTable)
		// What the tool runs with.
		st := reflect.New(r.typ)
		if err := json.Unmarshal(args, st.Interface()); err != nil {
			return // the tool refuses them: an error result, nothing runs
		}
		for i, prop := range r.names {
			got := st.Elem().Field(i).Interface().(json.RawMessage)
			if !sameValue(codec, got, policy.RawGetString(prop)) {
				t.Fatalf("%s %q: the policy read %s=%v, the tool %s", name, raw, prop, policy.RawGetString(prop), got)
			}
		}
	})
}

// sameValue reports whether raw, as encoding/json reads it, is lv, as the
// codec read it (an absent or null property is nil to both).
func sameValue(codec *stdlib.Codec, raw json.RawMessage, lv glua.LValue) bool {
	if lv == glua.LNil || codec.IsNull(lv) {
		return len(raw) == 0 || string(raw) == "null"
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		// Numbers out of float64's range: the codec reads ±Inf.
		f, perr := strconv.ParseFloat(string(raw), 64)
		n, isNum := lv.(glua.LNumber)
		return perr != nil && math.IsInf(f, 0) && isNum && float64(n) == f
	}
	return sameDecoded(codec, v, lv)
}

func sameDecoded(codec *stdlib.Codec, v any, lv glua.LValue) bool {
	switch v := v.(type) {
	case nil:
		return lv == glua.LNil || codec.IsNull(lv)
	case string:
		s, ok := lv.(glua.LString)
		return ok && string(s) == v
	case float64:
		n, ok := lv.(glua.LNumber)
		return ok && float64(n) == v
	case bool:
		b, ok := lv.(glua.LBool)
		return ok && bool(b) == v
	case []any:
		t, ok := lv.(*glua.LTable)
		if !ok || t.Len() != len(v) {
			return false
		}
		for i, e := range v {
			if !sameDecoded(codec, e, t.RawGetInt(i+1)) {
				return false
			}
		}
		return true
	case map[string]any:
		t, ok := lv.(*glua.LTable)
		if !ok {
			return false
		}
		n := 0
		t.ForEach(func(glua.LValue, glua.LValue) { n++ })
		members := 0
		for k, e := range v {
			if e != nil {
				members++
			}
			if !sameDecoded(codec, e, t.RawGetString(k)) {
				return false
			}
		}
		return n == members
	}
	return false
}
