// Tests of the REPL: the input filter, attachments and completion as
// units, and end-to-end runs of the real binary in a pseudo-terminal
// against the fake LLM server.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/compaction"
	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

func TestInputFilter(t *testing.T) {
	ctrlC := "\x07\x05\r"
	tests := []struct {
		name   string
		chunks []string
		want   string
		pastes map[string]string // placeholder → text
		ctrlCs int
	}{
		{name: "typing passes through", chunks: []string{"hello", "\r"}, want: "hello\r"},
		{name: "arrow keys pass through", chunks: []string{"\x1b[A", "\x1b[B"}, want: "\x1b[A\x1b[B"},
		{name: "lone escape is not held", chunks: []string{"\x1b"}, want: "\x1b"},
		{name: "ctrl+j and shift+enter are newlines", chunks: []string{"a\nb\x1b[13;2uc\x1b[27;2;13~d"}, want: "a␤b␤c␤d"},
		{name: "ctrl+p outside the main prompt is a key", chunks: []string{"\x10"}, want: "\x10"},
		{name: "ctrl+c becomes enter and is counted", chunks: []string{"ab\x03", "\x03"}, want: "ab" + ctrlC + ctrlC, ctrlCs: 2},
		{name: "single-line paste", chunks: []string{pasteStart + "git\tstatus" + pasteEnd}, want: "git" + string(tabMarker) + "status"},
		{name: "single line paste drops trailing newline", chunks: []string{pasteStart + "ls -la\n" + pasteEnd}, want: "ls -la"},
		{name: "ctrl+c inside a paste is text", chunks: []string{pasteStart + "a\x03b" + pasteEnd}, want: "ab"},
		{
			name: "multi-line paste becomes a placeholder", chunks: []string{"x ", pasteStart + "one\r\ntwo\rthree\n" + pasteEnd, "\r"},
			want: "x [paste #1 +3 lines]\r", pastes: map[string]string{"[paste #1 +3 lines]": "one\ntwo\nthree"},
		},
		{
			name: "markers split across reads", chunks: []string{"\x1b[20", "0~one\ntw", "o\x1b[2", "01~!"},
			want: "[paste #1 +2 lines]!", pastes: map[string]string{"[paste #1 +2 lines]": "one\ntwo"},
		},
		// Only the terminal's markers make a paste: lines typed (or sent by
		// a test) faster than lunar reads arrive in one read and are keys.
		{name: "a burst of typed lines is keys, not a paste", chunks: []string{"first\rsecond\r"}, want: "first\rsecond\r"},
		{name: "enter typed ahead of a line is not a paste", chunks: []string{"\r/session\r"}, want: "\r/session\r"},
		{
			name: "enter typed ahead of a paste", chunks: []string{"\r" + pasteStart + "one\ntwo" + pasteEnd},
			want: "\r[paste #1 +2 lines]", pastes: map[string]string{"[paste #1 +2 lines]": "one\ntwo"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newInputFilter()
			var out []byte
			for _, c := range tt.chunks {
				out = append(out, f.process([]byte(c))...)
			}
			assert.Equal(t, tt.want, string(out))
			for k, v := range tt.pastes {
				assert.Equal(t, v, f.decode(k))
			}
			for range tt.ctrlCs {
				assert.True(t, f.takeInterrupt())
			}
			assert.False(t, f.takeInterrupt())
		})
	}
}

func TestInputFilterRun(t *testing.T) {
	f := newInputFilter()
	pr, pw := io.Pipe()
	go f.run(strings.NewReader("hi\x03"), pw)
	got, err := io.ReadAll(pr)
	require.NoError(t, err)
	assert.Equal(t, "hi\x07\x05\r", string(got))
	assert.True(t, f.takeInterrupt())
}

func TestMarkersRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain", "a\nb", "tab\there\nand more\n"} {
		enc := encodeMarkers(s)
		assert.NotContains(t, enc, "\n")
		assert.NotContains(t, enc, "\t")
		assert.Equal(t, s, decodeMarkers(enc))
	}
}

func TestIsCommand(t *testing.T) {
	tests := map[string]bool{
		"/help": true, "/model openai/gpt-4.1": true, "/x": true, "/branch\nabc": true,
		"/": false, "/etc/hosts is broken": false, "hello": false, "//": false,
	}
	for in, want := range tests {
		assert.Equal(t, want, isCommand(in), in)
	}
}

