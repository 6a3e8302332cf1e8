package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// llmAPIs are the two wire APIs every provider scenario runs against.
var llmAPIs = []string{APIOpenAICompletions, APIAnthropicMessages}

// llmModel is a model of api served by srv, priced for cost checks.
func llmModel(srv *llmtest.Server, api string) Model {
	m := Model{Provider: "fake", ID: "fake-model", API: api, BaseURL: srv.URL(), ContextWindow: 100000, MaxTokens: 8192, Input: textImage,
		Cost: ModelCost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}
	if api == APIAnthropicMessages {
		m.BaseURL = srv.RootURL()
	}
	return m
}

// llmProvider returns the provider for api with fast retries.
func llmProvider(api string, retries int) Provider {
	if api == APIAnthropicMessages {
		return &AnthropicProvider{Transport{MaxRetries: retries}}
	}
	return &OpenAIProvider{Transport: Transport{MaxRetries: retries}}
}

func llmUser(text string) session.Message {
	return session.Message{Role: session.RoleUser, Content: []session.ContentBlock{{Type: session.BlockText, Text: text}}}
}

// llmRecorder records stream events and checks their invariants.
type llmRecorder struct {
	t      *testing.T
	types  []string
	deltas []string
	onText func(StreamEvent)
}

func (r *llmRecorder) emit(ev StreamEvent) {
	r.types = append(r.types, ev.Type)
	r.deltas = append(r.deltas, ev.Delta)
	require.NotNil(r.t, ev.Partial)
	if ev.Type != StreamStart {
		require.Less(r.t, ev.ContentIndex, len(ev.Partial.Content), ev.Type)
		if b := ev.Partial.Content[ev.ContentIndex]; b.Type == session.BlockToolCall {
			assert.True(r.t, json.Valid(b.Arguments), "partial arguments must stay valid JSON: %s", b.Arguments)
		}
	}
	if r.onText != nil && ev.Type == StreamTextDelta {
		r.onText(ev)
	}
}

// count returns how many events of type typ were emitted.
func (r *llmRecorder) count(typ string) int {
	n := 0
	for _, t := range r.types {
		if t == typ {
			n++
		}
	}
	return n
}

// llmStream runs one request of api against srv.
func llmStream(t *testing.T, srv *llmtest.Server, api string, req *Request) (*session.Message, error, *llmRecorder) {
	t.Helper()
	rec := &llmRecorder{t: t}
	if req == nil {
		req = &Request{Messages: []session.Message{llmUser("hi")}}
	}
	if req.Model.ID == "" {
		req.Model = llmModel(srv, api)
	}
	msg, err := llmProvider(api, 2).Stream(context.Background(), req, rec.emit)
	require.NotNil(t, msg)
	return msg, err, rec
}

