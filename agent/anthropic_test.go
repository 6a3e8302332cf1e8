package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

func TestAnthropicRequestBody(t *testing.T) {
	srv := llmtest.New(t)
	srv.Reply(llmtest.Text("ok"))
	m := llmModel(srv, APIAnthropicMessages)
	m.Reasoning, m.MaxTokens = true, 64000
	m.Headers = map[string]string{"X-Model": "m"}
	msgs := llmConversation(APIAnthropicMessages)
	msgs[1].Content = append(msgs[1].Content,
		session.ContentBlock{Type: session.BlockThinking, Thinking: redactedThinking, ThinkingSignature: "opaque-data", Extra: &session.BlockExtra{Redacted: true}},
		session.ContentBlock{Type: session.BlockThinking, Thinking: "unsigned thought"},
		session.ContentBlock{Type: session.BlockToolCall, ID: "call_3", Name: "bash", Arguments: json.RawMessage(`"{\"command\": \"ls"`)})
	msgs = append(msgs[:4], append([]session.Message{{Role: session.RoleToolResult, ToolCallID: "call_3", ToolName: "bash",
		Content: []session.ContentBlock{{Type: session.BlockText, Text: "bad args"}}, IsError: true}}, msgs[4:]...)...)
	req := &Request{Model: m, APIKey: "sk-ant-test-key", Headers: map[string]string{"X-Req": "r"}, SystemPrompt: "You are terse.",
		Messages: msgs, Tools: llmTools, Params: Params{ThinkingLevel: ThinkingMedium, Extra: map[string]any{"metadata": map[string]any{"user_id": "u1"}}}}
	_, err, _ := llmStream(t, srv, APIAnthropicMessages, req)
	require.NoError(t, err)
	r := srv.Requests()[0]

	assert.Equal(t, "/v1/messages", r.Path)
	assert.Equal(t, "sk-ant-test-key", r.Header.Get("X-Api-Key"))
	assert.Empty(t, r.Header.Get("Authorization"))
	assert.Equal(t, "2023-06-01", r.Header.Get("Anthropic-Version"))
	assert.Equal(t, "interleaved-thinking-2025-05-14", r.Header.Get("Anthropic-Beta"))
	assert.Equal(t, "m", r.Header.Get("X-Model"))
	assert.Equal(t, "r", r.Header.Get("X-Req"))
	assert.Equal(t, map[string]any{"user_id": "u1"}, r.Field("metadata"))

	assert.Equal(t, []any{map[string]any{"type": "text", "text": "You are terse.", "cache_control": map[string]any{"type": "ephemeral"}}}, r.Field("system"))
	assert.Equal(t, map[string]any{"type": "enabled", "budget_tokens": 8192.0, "display": "summarized"}, r.Field("thinking"))
	assert.Equal(t, 40192.0, r.Field("max_tokens"), "min(64000, 32000) + the budget")

	assert.Equal(t, []any{
		map[string]any{"type": "text", "text": "What is in this picture?"},
		map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "aGVsbG8="}},
	}, r.Field("messages.0.content"))
	assert.Nil(t, r.Field("messages.0.content.1.cache_control"), "only the last user message is cached")
	assert.Equal(t, []any{
		map[string]any{"type": "thinking", "thinking": "I should look.", "signature": "EqQBsig"},
		map[string]any{"type": "text", "text": "Let me check."},
		map[string]any{"type": "tool_use", "id": "call_1", "name": "bash", "input": map[string]any{"command": "ls"}},
		map[string]any{"type": "tool_use", "id": "call_2", "name": "read", "input": map[string]any{"path": "x.png"}},
		map[string]any{"type": "redacted_thinking", "data": "opaque-data"},
		map[string]any{"type": "text", "text": "unsigned thought"},
		map[string]any{"type": "tool_use", "id": "call_3", "name": "bash", "input": map[string]any{}},
	}, r.Field("messages.1.content"))
	assert.Equal(t, "user", r.Field("messages.2.role"))
	assert.Equal(t, []any{
		map[string]any{"type": "tool_result", "tool_use_id": "call_1", "is_error": false, "content": "x.png"},
		map[string]any{"type": "tool_result", "tool_use_id": "call_2", "is_error": true, "content": []any{
			map[string]any{"type": "text", "text": "(see attached image)"},
			map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "aGVsbG8="}},
		}},
		map[string]any{"type": "tool_result", "tool_use_id": "call_3", "is_error": true, "content": "bad args"},
	}, r.Field("messages.2.content"), "consecutive tool results are one user message")
	assert.Equal(t, []any{map[string]any{"type": "text", "text": "Thanks, go on.", "cache_control": map[string]any{"type": "ephemeral"}}},
		r.Field("messages.3.content"), "the errored reply is dropped; the last user turn is cached")
	assert.Nil(t, r.Field("messages.4"))

	assert.Equal(t, map[string]any{"name": "bash", "description": "Run a command", "input_schema": map[string]any{
		"type": "object", "properties": map[string]any{"command": map[string]any{"type": "string"}, "timeout": map[string]any{"type": "number"}},
		"required": []any{"command"}, "additionalProperties": false}, "cache_control": map[string]any{"type": "ephemeral"}}, r.Field("tools.0"))
	assert.Nil(t, r.Field("temperature"))
}

