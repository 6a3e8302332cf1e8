package lua

// This file builds ctx.sessions: read-only access to the other sessions
// on disk (seed 004's listSessions and loadSession), for hooks that
// search or summarise past work.

import (
	"time"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/stdlib"
)

// sessionsModule describes ctx.sessions, bound to h (nil: description only).
func sessionsModule(h *hook) *stdlib.Module {
	var list, read glua.LGFunction
	if h != nil {
		list, read = h.sessionsList, h.sessionsRead
	}
	return &stdlib.Module{Name: "lunar.Sessions", Doc: "The sessions on disk, read-only: nothing is locked, migrated on disk or written, so a session another lunar has open can be read too.",
		Funcs: []stdlib.Func{
			{Name: "list", Fn: list, Returns: "lunar.SessionInfo[]?, string?", Params: []stdlib.Param{{Name: "opts", Type: "{all: boolean?}", Optional: true}},
				Doc: "The sessions of this folder (with all = true, of every folder), newest first. In `lunar hooks check` (no session, no model): nil, \"not available\"."},
			{Name: "read", Fn: read, Returns: "lunar.Entry[]?, string?", Params: []stdlib.Param{{Name: "id", Type: "string", Doc: "a session id, a unique start of one (this folder first, then every folder), or a file path"}},
				Doc: "Every entry of a session, in file order (all branches; session JSON, as ctx.session.all_entries), or nil and why (no such session, several match, not a session file). In `lunar hooks check` (no session, no model): nil, \"not available\"."},
		}}
}

// sessionInfoClass describes one ctx.sessions.list item.
var sessionInfoClass = stdlib.Class{Name: "lunar.SessionInfo", Fields: []stdlib.Field{
	{Name: "id", Type: "string"},
	{Name: "file", Type: "string"},
	{Name: "cwd", Type: "string", Doc: "the folder the session was started in"},
	{Name: "name", Type: "string?", Doc: "the session's name (/name)"},
	{Name: "first_message", Type: "string?", Doc: "the text of its first user message"},
	{Name: "message_count", Type: "integer", Doc: "message entries, every role and branch"},
	{Name: "modified", Type: "string", Doc: "when the file last changed, ISO 8601 UTC"},
	{Name: "parent_session", Type: "string?", Doc: "the session it was forked or handed off from"},
	{Name: "current", Type: "boolean", Doc: "the session this lunar has open"},
}}

func (h *hook) sessionsList(L *glua.LState) int {
	all := false
	if t, ok := L.Get(1).(*glua.LTable); ok {
		all = glua.LVAsBool(t.RawGetString("all"))
	} else if L.Get(1) != glua.LNil {
		L.ArgError(1, "options table expected")
	}
	store, ok := h.rt.host.(SessionStore)
	if !ok {
		return pushResult(L, ErrNotAvailable)
	}
	infos, err := store.ListSessions(all)
	if err != nil {
		return pushResult(L, err)
	}
	current := ""
	if s := h.rt.host.Session(); s != nil {
		current = s.ID()
	}
	t := h.codec().NewArray(len(infos))
	for i, in := range infos {
		t.RawSetInt(i+1, sessionInfoLua(L, in, current))
	}
	L.Push(t)
	return 1
}

func sessionInfoLua(L *glua.LState, in session.Info, current string) *glua.LTable {
	t := L.CreateTable(0, 9)
	t.RawSetString("id", glua.LString(in.ID))
	t.RawSetString("file", glua.LString(in.Path))
	t.RawSetString("cwd", glua.LString(in.Cwd))
	t.RawSetString("name", strOrNil(in.Name))
	t.RawSetString("first_message", strOrNil(in.FirstMessage))
	t.RawSetString("message_count", glua.LNumber(in.MessageCount))
	t.RawSetString("modified", glua.LString(in.Modified.UTC().Format(time.RFC3339Nano)))
	t.RawSetString("parent_session", strOrNil(in.ParentSession))
	t.RawSetString("current", glua.LBool(in.ID != "" && in.ID == current))
	return t
}

func (h *hook) sessionsRead(L *glua.LState) int {
	ref := L.CheckString(1)
	if ref == "" {
		L.ArgError(1, "a session id or file expected")
	}
	store, ok := h.rt.host.(SessionStore)
	if !ok {
		return pushResult(L, ErrNotAvailable)
	}
	s, err := store.ReadSession(ref)
	if err != nil {
		return pushResult(L, err)
	}
	return h.pushEntries(L, s.Entries())
}
