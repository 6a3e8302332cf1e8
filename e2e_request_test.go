// End-to-end tests of what reaches the model: tools, system prompt,
// context files, thinking, prompt caching, model and provider selection
// from flags and config; and of how failures end a run.
package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// toolNames lists the tools a request offers, in order.
func toolNames(t *testing.T, req llmtest.Request) []string {
	t.Helper()
	tools, _ := req.JSON["tools"].([]any)
	var names []string
	for _, tl := range tools {
		m := tl.(map[string]any)
		if fn, ok := m["function"].(map[string]any); ok {
			names = append(names, fn["name"].(string))
		} else {
			names = append(names, m["name"].(string))
		}
	}
	return names
}

// systemPrompt returns the system prompt a request carries.
func systemPrompt(t *testing.T, req llmtest.Request) string {
	t.Helper()
	if req.API == llmtest.APIAnthropic {
		sys, _ := req.JSON["system"].([]any)
		require.Len(t, sys, 1)
		return sys[0].(map[string]any)["text"].(string)
	}
	msgs := req.JSON["messages"].([]any)
	first := msgs[0].(map[string]any)
	require.Contains(t, []any{"system", "developer"}, first["role"])
	return first["content"].(string)
}

func TestToolsFlags(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			e := newE2E(t)
			e.api = api
			e.srv.SetDefault(llmtest.Text("ok"))

			require.Equal(t, 0, e.run("", "-p", "x").code)
			assert.Equal(t, []string{"read", "bash", "edit", "write"}, toolNames(t, e.srv.Requests()[0]), "pi's default tools")

			r := e.run("", "--tools", "bash, read", "-p", "x")
			require.Equal(t, 0, r.code, r.stderr)
			req := e.srv.Requests()[1]
			names := toolNames(t, req)
			sort.Strings(names)
			assert.Equal(t, []string{"bash", "read"}, names)
			sys := systemPrompt(t, req)
			assert.Contains(t, sys, "- bash:")
			assert.NotContains(t, sys, "- edit:")

			r = e.run("", "--no-tools", "-p", "x")
			require.Equal(t, 0, r.code, r.stderr)
			req = e.srv.Requests()[2]
			assert.Nil(t, req.JSON["tools"], "no tools offered")
			assert.Contains(t, systemPrompt(t, req), "(none")
		})
	}
}

