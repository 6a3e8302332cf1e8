// End-to-end tests of the hook API's second round (issue #24), each
// driven through the binary with a hook written by the test.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// tmpHook writes a hook file outside the project and returns its path.
func tmpHook(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	writeHook(t, p, src)
	return p
}

// tool.execute.after sees the arguments the tool ran with as input and
// the model's as original_input, after a tool.execute.before rewrite.
func TestToolAfterSeesTheArgumentsThatRan(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	hook := tmpHook(t, "after.lua", `
lunar.on("tool.execute.before", function(ev)
  if ev.input.command == "echo model" then return { input = { command = "echo hook" } } end
end)
lunar.on("tool.execute.after", function(ev, ctx)
  ctx.ui.print("after: " .. ev.input.command .. " | " .. ev.original_input.command)
end)
`)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo model"}`))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo same"}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "-e", hook, "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "after: echo hook | echo model\n")
	assert.Contains(t, r.stderr, "after: echo same | echo same\n", "no rewrite: both the same")
	msgs := e.onlySession().BuildContext().Messages
	require.Len(t, msgs, 6)
	assert.Equal(t, "hook\n", msgs[2].Message.Text())
}

// session.before_compact's {context = {…}} adds lines to the summary
// prompt, {prompt = "…"} replaces lunar's; instructions still follow.
func TestBeforeCompactContextAndPrompt(t *testing.T) {
	t.Parallel()
	compact := func(t *testing.T, src string, args ...string) string {
		e := newE2E(t)
		e.hkConfig(`{"compaction": {"keep_recent_tokens": 50}}`)
		e.threeTurns()
		before := len(e.srv.Requests())
		e.srv.Reply(llmtest.Text("## Goal\nAnswer."))
		r := e.run("", append([]string{"-e", tmpHook(t, "compact.lua", src), "-c", "-p"}, args...)...)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Regexp(t, `compacted: [0-9,]+ → [0-9,]+ tokens`, r.stderr)
		return lastUserText(t, e.srv.Requests()[before])
	}
	t.Run("context", func(t *testing.T) {
		prompt := compact(t, `
lunar.on("session.before_compact", function() return { context = { "remember the numbers", "and the names" } } end)
lunar.on("session.before_compact", function() return { context = { "third line" } } end)
`, "/compact")
		assert.Contains(t, prompt, "## Goal", "lunar's prompt stays")
		assert.True(t, strings.HasSuffix(prompt, "function names and error messages."+
			"\n\n<additional-context>\nremember the numbers\nand the names\nthird line\n</additional-context>"), prompt)
	})
	t.Run("prompt", func(t *testing.T) {
		prompt := compact(t, `
lunar.on("session.before_compact", function() return { prompt = "Write one line." } end)
lunar.on("session.before_compact", function() return { context = { "the names" } } end)
`, "/compact keep the numbers")
		assert.NotContains(t, prompt, "## Goal", "the hook's prompt replaces lunar's")
		assert.True(t, strings.HasSuffix(prompt, "</conversation>\n\nWrite one line.\n\n<additional-context>\nthe names\n</additional-context>"+
			"\n\nAdditional focus: keep the numbers"), prompt)
	})
}

// An auth.get base_url that is not an http(s) URL is reported with the
// hook's name and ignored: the request goes where it would have, with
// the rest of the hook's result (its header).
func TestAuthHookInvalidBaseURLIsIgnored(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	hook := tmpHook(t, "badbase.lua", `
lunar.on("auth.get", function() return { base_url = "not a url", headers = { ["X-Hook"] = "yes" } } end)
`)
	e.srv.Reply(llmtest.Text("still answered"))
	r := e.run("", "-e", hook, "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "still answered\n", r.stdout)
	assert.Contains(t, r.stderr, `hook badbase.lua: auth.get: base_url ignored: "not a url" is not an http(s) URL`)
	reqs := e.srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "yes", reqs[0].Header.Get("X-Hook"))
}