func TestPartialJSON(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   []string // partial after each chunk
		final  string
	}{
		{"object in pieces", []string{`{"comm`, `and":"l`, `s -la"`, `}`},
			[]string{`{}`, `{"command":"l"}`, `{"command":"ls -la"}`, `{"command":"ls -la"}`}, `{"command":"ls -la"}`},
		{"numbers and literals", []string{`{"a":1`, `2,"b":tr`, `ue,"c":nul`, `l,"d":-`, `1.5e`, `3}`},
			[]string{`{"a":1}`, `{"a":12}`, `{"a":12,"b":true}`, `{"a":12,"b":true,"c":null}`, `{"a":12,"b":true,"c":null}`, `{"a":12,"b":true,"c":null,"d":-1.5e3}`},
			`{"a":12,"b":true,"c":null,"d":-1.5e3}`},
		{"nested", []string{`{"edits":[{"oldText":"a`, `","newText":"b"},{"old`, `Text":"c"}]}`},
			[]string{`{"edits":[{"oldText":"a"}]}`, `{"edits":[{"oldText":"a","newText":"b"},{}]}`, `{"edits":[{"oldText":"a","newText":"b"},{"oldText":"c"}]}`},
			`{"edits":[{"oldText":"a","newText":"b"},{"oldText":"c"}]}`},
		{"escapes cut", []string{`{"s":"a\`, `nb\u00`, `e9"}`},
			[]string{`{"s":"a"}`, `{"s":"a\nb"}`, `{"s":"a\nb\u00e9"}`}, `{"s":"a\nb\u00e9"}`},
		{"utf8 cut", []string{"{\"s\":\"h\xc3", "\xa9\"}"}, []string{`{"s":"h"}`, `{"s":"hé"}`}, `{"s":"hé"}`},
		{"whitespace kept valid", []string{"{ \"a\" : [ 1 , ", "2 ] }"}, []string{`{ "a" : [ 1]}`, `{ "a" : [ 1 , 2 ] }`}, `{"a":[1,2]}`},
		{"not an object", []string{`["a"]`}, []string{`{}`}, `["a"]`},
		{"empty", []string{``}, []string{`{}`}, `{}`},
		{"invalid", []string{`{"a":1`, `}}`}, []string{`{"a":1}`, `{"a":1}`}, `"{\"a\":1}}"`},
		{"garbage", []string{`{"a" x`}, []string{`{}`}, `"{\"a\" x"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p partialJSON
			for i, c := range tc.chunks {
				p.write(c)
				got := p.partial()
				assert.True(t, json.Valid(got), "chunk %d: %s", i, got)
				assert.Equal(t, tc.want[i], string(got), "after chunk %d", i)
			}
			assert.Equal(t, tc.final, string(finalArguments(p.raw)))
		})
	}
}

// FuzzPartialJSON checks that every prefix of a JSON object yields a valid
// object and the whole text yields the compacted input.
func FuzzPartialJSON(f *testing.F) {
	for _, s := range []string{`{"command":"ls -la","timeout":30}`, `{"a":[1,2,{"b":null}],"c":"x\"y\\z\u00e9"}`,
		`{"edits":[{"oldText":"é\n","newText":""}],"n":-0.5E+2,"t":true,"f":false}`, `{}`, `{"a":{}}`, " {} "} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, step int) {
		if !json.Valid([]byte(s)) || !strings.HasPrefix(strings.TrimSpace(s), "{") {
			return
		}
		if step <= 0 || step > len(s) {
			step = 1
		}
		var p partialJSON
		for i := 0; i < len(s); i += step {
			p.write(s[i:min(len(s), i+step)])
			got := p.partial()
			if !json.Valid(got) || strings.TrimSpace(string(got))[0] != '{' {
				t.Fatalf("prefix %q gave invalid %q", s[:min(len(s), i+step)], got)
			}
		}
		var want, got any
		require.NoError(t, json.Unmarshal([]byte(s), &want))
		require.NoError(t, json.Unmarshal(finalArguments(p.raw), &got))
		require.Equal(t, want, got)
		require.NoError(t, json.Unmarshal(p.partial(), &got))
		require.Equal(t, want, got)
	})
}

func TestTransformMessages(t *testing.T) {
	target := Model{Provider: "anthropic", API: APIAnthropicMessages, ID: "claude"}
	same := func(blocks ...session.ContentBlock) session.Message {
		return session.Message{Role: session.RoleAssistant, Provider: "anthropic", API: APIAnthropicMessages, Model: "claude",
			StopReason: session.StopToolUse, Content: blocks}
	}
	other := func(blocks ...session.ContentBlock) session.Message {
		return session.Message{Role: session.RoleAssistant, Provider: "openai", API: APIOpenAICompletions, Model: "gpt",
			StopReason: session.StopStop, Content: blocks}
	}
	call := func(id string) session.ContentBlock {
		return session.ContentBlock{Type: session.BlockToolCall, ID: id, Name: "bash", Arguments: json.RawMessage(`{}`), Extra: &session.BlockExtra{ThoughtSignature: "ts"}}
	}
	result := func(id string) session.Message {
		return session.Message{Role: session.RoleToolResult, ToolCallID: id, ToolName: "bash",
			Content: []session.ContentBlock{{Type: session.BlockText, Text: "ok"}}}
	}
	errored := other(session.ContentBlock{Type: session.BlockText, Text: "broken"})
	errored.StopReason = session.StopError
	aborted := same(session.ContentBlock{Type: session.BlockText, Text: "cut"})
	aborted.StopReason = session.StopAborted

	in := []session.Message{
		llmUser("q1"),
		other(session.ContentBlock{Type: session.BlockThinking, Thinking: "pondering", ThinkingSignature: "reasoning_content"},
			session.ContentBlock{Type: session.BlockThinking, Thinking: "secret", Extra: &session.BlockExtra{Redacted: true}},
			session.ContentBlock{Type: session.BlockThinking, Thinking: "  "},
			session.ContentBlock{Type: session.BlockText, Text: "answer", Extra: &session.BlockExtra{TextSignature: "sig"}},
			call("call|odd/id")),
		result("call|odd/id"),
		errored,
		same(session.ContentBlock{Type: session.BlockThinking, Thinking: "mine", ThinkingSignature: "s1"}, call("toolu_1"), call("toolu_2")),
		result("toolu_1"), // toolu_2 never answered
		aborted,
		llmUser("q2"),
	}
	out := transformMessages((&Request{Messages: in}).messageRefs(), target, anthropicToolID)
	roles := make([]string, len(out))
	for i, m := range out {
		roles[i] = m.msg.Role
	}
	assert.Equal(t, []string{"user", "assistant", "toolResult", "assistant", "toolResult", "toolResult", "user"}, roles)
	assert.Equal(t, []session.ContentBlock{
		{Type: session.BlockText, Text: "pondering"},
		{Type: session.BlockText, Text: "answer"},
		{Type: session.BlockToolCall, ID: "call_odd_id", Name: "bash", Arguments: json.RawMessage(`{}`)},
	}, out[1].content, "foreign thinking becomes text; redacted, empty and signatures go")
	assert.Equal(t, "call_odd_id", out[2].toolCallID, "results follow the rewritten id")
	assert.Equal(t, "s1", out[3].content[0].ThinkingSignature, "own thinking is kept")
	assert.Equal(t, "ts", out[3].content[1].ThoughtSignature())
	assert.Equal(t, "toolu_2", out[5].toolCallID)
	assert.True(t, out[5].msg.IsError)
	assert.Equal(t, "No result provided", out[5].content[0].Text)
	assert.Equal(t, "bash", in[1].Content[4].Name, "input is not modified")
	assert.Equal(t, "call|odd/id", in[1].Content[4].ID, "input is not modified")
}

func TestFinalArgumentsAndText(t *testing.T) {
	tests := []struct{ raw, args, text string }{
		{`{"a": 1}`, `{"a":1}`, `{"a":1}`},
		{` `, `{}`, `{}`},
		{`{"a":`, `"{\"a\":"`, `{"a":`},
		{`[1]`, `[1]`, `[1]`},
	}
	for _, tc := range tests {
		got := finalArguments([]byte(tc.raw))
		assert.Equal(t, tc.args, string(got), tc.raw)
		assert.Equal(t, tc.text, argumentText(got), tc.raw)
	}
	assert.Equal(t, "{}", argumentText(nil))
}

func TestSJSONKeyEscaping(t *testing.T) {
	srv := llmtest.New(t)
	srv.AllowFields("provider.order", "plain", "nested")
	srv.Reply(llmtest.Text("ok"))
	req := &Request{Messages: []session.Message{llmUser("hi")},
		Params: Params{Extra: map[string]any{"provider.order": []string{"a"}, "plain": 1, "nested": map[string]any{"x": true}}}}
	_, err, _ := llmStream(t, srv, APIOpenAICompletions, req)
	require.NoError(t, err)
	body := srv.Requests()[0].JSON
	assert.Equal(t, []any{"a"}, body["provider.order"])
	assert.Equal(t, 1.0, body["plain"])
	assert.Equal(t, map[string]any{"x": true}, body["nested"])
}

func TestStreamPlainText(t *testing.T) {
	for _, api := range llmAPIs {
		t.Run(api, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Reply(llmtest.Text("Hello brave new world"))
			msg, err, rec := llmStream(t, srv, api, nil)
			require.NoError(t, err)
			assert.Equal(t, session.RoleAssistant, msg.Role)
			assert.Equal(t, api, msg.API)
			assert.Equal(t, "fake", msg.Provider)
			assert.Equal(t, "fake-model", msg.Model)
			assert.Equal(t, session.StopStop, msg.StopReason)
			assert.Empty(t, msg.ErrorMessage())
			assert.NotEmpty(t, msg.ResponseID())
			assert.NotZero(t, msg.Timestamp)
			assert.Equal(t, []session.ContentBlock{{Type: session.BlockText, Text: "Hello brave new world"}}, msg.Content)
			assert.Equal(t, []string{StreamStart, StreamTextStart, StreamTextDelta, StreamTextDelta, StreamTextDelta, StreamTextDelta, StreamTextEnd}, rec.types)
			assert.Equal(t, "Hello brave new world", strings.Join(rec.deltas, ""))
			require.Len(t, srv.Requests(), 1)
			assert.Equal(t, "fake-model", srv.Requests()[0].Field("model"))
			assert.Equal(t, true, srv.Requests()[0].Field("stream"))
		})
	}
}

func TestStreamThinkingThenText(t *testing.T) {
	for _, api := range llmAPIs {
		t.Run(api, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Reply(llmtest.Thinking("Let me think about it."), llmtest.Text("Forty-two."))
			msg, err, rec := llmStream(t, srv, api, nil)
			require.NoError(t, err)
			require.Len(t, msg.Content, 2)
			th := msg.Content[0]
			assert.Equal(t, session.BlockThinking, th.Type)
			assert.Equal(t, "Let me think about it.", th.Thinking)
			if api == APIOpenAICompletions {
				assert.Equal(t, "reasoning_content", th.ThinkingSignature)
			} else {
				assert.Equal(t, "llmtest-signature-1-0", th.ThinkingSignature)
			}
			assert.Equal(t, session.ContentBlock{Type: session.BlockText, Text: "Forty-two."}, msg.Content[1])
			assert.Equal(t, 1, rec.count(StreamThinkingStart))
			assert.Equal(t, 5, rec.count(StreamThinkingDelta))
			assert.Equal(t, 1, rec.count(StreamThinkingEnd))
			assert.Equal(t, 1, rec.count(StreamTextEnd))
		})
	}
}

func TestStreamToolCallInFragments(t *testing.T) {
	for _, api := range llmAPIs {
		t.Run(api, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Reply(llmtest.Text("Listing."), llmtest.ToolCall("bash", `{"command": "ls -la", "timeout": 30}`).Split(7).WithID("call_abc"))
			msg, err, rec := llmStream(t, srv, api, nil)
			require.NoError(t, err)
			assert.Equal(t, session.StopToolUse, msg.StopReason)
			calls := msg.ToolCalls()
			require.Len(t, calls, 1)
			assert.Equal(t, "call_abc", calls[0].ID)
			assert.Equal(t, "bash", calls[0].Name)
			assert.Equal(t, `{"command":"ls -la","timeout":30}`, string(calls[0].Arguments))
			assert.Equal(t, 8, rec.count(StreamToolCallDelta), "seven fragments and the opening chunk's empty delta, as pi's")
			assert.Equal(t, 1, rec.count(StreamToolCallStart))
			assert.Equal(t, 1, rec.count(StreamToolCallEnd))
			assert.Equal(t, `{"command": "ls -la", "timeout": 30}`, strings.Join(rec.deltas, "")[len("Listing."):])
		})
	}
}

func TestStreamTwoToolCalls(t *testing.T) {
	for _, api := range llmAPIs {
		t.Run(api, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Reply(llmtest.ToolCall("read", `{"path":"a.go"}`), llmtest.ToolCall("read", `{"path":"b.go"}`).Split(3))
			msg, err, _ := llmStream(t, srv, api, nil)
			require.NoError(t, err)
			calls := msg.ToolCalls()
			require.Len(t, calls, 2)
			assert.NotEqual(t, calls[0].ID, calls[1].ID)
			assert.Equal(t, `{"path":"a.go"}`, string(calls[0].Arguments))
			assert.Equal(t, `{"path":"b.go"}`, string(calls[1].Arguments))
			assert.Equal(t, session.StopToolUse, msg.StopReason)
		})
	}
}

func TestStreamInvalidToolArguments(t *testing.T) {
	for _, api := range llmAPIs {
		t.Run(api, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Reply(llmtest.ToolCall("bash", `{"command": "ls`))
			msg, err, _ := llmStream(t, srv, api, nil)
			require.NoError(t, err)
			require.Len(t, msg.ToolCalls(), 1)
			assert.Equal(t, `"{\"command\": \"ls"`, string(msg.ToolCalls()[0].Arguments), "raw text kept as a JSON string")
		})
	}
}

func TestStreamUsageAndCost(t *testing.T) {
	for _, api := range llmAPIs {
		t.Run(api, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Reply(llmtest.Text("ok"), llmtest.Usage(1000, 500, 2000, 400))
			msg, err, _ := llmStream(t, srv, api, nil)
			require.NoError(t, err)
			u := msg.Usage
			require.NotNil(t, u)
			assert.Equal(t, 1000, u.Input)
			assert.Equal(t, 500, u.Output)
			assert.Equal(t, 2000, u.CacheRead)
			assert.Equal(t, 400, u.CacheWrite)
			assert.Equal(t, 3900, u.TotalTokens)
			assert.InDelta(t, 0.003, u.Cost.Input, 1e-12)
			assert.InDelta(t, 0.0075, u.Cost.Output, 1e-12)
			assert.InDelta(t, 0.0006, u.Cost.CacheRead, 1e-12)
			assert.InDelta(t, 0.0015, u.Cost.CacheWrite, 1e-12)
			assert.InDelta(t, 0.0126, u.Cost.Total, 1e-12)
		})
	}
}

func TestStreamRateLimitThenSuccess(t *testing.T) {
	for _, api := range llmAPIs {
		t.Run(api, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Reply(llmtest.Status(429))
			srv.Reply(llmtest.Text("made it"))
			msg, err, _ := llmStream(t, srv, api, nil)
			require.NoError(t, err)
			assert.Equal(t, "made it", msg.Text())
			assert.Len(t, srv.Requests(), 2, "the SDK retried once")
		})
	}
}

