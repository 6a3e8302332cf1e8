// End-to-end tests of the REPL's built-in slash commands and of ctx.ui
// dialogs, through the real binary in a pseudo-terminal.
package main

import (
	"bytes"
	"encoding/base64"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// spinnerFrames matches what the spinner draws and erases on its line
// (the line is erased, then a frame drawn: "\r\x1b[K⠋ working 3s").
var spinnerFrames = regexp.MustCompile("\r\x1b\\[K(?:[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏][^\r\n\x1b]*)?")

// withoutSpinner drops the spinner's frames from terminal output.
func withoutSpinner(out string) string { return spinnerFrames.ReplaceAllString(out, "") }

// entriesOfType lists the entries of one type in file order.
func entriesOfType(s *session.Session, typ string) []*session.Entry {
	var out []*session.Entry
	for _, e := range s.Entries() {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// entryWithText finds the message entry whose text is text.
func entryWithText(t *testing.T, s *session.Session, text string) *session.Entry {
	t.Helper()
	for _, e := range s.Entries() {
		if e.Message != nil && e.Message.Text() == text {
			return e
		}
	}
	t.Fatalf("no message %q in %s", text, s.File())
	return nil
}

func TestREPLHookUIDialogs(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("got the draft"))
	p := e.start("--hook", replHook(t, "repl_ui.lua"))

	// select: a numbered list; a wrong number asks again; empty cancels.
	p.line("/colour")
	p.expect("Pick a colour")
	p.expect(" 1) red")
	p.expect(" 3) blue")
	p.expect("choose 1-3 or type its first letters, ↑↓ and Enter; empty answers no: ")
	p.line("7")
	p.expect("please answer with a number from 1 to 3")
	p.line("2")
	p.expect("picked green")
	p.expect("> ")
	p.line("/colour")
	p.expect("choose 1-3")
	p.line("")
	p.expect("no colour")

	// input: the placeholder is shown; Ctrl+D cancels the question, Ctrl+C
	// stops the command too; neither leaves lunar.
	p.line("/whoami")
	p.expect("Your name (e.g. Ada): ")
	p.line("Ada Lovelace")
	p.expect("hello Ada Lovelace")
	p.line("/whoami")
	p.expect("Your name (e.g. Ada): ")
	p.send("\x04")
	p.expect("input cancelled")
	p.line("/whoami")
	p.expect("Your name (e.g. Ada): ")
	p.send("\x03")
	p.expect("(interrupted)")
	p.line("/whoami")
	p.expect("Your name (e.g. Ada): ")
	p.line("")
	p.expect("empty name")

	// set_editor_text / get_editor_text: the next prompt starts with it.
	p.line("/draft fix the bug")
	p.expect("editor holds [draft: fix the bug]")
	p.expect("> draft: fix the bug")
	p.line(" now")
	p.expect("got the draft")
	p.quit()

	reqs := e.srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "draft: fix the bug now", lastUserText(t, reqs[0]))
}

func TestREPLNotifyColours(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.env = []string{"NO_COLOR="}
	p := e.start("--hook", replHook(t, "repl_ui.lua"))
	p.line("/whoami")
	p.expect("Your name")
	p.line("Ada")
	p.expect(ansiGreen + "hello Ada" + ansiReset)
	p.line("/colour")
	p.expect("choose 1-3")
	p.line("")
	p.expect(ansiYellow + "warning: no colour" + ansiReset)
	p.quit()

	// NO_COLOR: the same lines without escapes.
	e.env = nil
	p = e.start("--hook", replHook(t, "repl_ui.lua"))
	p.line("/whoami")
	p.expect("Your name")
	p.line("Ada")
	p.expect("hello Ada\r\n")
	p.quit()
	assert.NotContains(t, p.output(), ansiGreen)
	assert.NotContains(t, p.output(), ansiDim)
}

func TestREPLModelNextCyclesConfigList(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	require.NoError(t, os.MkdirAll(filepath.Join(e.home, "config"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(e.home, "config", "config.json"),
		[]byte(`{"models": ["openai/gpt-4.1-mini", "openai/gpt-4.1", "openai/gpt-4o"]}`), 0o644))
	e.srv.Reply(llmtest.Text("from 4o"))
	p := e.start("--hook", replHook(t, "repl_ui.lua"))
	p.line("/model next")
	p.expect("model event gpt-4.1 -> gpt-4o")
	p.expect("model: openai/gpt-4o")
	p.line("/model next")
	p.expect("model: openai/gpt-4.1-mini")
	p.line("/model next")
	p.expect("model: openai/gpt-4.1\r\n")
	p.line("/model openai/gpt-4o")
	p.expect("model event gpt-4.1 -> gpt-4o")
	p.line("/model")
	p.expect("* openai/gpt-4o ")
	p.send("\x1b") // Esc leaves the picker
	p.expect("> ")
	p.line("/model nosuch/model")
	p.expect("error: ")
	p.line("hi")
	p.expect("from 4o")
	p.quit()

	assert.Equal(t, "gpt-4o", e.srv.Requests()[0].Field("model"))
	var models []string
	for _, ent := range entriesOfType(e.onlySession(), session.TypeModelChange) {
		models = append(models, ent.ModelID())
	}
	assert.Equal(t, []string{"gpt-4.1", "gpt-4o", "gpt-4.1-mini", "gpt-4.1", "gpt-4o"}, models)
}

func TestREPLModelNextWithoutListExplains(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	p := e.start()
	p.line("/model next")
	p.expect(`no models to cycle through: list them under "models" in config.json`)
	p.line("/thinking")
	p.expect("thinking: off")
	p.quit()
}

func TestREPLClearCanBeCancelledByHook(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("first answer"))
	e.srv.Reply(llmtest.Text("fresh answer"))
	p := e.start("--hook", replHook(t, "repl_ui.lua"))
	p.line("before clear")
	p.expect("first answer")
	p.line("/lock")
	p.expect("locked=true")
	p.line("/clear")
	p.expect("clear cancelled by a hook: the session is locked")
	p.line("/lock")
	p.expect("locked=false")
	p.line("/clear")
	p.expect("cleared into ")
	p.expect("new session ")
	p.line("after clear")
	p.expect("fresh answer")
	p.quit()

	files := e.sessionFiles()
	require.Len(t, files, 2)
	var texts [][]string
	for _, f := range files {
		texts = append(texts, userTexts(e.load(f)))
	}
	assert.ElementsMatch(t, [][]string{{"before clear"}, {"after clear"}}, texts)
	body := string(e.srv.Requests()[1].Body)
	assert.NotContains(t, body, "before clear", "the new session starts empty")
}

func TestREPLLabelNameForkAndTree(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("answer one"))
	e.srv.Reply(llmtest.Text("answer two"))
	e.srv.Reply(llmtest.Text("answer in fork"))
	p := e.start()
	p.line("question one")
	p.expect("answer one")
	p.line("question two")
	p.expect("answer two")
	s := e.onlySession()
	file := s.File()
	one := entryWithText(t, s, "answer one")

	p.line("/label " + one.ID[:5] + " good point")
	p.expect(one.ID + ` labelled "good point"`)
	p.line("/name bug hunt")
	p.expect("name: bug hunt")
	p.line("/tree")
	p.expect(one.ID)
	p.expect("[good point]")
	p.expect("← leaf")
	p.line("/lable x")
	p.expect("unknown command /lable; did you mean /label? (see /help)")
	p.line("/label nosuch")
	p.expect(`error: no entry "nosuch" in this session (see /tree)`)

	p.line("/fork good point") // a label names an entry too
	p.expect("forked into ")
	p.line("question in fork")
	p.expect("answer in fork")
	p.line("/session")
	p.expect("2 user")
	p.quit()

	files := e.sessionFiles()
	require.Len(t, files, 2)
	orig := e.load(file)
	assert.Equal(t, "bug hunt", orig.Name())
	assert.Equal(t, "good point", orig.Label(one.ID))
	labels := entriesOfType(orig, session.TypeLabel)
	require.Len(t, labels, 1)
	assert.Equal(t, one.ID, labels[0].TargetID())
	assert.Equal(t, []string{"question one", "question two"}, userTexts(orig))

	var fork *session.Session
	for _, f := range files {
		if f != file {
			fork = e.load(f)
		}
	}
	require.NotNil(t, fork)
	assert.Equal(t, file, fork.Header().ParentSession)
	assert.Equal(t, []string{"question one", "question in fork"}, userTexts(fork))
	last := string(e.srv.Requests()[2].Body)
	assert.NotContains(t, last, "question two")
}

