package tools

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent"
)

// sandboxDirs makes a working folder, a temp folder (TMPDIR) and a
// folder outside both.
func sandboxDirs(t *testing.T) (cwd, tmp, outside string) {
	outside, tmp, cwd = t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	return cwd, tmp, outside
}

func requireLandlock(t testing.TB) {
	if info := Sandbox(); !info.Available {
		t.Skip("no Landlock here: " + info.Reason)
	}
}

// runConfined runs command through the bash tool with sandbox sb.
func runConfined(t *testing.T, cwd string, sb *agent.Sandbox, command string) agent.ToolResult {
	t.Helper()
	ctx := context.Background()
	if sb != nil {
		ctx = agent.WithSandbox(ctx, sb)
	}
	return callCtx(ctx, t, builtin(t, "bash", cwd), args(t, map[string]any{"command": command}), nil)
}

func TestBashSandbox(t *testing.T) {
	requireLandlock(t)
	cwd, tmp, outside := sandboxDirs(t)
	extra := t.TempDir()
	tests := []struct {
		name    string
		sandbox *agent.Sandbox
		path    string
		ok      bool
	}{
		{"workdir: the working folder", &agent.Sandbox{Workdir: true}, filepath.Join(cwd, "a"), true},
		{"workdir: the temp folder", &agent.Sandbox{Workdir: true}, filepath.Join(tmp, "a"), true},
		{"workdir: outside", &agent.Sandbox{Workdir: true}, filepath.Join(outside, "a"), false},
		{"workdir: a listed folder", &agent.Sandbox{Workdir: true, Write: []string{extra}}, filepath.Join(extra, "a"), true},
		{"read-only: the working folder", &agent.Sandbox{}, filepath.Join(cwd, "b"), false},
		{"read-only: the temp folder", &agent.Sandbox{}, filepath.Join(tmp, "b"), false},
		{"none: outside", nil, filepath.Join(outside, "c"), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runConfined(t, cwd, tc.sandbox, "echo hi > "+tc.path+" && ls / >/dev/null && cat /etc/hostname >/dev/null; echo done >/dev/null")
			_, err := os.Stat(tc.path)
			if tc.ok {
				assert.False(t, res.IsError, text(res))
				assert.NoError(t, err)
			} else {
				assert.Contains(t, text(res), "Permission denied")
				assert.True(t, os.IsNotExist(err), "%s was written", tc.path)
			}
		})
	}
}

// Commands read and run programs everywhere, and write to /dev/null, in
// a read-only sandbox.
func TestBashSandboxReadOnlyRuns(t *testing.T) {
	requireLandlock(t)
	cwd, _, _ := sandboxDirs(t)
	require.NoError(t, os.WriteFile(filepath.Join(cwd, "f.txt"), []byte("content\n"), 0o644))
	res := runConfined(t, cwd, &agent.Sandbox{}, "ls; cat f.txt; echo quiet > /dev/null; git --version >/dev/null 2>&1; true")
	assert.False(t, res.IsError, text(res))
	assert.Equal(t, "f.txt\ncontent\n", text(res))
	res = runConfined(t, cwd, &agent.Sandbox{}, "touch g.txt")
	assert.True(t, res.IsError)
	assert.NoFileExists(t, filepath.Join(cwd, "g.txt"))
}

// BenchmarkBashSandbox measures what the sandbox adds to a bash call:
// compare the sub-benchmarks.
func BenchmarkBashSandbox(b *testing.B) {
	cwd := b.TempDir()
	bash := builtin(b, "bash", cwd)
	for _, bc := range []struct {
		name string
		sb   *agent.Sandbox
	}{{"none", nil}, {"workdir", &agent.Sandbox{Workdir: true}}, {"read-only", &agent.Sandbox{}}} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.sb != nil {
				requireLandlock(b)
			}
			ctx := context.Background()
			if bc.sb != nil {
				ctx = agent.WithSandbox(ctx, bc.sb)
			}
			for b.Loop() {
				res := callCtx(ctx, b, bash, `{"command":"true"}`, nil)
				if res.IsError {
					b.Fatal(text(res))
				}
			}
		})
	}
}

// BenchmarkConfineThread measures the confinement alone: a ruleset built
// and enforced on a fresh thread (which then ends, as the bash tool's).
func BenchmarkConfineThread(b *testing.B) {
	requireLandlock(b)
	cwd := b.TempDir()
	sb := &agent.Sandbox{Workdir: true}
	for b.Loop() {
		done := make(chan error)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			done <- confineThread(sb, cwd)
		}()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
}
