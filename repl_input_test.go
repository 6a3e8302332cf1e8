// REPL input through the binary in a pseudo-terminal: attachments that
// fail stop the prompt, text in other encodings attaches, questions take
// words, pickers, multi-line keys.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// TestREPLAttachments: a Latin-1 file attaches with its invalid bytes
// replaced; a file that cannot be attached (binary) stops the prompt,
// which comes back in the editor, and nothing is sent.
func TestREPLAttachments(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "latin1.txt"), []byte("caf\xe9 cr\xe8me"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "blob.bin"), []byte{0, 1, 2}, 0o644))
	e.srv.Reply(llmtest.Text("read it"))
	p := e.start()
	p.line("look at @blob.bin")
	p.expect("@blob.bin: not a text or image file; not attached")
	p.expect("not sent")
	p.expect("> look at @blob.bin")
	assert.Empty(t, e.srv.Requests(), "a failed attachment stops the prompt")
	p.send("\x15") // Ctrl+U: clear the line
	p.line("and @latin1.txt")
	p.expect("read it")
	p.expect("> ")
	p.quit()
	reqs := e.srv.Requests()
	require.Len(t, reqs, 1)
	assert.Contains(t, lastUserText(t, reqs[0]), "<file name=\""+filepath.Join(e.cwd, "latin1.txt")+"\">\ncaf\uFFFD cr\uFFFDme\n</file>")
}

// TestREPLNewlineKeys: Ctrl+J and Shift+Enter (as the kitty protocol and
// xterm's modifyOtherKeys report it) insert a newline; Enter sends.
func TestREPLNewlineKeys(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("got three lines"))
	e.srv.Reply(llmtest.Text("got two lines"))
	p := e.start()
	p.send("first\nsecond\x1b[13;2uthird")
	p.expect("third")
	p.send("\r")
	p.expect("got three lines")
	p.expect("> ")
	p.send("one\x1b[27;2;13~two\r")
	p.expect("got two lines")
	p.expect("> ")
	p.quit()
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "first\nsecond\nthird", lastUserText(t, reqs[0]))
	assert.Equal(t, "one\ntwo", lastUserText(t, reqs[1]))
}

// TestREPLCtrlPCyclesModels: Ctrl+P at the prompt switches to the next
// model of config.json's "models" (model.change fires with source
// "cycle") and gives the prompt back with what was typed.
func TestREPLCtrlPCyclesModels(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	require.NoError(t, os.MkdirAll(filepath.Join(e.home, "config"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(e.home, "config", "config.json"),
		[]byte(`{"models": ["openai/gpt-4.1", "openai/gpt-4.1-mini"]}`), 0o644))
	hook := filepath.Join(t.TempDir(), "cycle.lua")
	require.NoError(t, os.WriteFile(hook, []byte(`lunar.on("model.change", function(ev, ctx)
  ctx.ui.notify("model changed by " .. ev.source .. " to " .. ev.new_model_id)
end)`), 0o644))
	e.srv.Reply(llmtest.Text("mini here"))
	e.srv.Reply(llmtest.Text("back to full"))
	p := e.start("-e", hook)
	p.send("hello wor")
	p.expect("hello wor")
	p.send("\x10")
	p.expect("model changed by cycle to gpt-4.1-mini")
	p.expect("model: openai/gpt-4.1-mini")
	p.expect("> hello wor")
	p.line("ld")
	p.expect("mini here")
	p.expect("> ")
	p.send("\x10")
	p.expect("model: openai/gpt-4.1\r\n")
	p.expect("> ")
	p.line("again")
	p.expect("back to full")
	p.quit()
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "gpt-4.1-mini", reqs[0].Field("model"))
	assert.Equal(t, "hello world", lastUserText(t, reqs[0]))
	assert.Equal(t, "gpt-4.1", reqs[1].Field("model"))
}

