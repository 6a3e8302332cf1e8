// The bundled permission policy (hooks.d/permissions.lua) through the
// binary: one-shot refusals and --yes, rules and modes from config.json,
// what a project may and may not change, disabled_hooks, lunar.config()
// for other hooks, and the REPL's dialog and /permissions.
package main

import (
	"encoding/json"
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

// toolResults are the session's tool results as "error? text" lines.
func toolResults(t *testing.T, s *session.Session) []string {
	t.Helper()
	var out []string
	for _, m := range s.BuildContext().Messages {
		if m.Message.Role == session.RoleToolResult {
			out = append(out, fmt.Sprintf("%v %s", m.Message.IsError, strings.TrimSpace(m.Message.Text())))
		}
	}
	return out
}

// mutatingCalls queues a bash, a write and an edit call, then an answer.
func mutatingCalls(e *e2e) {
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo ran > ran.txt"}`))
	e.srv.Reply(llmtest.ToolCall("write", `{"path":"new.txt","content":"new\n"}`))
	e.srv.Reply(llmtest.ToolCall("edit", `{"path":"old.txt","oldText":"old","newText":"edited"}`))
	e.srv.Reply(llmtest.Text("done"))
}

func (e *e2e) file(name string) string {
	data, err := os.ReadFile(filepath.Join(e.cwd, name))
	if err != nil {
		return "<missing>"
	}
	return string(data)
}

const noUILine = `[warning] permissions: bash refused: mode "ask" and no one to ask in this run; pass --yes, or set "permissions": {"mode": "auto"} (or an "allow" rule) in config.json` + "\n"

// One-shot without --yes: write, edit and bash are refused, the model is
// told why, stderr has one line naming the settings, and nothing in piped
// stdin counts as an answer.
func TestPermissionsOneShotRefuses(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"text", "json"} {
		t.Run(mode, func(t *testing.T) {
			e := newE2E(t)
			e.ask = true
			writeFile(t, filepath.Join(e.cwd, "old.txt"), "old\n")
			mutatingCalls(e)
			r := e.run("y\nyes\nalways\n", "--mode", mode, "-p", "change things")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, "<missing>", e.file("ran.txt"))
			assert.Equal(t, "<missing>", e.file("new.txt"))
			assert.Equal(t, "old\n", e.file("old.txt"))
			results := toolResults(t, e.onlySession())
			require.Len(t, results, 3)
			for i, tool := range []string{"bash", "write", "edit"} {
				assert.Equal(t, "true Permission denied: "+tool+" needs the user's approval and this run cannot ask (one-shot or JSON mode). "+
					"Do not retry it; tell the user. They can allow it with --yes, or in config.json (\"permissions\").", results[i])
			}
			if mode == "text" {
				assert.Equal(t, "done\n", r.stdout)
				assert.Equal(t, 1, strings.Count(r.stderr, "[warning] permissions:"), r.stderr)
				assert.Contains(t, r.stderr, noUILine)
			} else {
				assert.Equal(t, noUILine, r.stderr, "stdout stays pure JSONL: the line is on stderr")
				for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
					assert.True(t, strings.HasPrefix(line, "{"), line)
				}
			}
		})
	}
}

func TestPermissionsYesAndAuto(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"--yes", "config"} {
		t.Run(how, func(t *testing.T) {
			e := newE2E(t)
			e.ask = true
			args := []string{"-p", "change things"}
			if how == "--yes" {
				args = append(args, "--yes")
			} else {
				e.hkConfig(`{"permissions": {"mode": "auto"}}`)
			}
			writeFile(t, filepath.Join(e.cwd, "old.txt"), "old\n")
			mutatingCalls(e)
			r := e.run("", args...)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, "ran\n", e.file("ran.txt"))
			assert.Equal(t, "new\n", e.file("new.txt"))
			assert.Equal(t, "edited\n", e.file("old.txt"))
			assert.NotContains(t, r.stderr, "permissions")
			for _, res := range toolResults(t, e.onlySession()) {
				assert.True(t, strings.HasPrefix(res, "false "), res)
			}
		})
	}
}

