package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// llmConversation is a history with every kind of block, as the model
// fake-model of api produced it.
func llmConversation(api string) []session.Message {
	img := session.ContentBlock{Type: session.BlockImage, Extra: &session.BlockExtra{Data: "aGVsbG8=", MimeType: "image/png"}}
	sig := "reasoning_content"
	if api == APIAnthropicMessages {
		sig = "EqQBsig"
	}
	return []session.Message{
		{Role: session.RoleUser, Content: []session.ContentBlock{{Type: session.BlockText, Text: "What is in this picture?"}, img}},
		{Role: session.RoleAssistant, API: api, Provider: "fake", Model: "fake-model", StopReason: session.StopToolUse,
			Content: []session.ContentBlock{
				{Type: session.BlockThinking, Thinking: "I should look.", ThinkingSignature: sig},
				{Type: session.BlockText, Text: "Let me check."},
				{Type: session.BlockToolCall, ID: "call_1", Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)},
				{Type: session.BlockToolCall, ID: "call_2", Name: "read", Arguments: json.RawMessage(`{"path":"x.png"}`)},
			}},
		{Role: session.RoleToolResult, ToolCallID: "call_1", ToolName: "bash", Content: []session.ContentBlock{{Type: session.BlockText, Text: "x.png"}}},
		{Role: session.RoleToolResult, ToolCallID: "call_2", ToolName: "read", Content: []session.ContentBlock{img}, IsError: true},
		{Role: session.RoleAssistant, API: api, Provider: "fake", Model: "fake-model", StopReason: session.StopError, Content: []session.ContentBlock{{Type: session.BlockText, Text: "dropped"}},
			Extra: &session.MessageExtra{ErrorMessage: "boom"}},
		llmUser("Thanks, go on."),
	}
}

