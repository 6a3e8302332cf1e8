package llmtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	Name string
	Data string
}

// post sends body to path and returns the response.
func post(t *testing.T, ctx context.Context, url, body string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// readEvents parses an SSE body into events; it returns the read error too.
func readEvents(r io.Reader) ([]sseEvent, error) {
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Data != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.Data = strings.TrimPrefix(line, "data: ")
		}
	}
	return out, sc.Err()
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &v), s)
	return v
}

func TestOpenAIStreamWireFormat(t *testing.T) {
	srv := New(t)
	srv.Reply(Thinking("let me think"), Text("hello there world"), ToolCall("bash", `{"command":"ls -la"}`).Split(5).WithID("call_1"),
		ToolCall("read", `{"path":"a.go"}`), Usage(100, 20, 30, 5))
	res := post(t, context.Background(), srv.URL()+"/chat/completions",
		`{"model":"gpt-4o","stream":true,"stream_options":{"include_usage":true},"messages":[]}`, nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "text/event-stream; charset=utf-8", res.Header.Get("Content-Type"))
	events, err := readEvents(res.Body)
	require.NoError(t, err)
	require.NotEmpty(t, events)
	assert.Equal(t, "[DONE]", events[len(events)-1].Data)

	var content, reasoning strings.Builder
	args := map[float64]*strings.Builder{}
	var ids, names []any
	var finish any
	var usage map[string]any
	fragments := 0
	for _, ev := range events[:len(events)-1] {
		assert.Empty(t, ev.Name, "OpenAI sends no event: lines")
		c := decode(t, ev.Data)
		assert.Equal(t, "chat.completion.chunk", c["object"])
		assert.Equal(t, "gpt-4o", c["model"])
		choices := c["choices"].([]any)
		if len(choices) == 0 {
			usage = c["usage"].(map[string]any)
			continue
		}
		ch := choices[0].(map[string]any)
		if ch["finish_reason"] != nil {
			finish = ch["finish_reason"]
		}
		delta := ch["delta"].(map[string]any)
		if s, ok := delta["content"].(string); ok {
			content.WriteString(s)
		}
		if s, ok := delta["reasoning_content"].(string); ok {
			reasoning.WriteString(s)
		}
		if tcs, ok := delta["tool_calls"].([]any); ok {
			tc := tcs[0].(map[string]any)
			idx := tc["index"].(float64)
			if id, ok := tc["id"]; ok {
				ids = append(ids, id)
				names = append(names, tc["function"].(map[string]any)["name"])
				args[idx] = &strings.Builder{}
			}
			a := tc["function"].(map[string]any)["arguments"].(string)
			if idx == 0 && a != "" {
				fragments++
			}
			args[idx].WriteString(a)
		}
	}
	assert.Equal(t, "hello there world", content.String())
	assert.Equal(t, "let me think", reasoning.String())
	assert.Equal(t, []any{"call_1", "call_llmtest_1_1"}, ids)
	assert.Equal(t, []any{"bash", "read"}, names)
	assert.Equal(t, `{"command":"ls -la"}`, args[0].String())
	assert.Equal(t, `{"path":"a.go"}`, args[1].String())
	assert.Equal(t, 5, fragments)
	assert.Equal(t, "tool_calls", finish)
	require.NotNil(t, usage)
	assert.Equal(t, float64(135), usage["prompt_tokens"])
	assert.Equal(t, float64(20), usage["completion_tokens"])
	assert.Equal(t, float64(30), usage["prompt_tokens_details"].(map[string]any)["cached_tokens"])
}

func TestOpenAIUsageChunkOnlyWhenAsked(t *testing.T) {
	srv := New(t)
	srv.Reply(Text("hi"))
	res := post(t, context.Background(), srv.URL()+"/chat/completions", `{"model":"m","stream":true}`, nil)
	events, err := readEvents(res.Body)
	require.NoError(t, err)
	for _, ev := range events[:len(events)-1] {
		assert.NotContains(t, ev.Data, `"usage"`)
	}
	last := decode(t, events[len(events)-2].Data)
	assert.Equal(t, "stop", last["choices"].([]any)[0].(map[string]any)["finish_reason"])
}

