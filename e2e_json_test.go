// End-to-end tests of --mode json: pi's event lines on stdout, nothing
// else there, and the same exit codes as text mode.
package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// jsonLines parses every stdout line as a JSON object; any other line fails
// the test.
func jsonLines(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for i, line := range strings.Split(strings.TrimRight(stdout, "\n"), "\n") {
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &v), "line %d is a JSON object: %q", i+1, line)
		require.IsType(t, "", v["type"], "line %d has a type", i+1)
		out = append(out, v)
	}
	return out
}

func types(evs []map[string]any) []string {
	var ts []string
	for _, ev := range evs {
		t := ev["type"].(string)
		if t == "message_update" {
			t += "/" + ev["assistantMessageEvent"].(map[string]any)["type"].(string)
		} else if m, ok := ev["message"].(map[string]any); ok && t != "turn_end" {
			t += "/" + m["role"].(string)
		}
		ts = append(ts, t)
	}
	return ts
}

func dedup(ts []string) []string {
	var out []string
	for _, t := range ts {
		if len(out) == 0 || out[len(out)-1] != t {
			out = append(out, t)
		}
	}
	return out
}

func TestJSONModeEventsHavePisShape(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			e := newE2E(t)
			e.api = api
			e.srv.Reply(llmtest.Text("Checking."), llmtest.ToolCall("bash", `{"command":"echo x"}`).WithID("call_1").Split(2))
			e.srv.Reply(llmtest.Text("It printed x."), llmtest.Usage(50, 4, 0, 0))
			r := e.run("", "--mode", "json", "-p", "go")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Empty(t, r.stderr, "json mode prints no tool lines on stderr")
			evs := jsonLines(t, r.stdout)

			assert.Equal(t, []string{ // runs of the same event shown once
				"session", "agent_start", "turn_start", "message_start/user", "message_end/user",
				"message_start/assistant",
				"message_update/text_start", "message_update/text_delta", "message_update/text_end",
				"message_update/toolcall_start", "message_update/toolcall_delta", "message_update/toolcall_end",
				"message_end/assistant",
				"tool_execution_start", "tool_execution_update", "tool_execution_end", "message_start/toolResult", "message_end/toolResult", "turn_end",
				"turn_start", "message_start/assistant",
				"message_update/text_start", "message_update/text_delta", "message_update/text_end",
				"message_end/assistant", "turn_end", "agent_end",
			}, dedup(types(evs)))
			n := 0
			for _, ty := range types(evs) {
				if ty == "message_update/toolcall_delta" {
					n++
				}
			}
			assert.Equal(t, 3, n, "the opening chunk's empty delta (as pi's), then the arguments in two")

			s := e.onlySession()
			head := evs[0]
			assert.EqualValues(t, 3, head["version"])
			assert.Equal(t, s.ID(), head["id"])
			assert.Equal(t, e.cwd, head["cwd"])

			byType := func(typ string, n int) map[string]any {
				for _, ev := range evs {
					tt := types([]map[string]any{ev})[0]
					if tt == typ {
						if n == 0 {
							return ev
						}
						n--
					}
				}
				t.Fatalf("no %s #%d", typ, n)
				return nil
			}
			delta := byType("message_update/text_delta", 0)
			ame := delta["assistantMessageEvent"].(map[string]any)
			assert.EqualValues(t, 0, ame["contentIndex"])
			assert.Equal(t, "Checking.", byType("message_update/text_end", 0)["assistantMessageEvent"].(map[string]any)["partial"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"])
			assert.NotEmpty(t, ame["delta"])
			assert.Equal(t, "assistant", ame["partial"].(map[string]any)["role"])
			assert.Equal(t, "assistant", delta["message"].(map[string]any)["role"])
			assert.Equal(t, "Checking.", byType("message_update/text_end", 0)["assistantMessageEvent"].(map[string]any)["content"])

			tcEnd := byType("message_update/toolcall_end", 0)["assistantMessageEvent"].(map[string]any)
			assert.EqualValues(t, 1, tcEnd["contentIndex"])
			tc := tcEnd["toolCall"].(map[string]any)
			assert.Equal(t, map[string]any{"type": "toolCall", "id": tc["id"], "name": "bash", "arguments": map[string]any{"command": "echo x"}}, tc)

			start := byType("tool_execution_start", 0)
			assert.Equal(t, "bash", start["toolName"])
			assert.Equal(t, tc["id"], start["toolCallId"])
			assert.Equal(t, map[string]any{"command": "echo x"}, start["args"])
			end := byType("tool_execution_end", 0)
			assert.Equal(t, false, end["isError"])
			assert.Equal(t, []any{map[string]any{"type": "text", "text": "x\n"}}, end["result"].(map[string]any)["content"])

			turnEnd := byType("turn_end", 0)
			assert.Equal(t, "toolUse", turnEnd["message"].(map[string]any)["stopReason"])
			require.Len(t, turnEnd["toolResults"], 1)
			assert.Equal(t, "toolResult", turnEnd["toolResults"].([]any)[0].(map[string]any)["role"])
			assert.Empty(t, byType("turn_end", 1)["toolResults"])

			final := byType("message_end/assistant", 1)["message"].(map[string]any)
			assert.Equal(t, "stop", final["stopReason"])
			assert.EqualValues(t, 50, final["usage"].(map[string]any)["input"])

			agentEnd := evs[len(evs)-1]
			msgs := agentEnd["messages"].([]any)
			require.Len(t, msgs, 4)
			var roles []string
			for _, m := range msgs {
				roles = append(roles, m.(map[string]any)["role"].(string))
			}
			assert.Equal(t, []string{"user", "assistant", "toolResult", "assistant"}, roles)

			// the messages of message_end are what the session stored
			stored := s.BuildContext().Messages
			for i, m := range msgs {
				want, err := json.Marshal(stored[i].Message)
				require.NoError(t, err)
				got, err := json.Marshal(m)
				require.NoError(t, err)
				assert.JSONEq(t, string(want), string(got), "message %d", i)
			}
		})
	}
}