func TestStreamServerErrorForever(t *testing.T) {
	for _, api := range llmAPIs {
		t.Run(api, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.SetDefault(llmtest.Status(500))
			msg, err, rec := llmStream(t, srv, api, nil)
			require.Error(t, err)
			assert.Len(t, srv.Requests(), 3, "1 try + 2 retries")
			assert.Equal(t, session.StopError, msg.StopReason)
			assert.Equal(t, err.Error(), msg.ErrorMessage())
			assert.Empty(t, rec.types, "nothing streamed")
			var pe *ProviderError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, 500, pe.StatusCode)
			want := map[string]string{
				APIOpenAICompletions: "fake: 500 server error: The server had an error while processing your request. Sorry about that!",
				APIAnthropicMessages: "fake: 500 server error: Internal server error",
			}[api]
			assert.Equal(t, want, err.Error())
			assert.False(t, IsRateLimit(err))
		})
	}
}

func TestStreamErrorMessages(t *testing.T) {
	tests := []struct {
		name   string
		part   llmtest.Part
		openai string
		anthr  string
		rate   bool
	}{
		{"rate limited", llmtest.Status(429), "fake: 429 rate limited: Rate limit reached for fake-model", "fake: 429 rate limited: This request would exceed the rate limit", true},
		{"overloaded", llmtest.Status(529), "fake: 529 overloaded: The engine is currently overloaded", "fake: 529 overloaded: Overloaded", false},
		{"auth", llmtest.Status(401), "fake: 401 authentication failed: Incorrect API key provided: sk-********ret1.", "fake: 401 authentication failed: invalid x-api-key", false},
		{"key echoed", llmtest.Status(400).Message("bad key sk-test-secret1 here"), "fake: 400 bad request: bad key *** here", "fake: 400 bad request: bad key *** here", false},
		{"not found", llmtest.Status(404), "fake: 404 not found: The model `fake-model` does not exist", "fake: 404 not found: model: fake-model", false},
		{"plain text body", llmtest.Status(502).Message(""), "fake: 502 server error: The server had an error", "fake: 502 server error: Internal server error", false},
	}
	for _, tc := range tests {
		for _, api := range llmAPIs {
			t.Run(tc.name+"/"+api, func(t *testing.T) {
				srv := llmtest.New(t)
				srv.SetDefault(tc.part.RetryAfter("0"))
				req := &Request{APIKey: "sk-test-secret1", Messages: []session.Message{llmUser("hi")}}
				msg, err, _ := llmStream(t, srv, api, req)
				require.Error(t, err)
				want := tc.openai
				if api == APIAnthropicMessages {
					want = tc.anthr
				}
				assert.True(t, strings.HasPrefix(err.Error(), want), "got %q, want prefix %q", err.Error(), want)
				assert.NotContains(t, msg.ErrorMessage(), "sk-test-secret1")
				assert.NotContains(t, msg.ErrorMessage(), "\n")
				assert.Equal(t, tc.rate, IsRateLimit(err))
			})
		}
	}
}

