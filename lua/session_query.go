package lua

// This file serves the ctx.session functions that let a hook look at the
// session often — in a context handler, before every model call — without
// converting the whole path each time: entries(filter) converts only the
// entries the filter keeps, path_ids gives positions as plain strings, and
// context() returns what the next model call would send.

import (
	"fmt"
	"slices"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/session"
)

// entryFilter is a parsed lunar.EntryFilter; nil slices match anything.
type entryFilter struct {
	types, customTypes []string
}

func (f *entryFilter) match(e *session.Entry) bool {
	if f.types != nil && !slices.Contains(f.types, e.Type) {
		return false
	}
	if f.customTypes != nil && (e.CustomType() == "" || !slices.Contains(f.customTypes, e.CustomType())) {
		return false
	}
	return true
}

// checkEntryFilter reads argument n as a lunar.EntryFilter (nil: none).
func checkEntryFilter(L *glua.LState, n int) *entryFilter {
	v := L.Get(n)
	if v == glua.LNil {
		return nil
	}
	t, ok := v.(*glua.LTable)
	if !ok {
		L.ArgError(n, "filter table expected, got "+v.Type().String())
	}
	f := &entryFilter{}
	var bad string
	t.ForEach(func(k, _ glua.LValue) {
		if ks, ok := k.(glua.LString); !ok || (ks != "type" && ks != "custom_type") {
			bad = k.String()
		}
	})
	if bad != "" {
		L.ArgError(n, "unknown filter field "+bad+" (type, custom_type)")
	}
	f.types = stringOrList(L, n, t, "type")
	f.customTypes = stringOrList(L, n, t, "custom_type")
	return f
}

// stringOrList reads a field holding a string or a list of strings.
func stringOrList(L *glua.LState, n int, t *glua.LTable, key string) []string {
	switch v := t.RawGetString(key).(type) {
	case *glua.LNilType:
		return nil
	case glua.LString:
		return []string{string(v)}
	case *glua.LTable:
		out := make([]string, 0, v.Len())
		for i := 1; i <= v.Len(); i++ {
			s, ok := v.RawGetInt(i).(glua.LString)
			if !ok {
				L.ArgError(n, key+" must be a string or a list of strings")
			}
			out = append(out, string(s))
		}
		return out
	default:
		L.ArgError(n, key+" must be a string or a list of strings")
		return nil
	}
}

func (h *hook) sessEntries(L *glua.LState) int {
	f := checkEntryFilter(L, 1)
	s := h.rt.host.Session()
	if s == nil {
		L.Push(h.codec().NewArray(0))
		return 1
	}
	path := s.Path("")
	if f != nil {
		kept := path[:0:0]
		for _, e := range path {
			if f.match(e) {
				kept = append(kept, e)
			}
		}
		path = kept
	}
	return h.pushEntries(L, path)
}

func (h *hook) sessPathIDs(L *glua.LState) int {
	s := h.rt.host.Session()
	if s == nil {
		L.Push(h.codec().NewArray(0))
		return 1
	}
	path := s.Path("")
	t := h.codec().NewArray(len(path))
	for i, e := range path {
		t.RawSetInt(i+1, glua.LString(e.ID))
	}
	L.Push(t)
	return 1
}

// inContextKey marks a context dispatch in progress: ctx.session.context
// inside a context handler would run that handler again, without end.
type inContextKey struct{}

func (h *hook) sessContext(L *glua.LState) int {
	ctx := L.Context()
	if ctx != nil && ctx.Value(inContextKey{}) != nil {
		L.RaiseError("ctx.session.context is not available inside a context handler (use ev.messages)")
	}
	s := h.rt.host.Session()
	if s == nil {
		return pushResult(L, fmt.Errorf("no session: %w", ErrNotAvailable))
	}
	msgs := h.rt.Context(ctx, session.BuildContext(s.Path("")).Messages)
	t := h.codec().NewArray(len(msgs))
	for i := range msgs {
		v, err := h.messageLua(&msgs[i].Message)
		if err != nil {
			L.RaiseError("message %d: %s", i+1, err.Error())
		}
		if mt, ok := v.(*glua.LTable); ok && msgs[i].EntryID != "" {
			mt.RawSetString("entry_id", glua.LString(msgs[i].EntryID))
		}
		t.RawSetInt(i+1, v)
	}
	L.Push(t)
	return 1
}
