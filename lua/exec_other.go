//go:build !unix

package lua

import "os/exec"

// setProcessGroup: without process groups, cancellation kills the program
// itself (exec.CommandContext's default).
func setProcessGroup(*exec.Cmd) {}
