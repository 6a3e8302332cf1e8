package main

// The bundled stack.lua (/pop) through the binary: seed 000's complex
// scenario trace (a compaction, a pop that crosses it, a compaction over
// the pop) continued with more pops, each step a separate one-shot run on
// the same session, checking every request the fake server received; and
// the command's refusals, branching and disabled_hooks.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/compaction"
	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

const (
	branchPrefix = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	popPreamble  = "The user set the following work aside with /pop and came back to the point before it.\nSummary of that work:\n\n"
)

// stackRun is a session driven turn by turn through one-shot runs.
type stackRun struct {
	t *testing.T
	e *e2e
}

// wire lists a request's messages after the system prompt as "role: text".
func wire(t *testing.T, r llmtest.Request) []string {
	t.Helper()
	var out []string
	for _, m := range reqMessages(t, r) {
		if m.Role == "system" {
			continue
		}
		out = append(out, m.Role+": "+contentText(m.Content))
	}
	return out
}

// run runs one one-shot prompt on the session, with the replies the
// server should give, and returns the requests it made.
func (s *stackRun) run(prompt string, replies ...string) ([]llmtest.Request, result) {
	s.t.Helper()
	for _, r := range replies {
		s.e.srv.Reply(llmtest.Text(r), llmtest.Usage(100, 10, 0, 0))
	}
	before := len(s.e.srv.Requests())
	args := []string{"-p", prompt}
	if len(s.e.sessionFiles()) > 0 {
		args = append([]string{"-c"}, args...)
	}
	r := s.e.run("", args...)
	return s.e.srv.Requests()[before:], r
}

// turn asks question i (answered "answer i") and returns the request.
func (s *stackRun) turn(i int) llmtest.Request {
	s.t.Helper()
	reqs, r := s.run(question(i), fmt.Sprintf("answer %d", i))
	require.Equal(s.t, 0, r.code, r.stderr)
	require.Len(s.t, reqs, 1)
	return reqs[0]
}

// command runs a slash command whose model calls get replies.
func (s *stackRun) command(line string, replies ...string) ([]llmtest.Request, string) {
	s.t.Helper()
	reqs, r := s.run(line, replies...)
	require.Equal(s.t, 0, r.code, r.stderr)
	assert.Empty(s.t, r.stdout, "commands answer on stderr")
	require.Len(s.t, reqs, len(replies), r.stderr)
	return reqs, r.stderr
}

func userQ(i int) string        { return "user: " + question(i) }
func answer(i int) string       { return fmt.Sprintf("assistant: answer %d", i) }
func compacted(s string) string { return "user: " + compactedPrefix + s + "\n</summary>" }
func popped(s string) string    { return "user: " + branchPrefix + popPreamble + s + "\n</summary>" }

// turns is userQ(i), answer(i) for i in from..to.
func turns(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, userQ(i), answer(i))
	}
	return out
}

// conversation is what a summary request shows of its messages.
func conversation(t *testing.T, r llmtest.Request) string {
	t.Helper()
	text := lastUserText(t, r)
	start, end := strings.Index(text, "<conversation>\n"), strings.Index(text, "\n</conversation>")
	require.True(t, start == 0 && end > 0, text)
	return text[len("<conversation>\n"):end]
}

// transcriptOf is the transcript of question/answer turns from..to.
func transcriptOf(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, "[User]: "+question(i), fmt.Sprintf("[Assistant]: answer %d", i))
	}
	return out
}

func paragraphs(parts ...[]string) string {
	var all []string
	for _, p := range parts {
		all = append(all, p...)
	}
	return strings.Join(all, "\n\n")
}

func cat(parts ...[]string) []string {
	var all []string
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}

