// Package jsonschema validates JSON values against the JSON Schemas of
// tool parameters: drafts 2020-12 (the default), 2019-09, 7, 6 and 4, with
// every assertion keyword except those that need annotation tracking
// across subschemas (unevaluatedProperties, unevaluatedItems) or dynamic
// scopes ($dynamicRef, $recursiveRef), which are refused when compiling
// rather than ignored. "format" is an annotation, as 2020-12 says by
// default. References resolve only inside the schema document: a tool
// schema never reaches the disk or the network.
//
// It replaces a general-purpose library whose package initialisation
// compiled every draft's metaschema in every lunar process (about a third
// of lunar's start-up time), for schemas that lunar compiles a handful
// of. google/jsonschema-go (cheap to initialise) was tried as its
// replacement and does not fit: it reports one violation, chosen by map
// order, at a schema path rather than the argument's (no array index, no
// unknown property's name), so the messages a model acts on could not be
// built; it does not check schemas themselves; and it reads json.Number
// values as strings. The differential test against the former library
// (TestAgreesWithReferenceValidator) keeps this package honest.
package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Decode parses one JSON value the way Compile and Validate expect it:
// numbers as json.Number, nothing after the value.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid character after top-level value")
	}
	return v, nil
}

// Problem is one thing wrong with a schema, at Path (the keys from the
// schema's root to the offending value).
type Problem struct {
	Path []string
	Msg  string
}

// SchemaError lists what is wrong with a schema, sorted by path.
type SchemaError struct{ Problems []Problem }

func (e *SchemaError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = strings.Join(append([]string{"#"}, p.Path...), "/") + ": " + p.Msg
	}
	return strings.Join(parts, "; ")
}

// Schema is a compiled schema; safe for concurrent use.
type Schema struct{ root *node }

type draft int

const (
	draft4 draft = iota
	draft6
	draft7
	draft2019
	draft2020
)

var drafts = map[string]draft{
	"json-schema.org/draft-04/schema":      draft4,
	"json-schema.org/draft-06/schema":      draft6,
	"json-schema.org/draft-07/schema":      draft7,
	"json-schema.org/draft/2019-09/schema": draft2019,
	"json-schema.org/draft/2020-12/schema": draft2020,
	"json-schema.org/schema":               draft2020,
}

// node is one compiled (sub)schema.
type node struct {
	always *bool // a boolean schema

	types    []string
	enum     []any
	hasConst bool
	constVal any

	minimum, maximum, exclMin, exclMax, multipleOf *big.Rat

	minLength, maxLength, minItems, maxItems, minProps, maxProps, minContains, maxContains int // -1: absent
	pattern                                                                                *regexp.Regexp
	uniqueItems                                                                            bool

	properties     map[string]*node
	patternProps   []patternProp
	additional     *node
	required       []string
	propertyNames  *node
	depRequired    map[string][]string
	depSchemas     map[string]*node
	prefixItems    []*node
	items          *node // every item after prefixItems
	contains       *node
	allOf, anyOf   []*node
	oneOf          []*node
	not            *node
	ifN, then, els *node
	ref            *node

	// Set by CompileArgs only.
	closed   bool // properties other than the declared ones are unknown
	caseKeys bool // a key that differs from a declared property only by case is unknown
	partial  bool // combined with other subschemas (allOf, if, …): the declared properties may not be all
}

type patternProp struct {
	re *regexp.Regexp
	n  *node
}

// compiler compiles one document.
type compiler struct {
	strict   bool // CompileArgs
	doc      any
	draft    draft
	byPtr    map[string]*node // compiled subschemas by JSON pointer
	anchors  map[string]string
	problems []Problem
}

// Compile compiles a schema document (as Decode returns it).
func Compile(doc any) (*Schema, error) {
	return compileDoc(doc, false)
}

