package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// Tools a hook registers after loading (in session.start, in a command)
// reach the model from the next call on.
func TestHookToolRegisteredLate(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.ToolCall("late", `{}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "--hook", hkFile(t, "late_tool.lua"), "-p", "use the late tool")
	require.Equal(t, 0, r.code, r.stderr)
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	assert.Contains(t, toolNames(t, reqs[0]), "late")
	assert.NotContains(t, string(reqs[1].Body), "not found")
	assert.Contains(t, string(reqs[1].Body), "late result")

	e.srv.Reply(llmtest.ToolCall("later", `{}`))
	e.srv.Reply(llmtest.Text("done again"))
	r = e.run("", "--hook", hkFile(t, "late_tool.lua"), "-c", "-p", "/more-tools")
	require.Equal(t, 0, r.code, r.stderr)
	reqs = e.srv.Requests()
	require.Len(t, reqs, 4)
	assert.Contains(t, toolNames(t, reqs[2]), "later")
	assert.Contains(t, string(reqs[3].Body), "later result")
}

// A command names the session, starts a new one with the old one as its
// parent and a prompt for it; session.start says why each session started.
func TestHookHandoff(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("first"))
	r := e.run("", "--hook", hkFile(t, "handoff.lua"), "-p", "hello")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "session.start reason=startup")
	old := e.onlySession()

	e.srv.Reply(llmtest.Text("continued"))
	r = e.run("", "--hook", hkFile(t, "handoff.lua"), "-c", "-p", "/handoff the plan")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "session.start reason=resume")
	assert.Contains(t, r.stderr, "session.start reason=new")
	assert.Equal(t, "continued\n", r.stdout)

	files := e.sessionFiles()
	require.Len(t, files, 2)
	var child *session.Session
	for _, f := range files {
		s, err := session.Load(f)
		require.NoError(t, err)
		if s.ID() == old.ID() {
			assert.Equal(t, "before the handoff", s.Name())
		} else {
			child = s
		}
	}
	require.NotNil(t, child)
	assert.Equal(t, old.File(), child.Header().ParentSession)
	assert.Equal(t, []string{"Continue: the plan"}, userTexts(child))
	reqs := e.srv.Requests()
	assert.Equal(t, "Continue: the plan", lastUserText(t, reqs[len(reqs)-1]))
	assert.Len(t, reqMessages(t, reqs[len(reqs)-1]), 2, "the new session starts empty")
}
