// End-to-end tests of the hooks in examples/: each file passes
// `lunar hooks check`, and each is installed as a user would (copied into
// $LUNAR_HOME/config/hooks.d) and run through the binary against the fake
// LLM server, checking its real effect: what reaches the model, what is
// stored in the session and on disk, which files change.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// exampleFiles lists examples/*.lua, absolute.
func exampleFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("examples", "*.lua"))
	require.NoError(t, err)
	for i, f := range files {
		files[i], err = filepath.Abs(f)
		require.NoError(t, err)
	}
	return files
}

// installExamples copies examples into home's global hooks folder, as
// the examples' install lines say.
func installExamples(t *testing.T, home string, names ...string) {
	t.Helper()
	dir := filepath.Join(home, "config", "hooks.d")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, n := range names {
		hkCopyFile(t, filepath.Join("examples", n), filepath.Join(dir, n))
	}
}

// gitEnv keeps the user's and the system's git configuration out of the
// tests' git commands and lunar's (a global status.showUntrackedFiles
// would change what the hooks see).
var gitEnv = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull}

// gitRepo makes dir a git repository with one commit of files.
func gitRepo(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for name, body := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	gitIn(t, dir, "init", "-q", "-b", "trunk")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "initial")
}

// gitIn runs git in dir and returns its output.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return string(out)
}

// customData returns the data of a session's custom entries of one type
// on the current path, in order.
func customData(t *testing.T, s *session.Session, customType string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range s.Path("") {
		if e.Type == session.TypeCustom && e.CustomType() == customType {
			var m map[string]any
			require.NoError(t, json.Unmarshal(e.Data(), &m))
			out = append(out, m)
		}
	}
	return out
}

// Every example loads cleanly on its own, opens with the comment the
// README promises and is listed there.
func TestExamplesHooksCheck(t *testing.T) {
	t.Parallel()
	files := exampleFiles(t)
	require.GreaterOrEqual(t, len(files), 9)
	readme, err := os.ReadFile(filepath.Join("examples", "README.md"))
	require.NoError(t, err)
	e := newE2E(t)
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			r := e.run("", "hooks", "check", f)
			require.Equal(t, 0, r.code, r.stdout+r.stderr)
			assert.NotContains(t, r.stdout, "warning:")
			assert.True(t, strings.HasSuffix(r.stdout, "\n  ok\n"), r.stdout)
			assert.Empty(t, r.stderr)

			src, err := os.ReadFile(f)
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(string(src), "-- "+name+": "), "the first line says what the file is")
			head := string(src[:min(len(src), 4000)])
			assert.Contains(t, head, "Install:")
			assert.Contains(t, head, "cp examples/"+name+" ~/.config/lunar/hooks.d/")
			assert.Contains(t, string(readme), "]("+name+")", "examples/README.md lists it")
		})
	}
}