// CompileArgs compiles the schema of a tool's arguments, which a tool
// decodes into Go structs (encoding/json matches field names without
// regard to case) and a policy reads as tables (exact names). So that
// both read the same value, the schema is stricter than JSON Schema:
//
//   - a key that differs from a declared property only by case ("Command"
//     beside "command", as strings.EqualFold compares) is unknown, even
//     where additional properties are allowed;
//   - an object schema that declares "properties" and neither
//     "additionalProperties" nor "patternProperties" is closed (as if
//     "additionalProperties": false), unless it is combined with other
//     subschemas ($ref beside properties, allOf, anyOf, oneOf, if/then/
//     else, not, dependentSchemas, or it is one of their members), where
//     the declared properties need not be all.
func CompileArgs(doc any) (*Schema, error) {
	return compileDoc(doc, true)
}

func compileDoc(doc any, strict bool) (*Schema, error) {
	c := &compiler{strict: strict, doc: doc, draft: draft2020, byPtr: map[string]*node{}, anchors: map[string]string{}}
	if m, ok := doc.(map[string]any); ok {
		if s, ok := m["$schema"]; ok {
			str, _ := s.(string)
			u := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(str, "https://"), "http://"), "#")
			d, known := drafts[u]
			if !known {
				return nil, &SchemaError{[]Problem{{[]string{"$schema"}, fmt.Sprintf("unknown draft %q (lunar knows drafts 4, 6, 7, 2019-09 and 2020-12)", str)}}}
			}
			c.draft = d
		}
	}
	c.collectAnchors(doc, nil)
	root := c.compile(doc, nil)
	if strict {
		for _, n := range c.byPtr {
			n.caseKeys = len(n.properties) > 0
			n.closed = n.properties != nil && n.additional == nil && n.patternProps == nil && !n.partial && !n.combined()
		}
	}
	if len(c.problems) > 0 {
		slices.SortStableFunc(c.problems, func(a, b Problem) int { return slices.Compare(a.Path, b.Path) })
		return nil, &SchemaError{c.problems}
	}
	return &Schema{root: root}, nil
}

func (c *compiler) fail(path []string, format string, args ...any) {
	c.problems = append(c.problems, Problem{slices.Clone(path), fmt.Sprintf(format, args...)})
}

// collectAnchors records "$anchor" (and draft 6/7 "$id": "#name") targets.
func (c *compiler) collectAnchors(v any, path []string) {
	switch v := v.(type) {
	case map[string]any:
		for _, key := range []string{"$anchor", "$id"} {
			if a, ok := v[key].(string); ok {
				if key == "$id" {
					var found bool
					if a, found = strings.CutPrefix(a, "#"); !found || a == "" {
						continue
					}
				}
				c.anchors[a] = pointer(path)
			}
		}
		for _, k := range sortedKeys(v) {
			switch k {
			case "enum", "const", "examples", "default":
				continue // data, not schemas
			}
			c.collectAnchors(v[k], append(path, k))
		}
	case []any:
		for i, e := range v {
			c.collectAnchors(e, append(path, strconv.Itoa(i)))
		}
	}
}

// compile compiles the schema v found at path.
func (c *compiler) compile(v any, path []string) *node {
	ptr := pointer(path)
	if n, ok := c.byPtr[ptr]; ok {
		return n
	}
	n := &node{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1, minContains: -1, maxContains: -1}
	c.byPtr[ptr] = n
	switch v := v.(type) {
	case bool:
		n.always = &v
		return n
	case map[string]any:
		c.compileObject(n, v, path)
	default:
		c.fail(path, "a schema must be an object or a boolean, got %s", typeOf(v))
	}
	return n
}

