package lua

// This file gives each hook's state its standard libraries on first use.
// Opening them all (base, string, table, math, os, coroutine, package and
// the lunar stdlib's preload entries) was about 650 allocations per state,
// most of a trivial hook's load, for functions most hooks never call.
//
// The globals table and package.loaded start with a metatable (lazyMeta)
// whose __index builds a library (or one base function) the first time
// its name is read, stores it in the table and returns it; __newindex and
// rawset of a name not built yet drop it (the hook's own value wins), and
// pairs, next, json.encode, setmetatable and rawget build what they would
// see first, so that what a hook can observe is what an eagerly opened
// state shows. Once every name is built the metatable goes. Each library
// table exists once per state: the global, package.loaded's entry and the
// string metatable are the same table, whichever is read first.
//
// The library functions themselves come from a template state opened once
// per process (gopher-lua's functions take the state as argument), after
// the sandbox's changes: stdlib.LimitLibs, the reduced os, coroutine.resume
// under the current call's context.

import (
	"slices"
	"sync"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/stdlib"
)

// The libraries, in lib indexes.
const (
	libString = iota
	libTable
	libMath
	libOs
	libCoroutine
	libPackage
	numLibs
)

var libNames = [numLibs]string{glua.StringLibName, glua.TabLibName, glua.MathLibName, glua.OsLibName, glua.CoroutineLibName, glua.LoadLibName}

// libEntry is one field of a library table: a function or a value.
type libEntry struct {
	key string
	fn  glua.LGFunction
	val glua.LValue
}

// libTemplate is what the sandbox's libraries hold, read from one state.
type libTemplate struct {
	libs      [numLibs][]libEntry
	base      map[string]glua.LGFunction // base functions by global name
	values    map[string]glua.LValue     // _VERSION, _GOPHER_LUA_VERSION
	ipairsAux glua.LGFunction
	pairsAux  glua.LGFunction
}

// osKeep is what the sandbox's os library keeps.
var osKeep = map[string]bool{"time": true, "clock": true, "date": true, "difftime": true, "getenv": true}

// baseDropped are the base functions the sandbox removes.
var baseDropped = map[string]bool{"dofile": true, "loadfile": true, "_printregs": true}

// template opens the libraries once, applies the sandbox's changes and
// reads what they hold.
var template = sync.OnceValue(func() *libTemplate {
	L := glua.NewState(stateOptions) // not the defaults: an 80 KB data stack and a 21 KB call stack for a state used once
	defer L.Close()
	for _, lib := range []struct {
		name string
		fn   glua.LGFunction
	}{
		{glua.LoadLibName, glua.OpenPackage},
		{glua.BaseLibName, glua.OpenBase},
		{glua.TabLibName, glua.OpenTable},
		{glua.StringLibName, glua.OpenString},
		{glua.MathLibName, glua.OpenMath},
		{glua.CoroutineLibName, glua.OpenCoroutine},
		{glua.OsLibName, glua.OpenOs},
	} {
		L.Push(L.NewFunction(lib.fn))
		L.Push(glua.LString(lib.name))
		L.Call(1, 0)
	}
	stdlib.LimitLibs(L)
	tp := &libTemplate{base: map[string]glua.LGFunction{}, values: map[string]glua.LValue{}}
	g := L.G.Global
	libIndex := map[string]int{}
	for i, name := range libNames {
		libIndex[name] = i
	}
	g.ForEach(func(k, v glua.LValue) {
		name := k.String()
		if _, isLib := libIndex[name]; isLib || name == "_G" || baseDropped[name] {
			return
		}
		switch v := v.(type) {
		case *glua.LFunction:
			tp.base[name] = v.GFunction
			if name == "ipairs" || name == "pairs" {
				aux := v.Upvalues[0].Value().(*glua.LFunction).GFunction
				if name == "ipairs" {
					tp.ipairsAux = aux
				} else {
					tp.pairsAux = aux
				}
			}
		default:
			tp.values[name] = v
		}
	})
	for name, i := range libIndex {
		t := g.RawGetString(name).(*glua.LTable)
		t.ForEach(func(k, v glua.LValue) {
			key := k.String()
			switch {
			case i == libOs && !osKeep[key],
				i == libString && key == "__index", // the table itself
				i == libPackage && (key == "loadlib" || key == "preload" || key == "loaders" ||
					key == "loaded" || key == "path" || key == "cpath"): // per state
				return
			}
			if f, ok := v.(*glua.LFunction); ok {
				tp.libs[i] = append(tp.libs[i], libEntry{key: key, fn: f.GFunction})
			} else {
				tp.libs[i] = append(tp.libs[i], libEntry{key: key, val: v})
			}
		})
		if i == libCoroutine {
			for j, e := range tp.libs[i] {
				if e.key == "resume" {
					tp.libs[i][j].fn = contextResume(e.fn)
				}
			}
		}
	}
	loaders := L.GetField(g.RawGetString("package"), "loaders").(*glua.LTable)
	tp.libs[libPackage] = append(tp.libs[libPackage], libEntry{key: "loaders", fn: loaders.RawGetInt(1).(*glua.LFunction).GFunction})
	return tp
})

