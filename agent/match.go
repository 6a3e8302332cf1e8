package agent

// This file resolves what a user types for a model, as pi's --model does
// (pi's model-resolver.ts): "provider/id", a bare id, or a part of an id
// ("sonnet"), each optionally followed by ":<thinking level>".

import (
	"fmt"
	"slices"
	"strings"
)

// datedID reports whether an id ends in a date (-20250929, the pattern
// -\d{8}$): pi prefers the alias without one.
func datedID(id string) bool {
	if len(id) < 9 || id[len(id)-9] != '-' {
		return false
	}
	for i := len(id) - 8; i < len(id); i++ {
		if id[i] < '0' || id[i] > '9' {
			return false
		}
	}
	return true
}

// Match resolves a model pattern: "provider/id", a known id, or a part of
// one (case-insensitive: "sonnet" is the newest Claude Sonnet alias; among
// several matches, those of providers with a key come first), with an
// optional ":level" suffix, which is returned as the thinking level ("" if
// none). provider, when set (--provider), limits the search to it. An id
// the table does not know works for a known provider, with its defaults.
func (r *Registry) Match(provider, pattern string) (Model, string, error) {
	pattern = strings.TrimSpace(pattern)
	if pattern == "" {
		return Model{}, "", fmt.Errorf("empty model name")
	}
	inferred := false
	pat := pattern
	if provider != "" {
		p, ok := r.providerFold(provider)
		if !ok {
			return Model{}, "", fmt.Errorf("unknown provider %q (providers: %s)", provider, strings.Join(r.names(), ", "))
		}
		provider = p
		if len(pat) > len(p)+1 && strings.EqualFold(pat[:len(p)+1], p+"/") {
			pat = pat[len(p)+1:]
		}
	} else if name, rest, ok := strings.Cut(pattern, "/"); ok {
		if p, known := r.providerFold(name); known {
			provider, pat, inferred = p, rest, true
			if rest == "" {
				return Model{}, "", fmt.Errorf("model %q: missing model id after %q", pattern, name+"/")
			}
		}
	}
	if provider == "" {
		// The primary providers' models first: a bare id means the user's
		// or lunar's model before a project's.
		for _, tier := range r.tiers() {
			if m, ok := exactModel(pattern, tier); ok {
				return m, "", nil
			}
			if m, level, ok := r.parsePattern(pat, tier); ok {
				return m, level, nil
			}
		}
	} else {
		var candidates []Model
		for _, p := range r.providers {
			for _, m := range p.Models {
				if m.Provider == provider {
					candidates = append(candidates, m)
				}
			}
		}
		if m, level, ok := r.parsePattern(pat, candidates); ok {
			return m, level, nil
		}
	}
	if inferred { // an id with a slash, as OpenRouter's "openai/gpt-4o"
		for _, tier := range r.tiers() {
			if m, level, ok := r.parsePattern(pattern, tier); ok {
				return m, level, nil
			}
		}
	}
	if provider != "" {
		p, _ := r.provider(provider)
		id, level := pat, ""
		if i := strings.LastIndexByte(pat, ':'); i > 0 && isThinkingLevel(pat[i+1:]) {
			id, level = pat[:i], pat[i+1:]
		}
		return modelOf(p, Model{ID: id}), level, nil
	}
	return Model{}, "", fmt.Errorf("no model matches %q (lunar --list-models shows them; an id the table does not know needs its provider: provider/id; providers: %s)",
		pattern, strings.Join(r.names(), ", "))
}

// parsePattern is pi's parseModelPattern in its strict form: the whole
// pattern as a model first, then, if it ends in ":level" with a valid
// level, the part before it with that level.
func (r *Registry) parsePattern(pattern string, models []Model) (Model, string, bool) {
	if m, ok := r.matchModel(pattern, models); ok {
		return m, "", true
	}
	i := strings.LastIndexByte(pattern, ':')
	if i < 0 || !isThinkingLevel(pattern[i+1:]) {
		return Model{}, "", false
	}
	m, inner, ok := r.parsePattern(pattern[:i], models)
	if !ok {
		return Model{}, "", false
	}
	if inner == "" {
		inner = pattern[i+1:]
	}
	return m, inner, true
}

