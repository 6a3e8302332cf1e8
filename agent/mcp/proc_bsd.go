//go:build unix && !linux

// Other Unix systems have no parent-death signal: servers are stopped
// when lunar leaves normally (Manager.Close) and run in their own process
// group so that the terminal's Ctrl+C reaches lunar, not them.

package mcp

import (
	"os/exec"
	"syscall"
)

func prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func startLocked(fn func()) { go fn() }
