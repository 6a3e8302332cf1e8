package main

// The bundled prune.lua (/prune) through the binary: one-shot arguments
// (list, drop, shorten, keep, ranges, all-but-last), what reaches the
// model on later calls, the stored results left whole, branches and
// disabled_hooks; and the numbered selection in the REPL.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// toolTexts lists the contents of a request's tool messages.
func toolTexts(t *testing.T, r llmtest.Request) []string {
	t.Helper()
	var out []string
	for _, m := range reqMessages(t, r) {
		if m.Role == "tool" {
			out = append(out, contentText(m.Content))
		}
	}
	return out
}

// seqOutput is what `seq from to` prints.
func seqOutput(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

// toolTurn runs a prompt whose reply calls bash with command, then answers.
func (s *stackRun) toolTurn(prompt, command, answer string) {
	s.t.Helper()
	s.e.srv.Reply(llmtest.ToolCall("bash", fmt.Sprintf(`{"command":%q}`, command)))
	_, r := s.run(prompt, answer)
	require.Equal(s.t, 0, r.code, r.stderr)
}

// ask runs a plain turn and returns the tool results its request carried.
func (s *stackRun) ask(prompt string) []string {
	s.t.Helper()
	reqs, r := s.run(prompt, "ok")
	require.Equal(s.t, 0, r.code, r.stderr)
	require.Len(s.t, reqs, 1)
	return toolTexts(s.t, reqs[0])
}

// prune runs a /prune command line and returns its stderr.
func (s *stackRun) prune(args string) string {
	s.t.Helper()
	reqs, r := s.run("/prune " + args)
	require.Equal(s.t, 0, r.code, r.stderr)
	assert.Empty(s.t, r.stdout)
	assert.Empty(s.t, reqs, "/prune makes no model call")
	return r.stderr
}

func TestPruneOneShot(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	s := &stackRun{t: t, e: e}
	big, small, other := seqOutput(1, 1000), "hello\n", seqOutput(2000, 3000)
	s.toolTurn("first", "seq 1 1000", "done 1")
	s.toolTurn("second", "echo hello", "done 2")
	s.toolTurn("third", "seq 2000 3000", "done 3")
	require.Equal(t, []string{big, small, other}, s.ask("whole"))

	// The list: numbered from the oldest, with sizes; nothing changes.
	out := s.prune("")
	assert.Contains(t, out, "tool results in the context (oldest first):")
	assert.Contains(t, out, "  1. bash: seq 1 1000 — 3.8 KB, 1000 lines\n")
	assert.Contains(t, out, "  2. bash: echo hello — 6 bytes, 1 line\n")
	assert.Contains(t, out, "  3. bash: seq 2000 3000 — 4.9 KB, 1001 lines\n")
	assert.Equal(t, out, s.prune("list"))

	// Drop one: a note in its place, the others whole.
	assert.Contains(t, s.prune("1"), "dropped 1 tool result: the context is now")
	dropped := "[tool output dropped by /prune: 3.8 KB, 1000 lines]"
	assert.Equal(t, []string{dropped, small, other}, s.ask("after drop"))

	// Shorten: the beginning and the end, with what was cut.
	assert.Contains(t, s.prune("shorten 3"), "shortened 1 tool result")
	got := s.ask("after shorten")
	require.Len(t, got, 3)
	short := got[2]
	assert.True(t, strings.HasPrefix(short, "2000\n2001\n"), short)
	assert.True(t, strings.HasSuffix(short, "2999\n3000\n"), short)
	assert.Regexp(t, `\n\[… [0-9.]+ KB, [0-9]+ lines omitted by /prune …\]\n`, short)
	assert.Less(t, len(short), 1100)
	assert.Contains(t, s.prune("list"), "  3. bash: seq 2000 3000 — 4.9 KB, 1001 lines (shortened)")

	// A short result stays whole; an unknown number or word is refused.
	assert.Contains(t, s.prune("shorten 2"), "nothing to change")
	for line, msg := range map[string]string{
		"9":              "no tool result 9 (there are 3)",
		"2-7":            "no tool result 2-7 (there are 3)",
		"frobnicate":     "usage: /prune",
		"last":           "last needs a number",
		"all-but-last x": "all-but-last needs a number",
	} {
		reqs, r := s.run("/prune " + line)
		assert.Equal(t, 1, r.code, line)
		assert.Contains(t, r.stderr, msg, line)
		assert.Empty(t, reqs, line)
	}

	// keep restores; all-but-last drops the rest (the shortened third
	// result is not among them and stays shortened).
	assert.Contains(t, s.prune("keep 1"), "restored 1 tool result")
	assert.Equal(t, []string{big, small, short}, s.ask("after keep"))
	assert.Contains(t, s.prune("all-but-last 1"), "dropped 2 tool results")
	assert.Equal(t, []string{dropped, "[tool output dropped by /prune: 6 bytes, 1 line]", short}, s.ask("after all-but-last"))
	assert.Contains(t, s.prune("keep all"), "restored 3 tool results")
	assert.Equal(t, []string{big, small, other}, s.ask("all back"))
	assert.Contains(t, s.prune("drop 1,3"), "dropped 2 tool results")

	// The session file keeps every result whole; the choices are custom
	// entries.
	sess := e.onlySession()
	var stored []string
	for _, en := range sess.Path("") {
		if en.Type == session.TypeMessage && en.Message.Role == session.RoleToolResult {
			stored = append(stored, en.Message.Text())
		}
	}
	assert.Equal(t, []string{big, small, other}, stored)
	choices := hkEntries(sess, session.TypeCustom)
	require.Len(t, choices, 6)
	assert.Equal(t, "prune", choices[0].CustomType())
	assert.JSONEq(t, fmt.Sprintf(`{"action":"drop","ids":[%q]}`, stored0ID(t, sess)), string(choices[0].Data()))

	// A branch from before the choices sees every result whole.
	var done3 string
	for _, en := range sess.Path("") {
		if en.Type == session.TypeMessage && en.Message.Text() == "done 3" {
			done3 = en.ID
		}
	}
	require.NotEmpty(t, done3)
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "--hook", hkFile(t, "goto.lua"), "-c", "-p", "/goto "+done3+" on the branch")
	require.Equal(t, 0, r.code, r.stderr)
	reqs := e.srv.Requests()
	assert.Equal(t, []string{big, small, other}, toolTexts(t, reqs[len(reqs)-1]))
	assert.Equal(t, []string{big, small, other}, s.ask("still on the branch"))
	assert.Contains(t, s.prune("2"), "dropped 1 tool result")
	assert.Equal(t, []string{big, "[tool output dropped by /prune: 6 bytes, 1 line]", other}, s.ask("pruned on the branch"))

	// Turned off, the hook changes nothing.
	e.hkConfig(`{"disabled_hooks": ["prune"]}`)
	assert.Equal(t, []string{big, small, other}, s.ask("without the hook"))
	_, r = s.run("/prune list", "ok")
	assert.Equal(t, 0, r.code)
	assert.Len(t, e.srv.Requests(), len(reqs)+4, "without the hook /prune is an ordinary prompt")
}

