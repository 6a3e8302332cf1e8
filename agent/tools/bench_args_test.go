package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/agent/jsonschema"
)

// BenchmarkArgsDecode is the loop's work on a call's arguments before the
// hooks and the tool see them (Validator.Validate: the strict parse, the
// schema, the canonical text), for typical calls and a 100 KB write.
// "lenient" is the work before, for comparison in the same run.
func BenchmarkArgsDecode(b *testing.B) {
	content, _ := json.Marshal(strings.Repeat("some line of a file with \"quotes\" and\ttabs\n", 2400))
	for _, bc := range []struct{ name, tool, args string }{
		{"bash", "bash", `{"command":"go test ./... 2>&1 | tail -n 40","timeout":120}`},
		{"edit", "edit", `{"path":"agent/loop.go","edits":[{"oldText":"func (r *run) execute(","newText":"func (r *run) run("},{"oldText":"a := 1","newText":"a := 2"}]}`},
		{"write 100KB", "write", `{"path":"big.txt","content":` + string(content) + `}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			tl := builtin(b, bc.tool, b.TempDir())
			v, err := agent.CompileSchema(tl.Name, tl.Parameters)
			if err != nil {
				b.Fatal(err)
			}
			args := json.RawMessage(bc.args)
			b.Run("strict", func(b *testing.B) {
				b.SetBytes(int64(len(args)))
				b.ReportAllocs()
				for b.Loop() {
					if err := v.Validate(args); err != nil {
						b.Fatal(err)
					}
				}
			})
			// What the loop did before: check the syntax, decode leniently
			// (duplicate keys: the last wins), validate, hand on the bytes.
			doc, _ := jsonschema.Decode(tl.Parameters)
			lenient, err := jsonschema.Compile(doc)
			if err != nil {
				b.Fatal(err)
			}
			b.Run("lenient", func(b *testing.B) {
				b.SetBytes(int64(len(args)))
				b.ReportAllocs()
				for b.Loop() {
					if !json.Valid(args) {
						b.Fatal("invalid")
					}
					v, err := jsonschema.Decode(args)
					if err == nil {
						err = lenient.Validate(v)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
