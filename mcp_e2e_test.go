// End-to-end tests of MCP servers through the binary: the in-repo test
// server (agent/mcp/mcptest, run from this test binary) for what the npm
// reference servers cannot do, and @modelcontextprotocol/server-everything
// and server-filesystem (skipped without them: .ci/run installs them).
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/agent/mcp/mcptest"
	"github.com/lunar-cli/lunar/session"
)

// This test binary is also the stdio test server.
func init() {
	if mcptest.Main() {
		os.Exit(0)
	}
}

// goServer is an mcp.json entry running the in-repo test server; env
// pairs are added to its environment.
func goServer(t *testing.T, mode string, env ...string) map[string]any {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	e := map[string]string{mcptest.EnvMode: mode}
	for i := 0; i+1 < len(env); i += 2 {
		e[env[i]] = env[i+1]
	}
	return map[string]any{"command": exe, "env": e}
}

// writeMCP writes an mcp.json holding servers.
func writeMCP(t *testing.T, path string, servers map[string]any) {
	t.Helper()
	data, err := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	require.NoError(t, err)
	writeFile(t, path, string(data))
}

func (e *e2e) userMCP(servers map[string]any) {
	writeMCP(e.t, filepath.Join(e.home, "config", "mcp.json"), servers)
}

// needNPMServer skips the test without the npm server's command.
func needNPMServer(t *testing.T, cmd string) string {
	t.Helper()
	path, err := exec.LookPath(cmd)
	if err != nil {
		t.Skipf("%s not installed (npm i -g @modelcontextprotocol/%s)", cmd, strings.TrimPrefix(cmd, "mcp-"))
	}
	return path
}

// toolResultsOf returns the session's tool results by tool name.
func toolResultsOf(s *session.Session) map[string][]session.Message {
	out := map[string][]session.Message{}
	for _, m := range s.BuildContext().Messages {
		if m.Message.Role == session.RoleToolResult {
			out[m.Message.ToolName] = append(out[m.Message.ToolName], m.Message)
		}
	}
	return out
}

