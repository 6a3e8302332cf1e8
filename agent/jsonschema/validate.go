package jsonschema

// This file checks a value against a compiled schema and phrases each
// failure for a model: what is wrong, with double-quoted names, at the
// JSON pointer of the offending value.

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Violation is one failure, at Path (the keys and indexes from the
// value's root to the offending value).
type Violation struct {
	Path []string
	Msg  string
}

// ValidationError lists the failures of a value, in the order found.
type ValidationError struct{ Violations []Violation }

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = Pointer(v.Path) + ": " + v.Msg
	}
	return strings.Join(parts, "; ")
}

// Pointer renders a path as an RFC 6901 JSON pointer ("" for the root).
func Pointer(path []string) string { return pointer(path) }

// Validate checks v (as Decode returns it) against the schema.
func (s *Schema) Validate(v any) error {
	var out []Violation
	validate(s.root, v, nil, &out)
	if len(out) == 0 {
		return nil
	}
	return &ValidationError{out}
}

// valid reports whether v passes n, without phrasing anything.
func valid(n *node, v any) bool {
	var out []Violation
	validate(n, v, nil, &out)
	return len(out) == 0
}

func validate(n *node, v any, path []string, out *[]Violation) {
	if n == nil {
		return
	}
	fail := func(format string, args ...any) {
		*out = append(*out, Violation{slices.Clone(path), fmt.Sprintf(format, args...)})
	}
	if n.always != nil {
		if !*n.always {
			fail("not allowed")
		}
		return
	}
	if n.ref != nil {
		validate(n.ref, v, path, out)
	}
	if len(n.types) > 0 && !slices.ContainsFunc(n.types, func(t string) bool { return hasType(v, t) }) {
		fail("expected %s, got %s", strings.Join(n.types, " or "), typeOf(v))
		return // the other keywords would only repeat it
	}
	if n.enum != nil && !slices.ContainsFunc(n.enum, func(e any) bool { return equal(e, v) }) {
		vals := make([]string, len(n.enum))
		for i, e := range n.enum {
			vals[i] = describe(e)
		}
		fail("must be one of %s, got %s", strings.Join(vals, ", "), describe(v))
	}
	if n.hasConst && !equal(n.constVal, v) {
		fail("must be %s, got %s", describe(n.constVal), describe(v))
	}

	switch v := v.(type) {
	case string:
		validateString(n, v, fail)
	case []any:
		validateArray(n, v, path, out, fail)
	case map[string]any:
		validateObject(n, v, path, out, fail)
	default:
		if r, ok := number(v); ok {
			validateNumber(n, r, fail)
		}
	}

	for _, a := range n.allOf {
		validate(a, v, path, out)
	}
	if len(n.anyOf) > 0 {
		var causes []Violation
		matched := false
		for _, a := range n.anyOf {
			var vs []Violation
			validate(a, v, path, &vs)
			if len(vs) == 0 {
				matched = true
				break
			}
			causes = append(causes, vs...)
		}
		if !matched {
			*out = append(*out, causes...)
		}
	}
	if len(n.oneOf) > 0 {
		var causes []Violation
		var matches []int
		for i, a := range n.oneOf {
			var vs []Violation
			validate(a, v, path, &vs)
			if len(vs) == 0 {
				matches = append(matches, i)
			}
			causes = append(causes, vs...)
		}
		switch {
		case len(matches) == 0:
			*out = append(*out, causes...)
		case len(matches) > 1:
			fail("must match exactly one oneOf alternative, matches %d and %d", matches[0], matches[1])
		}
	}
	if n.not != nil && valid(n.not, v) {
		fail("must not match the schema in \"not\"")
	}
	if n.ifN != nil {
		if valid(n.ifN, v) {
			validate(n.then, v, path, out)
		} else {
			validate(n.els, v, path, out)
		}
	}
}

func validateString(n *node, s string, fail func(string, ...any)) {
	if n.minLength >= 0 || n.maxLength >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLength >= 0 && l < n.minLength {
			fail("must be at least %d character(s) long, got %d", n.minLength, l)
		}
		if n.maxLength >= 0 && l > n.maxLength {
			fail("must be at most %d character(s) long, got %d", n.maxLength, l)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		fail("must match the pattern %q", n.pattern.String())
	}
}

func validateNumber(n *node, r *big.Rat, fail func(string, ...any)) {
	if n.minimum != nil && r.Cmp(n.minimum) < 0 {
		fail("must be >= %s, got %s", ratString(n.minimum), ratString(r))
	}
	if n.maximum != nil && r.Cmp(n.maximum) > 0 {
		fail("must be <= %s, got %s", ratString(n.maximum), ratString(r))
	}
	if n.exclMin != nil && r.Cmp(n.exclMin) <= 0 {
		fail("must be > %s, got %s", ratString(n.exclMin), ratString(r))
	}
	if n.exclMax != nil && r.Cmp(n.exclMax) >= 0 {
		fail("must be < %s, got %s", ratString(n.exclMax), ratString(r))
	}
	if n.multipleOf != nil && !new(big.Rat).Quo(r, n.multipleOf).IsInt() {
		fail("must be a multiple of %s, got %s", ratString(n.multipleOf), ratString(r))
	}
}