func TestExampleProtectedPaths(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	installExamples(t, e.home, "protected-paths.lua")
	e.hkConfig(`{"hooks": {"protected-paths": {"extra_paths": ["deploy/prod.yml"], "protect_reads": true}}}`)
	files := map[string]string{
		".env":                 "SECRET=1\n",
		".git/config":          "[core]\n",
		"config/secrets/k.txt": "key\n",
		"deploy/prod.yml":      "replicas: 3\n",
		"README.md":            "hello\n",
	}
	for name, body := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(e.cwd, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(e.cwd, name), []byte(body), 0o644))
	}
	calls := []struct{ tool, args string }{
		{"write", `{"path":".env","content":"SECRET=2\n"}`},
		{"edit", `{"path":"./sub/../.git/config","oldText":"[core]","newText":"[hacked]"}`},
		{"write", `{"path":"config/secrets/k.txt","content":"other"}`},
		{"bash", `{"command":"echo SECRET=3 > .env"}`},
		{"bash", `{"command":"cd /tmp && rm -rf \"` + e.cwd + `/.git\""}`},
		{"read", `{"path":"deploy/prod.yml"}`},
		{"bash", `{"command":"git status --short > status.txt; echo ok"}`},
		{"write", `{"path":"src/app.go","content":"package app\n"}`},
		{"read", `{"path":"README.md"}`},
	}
	for _, c := range calls {
		e.srv.Reply(llmtest.ToolCall(c.tool, c.args))
	}
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "-p", "touch everything")
	require.Equal(t, 0, r.code, r.stderr)

	for name, body := range files {
		assert.Equal(t, body, e.file(name), "%s is untouched", name)
	}
	assert.Equal(t, "package app\n", e.file("src/app.go"), "other paths are written")
	assert.FileExists(t, filepath.Join(e.cwd, "status.txt"), "a bash command naming no protected path runs")

	refused := `true protected-paths: %s refused: %s is protected (rule %q). Do not try another way; ` +
		`tell the user what you wanted to change, so that they can do it themselves.`
	results := toolResults(t, e.onlySession())
	require.Len(t, results, len(calls))
	assert.Equal(t, []string{
		fmt.Sprintf(refused, "write", ".env", ".env"),
		fmt.Sprintf(refused, "edit", "./sub/../.git/config", ".git/"),
		fmt.Sprintf(refused, "write", "config/secrets/k.txt", "secrets/"),
		fmt.Sprintf(refused, "bash command", ".env", ".env"),
		fmt.Sprintf(refused, "bash command", e.cwd+"/.git", ".git/"),
		fmt.Sprintf(refused, "read", "deploy/prod.yml", "deploy/prod.yml"),
	}, results[:6])
	for _, res := range results[6:] {
		assert.True(t, strings.HasPrefix(res, "false "), res)
	}
	assert.Contains(t, string(e.srv.Requests()[1].Body), `.env is protected`, "the model is told")
}

func TestExampleTodo(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	installExamples(t, e.home, "todo.lua")
	run := func(args ...string) {
		t.Helper()
		r := e.run("", args...)
		require.Equal(t, 0, r.code, r.stderr)
	}
	e.srv.Reply(llmtest.ToolCall("todo", `{"action":"add","text":"write the tests"}`))
	e.srv.Reply(llmtest.Text("one"))
	run("-p", "plan the work")
	e.srv.Reply(llmtest.ToolCall("todo", `{"action":"add","text":"fix the bug"}`))
	e.srv.Reply(llmtest.ToolCall("todo", `{"action":"done","n":1}`))
	e.srv.Reply(llmtest.Text("two"))
	run("-c", "-p", "more work")

	// Resumed: the list is rebuilt from the session.
	e.srv.Reply(llmtest.ToolCall("todo", `{"action":"list"}`))
	e.srv.Reply(llmtest.Text("three"))
	run("-c", "-p", "where are we")
	s := e.onlySession()
	results := toolResults(t, s)
	require.Len(t, results, 4)
	assert.Equal(t, "false 1. [ ] write the tests", results[0])
	assert.Equal(t, "false 1. [x] write the tests\n2. [ ] fix the bug", results[3])
	reqs := e.srv.Requests()
	assert.Contains(t, systemPrompt(t, reqs[len(reqs)-1]), "\n\nOpen items on your todo list (the `todo` tool):\n2. fix the bug",
		"open items ride along in the system prompt")
	assert.NotContains(t, systemPrompt(t, reqs[0]), "Open items", "nothing before the first add")
	assert.Len(t, customData(t, s, "todo"), 3, "one entry per change; list changes nothing")

	// /branch back to the first answer: the list is as it was there.
	var one string
	for _, en := range s.Entries() {
		if en.Message != nil && en.Message.Role == session.RoleAssistant && en.Message.Text() == "one" {
			one = en.ID
		}
	}
	require.NotEmpty(t, one)
	e.srv.Reply(llmtest.ToolCall("todo", `{"action":"list"}`))
	e.srv.Reply(llmtest.Text("four"))
	p := e.start("-c")
	p.line("/todos")
	p.expect("1. [x] write the tests")
	p.expect("2. [ ] fix the bug")
	p.line("/branch " + one)
	p.expect("now at " + one)
	p.line("/todos")
	p.expect("1. [ ] write the tests")
	p.line("and now")
	p.expect("four")
	p.quit()

	s = e.onlySession()
	results = toolResults(t, s)
	assert.Equal(t, []string{"false 1. [ ] write the tests", "false 1. [ ] write the tests"}, results,
		"the branch's list: the first add only")
	assert.NotContains(t, systemPrompt(t, e.srv.Requests()[len(e.srv.Requests())-1]), "fix the bug")
}

