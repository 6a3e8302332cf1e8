package lua

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/stdlib"
)

// metaClasses splits the meta file into its ---@class blocks, by name.
func metaClasses(meta string) map[string]string {
	out := map[string]string{}
	for _, block := range strings.Split(meta, "---@class ")[1:] {
		name, _, _ := strings.Cut(block, "\n")
		name, _, _ = strings.Cut(name, ":")
		out[strings.TrimSpace(name)] = block
	}
	return out
}

func functions(t *glua.LTable) []string {
	var out []string
	t.ForEach(func(k, v glua.LValue) {
		if _, ok := v.(*glua.LFunction); ok {
			out = append(out, k.String())
		}
	})
	return out
}

// TestTypesMetaCoversTheLiveAPI walks what a real hook state gets and checks
// that every function, field and event is described in the meta file.
func TestTypesMetaCoversTheLiveAPI(t *testing.T) {
	meta := TypesMeta()
	classes := metaClasses(meta)
	syntax := glua.NewState()
	defer syntax.Close()
	_, err := syntax.LoadString(meta)
	require.NoError(t, err, "the meta file is valid Lua")
	r := newRuntime(Options{Report: func(m string) { t.Error(m) }})
	defer r.Close()
	h := r.loadHook(Source{Name: "probe.lua", Code: []byte("-- nothing")})
	L := h.L

	lunarT, ok := L.GetGlobal("lunar").(*glua.LTable)
	require.True(t, ok)
	require.NoError(t, stdlib.Fill(L, lunarT)) // its functions are built on first use
	fns := functions(lunarT)
	assert.Len(t, fns, 22)
	for _, f := range fns {
		assert.Contains(t, meta, "\nfunction lunar."+f+"(", "lunar.%s", f)
	}

	require.NoError(t, stdlib.Fill(L, h.ctxTable(false))) // its function tables are built on first use
	require.NoError(t, stdlib.Fill(L, h.ctxTable(true)))
	for field, class := range map[string]string{"ui": "lunar.UI", "session": "lunar.SessionAPI", "models": "lunar.Models"} {
		tbl, ok := h.ctxTable(false).RawGetString(field).(*glua.LTable)
		require.True(t, ok, field)
		require.Contains(t, classes, class)
		assert.Contains(t, classes["lunar.Ctx"], "---@field "+field+" "+class)
		for _, f := range functions(tbl) {
			assert.Contains(t, classes[class], "---@field "+f+" fun(", "ctx.%s.%s", field, f)
		}
	}
	for _, f := range functions(h.ctxTable(true)) { // its own, and lunar.Ctx's it inherits
		assert.Contains(t, classes["lunar.CommandCtx"]+classes["lunar.Ctx"], "---@field "+f+" fun(", "command ctx.%s", f)
	}
	for _, f := range functions(h.ctxTable(false)) {
		assert.Contains(t, classes["lunar.Ctx"], "---@field "+f+" fun(", "ctx.%s", f)
	}
	assert.Contains(t, classes["lunar.CommandCtx"], "---@field args ")
	for name := range ctxGetters {
		assert.Contains(t, classes["lunar.Ctx"], "---@field "+name+" ", "ctx.%s", name)
	}
	for _, f := range ctxFields {
		_, live := ctxGetters[f.Name]
		_, table := h.ctxTable(false).RawGetString(f.Name).(*glua.LTable)
		assert.True(t, live || table, "documented ctx.%s exists", f.Name)
	}

	for _, mod := range []string{"json", "fs", "http", "text", "re", "path", "utf8", "time", "tokens"} {
		require.NoError(t, L.DoString(`return require("`+mod+`")`))
		tbl := L.Get(-1).(*glua.LTable)
		L.Pop(1)
		class := classes["lunar.mod."+mod]
		require.NotEmpty(t, class, mod)
		assert.Contains(t, meta, `---@overload fun(name: "`+mod+`"): lunar.mod.`+mod)
		tbl.ForEach(func(k, v glua.LValue) {
			if _, ok := v.(*glua.LFunction); ok {
				assert.Contains(t, class, "---@field "+k.String()+" fun(", "%s.%s", mod, k)
			} else {
				assert.Contains(t, class, "---@field "+k.String()+" ", "%s.%s", mod, k)
			}
		})
	}

	for name := range eventNames {
		assert.Contains(t, meta, `---| "`+name+`"`, "event %s", name)
		assert.Contains(t, meta, `fun(event: "`+name+`"`, "overload for %s", name)
	}
	for id := range events {
		assert.Contains(t, classes, eventClass("ev", events[id].Name))
	}
}