func TestAnthropicStreamWireFormat(t *testing.T) {
	srv := New(t)
	srv.Reply(Thinking("hmm").Signed("sig-A"), RedactedThinking("opaque"), Text("a b"), ToolCall("bash", `{"command":"ls"}`).Split(6).WithID("toolu_1"),
		Usage(10, 7, 3, 2))
	res := post(t, context.Background(), srv.RootURL()+"/v1/messages", `{"model":"claude-x","stream":true,"max_tokens":10,"messages":[]}`,
		map[string]string{"anthropic-version": "2023-06-01"})
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "req_llmtest_1", res.Header.Get("Request-Id"))
	events, err := readEvents(res.Body)
	require.NoError(t, err)

	var names []string
	for _, ev := range events {
		names = append(names, ev.Name)
		if ev.Name != "ping" {
			assert.Equal(t, ev.Name, decode(t, ev.Data)["type"], "event: line matches the data type")
		}
	}
	want := []string{"message_start",
		"content_block_start", "ping", "content_block_delta", "content_block_delta", "content_block_stop", // thinking + signature
		"content_block_start", "content_block_stop", // redacted
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop", // text "a ", "b"
		"content_block_start", "content_block_delta", // tool_use + empty input_json_delta
		"content_block_delta", "content_block_delta", "content_block_delta", "content_block_delta", "content_block_delta", "content_block_delta",
		"content_block_stop", "message_delta", "message_stop"}
	assert.Equal(t, want, names)

	start := decode(t, events[0].Data)["message"].(map[string]any)
	assert.Equal(t, "claude-x", start["model"])
	assert.Equal(t, map[string]any{"input_tokens": 10.0, "cache_creation_input_tokens": 2.0, "cache_read_input_tokens": 3.0,
		"output_tokens": 1.0, "service_tier": "standard"}, start["usage"])
	sig := decode(t, events[4].Data)["delta"].(map[string]any)
	assert.Equal(t, map[string]any{"type": "signature_delta", "signature": "sig-A"}, sig)
	red := decode(t, events[6].Data)["content_block"].(map[string]any)
	assert.Equal(t, map[string]any{"type": "redacted_thinking", "data": "opaque"}, red)
	tool := decode(t, events[12].Data)["content_block"].(map[string]any)
	assert.Equal(t, map[string]any{"type": "tool_use", "id": "toolu_1", "name": "bash", "input": map[string]any{}}, tool)
	var partial strings.Builder
	for _, ev := range events[13:20] {
		partial.WriteString(decode(t, ev.Data)["delta"].(map[string]any)["partial_json"].(string))
	}
	assert.Equal(t, `{"command":"ls"}`, partial.String())
	md := decode(t, events[len(events)-2].Data)
	assert.Equal(t, "tool_use", md["delta"].(map[string]any)["stop_reason"])
	assert.Equal(t, 7.0, md["usage"].(map[string]any)["output_tokens"])
}

