//go:build unix

package tools

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent"
)

// A write or edit the policy approved for one real path fails, rather
// than follow a link swapped in after the approval.
func TestWriteAndEditPinnedToTheApprovedPath(t *testing.T) {
	cwd, outside := t.TempDir(), t.TempDir()
	cwd, _ = filepath.EvalSymlinks(cwd)
	target := filepath.Join(cwd, "a.txt")
	require.NoError(t, os.WriteFile(target, []byte("old\n"), 0o644))
	approved := agent.WithSandbox(context.Background(), &agent.Sandbox{Write: []string{target}})

	res := callCtx(approved, t, builtin(t, "write", cwd), `{"path":"a.txt","content":"new\n"}`, nil)
	require.False(t, res.IsError, text(res))
	res = callCtx(approved, t, builtin(t, "edit", cwd), `{"path":"a.txt","oldText":"new","newText":"edited"}`, nil)
	require.False(t, res.IsError, text(res))

	// The approved file becomes a link out of the folder.
	require.NoError(t, os.WriteFile(filepath.Join(outside, "victim"), []byte("safe\n"), 0o644))
	require.NoError(t, os.Remove(target))
	require.NoError(t, os.Symlink(filepath.Join(outside, "victim"), target))
	for _, tc := range []struct{ tool, args string }{
		{"write", `{"path":"a.txt","content":"pwned\n"}`},
		{"edit", `{"path":"a.txt","oldText":"safe","newText":"pwned"}`},
	} {
		res = callCtx(approved, t, builtin(t, tc.tool, cwd), tc.args, nil)
		assert.True(t, res.IsError, tc.tool)
		assert.Contains(t, text(res), "not to the file that was approved", tc.tool)
	}
	data, err := os.ReadFile(filepath.Join(outside, "victim"))
	require.NoError(t, err)
	assert.Equal(t, "safe\n", string(data))

	// Without a sandbox (no policy, or auto mode) links are followed as ever.
	res = call(t, builtin(t, "write", cwd), `{"path":"a.txt","content":"through\n"}`)
	require.False(t, res.IsError, text(res))
	data, _ = os.ReadFile(filepath.Join(outside, "victim"))
	assert.Equal(t, "through\n", string(data))
}