// llmTools is a tool list whose schema key order must survive.
var llmTools = []ToolSpec{{Name: "bash", Description: "Run a command",
	Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"number"}},"required":["command"],"additionalProperties":false}`)}}

func TestOpenAIRequestBody(t *testing.T) {
	srv := llmtest.New(t)
	srv.AllowFields("top_k") // a hook's extra field, which OpenAI does not know
	srv.Reply(llmtest.Text("ok"))
	temp := 0.2
	m := llmModel(srv, APIOpenAICompletions)
	m.Reasoning = true
	m.Headers = map[string]string{"X-Model": "m", "X-Both": "model"}
	req := &Request{Model: m, APIKey: "sk-test-key-123", Headers: map[string]string{"X-Req": "r", "X-Both": "request"},
		SystemPrompt: "You are terse.", Messages: llmConversation(APIOpenAICompletions), Tools: llmTools,
		Params: Params{Temperature: &temp, MaxTokens: 1000, ThinkingLevel: ThinkingHigh, Extra: map[string]any{"top_k": 5}}}
	_, err, _ := llmStream(t, srv, APIOpenAICompletions, req)
	require.NoError(t, err)
	r := srv.Requests()[0]

	assert.Equal(t, "Bearer sk-test-key-123", r.Header.Get("Authorization"))
	assert.Equal(t, "m", r.Header.Get("X-Model"))
	assert.Equal(t, "r", r.Header.Get("X-Req"))
	assert.Equal(t, "request", r.Header.Get("X-Both"))
	assert.Equal(t, true, r.Field("stream_options.include_usage"))
	assert.Equal(t, "high", r.Field("reasoning_effort"))
	assert.Equal(t, 1000.0, r.Field("max_tokens"), "compatible services get max_tokens")
	assert.Nil(t, r.Field("max_completion_tokens"))
	assert.Nil(t, r.Field("store"))
	assert.Equal(t, 0.2, r.Field("temperature"))
	assert.Equal(t, 5.0, r.Field("top_k"))

	assert.Equal(t, "system", r.Field("messages.0.role"))
	assert.Equal(t, "You are terse.", r.Field("messages.0.content"))
	assert.Equal(t, []any{
		map[string]any{"type": "text", "text": "What is in this picture?"},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,aGVsbG8="}},
	}, r.Field("messages.1.content"))
	assert.Equal(t, map[string]any{"role": "assistant", "content": "Let me check.", "reasoning_content": "I should look.",
		"tool_calls": []any{
			map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "bash", "arguments": `{"command":"ls"}`}},
			map[string]any{"id": "call_2", "type": "function", "function": map[string]any{"name": "read", "arguments": `{"path":"x.png"}`}},
		}}, r.Field("messages.2"))
	assert.Equal(t, map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "x.png"}, r.Field("messages.3"))
	assert.Equal(t, map[string]any{"role": "tool", "tool_call_id": "call_2", "content": "(see attached image)"}, r.Field("messages.4"))
	assert.Equal(t, "Attached image(s) from tool result:", r.Field("messages.5.content.0.text"))
	assert.Equal(t, "data:image/png;base64,aGVsbG8=", r.Field("messages.5.content.1.image_url.url"))
	assert.Equal(t, map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Thanks, go on."}}}, r.Field("messages.6"),
		"the errored reply is not sent")
	assert.Nil(t, r.Field("messages.7"))

	assert.Equal(t, "function", r.Field("tools.0.type"))
	assert.Equal(t, "bash", r.Field("tools.0.function.name"))
	assert.Equal(t, "Run a command", r.Field("tools.0.function.description"))
	assert.Contains(t, string(r.Body), `"parameters":{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"number"}},"required":["command"],"additionalProperties":false}`,
		"the schema goes out verbatim, key order kept")
}

func TestOpenAIOfficialQuirks(t *testing.T) {
	srv := llmtest.New(t)
	srv.Reply(llmtest.Text("ok"))
	m := llmModel(srv, APIOpenAICompletions)
	m.Provider, m.Reasoning = "openai", true
	req := &Request{Model: m, SystemPrompt: "sys", Messages: []session.Message{llmUser("hi")}, Params: Params{MaxTokens: 500}}
	_, err, _ := llmStream(t, srv, APIOpenAICompletions, req)
	require.NoError(t, err)
	r := srv.Requests()[0]
	assert.Equal(t, "developer", r.Field("messages.0.role"), "reasoning models take the system prompt as developer")
	assert.Equal(t, 500.0, r.Field("max_completion_tokens"))
	assert.Nil(t, r.Field("max_tokens"))
	assert.Equal(t, false, r.Field("store"))
	assert.Nil(t, r.Field("reasoning_effort"), "thinking off leaves the default")
	assert.Nil(t, r.Field("tools"))
}

func TestOpenAIEffort(t *testing.T) {
	tests := []struct {
		id        string
		reasoning bool
		level     ThinkingLevel
		want      string
	}{
		{"gpt-5", true, ThinkingMinimal, "minimal"},
		{"o3", true, ThinkingMinimal, "low"},
		{"o3", true, ThinkingLow, "low"},
		{"o3", true, ThinkingMedium, "medium"},
		{"o3", true, ThinkingHigh, "high"},
		{"o3", true, ThinkingOff, ""},
		{"o3", true, "", ""},
		{"gpt-4o", false, ThinkingHigh, ""},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, openAIEffort(Model{ID: tc.id, Reasoning: tc.reasoning}, tc.level), "%s %s", tc.id, tc.level)
	}
}

func TestOpenAIReasoningFieldVariants(t *testing.T) {
	srv := llmtest.New(t)
	srv.Reply(llmtest.Thinking("via openrouter").Field("reasoning"), llmtest.Text("done"))
	msg, err, _ := llmStream(t, srv, APIOpenAICompletions, nil)
	require.NoError(t, err)
	require.Len(t, msg.Content, 2)
	assert.Equal(t, "via openrouter", msg.Content[0].Thinking)
	assert.Equal(t, "reasoning", msg.Content[0].ThinkingSignature)

	// Sent back under the same field, to the same model only.
	srv.Reply(llmtest.Text("again"))
	req := &Request{Messages: []session.Message{llmUser("a"), *msg, llmUser("b")}}
	_, err, _ = llmStream(t, srv, APIOpenAICompletions, req)
	require.NoError(t, err)
	r := srv.Requests()[1]
	assert.Equal(t, "via openrouter", r.Field("messages.1.reasoning"))
	assert.Equal(t, "done", r.Field("messages.1.content"))
}

func TestOpenAIForeignHistory(t *testing.T) {
	srv := llmtest.New(t)
	srv.Reply(llmtest.Text("ok"))
	foreign := llmConversation(APIAnthropicMessages)
	m := llmModel(srv, APIOpenAICompletions)
	m.Provider = "mistral"
	req := &Request{Model: m, Messages: foreign}
	_, err, _ := llmStream(t, srv, APIOpenAICompletions, req)
	require.NoError(t, err)
	r := srv.Requests()[0]
	assert.Equal(t, "I should look.Let me check.", r.Field("messages.1.content"), "foreign thinking is sent as text, joined as pi joins")
	assert.Nil(t, r.Field("messages.1.reasoning_content"))
	assert.Equal(t, "call1ABCD", r.Field("messages.1.tool_calls.0.id"), "Mistral ids: nine alphanumerics")
	assert.Equal(t, "call1ABCD", r.Field("messages.2.tool_call_id"))
	assert.Equal(t, "bash", r.Field("messages.2.name"), "Mistral wants the tool name")
}

func TestMistralToolID(t *testing.T) {
	for in, want := range map[string]string{"call_1": "call1ABCD", "toolu_01ABCDEFGHIJ": "toolu01AB", "abcdefghi": "abcdefghi", "": "ABCDEFGHI"} {
		assert.Equal(t, want, mistralToolID(in), in)
	}
}

func TestOpenAINoKeyNoAuthHeader(t *testing.T) {
	srv := llmtest.New(t)
	srv.Reply(llmtest.Text("local"))
	_, err, _ := llmStream(t, srv, APIOpenAICompletions, nil)
	require.NoError(t, err)
	assert.Empty(t, srv.Requests()[0].Header.Get("Authorization"))
}

func TestOpenAIEnvironmentIgnored(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_API_KEY", "sk-from-env-should-not-be-used")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-Env: yes")
	srv := llmtest.New(t)
	srv.Reply(llmtest.Text("ok"))
	_, err, _ := llmStream(t, srv, APIOpenAICompletions, nil)
	require.NoError(t, err)
	r := srv.Requests()[0]
	assert.Empty(t, r.Header.Get("Authorization"))
	assert.Empty(t, r.Header.Get("X-Env"))
}

func TestOpenAIFinishReasons(t *testing.T) {
	tests := []struct {
		parts []llmtest.Part
		want  string
		err   string
	}{
		{[]llmtest.Part{llmtest.Text("cut"), llmtest.Finish("length")}, session.StopLength, ""},
		{[]llmtest.Part{llmtest.ToolCall("bash", `{}`), llmtest.Finish("stop")}, session.StopToolUse, ""},
		{[]llmtest.Part{llmtest.Text("bad"), llmtest.Finish("content_filter")}, session.StopError, "fake: stream error (content_filter): the reply was stopped by the content filter"},
		{[]llmtest.Part{llmtest.Text("?"), llmtest.Finish("")}, session.StopError, "fake: stream interrupted: the stream ended before the reply was complete"},
	}
	for _, tc := range tests {
		srv := llmtest.New(t)
		srv.Reply(tc.parts...)
		msg, err, _ := llmStream(t, srv, APIOpenAICompletions, nil)
		assert.Equal(t, tc.want, msg.StopReason)
		if tc.err != "" {
			require.Error(t, err)
			assert.Equal(t, tc.err, msg.ErrorMessage())
		} else {
			assert.NoError(t, err)
		}
	}
}

func TestOpenAIRefusalIsText(t *testing.T) {
	msg, err := streamOpenAIChunks(t,
		`{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":null,"refusal":"I can"},"finish_reason":null}]}`,
		`{"id":"c1","choices":[{"index":0,"delta":{"refusal":"not help."},"finish_reason":null}]}`,
		`{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	require.NoError(t, err)
	assert.Equal(t, "I cannot help.", msg.Text())
	assert.Equal(t, "c1", msg.ResponseID())
}

// TestOpenAIChunkFieldsOfUnexpectedType: a field of a type lunar does not
// expect (a usage that is not an object, content that is neither a string
// nor a list of parts) is left empty, and the rest of that chunk and of
// the stream is kept; Mistral's content parts are read as thinking and
// text (the SDK's chunk type gave their JSON as text); DeepSeek's
// top-level cache hits are read.
func TestOpenAIChunkFieldsOfUnexpectedType(t *testing.T) {
	msg, err := streamOpenAIChunks(t,
		`{"id":"c1","usage":"soon","choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"h"}]}],"reasoning_content":7},"finish_reason":null}]}`,
		`{"id":"c1","choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"m"}]},{"type":"text","text":"Hel"}]},"finish_reason":null}]}`,
		`{"id":"c1","choices":[{"index":0,"delta":{"content":{"odd":true}},"finish_reason":null}]}`,
		`{"id":"c1","choices":[{"index":0,"delta":{"content":"lo","tool_calls":null},"finish_reason":null}]}`,
		`{"id":"c1","choices":[{"index":0,"delta":{"content":" there"},"finish_reason":"stop"}]}`,
		`{"id":"c1","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":7,"prompt_cache_hit_tokens":60,"prompt_tokens_details":null}}`)
	require.NoError(t, err)
	assert.Equal(t, "Hello there", msg.Text())
	require.Len(t, msg.Content, 2)
	assert.Equal(t, "hm", msg.Content[0].Thinking)
	assert.Equal(t, session.StopStop, msg.StopReason)
	require.NotNil(t, msg.Usage)
	assert.Equal(t, 40, msg.Usage.Input)
	assert.Equal(t, 60, msg.Usage.CacheRead)
	assert.Equal(t, 7, msg.Usage.Output)
}