// matchModel finds a model by exact reference, else by a part of its id:
// aliases before dated ids, the highest id first, as pi picks; models of
// providers with a key before the rest.
func (r *Registry) matchModel(pattern string, models []Model) (Model, bool) {
	if m, ok := exactModel(pattern, models); ok {
		return m, true
	}
	low := strings.ToLower(pattern)
	var matches []Model
	for _, m := range models {
		if strings.Contains(strings.ToLower(m.ID), low) {
			matches = append(matches, m)
		}
	}
	if len(matches) == 0 {
		return Model{}, false
	}
	keyed := slices.DeleteFunc(slices.Clone(matches), func(m Model) bool {
		_, _, err := r.APIKey(m.Provider)
		return err != nil
	})
	if len(keyed) > 0 {
		matches = keyed
	}
	slices.SortStableFunc(matches, func(a, b Model) int {
		aliasA, aliasB := !datedID(a.ID), !datedID(b.ID)
		if aliasA != aliasB {
			if aliasA {
				return -1
			}
			return 1
		}
		return localeCompare(b.ID, a.ID)
	})
	return matches[0], true
}

// punctOrder ranks punctuation and symbols as Unicode's root collation
// does (JavaScript's localeCompare, which pi sorts ids with): all of them
// before digits, digits before letters.
const punctOrder = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"

// localeCompare orders model ids as JavaScript's localeCompare does for
// them: punctuation < digits < letters, letters without regard to case
// first, then lowercase before uppercase ("~anthropic/…" sorts before
// "claude-…", where a byte comparison puts it last).
func localeCompare(a, b string) int {
	weight := func(r rune) int {
		switch {
		case r >= '0' && r <= '9':
			return 1000 + int(r)
		case r >= 'a' && r <= 'z':
			return 2000 + int(r)
		case r >= 'A' && r <= 'Z':
			return 2000 + int(r-'A'+'a')
		}
		if i := strings.IndexRune(punctOrder, r); i >= 0 {
			return i
		}
		return 3000 + int(r)
	}
	ra, rb := []rune(a), []rune(b)
	for i := 0; i < len(ra) && i < len(rb); i++ {
		if wa, wb := weight(ra[i]), weight(rb[i]); wa != wb {
			return wa - wb
		}
	}
	if len(ra) != len(rb) {
		return len(ra) - len(rb)
	}
	for i := range ra { // the same but for case: lowercase first
		if ra[i] != rb[i] {
			return int(rb[i]) - int(ra[i])
		}
	}
	return 0
}

// exactModel finds "provider/id" or a bare id (unique among models),
// ignoring case.
func exactModel(ref string, models []Model) (Model, bool) {
	var byID []Model
	for _, m := range models {
		if strings.EqualFold(m.Provider+"/"+m.ID, ref) {
			return m, true
		}
		if strings.EqualFold(m.ID, ref) {
			byID = append(byID, m)
		}
	}
	if len(byID) == 1 {
		return byID[0], true
	}
	return Model{}, false
}

// providerFold returns the name of the provider called name: exactly, else
// ignoring case (a primary provider first).
func (r *Registry) providerFold(name string) (string, bool) {
	if p, ok := r.provider(name); ok {
		return p.Name, true
	}
	for _, p := range r.ordered() {
		if strings.EqualFold(p.Name, name) {
			return p.Name, true
		}
	}
	return "", false
}

// isThinkingLevel reports whether a pattern's ":level" suffix s is a level.
func isThinkingLevel(s string) bool {
	_, err := ParseThinkingLevel(s)
	return err == nil
}