func TestREPLBranchSummarize(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("answer one"))
	e.srv.Reply(llmtest.Text("answer two"))
	e.srv.Reply(llmtest.Text("## Goal\nexplore option two"))
	p := e.start()
	p.line("question one")
	p.expect("answer one")
	p.line("question two")
	p.expect("answer two")
	one := entryWithText(t, e.onlySession(), "answer one")
	p.line("/branch " + one.ID + " --summarize")
	p.expect("summarising the branch")
	p.expect("now at " + one.ID)
	p.line("/branch " + one.ID + " --bogus")
	p.expect("unknown option --bogus")
	p.quit()

	s := e.onlySession()
	sums := entriesOfType(s, session.TypeBranchSummary)
	require.Len(t, sums, 1)
	assert.Equal(t, one.ID, sums[0].ParentID)
	assert.Contains(t, sums[0].Summary(), "explore option two")
	assert.Equal(t, sums[0].ID, s.LeafID())
	summaryReq := string(e.srv.Requests()[2].Body)
	assert.Contains(t, summaryReq, "question two")
}

func TestREPLInfoCommands(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("counted"), llmtest.Usage(1200, 34, 0, 0))
	p := e.start("--hook", replHook(t, "repl_ui.lua"))
	p.line("count")
	p.expect("counted")
	p.line("/session")
	p.expect("file      " + e.home)
	p.expect("entries   4 (2 messages: 1 user, 1 assistant, 0 tool results)")
	p.expect("in 1,200 · out 34")
	p.expect("cost      $")
	p.line("/hooks")
	p.expect("repl_ui.lua")
	p.expect("/colour, /whoami, /draft, /lock")
	p.line("/tools")
	for _, name := range []string{"read", "bash", "edit", "write"} {
		p.expect("  " + name + " ")
	}
	p.line("/compact")
	p.expect("nothing to compact")
	page := filepath.Join(e.cwd, "chat.html")
	p.line("/export " + page)
	p.expect("exported to " + page)
	p.line("/help")
	p.expect("Hook commands")
	p.expect("/colour")
	p.expect("pick a colour")
	p.line("/quit")
	assert.Equal(t, 0, p.wait(), p.output())
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), "counted")
}

