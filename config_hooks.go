package main

// The settings config.json holds for hooks: "hooks" (one section per hook,
// by name) and "permissions" (the bundled permission policy,
// hooks.d/permissions.lua). Both reach the hooks through lunar.config();
// this file validates them (errors name file, line and key), merges the
// project's layer (a project may tighten the permission policy, never
// loosen it) and builds each hook's section.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Permission modes, from the loosest.
const (
	permAuto     = "auto"      // never ask (pi's behaviour)
	permAsk      = "ask"       // ask before write, edit and bash (the default)
	permReadOnly = "read-only" // refuse write, edit and bash
)

var permModes = []string{permAsk, permAuto, permReadOnly}

// permStrictness orders the modes: a project may only move up.
func permStrictness(mode string) int {
	switch mode {
	case permAuto:
		return 0
	case permReadOnly:
		return 2
	}
	return 1
}

// permissionsHook is the bundled hook that owns the "permissions" key.
const permissionsHook = "permissions"

// permissionsConfig is the "permissions" key.
type permissionsConfig struct {
	Mode  string   `json:"mode,omitempty"`
	Allow []string `json:"allow,omitempty"`
	Ask   []string `json:"ask,omitempty"`
	Deny  []string `json:"deny,omitempty"`
	// Sandbox false turns the kernel sandbox of bash commands off.
	Sandbox *bool `json:"sandbox,omitempty"`
	// Writable lists more paths sandboxed commands may write.
	Writable []string `json:"writable,omitempty"`
}

var permissionKeys = []string{"mode", "allow", "ask", "deny", "sandbox", "writable"}

// configKeyError is an error about one key; decodeConfig adds the file
// and the line of lineKey.
type configKeyError struct {
	key     string // dotted, for the message
	lineKey string // the key as it appears in the file
	msg     string
}

func (e *configKeyError) Error() string { return fmt.Sprintf("key %q: %s", e.key, e.msg) }

// UnmarshalJSON decodes strictly so that a misspelt key inside
// "permissions" is reported with its full name and the keys allowed there.
func (p *permissionsConfig) UnmarshalJSON(data []byte) error {
	type plain permissionsConfig
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var v plain
	if err := dec.Decode(&v); err != nil {
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typ) && typ.Field != "":
			field, _, _ := strings.Cut(typ.Field, ".")
			return &configKeyError{key: "permissions." + field, lineKey: field, msg: fmt.Sprintf("expected %s, got %s", typ.Type, typ.Value)}
		case errors.As(err, &typ):
			return &configKeyError{key: "permissions", lineKey: "permissions", msg: fmt.Sprintf("expected an object, got %s", typ.Value)}
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			key := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			if best, ok := nearestName(key, permissionKeys); ok {
				return &configKeyError{key: "permissions." + key, lineKey: key, msg: fmt.Sprintf("unknown key (did you mean %q?)", best)}
			}
			return &configKeyError{key: "permissions." + key, lineKey: key, msg: "unknown key (known: " + strings.Join(permissionKeys, ", ") + ")"}
		}
		return err
	}
	*p = permissionsConfig(v)
	return nil
}