func TestStreamContextOverflowIsRecognised(t *testing.T) {
	for _, api := range llmAPIs {
		t.Run(api, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Reply(llmtest.ContextOverflow(230000, 200000))
			msg, err, _ := llmStream(t, srv, api, nil)
			require.Error(t, err)
			assert.Len(t, srv.Requests(), 1, "a 400 is not retried")
			assert.True(t, IsContextOverflow(msg, 200000), msg.ErrorMessage())
			assert.False(t, IsRateLimit(err))
		})
	}
}

func TestStreamInStreamError(t *testing.T) {
	for _, api := range llmAPIs {
		t.Run(api, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Reply(llmtest.Text("partial answer"), llmtest.StreamError("overloaded_error", "Overloaded"))
			msg, err, _ := llmStream(t, srv, api, nil)
			require.Error(t, err)
			assert.Equal(t, session.StopError, msg.StopReason)
			assert.Equal(t, "partial answer", msg.Text())
			assert.Equal(t, "fake: stream error (overloaded_error): Overloaded", msg.ErrorMessage())
			var pe *ProviderError
			require.ErrorAs(t, err, &pe)
			assert.True(t, pe.Stream)
		})
	}
}

func TestStreamDisconnectKeepsPartialText(t *testing.T) {
	for _, api := range llmAPIs {
		t.Run(api, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Reply(llmtest.Text("half a"), llmtest.ToolCall("bash", `{"command":"ls"}`), llmtest.Disconnect())
			msg, err, _ := llmStream(t, srv, api, nil)
			require.Error(t, err)
			assert.Equal(t, session.StopError, msg.StopReason)
			assert.Equal(t, "half a", msg.Text())
			assert.True(t, strings.HasPrefix(msg.ErrorMessage(), "fake: stream interrupted: "), msg.ErrorMessage())
			require.Len(t, msg.ToolCalls(), 1)
			assert.Equal(t, `{"command":"ls"}`, string(msg.ToolCalls()[0].Arguments))
		})
	}
}