func validateArray(n *node, arr []any, path []string, out *[]Violation, fail func(string, ...any)) {
	if n.minItems >= 0 && len(arr) < n.minItems {
		fail("must have at least %d item(s), got %d", n.minItems, len(arr))
	}
	if n.maxItems >= 0 && len(arr) > n.maxItems {
		fail("must have at most %d item(s), got %d", n.maxItems, len(arr))
	}
	if n.uniqueItems {
	unique:
		for i := range arr {
			for j := i + 1; j < len(arr); j++ {
				if equal(arr[i], arr[j]) {
					fail("items %d and %d are equal; items must be unique", i, j)
					break unique
				}
			}
		}
	}
	for i, item := range arr {
		p := append(slices.Clip(path), strconv.Itoa(i))
		if i < len(n.prefixItems) {
			validate(n.prefixItems[i], item, p, out)
		} else {
			validate(n.items, item, p, out)
		}
	}
	if n.contains != nil {
		count := 0
		for _, item := range arr {
			if valid(n.contains, item) {
				count++
			}
		}
		least := 1
		if n.minContains >= 0 {
			least = n.minContains
		}
		if count < least {
			fail("must contain at least %d item(s) matching \"contains\", got %d", least, count)
		}
		if n.maxContains >= 0 && count > n.maxContains {
			fail("must contain at most %d item(s) matching \"contains\", got %d", n.maxContains, count)
		}
	}
}

func validateObject(n *node, obj map[string]any, path []string, out *[]Violation, fail func(string, ...any)) {
	if n.minProps >= 0 && len(obj) < n.minProps {
		fail("must have at least %d properties, got %d", n.minProps, len(obj))
	}
	if n.maxProps >= 0 && len(obj) > n.maxProps {
		fail("must have at most %d properties, got %d", n.maxProps, len(obj))
	}
	var missing []string
	for _, r := range n.required {
		if _, ok := obj[r]; !ok {
			missing = append(missing, r)
		}
	}
	if len(missing) == 1 {
		fail("missing property %q", missing[0])
	} else if len(missing) > 1 {
		fail("missing properties %s", quoteAll(missing))
	}
	keys := sortedKeys(obj)
	for _, k := range keys {
		if deps, ok := n.depRequired[k]; ok {
			for _, d := range deps {
				if _, ok := obj[d]; !ok {
					fail("missing property %q (required with %q)", d, k)
				}
			}
		}
	}
	var unknown []string
	for _, k := range keys {
		p := append(slices.Clip(path), k)
		if n.propertyNames != nil {
			var vs []Violation
			validate(n.propertyNames, k, nil, &vs)
			for _, v := range vs {
				fail("property name %q: %s", k, v.Msg)
			}
		}
		known := false
		if s, ok := n.properties[k]; ok {
			known = true
			validate(s, obj[k], p, out)
		}
		for _, pp := range n.patternProps {
			if pp.re.MatchString(k) {
				known = true
				validate(pp.n, obj[k], p, out)
			}
		}
		if !known && n.caseKeys {
			if name, ok := foldedName(n.properties, k); ok {
				fail("unknown property %q (property names are case-sensitive: %q)", k, name)
				continue
			}
		}
		switch {
		case known:
		case n.additional != nil && n.additional.always != nil && !*n.additional.always:
			unknown = append(unknown, k)
		case n.additional != nil:
			validate(n.additional, obj[k], p, out)
		case n.closed:
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 1 {
		fail("unknown property %q", unknown[0])
	} else if len(unknown) > 1 {
		fail("unknown properties %s", quoteAll(unknown))
	}
	for _, k := range keys {
		if s, ok := n.depSchemas[k]; ok {
			validate(s, obj, path, out)
		}
	}
}

// foldedName finds the declared property that k spells with other case.
// The first in sorted order, should several match.
func foldedName(props map[string]*node, k string) (string, bool) {
	found := ""
	for name := range props {
		if strings.EqualFold(name, k) && (found == "" || name < found) {
			found = name
		}
	}
	return found, found != ""
}

func hasType(v any, t string) bool {
	switch t {
	case "integer":
		r, ok := number(v)
		return ok && r.IsInt()
	case "number":
		_, ok := number(v)
		return ok
	}
	return typeOf(v) == t
}

// equal is JSON equality: numbers by value, objects regardless of order.
func equal(a, b any) bool {
	if ra, ok := number(a); ok {
		rb, ok := number(b)
		return ok && ra.Cmp(rb) == 0
	}
	switch a := a.(type) {
	case []any:
		b, ok := b.([]any)
		return ok && slices.EqualFunc(a, b, equal)
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, va := range a {
			vb, ok := b[k]
			if !ok || !equal(va, vb) {
				return false
			}
		}
		return true
	}
	return a == b
}

func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
