// This file validates tool-call arguments against the tool's JSON schema
// before the tool runs (strictly: args.go, jsonschema.CompileArgs), and
// turns schema violations into short messages a model can act on.

package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/lunar-cli/lunar/agent/jsonschema"
)

// maxReportedViolations bounds how many schema violations one error lists:
// the model needs the first few to fix its call, not an essay.
const maxReportedViolations = 4

// Validator checks the arguments of calls to one tool against the tool's
// JSON schema. It is compiled once per tool and safe for concurrent use.
type Validator struct {
	tool   string
	schema *jsonschema.Schema // nil: the tool declared no schema, any object is accepted
}

// CompileSchema compiles the JSON schema of the tool called name. An empty
// schema accepts any arguments. Schemas are self-contained: a "$ref" to
// anything outside the schema document is an error, never a download.
func CompileSchema(name string, schema json.RawMessage) (*Validator, error) {
	v := &Validator{tool: name}
	if len(bytes.TrimSpace(schema)) == 0 {
		return v, nil
	}
	doc, err := jsonschema.Decode(schema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: parameters schema is not valid JSON: %w", name, err)
	}
	sch, err := jsonschema.CompileArgs(doc)
	if err != nil {
		var se *jsonschema.SchemaError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("tool %q: invalid parameters schema: %s", name, describeSchemaProblem(se))
		}
		return nil, fmt.Errorf("tool %q: invalid parameters schema: %w", name, err)
	}
	v.schema = sch
	return v, nil
}

// Validate checks args, the raw JSON arguments of one call, as Decode.
func (v *Validator) Validate(args json.RawMessage) error {
	_, err := v.Decode(args)
	return err
}

// Decode checks args, the raw JSON arguments of one call, and returns
// them as the canonical text that the hooks and the tool are given, so
// that both read the same value: a JSON object in which no key appears
// twice or differs only by case from another key or from a property the
// schema declares, valid against the schema (whose objects are closed:
// jsonschema.CompileArgs). Empty args count as {} (some providers send
// nothing for a call without arguments). The error is meant for the
// model: it names the tool and each offending field, e.g.
//
//	invalid arguments for tool "edit": /edits/0: missing property "newText"
func (v *Validator) Decode(args json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	doc, canon, err := parseArgs(args)
	if err != nil {
		return nil, fmt.Errorf("invalid arguments for tool %q: %v", v.tool, err)
	}
	if v.schema == nil {
		return canon, nil
	}
	err = v.schema.Validate(doc)
	if err == nil {
		return canon, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, fmt.Errorf("invalid arguments for tool %q: %w", v.tool, err)
	}
	return nil, fmt.Errorf("invalid arguments for tool %q: %s", v.tool, describeViolations(ve))
}

// describeViolations lists the violations, each prefixed by the JSON
// pointer of the offending value, sorted by it (the order found within a
// place), without repeats, joined by "; ".
func describeViolations(ve *jsonschema.ValidationError) string {
	type found struct{ loc, msg string }
	var all []found
	seen := map[string]bool{}
	for _, e := range ve.Violations {
		loc := jsonschema.Pointer(e.Path)
		msg := e.Msg
		if loc != "" {
			msg = loc + ": " + msg
		}
		if !seen[msg] {
			seen[msg] = true
			all = append(all, found{loc, msg})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].loc < all[j].loc })
	msgs := make([]string, len(all))
	for i, f := range all {
		msgs[i] = f.msg
	}
	return capList(msgs)
}

// describeSchemaProblem says where a schema is wrong, one problem per
// place, each place named as the Lua table path of the tool's parameters,
// e.g. parameters.properties.n.type.
func describeSchemaProblem(se *jsonschema.SchemaError) string {
	var out []string
	seen := map[string]bool{}
	for _, p := range se.Problems {
		place := strings.Join(append([]string{"parameters"}, p.Path...), ".")
		if !seen[place] {
			seen[place] = true
			out = append(out, place+": "+p.Msg)
		}
	}
	return capList(out)
}

// capList joins at most maxReportedViolations messages with "; ", saying
// how many more there are.
func capList(msgs []string) string {
	if len(msgs) > maxReportedViolations {
		more := len(msgs) - maxReportedViolations
		msgs = append(msgs[:maxReportedViolations], fmt.Sprintf("and %d more", more))
	}
	return strings.Join(msgs, "; ")
}
