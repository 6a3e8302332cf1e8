//go:build unix

package main

import "syscall"

// signalPID sends SIGKILL to pid (a negative pid: its process group), or
// with probe only checks that it exists.
func signalPID(pid int, probe bool) error {
	if probe {
		return syscall.Kill(pid, 0)
	}
	return syscall.Kill(pid, syscall.SIGKILL)
}