// The model calls the server's tools and gets their results: text,
// isError as an error, images as image parts, huge output truncated; bad
// arguments never reach the server; a tool with a schema lunar's
// validator refuses is left out with a warning.
func TestMCPToolsReachTheModel(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.userMCP(map[string]any{"t": goServer(t, "serve")})
	e.srv.Reply(llmtest.ToolCall("mcp__t__echo", `{"message":"hi from the model"}`))
	e.srv.Reply(llmtest.ToolCall("mcp__t__fail", `{}`))
	e.srv.Reply(llmtest.ToolCall("mcp__t__image", `{}`))
	e.srv.Reply(llmtest.ToolCall("mcp__t__huge", `{"lines":100000}`))
	e.srv.Reply(llmtest.ToolCall("mcp__t__echo", `{"message":5}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "-p", "use the tools")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "done\n", r.stdout)
	assert.Contains(t, r.stderr, `mcp: server "t": tool "bad_schema" left out`)
	assert.Equal(t, 1, strings.Count(r.stderr, `tool "bad_schema" left out`), "warned once")

	reqs := e.srv.Requests()
	require.Len(t, reqs, 6)
	names := toolNames(t, reqs[0])
	assert.Contains(t, names, "mcp__t__echo")
	assert.Contains(t, names, "read", "built-ins stay")
	assert.NotContains(t, names, "mcp__t__bad_schema")
	assert.Contains(t, string(reqs[1].Body), "echo: hi from the model")
	assert.Contains(t, string(reqs[2].Body), "the database is on fire")
	assert.Contains(t, string(reqs[3].Body), base64.StdEncoding.EncodeToString(mcptest.TinyPNG))
	assert.Contains(t, string(reqs[4].Body), "line 1 of the huge result")
	assert.NotContains(t, string(reqs[4].Body), "line 100000 of")
	assert.Less(t, len(reqs[4].Body), 200_000)
	assert.Contains(t, string(reqs[5].Body), `invalid arguments for tool \"mcp__t__echo\"`)

	res := toolResultsOf(e.onlySession())
	require.Len(t, res["mcp__t__fail"], 1)
	assert.True(t, res["mcp__t__fail"][0].IsError)
	require.Len(t, res["mcp__t__echo"], 2)
	assert.False(t, res["mcp__t__echo"][0].IsError)
	assert.True(t, res["mcp__t__echo"][1].IsError)
	assert.NotContains(t, res["mcp__t__echo"][1].Text(), "echo:", "bad arguments never reach the server")
}

// The permission policy: MCP tools ask in ask mode (and are refused
// without a UI), an allow rule for the server lets them run, read-only
// mode runs only the tools the server marks readOnlyHint, a deny rule
// shuts a server out.
func TestMCPPermissions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, config, tool, want string
	}{
		{"ask refuses without a UI", ``, "mcp__t__echo", "needs the user's approval"},
		{"allow rule for the server", `{"permissions":{"allow":["mcp__t__*"]}}`, "mcp__t__fail", "the database is on fire"},
		{"read-only runs readOnlyHint", `{"permissions":{"mode":"read-only"}}`, "mcp__t__echo", "echo: x"},
		{"read-only refuses the rest", `{"permissions":{"mode":"read-only"}}`, "mcp__t__fail", "read-only mode"},
		{"deny shuts the server out", `{"permissions":{"mode":"auto","deny":["mcp__t"]}}`, "mcp__t__echo", "matches the deny rule"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newE2E(t)
			e.ask = true
			e.userMCP(map[string]any{"t": goServer(t, "serve")})
			if c.config != "" {
				e.hkConfig(c.config)
			}
			args := `{}`
			if c.tool == "mcp__t__echo" {
				args = `{"message":"x"}`
			}
			e.srv.Reply(llmtest.ToolCall(c.tool, args))
			e.srv.Reply(llmtest.Text("ok"))
			r := e.run("", "-p", "go")
			require.Equal(t, 0, r.code, r.stderr)
			reqs := e.srv.Requests()
			require.Len(t, reqs, 2)
			assert.Contains(t, string(reqs[1].Body), c.want)
		})
	}
}

// Hooks see MCP tools like any tool: in lunar.tools() with their source
// and read_only hint, and in tool.execute.before/after.
func TestMCPToolsInHooks(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.userMCP(map[string]any{"t": goServer(t, "serve")})
	hook := filepath.Join(t.TempDir(), "watch.lua")
	writeFile(t, hook, `
lunar.on("tool.execute.before", function(ev)
  for _, t in ipairs(lunar.tools()) do
    if t.name == ev.tool_name then
      lunar.log("info", string.format("tools: %s source=%s read_only=%s", t.name, t.source, tostring(t.read_only)))
    end
  end
  lunar.log("info", string.format("before: %s source=%s read_only=%s message=%s", ev.tool_name, ev.source, tostring(ev.read_only), tostring(ev.input.message)))
  return { input = { message = "changed by the hook" } }
end)
lunar.on("tool.execute.after", function(ev)
  lunar.log("info", "after: " .. ev.tool_name .. " " .. ev.content[1].text)
  return { content = "rewritten: " .. ev.content[1].text }
end)
`)
	e.srv.Reply(llmtest.ToolCall("mcp__t__echo", `{"message":"original"}`))
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "--hook", hook, "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "tools: mcp__t__echo source=mcp:t read_only=true")
	assert.Contains(t, r.stderr, "before: mcp__t__echo source=mcp:t read_only=true message=original")
	assert.Contains(t, r.stderr, "after: mcp__t__echo echo: changed by the hook")
	assert.Contains(t, string(e.srv.Requests()[1].Body), "rewritten: echo: changed by the hook")
}

