package lua

// This file implements the context event, the one that converts the most:
// every model call hands the whole context to each listening hook.
//
// Three things keep it cheap. ev.messages is built when the handler first
// reads it, so a hook with nothing to do for a call (it checks its own
// state and returns) converts nothing. A message table handed back
// unchanged (checked by re-encoding it) keeps its original Go value, so a
// handler that drops or adds a few messages costs no full round trip. And
// each hook keeps the tables it built for stored messages from one call to
// the next: entries never change, so a table whose encoding still matches
// the message's JSON is handed out again instead of being rebuilt.

import (
	"bytes"
	"context"
	"fmt"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/stdlib"
)

// ctxKey identifies the message of a stored entry; the extra fields guard
// against an id reused by another session.
type ctxKey struct {
	entryID   string
	timestamp int64
	role      string
	parts     int
}

func keyOf(cm *agent.ContextMessage) ctxKey {
	return ctxKey{cm.EntryID, cm.Message.Timestamp, cm.Message.Role, len(cm.Message.Content)}
}

// ctxCached is a message's JSON and the table built from it.
type ctxCached struct {
	json  []byte
	table *glua.LTable
}

// Context implements agent.Hooks (context): each handler may replace the
// messages of this model call; the result is never stored.
func (r *Runtime) Context(ctx context.Context, msgs []agent.ContextMessage) []agent.ContextMessage {
	if len(r.listeners(evContext)) == 0 {
		return msgs
	}
	if out, changed := r.contextHook(ctx, func() []agent.ContextMessage { return msgs }); changed {
		return out
	}
	return msgs
}

var _ agent.LazyContextHooks = (*Runtime)(nil)

// LazyContext implements agent.LazyContextHooks: Context over messages
// built only when a handler reads ev.messages; changed is false when
// every handler left them as they were.
func (r *Runtime) LazyContext(ctx context.Context, messages func() []agent.ContextMessage) ([]agent.ContextMessage, bool) {
	if len(r.listeners(evContext)) == 0 {
		return nil, false
	}
	return r.contextHook(ctx, messages)
}

func (r *Runtime) contextHook(ctx context.Context, messages func() []agent.ContextMessage) (msgs []agent.ContextMessage, changed bool) {
	ctx = context.WithValue(ctx, inContextKey{}, true)
	// stored[i]: msgs[i] is exactly the message of entry msgs[i].EntryID
	// (true of what the loop passes in; kept for messages a handler hands
	// back unchanged).
	var stored []bool
	built := false
	entries := r.pathEntries()
	current := func() ([]agent.ContextMessage, []bool) {
		if !built {
			built = true
			msgs = messages()
			stored = make([]bool, len(msgs))
			for i := range msgs {
				stored[i] = msgs[i].EntryID != ""
			}
		}
		return msgs, stored
	}
	for _, hd := range r.listeners(evContext) {
		var cur []agent.ContextMessage
		var curStored []bool
		var orig [][]byte
		var tables map[*glua.LTable]int
		var out []agent.ContextMessage
		var outStored []bool
		replaced := false
		err := r.invoke(ctx, hd, func(h *hook, L *glua.LState, ev *glua.LTable) error {
			h.setLazy(L, ev, lazyField{"messages", func() (glua.LValue, error) {
				cur, curStored = current()
				return h.contextTables(cur, curStored, &orig, &tables)
			}}, h.lazyArray("entries", entries.get))
			return nil
		}, func(rr *resultReader) error {
			mt, ok := rr.table("messages")
			if !ok {
				return nil
			}
			h := rr.h
			n := mt.Len()
			out = make([]agent.ContextMessage, 0, n)
			outStored = make([]bool, 0, n)
			// same: so far, out is cur's first messages as they were.
			same := tables != nil && n == len(cur)
			var buf []byte
			for i := 1; i <= n; i++ {
				t, ok := mt.RawGetInt(i).(*glua.LTable)
				if !ok {
					return fmt.Errorf("messages[%d]: a message table expected, got %s", i, mt.RawGetInt(i).Type())
				}
				var entryID string
				switch e := t.RawGetString("entry_id").(type) {
				case glua.LString:
					entryID = string(e)
				case *glua.LNilType:
				default:
					if !h.codec().IsNull(e) {
						return fmt.Errorf("messages[%d].entry_id: string expected, got %s", i, e.Type())
					}
				}
				var err error
				buf, err = h.codec().Encode(buf[:0], t, stdlib.EncodeOptions{SkipKey: "entry_id"})
				if err != nil {
					return fmt.Errorf("messages[%d]: %w", i, err)
				}
				if idx, ok := tables[t]; ok && bytes.Equal(buf, orig[idx]) {
					cm := cur[idx]
					sameID := cm.EntryID == entryID
					same = same && sameID && idx == i-1
					cm.EntryID = entryID
					out = append(out, cm)
					outStored = append(outStored, sameID && curStored[idx])
					continue
				}
				same = false
				m, err := decodeMessage(buf)
				if err != nil {
					return fmt.Errorf("messages[%d]: %w", i, err)
				}
				out = append(out, agent.ContextMessage{EntryID: entryID, Message: m})
				outStored = append(outStored, false)
			}
			// Handing back what it read, in order and unchanged, is no
			// replacement.
			replaced = !same
			return nil
		})
		if err == nil && replaced {
			msgs, stored, built, changed = out, outStored, true, true
		}
	}
	return msgs, changed
}

// pathEntries are the entries on the open session's path, root to leaf,
// shared by the hooks of one event (none without a session).
func (r *Runtime) pathEntries() *sharedList {
	return newSharedEntries(func() []*session.Entry {
		if s := r.host.Session(); s != nil {
			return s.Path("")
		}
		return nil
	})
}

// contextTables builds the messages array for one handler call, reusing
// the hook's cached tables of stored messages that nobody modified.
func (h *hook) contextTables(msgs []agent.ContextMessage, stored []bool, orig *[][]byte, tables *map[*glua.LTable]int) (*glua.LTable, error) {
	arr := h.codec().NewArray(len(msgs))
	*orig = make([][]byte, len(msgs))
	*tables = make(map[*glua.LTable]int, len(msgs))
	old := h.ctxCache
	h.ctxCache = make(map[ctxKey]ctxCached, len(msgs))
	var buf []byte
	for i := range msgs {
		cm := &msgs[i]
		var key ctxKey
		var t *glua.LTable
		var b []byte
		if stored[i] {
			key = keyOf(cm)
			if c, ok := old[key]; ok {
				var err error
				buf, err = h.codec().Encode(buf[:0], c.table, stdlib.EncodeOptions{SkipKey: "entry_id"})
				if err == nil && bytes.Equal(buf, c.json) {
					t, b = c.table, c.json
				}
			}
		}
		if t == nil {
			var err error
			if b, err = marshal(&cm.Message); err != nil {
				return arr, fmt.Errorf("message %d: %w", i+1, err)
			}
			v, err := h.codec().Decode(b)
			if err != nil {
				return arr, fmt.Errorf("message %d: %w", i+1, err)
			}
			var ok bool
			if t, ok = v.(*glua.LTable); !ok {
				return arr, fmt.Errorf("message %d is not an object", i+1)
			}
		}
		if cm.EntryID != "" {
			t.RawSetString("entry_id", glua.LString(cm.EntryID))
		} else {
			t.RawSetString("entry_id", glua.LNil)
		}
		if stored[i] {
			h.ctxCache[key] = ctxCached{json: b, table: t}
		}
		arr.RawSetInt(i+1, t)
		(*orig)[i] = b
		(*tables)[t] = i
	}
	return arr, nil
}