func TestToolsFlagWithoutATool(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"touch should-not-exist"}`))
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "--tools", "read", "-p", "x")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NoFileExists(t, filepath.Join(e.cwd, "should-not-exist"))
	msgs := e.onlySession().BuildContext().Messages
	require.Len(t, msgs, 4)
	assert.True(t, msgs[2].Message.IsError)
	assert.Contains(t, msgs[2].Message.Text(), `"bash" not found`)
}

func TestSystemPromptFlags(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			e := newE2E(t)
			e.api = api
			e.srv.SetDefault(llmtest.Text("ok"))

			require.Equal(t, 0, e.run("", "-p", "x").code)
			base := systemPrompt(t, e.srv.Requests()[0])
			assert.Contains(t, base, "coding assistant")
			assert.Contains(t, base, "Current working directory: "+e.cwd)

			r := e.run("", "--system-prompt", "You are a pirate.", "--append-system-prompt", "Always say arr.", "-p", "x")
			require.Equal(t, 0, r.code, r.stderr)
			sys := systemPrompt(t, e.srv.Requests()[1])
			assert.True(t, strings.HasPrefix(sys, "You are a pirate.\n\nAlways say arr."), sys)
			assert.NotContains(t, sys, "coding assistant")

			writeFile(t, filepath.Join(e.cwd, "extra.md"), "Extra rules from a file.\n")
			r = e.run("", "--append-system-prompt", "extra.md", "-p", "x")
			require.Equal(t, 0, r.code, r.stderr)
			sys = systemPrompt(t, e.srv.Requests()[2])
			assert.Contains(t, sys, "coding assistant")
			assert.Contains(t, sys, "\n\nExtra rules from a file.")
			assert.NotContains(t, sys, "extra.md")
		})
	}
}

func TestContextFilesReachTheSystemPrompt(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	sub := filepath.Join(e.cwd, "pkg", "sub")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	writeFile(t, filepath.Join(e.home, "config", "AGENTS.md"), "GLOBAL-RULE: be brief.\n")
	writeFile(t, filepath.Join(e.cwd, "AGENTS.md"), "ROOT-RULE: use tabs.\n")
	writeFile(t, filepath.Join(e.cwd, "CLAUDE.md"), "IGNORED: AGENTS.md wins in the same folder.\n")
	writeFile(t, filepath.Join(sub, "CLAUDE.md"), "SUB-RULE: no globals.\n")
	e.srv.SetDefault(llmtest.Text("ok"))

	cmd := e.cmd("", "-p", "x")
	cmd.Dir = sub
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	sys := systemPrompt(t, e.srv.Requests()[0])
	g, root, s := strings.Index(sys, "GLOBAL-RULE"), strings.Index(sys, "ROOT-RULE"), strings.Index(sys, "SUB-RULE")
	require.True(t, g >= 0 && root >= 0 && s >= 0, sys)
	assert.True(t, g < root && root < s, "global, then outermost to nearest")
	assert.NotContains(t, sys, "IGNORED")
	assert.Contains(t, sys, filepath.Join(e.cwd, "AGENTS.md"))
	assert.Contains(t, sys, "Current working directory: "+sub)
}

func TestThinkingFlag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		model    string
		args     []string
		check    func(t *testing.T, req llmtest.Request)
		recorded string
	}{
		{"openai high", "openai/gpt-5", []string{"--thinking", "high"}, func(t *testing.T, req llmtest.Request) {
			assert.Equal(t, "high", req.Field("reasoning_effort"))
		}, "high"},
		{"openai minimal", "openai/gpt-5", []string{"--thinking", "minimal"}, func(t *testing.T, req llmtest.Request) {
			assert.Equal(t, "minimal", req.Field("reasoning_effort"))
		}, "minimal"},
		{"openai off", "openai/gpt-5", []string{"--thinking", "off"}, func(t *testing.T, req llmtest.Request) {
			assert.Nil(t, req.Field("reasoning_effort"))
		}, "off"},
		{"openai non-reasoning model", "openai/gpt-4.1", []string{"--thinking", "high"}, func(t *testing.T, req llmtest.Request) {
			assert.Nil(t, req.Field("reasoning_effort"))
		}, "high"},
		{"anthropic medium", "anthropic/claude-sonnet-4-5", []string{"--thinking", "medium"}, func(t *testing.T, req llmtest.Request) {
			assert.Equal(t, "enabled", req.Field("thinking.type"))
			assert.EqualValues(t, 8192, req.Field("thinking.budget_tokens"))
			assert.Greater(t, req.Field("max_tokens").(float64), float64(8192))
			assert.Contains(t, req.Header.Get("anthropic-beta"), "interleaved-thinking")
		}, "medium"},
		{"anthropic high", "anthropic/claude-sonnet-4-5", []string{"--thinking", "high"}, func(t *testing.T, req llmtest.Request) {
			assert.EqualValues(t, 16384, req.Field("thinking.budget_tokens"))
		}, "high"},
		{"anthropic off", "anthropic/claude-sonnet-4-5", nil, func(t *testing.T, req llmtest.Request) {
			assert.Equal(t, map[string]any{"type": "disabled"}, req.Field("thinking"), "a reasoning model is told, as pi tells it")
		}, "off"},
		{"config thinking", "anthropic/claude-sonnet-4-5", []string{"config:low"}, func(t *testing.T, req llmtest.Request) {
			assert.EqualValues(t, 2048, req.Field("thinking.budget_tokens"))
		}, "low"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newE2E(t)
			e.srv.Reply(llmtest.Thinking("hmm"), llmtest.Text("ok"))
			base := e.srv.URL()
			if strings.HasPrefix(tt.model, "anthropic/") {
				base = e.srv.RootURL()
			}
			args := []string{"--model", tt.model, "--base-url", base, "--api-key", "sk-test", "-p", "x"}
			if len(tt.args) == 1 && strings.HasPrefix(tt.args[0], "config:") {
				writeFile(t, filepath.Join(e.home, "config", "config.json"), `{"thinking":"`+strings.TrimPrefix(tt.args[0], "config:")+`"}`)
			} else {
				args = append(args, tt.args...)
			}
			cmd := exec.Command(lunarBin, args...)
			cmd.Dir = e.cwd
			cmd.Env = append(os.Environ(), "LUNAR_HOME="+e.home)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			require.NoError(t, cmd.Run(), errb.String())
			assert.Equal(t, "ok\n", out.String(), "thinking never reaches stdout")
			reqs := e.srv.Requests()
			require.Len(t, reqs, 1)
			tt.check(t, reqs[0])

			s := e.onlySession()
			assert.Equal(t, tt.recorded, s.BuildContext().ThinkingLevel)
			msgs := s.BuildContext().Messages
			require.Len(t, msgs, 2)
			assert.Equal(t, session.BlockThinking, msgs[1].Message.Content[0].Type)
			assert.Equal(t, "hmm", msgs[1].Message.Content[0].Thinking)
		})
	}
}

func TestAnthropicPromptCaching(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.api = "anthropic"
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo hi"}`), llmtest.Usage(1000, 10, 0, 900))
	e.srv.Reply(llmtest.Text("done"), llmtest.Usage(30, 2, 900, 40))
	r := e.run("", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	for i, req := range reqs {
		assert.Equal(t, "ephemeral", req.Field("system.0.cache_control.type"), "request %d: system prompt cached", i+1)
		msgs := req.JSON["messages"].([]any)
		last := msgs[len(msgs)-1].(map[string]any)
		assert.Equal(t, "user", last["role"])
		blocks := last["content"].([]any)
		cc := blocks[len(blocks)-1].(map[string]any)["cache_control"]
		assert.Equal(t, map[string]any{"type": "ephemeral"}, cc, "request %d: last user block cached", i+1)
		for _, m := range msgs[:len(msgs)-1] {
			for _, b := range m.(map[string]any)["content"].([]any) {
				assert.Nil(t, b.(map[string]any)["cache_control"], "only the last user turn is marked")
			}
		}
	}
	msgs := e.onlySession().BuildContext().Messages
	u := msgs[len(msgs)-1].Message.Usage
	assert.Equal(t, 900, u.CacheRead)
	assert.Equal(t, 40, u.CacheWrite)
	assert.InDelta(t, 30*3/1e6+2*15/1e6+900*0.30/1e6+40*3.75/1e6, u.Cost.Total, 1e-12, "priced from the model table")
}