func TestAnthropicCacheOnToolResults(t *testing.T) {
	srv := llmtest.New(t)
	srv.Reply(llmtest.Text("ok"))
	msgs := llmConversation(APIAnthropicMessages)[:4]
	_, err, _ := llmStream(t, srv, APIAnthropicMessages, &Request{Messages: msgs})
	require.NoError(t, err)
	r := srv.Requests()[0]
	assert.Nil(t, r.Field("messages.2.content.0.cache_control"))
	assert.Equal(t, "ephemeral", r.Field("messages.2.content.1.cache_control.type"), "the last block of the last user message")
	assert.Nil(t, r.Field("system"))
}

func TestAnthropicThinkingBudget(t *testing.T) {
	temp := 0.5
	tests := []struct {
		name                string
		reasoning           bool
		level               ThinkingLevel
		modelMax, paramsMax int
		wantMax, wantBudget float64
	}{
		{"off", true, ThinkingOff, 64000, 0, 32000, 0},
		{"minimal", true, ThinkingMinimal, 64000, 0, 33024, 1024},
		{"low", true, ThinkingLow, 64000, 0, 34048, 2048},
		{"medium", true, ThinkingMedium, 64000, 0, 40192, 8192},
		{"high", true, ThinkingHigh, 64000, 0, 48384, 16384},
		{"capped by the model", true, ThinkingHigh, 20000, 0, 20000, 16384},
		{"budget leaves room", true, ThinkingHigh, 4096, 2000, 4096, 3072},
		{"too small to think", true, ThinkingLow, 1500, 1000, 1500, 0},
		{"explicit max tokens", true, ThinkingLow, 64000, 1000, 3048, 2048},
		{"not a reasoning model", false, ThinkingHigh, 8192, 0, 8192, 0},
		{"unknown max", false, ThinkingOff, 0, 0, 8192, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := &Request{Model: Model{ID: "claude-x", Reasoning: tc.reasoning, MaxTokens: tc.modelMax},
				Params: Params{ThinkingLevel: tc.level, MaxTokens: tc.paramsMax, Temperature: &temp}}
			v := anthropicBodyJSON(t, req)
			assert.Equal(t, tc.wantMax, v["max_tokens"])
			if tc.wantBudget == 0 {
				if tc.reasoning {
					assert.Equal(t, map[string]any{"type": "disabled"}, v["thinking"], "a reasoning model is told not to think, as pi does")
				} else {
					assert.Nil(t, v["thinking"])
				}
				assert.Equal(t, 0.5, v["temperature"])
			} else {
				assert.Equal(t, tc.wantBudget, v["thinking"].(map[string]any)["budget_tokens"])
				assert.Nil(t, v["temperature"], "temperature is not allowed with thinking")
			}
		})
	}
}

func TestAnthropicAdaptiveThinking(t *testing.T) {
	for level, effort := range map[ThinkingLevel]string{ThinkingMinimal: "low", ThinkingLow: "low", ThinkingMedium: "medium", ThinkingHigh: "high"} {
		req := &Request{Model: Model{ID: "claude-opus-4-6", Reasoning: true, MaxTokens: 128000}, Params: Params{ThinkingLevel: level}}
		v := anthropicBodyJSON(t, req)
		assert.Equal(t, map[string]any{"type": "adaptive", "display": "summarized"}, v["thinking"], level)
		assert.Equal(t, map[string]any{"effort": effort}, v["output_config"], level)
		assert.Equal(t, 32000.0, v["max_tokens"], "no budget is added")
	}
}

func TestAnthropicRedactedThinkingRoundTrip(t *testing.T) {
	srv := llmtest.New(t)
	srv.Reply(llmtest.RedactedThinking("ENCRYPTED"), llmtest.Thinking("visible").Signed("sig-9"), llmtest.Text("answer"))
	msg, err, rec := llmStream(t, srv, APIAnthropicMessages, nil)
	require.NoError(t, err)
	require.Len(t, msg.Content, 3)
	assert.Equal(t, session.ContentBlock{Type: session.BlockThinking, Thinking: "[Reasoning redacted]", ThinkingSignature: "ENCRYPTED", Extra: &session.BlockExtra{Redacted: true}}, msg.Content[0])
	assert.Equal(t, session.ContentBlock{Type: session.BlockThinking, Thinking: "visible", ThinkingSignature: "sig-9"}, msg.Content[1])
	assert.Equal(t, 2, rec.count(StreamThinkingStart))
	assert.Equal(t, 2, rec.count(StreamThinkingEnd))

	srv.Reply(llmtest.Text("next"))
	_, err, _ = llmStream(t, srv, APIAnthropicMessages, &Request{Messages: []session.Message{llmUser("q"), *msg, llmUser("more")}})
	require.NoError(t, err)
	assert.Equal(t, []any{
		map[string]any{"type": "redacted_thinking", "data": "ENCRYPTED"},
		map[string]any{"type": "thinking", "thinking": "visible", "signature": "sig-9"},
		map[string]any{"type": "text", "text": "answer"},
	}, srv.Requests()[1].Field("messages.1.content"))

	// Another model gets the visible thinking as text and no redacted block.
	srv.Reply(llmtest.Text("next"))
	other := llmModel(srv, APIAnthropicMessages)
	other.ID = "other-model"
	_, err, _ = llmStream(t, srv, APIAnthropicMessages, &Request{Model: other, Messages: []session.Message{llmUser("q"), *msg, llmUser("more")}})
	require.NoError(t, err)
	assert.Equal(t, []any{
		map[string]any{"type": "text", "text": "visible"},
		map[string]any{"type": "text", "text": "answer"},
	}, srv.Requests()[2].Field("messages.1.content"))
}

