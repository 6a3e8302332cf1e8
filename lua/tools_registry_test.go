package lua_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/agent/tools"
	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/session"
)

// registryHooks loads code as one hook over a real session runtime (the
// tool registry hooks reach) with lunar's built-ins in dir.
func registryHooks(t *testing.T, code string) (*agent.Runtime, *lua.Runtime, *[]string, string) {
	t.Helper()
	dir := t.TempDir()
	var warnings []string
	art, err := agent.NewRuntime(agent.RuntimeOptions{Model: agent.Model{Provider: "p", ID: "m", API: agent.APIOpenAICompletions},
		Tools: tools.Builtins(dir), Warn: func(m string) { warnings = append(warnings, m) }}, session.CreateInMemory(dir), false)
	require.NoError(t, err)
	host := newHost(t)
	host.Dir = dir
	host.Tools = art
	rt, reports := loadCode(t, host, code)
	art.SetHooks(rt, rt)
	warnings = append(warnings, *reports...)
	return art, rt, &warnings, dir
}

func toolByName(ts []*agent.Tool, name string) *agent.Tool {
	for _, t := range ts {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func resultText(r agent.ToolResult) string {
	if len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].Text
}

func TestOverrideWrapsTheBuiltin(t *testing.T) {
	art, _, warnings, dir := registryHooks(t, `
local orig = lunar.builtin_tool("read")
lunar.tool({
  name = "read",
  description = "audited: " .. orig.description,
  parameters = orig.parameters,
  execute = function(args, ctx)
    if args.path:match("%.env$") then
      return { content = "Access denied: " .. args.path, details = { blocked = true } }
    end
    local r = orig.execute(args)
    r.content[1].text = "[audited] " .. r.content[1].text
    return r
  end,
})
`)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\n"), 0o644))
	read := toolByName(art.Tools(), "read")
	require.NotNil(t, read)
	assert.Equal(t, "q.lua", read.Source, "the hook's read replaces the built-in")
	assert.Contains(t, read.Description, "audited: Read the contents of a file")
	assert.Len(t, art.Tools(), 4, "still four tools")
	assert.Contains(t, *warnings, `hook tool "read" (q.lua) replaces the built-in tool`)

	res, err := read.Execute(bg, "c1", json.RawMessage(`{"path":"notes.txt"}`), nil)
	require.NoError(t, err)
	assert.Equal(t, "[audited] hello\n", resultText(res))
	assert.False(t, res.IsError)

	res, err = read.Execute(bg, "c2", json.RawMessage(`{"path":".env"}`), nil)
	require.NoError(t, err)
	assert.Equal(t, "Access denied: .env", resultText(res))

	res, err = read.Execute(bg, "c3", json.RawMessage(`{"path":"missing.txt"}`), nil)
	require.NoError(t, err)
	assert.True(t, res.IsError, "the built-in's failure comes back as an error result")
}

func TestBuiltinToolExecuteValidatesAndReports(t *testing.T) {
	art, _, _, _ := registryHooks(t, `
lunar.tool({
  name = "probe",
  description = "calls built-ins",
  parameters = { type = "object", properties = { what = { type = "string" } } },
  execute = function(args)
    if args.what == "missing" then return tostring(lunar.builtin_tool("grep")) end
    local bash = lunar.builtin_tool("bash")
    if args.what == "method" then return bash:execute({ command = "echo via method" }) end
    if args.what == "bad" then return bash.execute({ cmd = 1 }) end
    return bash.execute({ command = "echo hi" })
  end,
})
`)
	probe := toolByName(art.Tools(), "probe")
	require.NotNil(t, probe)
	run := func(what string) agent.ToolResult {
		res, err := probe.Execute(bg, "c", json.RawMessage(`{"what":"`+what+`"}`), nil)
		require.NoError(t, err)
		return res
	}
	assert.Equal(t, "hi\n", resultText(run("plain")))
	assert.Equal(t, "via method\n", resultText(run("method")))
	bad := run("bad")
	assert.True(t, bad.IsError)
	assert.Contains(t, resultText(bad), `invalid arguments for tool "bash"`)
	assert.Equal(t, "nil", resultText(run("missing")))

	// The wrapped built-in streams its partial output through the hook
	// tool's own update callback, as it would alone.
	var updates []string
	res, err := probe.Execute(bg, "c", json.RawMessage(`{"what":"plain"}`), func(r agent.ToolResult) {
		updates = append(updates, resultText(r))
	})
	require.NoError(t, err)
	assert.Equal(t, "hi\n", resultText(res))
	require.NotEmpty(t, updates, "bash's partial output reached the caller")
	assert.Contains(t, updates[len(updates)-1], "hi")
}

func TestToolRegistryFromLua(t *testing.T) {
	art, _, _, _ := registryHooks(t, `
lunar.tool({ name = "echo", description = "echoes", execute = function() return "echo" end })
lunar.tool({
  name = "admin",
  description = "changes the tool set",
  parameters = { type = "object", properties = { op = { type = "string" }, names = { type = "array", items = { type = "string" } } } },
  execute = function(args)
    local ok, err
    if args.op == "disable" then ok, err = lunar.disable_tool(args.names[1])
    elseif args.op == "enable" then ok, err = lunar.enable_tool(args.names[1])
    elseif args.op == "active" then ok, err = lunar.set_active_tools(args.names)
    elseif args.op == "remove" then ok, err = lunar.remove_tool(args.names[1])
    end
    if args.op ~= "list" then return tostring(ok) .. " " .. tostring(err) end
    local out = {}
    for _, t in ipairs(lunar.tools()) do
      out[#out + 1] = t.name .. "@" .. t.source .. (t.enabled and "" or " off") .. (t.replaces_builtin and " replaces" or "")
    end
    return table.concat(out, ", ")
  end,
})
`)
	admin := toolByName(art.Tools(), "admin")
	require.NotNil(t, admin)
	op := func(op string, names ...string) string {
		args, _ := json.Marshal(map[string]any{"op": op, "names": names})
		res, err := admin.Execute(bg, "c", args, nil)
		require.NoError(t, err)
		return resultText(res)
	}
	names := func() []string {
		var out []string
		for _, t := range art.Tools() {
			out = append(out, t.Name)
		}
		return out
	}
	assert.Equal(t, "read@builtin, bash@builtin, edit@builtin, write@builtin, echo@q.lua, admin@q.lua", op("list"))
	assert.Equal(t, "true nil", op("disable", "bash"))
	assert.Equal(t, []string{"read", "edit", "write", "echo", "admin"}, names())
	assert.Contains(t, op("list"), "bash@builtin off")
	assert.Equal(t, "true nil", op("enable", "bash"))
	assert.Equal(t, `nil unknown tool "grep" (known: read, bash, edit, write, echo, admin)`, op("disable", "grep"))
	assert.Equal(t, "true nil", op("active", "read", "admin"))
	assert.Equal(t, []string{"read", "admin"}, names())
	assert.Equal(t, "true nil", op("active", "read", "bash", "edit", "write", "echo", "admin"))
	assert.Equal(t, "true nil", op("remove", "echo"))
	assert.Equal(t, []string{"read", "bash", "edit", "write", "admin"}, names())
	assert.Equal(t, `nil tool "read" is not registered by q.lua`, op("remove", "read"))
}

func TestToolResultTerminates(t *testing.T) {
	art, rt, _, _ := registryHooks(t, `
lunar.tool({ name = "final", description = "ends the run", execute = function() return { content = "saved", terminate = true } end })
lunar.tool({ name = "plain", description = "does not", execute = function() return "plain" end })
lunar.on("tool.execute.after", function(ev)
  if ev.tool_name == "plain" then return { terminate = not ev.terminate } end
end)
`)
	final := toolByName(art.Tools(), "final")
	res, err := final.Execute(bg, "c", nil, nil)
	require.NoError(t, err)
	assert.True(t, res.Terminate)
	assert.True(t, rt.AfterTool(bg, "plain", "c", nil, nil, agent.TextResult("plain", false)).Terminate, "tool.execute.after sets it")
	assert.False(t, rt.AfterTool(bg, "plain", "c", nil, nil, res).Terminate, "and sees it")
}

func TestCheckReportsOverridesAndToolErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "o.lua")
	writeFile(t, file, `
local orig = lunar.builtin_tool("bash")
lunar.tool({ name = "bash", description = orig.description, parameters = orig.parameters, execute = function(a) return orig.execute(a) end })
lunar.tool({ name = "b2", description = "x", parameters = { type = "object", properties = { n = { type = "strin" } } }, execute = function() end })
`)
	rep, err := lua.Check(file, nil)
	require.NoError(t, err)
	assert.Empty(t, rep.Errors)
	assert.Equal(t, []string{"bash"}, rep.Tools)
	assert.Equal(t, []string{"bash"}, rep.Replaces)
	require.Len(t, rep.ToolErrors, 1)
	// one readable line naming the place, not a metaschema dump
	assert.Regexp(t, `^o\.lua:4: tool "b2": invalid parameters schema: parameters\.properties\.n\.type: [^;\n]*one of[^;\n]*: tool not registered$`, rep.ToolErrors[0])
	assert.NotContains(t, rep.ToolErrors[0], "metaschema")
}

func TestSyntaxErrorAtTheEndNamesTheLastLine(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct{ code, want string }{
		"noend.lua":  {"lunar.on(\"agent.start\", function()\n  if true then\n  end\n\n-- the end is missing\n", "noend.lua:5: syntax error: unexpected end of file (a missing 'end', ')' or '}'?)"},
		"table.lua":  {"local t = {\n  a = 1,", "table.lua:2: syntax error: unexpected end of file (a missing 'end', ')' or '}'?)"},
		"string.lua": {"local s = [[\nnever closed\n", "string.lua:2: unterminated multiline string at the end of the file"},
	} {
		file := filepath.Join(dir, name)
		writeFile(t, file, c.code)
		rep, err := lua.Check(file, nil)
		require.NoError(t, err)
		assert.Equal(t, []string{c.want}, rep.Errors, name)
	}
}
