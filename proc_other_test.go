//go:build !unix

package main

import "os"

// signalPID kills pid, or with probe only checks that it exists (process
// groups are unix: a negative pid is the group's leader here).
func signalPID(pid int, probe bool) error {
	if pid < 0 {
		pid = -pid
	}
	p, err := os.FindProcess(pid)
	if err != nil || probe {
		return err
	}
	return p.Kill()
}
