package lua

// This file is the tool registry as hooks see it: lunar.tools (every tool,
// built-in or hook, with its source and whether it is enabled),
// lunar.enable_tool / disable_tool / set_active_tools (from the next model
// call on), lunar.remove_tool (drop one's own registration) and
// lunar.builtin_tool (lunar's own tool, to wrap when overriding it).

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/agent/tools"
)

// ToolRegistry is the session runtime's tool set as hooks reach it.
// *agent.Runtime implements it.
type ToolRegistry interface {
	// ToolList describes every tool, disabled ones included.
	ToolList() []agent.ToolInfo
	// SetToolEnabled enables or disables a tool from the next model call on.
	SetToolEnabled(name string, enabled bool) error
	// SetActiveTools enables exactly the named tools.
	SetActiveTools(names []string) error
	// BuiltinTool is lunar's own tool of that name (nil: not available),
	// also while a hook tool replaces it.
	BuiltinTool(name string) *agent.Tool
}

// registry is the host's tool registry, or, without one (`lunar hooks
// check`, tests), lunar's default built-ins with the hooks' tools, all
// enabled and fixed.
func (r *Runtime) registry() ToolRegistry {
	if reg := r.host.ToolRegistry(); reg != nil {
		return reg
	}
	return defaultRegistry{r}
}

// ToolList is the tool set as hooks see it (lunar.tools), for /hooks.
func (r *Runtime) ToolList() []agent.ToolInfo { return r.registry().ToolList() }

type defaultRegistry struct{ r *Runtime }

func (d defaultRegistry) builtins() []*agent.Tool { return tools.Builtins(d.r.cwd()) }

func (d defaultRegistry) ToolList() []agent.ToolInfo {
	var out []agent.ToolInfo
	at := map[string]int{}
	for _, t := range d.builtins() {
		at[t.Name] = len(out)
		out = append(out, agent.ToolInfo{Name: t.Name, Description: t.Description, Parameters: t.Parameters, Source: agent.SourceBuiltin, Enabled: true})
	}
	for _, t := range d.r.Tools() {
		info := agent.ToolInfo{Name: t.Name, Description: t.Description, Parameters: t.Parameters, Source: t.Source, Enabled: true, ReadOnly: t.ReadOnly}
		if i, ok := at[t.Name]; ok {
			info.Replaces = true
			out[i] = info
			continue
		}
		out = append(out, info)
	}
	return out
}

func (defaultRegistry) SetToolEnabled(string, bool) error { return ErrNotAvailable }
func (defaultRegistry) SetActiveTools([]string) error     { return ErrNotAvailable }