// streamOpenAIChunks has a test server send the chunks, then [DONE], and
// returns what lunar made of them.
func streamOpenAIChunks(t *testing.T, chunks ...string) (*session.Message, error) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range chunks {
			fmt.Fprintf(w, "data: %s\n\n", c)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	req := &Request{Model: Model{Provider: "p", ID: "m", API: APIOpenAICompletions, BaseURL: srv.URL}, Messages: []session.Message{llmUser("hi")}}
	return (&OpenAIProvider{}).Stream(context.Background(), req, nil)
}

// BenchmarkOpenAIStream streams a 2,000-chunk reply through the SDK.
func BenchmarkOpenAIStream(b *testing.B) {
	llmBenchmark(b, APIOpenAICompletions)
}

func llmBenchmark(b *testing.B, api string) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetDefault(llmtest.Text(strings.Repeat("tok ", 2000)), llmtest.Usage(100, 2000, 0, 0))
	m := Model{Provider: "fake", ID: "fake-model", API: api, BaseURL: srv.URL()}
	p := NewRegistry(nil).NewProvider(m)
	req := &Request{Model: m, Messages: []session.Message{llmUser("go")}}
	deltas := 0
	emit := func(ev StreamEvent) {
		if ev.Type == StreamTextDelta {
			deltas++
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		msg, err := p.Stream(context.Background(), req, emit)
		if err != nil || len(msg.Text()) != 8000 {
			b.Fatalf("stream: %v (%d bytes)", err, len(msg.Text()))
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(deltas)/float64(b.N), "deltas/op")
}
