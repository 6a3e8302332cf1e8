//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// TestHostileProjectConfigFile: a cloned repository's .lunar/config.json
// that is a folder, a FIFO or a link to /dev/zero does not stop lunar
// from starting (nor make it block or read forever): it starts, says the
// file was skipped and why (issue 20, item 11).
func TestHostileProjectConfigFile(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		make func(t *testing.T, path string)
		why  string
	}{
		{"folder", func(t *testing.T, p string) { require.NoError(t, os.MkdirAll(p, 0o755)) }, "is a folder"},
		{"fifo", func(t *testing.T, p string) { require.NoError(t, syscall.Mkfifo(p, 0o644)) }, "not a regular file"},
		{"link to /dev/zero", func(t *testing.T, p string) { require.NoError(t, os.Symlink("/dev/zero", p)) }, "not a regular file"},
		{"too large", func(t *testing.T, p string) {
			require.NoError(t, os.WriteFile(p, make([]byte, maxProjectConfig+1), 0o644))
		}, "too large ("},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newE2E(t)
			cfg := filepath.Join(e.cwd, ".lunar", "config.json")
			require.NoError(t, os.MkdirAll(filepath.Dir(cfg), 0o755))
			tc.make(t, cfg)
			for _, trust := range []bool{false, true} {
				args := []string{"--no-session", "-p", "hi"}
				if trust {
					args = append(args, "--trust")
				}
				e.srv.Reply(llmtest.Text("started"))
				start := time.Now()
				r := e.run("", args...)
				assert.Less(t, time.Since(start), 20*time.Second)
				require.Equal(t, 0, r.code, r.stderr)
				assert.Equal(t, "started\n", r.stdout)
				assert.Contains(t, r.stderr, "warning: project config "+cfg+": "+tc.why)
				assert.Contains(t, r.stderr, ": skipped\n")
			}
		})
	}
}
