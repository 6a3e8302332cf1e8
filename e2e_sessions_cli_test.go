// End-to-end tests of sessions from the command line: `lunar sessions`
// (short ids, relative times, --all, --json), `sessions show`, `sessions
// rm`, --session and /resume by name or words, the banner and the resume
// hint on quitting.
package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// threeSessions makes three sessions in e's folder (created within a
// second, so their ids share a long prefix) and names the second.
func threeSessions(t *testing.T, e *e2e) []session.Info {
	t.Helper()
	for _, q := range []string{"fix the flaky kill test", "write the release notes", "explain the loop"} {
		e.srv.Reply(llmtest.Text("answer to " + q))
		require.Equal(t, 0, e.run("", "-p", q).code)
	}
	infos, err := session.List(filepath.Join(e.home, "data", "sessions"), e.cwd)
	require.NoError(t, err)
	require.Len(t, infos, 3)
	// Name the release-notes session as /name does.
	for _, in := range infos {
		if strings.Contains(in.FirstMessage, "release") {
			s, err := session.Open(in.Path)
			require.NoError(t, err)
			_, err = s.SetName("Release Notes Draft")
			require.NoError(t, err)
			require.NoError(t, s.Close())
		}
	}
	infos, err = session.List(filepath.Join(e.home, "data", "sessions"), e.cwd)
	require.NoError(t, err)
	return infos
}

func TestSessionsListShortIDsAndJSON(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	infos := threeSessions(t, e)

	r := e.run("", "sessions")
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	require.Len(t, lines, 4, r.stdout)
	var shorts []string
	for i, in := range infos {
		fields := strings.Fields(lines[i+1])
		short := fields[0]
		shorts = append(shorts, short)
		assert.True(t, strings.HasPrefix(in.ID, short) && len(short) >= 8 && len(short) < len(in.ID), "%q abbreviates %s", short, in.ID)
		assert.Contains(t, lines[i+1], "just now")
		assert.Regexp(t, ` 2  `, lines[i+1], "message count")
	}
	for i := range shorts {
		for j := range infos {
			if i != j {
				assert.False(t, strings.HasPrefix(infos[j].ID, shorts[i]), "%s is unique", shorts[i])
			}
		}
	}
	assert.Contains(t, r.stdout, "Release Notes Draft", "the name stands for the first message")
	assert.NotContains(t, r.stdout, "write the release notes")

	r = e.run("", "sessions", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var list []sessionJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &list))
	require.Len(t, list, 3)
	for i, s := range list {
		assert.Equal(t, infos[i].ID, s.ID)
		assert.Equal(t, shorts[i], s.ShortID)
		assert.Equal(t, infos[i].Path, s.Path)
		assert.Equal(t, e.cwd, s.Cwd)
		assert.Equal(t, 2, s.MessageCount)
		assert.NotEmpty(t, s.Modified)
	}

	// --all lists other folders' sessions too, with their folder.
	other := t.TempDir()
	other, _ = filepath.EvalSymlinks(other)
	e.srv.Reply(llmtest.Text("elsewhere"))
	cmd := e.cmd("", "-p", "a question from elsewhere")
	cmd.Dir = other
	require.Equal(t, 0, e.exec(cmd).code)
	r = e.run("", "sessions")
	assert.NotContains(t, r.stdout, "a question from elsewhere")
	r = e.run("", "sessions", "--all")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "a question from elsewhere")
	assert.Contains(t, r.stdout, other)
	assert.Equal(t, 5, strings.Count(r.stdout, "\n"))

	r = e.run("", "--all", "-p", "x")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--all and --json go with lunar sessions")
}

func TestSessionsShowAndRemove(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo tool says hi"}`))
	e.srv.Reply(llmtest.Text("The **tool** said hi."))
	require.Equal(t, 0, e.run("", "-p", "run the tool please").code)
	s := e.onlySession()

	r := e.run("", "sessions", "show", s.ID()[:8])
	require.Equal(t, 0, r.code, r.stderr)
	for _, want := range []string{"# run the tool please", "## user", "run the tool please", "## assistant · openai/gpt-4.1",
		"→ `bash  echo tool says hi`", "tool says hi", "The **tool** said hi."} {
		assert.Contains(t, r.stdout, want)
	}
	assert.NotContains(t, r.stdout, "\x1b", "a pipe gets plain text")

	// By words of the first message.
	r2 := e.run("", "sessions", "show", "tool please")
	require.Equal(t, 0, r2.code, r2.stderr)
	assert.Equal(t, r.stdout, r2.stdout)

	r = e.run("", "sessions", "show", "nothing-like-this")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `no session matches "nothing-like-this"`)

	// rm refuses without a terminal unless --yes.
	e.ask = true // the harness passes --yes unless asked not to
	r = e.run("", "sessions", "rm", s.ID())
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--yes")
	assert.Len(t, e.sessionFiles(), 1)
	r = e.run("", "sessions", "rm", s.ID(), "--yes")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "removed "+s.File())
	assert.Empty(t, e.sessionFiles())
}

