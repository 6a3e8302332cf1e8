// Markdown answers on a terminal: rendered a line at a time as they
// stream, never redrawn; --raw, TERM=dumb and pipes get the model's text.
package main

import (
	"io"
	"strings"
	"testing"

	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

const markdownAnswer = "# Plan\n\nUse **bold** and `code`.\n\n```go\nfunc main() {}\n```\n\n| key | value |\n|-----|------:|\n| a | 1 |\n"

func TestREPLRendersMarkdownAnswer(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.env = append(e.env, "NO_COLOR=") // colours on
	e.srv.Reply(llmtest.Text(markdownAnswer))
	p := e.start()
	p.line("show me")
	// Each line is rendered once, when it is complete; the fence is a
	// header; the table is held until it ends.
	p.expect("\x1b[1;4;35m# Plan\x1b[0m\r\n")
	p.expect("Use \x1b[1mbold\x1b[0m and \x1b[36mcode\x1b[0m.\r\n")
	p.expect("\x1b[2m╭─ go\x1b[0m\r\n  \x1b[35mfunc\x1b[0m \x1b[34mmain\x1b[0m() {}\r\n\x1b[2m╰─\x1b[0m\r\n")
	p.expect("\x1b[1mkey\x1b[0m\x1b[2m │ \x1b[0m\x1b[1mvalue\x1b[0m")
	p.expect("a  \x1b[2m │ \x1b[0m    1")
	p.expect("> ")
	p.quit()

	out := p.output()
	assert.NotContains(t, out, "**bold**", "no raw markdown is shown first")
	assert.NotContains(t, out, "```")
	for _, l := range []string{"# Plan", "Use \x1b[1mbold", "\x1b[35mfunc", "\x1b[1mkey"} {
		assert.Equal(t, 1, strings.Count(out, l), "%q is drawn once", l)
	}
	msgs := e.onlySession().BuildContext().Messages
	require.Len(t, msgs, 2)
	assert.Equal(t, markdownAnswer, msgs[1].Message.Text(), "the session keeps the model's text")
}

func TestREPLMarkdownOff(t *testing.T) {
	t.Parallel()
	for name, env := range map[string][]string{
		"raw flag":  nil,
		"TERM=dumb": {"TERM=dumb"},
	} {
		t.Run(name, func(t *testing.T) {
			e := newE2E(t)
			e.env = append([]string{"NO_COLOR="}, env...)
			e.srv.Reply(llmtest.Text(markdownAnswer))
			var args []string
			if env == nil {
				args = []string{"--raw"}
			}
			p := e.start(args...)
			p.line("show me")
			p.expect("Use **bold** and `code`.")
			p.expect("| a | 1 |")
			p.expect("> ")
			p.quit()
			out := p.output()
			assert.NotRegexp(t, `\x1b\[[0-9]*A`, out, "nothing is redrawn")
			assert.NotContains(t, out, "\x1b[1mbold")
		})
	}
}

// TestOneShotPipedMarkdownIsModelText: stdout that is not a terminal gets
// the model's text byte for byte.
func TestOneShotPipedMarkdownIsModelText(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.env = append(e.env, "NO_COLOR=", "TERM=xterm-256color")
	e.srv.Reply(llmtest.Text(markdownAnswer))
	r := e.run("", "-p", "show me")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, markdownAnswer, r.stdout)
}

// oneShotOnTerminal runs a one-shot prompt whose stdout (and stderr) is a
// terminal 100 columns wide and returns what it received.
func oneShotOnTerminal(t *testing.T, e *e2e, args ...string) string {
	t.Helper()
	cmd := e.cmd("", args...)
	cmd.Stdin = nil // the terminal
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 100})
	require.NoError(t, err)
	defer tty.Close()
	out, _ := io.ReadAll(tty) // ends with EIO once lunar has exited
	require.NoError(t, cmd.Wait(), string(out))
	return string(out)
}

// TestOneShotOnTerminal: a one-shot answer on a terminal is rendered as
// in the REPL; with --raw it is the model's text (the terminal turns \n
// into \r\n).
func TestOneShotOnTerminal(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.env = append(e.env, "NO_COLOR=", "TERM=xterm-256color")
	e.srv.Reply(llmtest.Text(markdownAnswer))
	e.srv.Reply(llmtest.Text(markdownAnswer))

	out := oneShotOnTerminal(t, e, "-p", "show me")
	assert.Contains(t, out, "\r\nUse \x1b[1mbold\x1b[0m and \x1b[36mcode\x1b[0m.\r\n")
	assert.Contains(t, out, "  \x1b[35mfunc\x1b[0m \x1b[34mmain\x1b[0m() {}")
	assert.NotContains(t, out, "\x1b[J", "nothing is redrawn")
	assert.NotContains(t, out, "**bold**")

	out = oneShotOnTerminal(t, e, "--raw", "-p", "show me")
	assert.Equal(t, markdownAnswer, strings.ReplaceAll(out, "\r\n", "\n"))
}
