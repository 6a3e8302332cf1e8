package lua

// This file makes event payload fields lazy: a field that can be large
// (a message, the messages to summarise, a tool's content) is built the
// first time the handler reads it, so a handler that returns without
// looking at it converts nothing. A payload with lazy fields has a
// metatable whose __index builds the field read, whose __newindex drops
// a pending field the handler assigns (its value wins), and whose
// stdlib.FillKey builds every pending field (pairs, next, json.encode);
// getmetatable, setmetatable, rawget and rawset see what they would see
// on a plain table (libs.go). Once every field is built the metatable
// goes: the table is then an ordinary one.
//
// Lua tables belong to one state, so hooks never share them; what the
// hooks of one event share is the JSON text a field is decoded from
// (sharedJSON), encoded once for all of them.

import (
	"fmt"
	"sync"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/stdlib"
)

// lazyField is a payload field built on first read.
type lazyField struct {
	key   string
	build func() (glua.LValue, error)
}

// lazyFields are a table's fields not built yet, in payload order.
type lazyFields struct {
	pending []lazyField
}

// pendingKey names, in a lazy payload's metatable, the userdata holding
// its lazyFields.
const pendingKey = "__lunar_pending"

// lazyFieldFns are the metamethods shared by a hook's lazy payloads.
type lazyFieldFns struct {
	index, newIndex, fill *glua.LFunction
}

// setLazy gives t the fields, built on first read. It does nothing when
// fields is empty.
func (h *hook) setLazy(L *glua.LState, t *glua.LTable, fields ...lazyField) {
	if len(fields) == 0 {
		return
	}
	if h.lazyFns == nil {
		h.lazyFns = &lazyFieldFns{
			index:    L.NewFunction(h.lazyFieldIndex),
			newIndex: L.NewFunction(h.lazyFieldNewIndex),
			fill:     L.NewFunction(h.lazyFieldFill),
		}
	}
	meta := L.CreateTable(0, 4)
	meta.RawSetString("__index", h.lazyFns.index)
	meta.RawSetString("__newindex", h.lazyFns.newIndex)
	meta.RawSetString(stdlib.FillKey, h.lazyFns.fill)
	ud := L.NewUserData()
	ud.Value = &lazyFields{pending: fields}
	meta.RawSetString(pendingKey, ud)
	t.Metatable = meta
}

// lazyFieldsOf returns t's pending fields, if t is a lazy payload.
func lazyFieldsOf(v glua.LValue) (*glua.LTable, *lazyFields) {
	t, ok := v.(*glua.LTable)
	if !ok {
		return nil, nil
	}
	mt, ok := t.Metatable.(*glua.LTable)
	if !ok {
		return nil, nil
	}
	ud, ok := mt.RawGetString(pendingKey).(*glua.LUserData)
	if !ok {
		return nil, nil
	}
	lf, ok := ud.Value.(*lazyFields)
	if !ok {
		return nil, nil
	}
	return t, lf
}

// index returns the position of key among the pending fields (-1: none).
func (lf *lazyFields) index(key glua.LValue) int {
	ks, ok := key.(glua.LString)
	if !ok {
		return -1
	}
	for i, f := range lf.pending {
		if f.key == string(ks) {
			return i
		}
	}
	return -1
}

// take removes pending field i; the metatable goes with the last one.
func (lf *lazyFields) take(t *glua.LTable, i int) lazyField {
	f := lf.pending[i]
	lf.pending = append(lf.pending[:i], lf.pending[i+1:]...)
	if len(lf.pending) == 0 {
		t.Metatable = glua.LNil
	}
	return f
}

// buildField builds pending field i of t into t and returns its value.
func buildField(L *glua.LState, t *glua.LTable, lf *lazyFields, i int) glua.LValue {
	f := lf.take(t, i)
	v, err := f.build()
	if err != nil {
		L.RaiseError("building the event's %s: %s", f.key, err.Error())
	}
	t.RawSetString(f.key, v)
	return v
}

// fillFields builds every pending field of t.
func fillFields(L *glua.LState, t *glua.LTable, lf *lazyFields) {
	for len(lf.pending) > 0 {
		buildField(L, t, lf, 0)
	}
}

// forgetField drops a pending field the hook sets itself.
func forgetField(t *glua.LTable, lf *lazyFields, key glua.LValue) {
	if i := lf.index(key); i >= 0 {
		lf.take(t, i)
	}
}

