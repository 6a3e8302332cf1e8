// End-to-end tests of the command-line conventions of issue #22: a
// terminal is only a terminal when it answers as one, a mistyped
// subcommand is named, and listed ids are distinct.
package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// devNull opens /dev/null for a test's stdin: a character device that is
// no terminal.
func devNull(t *testing.T) *os.File {
	t.Helper()
	f, err := os.Open(os.DevNull)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

// TestCLIDevNullIsNoTerminal: with stdin from /dev/null, `sessions rm`
// cannot ask and says to pass --yes (exit 2), and a prompt argument is a
// one-shot run, not a REPL.
func TestCLIDevNullIsNoTerminal(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("one-shot answer"))
	// stdout and stderr on a terminal, stdin not: still one-shot.
	cmd := e.cmd("", "hello there")
	cmd.Stdin = devNull(t)
	ptmx, tty, err := pty.Open()
	require.NoError(t, err)
	defer ptmx.Close()
	require.NoError(t, pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 120}))
	cmd.Stdout, cmd.Stderr = tty, tty
	require.NoError(t, cmd.Start())
	tty.Close()
	out, _ := io.ReadAll(ptmx) // EIO once lunar exits
	require.NoError(t, cmd.Wait(), string(out))
	assert.Contains(t, string(out), "one-shot answer")
	assert.NotContains(t, string(out), "/help for commands", "no REPL banner")

	id := e.onlySession().ID()
	e.ask = true // no --yes
	cmd = e.cmd("", "sessions", "rm", id)
	cmd.Stdin = devNull(t)
	r := e.exec(cmd)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "pass --yes")
	assert.Len(t, e.sessionFiles(), 1, "nothing removed")
}

// TestCLISubcommandTypo: a lone prompt one edit away from a subcommand
// is a usage error naming it; nothing goes to the model. -p sends it.
func TestCLISubcommandTypo(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	for _, typo := range []string{"sesions", "hoks", "completon"} {
		r := e.run("", typo)
		assert.Equal(t, 2, r.code, r.stderr)
		want := map[string]string{"sesions": "sessions", "hoks": "hooks", "completon": "completion"}[typo]
		assert.Contains(t, r.stderr, "did you mean `lunar "+want+"`?")
	}
	assert.Empty(t, e.srv.Requests(), "nothing went to the model")
	assert.Empty(t, e.sessionFiles())

	e.srv.Reply(llmtest.Text("a session is a conversation"))
	r := e.run("", "-p", "sesions")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "a session is a conversation\n", r.stdout)
	// Two words are a prompt.
	e.srv.Reply(llmtest.Text("ok"))
	r = e.run("", "sesions please")
	require.Equal(t, 0, r.code, r.stderr)
}

// TestSessionsTitlesAreTheUsersWords: `lunar sessions` titles a session
// by what the user typed, without the <file> blocks of its attachments,
// and a session begun with !cmd by the command.
func TestSessionsTitlesAreTheUsersWords(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "notes.txt"), []byte("remember the milk"), 0o644))
	e.srv.Reply(llmtest.Text("noted"))
	r := e.run("", "@notes.txt", "-p", "summarise this")
	require.Equal(t, 0, r.code, r.stderr)

	p := e.start()
	p.line("!echo from the shell")
	p.expect("from the shell")
	p.expect("> ")
	p.quit()

	r = e.run("", "sessions")
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	require.Len(t, lines, 3, r.stdout)
	assert.True(t, strings.HasSuffix(lines[1], "  !echo from the shell"), lines[1])
	assert.True(t, strings.HasSuffix(lines[2], "  summarise this"), lines[2])
	assert.NotContains(t, r.stdout, "<file")
	assert.NotContains(t, r.stdout, "milk")
}

// TestHooksCheckKeysAndMissingModules: `lunar hooks check` names a
// misspelled key of a lunar.command or lunar.tool table with the nearest
// known one, and says which module a hook cannot have and what to use.
func TestHooksCheckKeysAndMissingModules(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
		return p
	}
	keys := write("keys.lua", `lunar.command("x", {descripton = "d", handler = function() end})
lunar.tool({name = "t", description = "d", paramters = {}, execute = function() end})
`)
	r := e.run("", "hooks", "check", keys)
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, `keys.lua:1: lunar.command "x": unknown key "descripton" (did you mean "description"?)`)
	assert.Contains(t, r.stdout, `keys.lua:2: lunar.tool "t": unknown key "paramters" (did you mean "parameters"?)`)

	for name, src := range map[string]string{
		"global.lua":  "local f = io.open(\"x\")\n",
		"require.lua": "local io = require(\"io\")\n",
	} {
		r = e.run("", "hooks", "check", write(name, src))
		assert.Equal(t, 1, r.code, name)
		assert.Contains(t, r.stdout, name+":1: ", name)
		assert.Contains(t, r.stdout, "`io` is not available in hooks (use fs)", name)
	}
}

// TestPromptLargerThanTheWindowIsRefused: a prompt (here with a 4.5 MB
// attachment, about 1.1M tokens) larger than the model's window is
// refused before it is sent, with the numbers, in one-shot and the REPL.
func TestPromptLargerThanTheWindowIsRefused(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	big := strings.Repeat("all work and no play makes jack a dull boy\n", 4_500_000/43)
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "big.txt"), []byte(big), 0o644))
	r := e.run("", "@big.txt", "-p", "summarise this")
	assert.Equal(t, 1, r.code)
	assert.Regexp(t, `prompt too large: about 1,1\d\d,\d\d\d tokens, and openai/gpt-4\.1's context window is 1,047,576 tokens; nothing was sent`, r.stderr)
	assert.Empty(t, e.srv.Requests())

	e.srv.Reply(llmtest.Text("small is fine"))
	p := e.start()
	p.line("what about @big.txt")
	p.expect("prompt too large: about 1,1")
	p.expect("> ")
	p.line("and a small one")
	p.expect("small is fine")
	p.quit()
	reqs := e.srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "and a small one", lastUserText(t, reqs[0]))
}