// A server that exits mid-session: the call that killed it is an error
// result, one warning says its tools are gone, a later call is a tool
// error, and lunar finishes the run.
func TestMCPServerExitsMidSession(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.userMCP(map[string]any{"t": goServer(t, "serve"), "u": goServer(t, "serve")})
	e.srv.Reply(llmtest.ToolCall("mcp__t__crash", `{}`))
	e.srv.Reply(llmtest.ToolCall("mcp__t__echo", `{"message":"again"}`))
	e.srv.Reply(llmtest.ToolCall("mcp__u__echo", `{"message":"other server"}`))
	e.srv.Reply(llmtest.Text("finished"))
	r := e.run("", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "finished\n", r.stdout)
	assert.Equal(t, 1, strings.Count(r.stderr, `mcp: server "t" stopped`), r.stderr)
	reqs := e.srv.Requests()
	require.Len(t, reqs, 4)
	assert.NotContains(t, toolNames(t, reqs[2]), "mcp__t__echo", "its tools are gone")
	assert.Contains(t, toolNames(t, reqs[2]), "mcp__u__echo")
	assert.Contains(t, string(reqs[3].Body), "echo: other server")
	res := toolResultsOf(e.onlySession())
	require.Len(t, res["mcp__t__crash"], 1)
	assert.True(t, res["mcp__t__crash"][0].IsError)
	require.Len(t, res["mcp__t__echo"], 1)
	assert.True(t, res["mcp__t__echo"][0].IsError)
}

// A server that never answers initialize: one warning after the start-up
// timeout (MCP_TIMEOUT), the other server's tools work, and the hung
// process does not outlive lunar.
func TestMCPServerNeverAnswers(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	pidFile := filepath.Join(t.TempDir(), "hang.pid")
	e.userMCP(map[string]any{"hang": goServer(t, "hang", mcptest.EnvPIDFile, pidFile), "t": goServer(t, "serve")})
	e.env = append(e.env, "MCP_TIMEOUT=2000")
	e.srv.Reply(llmtest.ToolCall("mcp__t__echo", `{"message":"works"}`))
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, `mcp: server "hang" did not start: no answer within 2s (its tools are not offered)`)
	assert.Contains(t, string(e.srv.Requests()[1].Body), "echo: works")
	data, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(string(data))
	require.NoError(t, err)
	assertDies(t, pid, 10*time.Second, "the hung server outlived lunar")
}

// A project's .mcp.json starts nothing until the project is trusted.
func TestMCPProjectNeedsTrust(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	mcpFile := filepath.Join(e.cwd, ".mcp.json")
	writeMCP(t, mcpFile, map[string]any{"proj": goServer(t, "serve")})

	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "--no-session", "-p", "hi")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "project MCP servers in "+mcpFile+" are not trusted: skipped")
	assert.NotContains(t, toolNames(t, e.srv.Requests()[0]), "mcp__proj__echo")

	e.srv.Reply(llmtest.ToolCall("mcp__proj__echo", `{"message":"trusted"}`))
	e.srv.Reply(llmtest.Text("ok"))
	r = e.run("", "--no-session", "--trust", "-p", "hi")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, toolNames(t, e.srv.Requests()[1]), "mcp__proj__echo")
	assert.Contains(t, string(e.srv.Requests()[2].Body), "echo: trusted")
}

// In the REPL the trust question names the project's MCP servers and the
// command they run; trusted, /mcp lists them, their tools and prompts,
// and a prompt runs as a command. A changed .mcp.json asks again.
func TestREPLMCPProjectTrust(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	srv := goServer(t, "serve")
	mcpFile := filepath.Join(e.cwd, ".lunar", "mcp.json")
	writeMCP(t, mcpFile, map[string]any{"proj": srv})

	p := e.startRaw()
	p.expect("(programs lunar would start):")
	p.expect(filepath.Join(".lunar", "mcp.json") + " (MCP servers: proj: " + srv["command"].(string))
	p.expect("[y/N] ")
	p.line("y")
	p.expect("/help for commands")
	p.line("/mcp")
	p.expect("proj  stdio ")
	p.expect("  ready  (")
	p.expect("mcp__proj__echo  (read-only)")
	p.expect("/mcp__proj__greet  (prompt)")
	p.expect("> ")
	e.srv.Reply(llmtest.Text("Hello, Ada."))
	p.line("/mcp__proj__greet Ada warmly")
	p.expect("Hello, Ada.")
	p.expect("> ")
	p.quit()
	reqs := e.srv.Requests()
	require.Len(t, reqs, 1)
	last, _ := reqs[0].LastUserText()
	assert.Equal(t, "Greet Ada warmly.", last)

	p = e.start()
	p.quit()
	assert.NotContains(t, p.output(), "Trust them?")

	writeMCP(t, mcpFile, map[string]any{"proj": srv, "other": goServer(t, "serve")})
	p = e.startRaw()
	p.expect("other: ")
	p.expect("[y/N] ")
	p.line("n")
	p.expect("/help for commands")
	p.line("/mcp")
	p.expect("no MCP servers configured")
	p.quit()
}

