//go:build unix && !linux

// This file starts the bash tool's shell on Unix systems without a
// parent-death signal (macOS, the BSDs): the guard alone ties the process
// group to lunar's life.

package tools

import "os/exec"

// startShell starts cmd; j (the confinement of a model's command) has
// nothing to apply here.
func startShell(cmd *exec.Cmd, _ *jail) (done func(), err error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return func() {}, nil
}
