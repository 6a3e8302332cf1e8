// This file holds what Linux adds to the bash tool's process tree: the
// shell gets SIGKILL from the kernel when lunar dies (PR_SET_PDEATHSIG),
// before the guard even runs.

package tools

import (
	"os/exec"
	"runtime"
	"syscall"
)

// startShell starts cmd with the parent-death signal set. The kernel
// sends it when the thread that forked the child ends, not the process,
// so the fork happens on a goroutine locked to its thread, which stays
// locked until the shell has exited and the returned func is called: Go
// would otherwise be free to end that thread while the shell runs.
func startShell(cmd *exec.Cmd) (done func(), err error) {
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	started := make(chan error, 1)
	exited := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := cmd.Start()
		started <- err
		if err == nil {
			<-exited
		}
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return func() { close(exited) }, nil
}