// TestStackSeedTrace replays seed 000's complex scenario: turns 1-5, a
// compaction keeping 4-5, turns 6-7, a pop back to turn 2 that crosses
// the compaction (pre-pop summary P1 of turn 1, pop summary S1 of 2-7),
// turns 8-10, a compaction over the pop (C2, made from P1, S1 and turn 8)
// keeping 9-10; then more pops: one turn (S2), three turns over S2 (S3),
// and two turns back across C2 (P4, S4).
func TestStackSeedTrace(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.hkConfig(`{"compaction": {"keep_recent_tokens": 100}}`)
	s := &stackRun{t: t, e: e}

	// Initial: [msg1 … msg5].
	for i := 1; i <= 4; i++ {
		s.turn(i)
	}
	assert.Equal(t, turns(1, 5)[:9], wire(t, s.turn(5)))

	// Compaction{firstKept: msg4}: context [C1, msg4, msg5].
	reqs, _ := s.command("/compact", "C1")
	assert.NotContains(t, lastUserText(t, reqs[0]), "/pop", "no pop yet: the usual compaction")
	c1 := compactions(e.onlySession())
	require.Len(t, c1, 1)
	assert.Equal(t, question(4), e.onlySession().Get(c1[0].FirstKeptEntryID()).Message.Text())
	assert.Equal(t, cat([]string{compacted("C1")}, turns(4, 5), []string{userQ(6)}), wire(t, s.turn(6)))
	assert.Equal(t, cat([]string{compacted("C1")}, turns(4, 6), []string{userQ(7)}), wire(t, s.turn(7)))

	// /pop to msg2: backTo < firstKept, crossing. P1 summarises raw [msg1],
	// S1 raw [msg2 … msg7].
	reqs, stderr := s.command("/pop 6", "P1", "S1")
	assert.Contains(t, stderr, "summarising the conversation before the popped turns")
	assert.Contains(t, stderr, "popped 6 turns")
	assert.Equal(t, paragraphs(transcriptOf(1, 1)), conversation(t, reqs[0]))
	assert.Equal(t, compaction.SystemPrompt, systemPrompt(t, reqs[0]), "lunar.summary_prompts(): the compaction's own")
	assert.True(t, strings.HasSuffix(lastUserText(t, reqs[0]), "</conversation>\n\n"+compaction.SummaryPrompts()["compaction"]))
	assert.Equal(t, 4096.0, reqs[0].Field("max_completion_tokens"))
	assert.Nil(t, reqs[0].Field("tools"))
	assert.Equal(t, paragraphs(transcriptOf(2, 7)), conversation(t, reqs[1]))
	assert.Contains(t, lastUserText(t, reqs[1]), "setting aside with /pop")
	// Result: [P1, S1, msg10+].
	assert.Equal(t, []string{compacted("P1"), popped("S1"), userQ(8)}, wire(t, s.turn(8)))
	assert.Equal(t, cat([]string{compacted("P1"), popped("S1")}, turns(8, 8), []string{userQ(9)}), wire(t, s.turn(9)))
	s.turn(10)

	// Another compaction, firstKept msg11: it covers the pop, and its
	// summary is made from what the model saw (P1, S1, turn 8), not from
	// the popped turns.
	reqs, _ = s.command("/compact", "C2")
	assert.Equal(t, paragraphs(
		[]string{"[Summary of the conversation before this point]: P1", "[Summary of work set aside]: " + popPreamble + "S1\n"},
		transcriptOf(8, 8)), conversation(t, reqs[0]))
	c2 := compactions(e.onlySession())
	require.Len(t, c2, 2)
	assert.Equal(t, question(9), e.onlySession().Get(c2[1].FirstKeptEntryID()).Message.Text())
	assert.True(t, c2[1].FromHook())
	// Result: [C2, msg11, msg12].
	assert.Equal(t, cat([]string{compacted("C2")}, turns(9, 10), []string{userQ(11)}), wire(t, s.turn(11)))

	// /pop (one turn): not crossing, S2 stands for turn 11.
	reqs, _ = s.command("/pop 1", "S2")
	assert.Equal(t, paragraphs(transcriptOf(11, 11)), conversation(t, reqs[0]))
	assert.Equal(t, cat([]string{compacted("C2")}, turns(9, 10), []string{popped("S2"), userQ(12)}), wire(t, s.turn(12)))

	// /pop 3: turns 9, 10 and 12 (11 is popped already), S3 made with S2
	// in place of turn 11; it starts at C2's first kept entry: no crossing.
	reqs, _ = s.command("/pop 3", "S3")
	assert.Equal(t, paragraphs(transcriptOf(9, 10), []string{"[Summary of work set aside]: " + popPreamble + "S2\n"}, transcriptOf(12, 12)),
		conversation(t, reqs[0]))
	assert.Equal(t, []string{compacted("C2"), popped("S3"), userQ(13)}, wire(t, s.turn(13)))

	// /pop 2: turns 8 and 13, crossing C2 (which also covers 1-7). P4 is
	// made from what stands for the entries before turn 8 (P1, S1), S4 from
	// turn 8, S3 and turn 13.
	reqs, _ = s.command("/pop 2", "P4", "S4")
	assert.Equal(t, paragraphs([]string{"[Summary of the conversation before this point]: P1", "[Summary of work set aside]: " + popPreamble + "S1\n"}),
		conversation(t, reqs[0]))
	assert.Equal(t, paragraphs(transcriptOf(8, 8), []string{"[Summary of work set aside]: " + popPreamble + "S3\n"}, transcriptOf(13, 13)),
		conversation(t, reqs[1]))
	assert.Equal(t, []string{compacted("P4"), popped("S4"), userQ(14)}, wire(t, s.turn(14)))

	// Nothing was deleted: every turn is in the file, the pops are custom
	// entries on the path.
	sess := e.onlySession()
	pops := hkEntries(sess, session.TypeCustom)
	require.Len(t, pops, 4)
	for _, p := range pops {
		assert.Equal(t, "stack_pop", p.CustomType())
	}
	var users int
	for _, en := range sess.Path("") {
		if en.Type == session.TypeMessage && en.Message.Role == session.RoleUser {
			users++
		}
	}
	assert.Equal(t, 14, users)

	// Without the hook the model sees what core builds: C2 and the turns after it.
	e.hkConfig(`{"compaction": {"keep_recent_tokens": 100}, "disabled_hooks": ["stack"]}`)
	assert.Equal(t, cat([]string{compacted("C2")}, turns(9, 14), []string{userQ(15)}), wire(t, s.turn(15)))
}