func TestContextOverflowExitsWithAClearMessage(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			e := newE2E(t)
			e.api = api
			e.srv.Reply(llmtest.ContextOverflow(250000, 200000))
			r := e.run("", "-p", "a very long prompt")
			assert.Equal(t, 1, r.code)
			assert.Empty(t, r.stdout)
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			require.Len(t, lines, 1, r.stderr)
			assert.Contains(t, lines[0], "context overflow")
			assert.Contains(t, lines[0], "context window")
			assert.Contains(t, lines[0], "400")
			assert.Len(t, e.srv.Requests(), 1, "an overflow is not retried")
			msgs := e.onlySession().BuildContext().Messages
			require.Len(t, msgs, 2)
			assert.Equal(t, session.StopError, msgs[1].Message.StopReason)
		})
	}
}

func TestReplyEndingInError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		parts []llmtest.Part
		want  string
	}{
		{"stream error", []llmtest.Part{llmtest.Text("partial "), llmtest.StreamError("overloaded_error", "Overloaded")}, "Overloaded"},
		{"disconnect", []llmtest.Part{llmtest.Text("partial "), llmtest.Disconnect()}, "stream"},
		{"401", []llmtest.Part{llmtest.Status(401).Message("invalid x-api-key")}, "401"},
	}
	for _, api := range []string{"openai", "anthropic"} {
		for _, tt := range tests {
			t.Run(api+"/"+tt.name, func(t *testing.T) {
				e := newE2E(t)
				e.api = api
				e.srv.Reply(tt.parts...)
				r := e.run("", "-p", "x")
				assert.Equal(t, 1, r.code, r.stderr)
				assert.Contains(t, r.stderr, tt.want)
				assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
				if strings.HasPrefix(tt.name, "4") {
					assert.Empty(t, r.stdout)
				} else {
					assert.Equal(t, "partial \n", r.stdout, "what streamed stays")
				}
				msgs := e.onlySession().BuildContext().Messages
				require.Len(t, msgs, 2)
				assert.Equal(t, session.StopError, msgs[1].Message.StopReason)
				assert.NotEmpty(t, msgs[1].Message.ErrorMessage())
			})
		}
	}
}

func TestMissingKeyIsOneLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ model, env string }{
		{"anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY"},
		{"openai/gpt-4.1", "OPENAI_API_KEY"},
		{"google/gemini-2.5-pro", "GEMINI_API_KEY"},
		{"groq/llama-3.3-70b-versatile", "GROQ_API_KEY"},
	} {
		t.Run(tc.model, func(t *testing.T) {
			e := newE2E(t)
			cmd := exec.Command(lunarBin, "--model", tc.model, "--base-url", e.srv.URL(), "-p", "hi")
			cmd.Dir = e.cwd
			cmd.Env = []string{"LUNAR_HOME=" + e.home, "PATH=" + os.Getenv("PATH"), "HOME=" + e.home}
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee)
			assert.Equal(t, 1, ee.ExitCode())
			assert.Empty(t, out.String())
			assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "one line: %q", errb.String())
			assert.Contains(t, errb.String(), "set "+tc.env)
			assert.Empty(t, e.srv.Requests(), "nothing is sent without a key")
			assert.Empty(t, e.sessionFiles(), "no session file for a run that never reached the model")
		})
	}
}