// contextResume wraps coroutine.resume: a coroutine keeps the context of
// the call that created it; resume it under the current call's context
// instead, so that one kept across handler calls neither fails at once nor
// escapes the timeout.
func contextResume(orig glua.LGFunction) glua.LGFunction {
	return func(L *glua.LState) int {
		if th, ok := L.Get(1).(*glua.LState); ok && L.Context() != nil {
			th.SetContext(L.Context())
		}
		return orig(L)
	}
}

// lazyKind is the set of names a lazy table builds on first use.
type lazyKind struct {
	names []string
	index map[string]int
}

func newLazyKind(names []string) *lazyKind {
	if len(names) > 64 {
		panic("lua: more than 64 lazy names") // pending is a uint64
	}
	k := &lazyKind{names: names, index: map[string]int{}}
	for i, n := range names {
		k.index[n] = i
	}
	return k
}

// lazyTable is a table with fields built on first use.
type lazyTable struct {
	t       *glua.LTable
	kind    *lazyKind
	pending uint64 // names not built (nor set by the hook) yet
	which   int    // lazyGlobals, lazyLoaded or lazyLunar
}

// The lazy tables of a state.
const (
	lazyGlobals = iota
	lazyLoaded
	lazyLunar
)

// newLazy returns a lazy table of t with every name of kind pending.
func (h *hook) newLazy(t *glua.LTable, kind *lazyKind, which int) lazyTable {
	t.Metatable = h.lazyMeta
	pending := ^uint64(0)
	if n := len(kind.names); n < 64 {
		pending = 1<<n - 1
	}
	return lazyTable{t: t, kind: kind, pending: pending, which: which}
}

// globalNames are the globals a state starts with, but lunar.
var globalNames = sync.OnceValue(func() *lazyKind {
	tp := template()
	names := []string{"_G"}
	for _, n := range libNames {
		names = append(names, n)
	}
	for n := range tp.base {
		names = append(names, n)
	}
	for n := range tp.values {
		names = append(names, n)
	}
	return newLazyKind(names)
})

// loadedNames are package.loaded's first entries.
var loadedNames = sync.OnceValue(func() *lazyKind {
	names := []string{"_G", "lunar"}
	names = append(names, libNames[:]...)
	return newLazyKind(names)
})

// openLoaded builds package.loaded's entry loadedNames().names[i].
func (h *hook) openLoaded(L *glua.LState, i int) glua.LValue {
	switch i {
	case 0:
		return L.G.Global
	case 1:
		return h.lunarT
	}
	return h.lib(L, i-2)
}

// lunarNames are the lunar module's functions.
var lunarNames = sync.OnceValue(func() *lazyKind {
	var names []string
	for n := range lunarFuncs {
		names = append(names, n)
	}
	slices.Sort(names)
	return newLazyKind(names)
})

// installLibs makes the state's globals and the lunar module lazy.
func (h *hook) installLibs(L *glua.LState) {
	meta := L.CreateTable(0, 3)
	meta.RawSetString("__index", L.NewFunction(h.lazyIndex))
	meta.RawSetString("__newindex", L.NewFunction(h.lazyNewIndex))
	meta.RawSetString(stdlib.FillKey, L.NewFunction(h.lazyFill))
	h.lazyMeta = meta
	h.globals = h.newLazy(L.G.Global, globalNames(), lazyGlobals)
	// Room for the few lunar functions a hook uses (they are built on
	// first use), not for all of them: 1 KB less per hook.
	h.lunarT = L.CreateTable(0, 8)
	h.lunar = h.newLazy(h.lunarT, lunarNames(), lazyLunar)
	L.G.Global.RawSetString("lunar", h.lunarT)
	// The string metatable builds the string library on the first method
	// call ("x"):upper(); the library then becomes the metatable, as in an
	// eagerly opened state.
	strMeta := L.CreateTable(0, 1)
	strMeta.RawSetString("__index", L.NewFunction(func(L *glua.LState) int {
		L.Push(h.lib(L, libString).RawGet(L.Get(2)))
		return 1
	}))
	L.SetMetatable(glua.LString(""), strMeta)
}