// permissionRuleRE is "tool" or "tool: pattern" (as permissions.lua reads
// it); a tool name may end in * ("mcp__github__*": every tool of a server).
// Compiled when a config has rules, not at every start.
var permissionRuleRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*[A-Za-z0-9_-]+\*?\s*(:\s*\S.*)?$`)
})

// validatePermissions checks the mode and the rules' syntax.
func validatePermissions(p *permissionsConfig, path string, data []byte) error {
	if p == nil {
		return nil
	}
	if p.Mode != "" && !slices.Contains(permModes, p.Mode) {
		return fmt.Errorf("config %s:%d: key \"permissions.mode\": %q is not one of %s", path, lineOfKey(data, "permissions", "mode"), p.Mode, strings.Join(permModes, "|"))
	}
	for _, list := range []struct {
		key   string
		rules []string
	}{{"allow", p.Allow}, {"ask", p.Ask}, {"deny", p.Deny}} {
		for _, r := range list.rules {
			if !permissionRuleRE().MatchString(r) {
				return fmt.Errorf("config %s:%d: key \"permissions.%s\": %q is not a rule: a tool name, or \"tool: pattern\" (\"bash: git status *\", \"write: docs/*\", \"mcp__github__*\")",
					path, lineOfKey(data, "permissions", list.key), list.key, r)
			}
		}
	}
	return nil
}

// validateHookSections checks the "hooks" key.
func validateHookSections(sections map[string]json.RawMessage, path string, data []byte) error {
	if _, ok := sections[permissionsHook]; ok {
		return fmt.Errorf("config %s:%d: key \"hooks.%s\": the permission policy's settings are the top-level \"permissions\" key",
			path, lineOfKey(data, "hooks", permissionsHook), permissionsHook)
	}
	return nil
}

// tightenPermissions applies a project's "permissions": a stricter mode
// and more deny and ask rules take effect; a looser mode and allow rules
// are dropped with a warning (only the user's own config and flags may
// loosen the policy).
func (c *config) tightenPermissions(p *permissionsConfig, path string, data []byte) (warnings []string) {
	if c.Permissions == nil {
		c.Permissions = &permissionsConfig{}
	}
	own := c.Permissions
	if p.Mode != "" {
		cur := own.Mode
		if cur == "" {
			cur = permAsk
		}
		if permStrictness(p.Mode) >= permStrictness(cur) {
			own.Mode = p.Mode
		} else {
			warnings = append(warnings, fmt.Sprintf("config %s:%d: permissions.mode %q ignored: a project may make the permission policy stricter than yours (%q), not looser; set it in your own config or pass --yes",
				path, lineOfKey(data, "permissions", "mode"), p.Mode, cur))
		}
	}
	if len(p.Allow) > 0 {
		warnings = append(warnings, fmt.Sprintf("config %s:%d: permissions.allow ignored: a project may not allow tools without asking; copy the rules you agree with into your own config",
			path, lineOfKey(data, "permissions", "allow")))
	}
	if p.Sandbox != nil && !*p.Sandbox {
		warnings = append(warnings, fmt.Sprintf("config %s:%d: permissions.sandbox false ignored: a project may not turn off the sandbox of commands",
			path, lineOfKey(data, "permissions", "sandbox")))
	}
	if len(p.Writable) > 0 {
		warnings = append(warnings, fmt.Sprintf("config %s:%d: permissions.writable ignored: a project may not widen the sandbox of commands; copy the paths you agree with into your own config",
			path, lineOfKey(data, "permissions", "writable")))
	}
	own.Ask = append(own.Ask, p.Ask...)
	own.Deny = append(own.Deny, p.Deny...)
	return warnings
}

// effectivePermissions is the policy's section after the flags: --yes
// (yes) is mode auto for this run; deny rules still apply.
func (c *config) effectivePermissions(yes bool) permissionsConfig {
	var p permissionsConfig
	if c.Permissions != nil {
		p = *c.Permissions
	}
	if p.Mode == "" {
		p.Mode = permAsk
	}
	if yes {
		p.Mode = permAuto
	}
	return p
}

// hookSections are what lunar.config() returns, by hook name: each
// section of "hooks", and the policy's settings for the permissions hook.
func (c *config) hookSections(yes bool) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(c.Hooks)+1)
	for name, raw := range c.Hooks {
		out[name] = raw
	}
	p := c.effectivePermissions(yes)
	nonNil := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	raw, err := json.Marshal(map[string]any{"mode": p.Mode, "allow": nonNil(p.Allow), "ask": nonNil(p.Ask), "deny": nonNil(p.Deny),
		"sandbox": p.Sandbox == nil || *p.Sandbox, "writable": nonNil(p.Writable)})
	if err == nil { // strings only: it cannot fail
		out[permissionsHook] = raw
	}
	return out
}

// overlayHookSections merges a project's "hooks" into the user's: a
// section that is an object in both is merged key by key (the project's
// keys win); otherwise the project's replaces it. Sections of the user's
// own global hooks are left alone (a project may not reconfigure them).
func (c *config) overlayHookSections(o map[string]json.RawMessage, path string, data []byte, globalHooks map[string]bool) (warnings []string) {
	names := make([]string, 0, len(o))
	for name := range o {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if globalHooks[strings.TrimSuffix(name, ".lua")] {
			warnings = append(warnings, fmt.Sprintf("config %s:%d: hooks.%s ignored: a project may not reconfigure your own hooks; set it in your own config",
				path, lineOfKey(data, "hooks", name), name))
			continue
		}
		if c.Hooks == nil {
			c.Hooks = map[string]json.RawMessage{}
		}
		c.Hooks[name] = mergeSection(c.Hooks[name], o[name])
	}
	return warnings
}

// mergeSection merges two JSON objects one level deep (over's keys win);
// anything else is replaced by over.
func mergeSection(base, over json.RawMessage) json.RawMessage {
	var b, o map[string]json.RawMessage
	if json.Unmarshal(base, &b) != nil || b == nil || json.Unmarshal(over, &o) != nil || o == nil {
		return over
	}
	for k, v := range o {
		b[k] = v
	}
	merged, err := json.Marshal(b)
	if err != nil {
		return over
	}
	return merged
}
