package lua

// This file turns lunar.tool registrations into agent.Tools whose Execute
// calls into the hook's state under the hook timeout.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/agent"
)

// hookTool is one lunar.tool registration.
type hookTool struct {
	h    *hook
	fn   *glua.LFunction
	tool *agent.Tool
}

// toolSpec validates a lunar.tool table; problems are returned as one
// message (a load warning: the tool is not registered).
func (h *hook) toolSpec(spec *glua.LTable) (*hookTool, error) {
	name, ok := spec.RawGetString("name").(glua.LString)
	if !ok || !validToolName(string(name)) {
		return nil, fmt.Errorf("tool name must be 1-64 letters, digits, _ or -, got %s", spec.RawGetString("name"))
	}
	desc, ok := spec.RawGetString("description").(glua.LString)
	if !ok || desc == "" {
		return nil, fmt.Errorf("tool %q: description must be a non-empty string", name)
	}
	fn, ok := spec.RawGetString("execute").(*glua.LFunction)
	if !ok {
		return nil, fmt.Errorf("tool %q: execute must be a function", name)
	}
	schema := json.RawMessage(`{"type":"object","properties":{}}`)
	if p := spec.RawGetString("parameters"); p != glua.LNil {
		pt, ok := p.(*glua.LTable)
		if !ok {
			return nil, fmt.Errorf("tool %q: parameters must be a JSON schema table", name)
		}
		raw, err := h.luaJSON(pt)
		if err != nil {
			return nil, fmt.Errorf("tool %q: parameters: %w", name, err)
		}
		if schema, err = normalizeSchema(raw); err != nil {
			return nil, fmt.Errorf("tool %q: parameters: %w", name, err)
		}
	}
	var top struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(schema, &top); err != nil || top.Type != "object" {
		return nil, fmt.Errorf(`tool %q: parameters must be a schema with type = "object"`, name)
	}
	if _, err := agent.CompileSchema(string(name), schema); err != nil {
		// the validator's report spans lines; a warning is one
		lines := strings.Split(err.Error(), "\n")
		for i := range lines {
			lines[i] = strings.TrimLeft(strings.TrimSpace(lines[i]), "- ")
		}
		return nil, errors.New(strings.Join(lines, "; "))
	}
	snippet, guidelines, err := promptSpec(spec)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", name, err)
	}
	t := &hookTool{h: h, fn: fn}
	t.tool = &agent.Tool{Name: string(name), Description: string(desc), Parameters: schema, Source: h.src.Name, Execute: t.execute,
		PromptSnippet: snippet, PromptGuidelines: guidelines}
	return t, nil
}

// promptSpec reads a tool's prompt_snippet (or pi's promptSnippet) and
// prompt_guidelines (promptGuidelines).
func promptSpec(spec *glua.LTable) (snippet string, guidelines []string, err error) {
	get := func(name, pi string) glua.LValue {
		if v := spec.RawGetString(name); v != glua.LNil {
			return v
		}
		return spec.RawGetString(pi)
	}
	switch v := get("prompt_snippet", "promptSnippet").(type) {
	case *glua.LNilType:
	case glua.LString:
		snippet = strings.Join(strings.Fields(string(v)), " ")
	default:
		return "", nil, fmt.Errorf("prompt_snippet must be a string, got %s", v.Type())
	}
	switch v := get("prompt_guidelines", "promptGuidelines").(type) {
	case *glua.LNilType:
	case *glua.LTable:
		for i := 1; i <= v.Len(); i++ {
			g, ok := v.RawGetInt(i).(glua.LString)
			if !ok {
				return "", nil, fmt.Errorf("prompt_guidelines[%d] must be a string, got %s", i, v.RawGetInt(i).Type())
			}
			if s := strings.TrimSpace(string(g)); s != "" {
				guidelines = append(guidelines, s)
			}
		}
	default:
		return "", nil, fmt.Errorf("prompt_guidelines must be a list of strings, got %s", v.Type())
	}
	return snippet, guidelines, nil
}

