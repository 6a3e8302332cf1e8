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

// A /command entered during a run is handled as commands_running.go's
// table says, one of each row: a hook command runs at once (ctx.is_idle()
// false) and its prompt follows the run up; /session runs at once;
// /clear is refused with one line; /name X runs when the run ends, and
// so does /model, the REPL's picker; /compact compacts at the next turn
// boundary and the run goes on.
func TestREPLCommandsDuringARun(t *testing.T) {
	e := newE2E(t)
	writeHook(t, filepath.Join(e.home, "config", "hooks.d", "busy.lua"), `
lunar.command("probe", { description = "says whether the agent is idle", handler = function(args, ctx)
  ctx.ui.print("probe " .. args .. ": idle=" .. tostring(ctx.is_idle()))
  return "a prompt from the probe"
end })`)
	e.srv.Reply(llmtest.ToolCall("bash", waitTool))
	e.srv.Reply(llmtest.Text("tool done"))
	e.srv.Reply(llmtest.Text("probe followed up"))
	p := e.start()
	p.line("work")
	p.expect("started")
	p.line("/probe one")
	p.expect("probe one: idle=false")
	p.line("/session")
	p.expect("(2 messages: 1 user, 1 assistant, 0 tool results)") // the tool result is not in yet
	p.line("/clear")
	p.expect("/clear changes the session under the running reply")
	p.line("/name later")
	p.expect("/name runs when the reply ends")
	p.line("/compact")
	p.expect("compacting before the next model call; the reply goes on")
	p.line("/model") // the picker sets the model: not under the run
	p.expect("/model runs when the reply ends")
	writeFile(t, filepath.Join(e.cwd, "go"), "")
	p.expect("tool done")
	p.expect("probe followed up")
	p.expect("name: later")
	p.expect("* openai/gpt-4.1 ") // the picker, after the run
	p.send("\x1b")
	p.expect("> ")
	p.quit()

	reqs := e.srv.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, "a prompt from the probe", lastUserText(t, reqs[2]), "the hook command's prompt followed up the run")
	require.Len(t, e.sessionFiles(), 1, "/clear was refused: still one session")
	assert.Equal(t, "later", e.onlySession().Name())
}

// A /command entered while a reply streams waits for that reply's end to
// know whether the agent goes on: the reply was the last, so it is typed
// ahead, exactly as if entered after the run (/clear is not refused, /name
// is not "when the reply ends"), and the line after it follows it.
func TestREPLCommandWhileTheLastReplyStreams(t *testing.T) {
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("the last answer"), llmtest.Pause())
	e.srv.Reply(llmtest.Text("answer in the new session"))
	p := e.start()
	p.line("work")
	p.expect("the last answer")
	p.line("/name racer")
	p.expect("When this reply ends: /name racer")
	p.line("/clear")
	p.line("next question")
	p.expect("When this reply ends: next question")
	e.srv.Resume()
	p.expect("name: racer")
	p.expect("answer in the new session")
	p.expect("> ")
	p.quit()

	out := p.output()
	assert.NotContains(t, out, "runs when the reply ends")
	assert.NotContains(t, out, "changes the session under the running reply")
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"next question"}, userTextsOf(t, reqs[1]), "sent in the session /clear started")
	assert.Len(t, e.sessionFiles(), 2)
}

// A prompt entered while a reply streams joins the run: the reply was
// not the last, the agent answers it in the same run.
func TestREPLSteerWhileAReplyStreams(t *testing.T) {
	e := newE2E(t)
	// chat.message sees the steer, when it is delivered, as typed by the
	// user (source "interactive"), as it sees the prompt; what it sends
	// instead, the REPL still shows as typed when it is delivered.
	writeHook(t, filepath.Join(e.home, "config", "hooks.d", "source.lua"), `
lunar.on("chat.message", function(ev) return { text = ev.text .. " [" .. ev.source .. "]" } end)`)
	e.srv.Reply(llmtest.Text("first part"), llmtest.Pause())
	e.srv.Reply(llmtest.Text("steered part"))
	p := e.start()
	p.line("work")
	p.expect("first part")
	p.line("and the tests")
	p.expect("Steering: and the tests")
	e.srv.Resume()
	p.expect("> and the tests")
	p.expect("steered part")
	p.expect("> ")
	p.quit()
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"work [interactive]", "and the tests [interactive]"}, userTextsOf(t, reqs[1]), "in the same run, after the first reply")
}