// The events of a run carry the open session's id; ctx.config_dir is
// lunar's configuration folder.
func TestRunEventsCarrySessionIDAndConfigDir(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	hook := tmpHook(t, "ids.lua", `
for _, name in ipairs({ "agent.before_start", "agent.start", "turn.start", "tool.execute.before",
    "tool.execute.after", "turn.end", "agent.end" }) do
  lunar.on(name, function(ev, ctx)
    ctx.ui.print(name .. " " .. tostring(ev.session_id) .. " " .. tostring(ev.session_id == ctx.session_id))
  end)
end
lunar.on("agent.start", function(_, ctx) ctx.ui.print("config_dir " .. tostring(ctx.config_dir)) end)
`)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo hi"}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "-e", hook, "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	id := e.onlySession().ID()
	require.NotEmpty(t, id)
	for _, name := range []string{"agent.before_start", "agent.start", "turn.start", "tool.execute.before", "tool.execute.after", "turn.end", "agent.end"} {
		assert.Contains(t, r.stderr, name+" "+id+" true\n", name)
	}
	assert.Contains(t, r.stderr, "config_dir "+filepath.Join(e.home, "config")+"\n")
}

// A slow session.compact handler does not hold up /compact: the REPL
// shows the result and takes the next command while the handler runs;
// leaving waits for it.
func TestSlowCompactHandlerDoesNotHoldUpCompact(t *testing.T) {
	const slow = 6 * time.Second
	e := newE2E(t)
	writeFile(t, e.home+"/config/config.json", `{"compaction": {"keep_recent_tokens": 50}}`)
	hook := tmpHook(t, "slow.lua", `
local time = require("time")
lunar.on("session.compact", function(_, ctx)
  time.sleep_ms(`+strconv.Itoa(int(slow.Milliseconds()))+`)
  ctx.ui.notify("slow handler done")
end)
`)
	p := e.start("-e", hook)
	for i := 1; i <= 3; i++ {
		e.srv.Reply(llmtest.Text("answer "+strconv.Itoa(i)), llmtest.Usage(100, 10, 0, 0))
		p.line(question(i))
		p.expect("answer " + strconv.Itoa(i))
	}
	e.srv.Reply(llmtest.Text("## Goal\nthree questions"))
	start := time.Now()
	p.line("/compact")
	p.expect("compacted: ")
	p.line("/session")
	p.expect("cache write")
	took := time.Since(start)
	assert.Less(t, took, slow*2/3, "/compact and the next command do not wait for the handler")
	p.quit()
	assert.Contains(t, p.output(), "slow handler done", "leaving waits for the handler")
}

// --tools filters hook tools as it filters built-ins: a hook tool it
// does not name is not offered; a name that is neither a built-in nor a
// hook's tool is a usage error.
func TestToolsFlagFiltersHookTools(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	hook := tmpHook(t, "tools.lua", `
for _, name in ipairs({ "kept", "dropped" }) do
  lunar.tool({ name = name, description = "a tool", parameters = { type = "object", properties = {} },
    execute = function() return { content = name } end })
end
`)
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "-e", hook, "--tools", "read,kept", "-p", "x")
	require.Equal(t, 0, r.code, r.stderr)
	e.srv.Reply(llmtest.Text("ok"))
	r = e.run("", "-e", hook, "-p", "x")
	require.Equal(t, 0, r.code, r.stderr)
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"read", "kept"}, toolNames(t, reqs[0]))
	assert.Equal(t, []string{"read", "bash", "edit", "write", "kept", "dropped"}, toolNames(t, reqs[1]), "without --tools every tool")

	r = e.run("", "-e", hook, "--tools", "read,frob", "-p", "x")
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, `--tools: unknown tool "frob" (neither a built-in: read, bash, edit, write`)
	assert.Len(t, e.srv.Requests(), 2)
}

// lunar.send sends a "/name" text to the model as it is (pi's
// sendUserMessage); with {command = true} it runs the command as typed.
func TestSendRunsCommandsOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	hook := tmpHook(t, "send.lua", `
lunar.command("ping", { handler = function(_, ctx) ctx.ui.print("ping ran") end })
lunar.command("relay", { handler = function(args) assert(lunar.send(args)) end })
lunar.command("run", { handler = function(args) assert(lunar.send(args, { command = true })) end })
lunar.command("bad", { handler = function(args) lunar.send(args, { command = true }) end })
`)
	e.srv.Reply(llmtest.Text("the model got it"))
	r := e.run("", "-e", hook, "-p", "/relay /ping now")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stderr, "ping ran")
	assert.Equal(t, "the model got it\n", r.stdout)
	reqs := e.srv.Requests()
	require.Len(t, reqs, 1)
	text, _ := reqs[0].LastUserText()
	assert.Equal(t, "/ping now", text)

	r = e.run("", "-e", hook, "-p", "/run /ping")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "ping ran")
	assert.Len(t, e.srv.Requests(), 1, "a command, not a prompt")

	r = e.run("", "-e", hook, "-p", "/bad no slash")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `with command = true, a "/name args" line expected`)
}

