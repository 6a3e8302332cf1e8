package lua_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/lua"
)

func TestSandboxRefusesForbiddenCapabilities(t *testing.T) {
	var logs []string
	rt, reps := loadHooks(t, newHost(t), lua.Options{Log: func(hook, level, msg string) {
		logs = append(logs, hook+" "+level+" "+msg)
	}}, "probe.lua")
	tests := []struct {
		name string
		code string
		want string // prefix of the /probe answer
	}{
		{"io.open", `return io.open("/etc/passwd")`, "error: "},
		{"io.write", `io.write("x")`, "error: "},
		{"os.execute", `return os.execute("true")`, "error: "},
		{"os.remove", `return os.remove("/tmp/x")`, "error: "},
		{"os.rename", `return os.rename("/tmp/x", "/tmp/y")`, "error: "},
		{"os.exit", `os.exit(1)`, "error: "},
		{"os.setenv", `os.setenv("X", "1")`, "error: "},
		{"os.tmpname", `return os.tmpname()`, "error: "},
		{"debug.getinfo", `return debug.getinfo(1)`, "error: "},
		{"dofile", `return dofile("/etc/passwd")`, "error: "},
		{"loadfile", `return loadfile("/etc/passwd")`, "error: "},
		{"package.loadlib", `return package.loadlib("libc.so.6", "system")`, "error: "},
		{"require io", `return require("io")`, "error: "},
		{"require debug", `return require("debug")`, "error: "},
		{"require relative escape", `return require("../secret")`, "error: "},
		{"require absolute path", `return require("/etc/passwd")`, "error: "},
		{"require dotted escape", `return require("..etc.passwd")`, "error: "},
		{"require missing lib", `return require("nothere")`, "error: "},
		{"string.dump", `return string.dump(function() end)`, "error: "},
		{"bytecode loadstring", `return loadstring(string.char(27) .. "LuaQ\0\1\4\8\4\8\0") == nil`, "ok: true"},
		{"bytecode load", `local sent = false
return load(function() if sent then return nil end sent = true return string.char(27) .. "LuaQ\0\1\4\8\4\8\0" end) == nil`, "ok: true"},
		{"environment escape", `return getfenv(0).io == nil and getfenv(1).debug == nil`, "ok: true"},
		{"channel lib", `return channel == nil`, "ok: true"},
		// what the sandbox keeps
		{"loadstring of source", `return loadstring("return 1 + 1")()`, "ok: 2"},
		{"os.time", `return type(os.time())`, "ok: number"},
		{"os.date", `return os.date("!%Y", 0)`, "ok: 1970"},
		{"os.getenv", `return type(os.getenv("PATH"))`, "ok: string"},
		{"os.clock and difftime", `return os.difftime(2, 1) + os.clock() * 0`, "ok: 1"},
		{"coroutine", `local co = coroutine.wrap(function(a) local b = coroutine.yield(a + 1) return b * 2 end) return co(1) + co(10)`, "ok: 22"},
		{"stdlib require", `return require("json").encode({1, 2})`, "ok: [1,2]"},
		{"lunar module", `return require("lunar") == lunar`, "ok: true"},
		{"package.path cleared", `return package.path .. package.cpath`, "ok: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, handled, err := rt.RunCommand(bg, "probe", tt.code)
			require.NoError(t, err)
			require.True(t, handled)
			assert.True(t, strings.HasPrefix(out, tt.want), "got %q, want prefix %q", out, tt.want)
		})
	}
	out, _, err := rt.RunCommand(bg, "probe", `print("to", "the log") return 1`)
	require.NoError(t, err)
	assert.Equal(t, "ok: 1", out)
	assert.Equal(t, []string{"probe.lua print to\tthe log"}, logs, "print goes to the log (stderr), never stdout")
	assert.Empty(t, reps.Lines())
}

func TestRequireFindsOnlyTheHookLib(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.lua")
	writeFile(t, outside, `return "secret"`)
	writeFile(t, filepath.Join(dir, "hooks", "lib", "helper.lua"), `return { name = "helper" }`)
	writeFile(t, filepath.Join(dir, "hooks", "lib", "sub", "mod.lua"), `return { name = "sub.mod", helper = require("helper").name }`)
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "hooks", "lib", "escape.lua")))
	hook := filepath.Join(dir, "hooks", "10-lib.lua")
	writeFile(t, hook, `
local json = require("json")
lunar.command("libs", { handler = function()
  local ok, err = pcall(require, "escape")
  return json.encode({ require("helper").name, require("sub.mod").helper, ok, (tostring(err):find("leads outside")) ~= nil })
end })`)
	src, err := lua.FileSource(hook, lua.OriginGlobal)
	require.NoError(t, err)
	rt := lua.Load([]lua.Source{src}, lua.Options{Host: newHost(t), Report: func(m string) { t.Error(m) }})
	defer rt.Close()
	out, _, err := rt.RunCommand(bg, "libs", "")
	require.NoError(t, err)
	assert.JSONEq(t, `["helper", "helper", false, true]`, out)
}
