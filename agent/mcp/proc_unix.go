//go:build unix

// Unix: a stdio server and whatever it starts (npx, node) are one process
// group, killed together.

package mcp

import (
	"os/exec"
	"syscall"
)

// killTree kills the server's process group.
func killTree(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}
