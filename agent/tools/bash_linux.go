// This file holds what Linux adds to the bash tool's process tree: the
// shell gets SIGKILL from the kernel when lunar dies (PR_SET_PDEATHSIG),
// before the guard even runs; and a command the model asked for starts
// confined (sandbox_linux.go) and without CAP_SYS_PTRACE.

package tools

import (
	"os/exec"
	"runtime"
	"syscall"
)

// startShell starts cmd with the parent-death signal set, confined as j
// says (nil: as lunar runs). The kernel sends the signal when the thread
// that forked the child ends, not the process, so the fork happens on a
// goroutine locked to its thread, which stays locked until the shell has
// exited and the returned func is called: Go would otherwise be free to
// end that thread while the shell runs. The thread is never unlocked:
// the confinement and the capability drop are per thread, so it ends
// with its goroutine rather than go back to the scheduler.
func startShell(cmd *exec.Cmd, j *jail) (done func(), err error) {
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	started := make(chan error, 1)
	exited := make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: see above
		err := confine(j)
		if err == nil {
			err = cmd.Start()
		}
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

// confine applies j to the calling thread.
func confine(j *jail) error {
	if j == nil {
		return nil
	}
	dropPtrace()
	if j.sandbox == nil {
		return nil
	}
	return confineThread(j.sandbox, j.cwd)
}