func TestExampleClearGuard(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	installExamples(t, e.home, "clear-guard.lua")
	cfg := filepath.Join(e.home, "config", "config.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"hooks": {"clear-guard": {"min_turns": 2}}}`), 0o644))
	e.srv.SetDefault(llmtest.Text("answered"))
	p := e.start()
	p.line("first")
	p.expect("answered")
	p.line("/clear")
	p.expect("new session ") // one turn: below min_turns, no question
	p.line("second")
	p.expect("answered")
	p.line("third")
	p.expect("answered")
	p.line("/clear")
	p.expect("Clear this session? This session has 2 user turns. /resume brings it back later. [y/N]")
	p.line("n")
	p.expect("clear-guard: kept the session")
	p.line("/clear")
	p.expect("Clear this session?")
	p.line("y")
	p.expect("new session ")
	p.quit()
	files := e.sessionFiles()
	require.Len(t, files, 2, "the cleared sessions are on disk; the new empty one is not written")

	// Without a UI (a hook's ctx.new_session in one-shot) it is refused.
	fresh := filepath.Join(t.TempDir(), "fresh.lua")
	require.NoError(t, os.WriteFile(fresh, []byte(`
lunar.command("fresh", { handler = function(_, ctx)
  local ok, err = ctx.new_session()
  ctx.ui.notify("new_session: " .. tostring(ok) .. ", " .. tostring(err), "info")
end })`), 0o644))
	o := newE2E(t)
	o.home, o.cwd, o.srv = e.home, e.cwd, e.srv
	var second string
	for _, f := range files {
		if strings.Contains(strings.Join(userTexts(e.load(f)), " "), "third") {
			second = f
		}
	}
	require.NotEmpty(t, second)
	r := o.run("", "--session", second, "--hook", fresh, "-p", "/fresh")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "[info] new_session: nil, ")
	assert.Contains(t, r.stderr, "clear-guard: This session has 2 user turns. Not cleared without a confirmation (no terminal to ask).")
	assert.Len(t, e.sessionFiles(), 2)
}

func TestExampleModelLog(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	installExamples(t, e.home, "model-log.lua")
	e.srv.Reply(llmtest.Text("from mini"))
	p := e.start()
	p.line("/model openai/gpt-4.1-mini")
	p.expect("model: openai/gpt-4.1-mini")
	p.line("hello")
	p.expect("from mini")
	p.quit()

	s := e.onlySession()
	log, err := os.ReadFile(filepath.Join(e.home, "data", "hooks", "model-log", "models.log"))
	require.NoError(t, err)
	assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ  openai/gpt-4\.1 -> openai/gpt-4\.1-mini  \(thinking off\)  session `+
		regexp.QuoteMeta(s.ID()+"  "+e.cwd)+"\n$", string(log))
	assert.Equal(t, []map[string]any{{"from": "openai/gpt-4.1", "to": "openai/gpt-4.1-mini", "thinking_level": "off"}},
		customData(t, s, "model-log"))
}

func TestExampleSystemPrompt(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.env = append(e.env, gitEnv...)
	gitRepo(t, e.cwd, map[string]string{"main.go": "package main\n"})
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "main.go"), []byte("package main // changed\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "CONVENTIONS.md"), []byte("Use tabs.\nNo globals.\n"), 0o644))
	installExamples(t, e.home, "system-prompt.lua")
	conventions := "\n\n## Project conventions \\(CONVENTIONS\\.md\\)\nUse tabs\\.\nNo globals\\.$"

	// By default only what changes rarely: the day and the branch.
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo hi"}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "-p", "hi")
	require.Equal(t, 0, r.code, r.stderr)
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	for _, req := range reqs {
		assert.Regexp(t, `\n\n## Environment\nToday: [A-Z][a-z]+day, \d{4}-\d\d-\d\d \(UTC offset [+-]\d{4}\)\nGit: branch trunk`+conventions, systemPrompt(t, req))
	}
	assert.Equal(t, systemPrompt(t, reqs[0]), systemPrompt(t, reqs[1]), "the same for every call of a prompt")

	// The time and the work tree's state, when asked for.
	e.hkConfig(`{"hooks": {"system-prompt": {"time": true, "git_status": true}}}`)
	e.srv.Reply(llmtest.Text("done"))
	r = e.run("", "-p", "hi")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `\n\n## Environment\nLocal time: [A-Z][a-z]+day, \d{4}-\d\d-\d\d \d\d:\d\d \(UTC offset [+-]\d{4}\)\n`+
		`Git: branch trunk, 2 changed files`+conventions, systemPrompt(t, e.srv.Requests()[2]))
}