func TestPermissionsRulesAndReadOnly(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.ask = true
	e.hkConfig(`{"permissions": {"allow": ["bash: echo *"], "deny": ["bash: rm *"]}}`)
	writeFile(t, filepath.Join(e.cwd, "keep.txt"), "keep\n")
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo allowed > /dev/null && echo ok"}`))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo x; rm keep.txt"}`))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo $(cat keep.txt)"}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	results := toolResults(t, e.onlySession())
	require.Len(t, results, 3)
	assert.Equal(t, "false ok", results[0], "an allow rule runs it without asking")
	assert.Contains(t, results[1], `true Permission denied: this bash call matches the deny rule "bash: rm *"`)
	assert.Contains(t, results[2], "needs the user's approval", "a substitution is never covered by an allow rule")
	assert.Equal(t, "keep\n", e.file("keep.txt"))

	// Deny rules hold with --yes too.
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"rm keep.txt"}`))
	e.srv.Reply(llmtest.Text("done"))
	r = e.run("", "--yes", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "keep\n", e.file("keep.txt"))

	// read-only: reads run, the rest is refused, --yes lifts it.
	e.hkConfig(`{"permissions": {"mode": "read-only"}}`)
	e.srv.Reply(llmtest.ToolCall("read", `{"path":"keep.txt"}`))
	e.srv.Reply(llmtest.ToolCall("write", `{"path":"keep.txt","content":"gone"}`))
	e.srv.Reply(llmtest.Text("done"))
	r = e.run("", "--no-session", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "keep\n", e.file("keep.txt"))
	body := string(e.srv.Requests()[len(e.srv.Requests())-1].Body)
	assert.Contains(t, body, "lunar is in read-only mode")
	assert.Contains(t, r.stderr, "✗ Permission denied: lunar is in read-only mode")

	e.srv.Reply(llmtest.ToolCall("write", `{"path":"keep.txt","content":"changed\n"}`))
	e.srv.Reply(llmtest.Text("done"))
	r = e.run("", "--no-session", "--yes", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "changed\n", e.file("keep.txt"))
}

// A trusted project may tighten the policy (a stricter mode, more deny and
// ask rules) but not loosen it (auto, allow rules, turning it off).
func TestPermissionsProjectMayOnlyTighten(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.ask = true
	project := filepath.Join(e.cwd, ".lunar", "config.json")
	writeFile(t, project, `{
  "permissions": {"mode": "auto", "allow": ["bash"]},
  "disabled_hooks": ["permissions"]
}`)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo hi > hi.txt"}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "--trust", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "<missing>", e.file("hi.txt"))
	assert.Contains(t, r.stderr, fmt.Sprintf(`config %s:2: permissions.mode "auto" ignored: a project may make the permission policy stricter than yours ("ask"), not looser`, project))
	assert.Contains(t, r.stderr, fmt.Sprintf(`config %s:2: permissions.allow ignored: a project may not allow tools without asking`, project))
	assert.Contains(t, r.stderr, fmt.Sprintf(`config %s:3: disabled_hooks: "permissions" ignored: a project may not turn off the permission policy`, project))
	assert.Contains(t, r.stderr, noUILine)

	// Tightening: read-only and a deny rule apply over the user's auto.
	e.hkConfig(`{"permissions": {"mode": "auto"}}`)
	writeFile(t, project, `{"permissions": {"mode": "read-only", "deny": ["read: secret*"]}}`)
	e.srv.Reply(llmtest.ToolCall("write", `{"path":"hi.txt","content":"hi\n"}`))
	e.srv.Reply(llmtest.ToolCall("read", `{"path":"secret.txt"}`))
	e.srv.Reply(llmtest.Text("done"))
	r = e.run("", "--trust", "--no-session", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "<missing>", e.file("hi.txt"))
	assert.Contains(t, r.stderr, "✗ Permission denied: lunar is in read-only mode")
	assert.Contains(t, r.stderr, `✗ Permission denied: this read call matches the deny rule "read: secret*"`)

	// Untrusted, the project changes nothing.
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo hi > hi.txt"}`))
	e.srv.Reply(llmtest.Text("done"))
	r = e.run("", "--no-session", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "hi\n", e.file("hi.txt"))
}