// lazyOf returns the lazy table t is, if it still has unbuilt names.
func (h *hook) lazyOf(t glua.LValue) *lazyTable {
	tb, ok := t.(*glua.LTable)
	if !ok || tb.Metatable != h.lazyMeta || h.lazyMeta == nil {
		return nil
	}
	switch tb {
	case h.globals.t:
		return &h.globals
	case h.pkgLoaded.t:
		return &h.pkgLoaded
	case h.lunarT:
		return &h.lunar
	}
	return nil
}

// build builds the ith name of lt and stores it.
func (h *hook) build(L *glua.LState, lt *lazyTable, i int) glua.LValue {
	lt.pending &^= 1 << i
	var v glua.LValue
	switch lt.which {
	case lazyGlobals:
		v = h.openGlobal(L, i)
	case lazyLoaded:
		v = h.openLoaded(L, i)
	default:
		fn := lunarFuncs[lt.kind.names[i]]
		v = L.NewFunction(func(L *glua.LState) int { return fn(h, L) })
	}
	lt.t.RawSetString(lt.kind.names[i], v)
	h.settle(lt)
	return v
}

// settle drops lt's metatable once every name is built.
func (h *hook) settle(lt *lazyTable) {
	if lt.pending == 0 && lt.t.Metatable == h.lazyMeta {
		lt.t.Metatable = glua.LNil
	}
}

// pendingIndex returns the index of k in lt if it is a name not built yet.
func (lt *lazyTable) pendingIndex(k glua.LValue) (int, bool) {
	s, ok := k.(glua.LString)
	if !ok {
		return 0, false
	}
	i, ok := lt.kind.index[string(s)]
	return i, ok && lt.pending&(1<<i) != 0
}

// lazyIndex is __index: builds a name read for the first time.
func (h *hook) lazyIndex(L *glua.LState) int {
	if lt := h.lazyOf(L.Get(1)); lt != nil {
		if i, ok := lt.pendingIndex(L.Get(2)); ok {
			L.Push(h.build(L, lt, i))
			return 1
		}
	}
	L.Push(glua.LNil)
	return 1
}

// lazyNewIndex is __newindex: the hook's value replaces a name not built.
func (h *hook) lazyNewIndex(L *glua.LState) int {
	t := L.CheckTable(1)
	if lt := h.lazyOf(t); lt != nil {
		h.forget(lt, L.Get(2))
	}
	t.RawSet(L.Get(2), L.Get(3))
	return 0
}

// forget drops a name not built yet: the hook set it itself.
func (h *hook) forget(lt *lazyTable, k glua.LValue) {
	if i, ok := lt.pendingIndex(k); ok {
		lt.pending &^= 1 << i
		h.settle(lt)
	}
}

// lazyFill is stdlib.FillKey: builds every name (pairs, next, json.encode).
func (h *hook) lazyFill(L *glua.LState) int {
	if lt := h.lazyOf(L.Get(1)); lt != nil {
		h.fill(L, lt)
	}
	return 0
}

func (h *hook) fill(L *glua.LState, lt *lazyTable) {
	for i := range lt.kind.names {
		if lt.pending&(1<<i) != 0 && lt.t.RawGetString(lt.kind.names[i]) == glua.LNil {
			h.build(L, lt, i)
		}
	}
	lt.pending = 0
	h.settle(lt)
}

// lib returns the state's library i, building it on first use.
func (h *hook) lib(L *glua.LState, i int) *glua.LTable {
	if t := h.libs[i]; t != nil {
		return t
	}
	tp := template()
	entries := tp.libs[i]
	t := L.CreateTable(0, len(entries)+1)
	h.libs[i] = t
	for _, e := range entries {
		if e.fn != nil && !(i == libPackage && e.key == "loaders") {
			t.RawSetString(e.key, L.NewFunction(e.fn))
		} else if e.val != nil {
			t.RawSetString(e.key, e.val)
		}
	}
	switch i {
	case libString:
		t.RawSetString("__index", t)
		L.SetMetatable(glua.LString(""), t)
	case libCoroutine:
		L.Push(L.NewFunctionFromProto(coroutineWrap()))
		L.Push(t)
		L.Call(1, 0)
	case libPackage:
		h.openPackage(L, t)
	}
	return t
}