// A hook tool replacing a built-in is news, not a problem: a notice.
func TestHookToolOverrideIsANotice(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	hook := tmpHook(t, "myread.lua", `
lunar.tool({ name = "read", description = "my read", parameters = { type = "object", properties = {} },
  execute = function() return { content = "mine" } end })
`)
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "-e", hook, "-p", "x")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "lunar: hook tool \"read\" (myread.lua) replaces the built-in tool\n")
	assert.NotContains(t, r.stderr, "warning")
}

// A hook tool's prompt_snippet is its line in the system prompt's tool
// list and its prompt_guidelines join the guidelines, while the tool is
// offered; a custom system prompt has neither (as pi).
func TestToolPromptSnippetAndGuidelines(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	hook := tmpHook(t, "deploy.lua", `
lunar.tool{ name = "deploy", description = "Deploys. Long text the prompt should not list.",
  prompt_snippet = "Deploy the app\n   to staging",
  prompt_guidelines = { "Run the tests before deploy.", "  ", "Be concise in your responses." },
  execute = function() return "deployed" end }
lunar.tool{ name = "notes", description = "Keeps notes. More words.",
  promptGuidelines = { "Run the tests before deploy.", "Write notes in English." },
  execute = function() return "" end }
`)
	prompt := func(args ...string) string {
		t.Helper()
		e.srv.Reply(llmtest.Text("ok"))
		r := e.run("", append([]string{"-e", hook, "--no-session"}, args...)...)
		require.Equal(t, 0, r.code, r.stderr)
		reqs := e.srv.Requests()
		return systemPrompt(t, reqs[len(reqs)-1])
	}

	sys := prompt("-p", "go")
	assert.Contains(t, sys, "\n- deploy: Deploy the app to staging\n- notes: Keeps notes.\n")
	assert.NotContains(t, sys, "Long text")
	assert.Contains(t, sys, "\n- Run the tests before deploy.\n- Be concise in your responses.\n- Write notes in English.\n- Show file paths clearly when working with files.",
		"in the tools' order, each once, as pi's (a tool's copy of an always-present guideline takes its place)")
	assert.Equal(t, 1, strings.Count(sys, "Run the tests before deploy."), "a guideline two tools give is listed once")
	assert.Equal(t, 1, strings.Count(sys, "Be concise in your responses."))

	sys = prompt("--tools", "read,notes", "-p", "go")
	assert.NotContains(t, sys, "- deploy:", "the tool is not offered")
	assert.Contains(t, sys, "\n- Run the tests before deploy.\n- Write notes in English.\n", "notes gives that one too")

	sys = prompt("--tools", "read", "-p", "go")
	assert.NotContains(t, sys, "Run the tests")
	assert.NotContains(t, sys, "Write notes")

	sys = prompt("--system-prompt", "You are terse.", "-p", "go")
	assert.NotContains(t, sys, "Deploy the app")
	assert.NotContains(t, sys, "Run the tests")

	bad := tmpHook(t, "bad.lua", `lunar.tool{ name = "x", description = "d", prompt_guidelines = "not a list", execute = function() end }`)
	r := e.run("", "hooks", "check", bad)
	assert.Contains(t, r.stdout+r.stderr, `tool "x": prompt_guidelines must be a list of strings, got string: tool not registered`)
}