// stored0ID is the entry id of the first tool result on the path.
func stored0ID(t *testing.T, s *session.Session) string {
	t.Helper()
	for _, en := range s.Path("") {
		if en.Type == session.TypeMessage && en.Message.Role == session.RoleToolResult {
			return en.ID
		}
	}
	t.Fatal("no tool result")
	return ""
}

func TestPruneNothingToPrune(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	s := &stackRun{t: t, e: e}
	s.ask("hello")
	assert.Contains(t, s.prune(""), "no tool results in the context")
	reqs, r := s.run("/prune all")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "nothing to change")
	assert.Empty(t, reqs)
	assert.Empty(t, hkEntries(e.onlySession(), session.TypeCustom))
}

func TestPruneREPLSelection(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"seq 1 1000"}`))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo hello"}`))
	e.srv.Reply(llmtest.Text("read them"))
	p := e.start()
	p.line("run two commands")
	p.expect("read them")

	// Mark the first, unmark it, mark the second, then cancel: nothing changes.
	p.line("/prune")
	p.expect("Prune tool results: pick one to mark it")
	p.expect(" 1) [ ] bash: seq 1 1000 — 3.8 KB, 1000 lines")
	p.expect(" 2) [ ] bash: echo hello — 6 bytes, 1 line")
	p.expect("choose 1-2 or type its first letters, ↑↓ and Enter; empty answers no: ")
	p.line("1")
	p.expect(" 1) [x] bash: seq 1 1000")
	p.expect(" 3) → drop the 1 marked result")
	p.expect(" 4) → shorten the 1 marked result")
	p.expect(" 5) → send the 1 marked result whole again")
	p.expect("choose 1-5")
	p.line("")
	p.expect("/prune: nothing changed")

	// Mark both, drop them.
	p.line("/prune")
	p.expect("choose 1-2")
	p.line("1")
	p.expect("choose 1-5")
	p.line("2")
	p.expect(" 2) [x] bash: echo hello")
	p.expect(" 3) → drop the 2 marked results")
	p.expect("choose 1-5")
	p.line("3")
	p.expect("dropped 2 tool results: the context is now")
	p.expect("> ")

	e.srv.Reply(llmtest.Text("fine"))
	p.line("and now?")
	p.expect("fine")
	reqs := e.srv.Requests()
	assert.Equal(t, []string{"[tool output dropped by /prune: 3.8 KB, 1000 lines]", "[tool output dropped by /prune: 6 bytes, 1 line]"},
		toolTexts(t, reqs[len(reqs)-1]))

	// The list shows the state; arguments work in the REPL too.
	p.line("/prune list")
	p.expect("  1. bash: seq 1 1000 — 3.8 KB, 1000 lines (dropped)")
	p.line("/prune keep 2")
	p.expect("restored 1 tool result")
	p.quit()

	// Resumed, the choices still apply.
	e.srv.Reply(llmtest.Text("resumed"))
	p = e.start("-c")
	p.line("again")
	p.expect("resumed")
	p.quit()
	reqs = e.srv.Requests()
	assert.Equal(t, []string{"[tool output dropped by /prune: 3.8 KB, 1000 lines]", "hello\n"}, toolTexts(t, reqs[len(reqs)-1]))
}
