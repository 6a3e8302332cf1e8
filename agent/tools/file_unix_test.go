//go:build unix

package tools

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFileToolsRefuseWhatIsNotARegularFile: a device or a FIFO is refused
// before anything is read or written (read of /dev/zero used to fill the
// memory, read or write of a FIFO to block forever); a file over the
// limit is refused before it is read.
func TestFileToolsRefuseWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero")))
	big := filepath.Join(dir, "big")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(MaxFileBytes+1)) // sparse: no disk used
	require.NoError(t, f.Close())

	tests := []struct{ tool, args, want string }{
		{"read", `{"path":"/dev/zero"}`, "/dev/zero is a device, not a regular file"},
		{"read", `{"path":"zero"}`, "zero is a device, not a regular file"},
		{"read", `{"path":"fifo"}`, "fifo is a FIFO (named pipe), not a regular file"},
		{"read", `{"path":"big"}`, "big is too large (64.0MB; at most 64.0MB)"},
		{"edit", `{"path":"/dev/zero","oldText":"a","newText":"b"}`, "/dev/zero is a device, not a regular file"},
		{"edit", `{"path":"fifo","oldText":"a","newText":"b"}`, "fifo is a FIFO (named pipe), not a regular file"},
		{"write", `{"path":"fifo","content":"x"}`, "fifo is a FIFO (named pipe), not a regular file"},
		{"write", `{"path":"zero","content":"x"}`, "zero is a device, not a regular file"},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			res := call(t, builtin(t, tc.tool, dir), tc.args)
			assert.True(t, res.IsError)
			assert.Contains(t, text(res), tc.want)
		})
	}
}