// `lunar mcp list` starts the servers and lists them; a server that
// does not start makes it exit 1.
func TestMCPListCommand(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.userMCP(map[string]any{"t": goServer(t, "serve")})
	r := e.runBare(nil, "mcp", "list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "t  stdio ")
	assert.Contains(t, r.stdout, "  ready  ("+filepath.Join(e.home, "config", "mcp.json")+")\n")
	assert.Contains(t, r.stdout, "  mcp__t__echo  (read-only)\n")
	assert.Contains(t, r.stdout, "  mcp__t__fail\n")
	assert.Contains(t, r.stdout, "  /mcp__t__greet  (prompt)\n")

	e.userMCP(map[string]any{"t": goServer(t, "serve"), "gone": map[string]any{"command": filepath.Join(t.TempDir(), "no-such-server")}})
	r = e.runBare(nil, "mcp", "list")
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stdout, "gone  stdio ")
	assert.Contains(t, r.stdout, "  failed: ")

	writeFile(t, filepath.Join(e.home, "config", "mcp.json"), "{\"mcpServers\": {\n  \"x\": {\"comand\": \"srv\"}}}")
	r = e.runBare(nil, "mcp", "list")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "mcp.json:2: mcpServers.x.comand: unknown key")
}

// The reference server from npm: a call reaches it and its result
// reaches the model.
func TestMCPServerEverything(t *testing.T) {
	t.Parallel()
	cmd := needNPMServer(t, "mcp-server-everything")
	e := newE2E(t)
	e.userMCP(map[string]any{"everything": map[string]any{"command": cmd}})
	e.srv.Reply(llmtest.ToolCall("mcp__everything__echo", `{"message":"hello everything"}`))
	e.srv.Reply(llmtest.ToolCall("mcp__everything__get-sum", `{"a":2,"b":40}`))
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	reqs := e.srv.Requests()
	require.Len(t, reqs, 3)
	assert.Contains(t, toolNames(t, reqs[0]), "mcp__everything__get-tiny-image")
	assert.Contains(t, string(reqs[1].Body), "Echo: hello everything")
	assert.Contains(t, string(reqs[2].Body), "42")
	assert.NotContains(t, r.stderr, "left out")
}

// The filesystem server from npm, with its allowed folder from an
// environment variable (${VAR} expansion): it reads a file of the project.
func TestMCPServerFilesystem(t *testing.T) {
	t.Parallel()
	cmd := needNPMServer(t, "mcp-server-filesystem")
	e := newE2E(t)
	writeFile(t, filepath.Join(e.cwd, "notes.txt"), "the secret word is lunar\n")
	e.userMCP(map[string]any{"fs": map[string]any{"command": cmd, "args": []string{"${PROJECT_DIR}"}}})
	e.env = append(e.env, "PROJECT_DIR="+e.cwd)
	args, _ := json.Marshal(map[string]string{"path": filepath.Join(e.cwd, "notes.txt")})
	e.srv.Reply(llmtest.ToolCall("mcp__fs__read_text_file", string(args)))
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "-p", "read it")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, string(e.srv.Requests()[1].Body), "the secret word is lunar")
	log, err := os.ReadFile(filepath.Join(e.home, "state", "mcp", "fs.log"))
	require.NoError(t, err)
	assert.Contains(t, string(log), "Secure MCP Filesystem Server", "the server's stderr goes to its log")
	assert.NotContains(t, r.stderr, "Secure MCP Filesystem Server", "not to the terminal")
}

