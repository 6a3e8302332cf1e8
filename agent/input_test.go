package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// inputHooks handles "ping", records every chat.message's source, and
// steers once when the first tool result arrives.
type inputHooks struct {
	NopHooks
	rt      *Runtime
	sources []string
	steered bool
}

func (h *inputHooks) ChatMessage(_ context.Context, source, text string, parts []session.ContentBlock) (string, []session.ContentBlock, bool) {
	h.sources = append(h.sources, source+":"+text)
	return text, parts, text == "ping"
}

func (h *inputHooks) AfterTool(_ context.Context, _, _ string, _, _ json.RawMessage, r ToolResult) ToolResult {
	if !h.steered {
		h.steered = true
		h.rt.Steer("steer me", nil)
	}
	return r
}

func TestPromptHandledStoresAndSendsNothing(t *testing.T) {
	rt, srv, _ := newTestRuntime(t, nil)
	h := &inputHooks{rt: rt}
	rt.SetHooks(h, nil)
	var events []string
	rt.SubscribeLoop(func(ev Event) { events = append(events, ev.Type) })
	before := len(rt.Session().Entries())

	require.NoError(t, rt.Prompt(WithInputSource(context.Background(), SourcePrint), "ping", nil))
	assert.Empty(t, srv.Requests())
	assert.Empty(t, events, "no run starts")
	assert.Len(t, rt.Session().Entries(), before)
	assert.Equal(t, []string{"print:ping"}, h.sources)

	srv.Reply(llmtest.Text("hi"))
	require.NoError(t, rt.Prompt(context.Background(), "hello", nil))
	assert.Equal(t, "interactive:hello", h.sources[1], "no source in ctx: interactive")
}

func TestSteerJoinsTheRunningTurn(t *testing.T) {
	rt, srv, _ := newTestRuntime(t, func(o *RuntimeOptions) {
		o.Tools = []*Tool{{Name: "noop", Parameters: json.RawMessage(`{"type":"object"}`),
			Execute: func(context.Context, string, json.RawMessage, func(ToolResult)) (ToolResult, error) {
				return TextResult("done", false), nil
			}}}
	})
	h := &inputHooks{rt: rt}
	rt.SetHooks(h, nil)
	srv.Reply(llmtest.ToolCall("noop", `{}`))
	srv.Reply(llmtest.Text("steered"))
	require.NoError(t, rt.Prompt(context.Background(), "go", nil))
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "steer me", lastUserText(t, reqs[1]))
	assert.Equal(t, []string{"interactive:go", "extension:steer me"}, h.sources, "chat.message sees the steer")
	assert.False(t, rt.HasPending(), "delivered, not queued")

	// Idle, a steer is an ordinary queued prompt.
	rt.Steer("later", nil)
	require.True(t, rt.HasPending())
	assert.Equal(t, "later", rt.TakePending()[0].Text)
}

func TestRunPendingStopsBeforeACommand(t *testing.T) {
	rt, srv, _ := newTestRuntime(t, nil)
	h := &inputHooks{rt: rt}
	rt.SetHooks(h, nil)
	srv.SetDefault(llmtest.Text("ok"))
	rt.Send("first", nil)
	rt.SendCommand("/cmd arg")
	rt.Send("second", nil)
	var prompted []string
	prompt := func(ctx context.Context, text string, images []session.ContentBlock) error {
		prompted = append(prompted, InputSource(ctx)+":"+text)
		return rt.Prompt(ctx, text, images)
	}
	require.NoError(t, rt.RunPending(context.Background(), prompt, rt.Continue))
	assert.Equal(t, []string{"extension:first"}, prompted)
	_, ok := rt.popPending()
	assert.False(t, ok, "the command is next: RunPending leaves it")
	line, ok := rt.TakeCommand()
	require.True(t, ok)
	assert.Equal(t, "/cmd arg", line)
	_, ok = rt.TakeCommand()
	assert.False(t, ok, "a prompt is next")
	require.NoError(t, rt.RunPending(context.Background(), prompt, rt.Continue))
	assert.Equal(t, []string{"extension:first", "extension:second"}, prompted)
}
