package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

var killRuns = flag.Int("kill-runs", 12, "how many times TestKillCampaign kills lunar (e.g. -kill-runs 200 for a long campaign)")

// TestKillCampaign kills lunar with SIGKILL at random moments of a
// tool-using run (streaming, running a tool, between turns), continuing the
// same session each time, and checks that the session still loads and
// keeps every prompt that was sent. The kill points are random on purpose;
// nothing waits on them.
func TestKillCampaign(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	e.srv.SetDefault(llmtest.Text("the answer, in several pieces").Split(6))
	sent := 0
	killed := 0
	for i := 0; i < *killRuns; i++ {
		e.srv.Reply(llmtest.Thinking("let me look").Split(3), llmtest.ToolCall("bash", `{"command":"echo tool output; sleep 0.05"}`))
		args := []string{"-p", fmt.Sprintf("prompt %d", i)}
		if i > 0 {
			args = append([]string{"-c"}, args...)
		}
		cmd := e.cmd("", args...)
		seen := len(e.srv.Requests())
		require.NoError(t, cmd.Start())
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		// Most kills land after the run's first request reached the server
		// (streaming, a tool running, the next turn), whatever the machine's
		// load; one in five lands during startup.
		if rng.IntN(5) > 0 {
			deadline := time.Now().Add(20 * time.Second)
		wait:
			for len(e.srv.Requests()) == seen && time.Now().Before(deadline) {
				select {
				case err := <-done:
					done <- err // finished early: the select below sees it
					break wait
				case <-time.After(2 * time.Millisecond):
				}
			}
		}
		select {
		case <-done: // finished before the kill point
		case <-time.After(time.Duration(rng.IntN(150)) * time.Millisecond):
			_ = cmd.Process.Kill()
			<-done
			killed++
		}
		sent++
		// A kill can leave a lock naming a dead process: the next run must
		// take it over (the lock names its holder's pid).
	}
	files := e.sessionFiles()
	require.NotEmpty(t, files)
	loaded := 0
	var prompts []string
	for _, f := range files {
		s, err := session.Load(f)
		if !assert.NoError(t, err, f) {
			continue
		}
		loaded++
		for _, en := range s.Entries() {
			if en.Type == session.TypeMessage && en.Message.Role == session.RoleUser {
				prompts = append(prompts, en.Message.Text())
			}
		}
	}
	t.Logf("kill campaign: %d runs, %d killed, %d of %d session files load, %d prompts kept", sent, killed, loaded, len(files), len(prompts))
	assert.Equal(t, len(files), loaded)
	// A run killed before its first request leaves nothing (a new session
	// writes nothing until then); every prompt the server saw is kept.
	kept := map[string]bool{}
	for _, p := range prompts {
		kept[p] = true
	}
	for _, r := range e.srv.Requests() {
		if p := lastUserText(t, r); strings.HasPrefix(p, "prompt ") {
			assert.True(t, kept[p], "%q reached the server but is not in the session", p)
		}
	}
}
