// Terminal injection (issue 20, item 6): text from the model, tools,
// files, sessions and hooks reaches the terminal with its control
// characters shown escaped; only lunar's own styling and redraws, and
// the line editor's, are escape sequences.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// evil holds what a hostile model, file or hook would send a terminal:
// OSC 52 (sets the clipboard to "rm -rf ~"), OSC 2 (the window title), a
// CSI that clears the screen, a C1 CSI (U+009B) and a bidi override.
const evil = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]2;pwned\x07\x1b[2J\u009b31m\u202e"

// evilJSON is evil inside a JSON string.
const evilJSON = `\u001b]52;c;cm0gLXJmIH4=\u0007\u001b]2;pwned\u0007\u001b[2J\u009b31m\u202e`

// evilShown is how evil looks once sanitised.
const evilShown = `\x1b]52;c;cm0gLXJmIH4=\x07\x1b]2;pwned\x07\x1b[2J\u009b31m\u202e`

// ownCSI matches the escape sequences lunar and its line editor write:
// SGR, cursor moves, erases, bracketed paste.
var ownCSI = regexp.MustCompile(`^\x1b\[(\??[0-9;]*)([mABCGHJK]|h|l)`)

// foreignControls lists the control sequences and characters in terminal
// output that neither lunar's styling nor its line editor wrote: an
// escape other than ownCSI (private modes only for bracketed paste),
// any C0 control but CR, LF, tab and backspace, DEL, C1 controls and
// bidi overrides.
func foreignControls(out string) []string {
	var bad []string
	for i := 0; i < len(out); {
		c := out[i]
		switch {
		case c == 0x1b:
			m := ownCSI.FindStringSubmatch(out[i:])
			if m == nil || strings.HasPrefix(m[1], "?") && m[1] != "?2004" {
				bad = append(bad, fmt.Sprintf("%q at %d", out[i:min(i+12, len(out))], i))
				i++
				continue
			}
			i += len(m[0])
			continue
		case c < 0x20 && c != '\r' && c != '\n' && c != '\t' && c != '\b' || c == 0x7f:
			bad = append(bad, fmt.Sprintf("%q at %d", out[i:min(i+12, len(out))], i))
		case strings.HasPrefix(out[i:], "\u009b") || strings.HasPrefix(out[i:], "\u009d") || strings.HasPrefix(out[i:], "\u202e"):
			bad = append(bad, fmt.Sprintf("%q at %d", out[i:min(i+12, len(out))], i))
		}
		i++
	}
	return bad
}

func TestForeignControls(t *testing.T) {
	assert.Empty(t, foreignControls("\x1b[1m\x1b[36m→\x1b[0m bash\r\n\x1b[3A\x1b[J\x1b[?2004h\x1b[12G"))
	assert.Len(t, foreignControls(evil), 6, "OSC 52, its BEL, OSC 2, its BEL, CSI 2J, C1 CSI, bidi override")
	assert.Empty(t, foreignControls(evilShown))
}

// TestREPLTerminalInjection: thinking, answer text, a tool call's name,
// arguments and output and its error reach the REPL's terminal escaped —
// the permission question too, and what is on screen before it — and
// so does the output of a !command.
func TestREPLTerminalInjection(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.ask = true
	e.srv.Reply(llmtest.Thinking("thinking "+evil), llmtest.Text("answer "+evil+"\n\n- item "+evil),
		llmtest.ToolCall("bash", `{"command":"printf 'out \\033]52;c;cm0gLXJmIH4=\\007\\033]2;pwned\\007\\n'; echo '`+evilJSON+`'"}`))
	e.srv.Reply(llmtest.ToolCall("evil"+evil, `{"arg":"`+evilJSON+`"}`))
	e.srv.Reply(llmtest.Text("last "+evil), llmtest.Finish("error"))
	p := e.start("--show-thinking")
	p.line("go")
	p.expect("choose 1-")
	before := p.output()
	assert.Empty(t, foreignControls(before), "before the permission question")
	assert.Contains(t, before, "thinking "+evilShown)
	assert.Contains(t, before, "answer "+evilShown)
	assert.Contains(t, before, "echo '"+evilShown)
	p.line("1")
	p.expect("last ")
	p.expect("> ")
	p.line(`!printf 'bang \033]2;pwned\007\n'`)
	p.expect(`bang \x1b]2;pwned\x07`)
	p.expect("> ")
	p.quit()
	out := p.output()
	assert.Empty(t, foreignControls(out))
	assert.Contains(t, out, `out \x1b]52;c;cm0gLXJmIH4=\x07\x1b]2;pwned\x07`, "the tool's output")
	assert.Contains(t, out, "→ evil"+evilShown, "the unknown tool's name")
	assert.Contains(t, out, "last "+evilShown)
}

// TestREPLHookUIInjection: ctx.ui.print, notify, toast, select, confirm,
// input, a displayed custom message and a command's error show escape
// sequences escaped (ui.print used to strip ESC and print the payload).
func TestREPLHookUIInjection(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	p := e.start("--hook", replHook(t, "repl_inject.lua"))
	p.line("/inject")
	p.expect("choose 1-2")
	p.line("2")
	p.expect("[y/N]")
	p.line("n")
	p.expect("hint ")
	p.expect("> ") // the prompt is too long for the line: it is printed, then "> " reads (keys sent before that are type-ahead)
	p.line("typed")
	p.expect("inject done")
	p.line("/boom")
	p.expect("boom ")
	p.expect("> ")
	p.quit()
	out := p.output()
	assert.Empty(t, foreignControls(out))
	for _, what := range []string{"print ", "notify ", "toast ", "message ", "custom ", "select ", "body ", "option ", "confirm ", "input ", "hint ", "boom "} {
		assert.Contains(t, out, what+evilShown, what)
	}
	assert.NotContains(t, out, "cm0gLXJmIH4=\r\n", "no payload printed without its escape")
}

// TestOneShotTerminalInjection: on a terminal, one-shot output (the
// rendered answer, tool lines on stderr) is sanitised; to a pipe the
// answer stays byte for byte what the model wrote, and stderr's status
// lines and a hook's ctx.ui output are sanitised.
func TestOneShotTerminalInjection(t *testing.T) {
	t.Parallel()
	script := func(srv *llmtest.Server) {
		srv.Reply(llmtest.Text("answer "+evil), llmtest.ToolCall("bash", `{"command":"printf 'out \\033]2;pwned\\007\\n'; false '`+evilJSON+`'"}`))
		srv.Reply(llmtest.Text("last " + evil))
	}
	t.Run("tty", func(t *testing.T) {
		for _, raw := range []bool{false, true} {
			e := newE2E(t)
			script(e.srv)
			args := []string{"-p", "go " + evil}
			if raw {
				args = append(args, "--raw")
			}
			p := e.startRaw(args...)
			assert.Equal(t, 0, p.wait())
			out := p.output()
			assert.Empty(t, foreignControls(out), "--raw %v", raw)
			assert.Contains(t, out, "answer "+evilShown)
			assert.Contains(t, out, "last "+evilShown)
			assert.Contains(t, out, "→ bash  printf")
			assert.Contains(t, out, "false '"+evilShown)
		}
	})
	t.Run("pipe", func(t *testing.T) {
		e := newE2E(t)
		script(e.srv)
		r := e.run("", "-p", "go")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "answer "+evil+"\n\nlast "+evil+"\n", r.stdout, "the answer to a pipe is the product: as the model wrote it")
		assert.Empty(t, foreignControls(r.stderr))
		assert.Contains(t, r.stderr, "false '"+evilShown)
	})
	t.Run("hook ui on stderr", func(t *testing.T) {
		e := newE2E(t)
		r := e.run("", "--hook", replHook(t, "repl_inject.lua"), "-p", "/inject")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Empty(t, r.stdout)
		assert.Empty(t, foreignControls(r.stderr))
		for _, what := range []string{"print ", "notify ", "toast "} {
			assert.Contains(t, r.stderr, what+evilShown, what)
		}
	})
}

// TestSessionsTerminalInjection: a session's first message (its title in
// `lunar sessions`) and its content shown by `lunar sessions show` are
// sanitised, to a terminal and to a pipe alike (they are for reading;
// --json is for programs).
func TestSessionsTerminalInjection(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("answer " + evil))
	r := e.run("", "-p", "title "+evil)
	require.Equal(t, 0, r.code, r.stderr)

	r = e.run("", "sessions")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, foreignControls(r.stdout))
	assert.Contains(t, r.stdout, "title "+`\x1b]52;c;`)

	id := filepath.Base(e.onlySession().File())
	id = id[strings.LastIndex(id, "_")+1 : len(id)-len(".jsonl")]
	r = e.run("", "sessions", "show", id)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, foreignControls(r.stdout))
	assert.Contains(t, r.stdout, "answer "+evilShown)

	for _, args := range [][]string{{"sessions"}, {"sessions", "show", id}} {
		p := e.startBare(append(os.Environ(), "LUNAR_HOME="+e.home, "TERM=xterm-256color"), args...)
		assert.Equal(t, 0, p.wait())
		assert.Empty(t, foreignControls(p.output()), args)
		assert.Contains(t, p.output(), `\x1b]52;c;`, args)
	}
}