func TestOllamaNeedsNoKey(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("local answer"))
	cmd := exec.Command(lunarBin, "--model", "ollama/qwen2.5-coder", "--base-url", e.srv.URL(), "-p", "hi")
	cmd.Dir = e.cwd
	cmd.Env = []string{"LUNAR_HOME=" + e.home, "PATH=" + os.Getenv("PATH"), "HOME=" + e.home}
	out, err := cmd.Output()
	require.NoError(t, err)
	assert.Equal(t, "local answer\n", string(out))
	req := e.srv.Requests()[0]
	assert.Equal(t, "qwen2.5-coder", req.Field("model"))
	assert.Empty(t, strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer"), "no key sent")
}

func TestProviderFlag(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("ok"))
	cmd := exec.Command(lunarBin, "--provider", "groq", "--model", "my-new-model", "--base-url", e.srv.URL(), "-p", "hi")
	cmd.Dir = e.cwd
	cmd.Env = append(os.Environ(), "LUNAR_HOME="+e.home, "GROQ_API_KEY=gsk-from-env")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	req := e.srv.Requests()[0]
	assert.Equal(t, "my-new-model", req.Field("model"), "an id the table does not know works")
	assert.Equal(t, "Bearer gsk-from-env", req.Header.Get("Authorization"))
	c := e.onlySession().BuildContext()
	assert.Equal(t, "groq", c.Provider)
	assert.Equal(t, "my-new-model", c.ModelID)
}

func TestConfigChoosesModelAndProvider(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	writeFile(t, filepath.Join(e.home, "config", "config.json"), `{
  "model": "local/coder-7b",
  "thinking": "high",
  "providers": {
    "local": {"base_url": "`+e.srv.URL()+`", "api_key_env": "LOCAL_KEY",
      "headers": {"X-Team": "lunar"},
      "models": [{"id": "coder-7b", "context_window": 32768, "reasoning": true, "cost_input": 1, "cost_output": 2}]}
  }
}`)
	writeFile(t, filepath.Join(e.cwd, ".lunar", "config.json"), `{"thinking": "low"}`)

	// The project config waits for trust.
	e.srv.Reply(llmtest.Text("untrusted"))
	cmd := exec.Command(lunarBin, "-p", "hi", "--no-session")
	cmd.Dir = e.cwd
	cmd.Env = append(os.Environ(), "LUNAR_HOME="+e.home, "LOCAL_KEY=local-secret")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "lunar: warning: project config "+filepath.Join(e.cwd, ".lunar", "config.json")+
		" is not trusted: skipped (run lunar in a terminal to review and trust it, or pass --trust)\n")
	assert.Equal(t, "high", e.srv.Requests()[0].Field("reasoning_effort"), "the global config alone")

	e.srv.Reply(llmtest.Text("from config"), llmtest.Usage(1000000, 1000000, 0, 0))
	cmd = exec.Command(lunarBin, "-p", "hi", "--trust")
	cmd.Dir = e.cwd
	cmd.Env = append(os.Environ(), "LUNAR_HOME="+e.home, "LOCAL_KEY=local-secret")
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "from config\n", string(out))
	req := e.srv.Requests()[1]
	assert.Equal(t, "coder-7b", req.Field("model"))
	assert.Equal(t, "low", req.Field("reasoning_effort"), "the project config overrides the global one")
	assert.Equal(t, "lunar", req.Header.Get("X-Team"))
	assert.Equal(t, "Bearer local-secret", req.Header.Get("Authorization"))
	msgs := e.onlySession().BuildContext().Messages
	assert.InDelta(t, 3.0, msgs[1].Message.Usage.Cost.Total, 1e-9, "custom prices")

	// without the key
	cmd = exec.Command(lunarBin, "-p", "hi")
	cmd.Dir = e.cwd
	cmd.Env = append(os.Environ(), "LUNAR_HOME="+e.home, "LOCAL_KEY=")
	out, _ = cmd.CombinedOutput()
	assert.Contains(t, string(out), "set LOCAL_KEY")
}

