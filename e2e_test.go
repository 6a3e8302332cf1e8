// End-to-end tests of the one-shot mode: the binary run as a user would,
// against the in-repo fake LLM server (the harness is in harness_test.go).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

func TestOneShotPlainAnswer(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			e := newE2E(t)
			e.api = api
			e.srv.Reply(llmtest.Text("Hello there.").Split(3), llmtest.Usage(12, 3, 0, 0))
			r := e.run("", "-p", "say hello")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, "Hello there.\n", r.stdout)
			reqs := e.srv.Requests()
			require.Len(t, reqs, 1)
			assert.Contains(t, string(reqs[0].Body), "say hello")
			assert.NotContains(t, r.stderr, "sk-test")

			s := e.onlySession()
			assert.Equal(t, 3, s.Header().Version)
			msgs := s.BuildContext().Messages
			require.Len(t, msgs, 2)
			assert.Equal(t, "say hello", msgs[0].Message.Text())
			assert.Equal(t, "Hello there.", msgs[1].Message.Text())
			assert.Equal(t, 12, msgs[1].Message.Usage.Input)
			raw, err := os.ReadFile(s.File())
			require.NoError(t, err)
			assert.NotContains(t, string(raw), "sk-test", "the API key never reaches the session file")
		})
	}
}

// Two text blocks of one reply are printed on their own lines, as pi does.
func TestOneShotTextBlocksOnTheirOwnLines(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.api = "anthropic"
	e.srv.Reply(llmtest.Text("First part."), llmtest.Text("Second part."))
	r := e.run("", "-p", "two blocks")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "First part.\nSecond part.\n", r.stdout)
}

func TestOneShotStdinIsAppendedToPrompt(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("line one\nline two\n", "-p", "summarise")
	require.Equal(t, 0, r.code, r.stderr)
	body := string(e.srv.Requests()[0].Body)
	assert.Contains(t, body, `summarise\n\nline one\nline two`)

	e.srv.Reply(llmtest.Text("ok"))
	r = e.run("only stdin")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, string(e.srv.Requests()[1].Body), "only stdin")
}

func TestOneShotToolLoop(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			e := newE2E(t)
			e.api = api
			e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo from-bash"}`).Split(4))
			e.srv.Reply(llmtest.Text("The command printed from-bash."))
			r := e.run("", "-p", "run it")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, "The command printed from-bash.\n", r.stdout, "stdout carries only the answer")
			assert.Contains(t, r.stderr, "→ bash  echo from-bash")
			reqs := e.srv.Requests()
			require.Len(t, reqs, 2)
			assert.Contains(t, string(reqs[1].Body), "from-bash\\n")

			msgs := e.onlySession().BuildContext().Messages
			require.Len(t, msgs, 4)
			assert.Equal(t, session.RoleToolResult, msgs[2].Message.Role)
			assert.Equal(t, "bash", msgs[2].Message.ToolName)
			assert.False(t, msgs[2].Message.IsError)
		})
	}
}

func TestOneShotEditsAFile(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			e := newE2E(t)
			e.api = api
			path := filepath.Join(e.cwd, "hello.txt")
			require.NoError(t, os.WriteFile(path, []byte("hello world\nbye world\n"), 0o644))
			e.srv.Reply(llmtest.ToolCall("edit", `{"path":"hello.txt","edits":[{"oldText":"hello world","newText":"hello lunar"},{"oldText":"bye","newText":"see you"}]}`))
			e.srv.Reply(llmtest.ToolCall("edit", `{"path":"hello.txt","oldText":"see you world","newText":"see you soon"}`))
			e.srv.Reply(llmtest.ToolCall("write", `{"path":"new/notes.txt","content":"fresh\n"}`))
			e.srv.Reply(llmtest.Text("Edited."))
			r := e.run("", "-p", "change world to lunar")
			require.Equal(t, 0, r.code, r.stderr)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, "hello lunar\nsee you soon\n", string(data), "pi's edits array and the single old/new form")
			data, err = os.ReadFile(filepath.Join(e.cwd, "new", "notes.txt"))
			require.NoError(t, err)
			assert.Equal(t, "fresh\n", string(data))
			for _, m := range e.onlySession().BuildContext().Messages {
				assert.False(t, m.Message.IsError, m.Message.Text())
			}
		})
	}
}

