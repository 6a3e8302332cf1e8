// Package stdlib holds the Lua modules lunar offers to hooks (json, fs,
// http, text, re, path, utf8, time, tokens, shell) and the JSON codec the hook runtime uses to
// move values between Go and Lua.
//
// Every module is described by a Module value: the same table registers the
// functions in a Lua state (Module.Loader) and generates the LuaLS type
// annotations (package lua's TypesMeta), so the two cannot drift apart.
package stdlib

import (
	glua "github.com/yuin/gopher-lua"
)

// Param is one parameter of a Lua function, for the type annotations.
type Param struct {
	Name     string
	Type     string // LuaLS type, e.g. "string", "table<string,string>"
	Optional bool
	Doc      string
}

// Func is one Lua function of an API table: its implementation and its
// description.
type Func struct {
	Name    string
	Params  []Param
	Returns string // LuaLS return types, e.g. "string?, string?"; "" for none
	Doc     string
	Fn      glua.LGFunction
}

// Field is a non-function member of an API table or of a documented table
// shape (an event payload, a result, an option table).
type Field struct {
	Name string
	Type string
	Doc  string
}

// Class is a documented table shape, emitted as a LuaLS ---@class.
type Class struct {
	Name   string // e.g. "http.Response"
	Doc    string
	Fields []Field
}

// Module is a Lua module: a table of functions and fields, loaded with
// require(Name).
type Module struct {
	Name    string
	Doc     string
	Funcs   []Func
	Fields  []Field // documented non-function members, set by Init
	Classes []Class // shapes used by the functions
	// Init sets the non-function members on the module table (may be nil).
	Init func(L *glua.LState, mod *glua.LTable)
}

// Table builds the module table in L.
func (m *Module) Table(L *glua.LState) *glua.LTable {
	t := L.CreateTable(0, len(m.Funcs)+len(m.Fields))
	for _, f := range m.Funcs {
		t.RawSetString(f.Name, L.NewFunction(f.Fn))
	}
	if m.Init != nil {
		m.Init(L, t)
	}
	return t
}

// Loader returns the package.preload loader of the module.
func (m *Module) Loader() glua.LGFunction {
	return func(L *glua.LState) int {
		L.Push(m.Table(L))
		return 1
	}
}

// Preload registers every module with L.PreloadModule, so that
// require("json") and friends work. The state's package library must be
// open.
func Preload(L *glua.LState, mods []*Module) {
	for _, m := range mods {
		L.PreloadModule(m.Name, m.Loader())
	}
}