// agent.before_start sees what the base system prompt is built from, as
// pi's systemPromptOptions: the --append-system-prompt text, the selected
// tools with their lines, the tools' guidelines and the context files.
func TestBeforeStartSystemPromptOptions(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	writeFile(t, filepath.Join(e.cwd, "AGENTS.md"), "ROOT-RULE: use tabs.\n")
	hook := tmpHook(t, "opts.lua", `
local json = require("json")
lunar.tool{ name = "deploy", description = "Deploys.", prompt_snippet = "Deploy to staging",
  prompt_guidelines = { "Test first." }, execute = function() return "" end }
lunar.on("agent.before_start", function(ev, ctx)
  local o = ev.system_prompt_options
  ctx.ui.print("options " .. json.encode(o))
  -- a prompt customiser: rebuild the prompt from the options
  return { system_prompt = "Tools: " .. table.concat(o.selected_tools, ", ") .. ". " .. (o.append_system_prompt or "") }
end)
`)
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "-e", hook, "--tools", "read,deploy", "--append-system-prompt", "Answer in French.", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	_, line, ok := strings.Cut(r.stderr, "options ")
	require.True(t, ok, r.stderr)
	line, _, _ = strings.Cut(line, "\n")
	var o struct {
		Cwd              string                           `json:"cwd"`
		Custom           *string                          `json:"custom_prompt"`
		Append           string                           `json:"append_system_prompt"`
		SelectedTools    []string                         `json:"selected_tools"`
		ToolSnippets     map[string]string                `json:"tool_snippets"`
		PromptGuidelines []string                         `json:"prompt_guidelines"`
		ContextFiles     []struct{ Path, Content string } `json:"context_files"`
	}
	require.NoError(t, json.Unmarshal([]byte(line), &o), line)
	assert.Equal(t, e.cwd, o.Cwd)
	assert.Nil(t, o.Custom, "lunar's own prompt")
	assert.Equal(t, "Answer in French.", o.Append)
	assert.Equal(t, []string{"read", "deploy"}, o.SelectedTools)
	assert.Equal(t, "Deploy to staging", o.ToolSnippets["deploy"])
	assert.Contains(t, o.ToolSnippets["read"], "Read")
	assert.Equal(t, []string{"Test first."}, o.PromptGuidelines)
	require.Len(t, o.ContextFiles, 1)
	assert.Equal(t, filepath.Join(e.cwd, "AGENTS.md"), o.ContextFiles[0].Path)
	assert.Equal(t, "ROOT-RULE: use tabs.\n", o.ContextFiles[0].Content)
	assert.Equal(t, "Tools: read, deploy. Answer in French.", systemPrompt(t, e.srv.Requests()[0]))
}

// lunar.serialize_conversation and lunar.summary_prompts are what the
// compaction itself sends: a hook that serialises the messages a
// compaction summarises, under lunar's compaction prompt, writes the
// summary request word for word. text.format_size is pi's formatSize.
func TestSummaryHelpersMatchTheCompaction(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.hkConfig(`{"compaction": {"keep_recent_tokens": 50}}`)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo hi"}`), llmtest.Usage(100, 10, 0, 0))
	e.srv.Reply(llmtest.Text("answer 1"), llmtest.Usage(100, 10, 0, 0))
	r := e.run("", "-p", question(1))
	require.Equal(t, 0, r.code, r.stderr)
	for i := 2; i <= 3; i++ {
		e.srv.Reply(llmtest.Text(fmt.Sprintf("answer %d", i)), llmtest.Usage(100, 10, 0, 0))
		r = e.run("", "-c", "-p", question(i))
		require.Equal(t, 0, r.code, r.stderr)
	}
	hook := tmpHook(t, "helpers.lua", `
local fs, json, text = require("fs"), require("json"), require("text")
lunar.on("session.before_compact", function(ev, ctx)
  local p = lunar.summary_prompts()
  local request = "<conversation>\n" .. lunar.serialize_conversation(ev.preparation.messages) ..
    "\n</conversation>\n\n" .. p.compaction
  assert(fs.write(ctx.cwd .. "/request.txt", request))
  assert(fs.write(ctx.cwd .. "/system.txt", p.system))
  -- entries stand for their messages
  local from_entries = lunar.serialize_conversation(ctx.session.entries({ type = "message" }))
  local sizes = {}
  for _, n in ipairs({ 0, 1023, 1024, 1280, 1331, 51200, 1048575, 1048576, 1572864, 5 * 1048576 + 52429 }) do
    sizes[#sizes + 1] = text.format_size(n)
  end
  assert(fs.write(ctx.cwd .. "/other.json", json.encode({ sizes = sizes, from_entries = from_entries,
    keys = { p.update ~= nil, p.branch_summary ~= nil, p.turn_prefix ~= nil, p.branch_summary_preamble ~= nil } })))
  local ok, err = pcall(lunar.serialize_conversation, { { type = "label", targetId = "x" } })
  assert(fs.write(ctx.cwd .. "/error.txt", tostring(err)))
end)
`)
	before := len(e.srv.Requests())
	e.srv.Reply(llmtest.Text("## Goal\nAnswer."))
	r = e.run("", "-e", hook, "-c", "-p", "/compact")
	require.Equal(t, 0, r.code, r.stderr)
	reqs := e.srv.Requests()
	require.Len(t, reqs, before+1)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(e.cwd, name))
		require.NoError(t, err)
		return string(b)
	}
	want := read("request.txt")
	assert.Contains(t, want, `[Assistant tool calls]: bash(command="echo hi")`)
	assert.Contains(t, want, "[Tool result]: hi")
	assert.Equal(t, lastUserText(t, reqs[before]), want)
	assert.Equal(t, systemPrompt(t, reqs[before]), read("system.txt"))

	var other struct {
		Sizes       []string `json:"sizes"`
		FromEntries string   `json:"from_entries"`
		Keys        []bool   `json:"keys"`
	}
	require.NoError(t, json.Unmarshal([]byte(read("other.json")), &other))
	// pi's formatSize (toFixed(1) rounds halves up: 1280 bytes are 1.3KB).
	assert.Equal(t, []string{"0B", "1023B", "1.0KB", "1.3KB", "1.3KB", "50.0KB", "1024.0KB", "1.0MB", "1.5MB", "5.1MB"}, other.Sizes)
	assert.True(t, strings.HasPrefix(other.FromEntries, "[User]: "+question(1)+"\n\n[Assistant tool calls]: bash("), other.FromEntries)
	assert.True(t, strings.HasSuffix(other.FromEntries, "[User]: "+question(3)+"\n\n[Assistant]: answer 3"), other.FromEntries)
	assert.Equal(t, []bool{true, true, true, true}, other.Keys)
	assert.Contains(t, read("error.txt"), "messages[1]: a label entry has no message")
}

