package lua_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/lua"
)

// globalsListing lists the globals and, for the library tables, their
// keys, as a hook sees them through pairs.
const globalsListing = `
local out = {}
for k, v in pairs(_G) do
  local s = k .. ":" .. type(v)
  if type(v) == "table" and k ~= "_G" then
    local keys = {}
    for k2, v2 in pairs(v) do keys[#keys + 1] = k2 .. ":" .. type(v2) end
    table.sort(keys)
    s = s .. " {" .. table.concat(keys, " ") .. "}"
  end
  out[#out + 1] = s
end
table.sort(out)
return table.concat(out, "\n")`

// TestLazyLibsShowTheSandboxGlobals: the libraries are built on first use,
// yet a hook iterating the globals sees exactly the sandbox's set.
func TestLazyLibsShowTheSandboxGlobals(t *testing.T) {
	rt, reps := loadHooks(t, newHost(t), lua.Options{}, "probe.lua")
	out, _, err := rt.RunCommand(bg, "probe", globalsListing)
	require.NoError(t, err)
	want := []string{
		"_G:table", "_GOPHER_LUA_VERSION:string", "_VERSION:string", "assert:function", "collectgarbage:function",
		"coroutine:table {create:function resume:function running:function status:function wrap:function yield:function}",
		"error:function", "getfenv:function", "getmetatable:function", "ipairs:function", "load:function", "loadstring:function",
		"lunar:table {append_entry:function builtin_tool:function command:function complete:function config:function disable_tool:function enable_tool:function exec:function guard:function log:function on:function paths:function remove_tool:function renderer:function sandbox:function send:function send_message:function serialize_conversation:function set_active_tools:function summary_prompts:function tool:function tools:function}",
		"math:table {abs:function acos:function asin:function atan2:function atan:function ceil:function cos:function cosh:function deg:function exp:function floor:function fmod:function frexp:function huge:number ldexp:function log10:function log:function max:function min:function mod:function modf:function pi:number pow:function rad:function random:function randomseed:function sin:function sinh:function sqrt:function tan:function tanh:function}",
		"module:function", "newproxy:function", "next:function",
		"os:table {clock:function date:function difftime:function getenv:function time:function}",
		"package:table {config:string cpath:string loaded:table loaders:table path:string preload:table seeall:function}",
		"pairs:function", "pcall:function", "print:function", "rawequal:function", "rawget:function", "rawset:function",
		"require:function", "select:function", "setfenv:function", "setmetatable:function",
		"string:table {__index:table byte:function char:function dump:function find:function format:function gfind:function gmatch:function gsub:function len:function lower:function match:function rep:function reverse:function sub:function upper:function}",
		"table:table {concat:function getn:function insert:function maxn:function remove:function sort:function}",
		"tonumber:function", "tostring:function", "type:function", "unpack:function", "xpcall:function",
	}
	assert.Equal(t, "ok: "+strings.Join(want, "\n"), out)
	assert.Empty(t, reps.Lines())
}

// TestLazyLibsBehaveAsOpened: whichever way a library is reached first,
// it is one table, and the hook's own assignments win.
func TestLazyLibsBehaveAsOpened(t *testing.T) {
	tests := []struct {
		name string
		code string
		want string
	}{
		{"string method first", `local u = ("ab"):upper() return u .. tostring(getmetatable("").__index == string)`, "ok: ABtrue"},
		{"string global first", `local s = string return tostring(getmetatable("") == s) .. ("x"):rep(2)`, "ok: truexx"},
		{"require a library", `return require("string") == string and package.loaded.math == math and require("lunar") == lunar`, "ok: true"},
		{"package.loaded first", `local m = package.loaded.table return m == table`, "ok: true"},
		{"assigned before use", `string = nil return string == nil and ("a"):upper() == "A"`, "ok: true"},
		{"rawset before use", `rawset(_G, "math", 7) return math`, "ok: 7"},
		{"rawget before use", `return type(rawget(_G, "table"))`, "ok: table"},
		{"rawget of no global", `return rawget(_G, "io") == nil and io == nil`, "ok: true"},
		{"globals have no metatable", `return getmetatable(_G) == nil`, "ok: true"},
		{"strict globals", `setmetatable(_G, { __index = function(_, k) error("undeclared " .. k, 2) end })
local ok, err = pcall(function() return undeclared_name end)
return type(os.time()) .. " " .. tostring(err):match("undeclared [%w_]+")`, "ok: number undeclared undeclared_name"},
		{"next over globals", `local n = 0 local k = next(_G) while k do n = n + 1 k = next(_G, k) end return n > 30`, "ok: true"},
		{"coroutine.wrap", `return coroutine.wrap(function(a) return a * 2 end)(21)`, "ok: 42"},
		{"limited string.rep", `return pcall(string.rep, "x", 1e12) == false`, "ok: true"},
		{"a new global", `fresh_global = 5 return rawget(_G, "fresh_global")`, "ok: 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// a fresh state each: the first use is what is tested
			rt, reps := loadHooks(t, newHost(t), lua.Options{}, "probe.lua")
			out, _, err := rt.RunCommand(bg, "probe", tt.code)
			require.NoError(t, err)
			assert.Equal(t, tt.want, out)
			assert.Empty(t, reps.Lines())
		})
	}
}

// TestHandlersGetWhatTheyDeclare: the event table and ctx are built only
// for handlers that can see them, and every handler sees what it declares.
func TestHandlersGetWhatTheyDeclare(t *testing.T) {
	rt, reports := loadCode(t, newHost(t), `local json = require("json")
local seen = {}
lunar.on("session.before_clear", function() seen[#seen + 1] = "none" end)
lunar.on("session.before_clear", function(ev) seen[#seen + 1] = ev.type end)
lunar.on("session.before_clear", function(ev, ctx) seen[#seen + 1] = ev.session_id .. " " .. type(ctx.ui) end)
lunar.on("session.before_clear", function(...) local ev, ctx = ... seen[#seen + 1] = select("#", ...) .. " " .. ev.type .. " " .. type(ctx.ui) end)
lunar.on("session.before_clear", function(ev, ctx, extra) seen[#seen + 1] = tostring(extra) .. " " .. type(ctx) end)
lunar.command("seen", { handler = function() return json.encode(seen) end })`)
	cancel, _ := rt.BeforeClear(bg, "s1")
	assert.False(t, cancel)
	out, _, err := rt.RunCommand(bg, "seen", "")
	require.NoError(t, err)
	assert.JSONEq(t, `["none", "session.before_clear", "s1 table", "2 session.before_clear table", "nil table"]`, out)
	assert.Empty(t, *reports)
}