func TestErrorResponses(t *testing.T) {
	tests := []struct {
		name       string
		part       Part
		api        string
		status     int
		retryAfter string
		errType    string
		code       any
		message    string
	}{
		{"openai 429", Status(429), APIOpenAI, 429, "0", "tokens", "rate_limit_exceeded", "Rate limit reached for m"},
		{"openai 429 retry-after", Status(429).RetryAfter("7"), APIOpenAI, 429, "7", "tokens", "rate_limit_exceeded", "Rate limit"},
		{"openai 500", Status(500), APIOpenAI, 500, "0", "server_error", nil, "The server had an error"},
		{"openai 503", Status(503), APIOpenAI, 503, "0", "server_error", nil, "overloaded"},
		{"openai 401", Status(401), APIOpenAI, 401, "", "invalid_request_error", "invalid_api_key", "Incorrect API key provided: sk-********2345."},
		{"openai 404", Status(404), APIOpenAI, 404, "", "invalid_request_error", "model_not_found", "The model `m` does not exist"},
		{"openai overflow", ContextOverflow(130000, 128000), APIOpenAI, 400, "", "invalid_request_error", "context_length_exceeded",
			"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens."},
		{"openai custom", Status(400).Message("bad thing").WithErrorType("weird"), APIOpenAI, 400, "", "weird", nil, "bad thing"},
		{"anthropic 429", Status(429), APIAnthropic, 429, "0", "rate_limit_error", nil, "rate limit"},
		{"anthropic 529", Status(529), APIAnthropic, 529, "0", "overloaded_error", nil, "Overloaded"},
		{"anthropic 500", Status(500), APIAnthropic, 500, "0", "api_error", nil, "Internal server error"},
		{"anthropic 401", Status(401), APIAnthropic, 401, "", "authentication_error", nil, "invalid x-api-key"},
		{"anthropic overflow", ContextOverflow(213462, 200000), APIAnthropic, 400, "", "invalid_request_error", nil,
			"prompt is too long: 213462 tokens > 200000 maximum"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := New(t)
			srv.Reply(tc.part)
			path := "/chat/completions"
			if tc.api == APIAnthropic {
				path = "/messages"
			}
			res := post(t, context.Background(), srv.URL()+path, `{"model":"m","stream":true}`, map[string]string{"Authorization": "Bearer sk-test-12345"})
			assert.Equal(t, tc.status, res.StatusCode)
			assert.Equal(t, "application/json", res.Header.Get("Content-Type"))
			assert.Equal(t, tc.retryAfter, res.Header.Get("Retry-After"))
			body, err := io.ReadAll(res.Body)
			require.NoError(t, err)
			v := decode(t, string(body))
			e := v["error"].(map[string]any)
			if tc.api == APIAnthropic {
				assert.Equal(t, "error", v["type"])
			} else {
				assert.Equal(t, tc.code, e["code"])
			}
			assert.Equal(t, tc.errType, e["type"])
			assert.Contains(t, e["message"], tc.message)
		})
	}
}

func TestUnscriptedRequestFailsLoudly(t *testing.T) {
	srv := New(t)
	res := post(t, context.Background(), srv.URL()+"/chat/completions", `{}`, nil)
	assert.Equal(t, http.StatusInternalServerError, res.StatusCode)
	assert.Equal(t, "false", res.Header.Get("X-Should-Retry"))
	assert.Empty(t, res.Header.Get("Retry-After"))
	body, _ := io.ReadAll(res.Body)
	assert.Contains(t, string(body), "llmtest: no scripted reply")
}

func TestDefaultReplyRepeats(t *testing.T) {
	srv := New(t)
	srv.Reply(Text("first"))
	srv.SetDefault(Status(500))
	for i, want := range []int{200, 500, 500} {
		res := post(t, context.Background(), srv.URL()+"/chat/completions", `{}`, nil)
		assert.Equal(t, want, res.StatusCode, "request %d", i)
	}
	srv.SetDefault()
	res := post(t, context.Background(), srv.URL()+"/chat/completions", `{}`, nil)
	body, _ := io.ReadAll(res.Body)
	assert.Contains(t, string(body), "no scripted reply")
	assert.Equal(t, 0, srv.Pending())
}

func TestStreamErrorEvents(t *testing.T) {
	srv := New(t)
	srv.Reply(Text("partial"), StreamError("", ""))
	srv.Reply(Text("partial"), StreamError("overloaded_error", "Overloaded"))
	res := post(t, context.Background(), srv.URL()+"/chat/completions", `{}`, nil)
	events, err := readEvents(res.Body)
	require.NoError(t, err)
	last := decode(t, events[len(events)-1].Data)
	assert.Equal(t, "server_error", last["error"].(map[string]any)["type"])

	res = post(t, context.Background(), srv.URL()+"/messages", `{}`, nil)
	events, err = readEvents(res.Body)
	require.NoError(t, err)
	lastEv := events[len(events)-1]
	assert.Equal(t, "error", lastEv.Name)
	assert.JSONEq(t, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, lastEv.Data)
}