// lunar knows pi's models (openai/gpt-5.2 reasons: the thinking level is
// sent); lunar.complete with a thinking level on a model outside the table
// warns, naming the hook and line, instead of dropping it silently.
func TestCompleteThinkingOnUnknownModelWarns(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	hook := tmpHook(t, "think.lua", `
lunar.command("ask", { handler = function(args, ctx)
  local m = ctx.models.find("openai", args)
  ctx.ui.print("find " .. args .. ": " .. (m and tostring(m.reasoning) or "nil"))
  local out, err = lunar.complete("hi", { model = "openai/" .. args, thinking = "high" })
  ctx.ui.print("answer " .. tostring(out or err))
end })
`)
	e.srv.Reply(llmtest.Text("known"))
	r := e.run("", "-e", hook, "--no-session", "-p", "/ask gpt-5.2")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "find gpt-5.2: true\nanswer known\n")
	assert.NotContains(t, r.stderr, "warning")
	assert.Equal(t, "high", e.srv.Requests()[0].Field("reasoning_effort"))

	e.srv.Reply(llmtest.Text("unknown"))
	r = e.run("", "-e", hook, "--no-session", "-p", "/ask gpt-nonexistent-9")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "find gpt-nonexistent-9: nil\n")
	assert.Contains(t, r.stderr, `warning: think.lua:5: lunar.complete: model openai/gpt-nonexistent-9 is not in lunar's model table (lunar --list-models), so lunar takes it for one that cannot reason: thinking "high" is not sent.`)
	assert.Contains(t, r.stderr, "answer unknown\n")
	assert.Nil(t, e.srv.Requests()[1].Field("reasoning_effort"))
}

// ctx.ui.notify{desktop = true} asks the REPL's terminal for a desktop
// notification: OSC 777 where the terminal takes it, OSC 9 elsewhere;
// title and message go out sanitised, so text from the model cannot end
// the sequence or start one of its own. Without a terminal it is only the
// notice on stderr.
func TestNotifyDesktop(t *testing.T) {
	t.Parallel()
	hook := tmpHook(t, "notify.lua", `
lunar.command("done", { handler = function(args, ctx)
  local sent = ctx.ui.notify({ message = "build " .. args .. "\27]0;pwned\7 ok\nnext", title = "lu;nar", level = "success", desktop = true })
  ctx.ui.print("sent " .. tostring(sent))
  ctx.ui.notify("plain", "info", { desktop = false })
end })
`)
	clean := []string{"TERM_PROGRAM=", "KITTY_WINDOW_ID=", "VTE_VERSION="}
	for _, tc := range []struct {
		name, env, want string
		oscs            int
	}{
		{"osc777", "TERM_PROGRAM=ghostty", "\x1b]777;notify;lu,nar;build done\\x1b]0;pwned\\x07 ok next\x07", 1},
		{"osc9", "TERM_PROGRAM=Apple_Terminal", "\x1b]9;lu;nar: build done\\x1b]0;pwned\\x07 ok next\x07", 1},
		{"kitty", "KITTY_WINDOW_ID=3", "\x1b]99;i=1:d=0;lu;nar\x1b\\\x1b]99;i=1:p=body;build done\\x1b]0;pwned\\x07 ok next\x1b\\", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newE2E(t)
			e.env = append(clean, tc.env)
			p := e.start("-e", hook)
			p.line("/done done")
			p.expect("lu;nar: build done\\x1b]0;pwned\\x07 ok\r\nnext")
			p.expect("sent true")
			p.expect("plain")
			p.quit()
			out := p.output()
			assert.Contains(t, out, tc.want)
			assert.Equal(t, tc.oscs, strings.Count(out, "\x1b]"), "one notification: the plain notice raises none")
			assert.NotContains(t, out, "\x1b]0;pwned", "the hook's text cannot start an escape")
		})
	}

	e := newE2E(t)
	r := e.run("", "-e", hook, "--no-session", "-p", "/done done")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "[success] lu;nar: build done\\x1b]0;pwned\\x07 ok\nnext\nsent false\n")
	assert.NotContains(t, r.stderr, "\x1b")
}

