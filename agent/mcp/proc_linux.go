// Linux: a stdio server gets SIGKILL from the kernel when lunar dies
// (PR_SET_PDEATHSIG), SIGKILL included, and runs in a process group of
// its own so that the terminal's Ctrl+C reaches lunar, not the server.

package mcp

import (
	"os/exec"
	"runtime"
	"syscall"
)

func prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// startLocked runs fn on a goroutine locked to its thread for good: the
// kernel sends the parent-death signal when the thread that forked the
// child ends, so fn starts the server and returns only once it has
// exited; the thread then ends with the goroutine.
func startLocked(fn func()) {
	go func() {
		runtime.LockOSThread() // never unlocked: see above
		fn()
	}()
}