func TestOneShotMalformedToolArguments(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			e := newE2E(t)
			e.api = api
			e.srv.Reply(llmtest.ToolCall("bash", `{"command": "ls`).Split(3))
			e.srv.Reply(llmtest.Text("Sorry."))
			r := e.run("", "-p", "list")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, "Sorry.\n", r.stdout)
			msgs := e.onlySession().BuildContext().Messages
			require.Len(t, msgs, 4)
			assert.True(t, msgs[2].Message.IsError)
			assert.Contains(t, msgs[2].Message.Text(), "Invalid arguments")
			assert.Contains(t, string(e.srv.Requests()[1].Body), "Invalid arguments", "the model is told")
		})
	}
}

func TestOneShotSessionByIDAndNoSession(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("one"))
	require.Equal(t, 0, e.run("", "-p", "q1").code)
	id := e.onlySession().ID()

	e.srv.Reply(llmtest.Text("two"))
	r := e.run("", "--session", id[:13], "-p", "q2")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, e.onlySession().BuildContext().Messages, 4)

	e.srv.Reply(llmtest.Text("three"))
	r = e.run("", "--no-session", "-p", "q3")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, e.sessionFiles(), 1, "--no-session writes nothing")
}

func TestOneShotRetryThenSuccess(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"openai", "anthropic"} {
		for _, status := range []int{429, 503, 529} {
			t.Run(fmt.Sprintf("%s/%d", api, status), func(t *testing.T) {
				e := newE2E(t)
				e.api = api
				e.srv.Reply(llmtest.Status(status).RetryAfter("0"))
				e.srv.Reply(llmtest.Text("finally"))
				r := e.run("", "-p", "hi")
				require.Equal(t, 0, r.code, r.stderr)
				assert.Equal(t, "finally\n", r.stdout)
				assert.Empty(t, r.stderr)
				assert.Len(t, e.srv.Requests(), 2)
				assert.Len(t, e.onlySession().BuildContext().Messages, 2, "the failed attempt leaves nothing")
			})
		}
	}
}

func TestOneShotServerErrorForever(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			e := newE2E(t)
			e.api = api
			e.srv.SetDefault(llmtest.Status(500).RetryAfter("0").Message("upstream exploded"))
			start := time.Now()
			r := e.run("", "-p", "hi")
			assert.Equal(t, 1, r.code)
			assert.Empty(t, r.stdout)
			assert.Contains(t, r.stderr, "500")
			assert.Contains(t, r.stderr, "upstream exploded")
			assert.Less(t, time.Since(start), 20*time.Second)
			assert.Equal(t, 1, strings.Count(strings.TrimSpace(r.stderr), "\n")+1, "one clear line: %q", r.stderr)
			assert.Len(t, e.srv.Requests(), 3, "LUNAR_MAX_RETRIES=2: three attempts")
		})
	}
}

func TestOneShotJSONModeErrorExitCode(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.SetDefault(llmtest.Status(401).Message("bad key"))
	r := e.run("", "--mode", "json", "-p", "go")
	assert.Equal(t, 1, r.code, "json mode exits 1 like text mode")
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"--frobnicate", "-p", "x"}, "unknown flag"},
		{"bad thinking", []string{"--thinking", "max", "-p", "x"}, "--thinking"},
		{"bad mode", []string{"--mode", "xml", "-p", "x"}, "--mode"},
		{"no prompt", []string{"-p", ""}, "no prompt"},
		{"unknown tool", []string{"--tools", "read,frob", "-p", "x"}, "frob"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.run("", tt.args...)
			assert.Equal(t, 2, r.code, r.stderr)
			assert.Contains(t, r.stderr, tt.want)
			assert.Empty(t, r.stdout)
		})
	}
}

func TestVersionAndHelp(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	r := e.run("", "--version")
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "lunar ")
	r = e.run("", "--help")
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "Examples:")
}