func (d defaultRegistry) BuiltinTool(name string) *agent.Tool {
	for _, t := range d.builtins() {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// luaTools is lunar.tools(): every tool with its source and state.
func (h *hook) luaTools(L *glua.LState) int {
	list := h.rt.registry().ToolList()
	out := h.codec().NewArray(len(list))
	for i, ti := range list {
		t := L.CreateTable(0, 7)
		t.RawSetString("name", glua.LString(ti.Name))
		t.RawSetString("description", glua.LString(ti.Description))
		params, err := h.jsonLua(ti.Parameters)
		if err != nil {
			L.RaiseError("tool %s: parameters: %v", ti.Name, err)
		}
		t.RawSetString("parameters", params)
		t.RawSetString("source", glua.LString(ti.Source))
		t.RawSetString("enabled", glua.LBool(ti.Enabled))
		t.RawSetString("replaces_builtin", glua.LBool(ti.Replaces))
		t.RawSetString("read_only", glua.LBool(ti.ReadOnly))
		out.RawSetInt(i+1, t)
	}
	L.Push(out)
	return 1
}

func (h *hook) luaEnableTool(L *glua.LState) int {
	return pushResult(L, h.rt.registry().SetToolEnabled(L.CheckString(1), true))
}

func (h *hook) luaDisableTool(L *glua.LState) int {
	return pushResult(L, h.rt.registry().SetToolEnabled(L.CheckString(1), false))
}

func (h *hook) luaSetActiveTools(L *glua.LState) int {
	t := L.CheckTable(1)
	var names []string
	for i := 1; i <= t.Len(); i++ {
		s, ok := t.RawGetInt(i).(glua.LString)
		if !ok {
			L.ArgError(1, fmt.Sprintf("names[%d]: string expected, got %s", i, t.RawGetInt(i).Type()))
		}
		names = append(names, string(s))
	}
	return pushResult(L, h.rt.registry().SetActiveTools(names))
}

// luaRemoveTool is lunar.remove_tool(name): drops a tool this hook
// registered, from the next model call on.
func (h *hook) luaRemoveTool(L *glua.LState) int {
	name := L.CheckString(1)
	r := h.rt
	r.regMu.Lock()
	i := slices.IndexFunc(h.tools, func(t *hookTool) bool { return t.tool.Name == name })
	if i >= 0 {
		h.tools = slices.Delete(slices.Clone(h.tools), i, i+1)
	}
	live := h.loaded()
	r.regMu.Unlock()
	if i < 0 {
		return pushResult(L, fmt.Errorf("tool %q is not registered by %s", name, h.src.Name))
	}
	if live {
		r.rebuild()
	}
	return pushResult(L, nil)
}

// luaBuiltinTool is lunar.builtin_tool(name): a table describing lunar's
// own tool, whose execute(args) runs it. The tool is looked up again at
// every call, so a table taken at load time works for the whole session.
func (h *hook) luaBuiltinTool(L *glua.LState) int {
	name := L.CheckString(1)
	bt := h.rt.registry().BuiltinTool(name)
	if bt == nil {
		L.Push(glua.LNil)
		L.Push(glua.LString(fmt.Sprintf("no built-in tool %q", name)))
		return 2
	}
	t := L.CreateTable(0, 4)
	t.RawSetString("name", glua.LString(bt.Name))
	t.RawSetString("description", glua.LString(bt.Description))
	params, err := h.jsonLua(bt.Parameters)
	if err != nil {
		L.RaiseError("tool %s: parameters: %v", name, err)
	}
	t.RawSetString("parameters", params)
	t.RawSetString("execute", L.NewFunction(func(L *glua.LState) int {
		argIdx := 1
		if L.Get(1) == t { // called as a method, tool:execute(args)
			argIdx = 2
		}
		return h.runBuiltin(L, name, argIdx)
	}))
	L.Push(t)
	return 1
}

// runBuiltin runs the built-in tool name with the arguments table at
// argIdx and returns its result as a tool result table: {content=,
// details=, is_error=}. Invalid arguments and the tool's failures are
// error results, as the model would get them. The call runs on the
// calling handler's context (Ctrl+C stops it) with the hook timeout
// paused: the built-in has its own limits (bash's timeout).
func (h *hook) runBuiltin(L *glua.LState, name string, argIdx int) int {
	args := json.RawMessage("{}")
	if v := L.Get(argIdx); v != glua.LNil {
		at, ok := v.(*glua.LTable)
		if !ok {
			L.ArgError(argIdx, "arguments table expected, got "+v.Type().String())
		}
		raw, err := h.luaJSON(at)
		if err != nil {
			L.ArgError(argIdx, err.Error())
		}
		if string(raw) != "[]" { // an empty table
			args = raw
		}
	}
	bt := h.rt.registry().BuiltinTool(name)
	if bt == nil {
		L.RaiseError("no built-in tool %q", name)
	}
	res := callBuiltin(L.Context(), bt, args)
	out := L.CreateTable(0, 3)
	content, err := h.blocksLua(res.Content)
	if err != nil {
		L.RaiseError("tool %s: %v", name, err)
	}
	out.RawSetString("content", content)
	if len(res.Details) > 0 {
		d, err := h.jsonLua(res.Details)
		if err != nil {
			L.RaiseError("tool %s: details: %v", name, err)
		}
		out.RawSetString("details", d)
	}
	out.RawSetString("is_error", glua.LBool(res.IsError))
	L.Push(out)
	return 1
}

// builtinValidators caches the compiled schema of each built-in tool (a
// handful per process).
var builtinValidators sync.Map // *agent.Tool → *agent.Validator

// callBuiltin validates args and runs t as the loop would.
func callBuiltin(ctx context.Context, t *agent.Tool, args json.RawMessage) (res agent.ToolResult) {
	var v *agent.Validator
	if c, ok := builtinValidators.Load(t); ok {
		v = c.(*agent.Validator)
	} else {
		var err error
		if v, err = agent.CompileSchema(t.Name, t.Parameters); err != nil {
			return agent.TextResult(err.Error(), true)
		}
		builtinValidators.Store(t, v)
	}
	args, err := v.Decode(args)
	if err != nil {
		return agent.TextResult(err.Error(), true)
	}
	defer pauseTimeout(ctx)()
	defer func() {
		if p := recover(); p != nil {
			res = agent.TextResult(fmt.Sprintf("tool %s crashed: %v", t.Name, p), true)
		}
	}()
	res, err = t.Execute(ctx, "", args, toolUpdates(ctx))
	if err != nil {
		return agent.TextResult(err.Error(), true)
	}
	return res
}

// toolUpdateKey carries, in a hook tool's context, the loop's callback for
// its partial results, so a built-in it wraps streams its output (bash's
// lines) to the REPL and JSON mode as when it runs alone.
type toolUpdateKey struct{}

// withToolUpdates returns ctx carrying onUpdate (nil: ctx unchanged).
func withToolUpdates(ctx context.Context, onUpdate func(agent.ToolResult)) context.Context {
	if onUpdate == nil {
		return ctx
	}
	return context.WithValue(ctx, toolUpdateKey{}, onUpdate)
}

// toolUpdates is the partial-result callback of the hook tool running on
// ctx, or nil.
func toolUpdates(ctx context.Context) func(agent.ToolResult) {
	fn, _ := ctx.Value(toolUpdateKey{}).(func(agent.ToolResult))
	return fn
}

// toolOrigin is who provides the tool called name and whether it says it
// changes nothing, for tool.execute.before ("builtin", false when the
// tool set has no such name).
func (r *Runtime) toolOrigin(name string) (source string, readOnly bool) {
	for _, t := range r.registry().ToolList() {
		if t.Name == name {
			return t.Source, t.ReadOnly
		}
	}
	return agent.SourceBuiltin, false
}