func TestExampleCustomCompaction(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	installExamples(t, e.home, "custom-compaction.lua")
	e.hkConfig(`{"compaction": {"keep_recent_tokens": 50}}`)
	e.threeTurns()
	n := len(e.srv.Requests())

	e.srv.Reply(llmtest.Text("## Goal\ncheap summary"))
	r := e.run("", "-c", "-p", "/compact keep the numbers")
	require.Equal(t, 0, r.code, r.stderr)
	reqs := e.srv.Requests()
	require.Len(t, reqs, n+1)
	sum := reqs[n]
	assert.Equal(t, "gpt-4.1-mini", sum.Field("model"), "the cheaper model")
	assert.Equal(t, 4000.0, sum.Field("max_completion_tokens"))
	assert.Contains(t, systemPrompt(t, sum), "You write handover notes")
	prompt := lastUserText(t, sum)
	assert.True(t, strings.HasPrefix(prompt, "<conversation>\n[User]: "+question(1)+"\n\n[Assistant]: answer 1\n\n[User]: "+question(2)+
		"\n\n[Assistant]: answer 2\n</conversation>\n\n"), prompt)
	assert.Contains(t, prompt, "## Next steps")
	assert.True(t, strings.HasSuffix(prompt, "\n\nPay special attention to: keep the numbers"), prompt)

	cs := compactions(e.onlySession())
	require.Len(t, cs, 1)
	assert.Equal(t, "## Goal\ncheap summary", cs[0].Summary())
	assert.True(t, cs[0].FromHook())
	assert.JSONEq(t, `{"model": "openai/gpt-4.1-mini", "by": "custom-compaction"}`, string(cs[0].Details()))

	// The next compaction updates the notes; a model that fails hands the
	// summary back to lunar (the current model, its own prompt).
	e.srv.Reply(llmtest.Text("five"))
	r = e.run("", "-c", "-p", question(5))
	require.Equal(t, 0, r.code, r.stderr)
	e.srv.Reply(llmtest.Text("## Goal\nupdated"))
	r = e.run("", "-c", "-p", "/compact")
	require.Equal(t, 0, r.code, r.stderr)
	upd := e.srv.Requests()[len(e.srv.Requests())-1]
	assert.Equal(t, "gpt-4.1-mini", upd.Field("model"))
	assert.Contains(t, lastUserText(t, upd), "<previous-notes>\n## Goal\ncheap summary\n</previous-notes>")

	e.hkConfig(`{"compaction": {"keep_recent_tokens": 50}, "hooks": {"custom-compaction": {"model": "nosuch/model-x"}}}`)
	e.srv.Reply(llmtest.Text("six"))
	r = e.run("", "-c", "-p", question(6))
	require.Equal(t, 0, r.code, r.stderr)
	e.srv.Reply(llmtest.Text("## Goal\nby lunar"))
	r = e.run("", "-c", "-p", "/compact")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "custom-compaction: nosuch/model-x: ")
	assert.Contains(t, r.stderr, "lunar summarises instead")
	last := e.srv.Requests()[len(e.srv.Requests())-1]
	assert.Equal(t, "gpt-4.1", last.Field("model"))
	cs = compactions(e.onlySession())
	require.Len(t, cs, 3)
	assert.Equal(t, "## Goal\nby lunar", cs[2].Summary())
	assert.False(t, cs[2].FromHook())
}

