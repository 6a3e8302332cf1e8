// Windows: servers are stopped when lunar leaves (Manager.Close).

package mcp

import "os/exec"

func prepare(*exec.Cmd) {}

func startLocked(fn func()) { go fn() }

func killTree(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