// disabled_hooks in the user's own config turns the policy off: pi's
// behaviour, tools run without asking.
func TestPermissionsDisabledHook(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.ask = true
	e.hkConfig(`{"disabled_hooks": ["permissions"], "permissions": {"mode": "read-only"}}`)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo hi > hi.txt"}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "hi\n", e.file("hi.txt"))
	assert.NotContains(t, r.stderr, "permissions")

	r = e.run("", "hooks")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stdout, "permissions.lua")
}

func TestPermissionsConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, config, want string
	}{
		{"bad mode", `{
  "permissions": {"mode": "yolo"}
}`, `config.json:2: key "permissions.mode": "yolo" is not one of ask|auto|read-only`},
		{"misspelt key", `{
  "permissions": {
    "mdoe": "ask"
  }
}`, `config.json:3: key "permissions.mdoe": unknown key (did you mean "mode"?)`},
		{"wrong type", `{"permissions": {"allow": "bash"}}`, `config.json:1: key "permissions.allow": expected []string, got string`},
		{"bad rule", `{"permissions": {"deny": ["rm -rf"]}}`, `config.json:1: key "permissions.deny": "rm -rf" is not a rule`},
		{"hooks.permissions", `{"hooks": {"permissions": {}}}`, `config.json:1: key "hooks.permissions": the permission policy's settings are the top-level "permissions" key`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newE2E(t)
			e.hkConfig(tt.config)
			r := e.run("", "-p", "hi")
			assert.Equal(t, 1, r.code)
			assert.Contains(t, r.stderr, filepath.Join(e.home, "config")+string(filepath.Separator)+tt.want)
			assert.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
		})
	}
}

// Any hook reads its own section of config.json with lunar.config(); a
// project adds to the sections of its own and bundled hooks, not of the
// user's.
func TestHookConfigSections(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	hook := func(name string) string {
		return `lunar.on("chat.system.transform", function(ev)
  return { system_prompt = ev.system_prompt .. " ` + name + `=" .. require("json").encode(lunar.config()) }
end)`
	}
	writeFile(t, filepath.Join(e.home, "config", "hooks.d", "10-style.lua"), hook("style"))
	writeFile(t, filepath.Join(e.cwd, ".lunar", "hooks.d", "20-proj.lua"), hook("proj"))
	e.hkConfig(`{"hooks": {"10-style": {"tone": "terse", "max": 3}}}`)
	writeFile(t, filepath.Join(e.cwd, ".lunar", "config.json"), `{"hooks": {
  "10-style": {"tone": "chatty"},
  "20-proj": {"n": 1}
}}`)
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "--trust", "--no-session", "-p", "hi")
	require.Equal(t, 0, r.code, r.stderr)
	sys := systemPrompt(t, e.srv.Requests()[0])
	assert.True(t, strings.HasSuffix(sys, ` style={"tone":"terse","max":3} proj={"n":1}`), sys)
	assert.Contains(t, r.stderr, filepath.Join(e.cwd, ".lunar", "config.json")+`:2: hooks.10-style ignored: a project may not reconfigure your own hooks`)
}