func TestStreamAbortDuringHang(t *testing.T) {
	for _, api := range llmAPIs {
		t.Run(api, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Reply(llmtest.Text("streaming along"), llmtest.Hang())
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rec := &llmRecorder{t: t}
			seen := 0
			rec.onText = func(StreamEvent) {
				if seen++; seen == 2 { // the whole text has arrived: the server now hangs
					cancel()
				}
			}
			req := &Request{Model: llmModel(srv, api), Messages: []session.Message{llmUser("hi")}}
			msg, err := llmProvider(api, 2).Stream(ctx, req, rec.emit)
			require.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, session.StopAborted, msg.StopReason)
			assert.Equal(t, "Request was aborted", msg.ErrorMessage())
			assert.Equal(t, "streaming along", msg.Text())
			assert.Len(t, srv.Requests(), 1)
		})
	}
}

func TestStreamAbortBeforeResponse(t *testing.T) {
	for _, api := range llmAPIs {
		t.Run(api, func(t *testing.T) {
			srv := llmtest.New(t)
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			req := &Request{Model: llmModel(srv, api), Messages: []session.Message{llmUser("hi")}}
			msg, err := llmProvider(api, 2).Stream(ctx, req, nil)
			require.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, session.StopAborted, msg.StopReason)
		})
	}
}

func TestStreamConnectionRefused(t *testing.T) {
	srv := llmtest.NewServer()
	models := map[string]Model{}
	for _, api := range llmAPIs {
		models[api] = llmModel(srv, api)
	}
	srv.Close()
	for _, api := range llmAPIs {
		m := models[api]
		t.Run(api, func(t *testing.T) {
			req := &Request{Model: m, Messages: []session.Message{llmUser("hi")}}
			msg, err := llmProvider(api, 0).Stream(context.Background(), req, nil)
			require.Error(t, err)
			assert.Equal(t, session.StopError, msg.StopReason)
			assert.True(t, strings.HasPrefix(err.Error(), "fake: request failed: "), err.Error())
		})
	}
}

func TestUnsupportedAPI(t *testing.T) {
	p := NewRegistry(nil).NewProvider(Model{Provider: "x", ID: "y", API: "smoke-signals"})
	msg, err := p.Stream(context.Background(), &Request{Model: Model{Provider: "x", ID: "y", API: "smoke-signals"}}, nil)
	require.Error(t, err)
	assert.Equal(t, session.StopError, msg.StopReason)
	assert.Contains(t, msg.ErrorMessage(), `x: unsupported api "smoke-signals"`)
}