// TestREPLQuestionsTakeWordsAndArrows: a hook's select is answered with
// an option's first letters, with the arrow keys and Enter, or a number;
// Enter with nothing chosen answers no. The permission question takes
// y, yes, n and no.
func TestREPLQuestionsTakeWordsAndArrows(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.ask = true
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo yes > ran.txt"}`))
	e.srv.Reply(llmtest.Text("ran it"))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo no > refused.txt"}`))
	e.srv.Reply(llmtest.Text("did not run it"))
	p := e.start("--hook", replHook(t, "repl_ui.lua"))

	for _, tc := range []struct{ keys, want string }{
		{"gr\r", "picked green"},
		{"BLUE\r", "picked blue"},
		{"\x1b[B\x1b[B\r", "picked green"}, // down twice: red, then green
		{"\x1b[A\r", "picked blue"},        // up from nothing: the last
		{"3\r", "picked blue"},
		{"\r", "no colour"},
		{"r\x1b", "no colour"}, // Esc
	} {
		p.line("/colour")
		p.expect("empty answers no: ")
		p.send(tc.keys)
		p.expect(tc.want)
		p.expect("> ")
	}

	p.line("run it")
	p.expect("empty answers no: ")
	p.send("y\r")
	p.expect("ran it")
	p.expect("> ")
	p.line("and this")
	p.expect("empty answers no: ")
	p.send("no\r")
	p.expect("did not run it")
	p.expect("> ")
	p.quit()
	assert.FileExists(t, filepath.Join(e.cwd, "ran.txt"))
	assert.NoFileExists(t, filepath.Join(e.cwd, "refused.txt"))
}

// TestREPLPickers: /model and /branch without an argument open a picker
// that filters as the user types; Tab after "/model gpt-4.1-mi"
// completes the bare id.
func TestREPLPickers(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("first answer"))
	e.srv.Reply(llmtest.Text("second answer"))
	e.srv.Reply(llmtest.Text("third answer"))
	p := e.start()
	p.line("/model")
	p.expect("* openai/gpt-4.1 ")
	p.expect("Esc cancels: ")
	p.send("4.1-mini")
	p.expect("› ")
	p.send("\r")
	p.expect("model: openai/gpt-4.1-mini")
	p.expect("> ")

	p.send("/model gpt-4.1-nan\t")
	p.expect("/model gpt-4.1-nano ")
	p.send("\r")
	p.expect("model: openai/gpt-4.1-nano")
	p.expect("> ")

	p.line("first question")
	p.expect("first answer")
	p.expect("> ")
	p.line("second question")
	p.expect("second answer")
	p.expect("> ")
	p.line("/branch")
	p.expect("Branch from which entry?")
	p.expect("Esc or empty cancels: ")
	p.send("first q")
	p.expect("first q")
	p.send("\r")
	p.expect("its text is in the prompt to edit and resend")
	p.expect("> first question")
	p.line(" again")
	p.expect("third answer")
	p.quit()

	reqs := e.srv.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, "gpt-4.1-nano", reqs[0].Field("model"))
	s := e.onlySession()
	assert.Equal(t, []string{"first question again"}, userTexts(s), "the branch went back before the first question")
}

// TestREPLEditor: ctx.ui.editor runs $EDITOR on a temporary file holding
// the text and answers the saved file; the editor gets every key typed
// while it runs (the input filter stops reading), and the prompt gets
// them again afterwards. An editor that fails answers nil; one-shot has
// no editor.
func TestREPLEditor(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	dir := t.TempDir()
	editor := filepath.Join(dir, "editor.sh")
	require.NoError(t, os.WriteFile(editor, []byte("#!/bin/sh\necho EDITOR READY\nread line\nprintf '%s\\n' \"$line\" >> \"$1\"\n"), 0o755))
	failing := filepath.Join(dir, "failing.sh")
	require.NoError(t, os.WriteFile(failing, []byte("#!/bin/sh\nexit 3\n"), 0o755))
	hook := filepath.Join(dir, "edit.lua")
	require.NoError(t, os.WriteFile(hook, []byte(`lunar.command("edit", {
  description = "edit a note",
  handler = function(args, ctx)
    local text = ctx.ui.editor("Edit the note", "first line\n")
    if text == nil then
      ctx.ui.notify("nothing edited", "warning")
      return
    end
    ctx.ui.notify("edited: " .. text:gsub("\n", "|"), "info")
  end,
})`), 0o644))
	e.env = []string{"VISUAL=", "EDITOR=" + editor}
	e.srv.Reply(llmtest.Text("after the editor"))
	p := e.start("-e", hook)
	p.line("/edit")
	p.expect("Edit the note")
	p.expect("EDITOR READY")
	p.line("typed in editor")
	p.expect("edited: first line|typed in editor")
	p.expect("> ")
	p.line("a prompt")
	p.expect("after the editor")
	p.quit()
	reqs := e.srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "a prompt", lastUserText(t, reqs[0]))

	e.env = []string{"VISUAL=" + failing}
	p = e.start("-e", hook)
	p.line("/edit")
	p.expect("failing.sh exited with status 3: nothing edited")
	p.expect("nothing edited")
	p.quit()

	e.env = []string{"EDITOR=" + editor}
	r := e.run("", "-e", hook, "-p", "/edit")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "nothing edited", "no UI: no editor")
}

