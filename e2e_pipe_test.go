package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// `lunar -p … | head` where the reader is gone: lunar finishes the reply,
// saves it and leaves no lock behind (it used to die of SIGPIPE, exit 141).
func TestOneShotStdoutClosedByReader(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("a long answer that nobody reads").Split(4))
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	require.NoError(t, pr.Close()) // every write to stdout fails with EPIPE
	cmd := e.cmd("", "-p", "question")
	cmd.Stdout = pw
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	pw.Close()
	var ee *exec.ExitError
	if err != nil && !assert.ErrorAs(t, err, &ee) {
		return
	}
	assert.NoError(t, err, "exit code 0: %s", stderr.String())
	s := e.onlySession()
	c := s.BuildContext()
	require.Len(t, c.Messages, 2)
	assert.Equal(t, "a long answer that nobody reads", c.Messages[1].Message.Text())
	locks, _ := filepath.Glob(filepath.Join(filepath.Dir(e.sessionFiles()[0]), "*.lock"))
	assert.Empty(t, locks)
}

// Killed during the first reply of a new session, the question is kept.
func TestKilledDuringFirstReplyKeepsPrompt(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("partial").Split(2), llmtest.Hang())
	cmd := e.cmd("", "-p", "the question")
	out := &syncBuffer{}
	cmd.Stdout = out
	require.NoError(t, cmd.Start())
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "partial") }, 15*time.Second, 10*time.Millisecond)
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	files := e.sessionFiles()
	require.Len(t, files, 1)
	s, err := session.Load(files[0])
	require.NoError(t, err)
	assert.Equal(t, []string{"the question"}, userTexts(s))
}