func TestDisconnectEndsBodyUnexpectedly(t *testing.T) {
	for _, path := range []string{"/chat/completions", "/messages"} {
		t.Run(path, func(t *testing.T) {
			srv := New(t)
			srv.Reply(Text("some partial text"), Disconnect())
			res := post(t, context.Background(), srv.URL()+path, `{}`, nil)
			events, err := readEvents(res.Body)
			require.Error(t, err)
			assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
			assert.NotEmpty(t, events)
			for _, ev := range events {
				assert.NotEqual(t, "[DONE]", ev.Data)
				assert.NotEqual(t, "message_stop", ev.Name)
			}
		})
	}
}

func TestHangBlocksUntilClientLeaves(t *testing.T) {
	srv := New(t)
	srv.Reply(Text("streaming"), Hang())
	ctx, cancel := context.WithCancel(context.Background())
	res := post(t, ctx, srv.URL()+"/chat/completions", `{}`, nil)
	br := bufio.NewReader(res.Body)
	line, err := br.ReadString('\n') // the role chunk arrives before the hang
	require.NoError(t, err)
	assert.Contains(t, line, `"role":"assistant"`)
	cancel()
	_, err = io.ReadAll(br)
	assert.Error(t, err)
}

func TestCloseReleasesHangingStreams(t *testing.T) {
	srv := NewServer()
	srv.Reply(Hang())
	res := post(t, context.Background(), srv.URL()+"/messages", `{}`, nil)
	require.Equal(t, http.StatusOK, res.StatusCode)
	done := make(chan struct{})
	go func() { srv.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close blocked on a hanging stream")
	}
}

// A client killed while sending its body leaves a fragment: the server
// neither records it nor spends a scripted reply on it (TestKillCampaign
// read such a fragment as a request without a user message).
func TestTruncatedBodyIsNotARequest(t *testing.T) {
	srv := New(t)
	srv.Reply(Text("kept for the next whole request"))
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.hs.URL, "http://"))
	require.NoError(t, err)
	_, err = io.WriteString(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"model\":\"m\",\"mess")
	require.NoError(t, err)
	require.NoError(t, conn.Close())
	require.Eventually(t, func() bool {
		srv.mu.Lock()
		defer srv.mu.Unlock()
		return srv.aborted == 1
	}, 10*time.Second, time.Millisecond)
	assert.Empty(t, srv.Requests())
	assert.Equal(t, 1, srv.Pending())
}