func TestExampleGeminiAuth(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("the fake token command is a shell script")
	}
	tests := []struct {
		name, config, wantAuth, wantModel, wantProject string
		env                                            []string
	}{
		{name: "token command", config: `"token_command": [%q, "auth", "print-access-token"], "headers": {"X-Team": "ml"}`,
			wantAuth: "Bearer ya29.token-1", wantModel: "gemini-2.5-flash"},
		{name: "vertex", config: `"project": "proj-1", "location": "us-central1", "token_command": [%q]`,
			wantAuth: "Bearer ya29.token-1", wantModel: "google/gemini-2.5-flash", wantProject: "proj-1"},
		{name: "env var", config: `"api_key_env": "MY_GEMINI_KEY"`, env: []string{"MY_GEMINI_KEY=key-from-env"},
			wantAuth: "Bearer key-from-env", wantModel: "gemini-2.5-flash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newE2E(t)
			installExamples(t, e.home, "gemini-auth.lua")
			bin := t.TempDir()
			script := filepath.Join(bin, "fake-gcloud")
			require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\necho run >> \""+bin+"/runs\"\n"+
				"echo \"ya29.token-$(wc -l < \""+bin+"/runs\" | tr -d ' ')\"\n"), 0o755))
			conf := tt.config
			if strings.Contains(conf, "%q") {
				conf = fmt.Sprintf(conf, script)
			}
			e.hkConfig(`{"hooks": {"gemini-auth": {"base_url": "` + e.srv.URL() + `", ` + conf + `}}}`)
			e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo hi"}`))
			e.srv.Reply(llmtest.Text("done"))
			cmd := exec.Command(lunarBin, "--model", "google/gemini-2.5-flash", "--yes", "-p", "go")
			cmd.Dir = e.cwd
			cmd.Env = append(os.Environ(), "LUNAR_HOME="+e.home, "NO_COLOR=1", "LUNAR_MAX_RETRIES=0", "GEMINI_API_KEY=")
			cmd.Env = append(cmd.Env, tt.env...)
			r := e.exec(cmd)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, "done\n", r.stdout)
			reqs := e.srv.Requests()
			require.Len(t, reqs, 2)
			for _, req := range reqs {
				assert.Equal(t, tt.wantAuth, req.Header.Get("Authorization"))
				assert.Equal(t, tt.wantModel, req.Field("model"))
				assert.Equal(t, tt.wantProject, req.Header.Get("X-Goog-User-Project"))
			}
			if strings.Contains(tt.config, "X-Team") {
				assert.Equal(t, "ml", reqs[0].Header.Get("X-Team"))
			}
			runs, _ := os.ReadFile(filepath.Join(bin, "runs"))
			if strings.Contains(tt.config, "token_command") {
				assert.Equal(t, "run\n", string(runs), "the token is cached: the command ran once for two model calls")
			}
			raw, err := os.ReadFile(e.onlySession().File())
			require.NoError(t, err)
			assert.NotContains(t, string(raw), strings.TrimPrefix(tt.wantAuth, "Bearer "), "credentials never reach the session file")
		})
	}
}