// Once the last reply has ended (here a turn.end handler holds the run
// open after it), a line entered is typed ahead as if the run had ended:
// a prompt is the next prompt, not a steer that makes the run go on, and
// /clear runs instead of being refused.
func TestREPLLineAfterTheLastReplyEnded(t *testing.T) {
	e := newE2E(t)
	writeHook(t, filepath.Join(e.home, "config", "hooks.d", "hold.lua"), `
lunar.on("turn.end", function(ev, ctx)
  ctx.ui.print("holding the run")
  lunar.exec("sh", { "-c", "while [ ! -e go ]; do sleep 0.05; done" })
end)`)
	e.srv.Reply(llmtest.Text("the answer"))
	e.srv.Reply(llmtest.Text("a new run"))
	p := e.start()
	p.line("work")
	p.expect("holding the run")
	p.line("/clear")
	p.expect("After the reply: /clear")
	p.send("hello\x1b\r") // Alt+Enter: a follow-up, were the run to go on
	p.expect("After the reply: hello")
	writeFile(t, filepath.Join(e.cwd, "go"), "")
	p.expect("a new run")
	p.expect("> ")
	p.quit()

	assert.NotContains(t, p.output(), "changes the session under the running reply")
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"hello"}, userTextsOf(t, reqs[1]), "the next prompt, in the session /clear started")
	assert.Len(t, e.sessionFiles(), 2)
}

// userTextsOf are the texts of an OpenAI request's user messages, in
// order.
func userTextsOf(t *testing.T, r llmtest.Request) []string {
	t.Helper()
	texts, err := r.UserTexts()
	require.NoError(t, err)
	return texts
}

// A dialog opened during a run while a line is half typed in the run's
// editor gets the keys (its answer is not typed into the line), and the
// line survives it: redrawn after it, the next prompt's text after the
// run. The permission question and a hook's select are pickers (the
// keys diverted to them), a hook's confirm reads a line.
func TestREPLDialogDuringARunKeepsTheLine(t *testing.T) {
	tests := []struct {
		name     string
		bundled  bool // the bundled permission policy asks (no --yes)
		question string
		answer   string
	}{
		{name: "permission dialog", bundled: true, question: "Allow this bash command?", answer: "1"},
		{name: "confirm", question: "[y/N] ", answer: "y"},
		{name: "select", question: "choose 1-2", answer: "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newE2E(t)
			e.ask = tt.bundled
			e.srv.Reply(llmtest.Text("let me look"), llmtest.Pause(),
				llmtest.ToolCall("bash", `{"command":"echo `+strings.Fields(tt.name)[0]+` > ran.txt"}`))
			e.srv.Reply(llmtest.Text("all done"))
			e.srv.Reply(llmtest.Text("got the line"))
			var args []string
			if !tt.bundled {
				args = []string{"--hook", replHook(t, "repl_dialog_stop.lua")}
			}
			p := e.start(args...)
			p.line("work")
			p.expect("let me look")
			p.send("half line")
			p.expect("› half line")
			e.srv.Resume()
			p.expect(tt.question)
			p.line(tt.answer)
			p.expect("› half line") // drawn again below the output
			p.expect("all done")
			p.expect("> half line")
			p.send("\r")
			p.expect("got the line")
			p.quit()

			assert.FileExists(t, filepath.Join(e.cwd, "ran.txt"), "the dialog got the answer")
			reqs := e.srv.Requests()
			require.Len(t, reqs, 3)
			assert.Equal(t, "half line", lastUserText(t, reqs[2]), "the line, without the dialog's answer")
		})
	}
}

