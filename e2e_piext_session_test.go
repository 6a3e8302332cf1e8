// End-to-end tests of pi's example extensions ported to Lua
// (testdata/hooks/pi/): each runs through the binary against the fake
// server, and fails if the hook API it rests on breaks.
package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// piHook is the absolute path of a ported pi extension.
func piHook(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "hooks", "pi", name))
	require.NoError(t, err)
	return p
}

// customEntries returns the custom entries of a type, in file order.
func customEntries(s *session.Session, customType string) []*session.Entry {
	var out []*session.Entry
	for _, e := range s.Entries() {
		if e.Type == session.TypeCustom && e.CustomType() == customType {
			out = append(out, e)
		}
	}
	return out
}

// todo.lua: the list lives in custom entries, so it survives a resume and
// follows /branch.
func TestPiExtTodoSurvivesResumeAndBranch(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	hook := piHook(t, "todo.lua")
	e.srv.Reply(llmtest.ToolCall("todo", `{"action":"add","text":"write tests"}`))
	e.srv.Reply(llmtest.ToolCall("todo", `{"action":"add","text":"ship it"}`))
	e.srv.Reply(llmtest.ToolCall("todo", `{"action":"toggle","id":1}`))
	e.srv.Reply(llmtest.Text("planned"))
	r := e.run("", "-e", hook, "-p", "plan the release")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "planned\n", r.stdout)
	reqs := e.srv.Requests()
	require.Len(t, reqs, 4)
	assert.Contains(t, string(reqs[1].Body), "Added todo #1: write tests")
	assert.Contains(t, string(reqs[3].Body), "Todo #1 completed")

	s := e.onlySession()
	todos := customEntries(s, "todo")
	require.Len(t, todos, 3, "one custom entry per change")
	assert.JSONEq(t, `{"todos":[{"id":1,"text":"write tests","done":false}],"next_id":2}`, string(todos[0].Data()))

	// A new process: session.start (reason resume) rebuilds the list.
	r = e.run("", "-c", "-e", hook, "-p", "/todos")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "", r.stdout)
	assert.Contains(t, r.stderr, "Todos (1/2 completed)\n[x] #1: write tests\n[ ] #2: ship it\n")
	assert.Len(t, e.srv.Requests(), 4, "/todos is not a prompt")

	// /branch back to the first change: the list is what it was there.
	p := e.start("-c", "-e", hook)
	p.line("/branch " + todos[0].ID)
	p.expect("now at " + todos[0].ID)
	p.line("/todos")
	p.expect("Todos (0/1 completed)")
	p.expect("[ ] #1: write tests")
	p.quit()
	assert.NotContains(t, p.output(), "ship it")
}

// handoff.lua: a model-written prompt starts a new session that records
// the old one as its parent.
func TestPiExtHandoffStartsAChildSession(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("noted: sqlite"))
	r := e.run("", "-p", "we chose sqlite for storage")
	require.Equal(t, 0, r.code, r.stderr)
	parent := e.sessionFiles()
	require.Len(t, parent, 1)

	handoff := "## Context\nWe store data in sqlite.\n\n## Task\nadd a cache"
	e.srv.Reply(llmtest.Text(handoff))
	e.srv.Reply(llmtest.Text("cache added"))
	r = e.run("", "-c", "-e", piHook(t, "handoff.lua"), "-p", "/handoff add a cache")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "cache added\n", r.stdout)
	assert.Contains(t, r.stderr, "Handoff ready.")

	reqs := e.srv.Requests()
	require.Len(t, reqs, 3)
	assert.Contains(t, reqs[1].Field("messages.0.content"), "context transfer assistant", "the handoff's system prompt")
	ask, _ := reqs[1].LastUserText()
	assert.Contains(t, ask, "[User]: we chose sqlite for storage")
	assert.Contains(t, ask, "[Assistant]: noted: sqlite")
	assert.Contains(t, ask, "## User's Goal for New Thread\n\nadd a cache")
	sent, _ := reqs[2].LastUserText()
	assert.Equal(t, handoff, sent, "the new session starts with the generated prompt")
	assert.NotContains(t, string(reqs[2].Body), "we chose sqlite", "and nothing else of the old one")

	files := e.sessionFiles()
	require.Len(t, files, 2)
	var child *session.Session
	for _, f := range files {
		if f != parent[0] {
			s, err := session.Load(f)
			require.NoError(t, err)
			child = s
		}
	}
	require.NotNil(t, child)
	assert.Equal(t, parent[0], child.Header().ParentSession)
	assert.Equal(t, []string{handoff}, userTexts(child))
}

// session-name.lua: the name is a session_info entry, read back later.
func TestPiExtSessionName(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	hook := piHook(t, "session-name.lua")
	e.srv.Reply(llmtest.Text("hello"))
	require.Equal(t, 0, e.run("", "-e", hook, "-p", "hi").code)

	r := e.run("", "-c", "-e", hook, "-p", "/session-name")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "No session name set")

	r = e.run("", "-c", "-e", hook, "-p", "/session-name  Refactor auth ")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "Session named: Refactor auth")
	assert.Equal(t, "Refactor auth", e.onlySession().Name())

	r = e.run("", "-c", "-e", hook, "-p", "/session-name")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "Session: Refactor auth")
	assert.Len(t, e.srv.Requests(), 1, "naming is not a prompt")
}

