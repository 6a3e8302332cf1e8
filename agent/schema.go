// This file validates tool-call arguments against the tool's JSON schema
// before the tool runs, and turns schema violations into short messages a
// model can act on.

package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// maxReportedViolations bounds how many schema violations one error lists:
// the model needs the first few to fix its call, not an essay.
const maxReportedViolations = 4

var schemaPrinter = message.NewPrinter(language.English)

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
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("tool %q: parameters schema is not valid JSON: %w", name, err)
	}
	loc := "lunar-tool:///" + url.PathEscape(name) + ".json"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("tool %q: parameters schema: %w", name, err)
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("tool %q: invalid parameters schema: %w", name, err)
	}
	v.schema = sch
	return v, nil
}

// Validate checks args, the raw JSON arguments of one call. Empty args
// count as {} (some providers send nothing for a call without arguments).
// The error is meant for the model: it names the tool and each offending
// field, e.g.
//
//	invalid arguments for tool "edit": /edits/0: missing property "newText"
func (v *Validator) Validate(args json.RawMessage) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Errorf("invalid arguments for tool %q: not valid JSON (%v); arguments must be a JSON object", v.tool, err)
	}
	if v.schema == nil {
		return nil
	}
	err = v.schema.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("invalid arguments for tool %q: %w", v.tool, err)
	}
	return fmt.Errorf("invalid arguments for tool %q: %s", v.tool, describeViolations(ve))
}

// describeViolations lists the leaf causes of a validation error (the
// specific failures under "allOf failed"-style wrappers), each prefixed by
// the JSON pointer of the offending value, joined by "; ".
func describeViolations(ve *jsonschema.ValidationError) string {
	type found struct{ loc, msg string }
	var all []found
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		msg := violation(e.ErrorKind)
		loc := ""
		if len(e.InstanceLocation) > 0 {
			loc = jsonPointer(e.InstanceLocation)
			msg = loc + ": " + msg
		}
		if !seen[msg] {
			seen[msg] = true
			all = append(all, found{loc, msg})
		}
	}
	walk(ve)
	// The library reports properties in map order: sort by location so
	// the same arguments always give the same message.
	sort.SliceStable(all, func(i, j int) bool { return all[i].loc < all[j].loc })
	msgs := make([]string, len(all))
	for i, f := range all {
		msgs[i] = f.msg
	}
	if len(msgs) > maxReportedViolations {
		more := len(msgs) - maxReportedViolations
		msgs = append(msgs[:maxReportedViolations], fmt.Sprintf("and %d more", more))
	}
	return strings.Join(msgs, "; ")
}

// violation phrases the common failures with double-quoted names (what a
// model writes in JSON); the rest use the library's wording.
func violation(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Required:
		if len(k.Missing) == 1 {
			return fmt.Sprintf("missing property %q", k.Missing[0])
		}
		return "missing properties " + quoteAll(k.Missing)
	case *kind.AdditionalProperties:
		if len(k.Properties) == 1 {
			return fmt.Sprintf("unknown property %q", k.Properties[0])
		}
		return "unknown properties " + quoteAll(k.Properties)
	case *kind.Type:
		return fmt.Sprintf("expected %s, got %s", strings.Join(k.Want, " or "), k.Got)
	case *kind.Minimum:
		return "must be >= " + ratString(k.Want) + ", got " + ratString(k.Got)
	case *kind.Maximum:
		return "must be <= " + ratString(k.Want) + ", got " + ratString(k.Got)
	case *kind.ExclusiveMinimum:
		return "must be > " + ratString(k.Want) + ", got " + ratString(k.Got)
	case *kind.ExclusiveMaximum:
		return "must be < " + ratString(k.Want) + ", got " + ratString(k.Got)
	case *kind.MinItems:
		return fmt.Sprintf("must have at least %d item(s), got %d", k.Want, k.Got)
	case *kind.MaxItems:
		return fmt.Sprintf("must have at most %d item(s), got %d", k.Want, k.Got)
	case *kind.MinLength:
		return fmt.Sprintf("must be at least %d character(s) long, got %d", k.Want, k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %d character(s) long, got %d", k.Want, k.Got)
	case *kind.FalseSchema:
		return "not allowed"
	}
	return k.LocalizedString(schemaPrinter)
}

func ratString(r *big.Rat) string {
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// jsonPointer renders an instance location as an RFC 6901 pointer.
func jsonPointer(tokens []string) string {
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		sb.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return sb.String()
}

// noLoader refuses every external schema: tool schemas must be
// self-contained, and validation must never touch the disk or network.
type noLoader struct{}

func (noLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("external schema %s not allowed: tool schemas must be self-contained", u)
}
