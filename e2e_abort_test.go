// End-to-end tests of interrupting a run (SIGINT) and of the bash tool's
// limits: the partial reply is kept as "aborted", the process exits 130,
// the session stays loadable and resumable, and a running command's whole
// process group dies with it.
package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// interrupt starts lunar, waits until ready reports true, sends SIGINT and
// returns the result. The process must exit within 10 s of the signal.
func (e *e2e) interrupt(ready func(stdout, stderr string) bool, args ...string) result {
	e.t.Helper()
	cmd := e.cmd("", args...)
	var out, errb syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := e.startCmd(cmd)
	waitFor(e.t, func() bool { return ready(out.String(), errb.String()) }, func() string {
		return "lunar never got ready\nstdout: " + out.String() + "\nstderr: " + errb.String()
	})
	require.NoError(e.t, cmd.Process.Signal(syscall.SIGINT))
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		e.t.Fatalf("lunar did not exit after SIGINT\nstderr: %s", errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(e.t, err)
	}
	return result{out.String(), errb.String(), code}
}

func TestAbortKeepsPartialReplyInBothAPIs(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			e := newE2E(t)
			e.api = api
			e.srv.Reply(llmtest.Thinking("pondering"), llmtest.Text("Once upon a time").Split(2), llmtest.Hang())
			r := e.interrupt(func(out, _ string) bool { return out == "Once upon a time" }, "-p", "tell me a story")
			assert.Equal(t, 130, r.code, r.stderr)
			assert.Equal(t, "Once upon a time\n", r.stdout)
			assert.Equal(t, "lunar: interrupted\n", r.stderr)

			files := e.sessionFiles()
			require.Len(t, files, 1)
			s := checkSessionFile(t, files[0], e.cwd)
			msgs := s.BuildContext().Messages
			require.Len(t, msgs, 2)
			m := msgs[1].Message
			assert.Equal(t, session.StopAborted, m.StopReason)
			assert.Equal(t, "Request was aborted", m.ErrorMessage())
			assert.Equal(t, "Once upon a time", m.Text())
			require.Equal(t, session.BlockThinking, m.Content[0].Type)
			assert.Equal(t, "pondering", m.Content[0].Thinking)
			lines := readLines(t, files[0])
			assert.Contains(t, lines[len(lines)-1], `"stopReason":"aborted"`)

			// the session resumes: the aborted reply is not sent back
			e.srv.Reply(llmtest.Text("The end."))
			r = e.run("", "-c", "-p", "go on")
			require.Equal(t, 0, r.code, r.stderr)
			reqs := e.srv.Requests()
			got := requestWire(t, reqs[len(reqs)-1])
			assert.Equal(t, []wireMsg{{Role: "user", Text: "tell me a story"}, {Role: "user", Text: "go on"}}, got)
			assert.Len(t, e.onlySession().BuildContext().Messages, 4)
		})
	}
}

func TestAbortBeforeTheReplyStarts(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Hang())
	r := e.interrupt(func(string, string) bool { return len(e.srv.Requests()) == 1 }, "-p", "hello")
	assert.Equal(t, 130, r.code, r.stderr)
	assert.Empty(t, r.stdout)
	msgs := e.onlySession().BuildContext().Messages
	require.Len(t, msgs, 2)
	assert.Equal(t, session.StopAborted, msgs[1].Message.StopReason)
	assert.Empty(t, msgs[1].Message.Text())
}

func TestAbortKillsTheBashProcessGroup(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	// a background grandchild and a foreground child; both must die
	cmdline := `sleep 300 & echo $! > bg.pid; sh -c 'echo $$ > fg.pid; exec sleep 300'`
	args, _ := json.Marshal(map[string]string{"command": cmdline})
	e.srv.Reply(llmtest.ToolCall("bash", string(args)))
	pidOf := func(name string) int {
		b, err := os.ReadFile(filepath.Join(e.cwd, name))
		if err != nil {
			return 0
		}
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return n
	}
	start := time.Now()
	r := e.interrupt(func(string, string) bool { return pidOf("bg.pid") > 0 && pidOf("fg.pid") > 0 }, "-p", "run it")
	assert.Equal(t, 130, r.code, r.stderr)
	assert.Less(t, time.Since(start), 8*time.Second)
	for _, name := range []string{"bg.pid", "fg.pid"} {
		pid := pidOf(name)
		assertDies(t, pid, 5*time.Second, "%s (pid %d) was killed with the group", name, pid)
	}
	assert.Len(t, e.srv.Requests(), 1, "no model call after the abort")

	msgs := e.onlySession().BuildContext().Messages
	require.Len(t, msgs, 3)
	res := msgs[2].Message
	assert.Equal(t, session.RoleToolResult, res.Role)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), "aborted")
}