// input-transform.lua: pi's input results; handled input reaches neither
// the model nor the session.
func TestPiExtInputTransformOneShot(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	hook := piHook(t, "input-transform.lua")

	r := e.run("", "-e", hook, "-p", "ping")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "", r.stdout)
	assert.Contains(t, r.stderr, "pong")
	r = e.run("ping\n", "-e", hook)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "pong", "piped input is handled too")
	assert.Empty(t, e.srv.Requests(), "handled input never reaches the model")
	assert.Empty(t, e.sessionFiles(), "nor the session")

	e.srv.Reply(llmtest.Text("A small language."))
	r = e.run("", "-e", hook, "-p", "?quick What is Lua?")
	require.Equal(t, 0, r.code, r.stderr)
	require.Len(t, e.srv.Requests(), 1)
	got, _ := e.srv.Requests()[0].LastUserText()
	assert.Equal(t, "Respond briefly in 1-2 sentences: What is Lua?", got)
	assert.Equal(t, []string{got}, userTexts(e.onlySession()), "the transformed text is stored")

	// A hook's lunar.send has source "extension": the hook lets it through.
	e.srv.Reply(llmtest.Text("pong from the model"))
	r = e.run("", "-c", "-e", hook, "-p", "/ping-model")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "pong from the model\n", r.stdout)
	got, _ = e.srv.Requests()[1].LastUserText()
	assert.Equal(t, "ping", got)
}

func TestPiExtInputTransformREPL(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("hi there"))
	p := e.start("-e", piHook(t, "input-transform.lua"))
	p.line("ping")
	p.expect("pong")
	p.expect("> ")
	p.line("hello")
	p.expect("hi there")
	p.quit()
	require.Len(t, e.srv.Requests(), 1)
	assert.Equal(t, []string{"hello"}, userTexts(e.onlySession()), "ping was handled, not stored")
}

// chat.message's source: print (-p), stdin (piped), interactive (typed),
// extension (lunar.send).
func TestChatMessageSource(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	hook := piHook(t, "input-source.lua")
	e.srv.SetDefault(llmtest.Text("ok"))
	r := e.run("", "-e", hook, "-p", "one")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "source=print text=one")
	r = e.run("two\n", "-e", hook)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "source=stdin text=two")
	r = e.run("", "-e", hook, "-p", "/send-it three")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "source=extension text=three")

	p := e.start("-e", hook)
	p.line("four")
	p.expect("source=interactive text=four")
	p.expect("ok")
	p.quit()
}

// system-prompt-header.lua: ctx.get_system_prompt is the prompt the call
// sends (after chat.system.transform), ctx.ui.print goes to stderr in
// one-shot mode; lunar.send takes content parts and runs /commands when
// asked ({command = true}).
func TestPiExtSystemPromptHeader(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	hook := piHook(t, "system-prompt-header.lua")
	e.srv.Reply(llmtest.Text("hi"))
	r := e.run("", "-e", hook, "-p", "hello")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "hi\n", r.stdout, "ctx.ui.print never writes to stdout")
	sys, _ := e.srv.Requests()[0].Field("messages.0.content").(string)
	require.True(t, strings.HasSuffix(sys, "\n\nAlways answer in English."), sys)
	assert.Contains(t, r.stderr, "System: "+strconv.Itoa(utf8.RuneCountInString(sys))+" chars\n")

	r = e.run("", "-e", hook, "-p", "/system-prompt")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, sys)
	r = e.run("", "-e", hook, "-p", "/followup /system-prompt")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, sys, "lunar.send of /command with command = true runs the command")
	assert.Len(t, e.srv.Requests(), 1, "neither went to the model")

	e.srv.Reply(llmtest.Text("4"))
	r = e.run("", "-e", hook, "-p", "/ask what is 2+2")
	require.Equal(t, 0, r.code, r.stderr)
	got, _ := e.srv.Requests()[1].LastUserText()
	assert.Equal(t, "User request: what is 2+2\nPlease respond concisely.", got, "content parts")
}

// lunar.send with deliver = "steer" from a tool_result handler joins the
// running turn before its next model call.
func TestSendSteerJoinsTheRunningTurn(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo hi"}`))
	e.srv.Reply(llmtest.Text("printed hi, exit code 0"))
	r := e.run("", "-e", piHook(t, "system-prompt-header.lua"), "-p", "say hi")
	require.Equal(t, 0, r.code, r.stderr)
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2, "the steering message takes no run of its own")
	got, _ := reqs[1].LastUserText()
	assert.Equal(t, "Steer: also mention the exit code.", got)
	body := string(reqs[1].Body)
	assert.Less(t, strings.Index(body, `"role":"tool"`), strings.Index(body, "Steer: also"), "after the tool result")
	assert.Equal(t, []string{"say hi", "Steer: also mention the exit code."}, userTexts(e.onlySession()))
}

// ctx.ui.print in the REPL goes through the view: on its own line,
// before the reply.
func TestUIPrintInREPL(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("the answer"))
	p := e.start("-e", piHook(t, "system-prompt-header.lua"))
	p.line("hello")
	p.expect("System: ")
	p.expect(" chars\r\n")
	p.expect("the answer")
	p.line("/followup /system-prompt") // lunar.send of a command runs it as typed
	p.expect("/system-prompt")
	p.expect("Always answer in English.")
	p.quit()
	assert.Len(t, e.srv.Requests(), 1)
}
