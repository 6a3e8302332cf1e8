package agent

// The runtime's tool set: the built-in tools, the hooks' tools (a hook
// tool named like a built-in replaces it), and which of them are enabled.
// It is worked out anew for every model call, so registrations, overrides
// and enable/disable take effect from the next call.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// SourceBuiltin is ToolInfo.Source of lunar's own tools.
const SourceBuiltin = "builtin"

// ToolProvider gives tools that may change while lunar runs (the hooks'
// lunar.tool registrations). Hooks that implement it add their tools.
type ToolProvider interface {
	Tools() []*Tool
}

// ToolInfo describes one tool of the runtime, enabled or not.
type ToolInfo struct {
	Name        string
	Description string
	Parameters  json.RawMessage
	// Source is SourceBuiltin, the file name of the hook providing it, or
	// "mcp:<server>" for an MCP server's tool.
	Source  string
	Enabled bool
	// ReadOnly is Tool.ReadOnly (an MCP server's readOnlyHint).
	ReadOnly bool
	// Replaces is set for a hook tool standing in for the built-in tool
	// of the same name.
	Replaces bool
}

// SetTools replaces the built-in tools offered to the model from the next
// call on.
func (rt *Runtime) SetTools(tools []*Tool) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.opts.Tools = tools
}

// toolSlot is one name of the tool set: the tool answering to it, and the
// built-in it replaces, if any.
type toolSlot struct {
	tool, builtin *Tool
}

// toolSet merges the built-in tools with the hooks' as registered right
// now, in that order. A hook tool named like a built-in takes its place
// (announced once); one named like an earlier hook tool is left out.
func (rt *Runtime) toolSet() []toolSlot { return rt.toolSetOf(true) }

// toolSetOf is toolSet, without RuntimeOptions.MoreTools when withMore
// is false (asking for them starts MCP servers).
func (rt *Runtime) toolSetOf(withMore bool) []toolSlot {
	rt.mu.Lock()
	base, tp, allow, more := rt.opts.Tools, rt.toolProvider, rt.opts.ToolAllow, rt.opts.MoreTools
	rt.mu.Unlock()
	if !withMore {
		more = nil
	}
	var extra []*Tool
	if tp != nil {
		extra = tp.Tools()
	}
	var outside []*Tool
	if more != nil {
		outside = more.Tools()
	}
	if allow != nil {
		extra = slices.DeleteFunc(slices.Clone(extra), func(t *Tool) bool { return !slices.Contains(allow, t.Name) })
		outside = slices.DeleteFunc(slices.Clone(outside), func(t *Tool) bool { return !slices.Contains(allow, t.Name) })
	}
	out := make([]toolSlot, 0, len(base)+len(extra)+len(outside))
	at := make(map[string]int, len(base)+len(extra))
	for _, t := range base {
		at[t.Name] = len(out)
		out = append(out, toolSlot{tool: t})
	}
	for _, t := range extra {
		i, dup := at[t.Name]
		if !dup {
			at[t.Name] = len(out)
			out = append(out, toolSlot{tool: t})
			continue
		}
		if out[i].tool.Source == "" {
			out[i] = toolSlot{tool: t, builtin: out[i].tool}
			rt.noticeOnce(t, rt.notice, "hook tool %q (%s) replaces the built-in tool", t.Name, t.Source)
			continue
		}
		rt.noticeOnce(t, rt.warn, "hook tool %q (%s) ignored: %s registered a tool of that name first", t.Name, t.Source, out[i].tool.Source)
	}
	for _, t := range outside {
		if i, dup := at[t.Name]; dup {
			rt.noticeOnce(t, rt.warn, "tool %q (%s) ignored: %s has a tool of that name", t.Name, t.Source, cmp.Or(out[i].tool.Source, SourceBuiltin))
			continue
		}
		at[t.Name] = len(out)
		out = append(out, toolSlot{tool: t})
	}
	return out
}