func TestExpandAttachments(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("remember the milk"), 0o644))
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pic.png"), png, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "blob.bin"), []byte{0, 1, 2, 3}, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "empty.txt"), nil, 0o644))

	tests := []struct {
		name       string
		in         string
		wantText   string
		wantImages int
		wantNotes  int
	}{
		{name: "no attachments", in: "hello @someone", wantText: "hello @someone"},
		{name: "text file", in: "read @notes.txt please", wantText: "read @notes.txt please\n\n<file name=\"" + filepath.Join(dir, "notes.txt") + "\">\nremember the milk\n</file>"},
		{name: "trailing punctuation", in: "see @notes.txt, ok", wantText: "see @notes.txt, ok\n\n<file name=\"" + filepath.Join(dir, "notes.txt") + "\">\nremember the milk\n</file>"},
		{name: "image", in: "look @pic.png", wantText: "look @pic.png\n\n<file name=\"" + filepath.Join(dir, "pic.png") + "\"></file>", wantImages: 1},
		{name: "binary is refused", in: "@blob.bin", wantText: "@blob.bin", wantNotes: 1},
		{name: "empty file is skipped", in: "@empty.txt", wantText: "@empty.txt"},
		{name: "same file once", in: "@notes.txt @notes.txt", wantText: "@notes.txt @notes.txt\n\n<file name=\"" + filepath.Join(dir, "notes.txt") + "\">\nremember the milk\n</file>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, images, notes := expandAttachments(tt.in, dir)
			assert.Equal(t, tt.wantText, text)
			assert.Len(t, images, tt.wantImages)
			assert.Len(t, notes, tt.wantNotes)
			for _, im := range images {
				assert.Equal(t, "image/png", im.MimeType())
				assert.Equal(t, session.BlockImage, im.Type)
			}
		})
	}
}

func TestCompletePath(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "src", "sub"), 0o755))
	for _, f := range []string{"src/main.go", "src/util.go", "README.md", ".hidden"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
	}
	tests := []struct {
		in      string
		wantDir string
		want    []string
	}{
		{"", "", []string{"README.md", "src/"}},
		{"sr", "", []string{"src/"}},
		{"src/", "src/", []string{"main.go", "sub/", "util.go"}},
		{"src/m", "src/", []string{"main.go"}},
		{".h", "", []string{".hidden"}},
		{"nope/x", "nope/", nil},
	}
	for _, tt := range tests {
		d, got := completePath(tt.in, dir)
		assert.Equal(t, tt.wantDir, d, tt.in)
		assert.ElementsMatch(t, tt.want, got, tt.in)
	}
}

func TestCleanForTerminal(t *testing.T) {
	assert.Equal(t, `\x1b[31mred\x1b[0m text`+"\n    x"+`\x07`, cleanForTerminal("\x1b[31mred\x1b[0m text\r\n\tx\x07"))
}

func TestEntryPreview(t *testing.T) {
	user := &session.Message{Role: session.RoleUser, Content: []session.ContentBlock{{Type: session.BlockText, Text: "hello\nworld"}}}
	call := &session.Message{Role: session.RoleAssistant, Content: []session.ContentBlock{{Type: session.BlockToolCall, Name: "bash"}}}
	tests := []struct {
		e    *session.Entry
		want string
	}{
		{&session.Entry{Type: session.TypeMessage, Message: user}, "you: hello …"},
		{&session.Entry{Type: session.TypeMessage, Message: call}, "assistant: (calls bash)"},
		{&session.Entry{Type: session.TypeModelChange, Fields: &session.EntryFields{Provider: "openai", ModelID: "gpt-4.1"}}, "model → openai/gpt-4.1"},
		{&session.Entry{Type: session.TypeThinkingLevelChange, Fields: &session.EntryFields{ThinkingLevel: "high"}}, "thinking → high"},
		{&session.Entry{Type: session.TypeBranchSummary, Fields: &session.EntryFields{Summary: compaction.BranchSummaryPreamble + "## Goal"}}, "branch summary: ## Goal"},
		{&session.Entry{Type: "mystery"}, "mystery"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, entryPreview(tt.e))
	}
}

// userTexts lists the user messages on the current path.
func userTexts(s *session.Session) []string {
	var out []string
	for _, m := range s.BuildContext().Messages {
		if m.Message.Role == session.RoleUser {
			out = append(out, m.Message.Text())
		}
	}
	return out
}