func TestStackRefusals(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	s := &stackRun{t: t, e: e}
	reqs, r := s.run("/pop")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "nothing to pop: no user turn in the conversation")
	assert.Empty(t, reqs)

	s.turn(1)
	s.turn(2)
	for _, c := range []struct{ line, msg string }{
		{"/pop 3", "cannot pop 3 turns: the conversation has 2 turns"},
		{"/pop x", "usage: /pop [N]"},
		{"/pop 0", "usage: /pop [N]"},
		{"/pop 1 2", "usage: /pop [N]"},
		// Without N where no one can choose: the list, never the last turn.
		{"/pop", "usage: /pop N (no terminal to choose on); the turns to go back to, newest last:\n  /pop 2  " + question(1)[:69] + "…\n(/pop 1 sets the last turn aside)"},
	} {
		reqs, r = s.run(c.line)
		assert.Equal(t, 1, r.code, c.line)
		assert.Contains(t, r.stderr, c.msg, c.line)
		assert.Empty(t, reqs, c.line)
	}

	// A failed summary changes nothing.
	e.srv.Reply(llmtest.Status(400))
	reqs, r = s.run("/pop 1")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "the summary failed, nothing changed")
	assert.Len(t, reqs, 1)
	assert.Empty(t, hkEntries(e.onlySession(), session.TypeCustom))
	assert.Equal(t, cat(turns(1, 2), []string{userQ(3)}), wire(t, s.turn(3)))
}