// TestREPLBannerRowWrapsInItsColumn: a banner row wider than the
// terminal goes on under its value, not at the left edge.
func TestREPLBannerRowWrapsInItsColumn(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	dir := t.TempDir()
	var args []string
	for i := range 6 {
		h := filepath.Join(dir, fmt.Sprintf("a-rather-long-hook-name-%d.lua", i))
		require.NoError(t, os.WriteFile(h, []byte("-- nothing\n"), 0o644))
		args = append(args, "-e", h)
	}
	p := e.start(args...)
	p.quit()
	var rows []string
	for _, l := range strings.Split(p.output(), "\r\n") {
		if strings.Contains(l, "a-rather-long-hook-name") {
			rows = append(rows, l)
		}
	}
	require.GreaterOrEqual(t, len(rows), 2, p.output())
	assert.True(t, strings.HasPrefix(rows[0], "  hooks    "), rows[0])
	for _, l := range rows[1:] {
		assert.True(t, strings.HasPrefix(l, strings.Repeat(" ", 11)) && l[11] != ' ', "%q continues in the value's column", l)
		assert.LessOrEqual(t, len(l), 120)
	}
}

func TestCutSequence(t *testing.T) {
	for in, want := range map[string]bool{
		"\x1b": true, "\x1b[": true, "\x1b[1;2": true, "ab\x1bO": true,
		"\x1b[A": false, "\x1bOB": false, "abc": false, "\x1bx": false, "\x1b[200~": false,
	} {
		assert.Equal(t, want, cutSequence([]byte(in)), "%q", in)
	}
}

// TestREPLResumePickerColumnsAlign: `lunar -r` lists sessions whose short
// ids differ in length (two share a long prefix); the columns after the
// ids start at one offset.
func TestREPLResumePickerColumnsAlign(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	dir := session.Dir(filepath.Join(e.home, "data", "sessions"), e.cwd)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for i, id := range []string{"01a2b3c4-d5e6-7000-8000-000000000001", "01a2b3c4-d5e6-7000-8000-000000000002", "0f000000-0000-7000-8000-000000000003"} {
		data := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-11-25T10:00:0%dZ","cwd":%q}
{"type":"message","id":"m%d","parentId":null,"timestamp":"2026-11-25T10:00:0%dZ","message":{"role":"user","content":"question %d","timestamp":0}}
`, id, i, e.cwd, i, i, i)
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("2026-11-25T10-00-0%dZ_%s.jsonl", i, id)), []byte(data), 0o644))
	}
	p := e.startRaw("-r")
	p.expect("empty answers no: ")
	p.send("\x1b")
	p.expect("> ")
	p.quit()
	offsets := map[int]bool{}
	for _, l := range strings.Split(p.output(), "\n") {
		if i := strings.Index(l, "question "); i >= 0 && strings.Contains(l, ") ") {
			offsets[strings.Index(l, " msgs")] = true
		}
	}
	assert.Len(t, offsets, 1, "one column for every row:\n%s", p.output())
}
