package main

// pi's tool examples (examples/extensions/), ported to Lua under
// testdata/hooks/pi and run through the binary against the fake server:
// permission-gate (frontier patterns and the re module), protected-paths,
// tool-override (a hook tool replacing and wrapping the built-in read),
// bash-spawn-hook (an overridden bash still gated by the permission
// policy), dynamic-tools (tools registered and removed at runtime, tools
// disabled) and structured-output (a tool result that ends the run).

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

// storedToolResults are the tool results stored in a session, in order.
func storedToolResults(s *session.Session) []*session.Message {
	var out []*session.Message
	for _, e := range s.Entries() {
		if e.Message != nil && e.Message.Role == session.RoleToolResult {
			out = append(out, e.Message)
		}
	}
	return out
}

// toolDescription is the description a request gives the named tool.
func toolDescription(t *testing.T, req llmtest.Request, name string) string {
	t.Helper()
	tools, _ := req.JSON["tools"].([]any)
	for _, tl := range tools {
		fn := tl.(map[string]any)["function"].(map[string]any)
		if fn["name"] == name {
			return fn["description"].(string)
		}
	}
	t.Fatalf("no tool %q in the request", name)
	return ""
}

// permission-gate: dangerous commands are blocked without a UI, the rest
// run. "rm -rf" at the very start needs the frontier to see the start of
// the subject as a non-word character; "farm -rf" must not look like rm;
// the chmod check is a regular expression (re).
func TestPiExtPermissionGate(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	require.NoError(t, os.MkdirAll(filepath.Join(e.cwd, "victim"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "victim", "keep.txt"), []byte("x"), 0o644))
	e.srv.Reply(
		llmtest.ToolCall("bash", `{"command":"rm -rf victim"}`),
		llmtest.ToolCall("bash", `{"command":"echo farm -rf"}`),
		llmtest.ToolCall("bash", `{"command":"cd . && SUDO=1 sudo true"}`),
		llmtest.ToolCall("bash", `{"command":"CHMOD -R 777 victim"}`),
		llmtest.ToolCall("bash", `{"command":"rm --recursive victim"}`),
		llmtest.ToolCall("bash", `{"command":"echo made > made.txt"}`),
	)
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "--hook", piHook(t, "permission-gate.lua"), "-p", "clean up")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "done\n", r.stdout)

	assert.FileExists(t, filepath.Join(e.cwd, "victim", "keep.txt"), "rm -rf was blocked")
	assert.FileExists(t, filepath.Join(e.cwd, "made.txt"), "a harmless command ran")
	res := storedToolResults(e.onlySession())
	require.Len(t, res, 6)
	blocked := "Dangerous command blocked (no UI for confirmation)"
	for i, want := range []string{blocked, "farm -rf\n", blocked, blocked, blocked, "(no output)"} {
		assert.Equal(t, want, res[i].Text(), "call %d", i+1)
		assert.Equal(t, want == blocked, res[i].IsError, "call %d", i+1)
	}
}

// protected-paths: write and edit on .env, .git/ and node_modules/ are
// refused; other paths are written.
func TestPiExtProtectedPaths(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	require.NoError(t, os.MkdirAll(filepath.Join(e.cwd, "node_modules", "x"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "node_modules", "x", "index.js"), []byte("old"), 0o644))
	e.srv.Reply(
		llmtest.ToolCall("write", `{"path":".env","content":"SECRET=1"}`),
		llmtest.ToolCall("write", `{"path":".git/config","content":"x"}`),
		llmtest.ToolCall("edit", `{"path":"node_modules/x/index.js","edits":[{"oldText":"old","newText":"new"}]}`),
		llmtest.ToolCall("write", `{"path":"notes/ok.txt","content":"fine"}`),
	)
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "--hook", piHook(t, "protected-paths.lua"), "-p", "write things")
	require.Equal(t, 0, r.code, r.stderr)

	assert.NoFileExists(t, filepath.Join(e.cwd, ".env"))
	assert.NoFileExists(t, filepath.Join(e.cwd, ".git", "config"))
	old, err := os.ReadFile(filepath.Join(e.cwd, "node_modules", "x", "index.js"))
	require.NoError(t, err)
	assert.Equal(t, "old", string(old))
	ok, err := os.ReadFile(filepath.Join(e.cwd, "notes", "ok.txt"))
	require.NoError(t, err)
	assert.Equal(t, "fine", string(ok))

	res := storedToolResults(e.onlySession())
	require.Len(t, res, 4)
	for i, p := range []string{".env", ".git/config", "node_modules/x/index.js"} {
		assert.Equal(t, `Path "`+p+`" is protected`, res[i].Text())
		assert.True(t, res[i].IsError)
	}
	assert.False(t, res[3].IsError, res[3].Text())
}