func TestJSONModeThinkingEvents(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.api = "anthropic"
	e.srv.Reply(llmtest.Thinking("let me think").Split(2), llmtest.Text("ok"))
	r := e.run("", "--mode", "json", "--thinking", "low", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	evs := jsonLines(t, r.stdout)
	ts := types(evs)
	assert.Contains(t, ts, "message_update/thinking_start")
	assert.Contains(t, ts, "message_update/thinking_delta")
	for _, ev := range evs {
		if ame, ok := ev["assistantMessageEvent"].(map[string]any); ok && ame["type"] == "thinking_end" {
			assert.Equal(t, "let me think", ame["content"])
		}
	}
}

// TestJSONModeSettingsEvents: as pi's --mode json writes every session
// event, a hook command that changes the thinking level and names the
// session writes thinking_level_changed and session_info_changed.
func TestJSONModeSettingsEvents(t *testing.T) {
	e := newE2E(t)
	e.hkGlobal("rpc_ui.lua")
	r := e.run("", "--mode", "json", "-p", "/settings medium")
	require.Equal(t, 0, r.code, r.stderr)
	evs := jsonLines(t, r.stdout)
	require.Len(t, evs, 3, r.stdout)
	assert.Equal(t, "session", evs[0]["type"])
	assert.Equal(t, map[string]any{"type": "thinking_level_changed", "level": "medium"}, evs[1])
	assert.Equal(t, map[string]any{"type": "session_info_changed", "name": "named by /settings medium"}, evs[2])
	assert.Empty(t, e.srv.Requests(), "no run")
}

func TestJSONModeExitCodes(t *testing.T) {
	t.Parallel()
	t.Run("provider error", func(t *testing.T) {
		e := newE2E(t)
		e.srv.Reply(llmtest.Text("partial"), llmtest.StreamError("server_error", "The server had an error"))
		r := e.run("", "--mode", "json", "-p", "go")
		assert.Equal(t, 1, r.code)
		evs := jsonLines(t, r.stdout)
		assert.Equal(t, "agent_end", evs[len(evs)-1]["type"])
		var last map[string]any
		for _, ev := range evs {
			if ev["type"] == "message_end" {
				last = ev["message"].(map[string]any)
			}
		}
		assert.Equal(t, "error", last["stopReason"])
		assert.Contains(t, last["errorMessage"], "The server had an error")
		assert.Contains(t, r.stderr, "The server had an error")
	})
	t.Run("usage error", func(t *testing.T) {
		e := newE2E(t)
		r := e.run("", "--mode", "json", "--thinking", "extreme", "-p", "go")
		assert.Equal(t, 2, r.code)
		assert.Empty(t, r.stdout)
	})
	t.Run("missing key", func(t *testing.T) {
		e := newE2E(t)
		cmd := exec.Command(lunarBin, "--model", "anthropic/claude-sonnet-4-5", "--mode", "json", "-p", "go")
		cmd.Dir = e.cwd
		cmd.Env = []string{"LUNAR_HOME=" + e.home, "PATH=" + os.Getenv("PATH"), "HOME=" + e.home}
		var errb strings.Builder
		cmd.Stderr = &errb
		out, err := cmd.Output()
		require.Error(t, err)
		assert.Equal(t, 1, cmd.ProcessState.ExitCode())
		assert.Contains(t, errb.String(), "ANTHROPIC_API_KEY")
		jsonLines(t, string(out))
	})
	t.Run("interrupted", func(t *testing.T) {
		e := newE2E(t)
		e.srv.Reply(llmtest.Text("so far"), llmtest.Hang())
		r := e.interrupt(func(out, _ string) bool { return strings.Contains(out, `"text":"so far"`) }, "--mode", "json", "-p", "go")
		assert.Equal(t, 130, r.code, r.stderr)
		evs := jsonLines(t, r.stdout)
		assert.Equal(t, "agent_end", evs[len(evs)-1]["type"])
		ae := evs[len(evs)-1]["messages"].([]any)
		last := ae[len(ae)-1].(map[string]any)
		assert.Equal(t, "aborted", last["stopReason"])
		assert.Equal(t, session.StopAborted, e.onlySession().BuildContext().Messages[1].Message.StopReason)
	})
}