// On a terminal, rm asks; only "y" removes.
func TestSessionsRemoveAsks(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("kept or not"))
	p := e.start()
	p.line("a session to remove")
	p.expect("kept or not")
	p.quit()
	files := e.sessionFiles()
	require.Len(t, files, 1)
	id := e.load(files[0]).ID()

	e.ask = true // no --yes
	p = e.startRaw("sessions", "rm", id[:8])
	p.expect("a session to remove")
	p.expect("[y/N]")
	p.line("n")
	p.expect("not removed")
	assert.Equal(t, 1, p.wait())
	assert.Len(t, e.sessionFiles(), 1)

	p = e.startRaw("sessions", "rm", id[:8])
	p.expect("[y/N]")
	p.line("y")
	p.expect("removed")
	assert.Equal(t, 0, p.wait())
	assert.Empty(t, e.sessionFiles())
}

// --session takes a name or words of the first message; several matches
// are listed.
func TestSessionFlagByNameOrWords(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	infos := threeSessions(t, e)
	byFirst := map[string]session.Info{}
	for _, in := range infos {
		byFirst[in.FirstMessage] = in
	}

	e.srv.Reply(llmtest.Text("continued"))
	r := e.run("", "--session", "release notes draft", "-p", "add a section")
	require.Equal(t, 0, r.code, r.stderr)
	s, err := session.Load(byFirst["write the release notes"].Path)
	require.NoError(t, err)
	assert.Equal(t, []string{"write the release notes", "add a section"}, userTexts(s))

	e.srv.Reply(llmtest.Text("continued"))
	r = e.run("", "--session", "flaky kill", "-p", "more on it")
	require.Equal(t, 0, r.code, r.stderr)
	s, err = session.Load(byFirst["fix the flaky kill test"].Path)
	require.NoError(t, err)
	assert.Equal(t, []string{"fix the flaky kill test", "more on it"}, userTexts(s))

	r = e.run("", "--session", "the", "-p", "which?")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `"the" matches 3 sessions`)
	assert.Contains(t, r.stderr, "explain the loop")
	assert.Len(t, e.srv.Requests(), 5, "nothing sent")
}

// The banner names the session, the hooks and the AGENTS.md files; on
// quitting the REPL says how to come back; /resume takes words of the
// first message.
func TestREPLBannerResumeHintAndResumeByWords(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "AGENTS.md"), []byte("be brief\n"), 0o644))
	e.srv.Reply(llmtest.Text("first answer"))
	p := e.startRaw()
	p.expect("session  ")
	p.expect("(new; saved once the model answers)")
	p.expect("hooks    permissions, prune, skills, stack")
	p.expect("context  AGENTS.md")
	p.expect("/help for commands")
	p.line("the zebra question")
	p.expect("first answer")
	p.send("\x04")
	p.expect("to resume: lunar -c  (or lunar --session ")
	assert.Equal(t, 0, p.wait())
	files := e.sessionFiles()
	require.Len(t, files, 1)
	id := e.load(files[0]).ID()
	out := p.output()
	i := strings.Index(out, "--session ")
	require.GreaterOrEqual(t, i, 0)
	short := strings.TrimRight(strings.Fields(out[i+len("--session "):])[0], ")")
	assert.True(t, strings.HasPrefix(id, short) && len(short) >= 8, "%q abbreviates %s", short, id)

	// Resumed: the banner says so.
	p = e.startRaw("--session", short)
	p.expect(short + ", resumed (2 messages)")
	p.expect("/help for commands")
	p.send("\x04")
	p.expect("to resume: lunar -c")
	assert.Equal(t, 0, p.wait())

	e.srv.Reply(llmtest.Text("other answer"))
	e.srv.Reply(llmtest.Text("back to zebras"))
	p = e.start()
	p.line("an unrelated question")
	p.expect("other answer")
	p.line("/resume zebra")
	p.expect("resumed")
	p.line("and again")
	p.expect("back to zebras")
	p.quit()
	assert.Equal(t, []string{"the zebra question", "and again"}, userTexts(e.load(files[0])))

	p = e.startRaw("--no-session")
	p.expect("not saved (--no-session)")
	p.expect("/help for commands")
	p.quit()
	assert.NotContains(t, p.output(), "to resume")
}

// On a terminal, `sessions show` draws the markdown (here without
// colours: NO_COLOR keeps bold); piped, it is the markdown itself (see
// above).
func TestSessionsShowRendersOnATerminal(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("Some **bold** words.\n\n- one\n- two"))
	p := e.start()
	p.line("render me")
	p.expect("two")
	p.quit()
	id := e.onlySession().ID()

	p = e.startRaw("sessions", "show", id)
	p.expect("Some \x1b[1mbold\x1b[0m words.")
	assert.Equal(t, 0, p.wait())
	out := p.output()
	assert.Contains(t, out, "render me")
	assert.NotContains(t, out, "**bold**")
	assert.Contains(t, out, "• one")
	assert.NotContains(t, out, "- one")
}
