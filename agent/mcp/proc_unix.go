//go:build unix

// Unix: a stdio server and whatever it starts (npx, node) are one process
// group, killed together.

package mcp

import (
	"os"
	"syscall"
)

// killTree kills the server's process group.
func killTree(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
	_ = p.Kill()
}