func TestREPLPromptStreamsAnswer(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("Hello from the fake model."), llmtest.Usage(10, 5, 0, 0))
	p := e.start()
	p.line("hi there")
	p.expect("Hello from the fake model.")
	p.expect("> ")
	p.quit()

	s := e.onlySession()
	msgs := s.BuildContext().Messages
	require.Len(t, msgs, 2)
	assert.Equal(t, "hi there", msgs[0].Message.Text())
	assert.Equal(t, "Hello from the fake model.", msgs[1].Message.Text())
}

func TestREPLToolCallLine(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"printf 'a\\nb\\nc\\nd\\ne\\n'"}`))
	e.srv.Reply(llmtest.Text("done"))
	p := e.start()
	p.line("run it")
	p.expect("→ bash  printf")
	p.expect("… 2 earlier lines (/expand)")
	p.expect("c\r\n")
	p.expect("d\r\n")
	p.expect("e\r\n")
	p.expect("done")
	p.expect("> ")
	p.line("/expand")
	p.expect("← bash")
	p.expect("a\r\nb\r\nc\r\nd\r\ne\r\n")
	p.expect("> ")
	p.line("/expand 2")
	p.expect("only 1 tool call on this branch")
	p.quit()
}

// An edit previews its diff: removed lines red, added green, with line
// numbers; /expand shows all of it.
func TestREPLEditDiffPreview(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	writeFile(t, filepath.Join(e.cwd, "a.txt"), "one\ntwo\nthree\n")
	e.srv.Reply(llmtest.ToolCall("edit", `{"path":"a.txt","edits":[{"oldText":"two","newText":"TWO"}]}`))
	e.srv.Reply(llmtest.Text("edited"))
	p := e.start()
	p.line("edit it")
	p.expect("→ edit")
	p.expect("-2 two")
	p.expect("+2 TWO")
	p.expect("edited")
	p.line("/expand")
	p.expect("← edit")
	p.expect("+2 TWO")
	p.quit()
}

func TestREPLTabCompletesSlashCommand(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	p := e.start()
	p.send("/hel\t")
	p.expect("/help ")
	p.send("\r")
	p.expect("Commands")
	p.expect("/branch ID [--summarize]")
	p.quit()
}

func TestREPLCtrlCAbortsReplyAndContinues(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("partial answer"), llmtest.Hang())
	e.srv.Reply(llmtest.Text("second answer"))
	p := e.start()
	p.line("go")
	p.expect("partial answer")
	p.send("\x03")
	p.expect("(interrupted)")
	p.expect("> ")
	p.line("again")
	p.expect("second answer")
	p.quit()

	s := e.onlySession()
	var stops []string
	for _, m := range s.BuildContext().Messages {
		if m.Message.Role == session.RoleAssistant {
			stops = append(stops, m.Message.StopReason)
		}
	}
	assert.Equal(t, []string{session.StopAborted, session.StopStop}, stops)
	assert.Equal(t, []string{"go", "again"}, userTexts(s))
}

func TestREPLCtrlCTwiceOnEmptyPromptQuits(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	p := e.start()
	p.send("some text\x03")
	p.expect("> ")
	p.send("\x03")
	p.expect("press Ctrl+C again to quit")
	p.send("\x03")
	assert.Equal(t, 0, p.wait())
}

func TestREPLBranchThenPromptLandsOnNewBranch(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("answer one"))
	e.srv.Reply(llmtest.Text("answer two"))
	e.srv.Reply(llmtest.Text("answer three"))
	p := e.start()
	p.line("question one")
	p.expect("answer one")
	p.line("question two")
	p.expect("answer two")

	s := e.onlySession()
	var two, ansOne string
	for _, ent := range s.Entries() {
		if ent.Message == nil {
			continue
		}
		switch ent.Message.Text() {
		case "question two":
			two = ent.ID
		case "answer one":
			ansOne = ent.ID
		}
	}
	require.NotEmpty(t, two)
	p.line("/tree")
	p.expect(two)
	p.expect("← leaf")
	p.line("/branch " + two)
	p.expect("its text is in the prompt")
	p.expect("question two") // prefilled for editing
	p.send("\x15")           // Ctrl+U clears it
	p.line("question three")
	p.expect("answer three")
	p.quit()

	s = e.onlySession()
	var three *session.Entry
	for _, ent := range s.Entries() {
		if ent.Message != nil && ent.Message.Text() == "question three" {
			three = ent
		}
	}
	require.NotNil(t, three)
	assert.Equal(t, ansOne, three.ParentID, "the new prompt hangs off the first answer")
	assert.Equal(t, []string{"question one", "question three"}, userTexts(s))
	reqs := e.srv.Requests()
	last := string(reqs[len(reqs)-1].Body)
	assert.NotContains(t, last, "question two")
}

func TestREPLResumeSwitchesSession(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("answer in A"))
	p := e.start()
	p.line("first session")
	p.expect("answer in A")
	p.quit()
	files := e.sessionFiles()
	require.Len(t, files, 1)
	idA := e.load(files[0]).ID()

	e.srv.Reply(llmtest.Text("answer in B"))
	e.srv.Reply(llmtest.Text("back in A"))
	p = e.start()
	p.line("second session")
	p.expect("answer in B")
	// The full id: ids are UUIDv7, so sessions created within a minute
	// share their first 8 characters (an ambiguous prefix offers a pick).
	p.line("/resume " + idA)
	p.expect("resumed")
	p.expect("answer in A") // replayed
	p.line("more for A")
	p.expect("back in A")
	p.quit()

	a := e.load(files[0])
	assert.Equal(t, []string{"first session", "more for A"}, userTexts(a))
	body := string(e.srv.Requests()[2].Body)
	assert.Contains(t, body, "answer in A")
	assert.NotContains(t, body, "second session")
}

func TestREPLSessionsPicksByNumber(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("old answer"))
	p := e.start()
	p.line("old question")
	p.expect("old answer")
	p.quit()
	files := e.sessionFiles()
	require.Len(t, files, 1)
	oldID := e.load(files[0]).ID()

	e.srv.Reply(llmtest.Text("new answer"))
	p = e.start()
	p.line("new question")
	p.expect("new answer")
	p.line("/sessions")
	p.expect("(current)")
	p.expect("choose 1-2")
	p.line("2") // newest first: 1 is the current session
	p.expect("resumed")
	p.expect("old answer")
	p.line("/session")
	p.expect("id        " + oldID)
	p.expect("1 user")
	p.quit()
}

func TestREPLHistorySurvivesRestart(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("noted"))
	p := e.start()
	p.line("remember this line")
	p.expect("noted")
	p.quit()

	p = e.start()
	p.send("\x1b[A") // Up
	p.expect("remember this line")
	p.send("\x03")
	p.expect("> ")
	p.quit()
	data, err := os.ReadFile(filepath.Join(e.home, "state", "history"))
	require.NoError(t, err)
	assert.Equal(t, "remember this line\n", string(data))
}

func TestREPLBangCommandsAreStored(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	p := e.start()
	p.line("!echo hi from shell")
	p.expect("hi from shell")
	p.expect("> ")
	p.line("!!echo secret; exit 3")
	p.expect("(exit code 3)")
	p.quit()

	s := e.onlySession()
	var bash []*session.Message
	for _, ent := range s.Entries() {
		if ent.Message != nil && ent.Message.Role == session.RoleBashExecution {
			bash = append(bash, ent.Message)
		}
	}
	require.Len(t, bash, 2)
	assert.Equal(t, "echo hi from shell", bash[0].Command())
	assert.Equal(t, "hi from shell\n", bash[0].Output())
	require.NotNil(t, bash[0].ExitCode())
	assert.Equal(t, 0, *bash[0].ExitCode())
	assert.False(t, bash[0].ExcludeFromContext())
	assert.True(t, bash[1].ExcludeFromContext())
	require.NotNil(t, bash[1].ExitCode())
	assert.Equal(t, 3, *bash[1].ExitCode())
}

func TestREPLMultiLineInput(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("got the paste"))
	e.srv.Reply(llmtest.Text("got the continuation"))
	e.srv.Reply(llmtest.Text("got the file"))
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "notes.txt"), []byte("file body"), 0o644))
	p := e.start()
	p.send("look: ")
	p.send(pasteStart + "line one\nline two\n" + pasteEnd)
	p.expect("[paste #1 +2 lines]")
	p.send("\r")
	p.expect("got the paste")
	p.send("first part \\\r")
	p.expect("… ")
	p.line("second part")
	p.expect("got the continuation")
	p.line("summarise @notes.txt")
	p.expect("got the file")
	p.quit()

	reqs := e.srv.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, "look: line one\nline two", lastUserText(t, reqs[0]))
	assert.Equal(t, "first part \nsecond part", lastUserText(t, reqs[1]))
	assert.Equal(t, "summarise @notes.txt\n\n<file name=\""+filepath.Join(e.cwd, "notes.txt")+"\">\nfile body\n</file>", lastUserText(t, reqs[2]))
}

// lastUserText is the text of the last user message of an OpenAI request.
func lastUserText(t *testing.T, r llmtest.Request) string {
	t.Helper()
	text, ok := r.LastUserText()
	if !ok {
		t.Fatalf("no user message in %s", r.Body)
	}
	return text
}

func TestREPLModelAndThinkingCommands(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("from mini"))
	p := e.start()
	p.line("/model")
	p.expect("* openai/gpt-4.1 ")
	p.expect("1.05M context, images") // what the model takes
	p.expect("openai/gpt-4 ")
	p.expect("8k context\n") // text only
	p.send("\x1b")           // Esc leaves the picker
	p.expect("> ")
	p.line("/model openai/gpt-4.1-mini")
	p.expect("model: openai/gpt-4.1-mini")
	p.line("/thinking high")
	p.expect("thinking: high — but openai/gpt-4.1-mini does not reason: no level is sent to it")
	p.line("/thinking extreme")
	p.expect("is not one of")
	p.line("hello")
	p.expect("from mini")
	p.line("/model openai/o4-mini:low")                  // what --model takes: a part of an id, a level
	p.expect("model: openai/o4-mini, thinking: low\r\n") // o4-mini reasons: nothing to say
	p.line("/model openai/gpt-5.2:minimal")              // pi's registry: a model pi 0.73 knows
	p.expect("model: openai/gpt-5.2, thinking: minimal")
	p.line("/model nosuchthing")
	p.expect(`no model matches "nosuchthing"`)
	p.line("/nonsense")
	p.expect("unknown command /nonsense, see /help")
	p.quit()

	assert.Equal(t, "gpt-4.1-mini", e.srv.Requests()[0].Field("model"))
	s := e.onlySession()
	var kinds []string
	for _, ent := range s.Entries() {
		switch ent.Type {
		case session.TypeModelChange:
			kinds = append(kinds, "model "+ent.ModelID())
		case session.TypeThinkingLevelChange:
			kinds = append(kinds, "thinking "+ent.ThinkingLevel())
		}
	}
	assert.Equal(t, []string{"model gpt-4.1", "thinking off", "model gpt-4.1-mini", "thinking high", "model o4-mini", "thinking low", "model gpt-5.2", "thinking minimal"}, kinds)
}

func TestREPLSigtermExitsCleanly(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	p := e.start()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, exitInterrupted, p.wait())
}

func TestREPLHookCommandCompletesAndConfirms(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	hook, err := filepath.Abs(filepath.Join("testdata", "repl_confirm.lua"))
	require.NoError(t, err)
	e.srv.Reply(llmtest.Text("greeting received"))
	p := e.start("-e", hook)
	p.send("/gre\t")
	p.expect("/greet ")
	p.send("\r")
	p.expect("Greet: send a greeting? [y/N]")
	p.line("y")
	p.expect("confirmed")
	p.expect("greeting received")
	p.line("/greet")
	p.expect("[y/N]")
	p.line("n")
	p.expect("declined")
	p.line("/help")
	p.expect("ask, then send a greeting")
	p.quit()

	reqs := e.srv.Requests()
	require.Len(t, reqs, 1, "declining sends nothing")
	assert.Equal(t, "hello from the hook", lastUserText(t, reqs[0]))
}

// replHook is the absolute path of a hook under testdata.
func replHook(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	require.NoError(t, err)
	return p
}

func TestREPLPermissionGateConfirm(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo gate-passed"}`))
	e.srv.Reply(llmtest.Text("ran it"))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo should-not-run"}`))
	e.srv.Reply(llmtest.Text("was refused"))
	p := e.start("--hook", replHook(t, "repl_hooks.lua"))
	p.line("run the first")
	p.expect("Run this command? echo gate-passed [y/N]")
	p.line("y")
	p.expect("gate-passed")
	p.expect("ran it")
	p.line("run the second")
	p.expect("Run this command? echo should-not-run [y/N]")
	p.line("n")
	p.expect("The user refused: echo should-not-run")
	p.expect("was refused")
	p.quit()

	var results []string
	for _, m := range e.onlySession().BuildContext().Messages {
		if m.Message.Role == session.RoleToolResult {
			results = append(results, fmt.Sprintf("%v %s", m.Message.IsError, strings.TrimSpace(m.Message.Text())))
		}
	}
	require.Len(t, results, 2)
	assert.Equal(t, "false gate-passed", results[0])
	assert.Contains(t, results[1], "true The user refused: echo should-not-run")
}

