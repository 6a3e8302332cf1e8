package lua

// This file converts between Go values and Lua tables. Messages and entries
// travel through their session JSON (camelCase, exactly as stored), decoded
// straight into tables by the stdlib codec; lunar's own shapes (models,
// params, tokens) are built field by field with snake_case keys.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/stdlib"
)

// luaJSON encodes a Lua value as JSON.
func (h *hook) luaJSON(v glua.LValue) (json.RawMessage, error) {
	b, err := h.codec().Encode(nil, v, stdlib.EncodeOptions{})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// jsonLua decodes JSON into a Lua value; empty input is nil.
func (h *hook) jsonLua(raw json.RawMessage) (glua.LValue, error) {
	if len(raw) == 0 {
		return glua.LNil, nil
	}
	return h.codec().Decode(raw)
}

// marshal is json.Marshal, calling a value's own MarshalJSON directly
// (the session types have one): the decoder validates the text anyway.
func marshal(v any) ([]byte, error) {
	if m, ok := v.(json.Marshaler); ok {
		return m.MarshalJSON()
	}
	return json.Marshal(v)
}

// valueLua converts a Go value through its JSON form.
func (h *hook) valueLua(v any) (glua.LValue, error) {
	b, err := marshal(v)
	if err != nil {
		return glua.LNil, err
	}
	return h.codec().Decode(b)
}

// messageLua converts a message to its session JSON table.
func (h *hook) messageLua(m *session.Message) (glua.LValue, error) {
	return h.valueLua(m)
}

// entriesLua converts entries to an array of session JSON tables.
func (h *hook) entriesLua(entries []*session.Entry) (*glua.LTable, error) {
	t := h.codec().NewArray(len(entries))
	for i, e := range entries {
		v, err := h.valueLua(e)
		if err != nil {
			return nil, fmt.Errorf("entry %s: %w", e.ID, err)
		}
		t.RawSetInt(i+1, v)
	}
	return t, nil
}

// luaMessage converts a session JSON table back into a message.
func (h *hook) luaMessage(v glua.LValue) (session.Message, error) {
	var m session.Message
	t, ok := v.(*glua.LTable)
	if !ok {
		return m, fmt.Errorf("a message table expected, got %s", v.Type())
	}
	b, err := h.codec().Encode(nil, t, stdlib.EncodeOptions{SkipKey: "entry_id"})
	if err != nil {
		return m, err
	}
	return decodeMessage(b)
}

var knownRoles = []string{session.RoleUser, session.RoleAssistant, session.RoleToolResult, session.RoleBashExecution,
	session.RoleCustom, session.RoleBranchSummary, session.RoleCompactionSummary}

func decodeMessage(b []byte) (session.Message, error) {
	var m session.Message
	if err := json.Unmarshal(b, &m); err != nil {
		return m, err
	}
	if !slices.Contains(knownRoles, m.Role) {
		return m, fmt.Errorf("role must be one of %s, got %q", strings.Join(knownRoles, ", "), m.Role)
	}
	return m, nil
}

// blocksLua converts content blocks to an array of session JSON tables.
func (h *hook) blocksLua(blocks []session.ContentBlock) (*glua.LTable, error) {
	t := h.codec().NewArray(len(blocks))
	for i := range blocks {
		v, err := h.valueLua(&blocks[i])
		if err != nil {
			return nil, err
		}
		t.RawSetInt(i+1, v)
	}
	return t, nil
}

// luaBlock converts one content block table.
func (h *hook) luaBlock(t *glua.LTable) (session.ContentBlock, error) {
	var b session.ContentBlock
	raw, err := h.luaJSON(t)
	if err != nil {
		return b, err
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		return b, err
	}
	if b.Type == "" {
		return b, fmt.Errorf("content block without a type")
	}
	return b, nil
}

// luaContent reads message content: a string (one text block) or an array
// of content block tables.
func (h *hook) luaContent(v glua.LValue) ([]session.ContentBlock, error) {
	switch c := v.(type) {
	case glua.LString:
		return []session.ContentBlock{{Type: session.BlockText, Text: string(c)}}, nil
	case *glua.LTable:
		out := make([]session.ContentBlock, 0, c.Len())
		for i := 1; i <= c.Len(); i++ {
			bt, ok := c.RawGetInt(i).(*glua.LTable)
			if !ok {
				return nil, fmt.Errorf("[%d]: a content block table expected", i)
			}
			b, err := h.luaBlock(bt)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out = append(out, b)
		}
		return out, nil
	}
	return nil, fmt.Errorf("a string or an array of content blocks expected, got %s", v.Type())
}

// modelLua builds a model table.
func modelLua(L *glua.LState, m agent.Model) *glua.LTable {
	t := L.CreateTable(0, 8)
	t.RawSetString("provider", glua.LString(m.Provider))
	t.RawSetString("id", glua.LString(m.ID))
	t.RawSetString("api", glua.LString(m.API))
	t.RawSetString("base_url", glua.LString(m.BaseURL))
	t.RawSetString("context_window", glua.LNumber(m.ContextWindow))
	t.RawSetString("max_tokens", glua.LNumber(m.MaxTokens))
	t.RawSetString("reasoning", glua.LBool(m.Reasoning))
	input := m.Input
	if input == nil {
		input = []string{agent.InputText}
	}
	in := L.CreateTable(len(input), 0)
	for i, s := range input {
		in.RawSetInt(i+1, glua.LString(s))
	}
	t.RawSetString("input", in)
	return t
}

// tokensLua builds a {input, output, cache_read, cache_write, total} table.
func tokensLua(L *glua.LState, s agent.TokenStats) *glua.LTable {
	t := L.CreateTable(0, 5)
	t.RawSetString("input", glua.LNumber(s.Input))
	t.RawSetString("output", glua.LNumber(s.Output))
	t.RawSetString("cache_read", glua.LNumber(s.CacheRead))
	t.RawSetString("cache_write", glua.LNumber(s.CacheWrite))
	t.RawSetString("total", glua.LNumber(s.Total))
	return t
}

// strOrNil is a string, or nil when empty.
func strOrNil(s string) glua.LValue {
	if s == "" {
		return glua.LNil
	}
	return glua.LString(s)
}

// resultReader reads fields of a handler's result table, remembering the
// first shape error.
type resultReader struct {
	h     *hook
	t     *glua.LTable
	known []string
	err   error
}

func (rr *resultReader) fail(format string, args ...any) {
	if rr.err == nil {
		rr.err = fmt.Errorf(format, args...)
	}
}

// checkKeys refuses keys the event does not define (a typo would otherwise
// be silently ignored).
func (rr *resultReader) checkKeys() error {
	for k, _ := rr.t.Next(glua.LNil); k != glua.LNil; k, _ = rr.t.Next(k) {
		ks, ok := k.(glua.LString)
		if !ok || !slices.Contains(rr.known, string(ks)) {
			rr.fail("unknown field %s (expected %s)", clip(k.String(), 200), strings.Join(rr.known, ", "))
			return rr.err
		}
	}
	return nil
}

func (rr *resultReader) str(key string) (string, bool) {
	switch v := rr.t.RawGetString(key).(type) {
	case *glua.LNilType:
		return "", false
	case glua.LString:
		return string(v), true
	default:
		rr.fail("%s: string expected, got %s", key, v.Type())
		return "", false
	}
}

func (rr *resultReader) boolean(key string) (bool, bool) {
	switch v := rr.t.RawGetString(key).(type) {
	case *glua.LNilType:
		return false, false
	case glua.LBool:
		return bool(v), true
	default:
		rr.fail("%s: boolean expected, got %s", key, v.Type())
		return false, false
	}
}

func (rr *resultReader) table(key string) (*glua.LTable, bool) {
	switch v := rr.t.RawGetString(key).(type) {
	case *glua.LNilType:
		return nil, false
	case *glua.LTable:
		return v, true
	default:
		rr.fail("%s: table expected, got %s", key, v.Type())
		return nil, false
	}
}
