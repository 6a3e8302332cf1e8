package lua

// This file accepts pi's result shapes from handlers registered under
// pi's event names (lunar.on("input", …)), so that an extension ported
// from pi keeps its return statements: each function turns a result in
// pi's shape into lunar's before it is checked like any other. Results
// already in lunar's shape pass through unchanged.

import (
	"fmt"

	glua "github.com/yuin/gopher-lua"
)

// piShapeFunc turns a result table in pi's shape into lunar's.
type piShapeFunc func(L *glua.LState, t *glua.LTable) (*glua.LTable, error)

// piResultShapes maps pi's event name and the lunar event it stands for
// to the conversion of its results. Aliases missing here have the same
// result shape in both (tool_call's {block, reason}, context's {messages},
// the cancel events' {cancel}).
var piResultShapes = map[string]map[eventID]piShapeFunc{
	"input":                   {evChatMessage: piInput},
	"tool_result":             {evToolAfter: renamed(map[string]string{"isError": "is_error"})},
	"before_agent_start":      {evAgentBeforeStart: piBeforeAgentStart},
	"session_before_compact":  {evSessionBeforeCompact: piBeforeCompact},
	"session_before_tree":     {evSessionBeforeBranch: piBeforeTree},
	"before_provider_request": {evProviderRequest: piProviderRequest},
}

// PiResultShapes lists, for the docs, the pi event names whose pi-shaped
// results are accepted.
func PiResultShapes() []string {
	return []string{"input", "tool_result", "before_agent_start", "session_before_compact", "session_before_tree", "before_provider_request"}
}

// copyRenamed copies t, renaming the keys in names (old → new); a result
// with both names is an error.
func copyRenamed(L *glua.LState, t *glua.LTable, names map[string]string) (*glua.LTable, error) {
	out := L.CreateTable(0, 4)
	var err error
	t.ForEach(func(k, v glua.LValue) {
		if ks, ok := k.(glua.LString); ok {
			if to, ok := names[string(ks)]; ok {
				if t.RawGetString(to) != glua.LNil && err == nil {
					err = fmt.Errorf("both %s (pi's name) and %s given", ks, to)
				}
				out.RawSetString(to, v)
				return
			}
		}
		out.RawSet(k, v)
	})
	return out, err
}

func renamed(names map[string]string) piShapeFunc {
	return func(L *glua.LState, t *glua.LTable) (*glua.LTable, error) { return copyRenamed(L, t, names) }
}

// piInput: {action = "continue" | "transform" | "handled", text, images}.
func piInput(L *glua.LState, t *glua.LTable) (*glua.LTable, error) {
	action := t.RawGetString("action")
	if action == glua.LNil {
		return copyRenamed(L, t, map[string]string{"images": "parts"})
	}
	out := L.CreateTable(0, 2)
	switch action {
	case glua.LString("continue"):
	case glua.LString("handled"):
		out.RawSetString("handled", glua.LTrue)
	case glua.LString("transform"):
		var err error
		if out, err = copyRenamed(L, t, map[string]string{"images": "parts"}); err != nil {
			return nil, err
		}
		out.RawSetString("action", glua.LNil)
	default:
		return nil, fmt.Errorf(`action must be "continue", "transform" or "handled", got %s`, action)
	}
	return out, nil
}

// piBeforeAgentStart: {systemPrompt, message = {customType, content, display, details}}.
func piBeforeAgentStart(L *glua.LState, t *glua.LTable) (*glua.LTable, error) {
	out, err := copyRenamed(L, t, map[string]string{"systemPrompt": "system_prompt"})
	if err != nil {
		return nil, err
	}
	if m, ok := out.RawGetString("message").(*glua.LTable); ok {
		mm, err := copyRenamed(L, m, map[string]string{"customType": "custom_type"})
		if err != nil {
			return nil, fmt.Errorf("message: %w", err)
		}
		out.RawSetString("message", mm)
	}
	return out, nil
}

// piBeforeCompact: {cancel} or {compaction = {summary, details,
// firstKeptEntryId, tokensBefore}}. lunar keeps its own cut point: the
// compaction's firstKeptEntryId and tokensBefore are not used.
func piBeforeCompact(L *glua.LState, t *glua.LTable) (*glua.LTable, error) {
	c, ok := t.RawGetString("compaction").(*glua.LTable)
	if !ok {
		return t, nil
	}
	out, _ := copyRenamed(L, t, nil)
	out.RawSetString("compaction", glua.LNil)
	out.RawSetString("summary", c.RawGetString("summary"))
	out.RawSetString("details", c.RawGetString("details"))
	return out, nil
}

// piBeforeTree: {cancel} or {summary = {summary, details}}.
func piBeforeTree(L *glua.LState, t *glua.LTable) (*glua.LTable, error) {
	s, ok := t.RawGetString("summary").(*glua.LTable)
	if !ok {
		return t, nil
	}
	out, _ := copyRenamed(L, t, nil)
	out.RawSetString("summary", s.RawGetString("summary"))
	return out, nil
}
