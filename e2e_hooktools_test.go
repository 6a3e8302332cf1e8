package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// Tools a hook registers after loading (in session.start, in a command)
// reach the model from the next call on.
func TestHookToolRegisteredLate(t *testing.T) {
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