func TestViewStyledWrapsBetweenWords(t *testing.T) {
	term := &terminal{ttyOut: true, stdout: io.Discard} // 80 columns
	v := newView(term, false, nil)
	msg := "error: openai: stream error (overloaded_error): The server is overloaded right now, please try again later."
	assert.Equal(t, "error: openai: stream error (overloaded_error): The server is overloaded right\nnow, please try again later.\n", v.styled("", msg))
	assert.Equal(t, "short\n  indented line\n", v.styled("", "short\n  indented line\n"))
	long := "  " + strings.Repeat("word ", 20)
	for _, l := range strings.Split(strings.TrimSuffix(v.styled("", long), "\n"), "\n") {
		assert.True(t, strings.HasPrefix(l, "  word"), l)
		assert.LessOrEqual(t, len(l), 79)
	}
	term.color = true
	assert.Equal(t, ansiRed+"a"+ansiReset+"\n"+ansiRed+"b"+ansiReset+"\n", v.styled(ansiRed, "a\nb"))
	term.color, term.ttyOut = false, false // not a terminal: no wrapping
	assert.Equal(t, msg+"\n", v.styled("", msg))
}

func TestREPLNotificationDuringReplyAndEchoedHookPrompt(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("Let me look."), llmtest.ToolCall("bash", `{"command":"echo looked"}`))
	e.srv.Reply(llmtest.Text("Seen it."))
	e.srv.Reply(llmtest.Text("Hi back."))
	p := e.start("--hook", replHook(t, "repl_notify.lua"))
	p.line("look")
	p.expect("→ bash  echo looked")
	p.expect("  looked\r\n")
	// The notice stands on its own line and the reply goes on as a new
	// paragraph below it.
	p.expect("turn 2 ended")
	assert.Contains(t, withoutSpinner(p.output()), "turn 1 ended\r\n\r\nSeen it.\r\n")
	p.expect("> ")
	p.line("/hello world")
	p.expect("Hi back.")
	p.quit()
	// The command's prompt is shown, the answer right below it.
	assert.Contains(t, withoutSpinner(p.output()), "\n> hello, world\r\nHi back.")
	assert.Equal(t, "hello, world", lastUserText(t, e.srv.Requests()[2]))
}