func TestREPLHookSendIsAnswered(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("answer to the hook"))
	e.srv.Reply(llmtest.Text("answer to the nudge"))
	p := e.start("--hook", replHook(t, "repl_hooks.lua"))
	p.line("/ask what time is it")
	p.expect("> question from the hook: what time is it") // echoed
	p.expect("answer to the hook")
	p.expect("> ")
	p.line("/nudge keep going")
	p.expect("NUDGE> nudge: keep going")
	p.expect("answer to the nudge")
	p.expect("> ")
	p.line("/stop")
	p.expect("(interrupted)")
	p.expect("> ")
	p.quit()

	reqs := e.srv.Requests()
	require.Len(t, reqs, 2, "ctx.abort stops /stop before its prompt goes out")
	assert.Equal(t, "question from the hook: what time is it", lastUserText(t, reqs[0]))
	assert.Contains(t, string(reqs[1].Body), "nudge: keep going")
	var roles []string
	for _, m := range e.onlySession().BuildContext().Messages {
		roles = append(roles, m.Message.Role)
	}
	assert.Equal(t, []string{session.RoleUser, session.RoleAssistant, session.RoleCustom, session.RoleAssistant}, roles)
}

func TestREPLResumeFlagOpensPicker(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("earlier answer"))
	p := e.start()
	p.line("earlier question")
	p.expect("earlier answer")
	p.quit()

	e.srv.Reply(llmtest.Text("continued"))
	p = e.start("-r")
	p.expect("earlier question")
	p.expect("choose 1-1 or type its first letters, ↑↓ and Enter; empty answers no: ")
	p.line("1")
	p.expect("resumed")
	p.expect("earlier answer")
	p.line("next question")
	p.expect("continued")
	p.quit()

	s := e.onlySession()
	assert.Equal(t, []string{"earlier question", "next question"}, userTexts(s))
}