func (c *compiler) compileObject(n *node, m map[string]any, path []string) {
	at := func(k string) []string { return append(slices.Clip(path), k) }
	sub := func(k string) *node {
		v, ok := m[k]
		if !ok {
			return nil
		}
		return c.compile(v, at(k))
	}
	schemaMap := func(k string) map[string]*node {
		v, ok := m[k]
		if !ok {
			return nil
		}
		obj, ok := v.(map[string]any)
		if !ok {
			c.fail(at(k), "must be an object, got %s", typeOf(v))
			return nil
		}
		out := map[string]*node{}
		for _, name := range sortedKeys(obj) {
			out[name] = c.compile(obj[name], append(at(k), name))
		}
		return out
	}
	schemaList := func(k string) []*node {
		v, ok := m[k]
		if !ok {
			return nil
		}
		arr, ok := v.([]any)
		if !ok || len(arr) == 0 {
			c.fail(at(k), "must be a non-empty array of schemas, got %s", typeOf(v))
			return nil
		}
		out := make([]*node, len(arr))
		for i, e := range arr {
			out[i] = c.compile(e, append(at(k), strconv.Itoa(i)))
		}
		return out
	}
	count := func(k string) int {
		v, ok := m[k]
		if !ok {
			return -1
		}
		r, ok := number(v)
		if !ok || !r.IsInt() || r.Sign() < 0 {
			c.fail(at(k), "must be a non-negative integer, got %s", describe(v))
			return -1
		}
		return int(r.Num().Int64())
	}
	num := func(k string) *big.Rat {
		v, ok := m[k]
		if !ok {
			return nil
		}
		r, ok := number(v)
		if !ok {
			if _, isBool := v.(bool); isBool && c.draft == draft4 && (k == "exclusiveMinimum" || k == "exclusiveMaximum") {
				return nil // draft 4's boolean form, read with minimum/maximum
			}
			c.fail(at(k), "must be a number, got %s", typeOf(v))
			return nil
		}
		return r
	}
	strList := func(k string, v any) []string {
		arr, ok := v.([]any)
		if !ok {
			c.fail(at(k), "must be an array of strings, got %s", typeOf(v))
			return nil
		}
		out := make([]string, 0, len(arr))
		for i, e := range arr {
			s, ok := e.(string)
			if !ok {
				c.fail(append(at(k), strconv.Itoa(i)), "must be a string, got %s", typeOf(e))
				continue
			}
			if slices.Contains(out, s) {
				c.fail(append(at(k), strconv.Itoa(i)), "duplicate %q", s)
				continue
			}
			out = append(out, s)
		}
		return out
	}
	regex := func(p []string, v any) *regexp.Regexp {
		s, ok := v.(string)
		if !ok {
			c.fail(p, "must be a string (a regular expression), got %s", typeOf(v))
			return nil
		}
		re, err := regexp.Compile(s)
		if err != nil {
			c.fail(p, "invalid regular expression: %v", err)
			return nil
		}
		return re
	}

	for _, k := range []string{"unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "$recursiveRef"} {
		if _, ok := m[k]; ok {
			c.fail(at(k), "%s is not supported in tool schemas", k)
		}
	}
	if ref, ok := m["$ref"]; ok {
		n.ref = c.resolve(ref, at("$ref"))
		if c.draft <= draft7 {
			return // before 2019-09, keywords beside $ref are ignored
		}
	}
	defer func() {
		if n.ref != nil && n.combined() {
			n.ref.partial = true
		}
		for _, list := range [][]*node{n.allOf, n.anyOf, n.oneOf, {n.not, n.ifN, n.then, n.els}} {
			for _, m := range list {
				if m != nil {
					m.partial = true
				}
			}
		}
		for _, m := range n.depSchemas {
			m.partial = true
		}
	}()

	if t, ok := m["type"]; ok {
		names := []any{t}
		if arr, isArr := t.([]any); isArr {
			names = arr
		}
		for i, name := range names {
			p := at("type")
			if _, isArr := t.([]any); isArr {
				p = append(p, strconv.Itoa(i))
			}
			s, _ := name.(string)
			if !slices.Contains(typeNames, s) {
				c.fail(p, "must be one of %s, got %s", quoteAll(typeNames), describe(name))
				continue
			}
			n.types = append(n.types, s)
		}
	}
	if e, ok := m["enum"]; ok {
		if arr, isArr := e.([]any); isArr {
			n.enum = arr
		} else {
			c.fail(at("enum"), "must be an array, got %s", typeOf(e))
		}
	}
	if cv, ok := m["const"]; ok && c.draft >= draft6 {
		n.hasConst, n.constVal = true, cv
	}

	n.minimum, n.maximum = num("minimum"), num("maximum")
	n.exclMin, n.exclMax = num("exclusiveMinimum"), num("exclusiveMaximum")
	if c.draft == draft4 {
		if b, _ := m["exclusiveMinimum"].(bool); b {
			n.exclMin, n.minimum = n.minimum, nil
		}
		if b, _ := m["exclusiveMaximum"].(bool); b {
			n.exclMax, n.maximum = n.maximum, nil
		}
	}
	if n.multipleOf = num("multipleOf"); n.multipleOf != nil && n.multipleOf.Sign() <= 0 {
		c.fail(at("multipleOf"), "must be greater than 0")
		n.multipleOf = nil
	}

	n.minLength, n.maxLength = count("minLength"), count("maxLength")
	if p, ok := m["pattern"]; ok {
		n.pattern = regex(at("pattern"), p)
	}

	n.minItems, n.maxItems = count("minItems"), count("maxItems")
	if u, ok := m["uniqueItems"]; ok {
		b, isBool := u.(bool)
		if !isBool {
			c.fail(at("uniqueItems"), "must be a boolean, got %s", typeOf(u))
		}
		n.uniqueItems = b
	}
	if c.draft >= draft2020 {
		n.prefixItems = schemaList("prefixItems")
		n.items = sub("items")
	} else if items, ok := m["items"]; ok {
		if _, isArr := items.([]any); isArr {
			n.prefixItems = schemaList("items")
			n.items = sub("additionalItems")
		} else {
			n.items = sub("items")
		}
	}
	n.contains = sub("contains")
	n.minContains, n.maxContains = count("minContains"), count("maxContains")

	n.minProps, n.maxProps = count("minProperties"), count("maxProperties")
	if r, ok := m["required"]; ok {
		n.required = strList("required", r)
	}
	n.properties = schemaMap("properties")
	if pp, ok := m["patternProperties"]; ok {
		if obj, isObj := pp.(map[string]any); isObj {
			for _, k := range sortedKeys(obj) {
				p := append(at("patternProperties"), k)
				if re := regex(p, k); re != nil {
					n.patternProps = append(n.patternProps, patternProp{re, c.compile(obj[k], p)})
				}
			}
		} else {
			c.fail(at("patternProperties"), "must be an object, got %s", typeOf(pp))
		}
	}
	n.additional = sub("additionalProperties")
	n.propertyNames = sub("propertyNames")
	if dr, ok := m["dependentRequired"]; ok {
		n.depRequired = c.depRequired(dr, at("dependentRequired"), strList)
	}
	n.depSchemas = schemaMap("dependentSchemas")
	if deps, ok := m["dependencies"]; ok {
		if obj, isObj := deps.(map[string]any); isObj {
			for _, k := range sortedKeys(obj) {
				p := append(at("dependencies"), k)
				if _, isArr := obj[k].([]any); isArr {
					if n.depRequired == nil {
						n.depRequired = map[string][]string{}
					}
					n.depRequired[k] = strList("dependencies", obj[k])
					continue
				}
				if n.depSchemas == nil {
					n.depSchemas = map[string]*node{}
				}
				n.depSchemas[k] = c.compile(obj[k], p)
			}
		} else {
			c.fail(at("dependencies"), "must be an object, got %s", typeOf(deps))
		}
	}

	n.allOf, n.anyOf, n.oneOf = schemaList("allOf"), schemaList("anyOf"), schemaList("oneOf")
	n.not = sub("not")
	if c.draft >= draft7 {
		n.ifN, n.then, n.els = sub("if"), sub("then"), sub("else")
	}
	// Subschemas that are only reachable by $ref are compiled when
	// referenced; compile the containers anyway so that their errors show.
	for _, k := range []string{"$defs", "definitions"} {
		schemaMap(k)
	}
	for _, k := range []string{"$id", "$anchor", "$comment", "title", "description", "format", "contentEncoding", "contentMediaType"} {
		if v, ok := m[k]; ok {
			if _, isStr := v.(string); !isStr {
				c.fail(at(k), "must be a string, got %s", typeOf(v))
			}
		}
	}
}

