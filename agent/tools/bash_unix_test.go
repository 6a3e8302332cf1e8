//go:build unix

package tools

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGuardKillsTheGroupWhenLunarGoes starts a command tree as the bash
// tool does, then closes the guard's pipe without dismissing it, as the
// kernel does when lunar is killed: the guard must kill the whole group,
// background jobs included.
func TestGuardKillsTheGroupWhenLunarGoes(t *testing.T) {
	cmd, tree, bg, _ := startGuarded(t, "sleep 300 & echo $!; wait")
	t.Cleanup(func() { _ = syscall.Kill(bg, syscall.SIGKILL) })
	assert.True(t, guardRunning(t), "a guard watches the group")

	start := time.Now()
	require.NoError(t, tree.guard.Close()) // lunar "dies": the guard reads end of file
	tree.guard = nil
	err := cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	ws := ee.Sys().(syscall.WaitStatus)
	assert.True(t, ws.Signaled() && ws.Signal() == syscall.SIGKILL, "the shell was killed: %v", ws)
	assert.Eventually(t, func() bool { return processGone(bg) }, 5*time.Second, 10*time.Millisecond,
		"background sleep %d still running", bg)
	assert.Less(t, time.Since(start), 5*time.Second)
	tree.release()
}

// TestShellJoinsTheGuardsGroup: the guard leads the group before the
// shell starts, and the shell joins it, so that there is no moment when
// the shell runs and the guard does not know its group (lunar killed
// then left the command's background jobs running: it failed
// TestFaultBashChildrenDieWithLunar under load).
func TestShellJoinsTheGuardsGroup(t *testing.T) {
	cmd, tree, pid, in := startGuarded(t, "echo $$; cat >/dev/null")
	require.Equal(t, cmd.Process.Pid, pid)
	pgid, err := syscall.Getpgid(cmd.Process.Pid)
	require.NoError(t, err)
	assert.Equal(t, tree.pgid, pgid, "the shell is in the tree's group")
	assert.NotEqual(t, cmd.Process.Pid, pgid, "whose leader is the guard, not the shell")
	leader, err := syscall.Getpgid(pgid)
	require.NoError(t, err)
	assert.Equal(t, pgid, leader, "the guard leads its group")
	require.NoError(t, in.Close())
	require.NoError(t, cmd.Wait())
	tree.release()
}

// startGuarded starts script as the bash tool does, with a guard, and
// returns the number its first output line holds, and its stdin.
func startGuarded(t *testing.T, script string) (*exec.Cmd, *procTree, int, io.WriteCloser) {
	t.Helper()
	shell, err := shellPath()
	require.NoError(t, err)
	cmd := exec.Command(shell, "-c", script)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	tree, err := startTree(cmd, nil)
	require.NoError(t, err)
	require.NotNil(t, tree.guard, "the guard started")
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	n, err := strconv.Atoi(strings.TrimSpace(line))
	require.NoError(t, err)
	return cmd, tree, n, in
}

// TestGuardIsDismissedWhenTheCommandEnds: a finished command's guard goes
// away and never touches the group again.
func TestGuardIsDismissedWhenTheCommandEnds(t *testing.T) {
	res, err := RunBash(t.Context(), t.TempDir(), `sleep 300 & echo $!`, 0, nil)
	require.NoError(t, err)
	bg, err := strconv.Atoi(strings.TrimSpace(res.Output))
	require.NoError(t, err)
	t.Cleanup(func() { _ = syscall.Kill(bg, syscall.SIGKILL) })
	assert.Eventually(t, func() bool { return !guardRunning(t) }, 5*time.Second, 10*time.Millisecond,
		"the guard exited")
	assert.False(t, processGone(bg), "the background job is left running, as a shell leaves it")
}

// guardRunning reports whether a guard started by this process runs (the
// tests that start one run one at a time).
func guardRunning(t *testing.T) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	me := strconv.Itoa(os.Getpid())
	for _, e := range entries {
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		args := strings.Split(string(cmdline), "\x00")
		if len(args) >= 4 && args[3] == "lunar-bash-guard" {
			stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
			_, after, _ := strings.Cut(string(stat), ") ")
			fields := strings.Fields(after) // state, ppid, …
			if len(fields) > 1 && fields[0] != "Z" && fields[1] == me {
				return true
			}
		}
	}
	return false
}
