package agent

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/session"
)

// scriptedProvider answers each call with the next scripted reply and
// records the requests it got.
type scriptedProvider struct {
	replies  []func(ctx context.Context, emit func(StreamEvent)) (*session.Message, error)
	requests []*Request
}

func (p *scriptedProvider) Stream(ctx context.Context, req *Request, emit func(StreamEvent)) (*session.Message, error) {
	p.requests = append(p.requests, req)
	if len(p.requests) > len(p.replies) {
		return nil, errors.New("no scripted reply")
	}
	return p.replies[len(p.requests)-1](ctx, emit)
}

func assistant(blocks ...session.ContentBlock) *session.Message {
	stop := session.StopStop
	for _, b := range blocks {
		if b.Type == session.BlockToolCall {
			stop = session.StopToolUse
		}
	}
	return &session.Message{Role: session.RoleAssistant, Content: blocks, API: APIOpenAICompletions, Provider: "test",
		Model: "m", StopReason: stop, Usage: &session.Usage{Input: 10, Output: 5, TotalTokens: 15}, Timestamp: time.Now().UnixMilli()}
}

func reply(m *session.Message) func(context.Context, func(StreamEvent)) (*session.Message, error) {
	return func(_ context.Context, emit func(StreamEvent)) (*session.Message, error) {
		for i, b := range m.Content {
			if b.Type == session.BlockText {
				emit(StreamEvent{Type: StreamTextDelta, ContentIndex: i, Delta: b.Text, Partial: m})
			}
		}
		return m, nil
	}
}

func text(s string) session.ContentBlock {
	return session.ContentBlock{Type: session.BlockText, Text: s}
}
func call(id, name, args string) session.ContentBlock {
	return session.ContentBlock{Type: session.BlockToolCall, ID: id, Name: name, Arguments: json.RawMessage(args)}
}

var echoSchema = json.RawMessage(`{"type":"object","properties":{"msg":{"type":"string"}},"required":["msg"]}`)

func newTestAgent(p *scriptedProvider, ran *[]string) *agent {
	echo := &Tool{Name: "echo", Description: "echo", Parameters: echoSchema,
		Execute: func(ctx context.Context, id string, args json.RawMessage, _ func(ToolResult)) (ToolResult, error) {
			var a struct{ Msg string }
			_ = json.Unmarshal(args, &a)
			*ran = append(*ran, a.Msg)
			if a.Msg == "fail" {
				return ToolResult{}, errors.New("echo failed")
			}
			return TextResult("echo: "+a.Msg, false), nil
		}}
	return &agent{
		Session:     session.CreateInMemory("/tmp"),
		Model:       Model{Provider: "test", ID: "m", API: APIOpenAICompletions, ContextWindow: 1000},
		Tools:       []*Tool{echo},
		NewProvider: func(Model) (Provider, error) { return p, nil },
	}
}

// values copies the messages a request holds by reference.
func values(refs []*session.Message) []session.Message {
	out := make([]session.Message, len(refs))
	for i, m := range refs {
		out[i] = *m
	}
	return out
}

func roles(msgs []session.Message) []string {
	var r []string
	for _, m := range msgs {
		r = append(r, m.Role)
	}
	return r
}

func TestPromptToolLoop(t *testing.T) {
	p := &scriptedProvider{replies: []func(context.Context, func(StreamEvent)) (*session.Message, error){
		reply(assistant(text("checking"), call("c1", "echo", `{"msg":"hi"}`), call("c2", "nope", `{}`), call("c3", "echo", `{"msg":1}`))),
		reply(assistant(text("done"))),
	}}
	var ran []string
	a := newTestAgent(p, &ran)
	var types []string
	a.subscribe(func(ev Event) { types = append(types, ev.Type) })

	require.NoError(t, a.prompt(context.Background(), "go", nil))

	assert.Equal(t, []string{"hi"}, ran, "only the valid call runs")
	require.Len(t, p.requests, 2)
	second := values(p.requests[1].messageRefs())
	assert.Equal(t, []string{"user", "assistant", "toolResult", "toolResult", "toolResult"}, roles(second))
	assert.Equal(t, "echo: hi", second[2].Text())
	assert.False(t, second[2].IsError)
	assert.Contains(t, second[3].Text(), `"nope" not found`)
	assert.True(t, second[3].IsError)
	assert.Contains(t, second[4].Text(), "msg")
	assert.True(t, second[4].IsError)
	assert.Equal(t, "echo", p.requests[0].Tools[0].Name)

	ctxMsgs := a.Session.BuildContext().Messages
	assert.Len(t, ctxMsgs, 6)
	assert.Equal(t, EventAgentStart, types[0])
	assert.Equal(t, EventAgentEnd, types[len(types)-1])
	assert.Contains(t, types, EventToolExecutionStart)
}

