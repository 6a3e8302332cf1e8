package agent

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const editLikeSchema = `{
	"type": "object",
	"properties": {
		"path": {"type": "string"},
		"edits": {
			"type": "array",
			"minItems": 1,
			"items": {
				"type": "object",
				"properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}},
				"required": ["oldText", "newText"],
				"additionalProperties": false
			}
		},
		"limit": {"type": "integer", "minimum": 1}
	},
	"required": ["path", "edits"],
	"additionalProperties": false
}`

func TestValidate(t *testing.T) {
	v, err := CompileSchema("edit", json.RawMessage(editLikeSchema))
	require.NoError(t, err)

	tests := []struct {
		name    string
		args    string
		wantErr string // "" = valid
	}{
		{"valid", `{"path":"a","edits":[{"oldText":"x","newText":"y"}]}`, ""},
		{"valid integer as float", `{"path":"a","edits":[{"oldText":"x","newText":"y"}],"limit":2.0}`, ""},
		{"missing nested", `{"path":"a","edits":[{"oldText":"x"}]}`,
			`invalid arguments for tool "edit": /edits/0: missing property "newText"`},
		{"missing top level", `{"edits":[{"oldText":"x","newText":"y"}]}`,
			`invalid arguments for tool "edit": missing property "path"`},
		{"missing several", `{}`,
			`invalid arguments for tool "edit": missing properties "path", "edits"`},
		{"empty args count as {}", ``,
			`invalid arguments for tool "edit": missing properties "path", "edits"`},
		{"wrong type", `{"path":3,"edits":[{"oldText":"x","newText":"y"}]}`,
			`invalid arguments for tool "edit": /path: expected string, got number`},
		{"edits as string", `{"path":"a","edits":"[]"}`,
			`invalid arguments for tool "edit": /edits: expected array, got string`},
		{"extra property", `{"path":"a","edits":[{"oldText":"x","newText":"y"}],"junk":1}`,
			`invalid arguments for tool "edit": unknown property "junk"`},
		{"extra nested property", `{"path":"a","edits":[{"oldText":"x","newText":"y","z":1}]}`,
			`invalid arguments for tool "edit": /edits/0: unknown property "z"`},
		{"min items", `{"path":"a","edits":[]}`,
			`invalid arguments for tool "edit": /edits: must have at least 1 item(s), got 0`},
		{"minimum", `{"path":"a","edits":[{"oldText":"x","newText":"y"}],"limit":0}`,
			`invalid arguments for tool "edit": /limit: must be >= 1, got 0`},
		{"two violations", `{"path":1,"edits":[{"oldText":2,"newText":"y"}]}`,
			`invalid arguments for tool "edit": /edits/0/oldText: expected string, got number; /path: expected string, got number`},
		{"not an object", `[1,2]`,
			`invalid arguments for tool "edit": expected object, got array`},
		{"invalid JSON", `{"path":`,
			`invalid arguments for tool "edit": not valid JSON (unexpected EOF); arguments must be a JSON object`},
		{"trailing garbage", `{"path":"a"} x`,
			`invalid arguments for tool "edit": not valid JSON (invalid character after top-level value); arguments must be a JSON object`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := v.Validate(json.RawMessage(tc.args))
			if tc.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.wantErr, err.Error())
		})
	}
}

func TestValidateCapsViolations(t *testing.T) {
	v, err := CompileSchema("many", json.RawMessage(`{"type":"object","properties":{
		"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"},
		"d":{"type":"string"},"e":{"type":"string"},"f":{"type":"string"}}}`))
	require.NoError(t, err)
	err = v.Validate(json.RawMessage(`{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "; and 2 more")
}

func TestCompileSchema(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		wantErr string
	}{
		{"empty accepts anything", ``, ""},
		{"draft-07 declared", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, ""},
		{"internal ref", `{"type":"object","$defs":{"s":{"type":"string"}},"properties":{"p":{"$ref":"#/$defs/s"}}}`, ""},
		{"not JSON", `{"type":`, `tool "t": parameters schema is not valid JSON`},
		{"invalid schema", `{"type":"nonsense"}`, `tool "t": invalid parameters schema`},
		{"external ref refused", `{"$ref":"https://example.com/s.json"}`, `external schema https://example.com/s.json not allowed`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := CompileSchema("t", json.RawMessage(tc.schema))
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.NoError(t, v.Validate(json.RawMessage(`{"p":"x"}`)))
		})
	}
}

func TestValidateNoSchemaStillRejectsBadJSON(t *testing.T) {
	v, err := CompileSchema("free", nil)
	require.NoError(t, err)
	assert.NoError(t, v.Validate(json.RawMessage(`{"anything":[1,2]}`)))
	assert.ErrorContains(t, v.Validate(json.RawMessage(`{bad`)), `invalid arguments for tool "free": not valid JSON`)
}

func TestValidateConcurrent(t *testing.T) {
	v, err := CompileSchema("edit", json.RawMessage(editLikeSchema))
	require.NoError(t, err)
	done := make(chan error, 8)
	for range 8 {
		go func() {
			var err error
			for range 200 {
				if err = v.Validate(json.RawMessage(`{"path":"a","edits":[{"oldText":"x","newText":"y"}]}`)); err != nil {
					break
				}
			}
			done <- err
		}()
	}
	for range 8 {
		assert.NoError(t, <-done)
	}
}

func BenchmarkValidate(b *testing.B) {
	v, err := CompileSchema("edit", json.RawMessage(editLikeSchema))
	require.NoError(b, err)
	args := json.RawMessage(`{"path":"agent/loop.go","edits":[{"oldText":"func (a *Agent) tool(name string) *Tool {\n\tfor _, t := range a.Tools {","newText":"func (a *Agent) tool(name string) *Tool {\n\tfor _, t := range a.tools() {"},{"oldText":"return nil\n}","newText":"return nil // not found\n}"}]}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Validate(args); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateInvalid(b *testing.B) {
	v, err := CompileSchema("edit", json.RawMessage(editLikeSchema))
	require.NoError(b, err)
	args := json.RawMessage(`{"path":"a","edits":[{"oldText":"x"}]}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Validate(args); err == nil {
			b.Fatal("want error")
		}
	}
}
