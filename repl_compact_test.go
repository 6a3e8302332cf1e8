package main

import (
	"strings"
	"testing"

	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// /compact in the REPL: a spinner while the summary is written, then what
// it did; Ctrl+C stops it and leaves the session as it was; /session shows
// the context after it.
func TestREPLCompact(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	writeFile(t, e.home+"/config/config.json", `{"compaction": {"keep_recent_tokens": 50}}`)
	p := e.start()
	for i := 1; i <= 3; i++ {
		e.srv.Reply(llmtest.Text("answer "+string(rune('0'+i))), llmtest.Usage(100, 10, 0, 0))
		p.line(question(i))
		p.expect("answer " + string(rune('0'+i)))
	}

	// Stopped: nothing written.
	e.srv.Reply(llmtest.Hang())
	p.line("/compact")
	p.expect("compacting")
	p.send("\x03")
	p.expect("(compaction stopped: the session is unchanged)")
	p.expect("> ")
	s := e.onlySession()
	for _, en := range s.Entries() {
		assert.NotEqual(t, session.TypeCompaction, en.Type)
	}

	e.srv.Reply(llmtest.Text("## Goal\nthree questions"))
	p.line("/compact mind the numbers")
	p.expect("compacted: ")
	p.expect(" tokens")
	p.line("/compact")
	p.expect("already compacted")
	p.line("/session")
	p.expect("context")
	p.quit()

	reqs := e.srv.Requests()
	require.Len(t, reqs, 5)
	assert.True(t, strings.HasSuffix(lastUserText(t, reqs[4]), "Additional focus: mind the numbers"))
	s = e.onlySession()
	var sums []string
	for _, en := range s.Entries() {
		if en.Type == session.TypeCompaction {
			sums = append(sums, en.Summary())
		}
	}
	assert.Equal(t, []string{"## Goal\nthree questions"}, sums)
	assert.NotContains(t, p.output(), "not available")
}

// After each reply one dim line gives the run's tokens and cost and the
// context used, marked when auto-compaction is near.
func TestREPLStatusLine(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	// gpt-4.1's window is 1,047,576: auto-compaction above 576 tokens.
	writeFile(t, e.home+"/config/config.json", `{"compaction": {"reserve_tokens": 1047000}}`)
	e.srv.Reply(llmtest.Text("short"), llmtest.Usage(100, 20, 0, 0))
	e.srv.Reply(llmtest.Text("longer"), llmtest.Usage(500, 40, 0, 0))
	p := e.start()
	p.line("one")
	p.expect("short")
	p.expect("in 100 · out 20 · $0.0004 · context 120/1.05M (0%)")
	// A narrow terminal: the line breaks between its parts, not inside one.
	require.NoError(t, pty.Setsize(p.tty, &pty.Winsize{Rows: 40, Cols: 40}))
	p.line("two")
	p.expect("longer")
	p.expect("in 500 · out 40 · $0.0013\r\ncontext 540/1.05M (0%)\r\nauto-compaction near")
	p.quit()
}

// In the REPL too, a reply past the threshold compacts (with the spinner
// and its result), and an overflowing request is compacted and retried.
func TestREPLAutoAndOverflowCompaction(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	writeFile(t, e.home+"/config/config.json", `{"compaction": {"reserve_tokens": 1047000, "keep_recent_tokens": 50}}`)
	p := e.start()
	for i := 1; i <= 2; i++ {
		e.srv.Reply(llmtest.Text("answer "+string(rune('0'+i))), llmtest.Usage(100, 10, 0, 0))
		p.line(question(i))
		p.expect("answer " + string(rune('0'+i)))
	}
	e.srv.Reply(llmtest.Text("big answer"), llmtest.Usage(900, 10, 0, 0))
	e.srv.Reply(llmtest.Text("## Goal\nauto"))
	p.line(question(3))
	p.expect("big answer")
	p.expect("compacted: ")

	e.srv.Reply(llmtest.ContextOverflow(1100000, 1047576))
	e.srv.Reply(llmtest.Text("## Goal\noverflow"))
	e.srv.Reply(llmtest.Text("after the retry"), llmtest.Usage(100, 10, 0, 0))
	p.line(question(4))
	p.expect("; retrying")
	p.expect("after the retry")
	p.quit()

	var sums []string
	for _, en := range e.onlySession().Entries() {
		if en.Type == session.TypeCompaction {
			sums = append(sums, en.Summary())
		}
	}
	assert.Equal(t, []string{"## Goal\nauto", "## Goal\noverflow"}, sums)
	reqs := e.srv.Requests()
	assert.Equal(t, strings.TrimSpace(question(4)), lastUserText(t, reqs[len(reqs)-1]))
}