func (h *hook) lazyFieldIndex(L *glua.LState) int {
	t, lf := lazyFieldsOf(L.Get(1))
	if lf == nil {
		L.Push(glua.LNil)
		return 1
	}
	if i := lf.index(L.Get(2)); i >= 0 {
		L.Push(buildField(L, t, lf, i))
		return 1
	}
	L.Push(glua.LNil)
	return 1
}

func (h *hook) lazyFieldNewIndex(L *glua.LState) int {
	t, lf := lazyFieldsOf(L.Get(1))
	if lf == nil {
		L.ArgError(1, "table expected")
	}
	k, v := L.Get(2), L.Get(3)
	forgetField(t, lf, k)
	t.RawSet(k, v)
	return 0
}

func (h *hook) lazyFieldFill(L *glua.LState) int {
	if t, lf := lazyFieldsOf(L.Get(1)); lf != nil {
		fillFields(L, t, lf)
	}
	return 0
}

// sharedJSON is a value's JSON, encoded once for every hook of an event
// (sync: a handler may keep the payload and read it later).
type sharedJSON struct {
	once sync.Once
	v    any
	b    []byte
	err  error
}

func newSharedJSON(v any) *sharedJSON { return &sharedJSON{v: v} }

func (s *sharedJSON) get() ([]byte, error) {
	s.once.Do(func() {
		s.b, s.err = marshal(s.v)
		s.v = nil
	})
	return s.b, s.err
}

// sharedList is the JSON texts of a list's items, each encoded once for
// every hook of an event, when the first hook reads them.
type sharedList struct {
	once  sync.Once
	items func() (n int, enc func(i int) ([]byte, error))
	js    [][]byte
	err   error
}

func (s *sharedList) get() ([][]byte, error) {
	s.once.Do(func() {
		n, enc := s.items()
		s.items = nil
		s.js = make([][]byte, n)
		for i := range s.js {
			if s.js[i], s.err = enc(i); s.err != nil {
				return
			}
		}
	})
	return s.js, s.err
}

func newSharedMessages(msgs []session.Message) *sharedList {
	return &sharedList{items: func() (int, func(int) ([]byte, error)) {
		return len(msgs), func(i int) ([]byte, error) {
			b, err := marshal(&msgs[i])
			if err != nil {
				return nil, fmt.Errorf("message %d: %w", i+1, err)
			}
			return b, nil
		}
	}}
}

// newSharedEntries shares the entries path returns (called once, on the
// first read).
func newSharedEntries(path func() []*session.Entry) *sharedList {
	return &sharedList{items: func() (int, func(int) ([]byte, error)) {
		entries := path()
		return len(entries), func(i int) ([]byte, error) {
			b, err := marshal(entries[i])
			if err != nil {
				return nil, fmt.Errorf("entry %s: %w", entries[i].ID, err)
			}
			return b, nil
		}
	}}
}

func newSharedBlocks(blocks []session.ContentBlock) *sharedList {
	return &sharedList{items: func() (int, func(int) ([]byte, error)) {
		return len(blocks), func(i int) ([]byte, error) { return marshal(&blocks[i]) }
	}}
}

// lazyJSON is a field decoded, in h's state, from a shared JSON text
// (nil when the text is empty).
func (h *hook) lazyJSON(key string, s *sharedJSON) lazyField {
	return lazyField{key, func() (glua.LValue, error) {
		b, err := s.get()
		if err != nil {
			return glua.LNil, err
		}
		return h.jsonLua(b)
	}}
}

// lazyArray is a field holding an array decoded, in h's state, from
// shared JSON texts.
func (h *hook) lazyArray(key string, get func() ([][]byte, error)) lazyField {
	return lazyField{key, func() (glua.LValue, error) {
		js, err := get()
		if err != nil {
			return glua.LNil, err
		}
		return h.decodeArray(js)
	}}
}

// decodeArray decodes JSON texts into an array.
func (h *hook) decodeArray(js [][]byte) (*glua.LTable, error) {
	t := h.codec().NewArray(len(js))
	for i, b := range js {
		v, err := h.codec().Decode(b)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i+1, err)
		}
		t.RawSetInt(i+1, v)
	}
	return t, nil
}

// lazyValue is a field built by fn in h's state (small tables: tokens,
// a model).
func lazyValue(key string, fn func() glua.LValue) lazyField {
	return lazyField{key, func() (glua.LValue, error) { return fn(), nil }}
}
