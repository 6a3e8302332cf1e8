package hooksd_test

// The permission policy on real paths (symlinks, /proc/self/root) and the
// sandbox it gives bash commands.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/agent/tools"
	"github.com/lunar-cli/lunar/lua/luatest"
)

func pathJSON(t *testing.T, p string) string {
	b, err := json.Marshal(map[string]string{"path": p, "content": "x"})
	require.NoError(t, err)
	return string(b)
}

func TestPermissionRealPaths(t *testing.T) {
	outside := t.TempDir()
	outside, _ = filepath.EvalSymlinks(outside)
	require.NoError(t, os.MkdirAll(filepath.Join(outside, "secret"), 0o755))
	conf, err := json.Marshal(map[string]any{
		"allow": []string{"write: *", "edit: *"},
		"deny":  []string{"write: secret.txt", "read: " + outside + "/secret/*", "edit: " + outside + "/*"},
	})
	require.NoError(t, err)
	ui := &luatest.UI{Interactive: true}
	rt, cwd := policy(t, string(conf), ui)
	link := func(target, name string) {
		require.NoError(t, os.Symlink(target, filepath.Join(cwd, name)))
	}
	link(outside, "out")                    // a folder link leaving the working folder
	link("secret.txt", "alias.txt")         // an alias of a denied file
	link(filepath.Join(cwd, "sub"), "here") // a link that stays inside
	require.NoError(t, os.Mkdir(filepath.Join(cwd, "sub"), 0o755))
	tests := []struct {
		name, tool, path, want string
	}{
		{"allowed write inside", "write", "a.txt", "run"},
		{"allowed write through a link that stays inside", "write", "here/a.txt", "run"},
		{"a write through a link out of the folder asks under allow write: *", "write", "out/x.txt", "ask"},
		{"an absolute deny rule on edit sees through a folder link", "edit", "out/y.txt", "refuse"},
		{"a deny rule sees through an alias", "write", "alias.txt", "refuse"},
		{"a deny rule sees through .. after a link", "write", "sub/../alias.txt", "refuse"},
		{"an absolute deny rule sees through a folder link", "read", "out/secret/key", "refuse"},
		{"an absolute deny rule sees through /proc/self/root", "read", "/proc/self/root" + outside + "/secret/key", "refuse"},
		{"reads elsewhere run", "read", "out/other.txt", "run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := verdict(rt, ui, tt.tool, pathJSON(t, tt.path))
			assert.Equal(t, tt.want, got, reason)
		})
	}

	// Without a UI the escaping write is refused.
	rt, cwd = policy(t, `{"allow": ["write: *"]}`, nil)
	require.NoError(t, os.Symlink(outside, filepath.Join(cwd, "out")))
	got, reason := verdict(rt, &luatest.UI{}, "write", pathJSON(t, "out/x.txt"))
	assert.Equal(t, "refuse", got)
	assert.Contains(t, reason, "needs the user's approval")
}

// The sandbox the policy gives a bash command, by mode and setting.
func TestPermissionSandbox(t *testing.T) {
	if info := tools.Sandbox(); !info.Available {
		t.Skip("no kernel sandbox here: " + info.Reason)
	}
	workdir := &agent.Sandbox{Workdir: true}
	tests := []struct {
		name, conf string
		want       *agent.Sandbox // nil: runs unconfined
	}{
		{"an allowed command in ask mode", `{"allow": ["bash: ls *"]}`, workdir},
		{"auto", `{"mode": "auto"}`, workdir},
		{"auto, a rule naming bash", `{"mode": "auto", "deny": ["bash: rm *"]}`, workdir},
		{"read-only runs bash with nothing writable", `{"mode": "read-only"}`, &agent.Sandbox{}},
		{"read-only with rules", `{"mode": "read-only", "deny": ["bash: rm *"]}`, &agent.Sandbox{}},
		{"writable folders", `{"mode": "auto", "writable": ["~/.cache/go-build"]}`, &agent.Sandbox{Workdir: true, Write: []string{"~/.cache/go-build"}}},
		{"off", `{"mode": "auto", "sandbox": false}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt, _ := policy(t, tt.conf, nil)
			dec := rt.BeforeTool(permBG, "bash", "call", json.RawMessage(bash("ls")))
			require.False(t, dec.Block, dec.Reason)
			assert.Equal(t, tt.want, dec.Sandbox)
		})
	}

	ui := &luatest.UI{Interactive: true}
	rt, _ := policy(t, `{"mode": "read-only"}`, ui)
	_, handled, err := rt.RunCommand(permBG, "permissions", "")
	require.NoError(t, err)
	require.True(t, handled)
	assert.Contains(t, ui.Notices[len(ui.Notices)-1], "mode read-only (refuses write and edit; bash runs sandboxed; MCP tools only when marked read-only)")
	assert.Contains(t, ui.Notices[len(ui.Notices)-1], "\n  sandbox: landlock ABI ")
	assert.Contains(t, ui.Notices[len(ui.Notices)-1], "bash commands write no files")
}
