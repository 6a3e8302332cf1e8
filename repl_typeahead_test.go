// Typing while the agent works (issue #21), through the binary in a
// pseudo-terminal: the editor line below the output, Enter steers,
// Alt+Enter queues a follow-up, queued messages show until delivered, Up
// takes the last one back, Esc stops the run.
package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// waitTool is a bash call that runs until the test creates the file go.
const waitTool = `{"command":"echo started; while [ ! -e go ]; do sleep 0.05; done; echo released"}`

func TestREPLSteerAndFollowUp(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.env = append(e.env, "NO_COLOR=")
	e.srv.Reply(llmtest.ToolCall("bash", waitTool))
	e.srv.Reply(llmtest.Text("steered answer\n"))
	e.srv.Reply(llmtest.Text("follow-up answer\n"))
	p := e.start()
	p.line("work")
	p.expect("started")
	p.send("look at the tests too")
	p.expect("\x1b[36m› \x1b[0mlook at the tests too") // the editor line, below the output
	p.send("\r")
	p.expect("\x1b[2mSteering: look at the tests too\x1b[0m")
	p.send("then summarise\x1b\r") // Alt+Enter
	p.expect("\x1b[2mFollow-up: then summarise\x1b[0m")
	writeFile(t, filepath.Join(e.cwd, "go"), "")
	p.expect("\x1b[2m> look at the tests too\x1b[0m")
	p.expect("steered answer")
	p.expect("\x1b[2m> then summarise\x1b[0m")
	p.expect("follow-up answer")
	p.expect("> ")
	p.quit()

	reqs := e.srv.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, "look at the tests too", lastUserText(t, reqs[1]), "steered in before the next model call")
	assert.Contains(t, string(reqs[1].Body), "released", "after the tool's result")
	assert.Equal(t, "then summarise", lastUserText(t, reqs[2]), "followed up when the agent would stop")
	out := p.output()
	assert.NotContains(t, out[strings.Index(out, "steered answer"):], "look at the tests too\r\n\x1b[36m›", "the typed text is never mixed into the output")
}

func TestREPLTakeBackQueued(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.ToolCall("bash", waitTool))
	e.srv.Reply(llmtest.Text("done"))
	e.srv.Reply(llmtest.Text("fixed answer"))
	p := e.start()
	p.line("work")
	p.expect("started")
	p.send("oops\x1b\r")
	p.expect("Follow-up: oops")
	p.send("\x1b[A") // Up: back into the editor, out of the queue
	p.expect("› oops")
	p.send(" fixed")
	p.expect("› oops fixed")
	writeFile(t, filepath.Join(e.cwd, "go"), "")
	p.expect("done")
	p.expect("> oops fixed") // the next prompt's text
	p.send("\r")
	p.expect("fixed answer")
	p.quit()

	reqs := e.srv.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, "oops fixed", lastUserText(t, reqs[2]))
	assert.NotContains(t, string(reqs[1].Body), "oops", "taken back before delivery")
}

func TestREPLEscStopsRun(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("partial"), llmtest.Hang())
	e.srv.Reply(llmtest.Text("next answer"))
	p := e.start()
	p.line("hang")
	p.expect("partial")
	p.send("typed")
	p.expect("› typed")
	p.send("\x1b")
	p.expect("(interrupted)")
	p.expect("> ")
	p.line("again")
	p.expect("next answer")
	p.quit()
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "again", lastUserText(t, reqs[1]), "what was typed went with the stopped run")
}
