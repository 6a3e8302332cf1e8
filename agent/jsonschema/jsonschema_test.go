package jsonschema

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	oracle "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cases are schemas with values each must accept (valid) or refuse
// (invalid, with the first violation's message).
var cases = []struct {
	name    string
	schema  string
	valid   []string
	invalid map[string]string // value -> "pointer: message" of the first violation
}{
	{"type", `{"type":"string"}`, []string{`"a"`}, map[string]string{`1`: `: expected string, got number`, `null`: `: expected string, got null`}},
	{"type list", `{"type":["string","null"]}`, []string{`"a"`, `null`}, map[string]string{`true`: `: expected string or null, got boolean`}},
	{"integer", `{"type":"integer"}`, []string{`1`, `2.0`, `-3`, `1e2`}, map[string]string{`1.5`: `: expected integer, got number`, `"1"`: `: expected integer, got string`}},
	{"number bounds", `{"minimum":1,"maximum":10,"exclusiveMaximum":10}`, []string{`1`, `9.5`, `"x"`}, map[string]string{`0`: `: must be >= 1, got 0`, `10`: `: must be < 10, got 10`}},
	{"exclusive minimum", `{"exclusiveMinimum":0}`, []string{`0.1`}, map[string]string{`0`: `: must be > 0, got 0`}},
	{"draft 4 exclusive", `{"$schema":"http://json-schema.org/draft-04/schema#","minimum":0,"exclusiveMinimum":true}`, []string{`1`}, map[string]string{`0`: `: must be > 0, got 0`}},
	{"multipleOf", `{"multipleOf":0.1}`, []string{`0.3`, `7`}, map[string]string{`0.35`: `: must be a multiple of 0.1, got 0.35`}},
	{"string length", `{"minLength":2,"maxLength":3}`, []string{`"ab"`, `"日本語"`}, map[string]string{`"a"`: `: must be at least 2 character(s) long, got 1`, `"abcd"`: `: must be at most 3 character(s) long, got 4`}},
	{"pattern", `{"pattern":"^[a-z]+$"}`, []string{`"abc"`, `3`}, map[string]string{`"aB"`: `: must match the pattern "^[a-z]+$"`}},
	{"enum", `{"enum":["a",1,null]}`, []string{`"a"`, `1.0`, `null`}, map[string]string{`"b"`: `: must be one of "a", 1, null, got "b"`}},
	{"const", `{"const":{"a":[1,2]}}`, []string{`{"a":[1,2.0]}`}, map[string]string{`{"a":[2,1]}`: `: must be {"a":[1,2]}, got {"a":[2,1]}`}},
	{"required", `{"required":["a","b"]}`, []string{`{"a":1,"b":2}`, `[]`}, map[string]string{`{"a":1}`: `: missing property "b"`, `{}`: `: missing properties "a", "b"`}},
	{"additionalProperties false", `{"properties":{"a":{}},"additionalProperties":false}`, []string{`{"a":1}`}, map[string]string{`{"a":1,"b":2,"c":3}`: `: unknown properties "b", "c"`}},
	{"additionalProperties schema", `{"properties":{"a":{}},"additionalProperties":{"type":"string"}}`, []string{`{"a":1,"b":"x"}`}, map[string]string{`{"b":2}`: `/b: expected string, got number`}},
	{"patternProperties", `{"patternProperties":{"^x-":{"type":"integer"}},"additionalProperties":false}`, []string{`{"x-a":1}`}, map[string]string{`{"x-a":"1"}`: `/x-a: expected integer, got string`, `{"y":1}`: `: unknown property "y"`}},
	{"property counts", `{"minProperties":1,"maxProperties":1}`, []string{`{"a":1}`}, map[string]string{`{}`: `: must have at least 1 properties, got 0`}},
	{"propertyNames", `{"propertyNames":{"maxLength":2}}`, []string{`{"ab":1}`}, map[string]string{`{"abc":1}`: `: property name "abc": must be at most 2 character(s) long, got 3`}},
	{"dependentRequired", `{"dependentRequired":{"a":["b"]}}`, []string{`{"a":1,"b":2}`, `{"b":1}`}, map[string]string{`{"a":1}`: `: missing property "b" (required with "a")`}},
	{"dependentSchemas", `{"dependentSchemas":{"a":{"required":["c"]}}}`, []string{`{"a":1,"c":2}`}, map[string]string{`{"a":1}`: `: missing property "c"`}},
	{"draft 7 dependencies", `{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b"],"c":{"required":["d"]}}}`, []string{`{"a":1,"b":1}`}, map[string]string{`{"a":1}`: `: missing property "b" (required with "a")`, `{"c":1}`: `: missing property "d"`}},
	{"items", `{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":2}`, []string{`["a"]`}, map[string]string{`[1]`: `/0: expected string, got number`, `[]`: `: must have at least 1 item(s), got 0`, `["a","b","c"]`: `: must have at most 2 item(s), got 3`}},
	{"prefixItems", `{"prefixItems":[{"type":"string"}],"items":false}`, []string{`["a"]`, `[]`}, map[string]string{`["a",1]`: `/1: not allowed`, `[1]`: `/0: expected string, got number`}},
	{"draft 7 tuple", `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}],"additionalItems":false}`, []string{`["a"]`}, map[string]string{`["a",1]`: `/1: not allowed`}},
	{"uniqueItems", `{"uniqueItems":true}`, []string{`[1,"1",[1]]`}, map[string]string{`[1,2,1.0]`: `: items 0 and 2 are equal; items must be unique`}},
	{"contains", `{"contains":{"type":"integer"},"minContains":2,"maxContains":3}`, []string{`[1,2,"a"]`}, map[string]string{`[1,"a"]`: `: must contain at least 2 item(s) matching "contains", got 1`, `[1,2,3,4]`: `: must contain at most 3 item(s) matching "contains", got 4`}},
	{"allOf", `{"allOf":[{"minimum":1},{"maximum":2}]}`, []string{`1.5`}, map[string]string{`3`: `: must be <= 2, got 3`}},
	{"anyOf", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, []string{`"a"`, `1`}, map[string]string{`1.5`: `: expected string, got number`}},
	{"oneOf", `{"oneOf":[{"type":"integer"},{"minimum":2}]}`, []string{`1`, `2.5`}, map[string]string{`3`: `: must match exactly one oneOf alternative, matches 0 and 1`, `1.5`: `: expected integer, got number`}},
	{"not", `{"not":{"type":"null"}}`, []string{`1`}, map[string]string{`null`: `: must not match the schema in "not"`}},
	{"if then else", `{"if":{"type":"string"},"then":{"minLength":2},"else":{"type":"integer"}}`, []string{`"ab"`, `3`}, map[string]string{`"a"`: `: must be at least 2 character(s) long, got 1`, `1.5`: `: expected integer, got number`}},
	{"false schema", `false`, nil, map[string]string{`1`: `: not allowed`}},
	{"true schema", `true`, []string{`1`, `{}`}, nil},
	{"ref to $defs", `{"$defs":{"s":{"type":"string"}},"properties":{"p":{"$ref":"#/$defs/s"}}}`, []string{`{"p":"x"}`}, map[string]string{`{"p":1}`: `/p: expected string, got number`}},
	{"ref to definitions", `{"definitions":{"s":{"type":"string"}},"items":{"$ref":"#/definitions/s"}}`, []string{`["x"]`}, map[string]string{`[1]`: `/0: expected string, got number`}},
	{"ref with siblings (2020-12)", `{"$defs":{"s":{"type":"string"}},"$ref":"#/$defs/s","minLength":2}`, []string{`"ab"`}, map[string]string{`"a"`: `: must be at least 2 character(s) long, got 1`}},
	{"ref siblings ignored (draft 7)", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"$ref":"#/definitions/s","minLength":2}`, []string{`"a"`}, map[string]string{`1`: `: expected string, got number`}},
	{"recursive ref", `{"type":"object","properties":{"child":{"$ref":"#"}},"additionalProperties":false}`, []string{`{"child":{"child":{}}}`}, map[string]string{`{"child":{"x":1}}`: `/child: unknown property "x"`}},
	{"anchor", `{"$defs":{"s":{"$anchor":"str","type":"string"}},"items":{"$ref":"#str"}}`, []string{`["a"]`}, map[string]string{`[1]`: `/0: expected string, got number`}},
	{"format is an annotation", `{"format":"email"}`, []string{`"not an email"`}, nil},
	{"pointer escapes", `{"properties":{"a/b":{"type":"string"}}}`, []string{`{"a/b":"x"}`}, map[string]string{`{"a/b":1}`: `/a~1b: expected string, got number`}},
}

func mustDecode(t *testing.T, s string) any {
	t.Helper()
	v, err := Decode([]byte(s))
	require.NoError(t, err, s)
	return v
}

func TestValidate(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Compile(mustDecode(t, tc.schema))
			require.NoError(t, err)
			for _, v := range tc.valid {
				assert.NoError(t, s.Validate(mustDecode(t, v)), v)
			}
			for v, want := range tc.invalid {
				err := s.Validate(mustDecode(t, v))
				var ve *ValidationError
				require.ErrorAs(t, err, &ve, v)
				first := ve.Violations[0]
				assert.Equal(t, want, Pointer(first.Path)+": "+first.Msg, v)
			}
		})
	}
}

// TestAgreesWithReferenceValidator checks every case's verdicts against
// santhosh-tekuri/jsonschema, the validator lunar used before (a test
// dependency only: its package initialisation costs every process).
func TestAgreesWithReferenceValidator(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := oracle.UnmarshalJSON(strings.NewReader(tc.schema))
			require.NoError(t, err)
			c := oracle.NewCompiler()
			c.DefaultDraft(oracle.Draft2020)
			require.NoError(t, c.AddResource("mem:///s.json", doc))
			ref, err := c.Compile("mem:///s.json")
			require.NoError(t, err)
			ours, err := Compile(mustDecode(t, tc.schema))
			require.NoError(t, err)
			check := func(v string) {
				inst, err := oracle.UnmarshalJSON(bytes.NewReader([]byte(v)))
				require.NoError(t, err)
				assert.Equal(t, ref.Validate(inst) == nil, ours.Validate(mustDecode(t, v)) == nil, "verdicts differ on %s", v)
			}
			for _, v := range tc.valid {
				check(v)
			}
			for v := range tc.invalid {
				check(v)
			}
		})
	}
}

func TestCompileRefusesBadSchemas(t *testing.T) {
	tests := []struct{ name, schema, want string }{
		{"unknown type", `{"type":"nonsense"}`, `#/type: must be one of "array", "boolean", "integer", "null", "number", "object", "string", got "nonsense"`},
		{"type in a list", `{"type":["string",3]}`, `#/type/1: must be one of`},
		{"nested", `{"properties":{"n":{"type":"int"}}}`, `#/properties/n/type: must be one of`},
		{"not a schema", `{"properties":{"n":3}}`, `#/properties/n: a schema must be an object or a boolean, got number`},
		{"required not strings", `{"required":[1]}`, `#/required/0: must be a string, got number`},
		{"required duplicate", `{"required":["a","a"]}`, `#/required/1: duplicate "a"`},
		{"negative count", `{"minLength":-1}`, `#/minLength: must be a non-negative integer, got -1`},
		{"fractional count", `{"maxItems":1.5}`, `#/maxItems: must be a non-negative integer, got 1.5`},
		{"bad minimum", `{"minimum":"1"}`, `#/minimum: must be a number, got string`},
		{"zero multipleOf", `{"multipleOf":0}`, `#/multipleOf: must be greater than 0`},
		{"bad pattern", `{"pattern":"("}`, `#/pattern: invalid regular expression`},
		{"empty anyOf", `{"anyOf":[]}`, `#/anyOf: must be a non-empty array of schemas, got array`},
		{"external ref", `{"$ref":"https://example.com/s.json"}`, `#/$ref: external schema https://example.com/s.json not allowed: tool schemas must be self-contained`},
		{"dangling ref", `{"$ref":"#/$defs/nope"}`, `#/$ref: #/$defs/nope: no "$defs" in the schema`},
		{"unknown anchor", `{"$ref":"#nope"}`, `#/$ref: no anchor "nope" in the schema`},
		{"unsupported keyword", `{"unevaluatedProperties":false}`, `#/unevaluatedProperties: unevaluatedProperties is not supported in tool schemas`},
		{"unknown draft", `{"$schema":"http://example.com/mine"}`, `#/$schema: unknown draft "http://example.com/mine"`},
		{"bad defs", `{"$defs":{"a":{"type":1}}}`, `#/$defs/a/type: must be one of`},
		{"sorted by place", `{"properties":{"b":{"type":"x"},"a":{"minimum":"y"}}}`, `#/properties/a/minimum: must be a number, got string; #/properties/b/type`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(mustDecode(t, tc.schema))
			var se *SchemaError
			require.ErrorAs(t, err, &se)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestDecode(t *testing.T) {
	_, err := Decode([]byte(`{"a":`))
	assert.EqualError(t, err, "unexpected EOF")
	_, err = Decode([]byte(`{} x`))
	assert.EqualError(t, err, "invalid character after top-level value")
	v, err := Decode([]byte(`{"n": 12345678901234567890}`))
	require.NoError(t, err)
	assert.Equal(t, "12345678901234567890", fmt.Sprint(v.(map[string]any)["n"]), "numbers keep their digits")
}

func BenchmarkCompileAndValidate(b *testing.B) {
	const schema = `{"type":"object","properties":{"path":{"type":"string"},"edits":{"type":"array","minItems":1,
		"items":{"type":"object","properties":{"oldText":{"type":"string"},"newText":{"type":"string"}},
		"required":["oldText","newText"],"additionalProperties":false}}},"required":["path","edits"],"additionalProperties":false}`
	args := []byte(`{"path":"a.go","edits":[{"oldText":"x","newText":"y"}]}`)
	b.ReportAllocs()
	for b.Loop() {
		doc, _ := Decode([]byte(schema))
		s, err := Compile(doc)
		if err != nil {
			b.Fatal(err)
		}
		v, _ := Decode(args)
		if err := s.Validate(v); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCompileArgs checks the strictness tool arguments get: closed object
// shapes, case-variant keys refused, combined shapes left open.
func TestCompileArgs(t *testing.T) {
	tests := []struct {
		name, schema string
		valid        []string
		invalid      map[string]string
	}{
		{"closed by default", `{"type":"object","properties":{"command":{"type":"string"}}}`,
			[]string{`{"command":"ls"}`, `{}`},
			map[string]string{`{"command":"ls","x":1}`: `: unknown property "x"`}},
		{"no properties declared", `{"type":"object","properties":{}}`,
			[]string{`{}`}, map[string]string{`{"x":1}`: `: unknown property "x"`}},
		{"case variant", `{"type":"object","properties":{"command":{"type":"string"}},"additionalProperties":true}`,
			[]string{`{"command":"ls","other":1}`},
			map[string]string{`{"Command":"touch x"}`: `: unknown property "Command" (property names are case-sensitive: "command")`}},
		{"nested closed", `{"properties":{"edits":{"type":"array","items":{"properties":{"a":{}}}}}}`,
			[]string{`{"edits":[{"a":1}]}`},
			map[string]string{`{"edits":[{"a":1,"b":2}]}`: `/edits/0: unknown property "b"`}},
		{"open where it says so", `{"properties":{"a":{}},"additionalProperties":{"type":"integer"}}`,
			[]string{`{"a":"x","b":1}`}, map[string]string{`{"b":"x"}`: `/b: expected integer, got string`}},
		{"pattern properties", `{"properties":{"a":{}},"patternProperties":{"^x-":{}}}`,
			[]string{`{"x-y":1}`}, nil},
		{"allOf members are partial", `{"allOf":[{"properties":{"a":{}}},{"properties":{"b":{}}}]}`,
			[]string{`{"a":1,"b":2}`}, map[string]string{`{"A":1}`: `: unknown property "A" (property names are case-sensitive: "a")`}},
		{"ref beside properties", `{"$defs":{"base":{"properties":{"a":{}}}},"$ref":"#/$defs/base","properties":{"b":{}}}`,
			[]string{`{"a":1,"b":2}`}, nil},
		{"ref alone", `{"$defs":{"base":{"properties":{"a":{}}}},"properties":{"p":{"$ref":"#/$defs/base"}}}`,
			[]string{`{"p":{"a":1}}`}, map[string]string{`{"p":{"z":1}}`: `/p: unknown property "z"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := CompileArgs(mustDecode(t, tc.schema))
			require.NoError(t, err)
			for _, v := range tc.valid {
				assert.NoError(t, s.Validate(mustDecode(t, v)), v)
			}
			for v, want := range tc.invalid {
				var ve *ValidationError
				require.ErrorAs(t, s.Validate(mustDecode(t, v)), &ve, v)
				first := ve.Violations[0]
				assert.Equal(t, want, Pointer(first.Path)+": "+first.Msg, v)
			}
		})
	}
}