// tool-override: the hook's read replaces the built-in (one read is
// offered, with the hook's description; a notice says so), wraps it for
// allowed files, refuses sensitive ones and logs both; `lunar hooks check`
// reports the replacement.
func TestPiExtToolOverride(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "notes.txt"), []byte("line one\nline two\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, ".env"), []byte("SECRET=1\n"), 0o644))
	e.srv.Reply(
		llmtest.ToolCall("read", `{"path":"notes.txt","offset":2}`),
		llmtest.ToolCall("read", `{"path":".env"}`),
		llmtest.ToolCall("read", `{"path":"missing.txt"}`),
	)
	e.srv.Reply(llmtest.Text("done"))
	hook := piHook(t, "tool-override.lua")
	r := e.run("", "--hook", hook, "-p", "read them")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, `hook tool "read" (tool-override.lua) replaces the built-in tool`)

	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	names := toolNames(t, reqs[0])
	assert.Equal(t, 1, strings.Count(strings.Join(names, ","), "read"), names)
	assert.Contains(t, toolDescription(t, reqs[0], "read"), "with access logging")

	res := storedToolResults(e.onlySession())
	require.Len(t, res, 3)
	assert.Equal(t, "line two\n", res[0].Text(), "the built-in read did the reading (offset applied)")
	assert.False(t, res[0].IsError)
	assert.True(t, strings.HasPrefix(res[1].Text(), `Access denied: ".env" matches a blocked pattern`), res[1].Text())
	assert.JSONEq(t, `{"blocked":true}`, string(res[1].Details))
	assert.True(t, res[2].IsError, "the built-in's error comes through: %s", res[2].Text())

	logData, err := os.ReadFile(filepath.Join(e.home, "data", "hooks", "tool-override", "read-access.log"))
	require.NoError(t, err)
	log := string(logData)
	assert.Contains(t, log, "ALLOWED: "+filepath.Join(e.cwd, "notes.txt")+"\n")
	assert.Contains(t, log, "BLOCKED: "+filepath.Join(e.cwd, ".env")+" (matches blocked pattern)\n")

	r = e.run("", "--hook", hook, "-p", "/read-log")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "Recent file access:")
	assert.Contains(t, r.stderr, "BLOCKED: "+filepath.Join(e.cwd, ".env"))

	r = e.run("", "hooks", "check", hook)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "replaces:  built-in tool read")
}

// An overridden bash is still bash to the permission policy: without
// --yes it is refused in one-shot mode, however the hook runs it.
func TestPiExtBashSpawnHookIsStillGated(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	hook := piHook(t, "bash-spawn-hook.lua")
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo spawned=$PI_SPAWN_HOOK > out.txt"}`))
	e.srv.Reply(llmtest.Text("done"))
	e.ask = true
	r := e.run("", "--hook", hook, "-p", "run it")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NoFileExists(t, filepath.Join(e.cwd, "out.txt"), "the policy refused the hook's bash")
	res := storedToolResults(e.onlySession())
	require.Len(t, res, 1)
	assert.True(t, res[0].IsError, res[0].Text())

	e.ask = false // --yes
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo spawned=$PI_SPAWN_HOOK > out.txt"}`))
	e.srv.Reply(llmtest.Text("done"))
	r = e.run("", "--hook", hook, "-c", "-p", "run it again")
	require.Equal(t, 0, r.code, r.stderr)
	out, err := os.ReadFile(filepath.Join(e.cwd, "out.txt"))
	require.NoError(t, err)
	assert.Equal(t, "spawned=1\n", string(out), "the override adjusted the command and ran the built-in")
}