func TestPromptProviderErrorIsKept(t *testing.T) {
	p := &scriptedProvider{replies: []func(context.Context, func(StreamEvent)) (*session.Message, error){
		func(context.Context, func(StreamEvent)) (*session.Message, error) {
			m := assistant(text("part"))
			m.StopReason = session.StopError
			m.SetErrorMessage("boom")
			return m, errors.New("openai: 500 boom")
		},
	}}
	var ran []string
	a := newTestAgent(p, &ran)
	err := a.prompt(context.Background(), "go", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "500 boom")
	msgs := a.Session.BuildContext().Messages
	require.Len(t, msgs, 2)
	assert.Equal(t, session.StopError, msgs[1].Message.StopReason)
	assert.NotErrorIs(t, err, ErrContextOverflow)
}

func TestPromptContextOverflowIsMarked(t *testing.T) {
	p := &scriptedProvider{replies: []func(context.Context, func(StreamEvent)) (*session.Message, error){
		func(context.Context, func(StreamEvent)) (*session.Message, error) {
			m := assistant()
			msg := "openai: 400 bad request (context_length_exceeded): This model's maximum context length is 1000 tokens."
			m.StopReason = session.StopError
			m.SetErrorMessage(msg)
			return m, errors.New(msg)
		},
	}}
	var ran []string
	a := newTestAgent(p, &ran)
	err := a.prompt(context.Background(), "go", nil)
	require.ErrorIs(t, err, ErrContextOverflow)
	assert.Equal(t, "openai: 400 bad request (context_length_exceeded): This model's maximum context length is 1000 tokens.", err.Error(),
		"the message stays the provider's")
}

// TestEventOrder checks the order of loop events against pi's: agent_start,
// turn_start, then the prompt's messages, the reply, tools, turn_end; the
// next turns start with turn_start.
func TestEventOrder(t *testing.T) {
	p := &scriptedProvider{replies: []func(context.Context, func(StreamEvent)) (*session.Message, error){
		reply(assistant(call("c1", "echo", `{"msg":"hi"}`))),
		reply(assistant(text("done"))),
		reply(assistant(text("again"))),
	}}
	var ran []string
	a := newTestAgent(p, &ran)
	var got []string
	a.subscribe(func(ev Event) {
		s := ev.Type
		if ev.Message != nil && ev.Type != EventTurnEnd {
			s += ":" + ev.Message.Role
		}
		if ev.Type == EventMessageUpdate {
			return
		}
		got = append(got, s)
	})
	require.NoError(t, a.prompt(context.Background(), "go", nil))
	assert.Equal(t, []string{
		EventAgentStart, EventTurnStart, "message_start:user", "message_end:user",
		"message_start:assistant", "message_end:assistant",
		EventToolExecutionStart, EventToolExecutionEnd, "message_start:toolResult", "message_end:toolResult", EventTurnEnd,
		EventTurnStart, "message_start:assistant", "message_end:assistant", EventTurnEnd, EventAgentEnd,
	}, got)

	got = nil
	require.NoError(t, a.continueRun(context.Background()))
	assert.Equal(t, []string{EventAgentStart, EventTurnStart, "message_start:assistant", "message_end:assistant", EventTurnEnd, EventAgentEnd}, got)
}

func TestAbortDuringToolsAnswersEveryCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := &scriptedProvider{replies: []func(context.Context, func(StreamEvent)) (*session.Message, error){
		reply(assistant(call("c1", "slow", `{}`), call("c2", "slow", `{}`))),
	}}
	var ran []string
	a := newTestAgent(p, &ran)
	a.Tools = append(a.Tools, &Tool{Name: "slow", Parameters: json.RawMessage(`{"type":"object"}`),
		Execute: func(ctx context.Context, _ string, _ json.RawMessage, _ func(ToolResult)) (ToolResult, error) {
			cancel()
			<-ctx.Done()
			return TextResult("Command aborted", true), nil
		}})
	err := a.prompt(ctx, "go", nil)
	require.ErrorIs(t, err, ErrAborted)
	msgs := a.Session.BuildContext().Messages
	assert.Equal(t, []string{"user", "assistant", "toolResult", "toolResult"}, roles(plain(msgs)))
	assert.Equal(t, "Tool execution aborted", msgs[3].Message.Text())
}

func plain(c []ContextMessage) []session.Message {
	out := make([]session.Message, len(c))
	for i := range c {
		out[i] = c[i].Message
	}
	return out
}

// recordingHooks exercises every transform point of the loop.
type recordingHooks struct {
	NopHooks
	notified []string
}

func (h *recordingHooks) Context(_ context.Context, m []ContextMessage) []ContextMessage {
	extra := ContextMessage{Message: session.Message{Role: session.RoleUser, Content: []session.ContentBlock{text("injected")}}}
	return append([]ContextMessage{extra}, m...)
}
func (h *recordingHooks) SystemPrompt(_ context.Context, p string) string { return p + " +hook" }
func (h *recordingHooks) Auth(context.Context, string, string) AuthOverride {
	return AuthOverride{APIKey: "hook-key", Headers: map[string]string{"X-Hook": "1"}}
}
func (h *recordingHooks) BeforeTool(_ context.Context, name, _ string, in json.RawMessage) ToolCallDecision {
	if string(in) == `{"msg":"blocked"}` {
		return ToolCallDecision{Block: true, Reason: "no way"}
	}
	return ToolCallDecision{Input: json.RawMessage(`{"msg":"rewritten"}`)}
}
func (h *recordingHooks) AfterTool(_ context.Context, _, _ string, _, _ json.RawMessage, r ToolResult) ToolResult {
	r.Content = append(r.Content, text(" (after)"))
	return r
}
func (h *recordingHooks) Notify(_ context.Context, ev Event) {
	h.notified = append(h.notified, ev.Type)
}

func TestHooksShapeRequestsAndTools(t *testing.T) {
	p := &scriptedProvider{replies: []func(context.Context, func(StreamEvent)) (*session.Message, error){
		reply(assistant(call("c1", "echo", `{"msg":"blocked"}`), call("c2", "echo", `{"msg":"x"}`))),
		reply(assistant(text("ok"))),
	}}
	var ran []string
	a := newTestAgent(p, &ran)
	h := &recordingHooks{}
	a.Hooks = h
	a.SystemPrompt = "base"
	require.NoError(t, a.prompt(context.Background(), "go", nil))

	assert.Equal(t, []string{"rewritten"}, ran, "blocked call never runs; input rewritten")
	req := p.requests[0]
	assert.Equal(t, "base +hook", req.SystemPrompt)
	assert.Equal(t, "hook-key", req.APIKey)
	assert.Equal(t, "1", req.Headers["X-Hook"])
	assert.Equal(t, "injected", req.messageRefs()[0].Text())
	second := values(p.requests[1].messageRefs())
	assert.Equal(t, "no way (after)", second[3].Text())
	assert.Equal(t, "echo: rewritten (after)", second[4].Text())
	// the context hook never reaches the session
	assert.Len(t, a.Session.BuildContext().Messages, 5)
	assert.Equal(t, []string{EventAgentStart, EventTurnStart, EventTurnEnd, EventTurnStart, EventTurnEnd, EventAgentEnd}, h.notified)
}