func TestREPLProjectHookTrustAskedOnce(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	dir := filepath.Join(e.cwd, ".lunar", "hooks.d")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "proj.lua"),
		[]byte(`lunar.command("projcmd", { description = "from the project", handler = function() end })`), 0o644))

	// Refused: asked, not loaded, asked again next time.
	p := e.startRaw()
	p.expect("proj.lua")
	p.expect("Trust them?")
	p.expect("[y/N] ")
	p.line("n")
	p.expect("/help for commands")
	p.line("/help")
	p.expect("/quit")
	assert.NotContains(t, p.output(), "from the project")
	p.quit()

	// Trusted: loaded, and remembered.
	p = e.startRaw()
	p.expect("Trust them?")
	p.expect("[y/N] ")
	p.line("y")
	p.expect("/help for commands")
	p.line("/help")
	p.expect("from the project")
	p.quit()

	p = e.start()
	p.line("/help")
	p.expect("from the project")
	p.quit()
	assert.NotContains(t, p.output(), "Trust them?")
}

func TestWrapWords(t *testing.T) {
	assert.Equal(t, []string{"continue from an", "earlier entry", "(optionally)"}, wrapWords("continue from an earlier entry (optionally)", 16))
	assert.Equal(t, []string{"a", "verylongword", "b"}, wrapWords("a verylongword b", 5))
	assert.Equal(t, []string{""}, wrapWords("", 10))
}

func TestREPLResumeReplaysTheContextsEnd(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	s, err := session.Create(t.TempDir(), e.cwd)
	require.NoError(t, err)
	for i := range 40 {
		_, err := s.AppendMessage(&session.Message{Role: session.RoleUser, Content: []session.ContentBlock{{Type: session.BlockText, Text: fmt.Sprintf("question %d", i)}}, Timestamp: 1})
		require.NoError(t, err)
		_, err = s.AppendMessage(&session.Message{Role: session.RoleAssistant, API: "openai-completions", Provider: "openai", Model: "gpt-4.1",
			Content: []session.ContentBlock{{Type: session.BlockText, Text: fmt.Sprintf("answer %d", i)}}, StopReason: session.StopStop, Timestamp: 2})
		require.NoError(t, err)
	}
	require.NoError(t, s.Close())
	p := e.start("--session", s.File())
	p.expect("… 76 earlier messages")
	p.expect("you: question 38")
	p.expect("assistant: answer 38")
	p.expect("you: question 39")
	p.expect("assistant: answer 39")
	p.quit()
}