func TestRequestsAreRecorded(t *testing.T) {
	srv := New(t)
	var log bytes.Buffer
	srv.RecordTo(&log)
	srv.Reply(Text("a"))
	post(t, context.Background(), srv.URL()+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`,
		map[string]string{"X-Custom": "yes"})
	post(t, context.Background(), srv.URL()+"/not-json/messages", `not json`, nil)

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, http.MethodPost, reqs[0].Method)
	assert.Equal(t, "/v1/chat/completions", reqs[0].Path)
	assert.Equal(t, APIOpenAI, reqs[0].API)
	assert.Equal(t, "yes", reqs[0].Header.Get("X-Custom"))
	assert.Equal(t, "hi", reqs[0].Field("messages.0.content.0.text"))
	assert.Equal(t, "m", reqs[0].Field("model"))
	assert.Nil(t, reqs[0].Field("messages.3"))
	assert.Nil(t, reqs[0].Field("messages.x"))
	assert.Nil(t, reqs[0].Field("model.deeper"))
	assert.Equal(t, APIAnthropic, reqs[1].API)
	assert.Nil(t, reqs[1].JSON)
	assert.Equal(t, "not json", string(reqs[1].Body))

	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	require.Len(t, lines, 2)
	for i, line := range lines {
		var back Request
		require.NoError(t, json.Unmarshal([]byte(line), &back))
		assert.Equal(t, reqs[i].Path, back.Path)
		assert.Equal(t, string(reqs[i].Body), string(back.Body))
		assert.Equal(t, reqs[i].JSON, back.JSON)
	}
	assert.Contains(t, lines[0], `"body":{"model":"m"`)
	assert.Contains(t, lines[1], `"body":"not json"`)
}

func TestModelsEndpoint(t *testing.T) {
	srv := New(t)
	srv.SetModels("a", "b")
	get := func(header string) map[string]any {
		req, _ := http.NewRequest(http.MethodGet, srv.URL()+"/models", nil)
		if header != "" {
			req.Header.Set("anthropic-version", header)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return decode(t, string(body))
	}
	oa := get("")
	assert.Equal(t, "list", oa["object"])
	assert.Equal(t, "b", oa["data"].([]any)[1].(map[string]any)["id"])
	an := get("2023-06-01")
	assert.Equal(t, "a", an["first_id"])
	assert.Equal(t, "model", an["data"].([]any)[0].(map[string]any)["type"])

	res, err := http.Get(srv.URL() + "/unknown")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
}

func TestFragments(t *testing.T) {
	tests := []struct {
		name  string
		s     string
		n     int
		words bool
		want  []string
	}{
		{"empty", "", 3, true, nil},
		{"words", "hello big  world", 0, true, []string{"hello ", "big  ", "world"}},
		{"trailing space", "a b ", 0, true, []string{"a ", "b "}},
		{"bytes default", `{"command":"ls -la"}`, 0, false, []string{`{"comman`, `d":"ls -`, `la"}`}},
		{"bytes default keeps runes", "aaaaaaaéb", 0, false, []string{"aaaaaaaé", "b"}},
		{"split n", "abcdefg", 3, false, []string{"abc", "de", "fg"}},
		{"more pieces than runes", "ab", 5, true, []string{"a", "b"}},
		{"runes kept whole", "héllo", 2, false, []string{"hél", "lo"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := fragments(tc.s, tc.n, tc.words)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.s, strings.Join(got, ""))
		})
	}
}

func TestToolCallArguments(t *testing.T) {
	tests := []struct {
		args, want string
		valid      bool
	}{
		{`{"a": 1}`, `{"a": 1}`, true},
		{`{"a": 1`, `{"a": 1`, false},
		{`"quoted"`, `"quoted"`, false},
		{``, ``, false},
	}
	for _, tc := range tests {
		p := ToolCall("x", tc.args)
		assert.Equal(t, tc.want, p.argumentText(), tc.args)
		data, err := json.Marshal(p)
		require.NoError(t, err)
		var back Part
		require.NoError(t, json.Unmarshal(data, &back))
		if tc.valid { // the JSON form of a valid object is compacted
			assert.JSONEq(t, tc.want, back.argumentText(), "round trip of %q", tc.args)
		} else {
			assert.Equal(t, tc.want, back.argumentText(), "round trip of %q", tc.args)
		}
	}
}

func TestParseScript(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		replies int
		def     bool
		err     string
	}{
		{"list", `[{"parts":[{"type":"text","text":"hi"}]},{"parts":[{"type":"status","status":429}]}]`, 2, false, ""},
		{"object", `{"replies":[{"parts":[{"type":"tool_call","name":"bash","arguments":{"command":"ls"}}]}],"default":{"parts":[{"type":"status","status":500}]}}`, 1, true, ""},
		{"unknown type", `[{"parts":[{"type":"nope"}]}]`, 0, false, `reply 0: part 0: unknown part type "nope"`},
		{"status not alone", `[{"parts":[{"type":"text"},{"type":"status","status":500}]}]`, 0, false, "must be the only part"},
		{"bad status", `[{"parts":[{"type":"status","status":200}]}]`, 0, false, "not an HTTP error status"},
		{"hang not last", `[{"parts":[{"type":"hang"},{"type":"text"}]}]`, 0, false, "must be the last part"},
		{"tool without name", `[{"parts":[{"type":"tool_call"}]}]`, 0, false, "needs a name"},
		{"bad default", `{"default":{"parts":[{"type":"x"}]}}`, 0, false, "default reply"},
		{"unknown key", `{"replys":[]}`, 0, false, "unknown field"},
		{"not json", `{`, 0, false, "llmtest script"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := ParseScript([]byte(tc.json))
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Len(t, sc.Replies, tc.replies)
			assert.Equal(t, tc.def, sc.Default != nil)
		})
	}
}

func TestLoadScriptFixture(t *testing.T) {
	sc, err := LoadScript(filepath.Join("testdata", "llm_script.json"))
	require.NoError(t, err)
	srv := New(t)
	srv.Load(sc)
	require.Equal(t, len(sc.Replies), srv.Pending())
	res := post(t, context.Background(), srv.URL()+"/chat/completions", `{"model":"m"}`, nil)
	events, err := readEvents(res.Body)
	require.NoError(t, err)
	var calls []string
	for _, ev := range events {
		if strings.Contains(ev.Data, `"delta":{"tool_calls"`) {
			calls = append(calls, ev.Data)
		}
	}
	assert.Len(t, calls, 4, "id chunk + 3 argument fragments")

	_, err = LoadScript(filepath.Join(t.TempDir(), "missing.json"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestReplyPanicsOnBadScript(t *testing.T) {
	srv := New(t)
	assert.Panics(t, func() { srv.Reply(Text("x"), Status(500)) })
	assert.Panics(t, func() { srv.SetDefault(Part{Type: "bogus"}) })
}

func TestRequestLastUserText(t *testing.T) {
	for _, tt := range []struct{ name, body, want string }{
		{"string content", `{"messages":[{"role":"user","content":"first"},{"role":"assistant","content":"x"},{"role":"user","content":"last"}]}`, "last"},
		{"parts", `{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]},{"role":"tool","content":"r"}]}`, "ab"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Request{Body: []byte(tt.body)}.LastUserText()
			assert.True(t, ok)
			assert.Equal(t, tt.want, got)
		})
	}
	_, ok := Request{Body: []byte(`{"messages":[{"role":"assistant","content":"x"}]}`)}.LastUserText()
	assert.False(t, ok)
}

func TestPauseResumes(t *testing.T) {
	srv := New(t)
	srv.Reply(Text("before"), Pause(), Text("after"))
	resp, err := http.Post(srv.URL()+"/chat/completions", "application/json",
		strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	require.NoError(t, err)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	var got strings.Builder
	for !strings.Contains(got.String(), "before") {
		line, err := br.ReadString('\n')
		require.NoError(t, err)
		got.WriteString(line)
	}
	assert.NotContains(t, got.String(), "after", "paused")
	srv.Resume()
	rest, err := io.ReadAll(br)
	require.NoError(t, err)
	assert.Contains(t, string(rest), "after")
	assert.Contains(t, string(rest), "[DONE]")
}

func TestRequestUserTexts(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"openai", `{"messages":[{"role":"system","content":"sys"},{"role":"user","content":"one"},{"role":"assistant","content":"a"},{"role":"user","content":[{"type":"text","text":"two "},{"type":"image_url","image_url":{"url":"data:"}},{"type":"text","text":"parts"}]}]}`},
		{"anthropic", `{"system":"sys","messages":[{"role":"user","content":"one"},{"role":"assistant","content":[{"type":"text","text":"a"}]},{"role":"user","content":[{"type":"text","text":"two "},{"type":"image","source":{}},{"type":"text","text":"parts"}]}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			texts, err := Request{Body: []byte(tc.body)}.UserTexts()
			require.NoError(t, err)
			assert.Equal(t, []string{"one", "two parts"}, texts)
		})
	}
	_, err := Request{Body: []byte(`{"messages":[{"role":"user","content":7}]}`)}.UserTexts()
	assert.Error(t, err)
}
