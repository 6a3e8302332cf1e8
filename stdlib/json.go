package stdlib

// The json module: encode and decode with a null sentinel and arrays that
// stay arrays when empty.

import (
	glua "github.com/yuin/gopher-lua"
)

func jsonModule() *Module {
	return &Module{
		Name: "json",
		Doc:  "JSON encoding and decoding. Arrays decode to tables marked as arrays (they encode back as arrays even when empty); null decodes to json.null; object keys keep their order.",
		Funcs: []Func{
			{Name: "encode", Fn: jsonEncode, Returns: "string",
				Params: []Param{{Name: "value", Type: "any"}, {Name: "opts", Type: "json.EncodeOptions", Optional: true}},
				Doc:    "Encodes a value. A table whose keys are exactly 1..n (or marked with json.array) is an array; an empty unmarked table is {}. Raises an error for functions, cyclic tables and NaN."},
			{Name: "decode", Fn: jsonDecode, Returns: "any, string?",
				Params: []Param{{Name: "text", Type: "string"}},
				Doc:    "Decodes JSON text. Returns nil and a message with line and column on malformed input."},
			{Name: "array", Fn: jsonArray, Returns: "table",
				Params: []Param{{Name: "t", Type: "table", Optional: true}},
				Doc:    "Marks t (or a new table) as an array and returns it, so that it encodes as [] even when empty."},
			{Name: "is_array", Fn: jsonIsArray, Returns: "boolean",
				Params: []Param{{Name: "t", Type: "table"}},
				Doc:    "Reports whether t is marked as an array (decoded arrays are)."},
		},
		Fields: []Field{{Name: "null", Type: "userdata", Doc: "The JSON null sentinel: decode produces it, encode writes it as null."}},
		Classes: []Class{{Name: "json.EncodeOptions", Fields: []Field{
			{Name: "indent", Type: "string?", Doc: "pretty-print with this indentation per level"},
		}}},
		Init: func(L *glua.LState, mod *glua.LTable) {
			mod.RawSetString("null", NewCodec(L).Null())
		},
	}
}

func jsonEncode(L *glua.LState) int {
	v := L.CheckAny(1)
	var opts EncodeOptions
	if t, ok := L.Get(2).(*glua.LTable); ok {
		if s, ok := t.RawGetString("indent").(glua.LString); ok {
			opts.Indent = string(s)
		}
	}
	out, err := NewCodec(L).Encode(nil, v, opts)
	if err != nil {
		L.RaiseError("json.encode: %s", err.Error())
	}
	L.Push(glua.LString(out))
	return 1
}

func jsonDecode(L *glua.LState) int {
	s := L.CheckString(1)
	v, err := NewCodec(L).Decode([]byte(s))
	if err != nil {
		L.Push(glua.LNil)
		L.Push(glua.LString("json.decode: " + err.Error()))
		return 2
	}
	L.Push(v)
	return 1
}

func jsonArray(L *glua.LState) int {
	t, ok := L.Get(1).(*glua.LTable)
	if !ok {
		if L.Get(1) != glua.LNil {
			L.ArgError(1, "table expected")
		}
		t = L.NewTable()
	}
	L.Push(NewCodec(L).MarkArray(t))
	return 1
}

func jsonIsArray(L *glua.LState) int {
	t := L.CheckTable(1)
	L.Push(glua.LBool(NewCodec(L).IsArray(t)))
	return 1
}