func TestExampleGitCheckpoint(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.env = append(e.env, gitEnv...)
	gitRepo(t, e.cwd, map[string]string{"a.txt": "v1\n", ".gitignore": "build/\n"})
	require.NoError(t, os.MkdirAll(filepath.Join(e.cwd, "build"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "build", "out"), []byte("ignored\n"), 0o644))
	installExamples(t, e.home, "git-checkpoint.lua")
	run := func(args ...string) result {
		t.Helper()
		r := e.run("", args...)
		require.Equal(t, 0, r.code, r.stderr)
		return r
	}
	e.srv.Reply(llmtest.ToolCall("write", `{"path":"a.txt","content":"v2\n"}`))
	e.srv.Reply(llmtest.ToolCall("write", `{"path":"new.txt","content":"fresh\n"}`))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo rebuilt > build/out"}`))
	e.srv.Reply(llmtest.Text("changed"))
	run("-p", "change   things")
	assert.Equal(t, "v2\n", e.file("a.txt"))
	userStatus := gitIn(t, e.cwd, "status", "--porcelain")

	shadows, err := filepath.Glob(filepath.Join(e.home, "data", "hooks", "git-checkpoint", "*.git"))
	require.NoError(t, err)
	require.Len(t, shadows, 1)
	refs := gitIn(t, e.cwd, "--git-dir="+shadows[0], "for-each-ref", "--format=%(refname)", "refs/lunar/checkpoints")
	assert.Len(t, strings.Fields(refs), 1, "one checkpoint, before the prompt")
	assert.Empty(t, gitIn(t, e.cwd, "for-each-ref", "refs/lunar"), "the user's repository has no lunar refs")

	r := run("-c", "-p", "/restore")
	assert.Regexp(t, `\[info\] checkpoints \(newest first; /restore N\):\n1\. \d\d:\d\d:\d\d  before: change things\n`, r.stderr)

	r = run("-c", "-p", "/restore 1")
	assert.Contains(t, r.stderr, "restored the files to checkpoint 1 (before: change things); /restore 1 undoes it")
	assert.Equal(t, "v1\n", e.file("a.txt"), "the file is back")
	assert.NoFileExists(t, filepath.Join(e.cwd, "new.txt"), "a file created since is gone")
	assert.Equal(t, "rebuilt\n", e.file("build/out"), "ignored files are left alone")
	assert.Empty(t, gitIn(t, e.cwd, "status", "--porcelain"), "the work tree is as committed")

	run("-c", "-p", "/restore 1")
	assert.Equal(t, "v2\n", e.file("a.txt"), "/restore 1 undoes the restore")
	assert.Equal(t, "fresh\n", e.file("new.txt"))
	assert.Equal(t, userStatus, gitIn(t, e.cwd, "status", "--porcelain"), "the user's index is untouched")
	assert.Empty(t, gitIn(t, e.cwd, "stash", "list"))

	// A prompt that finds the files as in the latest checkpoint adds none.
	e.srv.Reply(llmtest.Text("ok"))
	run("-c", "-p", "first look")
	before := len(customData(t, e.onlySession(), "git-checkpoint"))
	e.srv.Reply(llmtest.Text("ok"))
	run("-c", "-p", "second look")
	assert.Len(t, customData(t, e.onlySession(), "git-checkpoint"), before)

	r = run("-c", "-p", "/restore 99")
	assert.Contains(t, r.stderr, "git-checkpoint: no checkpoint 99 (there are ")
}