func TestREPLSpinnerComesBackAfterPermissionPrompt(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	// The command runs until the test has seen the spinner, however slow
	// the machine.
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"while [ ! -e go ]; do sleep 0.05; done; echo slept"}`))
	e.srv.Reply(llmtest.Text("finished"))
	p := e.start("--hook", replHook(t, "repl_hooks.lua"), "--hook", replHook(t, "repl_notify.lua"))
	p.line("sleep a bit")
	p.expect("[y/N] ")
	p.line("y")
	p.expect(" bash 1s") // the tool is still working: the spinner says so
	writeFile(t, filepath.Join(e.cwd, "go"), "")
	p.expect("slept")
	p.expect("finished")
	p.quit()
	// After the dialog too, a notice sets the reply that follows apart.
	assert.Contains(t, withoutSpinner(p.output()), "  slept\r\nturn 1 ended\r\n\r\nfinished\r\n")
}

func TestREPLShowThinking(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Thinking("pondering the question"), llmtest.Text("the answer"))
	e.srv.Reply(llmtest.Thinking("more pondering"), llmtest.Text("second answer"))
	p := e.start("--show-thinking")
	p.line("why")
	p.expect("the answer")
	p.quit()
	// The thinking is shown in full, set apart from the answer.
	assert.Contains(t, withoutSpinner(p.output()), "pondering the question\r\n\r\nthe answer")

	p = e.start()
	p.line("and then")
	p.expect("second answer")
	p.quit()
	out := withoutSpinner(p.output())
	assert.Contains(t, out, "thinking… (14 chars)\r\nsecond answer")
	assert.NotContains(t, out, "more pondering")
}

func TestREPLExitFiresShutdownAndFlushes(t *testing.T) {
	t.Parallel()
	for name, leave := range map[string]func(p *ptyREPL){
		"ctrl+d": func(p *ptyREPL) { p.send("\x04") },
		"ctrl+c twice": func(p *ptyREPL) {
			p.send("\x03")
			p.expect("press Ctrl+C again to quit")
			p.send("\x03")
		},
		"/quit": func(p *ptyREPL) { p.line("/quit") },
	} {
		t.Run(name, func(t *testing.T) {
			e := newE2E(t)
			e.srv.Reply(llmtest.Text("noted"))
			p := e.start("--hook", replHook(t, "repl_shutdown.lua"))
			p.line("remember")
			p.expect("noted")
			p.expect("> ")
			leave(p)
			assert.Equal(t, 0, p.wait(), p.output())

			s := e.onlySession()
			bye := entriesOfType(s, session.TypeCustom)
			require.Len(t, bye, 1, "session.shutdown ran once and its entry was written")
			assert.Equal(t, "bye", bye[0].CustomType())
			assert.JSONEq(t, `{"session_id":"`+s.ID()+`"}`, string(bye[0].Data()))
		})
	}
}

func TestREPLImageAttachment(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00")
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "shot.png"), png, 0o644))
	e.srv.Reply(llmtest.Text("nice picture"))
	p := e.start()
	p.line("what is in @shot.png?")
	p.expect("nice picture")
	p.quit()

	url := e.srv.Requests()[0].Field("messages.1.content.1.image_url.url")
	assert.Equal(t, "data:image/png;base64,"+base64.StdEncoding.EncodeToString(png), url)
	var images int
	for _, m := range e.onlySession().BuildContext().Messages {
		for _, c := range m.Message.Content {
			if c.Type == session.BlockImage {
				images++
			}
		}
	}
	assert.Equal(t, 1, images)
}

func TestREPLCompletesPathsAndSearchesHistory(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	require.NoError(t, os.MkdirAll(filepath.Join(e.cwd, "docs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "docs", "notes.md"), []byte("the notes"), 0o644))
	e.srv.Reply(llmtest.Text("first"))
	e.srv.Reply(llmtest.Text("second"))
	e.srv.Reply(llmtest.Text("third"))
	p := e.start()
	p.send("read @do\t")
	p.expect("@docs/")
	p.send("no\t")
	p.expect("@docs/notes.md ")
	p.send("\r")
	p.expect("first")
	p.line("an unrelated line")
	p.expect("second")
	p.send("\x12") // Ctrl+R
	p.send("docs")
	p.expect("read @docs/notes.md")
	p.send("\r") // accept the match
	p.send("\r") // and send it
	p.expect("third")
	p.quit()

	reqs := e.srv.Requests()
	require.Len(t, reqs, 3)
	assert.Contains(t, lastUserText(t, reqs[0]), "<file name=\""+filepath.Join(e.cwd, "docs", "notes.md")+"\">\nthe notes\n</file>")
	assert.Equal(t, lastUserText(t, reqs[0]), lastUserText(t, reqs[2]))
}

func TestREPLStdoutRedirected(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("plain answer"))
	ptmx, tty, err := pty.Open()
	require.NoError(t, err)
	require.NoError(t, pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 120}))
	var stdout bytes.Buffer
	cmd := exec.Command(lunarBin, "--model", "openai/gpt-4.1", "--base-url", e.srv.URL(), "--api-key", "sk-test")
	cmd.Dir = e.cwd
	cmd.Env = append(os.Environ(), "LUNAR_HOME="+e.home, "TERM=xterm-256color", "NO_COLOR=")
	cmd.Stdin, cmd.Stderr, cmd.Stdout = tty, tty, &stdout
	require.NoError(t, cmd.Start())
	tty.Close()
	p := watchPTY(t, cmd, ptmx)
	p.expect("> ") // the prompt is on the terminal (stderr)
	p.line("question")
	p.expect("> ")
	p.send("\x04")
	p.expect("\r\n") // Ctrl+D ends the prompt's line
	require.NoError(t, cmd.Wait())

	// stdout holds the banner and the answer, without escapes.
	out := stdout.String()
	assert.Contains(t, out, "plain answer\n")
	assert.NotContains(t, out, "\x1b")
	assert.NotContains(t, out, "> ")
}

func TestREPLStartupHookSendIsAnsweredFirst(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("answer at startup"))
	e.srv.Reply(llmtest.Text("answer to the user"))
	p := e.start("--hook", replHook(t, "repl_start.lua"))
	p.expect("> prompt from session.start")
	p.expect("answer at startup")
	p.expect("> ")
	p.line("user question")
	p.expect("answer to the user")
	p.quit()
	assert.Equal(t, []string{"prompt from session.start", "user question"}, userTexts(e.onlySession()))
}

func TestREPLCtrlCDropsQueuedHookSends(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("answer to the user"))
	p := e.start("--hook", replHook(t, "repl_notify.lua"))
	p.line("/sendwait")
	p.expect("waiting")
	p.send("\x03")
	p.expect("(interrupted)")
	p.expect("(stopped: 2 queued hook messages not sent)")
	p.expect("> ")
	p.line("user question")
	p.expect("answer to the user")
	p.quit()

	reqs := e.srv.Requests()
	require.Len(t, reqs, 1, "nothing the hook queued started a turn")
	assert.Equal(t, "user question", lastUserText(t, reqs[0]))
	// The custom message is data: it is kept, and goes to the model with
	// the next prompt.
	s := e.onlySession()
	require.Len(t, entriesOfType(s, session.TypeCustomMessage), 1)
	assert.Contains(t, string(reqs[0].Body), "kept note")
	assert.NotContains(t, string(reqs[0].Body), "queued before the wait")
}

func TestREPLHookNoteWithoutTurnIsShown(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("answer"))
	p := e.start("--hook", replHook(t, "repl_notify.lua"))
	p.line("/memo buy milk")
	p.expect("MEMO> memo: buy milk")
	p.expect("> ")
	p.line("question")
	p.expect("answer")
	p.quit()
	assert.Equal(t, 1, strings.Count(p.output(), "MEMO> memo: buy milk"), "shown once")
	assert.Contains(t, string(e.srv.Requests()[0].Body), "memo: buy milk")
}

func TestSuggestCommand(t *testing.T) {
	r := &repl{a: &app{}}
	for typed, want := range map[string]string{
		"hepl": "help", "modle": "model", "sessoins": "sessions", "tre": "tree",
		"thin": "thinking", "expo": "export", "nonsense": "", "x": "",
	} {
		assert.Equal(t, want, r.suggestCommand(typed), typed)
	}
}

func TestREPLResumeByIDPartOrName(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("answer in A"))
	p := e.start()
	p.line("first session")
	p.expect("answer in A")
	p.line("/name alpha")
	p.expect("name: alpha")
	p.quit()
	files := e.sessionFiles()
	require.Len(t, files, 1)
	fileA, idA := files[0], e.load(files[0]).ID()

	e.srv.Reply(llmtest.Text("answer in B"))
	p = e.start()
	p.line("second session")
	p.expect("answer in B")
	p.line("/resume " + idA[len(idA)-6:]) // the end of the id is what differs
	p.expect("resumed alpha")
	p.line("/resume " + idA[:4]) // shared by both sessions: a choice
	p.expect("choose 1-2")
	p.line("")
	p.expect("> ")
	p.line("/session")
	p.expect("file      " + fileA)
	p.line("/clear")
	p.expect("new session")
	p.line("/resume alpha")
	p.expect("resumed alpha")
	p.quit()
}

func TestREPLCtrlDEndsThePromptLine(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	p := e.start("--hook", replHook(t, "repl_ui.lua"))
	p.line("/colour")
	p.expect("; empty answers no: ")
	p.send("\x04") // leaves the dialog
	p.expect("no colour")
	p.send("\x04") // leaves lunar
	assert.Equal(t, 0, p.wait())
	out := withoutSpinner(p.output())
	assert.Regexp(t, `; empty answers no: \r?\n`, out, "Ctrl+D ends the dialog's line")
	out = strings.TrimSuffix(out, pasteModeOff)
	assert.True(t, strings.HasSuffix(out, "> \r\n"), "%q", out[max(0, len(out)-40):])
}

func TestREPLTypeAhead(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	// Typed during a reply (without Enter, which would steer): the next
	// prompt's text once the reply is done.
	e.srv.Reply(llmtest.ToolCall("bash", waitTool))
	e.srv.Reply(llmtest.Text("first done"))
	e.srv.Reply(llmtest.Text("typed-ahead answer"))
	// Typed during a reply stopped with Ctrl+C: discarded.
	e.srv.Reply(llmtest.Text("partial"), llmtest.Hang())
	e.srv.Reply(llmtest.Text("fresh answer"))
	p := e.start()
	p.line("slow one")
	p.expect("started")
	p.send("next question")
	p.expect("› next question")
	writeFile(t, filepath.Join(e.cwd, "go"), "")
	p.expect("first done")
	p.expect("> next question")
	p.send("\r")
	p.expect("typed-ahead answer")
	p.expect("> ")
	p.line("hang")
	p.expect("partial")
	p.send("discard me")
	p.expect("› discard me")
	p.send("\x03")
	p.expect("(interrupted)")
	p.expect("> ")
	p.line("fresh")
	p.expect("fresh answer")
	p.quit()

	reqs := e.srv.Requests()
	require.Len(t, reqs, 5)
	assert.Equal(t, "next question", lastUserText(t, reqs[2]))
	assert.Equal(t, "fresh", lastUserText(t, reqs[4]))
}

func TestREPLDialogIgnoresKeysTypedBeforeIt(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo gated"}`))
	e.srv.Reply(llmtest.Text("refused, fine"))
	p := e.start("--hook", replHook(t, "repl_typeahead.lua"))
	p.line("run it")
	p.expect("thinking it over")
	p.line("y") // typed before the question: it steers the run
	p.expect("Allow? echo gated [y/N] ")
	p.line("n")
	p.expect("refused, fine")
	p.expect("> ")
	p.quit()
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "y", lastUserText(t, reqs[1]), "the early y went to the agent, not to the question")

	var results []string
	for _, m := range e.onlySession().BuildContext().Messages {
		if m.Message.Role == session.RoleToolResult {
			results = append(results, m.Message.Text())
		}
	}
	assert.Equal(t, []string{"refused: echo gated"}, results)
}
func TestGroupDigits(t *testing.T) {
	for in, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"} {
		assert.Equal(t, want, groupDigits(in))
	}
}

// A line typed (with Enter) while lunar starts and prints its banner is the
// first prompt, not lost.
func TestREPLLineTypedDuringStartup(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("early answer"))
	p := e.startRaw()
	p.line("early question")
	p.expect("early answer")
	p.quit()
	reqs := e.srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "early question", lastUserText(t, reqs[0]))
}
