//go:build unix

// This file holds the bash tool's process tree on Unix: the shell runs in
// a process group of its own, which lunar signals as a whole, and a guard
// process kills that group if lunar dies while the command runs — even
// by SIGKILL, which lunar cannot catch: the guard waits on a pipe only
// lunar writes to, and the kernel closes it when lunar goes. The guard
// leads the group and the shell joins it, so the group exists, and the
// guard knows it, before the shell runs anything.

package tools

import (
	"os"
	"os/exec"
	"syscall"
)

// guardScript is the guard, the leader of the group the shell joins: a
// line on stdin dismisses it, and end of file (lunar died) kills the
// group, the guard last. It ignores the signals lunar sends the group to
// stop a command (SIGTERM, before SIGKILL) and those of a terminal.
const guardScript = `trap '' INT TERM HUP; IFS= read -r line || kill -s KILL -- "-$$" 2>/dev/null`

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

// startTree starts cmd in a new process group with its guard, confined
// as j says (nil: as lunar runs). The guard starts first, as the group's
// leader, and the shell joins its group: a lunar killed at any moment
// after (even between the shell's start and anything lunar does next, a
// long time on a busy machine) leaves no background job of the command
// behind. Without a guard the shell leads a group of its own.
func startTree(cmd *exec.Cmd, j *jail) (*procTree, error) {
	guard, leader := startGuard()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: leader}
	done, err := startShell(cmd, j)
	if err != nil {
		if guard != nil {
			guard.Close() // end of file: it kills its group, itself alone
		}
		return nil, err
	}
	pgid := leader
	if guard == nil {
		pgid = cmd.Process.Pid
	}
	return &procTree{pgid: pgid, done: done, guard: guard}, nil
}

// startGuard starts a guard, the leader of a new process group, and
// returns the write end of its stdin and its pid (the group's id), or nil
// and 0 if it could not start (the command then runs unguarded: on Linux
// the shell itself still dies with lunar).
func startGuard() (w *os.File, pid int) {
	sh := "/bin/sh"
	if _, err := os.Stat(sh); err != nil {
		if sh, err = exec.LookPath("sh"); err != nil {
			return nil, 0
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, 0
	}
	g := exec.Command(sh, "-c", guardScript, "lunar-bash-guard")
	g.Stdin = r
	g.Env = []string{}
	// The leader of a new group: a Ctrl+C at the terminal must not take
	// the guard or the command away while lunar lives.
	g.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = g.Start()
	r.Close()
	if err != nil {
		w.Close()
		return nil, 0
	}
	go func() { _ = g.Wait() }() // reap it whenever it ends
	return w, g.Process.Pid
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