// noticeOnce tells about a tool once per name and source, through show
// (rt.notice or rt.warn).
func (rt *Runtime) noticeOnce(t *Tool, show func(string, ...any), format string, args ...any) {
	key := t.Name + "\x00" + t.Source
	rt.mu.Lock()
	seen := rt.toolNoticed[key]
	if rt.toolNoticed == nil {
		rt.toolNoticed = map[string]bool{}
	}
	rt.toolNoticed[key] = true
	rt.mu.Unlock()
	if !seen {
		show(format, args...)
	}
}

// CheckHookTools warns now about hook tools that clash with built-in
// ones (otherwise said on the first model call), without asking
// RuntimeOptions.MoreTools for theirs: that would start MCP servers
// before they are needed.
func (rt *Runtime) CheckHookTools() { rt.toolSetOf(false) }

// Tools are the tools the next model call offers: the enabled ones of the
// tool set (built-ins first, then the hooks' in load order, then
// RuntimeOptions.MoreTools').
func (rt *Runtime) Tools() []*Tool {
	set := rt.toolSet()
	rt.mu.Lock()
	off := rt.toolsOff
	rt.mu.Unlock()
	out := make([]*Tool, 0, len(set))
	for _, s := range set {
		if !off[s.tool.Name] {
			out = append(out, s.tool)
		}
	}
	return out
}

// ToolList describes every tool of the tool set, disabled ones included,
// in the order Tools gives them.
func (rt *Runtime) ToolList() []ToolInfo {
	set := rt.toolSet()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	out := make([]ToolInfo, len(set))
	for i, s := range set {
		src := s.tool.Source
		if src == "" {
			src = SourceBuiltin
		}
		out[i] = ToolInfo{Name: s.tool.Name, Description: s.tool.Description, Parameters: s.tool.Parameters,
			Source: src, Enabled: !rt.toolsOff[s.tool.Name], Replaces: s.builtin != nil, ReadOnly: s.tool.ReadOnly}
	}
	return out
}

// SetToolEnabled enables or disables a tool by name from the next model
// call on. The name must be one of the tool set.
func (rt *Runtime) SetToolEnabled(name string, enabled bool) error {
	if err := rt.knownTools(name); err != nil {
		return err
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if enabled {
		delete(rt.toolsOff, name)
		return nil
	}
	if rt.toolsOff == nil {
		rt.toolsOff = map[string]bool{}
	}
	rt.toolsOff[name] = true
	return nil
}

// SetActiveTools enables exactly the named tools (pi's setActiveTools):
// every other tool of the set is disabled from the next model call on.
func (rt *Runtime) SetActiveTools(names []string) error {
	if err := rt.knownTools(names...); err != nil {
		return err
	}
	set := rt.toolSet()
	off := map[string]bool{}
	for _, s := range set {
		if !slices.Contains(names, s.tool.Name) {
			off[s.tool.Name] = true
		}
	}
	rt.mu.Lock()
	rt.toolsOff = off
	rt.mu.Unlock()
	return nil
}

// knownTools checks that every name is one of the tool set.
func (rt *Runtime) knownTools(names ...string) error {
	set := rt.toolSet()
	var unknown []string
	for _, n := range names {
		if !slices.ContainsFunc(set, func(s toolSlot) bool { return s.tool.Name == n }) {
			unknown = append(unknown, fmt.Sprintf("%q", n))
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	known := make([]string, len(set))
	for i, s := range set {
		known[i] = s.tool.Name
	}
	return fmt.Errorf("unknown tool %s (known: %s)", strings.Join(unknown, ", "), strings.Join(known, ", "))
}

// BuiltinTool returns lunar's own tool of that name, also while a hook
// tool replaces it; nil when lunar runs without it (--tools, --no-tools).
func (rt *Runtime) BuiltinTool(name string) *Tool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	for _, t := range rt.opts.Tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}