// arrayKeywords are the schema keywords whose value is an array; an empty
// Lua table there means [] (Lua cannot tell {} from []).
var arrayKeywords = map[string]bool{"required": true, "enum": true, "allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true}

// normalizeSchema turns empty objects under array keywords into [].
func normalizeSchema(raw json.RawMessage) (json.RawMessage, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	var fix func(any)
	fix = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if m, ok := x.(map[string]any); ok && len(m) == 0 && arrayKeywords[k] {
					v[k] = []any{}
					continue
				}
				fix(x)
			}
		case []any:
			for _, x := range v {
				fix(x)
			}
		}
	}
	fix(v)
	return json.Marshal(v)
}

func (h *hook) luaTool(L *glua.LState) int {
	spec := L.CheckTable(1)
	name, _ := spec.RawGetString("name").(glua.LString)
	h.warnUnknownKeys(L, spec, fmt.Sprintf("lunar.tool %q", string(name)), toolSpecKeys)
	t, err := h.toolSpec(spec)
	if err != nil {
		// The hook runs on without the tool (a warning); `lunar hooks
		// check` counts it as an error.
		msg := fmt.Sprintf("%s: %v: tool not registered", where(L), err)
		h.rt.regMu.Lock()
		h.toolErrs = append(h.toolErrs, msg)
		h.rt.regMu.Unlock()
		h.reportWarning(msg)
		return 0
	}
	r := h.rt
	r.regMu.Lock()
	for _, o := range r.hooks {
		for _, ot := range o.tools {
			if ot.tool.Name == t.tool.Name && len(o.errs) == 0 {
				r.regMu.Unlock()
				h.warn("%s: tool %q is already registered by %s: ignored", where(L), t.tool.Name, o.src.Name)
				return 0
			}
		}
	}
	h.tools = append(h.tools, t)
	live := h.loaded()
	r.regMu.Unlock()
	if live {
		r.rebuild()
	}
	return 0
}

// execute runs the Lua function: execute(args, ctx) → string or
// {content=, details=, is_error=, terminate=}. Errors (including a timeout) become the
// error returned to the loop, which makes them error results.
func (t *hookTool) execute(ctx context.Context, callID string, args json.RawMessage, onUpdate func(agent.ToolResult)) (agent.ToolResult, error) {
	h := t.h
	ctx = withToolUpdates(ctx, onUpdate)
	var res agent.ToolResult
	start := time.Now()
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	err := h.run(ctx, h.rt.opts.Timeout, t.fn, func(L *glua.LState) ([]glua.LValue, error) {
		v, err := h.codec().Decode(args)
		if err != nil {
			return nil, fmt.Errorf("arguments: %w", err)
		}
		return []glua.LValue{v, h.ctxTable(false)}, nil
	}, func(ret glua.LValue) error {
		var err error
		res, err = h.toolResult(ret)
		return err
	})
	h.rt.trace(h, "tool "+t.tool.Name, start, err)
	if err != nil {
		var ce *callError
		if errors.As(err, &ce) {
			return agent.ToolResult{}, fmt.Errorf("tool %s (%s): %s", t.tool.Name, h.src.Name, ce.msg)
		}
		return agent.ToolResult{}, fmt.Errorf("tool %s (%s): bad result: %w", t.tool.Name, h.src.Name, err)
	}
	return res, nil
}

// toolResult converts a tool's return value.
func (h *hook) toolResult(ret glua.LValue) (agent.ToolResult, error) {
	switch v := ret.(type) {
	case glua.LString:
		return agent.TextResult(string(v), false), nil
	case glua.LNumber:
		return agent.TextResult(v.String(), false), nil
	case *glua.LNilType:
		return agent.TextResult("", false), nil
	case *glua.LTable:
		var res agent.ToolResult
		rr := resultReader{h: h, t: v, known: []string{"content", "details", "is_error", "terminate"}}
		if err := rr.checkKeys(); err != nil {
			return res, err
		}
		content, err := h.luaContent(v.RawGetString("content"))
		if err != nil {
			return res, fmt.Errorf("content: %w", err)
		}
		res.Content = content
		res.IsError, _ = rr.boolean("is_error")
		res.Terminate, _ = rr.boolean("terminate")
		if d := v.RawGetString("details"); d != glua.LNil && !h.codec().IsNull(d) {
			if res.Details, err = h.luaJSON(d); err != nil {
				return res, fmt.Errorf("details: %w", err)
			}
		}
		return res, rr.err
	}
	return agent.ToolResult{}, fmt.Errorf("a string or {content=, details=, is_error=, terminate=} expected, got %s", ret.Type())
}