// combined reports whether n's object keywords combine with other
// subschemas', so that its own "properties" need not be all there are.
func (n *node) combined() bool {
	return n.allOf != nil || n.anyOf != nil || n.oneOf != nil || n.not != nil || n.ifN != nil ||
		n.depSchemas != nil || (n.ref != nil && (n.properties != nil || n.additional != nil || n.patternProps != nil))
}

func (c *compiler) depRequired(v any, path []string, strList func(string, any) []string) map[string][]string {
	obj, ok := v.(map[string]any)
	if !ok {
		c.fail(path, "must be an object, got %s", typeOf(v))
		return nil
	}
	out := map[string][]string{}
	for _, k := range sortedKeys(obj) {
		out[k] = strList("dependentRequired", obj[k])
	}
	return out
}

// resolve compiles the target of a "$ref" inside the document.
func (c *compiler) resolve(ref any, path []string) *node {
	s, ok := ref.(string)
	if !ok {
		c.fail(path, "must be a string, got %s", typeOf(ref))
		return nil
	}
	frag, local := strings.CutPrefix(s, "#")
	if !local {
		c.fail(path, "external schema %s not allowed: tool schemas must be self-contained", s)
		return nil
	}
	ptr := frag
	if frag != "" && !strings.HasPrefix(frag, "/") {
		if ptr, ok = c.anchors[frag]; !ok {
			c.fail(path, "no anchor %q in the schema", frag)
			return nil
		}
	}
	target, tokens, err := lookup(c.doc, ptr)
	if err != nil {
		c.fail(path, "%s: %v", s, err)
		return nil
	}
	return c.compile(target, tokens)
}

