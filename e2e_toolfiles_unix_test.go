//go:build unix

// End-to-end tests of what a model can do to lunar through a path: read
// /dev/zero (filled the memory: exit 2 and a stale lock), read or write
// a FIFO (blocked forever, and the first SIGTERM did not end lunar). The
// file tools refuse what is not a regular file with an error result, and
// SIGTERM during a running tool ends lunar with the session saved and
// unlocked.
package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// boundedCmd is e.cmd with the address space capped at 4 GiB, so that a
// lunar that reads without bound fails fast instead of taking the
// machine's memory.
func (e *e2e) boundedCmd(args ...string) *exec.Cmd {
	cmd := e.cmd("", args...)
	cmd.Args = append([]string{"sh", "-c", `ulimit -v 4194304 && exec "$0" "$@"`}, cmd.Args...)
	cmd.Path = "/bin/sh"
	return cmd
}

// waitWithin waits for cmd, started, to exit within d, killing it after.
func waitWithin(t *testing.T, cmd *exec.Cmd, done <-chan error, d time.Duration) int {
	t.Helper()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		require.NoError(t, err)
		return 0
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("lunar did not exit within %v", d)
		return -1
	}
}

// locks lists lock files left beside the sessions.
func (e *e2e) locks() []string {
	files, _ := filepath.Glob(filepath.Join(e.home, "data", "sessions", "*", "*.lock"))
	return files
}

func TestFileToolsRefuseDevicesAndFIFOs(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	fifo := filepath.Join(e.cwd, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	e.srv.Reply(llmtest.ToolCall("read", `{"path":"/dev/zero"}`))
	e.srv.Reply(llmtest.ToolCall("read", `{"path":"fifo"}`))
	e.srv.Reply(llmtest.ToolCall("write", `{"path":"fifo","content":"x"}`))
	e.srv.Reply(llmtest.ToolCall("edit", `{"path":"/dev/zero","oldText":"a","newText":"b"}`))
	e.srv.Reply(llmtest.Text("done"))
	cmd := e.boundedCmd("-p", "read them")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	code := waitWithin(t, cmd, done, 60*time.Second)
	require.Equal(t, 0, code, errb.String())
	assert.Equal(t, "done\n", out.String())
	assert.Empty(t, e.locks())
	results := toolResults(t, e.onlySession())
	assert.Equal(t, []string{
		"true /dev/zero is a device, not a regular file; only regular files can be read, edited or written with this tool",
		"true fifo is a FIFO (named pipe), not a regular file; only regular files can be read, edited or written with this tool",
		"true fifo is a FIFO (named pipe), not a regular file; only regular files can be read, edited or written with this tool",
		"true /dev/zero is a device, not a regular file; only regular files can be read, edited or written with this tool",
	}, results)
}

// TestSIGTERMDuringToolEndsLunar: the model reads a FIFO, then runs a
// command that waits; SIGTERM while a tool runs (the command, or on a
// lunar that still opened the FIFO, the read) ends lunar at once, with
// the session saved and unlocked.
func TestSIGTERMDuringToolEndsLunar(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	fifo := filepath.Join(e.cwd, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	e.srv.Reply(llmtest.ToolCall("read", `{"path":"fifo"}`))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"touch started; sleep 60"}`))
	e.srv.Reply(llmtest.Text("never"))
	cmd := e.boundedCmd("-p", "wait")
	var errb strings.Builder
	cmd.Stderr = &errb
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	// Wait until a tool blocks: the command started, or something holds
	// the FIFO open for reading (opening its write end without blocking
	// then succeeds; the end stays open, so a read waits for data).
	deadline := time.After(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(e.cwd, "started")); err == nil {
			break
		}
		if fd, err := syscall.Open(fifo, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			defer syscall.Close(fd)
			break
		}
		select {
		case err := <-done:
			t.Fatalf("lunar exited before a tool blocked: %v\n%s", err, errb.String())
		case <-deadline:
			t.Fatal("no tool started")
		case <-time.After(10 * time.Millisecond):
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	code := waitWithin(t, cmd, done, 15*time.Second)
	assert.Equal(t, exitInterrupted, code, errb.String())
	assert.Empty(t, e.locks(), "the session is unlocked")
	s := e.onlySession()
	var prompts []string
	for _, en := range s.Entries() {
		if en.Type == session.TypeMessage && en.Message.Role == session.RoleUser {
			prompts = append(prompts, en.Message.Text())
		}
	}
	assert.Equal(t, []string{"wait"}, prompts, "the session is saved")
}
