// Windows: servers are stopped when lunar leaves (Manager.Close).

package mcp

import (
	"os"
	"os/exec"
)

func prepare(*exec.Cmd) {}

func startLocked(fn func()) { go fn() }

func killTree(p *os.Process) { _ = p.Kill() }