// lookup follows an RFC 6901 pointer (possibly percent-encoded) in doc.
func lookup(doc any, ptr string) (any, []string, error) {
	if ptr == "" {
		return doc, nil, nil
	}
	var tokens []string
	v := doc
	for _, raw := range strings.Split(ptr[1:], "/") {
		tok := strings.ReplaceAll(strings.ReplaceAll(unescapePercent(raw), "~1", "/"), "~0", "~")
		tokens = append(tokens, tok)
		switch cur := v.(type) {
		case map[string]any:
			next, ok := cur[tok]
			if !ok {
				return nil, nil, fmt.Errorf("no %q in the schema", tok)
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur) {
				return nil, nil, fmt.Errorf("no item %q in the schema", tok)
			}
			v = cur[i]
		default:
			return nil, nil, fmt.Errorf("no %q in the schema", tok)
		}
	}
	return v, tokens, nil
}

func unescapePercent(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if x, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(x))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

var typeNames = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

func pointer(path []string) string {
	var b strings.Builder
	for _, t := range path {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// number reads a JSON number (json.Number from Decode, or a float64).
func number(v any) (*big.Rat, bool) {
	switch v := v.(type) {
	case json.Number:
		return new(big.Rat).SetString(string(v))
	case float64:
		r := new(big.Rat)
		if r.SetFloat64(v) == nil {
			return nil, false
		}
		return r, true
	}
	return nil, false
}

// typeOf is the JSON type of a decoded value ("number" for every number).
func typeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// describe renders a value in a message: strings quoted, others as JSON.
func describe(v any) string {
	if _, ok := v.(string); ok {
		return strconv.Quote(v.(string))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return typeOf(v)
	}
	if len(b) > 40 {
		return typeOf(v)
	}
	return string(b)
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}