func TestExampleMemoryLocal(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	installExamples(t, e.home, "memory.lua")
	e.hkConfig(`{"compaction": {"keep_recent_tokens": 50}}`)
	run := func(args ...string) result {
		t.Helper()
		r := e.run("", args...)
		require.Equal(t, 0, r.code, r.stderr)
		return r
	}
	lastReq := func() llmtest.Request {
		reqs := e.srv.Requests()
		return reqs[len(reqs)-1]
	}
	store := filepath.Join(e.home, "data", "hooks", "memory", "memory.json")
	facts := func() []map[string]any {
		t.Helper()
		raw, err := os.ReadFile(store)
		require.NoError(t, err)
		var data struct {
			Facts []map[string]any `json:"facts"`
		}
		require.NoError(t, json.Unmarshal(raw, &data))
		return data.Facts
	}

	// The tool stores a fact; nothing to inject yet.
	e.srv.Reply(llmtest.ToolCall("memory", `{"action":"add","content":"The user prefers tabs over spaces.","scope":"user"}`))
	e.srv.Reply(llmtest.Text("noted"))
	run("-p", "remember my indentation style")
	assert.Equal(t, "remember my indentation style", lastUserText(t, e.srv.Requests()[0]))
	assert.Equal(t, []string{"false Remembered as m1."}, toolResults(t, e.onlySession()))
	require.Len(t, facts(), 1)
	assert.Equal(t, "The user prefers tabs over spaces.", facts()[0]["content"])
	assert.Equal(t, "user", facts()[0]["scope"])

	// A new session: the fact comes with the first prompt, once.
	for _, f := range e.sessionFiles() {
		require.NoError(t, os.Remove(f))
	}
	block := "\n\n<memory>\nFacts remembered from earlier sessions (memory tool); use them where relevant:\n" +
		"- [m1] The user prefers tabs over spaces.\n</memory>"
	e.srv.Reply(llmtest.Text("use tabs"))
	run("-p", "How should I indent this file?")
	assert.Equal(t, "How should I indent this file?"+block, lastUserText(t, lastReq()))
	assert.Equal(t, []map[string]any{{"injected": []any{"m1"}}}, customData(t, e.onlySession(), "memory"))
	path := e.onlySession().Path("")
	assert.Equal(t, session.TypeCustom, path[len(path)-1].Type, "recorded after the prompt and its answer")

	e.srv.Reply(llmtest.ToolCall("memory", `{"action":"search","query":"TABS please"}`))
	e.srv.Reply(llmtest.Text("found"))
	run("-c", "-p", "and tabs in YAML?")
	reqs := e.srv.Requests()
	assert.Equal(t, "and tabs in YAML?", lastUserText(t, reqs[len(reqs)-2]), "already sent on this branch (also after resume)")
	assert.Equal(t, []string{"false [m1] The user prefers tabs over spaces."}, toolResults(t, e.onlySession()))

	// A prompt sent again with its old block (a /branch back to it puts
	// the stored text in the prompt) gets the block once, fresh.
	for _, f := range e.sessionFiles() {
		require.NoError(t, os.Remove(f))
	}
	e.srv.Reply(llmtest.Text("again"))
	run("-p", "How should I indent this file?"+strings.Replace(block, "[m1]", "[m0]", 1))
	assert.Equal(t, "How should I indent this file?"+block, lastUserText(t, lastReq()))
	e.srv.Reply(llmtest.Text("tabs"))
	run("-c", "-p", "tabs?")

	// Past compact_ratio (0.8 of gpt-4.1's 1,047,576 tokens, below lunar's
	// own threshold): turn.end asks, the compaction runs at the turn
	// boundary (here right after the reply, its last turn), and the
	// summary is remembered.
	n := len(e.srv.Requests())
	e.srv.Reply(llmtest.Text("big answer"), llmtest.Usage(900000, 10, 0, 0))
	e.srv.Reply(llmtest.Text("## Goal\nIndent with tabs."))
	r := run("-c", "-p", question(4))
	assert.Contains(t, r.stderr, "[info] memory: context at 85% of the window: compacting before the next model call")
	require.Len(t, e.srv.Requests(), n+2)
	assert.Contains(t, lastUserText(t, e.srv.Requests()[n+1]), "<conversation>")
	cs := compactions(e.onlySession())
	require.Len(t, cs, 1)
	assert.Equal(t, "## Goal\nIndent with tabs.", cs[0].Summary())
	all := facts()
	require.Len(t, all, 2)
	assert.Equal(t, "compaction", all[1]["source"])
	assert.Equal(t, e.cwd, all[1]["project"])
	assert.Contains(t, all[1]["content"], "## Goal\nIndent with tabs.")

	// Forget.
	e.srv.Reply(llmtest.ToolCall("memory", `{"action":"forget","id":"m1"}`))
	e.srv.Reply(llmtest.Text("gone"))
	run("-c", "-p", "forget the tabs")
	assert.Len(t, facts(), 1)

	// A store it cannot read is reported, named, and never overwritten.
	require.NoError(t, os.WriteFile(store, []byte("{not json"), 0o644))
	e.srv.Reply(llmtest.ToolCall("memory", `{"action":"add","content":"More."}`))
	e.srv.Reply(llmtest.Text("failed"))
	r = run("-c", "-p", "remember more")
	assert.Contains(t, r.stderr, "memory: "+store+": not a memory file (", "chat.message reports it")
	results := toolResults(t, e.onlySession())
	assert.Contains(t, results[len(results)-1], "true memory: "+store+": not a memory file (")
	raw, err := os.ReadFile(store)
	require.NoError(t, err)
	assert.Equal(t, "{not json", string(raw))
}

