package hooksd_test

// The permission policy for MCP server tools (mcp__<server>__<tool>):
// they ask in ask mode unless a rule allows them, run in read-only mode
// only when the server marks them readOnlyHint, and server rules
// (mcp__github, mcp__github__*) cover every tool of a server. The
// binary's tests (mcp_e2e_test.go) drive the same through real servers.

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/lua/luatest"
)

// mcpTools is a tool registry holding two MCP servers' tools.
type mcpTools struct{}

func (mcpTools) ToolList() []agent.ToolInfo {
	return []agent.ToolInfo{
		{Name: "read", Source: agent.SourceBuiltin, Enabled: true},
		{Name: "mcp__github__get_issue", Source: "mcp:github", Enabled: true, ReadOnly: true},
		{Name: "mcp__github__create_issue", Source: "mcp:github", Enabled: true},
		{Name: "mcp__db__query", Source: "mcp:db", Enabled: true, ReadOnly: true},
		{Name: "mcp__db__drop", Source: "mcp:db", Enabled: true},
	}
}
func (mcpTools) SetToolEnabled(string, bool) error   { return nil }
func (mcpTools) SetActiveTools([]string) error       { return nil }
func (mcpTools) BuiltinTool(name string) *agent.Tool { return nil }

func mcpPolicy(t *testing.T, conf string, ui *luatest.UI) *lua.Runtime {
	t.Helper()
	src, err := lua.FileSource("permissions.lua", lua.OriginBundled)
	require.NoError(t, err)
	reps := &luatest.Reports{}
	opts := lua.Options{Host: &luatest.Host{Dir: t.TempDir(), UIValue: ui, Tools: mcpTools{}}, Report: reps.Add, Timeout: 5 * time.Second}
	if conf != "" {
		opts.Config = map[string]json.RawMessage{"permissions": json.RawMessage(conf)}
	}
	rt := lua.Load([]lua.Source{src}, opts)
	t.Cleanup(rt.Close)
	require.Empty(t, reps.Lines())
	return rt
}

func TestPermissionsMCPTools(t *testing.T) {
	const args = `{"id":7}`
	cases := []struct {
		name, conf string
		ui         bool
		tool, want string
	}{
		{"ask mode asks", ``, true, "mcp__github__get_issue", "ask"},
		{"ask mode asks for writes", ``, true, "mcp__db__drop", "ask"},
		{"ask mode without a UI refuses", ``, false, "mcp__db__query", "refuse"},
		{"auto runs", `{"mode":"auto"}`, false, "mcp__db__drop", "run"},
		{"read-only runs readOnlyHint tools", `{"mode":"read-only"}`, false, "mcp__db__query", "run"},
		{"read-only refuses the others", `{"mode":"read-only"}`, true, "mcp__db__drop", "refuse"},
		{"a server rule with * allows", `{"allow":["mcp__github__*"]}`, false, "mcp__github__create_issue", "run"},
		{"a server rule leaves other servers", `{"allow":["mcp__github__*"]}`, true, "mcp__db__query", "ask"},
		{"a bare server rule allows", `{"allow":["mcp__github"]}`, false, "mcp__github__get_issue", "run"},
		{"a tool rule allows that tool", `{"allow":["mcp__db__query"]}`, false, "mcp__db__query", "run"},
		{"a tool rule leaves the others", `{"allow":["mcp__db__query"]}`, false, "mcp__db__drop", "refuse"},
		{"an argument pattern", `{"allow":["mcp__github__get_issue: {\"id\":7}"]}`, false, "mcp__github__get_issue", "run"},
		{"deny shuts a server out in auto", `{"mode":"auto","deny":["mcp__db"]}`, false, "mcp__db__query", "refuse"},
		{"deny beats allow", `{"allow":["mcp__db__*"],"deny":["mcp__db__drop"]}`, true, "mcp__db__drop", "refuse"},
		{"deny in read-only", `{"mode":"read-only","deny":["mcp__github__*"]}`, false, "mcp__github__get_issue", "refuse"},
		{"ask rule beats allow", `{"allow":["mcp__db"],"ask":["mcp__db__drop"]}`, true, "mcp__db__drop", "ask"},
		{"built-in reads still run", `{"allow":["mcp__db"]}`, false, "read", "run"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ui := &luatest.UI{Interactive: c.ui}
			rt := mcpPolicy(t, c.conf, ui)
			input := args
			if c.tool == "read" {
				input = `{"path":"x.txt"}`
			}
			got, reason := verdict(rt, ui, c.tool, input)
			assert.Equal(t, c.want, got, reason)
			if got == "ask" {
				require.NotEmpty(t, ui.Asked)
				assert.Contains(t, ui.Asked[len(ui.Asked)-1], "of the MCP server")
				assert.Contains(t, ui.Asked[len(ui.Asked)-1], `{"id":7}`)
			}
		})
	}
}

// "yes, and allow" in the dialog allows that tool for the session.
func TestPermissionsMCPAllowForSession(t *testing.T) {
	ui := &luatest.UI{Interactive: true, SelectAnswer: "yes, and allow mcp__db__drop for the rest of this session"}
	rt := mcpPolicy(t, ``, ui)
	got, _ := verdict(rt, ui, "mcp__db__drop", `{}`)
	require.Equal(t, "ask", got)
	asked := len(ui.Asked)
	dec := rt.BeforeTool(permBG, "mcp__db__drop", "c2", json.RawMessage(`{"x":1}`))
	assert.False(t, dec.Block)
	assert.Len(t, ui.Asked, asked, "allowed for the session: no second question")
	got, _ = verdict(rt, ui, "mcp__db__query", `{}`)
	assert.Equal(t, "ask", got, "only that tool")
}