func TestBashToolTimeout(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo started; sleep 30","timeout":0.5}`))
	e.srv.Reply(llmtest.Text("It timed out."))
	start := time.Now()
	r := e.run("", "-p", "run it")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Less(t, time.Since(start), 10*time.Second, "the timeout stopped the command")
	assert.Equal(t, "It timed out.\n", r.stdout)
	assert.Contains(t, r.stderr, "timed out")
	msgs := e.onlySession().BuildContext().Messages
	require.Len(t, msgs, 4)
	res := msgs[2].Message
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), "started")
	assert.Contains(t, res.Text(), "Command timed out after 0.5 seconds")
	assert.Contains(t, string(e.srv.Requests()[1].Body), "Command timed out after 0.5 seconds")
}

func TestBashToolErrorsGoBackToTheModel(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo oops >&2; exit 3"}`),
		llmtest.ToolCall("bash", `{"timeout":"soon"}`),
		llmtest.ToolCall("edit", `{"path":"none.txt","edits":[{"oldText":"a","newText":"b"}]}`))
	e.srv.Reply(llmtest.Text("Handled."))
	r := e.run("", "-p", "x")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "Handled.\n", r.stdout)
	msgs := e.onlySession().BuildContext().Messages
	require.Len(t, msgs, 6)
	for _, m := range msgs[2:5] {
		assert.True(t, m.Message.IsError, m.Message.Text())
	}
	assert.Contains(t, msgs[2].Message.Text(), "oops")
	assert.Contains(t, msgs[2].Message.Text(), "Command exited with code 3")
	assert.Contains(t, msgs[3].Message.Text(), "command", "schema validation names the missing argument")
	assert.Contains(t, msgs[4].Message.Text(), "none.txt")
	assert.Equal(t, 3, strings.Count(r.stderr, "✗"), "failures shown on stderr: %s", r.stderr)
}

func TestSecondInterruptEndsAtOnce(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	// A command that outlives SIGTERM, so the first interrupt waits for
	// the kill grace; its trap says when that SIGTERM came, which is
	// when lunar has begun to stop.
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"trap ': > termed' TERM; echo $$ > group.pid; while :; do sleep 300 & wait; done"}`))
	pgid := func() int {
		b, _ := os.ReadFile(filepath.Join(e.cwd, "group.pid"))
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return n
	}
	t.Cleanup(func() {
		if g := pgid(); g > 0 {
			_ = signalPID(-g, false)
		}
	})
	cmd := e.cmd("", "-p", "x")
	done := e.startCmd(cmd)
	waitFor(t, func() bool { return pgid() > 0 }, func() string { return "the command never started" })
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	termed := func() bool { _, err := os.Stat(filepath.Join(e.cwd, "termed")); return err == nil }
	waitFor(t, termed, func() string { return "the first interrupt never reached the command" })
	start := time.Now()
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := <-done
	assert.Less(t, time.Since(start), time.Second, "the second interrupt does not wait for the grace period")
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	ws := ee.Sys().(syscall.WaitStatus)
	assert.True(t, ws.Signaled() && ws.Signal() == syscall.SIGINT, "killed by the second SIGINT: %v", ws)
}

func TestToolOutputIsTruncatedWithANote(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	writeFile(t, filepath.Join(e.cwd, "big.txt"), strings.Repeat("line of text\n", 3000))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"seq 1 5000"}`), llmtest.ToolCall("read", `{"path":"big.txt"}`))
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "-p", "x")
	require.Equal(t, 0, r.code, r.stderr)
	msgs := e.onlySession().BuildContext().Messages
	require.Len(t, msgs, 5)
	bash, read := msgs[2].Message.Text(), msgs[3].Message.Text()
	tail := func(s string) string { return s[max(0, len(s)-160):] }
	// as pi counts: the final newline ends an empty last line
	assert.True(t, strings.HasPrefix(bash, "3002\n"), "bash keeps the tail: %q", bash[:20])
	assert.Contains(t, tail(bash), "5000\n\n\n[Showing lines 3002-5001 of 5001. Full output: ")
	assert.Equal(t, 2000, strings.Count(read, "line of text\n"), "read keeps the head")
	assert.Contains(t, tail(read), "[Showing lines 1-2000 of 3001. Use offset=2001 to continue.]")
	body := string(e.srv.Requests()[1].Body)
	assert.Contains(t, body, "[Showing lines 3002-5001 of 5001.")
	assert.Less(t, len(body), 100<<10, "the model gets the truncated text")
}