func TestExampleMemoryHTTP(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	type call struct {
		what string // "METHOD path auth"
		body map[string]any
	}
	var got []call
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		var m map[string]any
		_ = json.Unmarshal(body, &m)
		got = append(got, call{r.Method + " " + r.URL.Path + " " + r.Header.Get("Authorization"), m})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/search":
			io.WriteString(w, `{"results": [{"id": "r7", "content": "Deploys go through make release.", "score": 0.9}]}`)
		case "/api/memories":
			io.WriteString(w, `{"id": "r8"}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(api.Close)

	e := newE2E(t)
	installExamples(t, e.home, "memory.lua")
	e.hkConfig(`{"hooks": {"memory": {"store": "http", "url": "` + api.URL + `/api/", "token_env": "MEM_TOKEN", "max_inject": 2}}}`)
	e.env = append(e.env, "MEM_TOKEN=s3cret")
	e.srv.Reply(llmtest.ToolCall("memory", `{"action":"add","content":"Staging is at staging.example."}`))
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "-p", "how do I deploy?")
	require.Equal(t, 0, r.code, r.stderr)

	assert.Equal(t, "how do I deploy?\n\n<memory>\nFacts remembered from earlier sessions (memory tool); use them where relevant:\n"+
		"- [r7] Deploys go through make release.\n</memory>", lastUserText(t, e.srv.Requests()[0]))
	assert.Equal(t, []string{"false Remembered as r8."}, toolResults(t, e.onlySession()))
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 3, "search for the prompt, the latest facts (first prompt), the add")
	assert.Equal(t, call{"POST /api/search Bearer s3cret", map[string]any{"query": "how do I deploy?", "project": e.cwd, "limit": 4.0}}, got[0])
	assert.Equal(t, call{"POST /api/search Bearer s3cret", map[string]any{"query": "", "project": e.cwd, "limit": 4.0}}, got[1])
	assert.Equal(t, call{"POST /api/memories Bearer s3cret", map[string]any{"content": "Staging is at staging.example.", "scope": "project",
		"project": e.cwd, "source": "tool"}}, got[2])
}

// test-runner.lua: /test's result is a custom message the REPL prints
// through the hook's renderer (one line, the failing lines under it) and
// the model reads in full; /test fix on a failure starts a turn on it.
func TestExampleTestRunner(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	installExamples(t, e.home, "test-runner.lua")
	cfg := filepath.Join(e.home, "config", "config.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"hooks": {"test-runner": {"command": ["sh", "run-tests.sh"]}}}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "run-tests.sh"), []byte(
		"echo 'ok   pkg/one'\nif [ -e failing ]; then echo '--- FAIL: TestParse (0.00s)'; echo 'FAIL pkg/two'; exit 3; fi\n"), 0o644))
	e.srv.Reply(llmtest.Text("fixing TestParse"))
	p := e.start()
	p.line("/test")
	p.expect("✓ sh run-tests.sh passed in ")
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "failing"), nil, 0o644))
	p.line("/test fix")
	p.expect("✗ sh run-tests.sh failed (exit 3) in ")
	p.expect("  --- FAIL: TestParse (0.00s)\r\n  FAIL pkg/two\r\n")
	p.expect("fixing TestParse")
	p.quit()
	assert.NotContains(t, p.output(), "[test-result]", "the renderer, not the default rendering")

	reqs := e.srv.Requests()
	require.Len(t, reqs, 1, "only /test fix on a failure starts a turn")
	msgs := reqMessages(t, reqs[0])
	require.GreaterOrEqual(t, len(msgs), 2)
	joined := ""
	for _, m := range msgs {
		joined += contentText(m.Content) + "\n"
	}
	assert.Contains(t, joined, "I ran the tests: `sh run-tests.sh` passed (exit code 0).\n\nOutput:\n```\nok   pkg/one\n```")
	assert.Contains(t, joined, "I ran the tests: `sh run-tests.sh` failed (exit code 3).\n\nOutput:\n```\nok   pkg/one\n--- FAIL: TestParse (0.00s)\nFAIL pkg/two\n```\n\nFix the failing tests.")

	var details []map[string]any
	for _, en := range e.onlySession().Path("") {
		if en.Type == session.TypeCustomMessage && en.CustomType() == "test-result" {
			assert.True(t, en.Display())
			var d map[string]any
			require.NoError(t, json.Unmarshal(en.Details(), &d))
			details = append(details, d)
		}
	}
	require.Len(t, details, 2)
	assert.Equal(t, true, details[0]["passed"])
	assert.Equal(t, false, details[1]["passed"])
	assert.Equal(t, float64(3), details[1]["code"])
	assert.Equal(t, "sh run-tests.sh", details[1]["command"])
}