// ctx.sessions lists this folder's sessions (or every folder's) and reads
// any of them, read-only: the file is left byte for byte as it was.
func TestHookSessionsListAndRead(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("first answer"))
	require.Equal(t, 0, e.run("", "-p", "first question").code)
	first := e.onlySession()
	other := newE2E(t) // another folder, the same data folder
	other.home, other.srv = e.home, e.srv
	e.srv.Reply(llmtest.Text("elsewhere"))
	require.Equal(t, 0, other.run("", "-p", "question elsewhere").code)
	before, err := os.ReadFile(first.File())
	require.NoError(t, err)

	hook := tmpHook(t, "sessions.lua", `
local json = require("json")
lunar.command("sess", { handler = function(args, ctx)
  local here = assert(ctx.sessions.list())
  local all = assert(ctx.sessions.list({ all = true }))
  local out = { here = {}, all = #all }
  for _, s in ipairs(here) do
    out.here[#out.here + 1] = { id = s.id, first = s.first_message, n = s.message_count, current = s.current, cwd = s.cwd }
  end
  local entries = assert(ctx.sessions.read(args:sub(1, 8)))
  out.types = {}
  for _, en in ipairs(entries) do out.types[#out.types + 1] = en.type end
  for _, en in ipairs(entries) do
    if en.type == "message" and not out.text then out.text = en.message.content[1].text end
  end
  local by_file = assert(ctx.sessions.read(here[#here].file))
  out.same = #by_file == #entries
  local none, err = ctx.sessions.read("ffffffff")
  out.none = tostring(none) .. " " .. tostring(err)
  ctx.ui.print("SESSIONS " .. json.encode(out))
end })
`)
	r := e.run("", "-e", hook, "--no-session", "-p", "/sess "+first.ID())
	require.Equal(t, 0, r.code, r.stderr)
	_, line, ok := strings.Cut(r.stderr, "SESSIONS ")
	require.True(t, ok, r.stderr)
	line, _, _ = strings.Cut(line, "\n")
	var out struct {
		Here []struct {
			ID, First, Cwd string
			N              int
			Current        bool
		} `json:"here"`
		All   int      `json:"all"`
		Types []string `json:"types"`
		Text  string   `json:"text"`
		Same  bool     `json:"same"`
		None  string   `json:"none"`
	}
	require.NoError(t, json.Unmarshal([]byte(line), &out), line)
	require.Len(t, out.Here, 1, "this folder's: the other folder's is not listed")
	assert.Equal(t, first.ID(), out.Here[0].ID)
	assert.Equal(t, "first question", out.Here[0].First)
	assert.Equal(t, 2, out.Here[0].N)
	assert.Equal(t, e.cwd, out.Here[0].Cwd)
	assert.False(t, out.Here[0].Current, "--no-session: not the open one")
	assert.Equal(t, 2, out.All, "every folder's")
	var types []string
	for _, en := range first.Entries() {
		types = append(types, en.Type)
	}
	assert.Equal(t, types, out.Types, "every entry, in file order")
	assert.Equal(t, "first question", out.Text)
	assert.True(t, out.Same, "by file path too")
	assert.Contains(t, out.None, "nil ")
	assert.Contains(t, out.None, "no such session")

	after, err := os.ReadFile(first.File())
	require.NoError(t, err)
	assert.Equal(t, before, after, "read-only")
	_, err = os.Stat(first.File() + ".lock")
	assert.True(t, os.IsNotExist(err), "no lock file left")
}