// openPackage fills the package library: require finds the lunar stdlib
// (package.preload) and the hook's lib/ folder, nothing else.
func (h *hook) openPackage(L *glua.LState, pkg *glua.LTable) {
	reg := L.Get(glua.RegistryIndex).(*glua.LTable)
	pkg.RawSetString("path", glua.LString(""))
	pkg.RawSetString("cpath", glua.LString(""))
	preload := L.NewTable()
	pkg.RawSetString("preload", preload)
	h.preloadStdlib(L, preload)
	loaders := L.CreateTable(2, 0)
	for _, e := range template().libs[libPackage] {
		if e.key == "loaders" {
			loaders.RawSetInt(1, L.NewFunction(e.fn))
		}
	}
	loaders.RawSetInt(2, L.NewFunction(h.libLoader))
	pkg.RawSetString("loaders", loaders)
	reg.RawSetString("_LOADERS", loaders)
	loaded := L.NewTable()
	h.pkgLoaded = h.newLazy(loaded, loadedNames(), lazyLoaded)
	pkg.RawSetString("loaded", loaded)
	reg.RawSetString("_LOADED", loaded)
}

// openGlobal builds the global named globalNames().names[i].
func (h *hook) openGlobal(L *glua.LState, i int) glua.LValue {
	tp := template()
	name := h.globals.kind.names[i]
	for li, n := range libNames {
		if n == name {
			return h.lib(L, li)
		}
	}
	if v, ok := tp.values[name]; ok {
		return v
	}
	switch name {
	case "_G":
		return L.G.Global
	case "print":
		return L.NewFunction(h.luaPrint)
	case "ipairs":
		return L.NewClosure(tp.base[name], L.NewFunction(tp.ipairsAux))
	case "pairs":
		return h.filling(L, L.NewClosure(tp.base[name], L.NewFunction(tp.pairsAux)))
	case "next":
		return h.filling(L, L.NewFunction(tp.base[name]))
	case "require", "module":
		h.lib(L, libPackage) // they read package.loaded and package.loaders
	case "getmetatable":
		orig := tp.base[name]
		return L.NewFunction(func(L *glua.LState) int {
			if _, lf := lazyFieldsOf(L.Get(1)); h.lazyOf(L.Get(1)) != nil || lf != nil {
				L.Push(glua.LNil) // the lazy metatable is not the hook's
				return 1
			}
			return orig(L)
		})
	case "setmetatable":
		orig := tp.base[name]
		return L.NewFunction(func(L *glua.LState) int {
			if lt := h.lazyOf(L.Get(1)); lt != nil {
				h.fill(L, lt)
			} else if t, lf := lazyFieldsOf(L.Get(1)); lf != nil {
				fillFields(L, t, lf)
			} else if t, ok := L.Get(1).(*glua.LTable); ok && h.ctxMeta != nil && t.Metatable == h.ctxMeta {
				h.ctxFill(t)
			}
			return orig(L)
		})
	case "rawget":
		orig := tp.base[name]
		return L.NewFunction(func(L *glua.LState) int {
			if lt := h.lazyOf(L.Get(1)); lt != nil {
				if i, ok := lt.pendingIndex(L.Get(2)); ok {
					h.build(L, lt, i)
				}
			} else if t, lf := lazyFieldsOf(L.Get(1)); lf != nil {
				if i := lf.index(L.Get(2)); i >= 0 {
					buildField(L, t, lf, i)
				}
			} else if t, ok := L.Get(1).(*glua.LTable); ok && h.ctxMeta != nil && t.Metatable == h.ctxMeta {
				h.ctxFill(t)
			}
			return orig(L)
		})
	case "rawset":
		orig := tp.base[name]
		return L.NewFunction(func(L *glua.LState) int {
			if lt := h.lazyOf(L.Get(1)); lt != nil {
				h.forget(lt, L.Get(2))
			} else if t, lf := lazyFieldsOf(L.Get(1)); lf != nil {
				forgetField(t, lf, L.Get(2))
			}
			return orig(L)
		})
	}
	return L.NewFunction(tp.base[name])
}

// filling wraps pairs or next: they build a table's lazy fields first (the
// context event's messages, the lazy globals), so iterating shows every
// field.
func (h *hook) filling(L *glua.LState, orig *glua.LFunction) *glua.LFunction {
	return L.NewFunction(func(L *glua.LState) int {
		if t, ok := L.Get(1).(*glua.LTable); ok {
			if err := stdlib.Fill(L, t); err != nil {
				L.RaiseError("%s", err.Error())
			}
		}
		top := L.GetTop()
		L.Push(orig)
		for i := 1; i <= top; i++ {
			L.Push(L.Get(i))
		}
		L.Call(top, glua.MultRet)
		return L.GetTop() - top
	})
}
