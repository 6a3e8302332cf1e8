// Hook dialogs in the REPL: Ctrl+C at a question stops the turn, the
// trust question reads as one, hook warnings say "warning" once.
package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// TestREPLCtrlCAtDialogStopsTurn: Ctrl+C at a hook's confirm, select or
// input asked before a tool call stops the turn: the tool does not run,
// its result says the call was cancelled, no further request goes out,
// and the prompt comes back ready for the next message.
func TestREPLCtrlCAtDialogStopsTurn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		bundled  bool // the bundled permission policy asks (no --yes)
		question string
	}{
		{name: "confirm", question: "Run it? echo confirm > ran.txt [y/N] "},
		{name: "select", question: "choose 1-2 or type its first letters, ↑↓ and Enter; empty answers no: "},
		{name: "input", question: "Type yes to run it (yes): "},
		{name: "permission dialog", bundled: true, question: "choose 1-2 or type its first letters, ↑↓ and Enter; empty answers no: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newE2E(t)
			e.ask = tt.bundled
			e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo `+tt.name+` > ran.txt"}`))
			e.srv.Reply(llmtest.Text("next answer"))
			var args []string
			if !tt.bundled {
				args = []string{"--hook", replHook(t, "repl_dialog_stop.lua")}
			}
			p := e.start(args...)
			p.line("run it")
			p.expect(tt.question)
			p.send("\x03")
			p.expect("(interrupted)")
			p.expect("> ")
			require.Len(t, e.srv.Requests(), 1, "the turn stopped: nothing was sent after the question")
			p.line("and now?")
			p.expect("next answer")
			p.quit()

			assert.NoFileExists(t, filepath.Join(e.cwd, "ran.txt"), "the tool did not run")
			var results []string
			for _, m := range e.onlySession().BuildContext().Messages {
				if m.Message.Role == session.RoleToolResult {
					results = append(results, m.Message.Text())
				}
			}
			assert.Equal(t, []string{"Tool call cancelled: the user stopped the run"}, results)
			out := p.output()
			assert.NotContains(t, out, "refused", "Ctrl+C is not a no")
			assert.NotContains(t, out, "warning", "a hook the user stopped did not fail")
		})
	}
}

// TestREPLTrustQuestionOnOneLine: the trust question ends on the line
// that waits for the answer, without a stray colon.
func TestREPLTrustQuestionOnOneLine(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	dir := filepath.Join(e.cwd, ".lunar", "hooks.d")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "proj.lua"), []byte(`-- nothing`), 0o644))
	p := e.startRaw()
	p.expect(" has project hooks that would run with your permissions:\r\n  " + filepath.Join(".lunar", "hooks.d", "proj.lua") + "\r\nTrust them? [y/N] ")
	p.line("n")
	p.expect("/help for commands")
	p.quit()
	assert.NotContains(t, p.output(), "?:")
	assert.NotContains(t, p.output(), "\n[y/N]", "the answer is asked for on the question's line")
}

// TestREPLHookWarningSaidOnce: a hook's load warning in the REPL says
// "warning" once and names the hook once (with the line).
func TestREPLHookWarningSaidOnce(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	hook := filepath.Join(t.TempDir(), "typo.lua")
	require.NoError(t, os.WriteFile(hook, []byte(`lunar.on("tool.exeute.before", function() end)`), 0o644))
	p := e.startRaw("--hook", hook)
	p.expect(`warning: typo.lua:1: unknown event "tool.exeute.before" (did you mean "tool.execute.before"?)`)
	p.expect("/help for commands")
	p.quit()
	out := p.output()
	assert.Equal(t, 1, strings.Count(out, "warning"), out)
	assert.Equal(t, 1, strings.Count(out, "typo.lua"), out)
}

func TestQuestionLines(t *testing.T) {
	above, last := questionLines("Run this command? echo hi", 80)
	assert.Empty(t, above)
	assert.Equal(t, "Run this command? echo hi", last)

	above, last = questionLines("/a/long/folder/name has project hooks that would run with your permissions:\n  .lunar/hooks.d/x.lua\nTrust them?", 40)
	assert.Equal(t, []string{"/a/long/folder/name has project", "hooks that would run with your", "permissions:", "  .lunar/hooks.d/x.lua"}, above)
	assert.Equal(t, "Trust them?", last)

	above, last = questionLines("a\tb\x1b[2J", 80)
	assert.Empty(t, above)
	assert.Equal(t, `a b\x1b[2J`, last, "tabs and control characters cannot move the cursor")
}
