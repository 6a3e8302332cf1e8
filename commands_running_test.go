package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// Every built-in has a decision, and the ones that change the session
// under a run never run at once.
func TestBuiltinWhileRunning(t *testing.T) {
	for _, c := range builtinCommands {
		act, why := builtinWhileRunning(c.name, "x")
		if act != busyNow {
			assert.NotEmpty(t, why, c.name)
		}
	}
	for _, tc := range []struct {
		line string
		act  busyAction
	}{
		{"tree", busyNow}, {"model", busyNow}, {"model openai/gpt-4.1", busyQueue}, {"thinking high", busyQueue},
		{"label abc x", busyQueue}, {"compact", busyCompact}, {"branch abc", busyRefuse}, {"clear", busyRefuse},
		{"fork", busyRefuse}, {"resume", busyRefuse}, {"sessions", busyRefuse},
	} {
		name, args, _ := strings.Cut(tc.line, " ")
		act, _ := builtinWhileRunning(name, args)
		assert.Equal(t, tc.act, act, tc.line)
	}
}

// Command lines typed during a run (from inside its tool call): queued,
// scheduled, refused or run now, and the run goes on.
func TestCommandDuringRun(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	reg := agent.NewRegistry(nil)
	m, err := reg.Resolve("openai/gpt-4.1")
	require.NoError(t, err)
	m.BaseURL = srv.URL()
	a := &app{}
	type outcome struct {
		run  bool
		note string
		err  string
	}
	got := map[string]outcome{}
	tool := &agent.Tool{Name: "act", Parameters: json.RawMessage(`{"type":"object"}`),
		Execute: func(context.Context, string, json.RawMessage, func(agent.ToolResult)) (agent.ToolResult, error) {
			h := &luaHost{a: a}
			got["set_model"] = outcome{err: fmt.Sprint(h.SetModel(context.Background(), "openai", "gpt-4.1-mini"))}
			got["set_thinking"] = outcome{err: fmt.Sprint(h.SetThinkingLevel(context.Background(), "high"))}
			for _, line := range []string{"/tree", "/name work", "/branch abc", "/compact", "/my-hook-command"} {
				run, note, err := a.commandDuringRun(line)
				o := outcome{run: run, note: note}
				if err != nil {
					o.err = err.Error()
				}
				got[line] = o
			}
			return agent.TextResult("done", false), nil
		}}
	rt, err := agent.NewRuntime(agent.RuntimeOptions{Registry: reg, Model: m, Tools: []*agent.Tool{tool},
		APIKey: func(agent.Model) (string, error) { return "sk-test", nil }}, session.CreateInMemory(t.TempDir()), false)
	require.NoError(t, err)
	a.agentRuntime = rt
	srv.Reply(llmtest.ToolCall("act", `{}`))
	srv.Reply(llmtest.Text("ok"))
	require.NoError(t, rt.Prompt(context.Background(), "go", nil))

	assert.Equal(t, "cannot change the model while the agent is running", got["set_model"].err, "a hook command's ctx.set_model")
	assert.Equal(t, "cannot change the thinking level while the agent is running", got["set_thinking"].err)
	assert.Equal(t, "gpt-4.1", rt.Model().ID)
	assert.Equal(t, outcome{run: true}, got["/tree"])
	assert.Equal(t, outcome{note: "/name runs when the reply ends"}, got["/name work"])
	assert.Equal(t, "/branch changes the session under the running reply: wait for it to end, or stop it with Ctrl+C", got["/branch abc"].err)
	assert.False(t, got["/branch abc"].run)
	assert.Equal(t, outcome{note: "compacting before the next model call; the reply goes on"}, got["/compact"])
	assert.Equal(t, outcome{run: true}, got["/my-hook-command"], "hook commands run at once")
	line, ok := rt.TakeCommand()
	require.True(t, ok, "/name waits for the run's end")
	assert.Equal(t, "/name work", line)
	assert.Len(t, srv.Requests(), 2, "the compaction found nothing to compact (reported as a warning) and the run went on")
}