func TestMalformedConfigNamesFileAndLine(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	path := filepath.Join(e.cwd, ".lunar", "config.json")
	writeFile(t, path, "{\n  \"model\": \"openai/gpt-4.1\",\n  \"thinkng\": \"low\"\n}\n")
	r := e.run("", "-p", "x", "--trust")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, path+":3")
	assert.Contains(t, r.stderr, `"thinkng"`)
	assert.Empty(t, r.stdout)
	assert.Empty(t, e.srv.Requests())
}

func TestXDGPaths(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	cfg, data, state := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(cfg, "lunar", "AGENTS.md"), "XDG-CONFIG-RULE\n")
	e.srv.Reply(llmtest.Text("ok"))
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LUNAR_HOME=") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command(lunarBin, append(e.modelArgs(), "-p", "x")...)
	cmd.Dir = e.cwd
	cmd.Env = append(env, "HOME="+e.home, "XDG_CONFIG_HOME="+cfg, "XDG_DATA_HOME="+data, "XDG_STATE_HOME="+state)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, systemPrompt(t, e.srv.Requests()[0]), "XDG-CONFIG-RULE")
	files, _ := filepath.Glob(filepath.Join(session.Dir(filepath.Join(data, "lunar", "sessions"), e.cwd), "*.jsonl"))
	assert.Len(t, files, 1, "sessions under $XDG_DATA_HOME/lunar/sessions/--cwd--/")
}

func TestListModels(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	writeFile(t, filepath.Join(e.home, "config", "config.json"),
		`{"providers":{"local":{"base_url":"http://127.0.0.1:1/v1","models":[{"id":"tiny-1b","context_window":4096},{"id":"see-2b","input":["text","image"]}]}}}`)
	cmd := exec.Command(lunarBin, "--list-models")
	cmd.Dir = e.cwd
	cmd.Env = []string{"LUNAR_HOME=" + e.home, "PATH=" + os.Getenv("PATH"), "HOME=" + e.home}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), errb.String())
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	require.Greater(t, len(lines), 20)
	assert.Equal(t, []string{"provider", "model", "context", "$in/M", "$out/M", "thinking", "images"}, strings.Fields(lines[0]))
	find := func(provider, id string) []string {
		for _, l := range lines[1:] {
			if f := strings.Fields(l); len(f) == 7 && f[0] == provider && f[1] == id {
				return f
			}
		}
		return nil
	}
	assert.Equal(t, []string{"anthropic", "claude-sonnet-4-5", "200000", "3.00", "15.00", "yes", "yes"}, find("anthropic", "claude-sonnet-4-5"))
	assert.NotNil(t, find("openai", "gpt-4.1"))
	assert.NotNil(t, find("ollama", "llama3.1"))
	for _, p := range []string{"openrouter", "groq", "google", "xai", "deepseek", "mistral"} {
		found := false
		for _, l := range lines[1:] {
			found = found || strings.HasPrefix(l, p+" ")
		}
		assert.True(t, found, "provider %s listed", p)
	}
	assert.Equal(t, []string{"local", "tiny-1b", "4096", "0.00", "0.00", "no", "no"}, find("local", "tiny-1b"), "config models listed")
	assert.Equal(t, "yes", find("local", "see-2b")[6], "with the inputs they take")
	assert.Equal(t, "no", find("deepseek", "deepseek-chat")[6])
	assert.Empty(t, e.srv.Requests())
	assert.Empty(t, e.sessionFiles())
}

func TestAPIKeyNeverWrittenAnywhere(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	const key = "sk-very-secret-key-123456"
	e.srv.Reply(llmtest.Status(401).Message("Incorrect API key provided: " + key))
	cmd := exec.Command(lunarBin, "--model", "openai/gpt-4.1", "--base-url", e.srv.URL(), "--mode", "json", "-p", "x")
	cmd.Dir = e.cwd
	cmd.Env = append(os.Environ(), "LUNAR_HOME="+e.home, "OPENAI_API_KEY="+key)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	_ = cmd.Run()
	assert.Equal(t, "Bearer "+key, e.srv.Requests()[0].Header.Get("Authorization"))
	assert.NotContains(t, out.String(), key)
	assert.NotContains(t, errb.String(), key)
	assert.Contains(t, errb.String(), "401")
	raw, err := os.ReadFile(e.onlySession().File())
	require.NoError(t, err)
	assert.NotContains(t, string(raw), key)
	var lines []json.RawMessage
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		lines = append(lines, json.RawMessage(l))
	}
	assert.NotEmpty(t, lines)
}