func TestAnthropicStopReasons(t *testing.T) {
	tests := []struct {
		reason, want, err string
	}{
		{"length", session.StopLength, ""},
		{"model_context_window_exceeded", session.StopLength, ""},
		{"pause_turn", session.StopStop, ""},
		{"stop_sequence", session.StopStop, ""},
		{"refusal", session.StopError, "fake: stream error (refusal): the model declined to continue"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Reply(llmtest.Text("x"), llmtest.Finish(tc.reason))
			msg, err, _ := llmStream(t, srv, APIAnthropicMessages, nil)
			assert.Equal(t, tc.want, msg.StopReason)
			if tc.err == "" {
				assert.NoError(t, err)
			} else {
				assert.Equal(t, tc.err, msg.ErrorMessage())
				assert.Equal(t, "x", msg.Text())
			}
		})
	}
}

func TestAnthropicEnvironmentIgnored(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	t.Setenv("ANTHROPIC_CUSTOM_HEADERS", "X-Env: yes")
	srv := llmtest.New(t)
	srv.Reply(llmtest.Text("ok"))
	_, err, _ := llmStream(t, srv, APIAnthropicMessages, &Request{APIKey: "sk-ant-given", Messages: []session.Message{llmUser("hi")}})
	require.NoError(t, err)
	r := srv.Requests()[0]
	assert.Equal(t, "sk-ant-given", r.Header.Get("X-Api-Key"))
	assert.Empty(t, r.Header.Get("X-Env"))
}

func TestAnthropicToolID(t *testing.T) {
	long := "call_0123456789012345678901234567890123456789012345678901234567890123456789"
	tests := map[string]string{"toolu_01": "toolu_01", "call|fc_1/x": "call_fc_1_x", long: long[:64]}
	for in, want := range tests {
		assert.Equal(t, want, anthropicToolID(in), in)
	}
}

func TestAnthropicToolInputUpFront(t *testing.T) {
	// Some proxies send the whole input in content_block_start and no deltas.
	msg, err := streamAnthropicEvents(t,
		`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"usage":{"input_tokens":5,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"bash","input":{"command":"pwd"}}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}`,
		`{"type":"message_stop"}`)
	require.NoError(t, err)
	require.Len(t, msg.ToolCalls(), 1)
	assert.Equal(t, `{"command":"pwd"}`, string(msg.ToolCalls()[0].Arguments))
	assert.Equal(t, 5, msg.Usage.Input)
	assert.Equal(t, 3, msg.Usage.Output)
}

// BenchmarkAnthropicStream streams a 2,000-chunk reply through the SDK.
func BenchmarkAnthropicStream(b *testing.B) {
	llmBenchmark(b, APIAnthropicMessages)
}

// TestAnthropicEventFieldsOfUnexpectedType: a field of a type lunar does
// not expect is left empty (the SDK's event type gave its JSON as text)
// and the rest of the event and the stream are kept; a count a
// message_delta gives as null or not at all keeps the message_start value.
func TestAnthropicEventFieldsOfUnexpectedType(t *testing.T) {
	msg, err := streamAnthropicEvents(t,
		`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":["odd"],"content":[],"usage":{"input_tokens":5,"output_tokens":1,"cache_read_input_tokens":9}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"","citations":"none"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":{"odd":1}}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" you"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4,"input_tokens":null}}`,
		`{"type":"message_stop"}`)
	require.NoError(t, err)
	assert.Equal(t, "Hi you", msg.Text())
	assert.Equal(t, "msg_1", msg.ResponseID())
	assert.Equal(t, session.StopStop, msg.StopReason)
	assert.Equal(t, 5, msg.Usage.Input)
	assert.Equal(t, 4, msg.Usage.Output)
	assert.Equal(t, 9, msg.Usage.CacheRead)
}

// streamAnthropicEvents has a test server send the events (each named by
// its type) and returns what lunar made of them.
func streamAnthropicEvents(t *testing.T, events ...string) (*session.Message, error) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range events {
			var typ struct{ Type string }
			_ = json.Unmarshal([]byte(ev), &typ)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ.Type, ev)
		}
	}))
	defer srv.Close()
	req := &Request{Model: Model{Provider: "proxy", ID: "m", API: APIAnthropicMessages, BaseURL: srv.URL}, Messages: []session.Message{llmUser("hi")}}
	return (&AnthropicProvider{}).Stream(context.Background(), req, nil)
}