// dynamic-tools: a tool registered in session.start and one added by a
// command reach the model from the next call; a removed one, and one a
// hook disabled, no longer do; /hooks shows what is disabled.
func TestPiExtDynamicTools(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.ToolCall("shout", `{"message":"hi"}`))
	e.srv.Reply(llmtest.Text("first done"))
	e.srv.Reply(llmtest.Text("second done"))
	p := e.start("--hook", piHook(t, "dynamic-tools.lua"), "--hook", hkFile(t, "tool_switch.lua"))
	p.line("/add-echo-tool shout")
	p.expect("Registered dynamic tool: shout")
	p.line("/add-echo-tool shout")
	p.expect("Tool already registered: shout")
	p.line("use shout")
	p.expect("first done")
	p.line("/remove-echo-tool shout")
	p.expect("Removed dynamic tool: shout")
	p.line("/tool-off bash")
	p.expect("bash disabled")
	p.line("/hooks")
	p.expect("disabled tools: bash")
	p.line("again")
	p.expect("second done")
	p.quit()
	assert.Contains(t, p.output(), "Registered dynamic tool: echo_session")

	reqs := e.srv.Requests()
	require.Len(t, reqs, 3)
	assert.Subset(t, toolNames(t, reqs[0]), []string{"read", "bash", "echo_session", "shout"})
	assert.Contains(t, string(reqs[1].Body), "[shout] hi")
	names := toolNames(t, reqs[2])
	assert.Contains(t, names, "echo_session")
	assert.NotContains(t, names, "shout", "removed")
	assert.NotContains(t, names, "bash", "disabled")
	assert.Contains(t, names, "read")

	// The system prompt lists the tools each call offers, as pi rebuilds
	// its prompt when the active tools change.
	first, last := openAISystem(t, reqs[0]), openAISystem(t, reqs[2])
	assert.Contains(t, first, "\n- shout: Echo back user-provided text with [shout] prefix\n", "promptSnippet")
	assert.Equal(t, 1, strings.Count(first, "\n- Use echo_session when the user asks for exact echo output."), "promptGuidelines, once for both tools")
	assert.Contains(t, first, "\n- echo_session: ")
	assert.Contains(t, first, "\n- bash: ")
	assert.Contains(t, first, "Use bash for file operations")
	assert.NotContains(t, last, "\n- shout: ")
	assert.NotContains(t, last, "\n- bash: ")
	assert.NotContains(t, last, "Use bash for file operations", "no guideline for a tool the model lacks")
	assert.Contains(t, last, "\n- echo_session: Echo back user-provided text with [session] prefix\n")
}

// openAISystem is the system message of an OpenAI request.
func openAISystem(t *testing.T, r llmtest.Request) string {
	t.Helper()
	for _, role := range []string{"system", "developer"} {
		if r.Field("messages.0.role") == role {
			s, ok := r.Field("messages.0.content").(string)
			require.True(t, ok, "system content is a string: %s", r.Body)
			return s
		}
	}
	t.Fatalf("no system message in %s", r.Body)
	return ""
}

// structured-output: a batch whose every result terminates ends the run
// without another model call; JSON mode shows terminate on the result,
// as pi's; a batch with one ordinary result goes on.
func TestPiExtStructuredOutput(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	hook := piHook(t, "structured-output.lua")
	call := llmtest.ToolCall("structured_output", `{"headline":"Plan","summary":"Do it.","actionItems":["one","two"]}`)
	e.srv.Reply(llmtest.Text("Here it is."), call)
	r := e.run("", "--hook", hook, "-p", "summarise")
	require.Equal(t, 0, r.code, r.stderr)
	require.Len(t, e.srv.Requests(), 1, "no follow-up model call")
	res := storedToolResults(e.onlySession())
	require.Len(t, res, 1)
	assert.Equal(t, "Saved structured output: Plan", res[0].Text())
	assert.JSONEq(t, `{"headline":"Plan","summary":"Do it.","actionItems":["one","two"]}`, string(res[0].Details))

	e.srv.Reply(call)
	r = e.run("", "--hook", hook, "--no-session", "--mode", "json", "-p", "summarise")
	require.Equal(t, 0, r.code, r.stderr)
	require.Len(t, e.srv.Requests(), 2)
	evs := jsonLines(t, r.stdout)
	turns, ended := 0, false
	for _, ev := range evs {
		switch ev["type"] {
		case "turn_start":
			turns++
		case "tool_execution_end":
			assert.Equal(t, true, ev["result"].(map[string]any)["terminate"])
		case "agent_end":
			ended = true
		}
	}
	assert.Equal(t, 1, turns)
	assert.True(t, ended)

	e.srv.Reply(call, llmtest.ToolCall("bash", `{"command":"echo also"}`))
	e.srv.Reply(llmtest.Text("went on"))
	r = e.run("", "--hook", hook, "--no-session", "-p", "summarise and run")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "went on\n", r.stdout)
	assert.Len(t, e.srv.Requests(), 4, "a batch with an ordinary result calls the model again")
}

// `lunar hooks check` fails on a tool that did not register, saying why in
// one line, reports what a hook replaces, and names the last line for a
// syntax error at the end of a file.
func TestHooksCheckToolProblems(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	r := e.run("", "hooks", "check", hkFile(t, "check_problems.lua"))
	assert.Equal(t, 1, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "replaces:  built-in tool read")
	var schemaLines []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.Contains(l, "lookup") {
			schemaLines = append(schemaLines, l)
		}
	}
	require.Len(t, schemaLines, 1, r.stdout)
	assert.Regexp(t, `^  error: +check_problems\.lua:3: tool "lookup": invalid parameters schema: parameters\.properties\.q\.type: .*: tool not registered$`, schemaLines[0])
	assert.NotContains(t, r.stdout, "metaschema")

	r = e.run("", "hooks", "check", hkFile(t, "missing_end.lua"))
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "missing_end.lua:6: syntax error: unexpected end of file")
}
