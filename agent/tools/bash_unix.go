//go:build unix

// This file holds the bash tool's process tree on Unix: the shell leads
// its own process group, which lunar signals as a whole, and a guard
// process kills that group if lunar dies while the command runs — even
// by SIGKILL, which lunar cannot catch: the guard waits on a pipe only
// lunar writes to, and the kernel closes it when lunar goes.

package tools

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// guardScript is the guard. Its first line on stdin is the process group
// to watch (end of file before it: lunar died before the command
// started, nothing to do); then a line dismisses it, and end of file
// (lunar died) kills the group.
const guardScript = `IFS= read -r pgid || exit 0; IFS= read -r line || kill -s KILL -- "-$pgid" 2>/dev/null`

// procTree is a running command's process group and its guard.
type procTree struct {
	pgid  int
	guard *os.File // write end of the guard's stdin; nil without a guard
	done  func()   // releases what startShell holds (a locked thread)
}

// shellPath picks the shell: bash from PATH, else $SHELL, else /bin/sh.
func shellPath() (string, error) {
	if p, err := exec.LookPath("bash"); err == nil {
		return p, nil
	}
	if s := os.Getenv("SHELL"); s != "" {
		return s, nil
	}
	return "/bin/sh", nil
}

// startTree starts cmd as the leader of a new process group, with its
// guard, confined as j says (nil: as lunar runs). The guard starts first
// and is told the group as soon as the shell exists: were it started
// after the shell, a lunar killed in between (a fork and exec of sh, long
// on a busy machine) would leave the command's background jobs behind.
func startTree(cmd *exec.Cmd, j *jail) (*procTree, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	guard := startGuard()
	done, err := startShell(cmd, j)
	if err != nil {
		if guard != nil {
			guard.Close() // end of file before a group: it exits
		}
		return nil, err
	}
	t := &procTree{pgid: cmd.Process.Pid, done: done, guard: guard}
	if t.guard != nil {
		if _, err := t.guard.Write([]byte(strconv.Itoa(t.pgid) + "\n")); err != nil {
			t.guard.Close()
			t.guard = nil
		}
	}
	return t, nil
}

// startGuard starts a guard and returns the write end of its stdin, or
// nil if it could not start (the command then runs unguarded: on Linux
// the shell itself still dies with lunar).
func startGuard() *os.File {
	sh := "/bin/sh"
	if _, err := os.Stat(sh); err != nil {
		if sh, err = exec.LookPath("sh"); err != nil {
			return nil
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	g := exec.Command(sh, "-c", guardScript, "lunar-bash-guard")
	g.Stdin = r
	g.Env = []string{}
	// Its own group: a Ctrl+C at the terminal must not take the guard
	// away while lunar lives.
	g.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = g.Start()
	r.Close()
	if err != nil {
		w.Close()
		return nil
	}
	go func() { _ = g.Wait() }() // reap it whenever it ends
	return w
}

// terminate asks the whole group to stop.
func (t *procTree) terminate() {
	_ = syscall.Kill(-t.pgid, syscall.SIGTERM)
	_ = syscall.Kill(-t.pgid, syscall.SIGCONT) // a stopped process only sees SIGTERM once continued
}

// kill kills the whole group.
func (t *procTree) kill() {
	_ = syscall.Kill(-t.pgid, syscall.SIGKILL)
}

// release dismisses the guard once the shell has exited: background jobs
// it leaves behind keep running, as a shell leaves them.
func (t *procTree) release() {
	if t.guard != nil {
		_, _ = t.guard.Write([]byte("\n"))
		t.guard.Close()
		t.guard = nil
	}
	if t.done != nil {
		t.done()
		t.done = nil
	}
}