// The REPL asks: y runs the call, an empty answer (N) refuses it, and
// "always" allows such commands for the rest of the session; edits show
// their diff.
func TestREPLPermissionDialog(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.ask = true
	writeFile(t, filepath.Join(e.cwd, "notes.txt"), "one\ntwo\nthree\n")
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo approved"}`))
	e.srv.Reply(llmtest.Text("first done"))
	e.srv.Reply(llmtest.ToolCall("edit", `{"path":"notes.txt","oldText":"two","newText":"TWO"}`))
	e.srv.Reply(llmtest.Text("second done"))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"go version"}`))
	e.srv.Reply(llmtest.Text("third done"))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"go version && go version"}`))
	e.srv.Reply(llmtest.Text("fourth done"))
	p := e.start()

	p.line("run echo")
	p.expect("Allow this bash command?")
	p.expect("  $ echo approved")
	p.expect("1) yes")
	p.expect("2) no")
	p.expect("3) yes, and allow bash: echo * for the rest of this session")
	p.expect("choose 1-3")
	p.line("1")
	p.expect("approved")
	p.expect("first done")

	p.line("edit it")
	p.expect("Allow this edit of notes.txt?")
	p.expect("  @@ line 2 @@\r\n  -two\r\n  +TWO")
	p.expect("choose 1-3")
	p.line("")
	p.expect("The user refused this edit call")
	p.expect("second done")

	p.line("go version")
	p.expect("  $ go version")
	p.expect("3) yes, and allow bash: go version * for the rest of this session")
	p.expect("choose 1-3") // keys typed before the question asks are not its answer
	p.line("3")
	p.expect("third done")
	p.line("go version twice")
	p.expect("→ bash  go version && go version")
	p.expect("fourth done")
	p.quit()

	assert.NotContains(t, p.output(), "$ go version && go version", "allowed by the always answer")
	assert.Equal(t, "one\ntwo\nthree\n", readFileString(t, filepath.Join(e.cwd, "notes.txt")))
	results := toolResults(t, e.onlySession())
	require.Len(t, results, 4)
	assert.Equal(t, "false approved", results[0])
	assert.Equal(t, "true The user refused this edit call. Do not retry it; ask the user how to continue.", results[1])
}

func TestREPLPermissionsCommand(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.ask = true
	writeFile(t, filepath.Join(e.home, "config", "config.json"), `{"permissions": {"allow": ["bash: ls *"], "deny": ["bash: rm *"]}}`)
	e.srv.Reply(llmtest.ToolCall("write", `{"path":"refused.txt","content":"x"}`))
	e.srv.Reply(llmtest.Text("was refused"))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo auto"}`))
	e.srv.Reply(llmtest.Text("ran"))
	p := e.start()
	p.line("/permissions")
	p.expect("permissions: mode ask (asks before write, edit, bash and MCP tools; reads and hook tools run)")
	p.expect("deny:  bash: rm *")
	p.expect("allow: bash: ls *")
	p.expect("  sandbox: ") // landlock ABI n: …, or why there is none

	p.line("/permissions mode read-only")
	p.expect("permissions: mode read-only (refuses write") // and edit; bash sandboxed, or bash too
	p.line("go")
	p.expect("Permission denied: lunar is in read-only mode")
	p.expect("was refused")

	p.line("/permissions mode auto")
	p.expect("permissions: mode auto (runs every tool without asking); ask in config")
	p.line("again")
	p.expect("ran")
	p.line("/permissions deny bash: curl *")
	p.expect("deny:  bash: curl *   (this session)")
	p.quit()
	assert.NotContains(t, p.output(), "Allow this bash command?")
}