// SIGKILL of lunar in the middle of a call leaves no server behind
// (Linux: the parent-death signal, as for bash).
func TestMCPServerDiesWithLunar(t *testing.T) {
	t.Parallel()
	if !pdeathsig {
		t.Skip("no parent-death signal on this system")
	}
	e := newE2E(t)
	pidFile := filepath.Join(t.TempDir(), "srv.pid")
	// A server that outlives its stdin closing: only the kernel's
	// parent-death signal ends it when lunar cannot.
	e.userMCP(map[string]any{"t": goServer(t, "serve", mcptest.EnvPIDFile, pidFile, mcptest.EnvStay, "1")})
	e.srv.Reply(llmtest.ToolCall("mcp__t__slow", `{"ms":600000}`))
	cmd := e.cmd("", "-p", "go")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Start())
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	var pid int
	require.Eventually(t, func() bool {
		data, err := os.ReadFile(pidFile)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(string(data))
		return err == nil && len(e.srv.Requests()) == 1
	}, 20*time.Second, 10*time.Millisecond)
	require.NoError(t, cmd.Process.Kill())
	<-done
	assertDies(t, pid, 10*time.Second, "the server outlived lunar's SIGKILL")
}

// The REPL's first prompt does not wait for MCP servers: they start on
// the first prompt that needs tools.
func TestREPLMCPStartsOnFirstPrompt(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	pidFile := filepath.Join(t.TempDir(), "srv.pid")
	writeMCP(t, filepath.Join(e.home, "config", "mcp.json"), map[string]any{"t": goServer(t, "serve", mcptest.EnvPIDFile, pidFile)})
	p := e.start()
	p.expect("> ")
	assert.NoFileExists(t, pidFile, "started before it was needed")
	e.srv.Reply(llmtest.ToolCall("mcp__t__echo", `{"message":"lazy"}`))
	e.srv.Reply(llmtest.Text("answered"))
	p.line("go")
	p.expect("answered")
	p.expect("> ")
	p.quit()
	assert.FileExists(t, pidFile)
	assert.Contains(t, string(e.srv.Requests()[1].Body), "echo: lazy")
}

// A streamable-HTTP server, its header's token from the environment.
func TestMCPHTTPServer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(mcptest.Handler("s3cret"))
	defer srv.Close()
	e := newE2E(t)
	e.userMCP(map[string]any{"web": map[string]any{"type": "http", "url": srv.URL, "headers": map[string]string{"Authorization": "Bearer ${WEB_TOKEN}"}}})
	e.env = append(e.env, "WEB_TOKEN=s3cret")
	e.srv.Reply(llmtest.ToolCall("mcp__web__echo", `{"message":"over http"}`))
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, string(e.srv.Requests()[1].Body), "echo: over http")
	assert.NotContains(t, r.stderr, "s3cret")

	e.env = append(e.env, "WEB_TOKEN=wrong")
	e.srv.Reply(llmtest.Text("ok"))
	r = e.run("", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, `mcp: server "web" did not start`)
	assert.NotContains(t, toolNames(t, e.srv.Requests()[2]), "mcp__web__echo")
}

// In one-shot mode too, a server's prompt runs as a command: its text is
// the prompt the model gets.
func TestMCPPromptOneShot(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.userMCP(map[string]any{"t": goServer(t, "serve")})
	e.srv.Reply(llmtest.Text("Hi Grace!"))
	r := e.run("", "-p", "/mcp__t__greet Grace with a bow")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "Hi Grace!\n", r.stdout)
	last, _ := e.srv.Requests()[0].LastUserText()
	assert.Equal(t, "Greet Grace with a bow.", last)

	r = e.run("", "-p", "/mcp__t__greet")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "missing argument name: usage: /mcp__t__greet <name> [style]")
}