type resolvingHooks struct {
	NopHooks
	limits []int
}

func (h *resolvingHooks) ResolveModel(_ context.Context, m Model) Model {
	m.ID, m.ContextWindow = "bigger", 1_000_000
	return m
}

func (h *resolvingHooks) Notify(_ context.Context, ev Event) {
	if ev.Type == EventTurnEnd || ev.Type == EventAgentEnd {
		h.limits = append(h.limits, ev.ContextLimit)
	}
}

// turn.end and agent.end report the context window of the model actually
// called, after model.resolve.
func TestContextLimitFollowsResolvedModel(t *testing.T) {
	p := &scriptedProvider{replies: []func(context.Context, func(StreamEvent)) (*session.Message, error){
		reply(assistant(text("ok"))),
	}}
	a := newTestAgent(p, nil)
	a.Model.ContextWindow = 8000
	h := &resolvingHooks{}
	a.Hooks = h
	require.NoError(t, a.prompt(context.Background(), "go", nil))
	assert.Equal(t, "bigger", p.requests[0].Model.ID)
	assert.Equal(t, []int{1_000_000, 1_000_000}, h.limits)
}

// TestTerminatingToolBatch: the run ends after a tool batch only when every
// result in it terminates (pi's rule); a tool.execute.after hook may set it.
func TestTerminatingToolBatch(t *testing.T) {
	final := &Tool{Name: "final", Description: "final answer", Parameters: json.RawMessage(`{"type":"object","properties":{}}`),
		Execute: func(context.Context, string, json.RawMessage, func(ToolResult)) (ToolResult, error) {
			r := TextResult("saved", false)
			r.Terminate = true
			return r, nil
		}}
	cases := []struct {
		name   string
		calls  []session.ContentBlock
		hooks  Hooks
		models int // model calls made
	}{
		{"every result terminates", []session.ContentBlock{call("c1", "final", `{}`), call("c2", "final", `{}`)}, nil, 1},
		{"one result does not", []session.ContentBlock{call("c1", "final", `{}`), call("c2", "echo", `{"msg":"x"}`)}, nil, 2},
		{"an unknown tool does not", []session.ContentBlock{call("c1", "final", `{}`), call("c2", "nope", `{}`)}, nil, 2},
		{"a blocked call does not", []session.ContentBlock{call("c1", "final", `{}`)}, blockAll{}, 2},
		{"after hook sets it", []session.ContentBlock{call("c1", "echo", `{"msg":"x"}`)}, terminateAfter{}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &scriptedProvider{replies: []func(context.Context, func(StreamEvent)) (*session.Message, error){
				reply(assistant(c.calls...)), reply(assistant(text("done"))),
			}}
			var ran []string
			a := newTestAgent(p, &ran)
			a.Tools = append(a.Tools, final)
			a.Hooks = c.hooks
			var ends []Event
			a.subscribe(func(ev Event) {
				if ev.Type == EventToolExecutionEnd {
					ends = append(ends, ev)
				}
			})
			require.NoError(t, a.prompt(context.Background(), "go", nil))
			assert.Len(t, p.requests, c.models)
			require.Len(t, ends, len(c.calls))
			if c.models == 1 {
				assert.True(t, ends[0].Result.Terminate, "tool_execution_end carries terminate")
			}
			// the tool results are stored either way
			n := 0
			for _, e := range a.Session.Entries() {
				if e.Message != nil && e.Message.Role == session.RoleToolResult {
					n++
				}
			}
			assert.Equal(t, len(c.calls), n)
		})
	}
}

type blockAll struct{ NopHooks }

func (blockAll) BeforeTool(context.Context, string, string, json.RawMessage) ToolCallDecision {
	return ToolCallDecision{Block: true, Reason: "no"}
}

type terminateAfter struct{ NopHooks }

func (terminateAfter) AfterTool(_ context.Context, _, _ string, _, _ json.RawMessage, r ToolResult) ToolResult {
	r.Terminate = true
	return r
}