// A hook command entered during a run opens its dialog at once; the
// dialog gets the keys typed after it asked, not the run's editor.
func TestREPLHookCommandDialogDuringARun(t *testing.T) {
	e := newE2E(t)
	writeHook(t, filepath.Join(e.home, "config", "hooks.d", "ask.lua"), `
lunar.command("ask", { description = "asks", handler = function(args, ctx)
  ctx.ui.print("answer: " .. tostring(ctx.ui.confirm("Sure?", "really")))
end })`)
	e.srv.Reply(llmtest.ToolCall("bash", waitTool))
	e.srv.Reply(llmtest.Text("tool done"))
	p := e.start()
	p.line("work")
	p.expect("started")
	p.line("/ask")
	p.expect("Sure? really [y/N] ")
	p.line("y")
	p.expect("answer: true")
	p.send("still typing")
	p.expect("› still typing")
	writeFile(t, filepath.Join(e.cwd, "go"), "")
	p.expect("tool done")
	p.expect("> still typing")
	p.send("\x15") // Ctrl+U
	p.quit()
	assert.Len(t, e.srv.Requests(), 2)
}

// The run's editor edits as the prompt does: the cursor moves by
// characters and words (arrows, Home, End, Ctrl+A/E, Alt+B/F) and is
// drawn where it is; Delete, Ctrl+W and Ctrl+U edit at it; Tab completes
// a command's name with the prompt's completer (one candidate put in,
// several listed).
func TestREPLRunEditorEditing(t *testing.T) {
	e := newE2E(t)
	e.srv.Reply(llmtest.ToolCall("bash", waitTool))
	e.srv.Reply(llmtest.Text("tool done"))
	p := e.start()
	p.line("work")
	p.expect("started")
	p.send("say hello world")
	p.expect("› say hello world")
	p.send("\x1b[D\x1b[D\x1b[D\x1b[D\x1b[D") // Left ×5: before "world"
	p.expect("› say hello world\r\x1b[12C")  // the cursor drawn there
	p.send("big ")
	p.expect("› say hello big world\r\x1b[16C")
	p.send("\x05!") // Ctrl+E, then at the end
	p.expect("› say hello big world!")
	p.send("\x1bb\x17") // Alt+B to "world!", Ctrl+W deletes "big "
	p.expect("› say hello world!\r\x1b[12C")
	p.send("\x1b[H\x1b[3~\x1b[3~\x1b[3~\x1b[3~") // Home, Delete ×4
	p.expect("› hello world!\r\x1b[2C")
	p.send("\x1bf,") // Alt+F to the end of "hello"
	p.expect("› hello, world!\r\x1b[8C")
	p.send("\x01\x1b[C\x1b[C\x1b[F?") // Ctrl+A, Right ×2, End
	p.expect("› hello, world!?")
	p.send("\r")
	p.expect("Steering: hello, world!?")
	p.send("/h\t")
	p.expect("/help  /hooks\r\n› /h") // listed: they share only "/h"
	p.send("\x15/ses\t")              // Ctrl+U, then one candidate
	p.expect("› /session")
	p.send("\r")
	p.expect("(2 messages: 1 user, 1 assistant, 0 tool results)") // /session ran at once
	writeFile(t, filepath.Join(e.cwd, "go"), "")
	p.expect("tool done")
	p.expect("> ")
	p.quit()
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "hello, world!?", lastUserText(t, reqs[1]))
}

// A prompt steered into a run that is stopped before delivering it stays
// queued for the next run, as pi's; /clear between the runs starts a new
// session without it, as pi's replaced session drops its queue.
func TestREPLClearDropsWhatAStoppedRunQueued(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("partial"), llmtest.Hang())
	e.srv.Reply(llmtest.Text("fresh answer"))
	p := e.start()
	p.line("hang")
	p.expect("partial")
	p.send("steered\r")
	p.expect("Steering: steered")
	p.send("\x1b")
	p.expect("(interrupted)")
	p.expect("> ")
	p.line("/clear")
	p.expect("> ")
	p.line("fresh")
	p.expect("fresh answer")
	p.quit()
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"fresh"}, userTextsOf(t, reqs[1]), "the old session's queue went with it")
}