func readFileString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// Issue #20 item 3, through the binary: under allow rules, each command
// below ran something no rule covers (a file "pwned" appeared). Now each
// asks, which one-shot refuses.
func TestPermissionsShellBypassesOneShot(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.ask = true
	e.hkConfig(`{"permissions": {"allow": ["bash: echo *", "bash: find *", "bash: git *", "bash: timeout *", "bash: sed *", "bash: env *"]}}`)
	writeFile(t, filepath.Join(e.cwd, "f.txt"), "x\n")
	cmds := []string{
		"echo hi\r# ; touch pwned",
		`echo $'\'' ; touch pwned ; echo \'`,
		"echo hi >&1pwned",
		`find . -name f.txt -exec touch pwned \;`,
		`find . -name f.txt -ex{ec,} touch pwned \;`,
		"find . -name f.txt -fprint pwned",
		"git -c alias.x='!touch pwned' x",
		"timeout 5 touch pwned",
		"env touch pwned",
		"sed -n 'w pwned' f.txt",
		"sed '1e touch pwned' f.txt",
	}
	for _, c := range cmds {
		in, err := json.Marshal(map[string]string{"command": c})
		require.NoError(t, err)
		e.srv.Reply(llmtest.ToolCall("bash", string(in)))
	}
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo allowed; find . -name f.txt"}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	results := toolResults(t, e.onlySession())
	require.Len(t, results, len(cmds)+1)
	for i, c := range cmds {
		assert.Contains(t, results[i], "true Permission denied: bash needs the user's approval", "%q", c)
	}
	assert.Equal(t, "false allowed\n./f.txt", results[len(cmds)], "plain commands still run under the rules")
	for _, name := range []string{"pwned", "1pwned"} {
		assert.Equal(t, "<missing>", e.file(name), name)
	}
}

// A ~40 KB command of "! ! ! …" is refused in one-shot (it needs asking)
// and does not switch the policy off: the splitter it replaced went over
// the hook memory cap, the hook was disabled, and later calls ran.
func TestPermissionsLongCommandOneShot(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.ask = true
	e.hkConfig(`{"permissions": {"allow": ["bash: ls *"], "deny": ["bash: rm *"]}}`)
	in, err := json.Marshal(map[string]string{"command": strings.Repeat("! ", 20000) + "touch pwned"})
	require.NoError(t, err)
	e.srv.Reply(llmtest.ToolCall("bash", string(in)))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"touch pwned2"}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	results := toolResults(t, e.onlySession())
	require.Len(t, results, 2)
	for _, res := range results {
		assert.Contains(t, res, "true Permission denied: bash needs the user's approval")
	}
	assert.Equal(t, "<missing>", e.file("pwned2"))
	assert.NotContains(t, r.stderr, "disabled")
}

// Issue #20 item 4, in the REPL: "yes, and allow such calls" names the
// command behind the wrapper (timeout 5 echo offered "bash: timeout *",
// which then allowed timeout 5 anything), and a loop offers no rule (it
// offered "bash: for *", "bash: do *", …).
func TestREPLPermissionAlwaysNamesTheRealCommand(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.ask = true
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"timeout 5 echo wrapped"}`))
	e.srv.Reply(llmtest.Text("first done"))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"timeout 5 touch pwned"}`))
	e.srv.Reply(llmtest.Text("second done"))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"for f in a b; do echo $f; done"}`))
	e.srv.Reply(llmtest.Text("third done"))
	p := e.start()

	p.line("wrapped")
	p.expect("  $ timeout 5 echo wrapped")
	p.expect("3) yes, and allow bash: echo * for the rest of this session")
	p.expect("choose 1-3")
	p.line("3")
	p.expect("first done")

	p.line("touch")
	p.expect("  $ timeout 5 touch pwned") // asked: not covered by "bash: echo *"
	p.expect("3) yes, and allow bash: touch * for the rest of this session")
	p.expect("choose 1-3")
	p.line("")
	p.expect("second done")

	p.line("loop")
	p.expect("  $ for f in a b; do echo $f; done")
	p.expect("2) no")
	p.expect("choose 1-2")
	p.line("")
	p.expect("third done")
	p.quit()

	assert.NotContains(t, p.output(), "bash: timeout *")
	assert.NotContains(t, p.output(), "bash: for *")
	assert.Equal(t, "<missing>", readFileOrMissing(filepath.Join(e.cwd, "pwned")))
}

func readFileOrMissing(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "<missing>"
	}
	return string(data)
}