// A pop lives on its branch: after going back to before it, the popped
// turns are back.
func TestStackPopStaysOnItsBranch(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	s := &stackRun{t: t, e: e}
	s.turn(1)
	s.turn(2)
	s.command("/pop 1", "S")
	assert.Equal(t, cat(turns(1, 1), []string{popped("S"), userQ(3)}), wire(t, s.turn(3)))

	// Branch at answer 2 (before the pop) and continue there.
	var a2 string
	for _, en := range e.onlySession().Path("") {
		if en.Type == session.TypeMessage && en.Message.Text() == "answer 2" {
			a2 = en.ID
		}
	}
	require.NotEmpty(t, a2)
	e.srv.Reply(llmtest.Text("answer 4"))
	r := e.run("", "--hook", hkFile(t, "goto.lua"), "-c", "-p", "/goto "+a2+" on the branch")
	require.Equal(t, 0, r.code, r.stderr)
	reqs := e.srv.Requests()
	assert.Equal(t, cat(turns(1, 2), []string{"user: on the branch"}), wire(t, reqs[len(reqs)-1]))
	assert.Equal(t, cat(turns(1, 2), []string{"user: on the branch", answer(4), userQ(5)}), wire(t, s.turn(5)), "the branch goes on without the pop")
}

// In the REPL: the notices, and a long tool result cut in the summary
// request.
func TestStackREPL(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("answer 1"))
	p := e.start()
	p.line("first")
	p.expect("answer 1")
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"seq 1 1000"}`))
	e.srv.Reply(llmtest.Text("counted"))
	p.line("count")
	p.expect("counted")

	e.srv.Reply(llmtest.Text("S"))
	p.line("/pop 1")
	p.expect("summarising 1 turn (4 messages)…")
	p.expect("popped 1 turn: the context went from 6 messages")
	p.expect(" to 3 messages")
	reqs := e.srv.Requests()
	full := seqOutput(1, 1000)
	assert.Equal(t, paragraphs([]string{"[User]: count", `[Assistant tool calls]: bash(command="seq 1 1000")`,
		"[Tool result]: " + full[:2000] + "\n\n[... " + fmt.Sprint(len(full)-2000) + " more bytes truncated]", "[Assistant]: counted"}),
		conversation(t, reqs[len(reqs)-1]))

	e.srv.Reply(llmtest.Text("third answer"))
	p.line("third")
	p.expect("third answer")
	reqs = e.srv.Requests()
	assert.Equal(t, []string{"user: first", "assistant: answer 1", popped("S"), "user: third"}, wire(t, reqs[len(reqs)-1]))
	p.quit()
}

// /pop without N in the REPL: a picker of the user turns but the current
// one; the turn picked and those after it are set aside.
func TestStackREPLPicksTheTurn(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	p := e.start()
	for _, q := range []string{"first", "second", "third"} {
		e.srv.Reply(llmtest.Text("answer to " + q))
		p.line(q + " question")
		p.expect("answer to " + q)
		p.expect("> ")
	}
	p.line("/pop")
	p.expect("empty answers no: ")
	p.send("\r") // nothing chosen: nothing popped
	p.expect("> ")
	e.srv.Reply(llmtest.Text("S"))
	p.line("/pop")
	p.expect("Go back to which turn?")
	p.expect("first question  (/pop 3)")
	p.expect("second question  (/pop 2)")
	p.expect("empty answers no: ")
	p.send("sec\r")
	p.expect("summarising 2 turns")
	p.expect("popped 2 turns")
	p.expect("> ")
	p.line("/pop")
	p.expect("nothing to go back to: the conversation has one user turn (/pop 1 sets it aside)")
	e.srv.Reply(llmtest.Text("fourth answer"))
	p.line("fourth question")
	p.expect("fourth answer")
	p.quit()
	assert.NotContains(t, p.output(), "third question  (/pop", "never the current turn")
	reqs := e.srv.Requests()
	assert.Equal(t, []string{"user: first question", "assistant: answer to first", popped("S"), "user: fourth question"}, wire(t, reqs[len(reqs)-1]))

	// JSON mode cannot choose either: the list, and exit 1.
	r := e.run("", "--mode", "json", "-c", "-p", "/pop")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "usage: /pop N (no terminal to choose on)")
	assert.Contains(t, r.stderr, "/pop 2  first question\n")
}
