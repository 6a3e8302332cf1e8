package llmtest

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckBody(t *testing.T) {
	openAIValid := `{"model":"gpt-5","messages":[` +
		`{"role":"developer","content":"sys"},` +
		`{"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:image/png;base64,aGk="}}]},` +
		`{"role":"assistant","content":null,"reasoning_content":"hmm","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]},` +
		`{"role":"tool","content":"x.png","tool_call_id":"c1"},` +
		`{"role":"user","content":"go on"}],` +
		`"stream":true,"prompt_cache_key":"s","stream_options":{"include_usage":true},"store":false,"max_completion_tokens":100,"temperature":0.5,` +
		`"tools":[{"type":"function","function":{"name":"bash","description":"Run","parameters":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}}],` +
		`"reasoning_effort":"high"}`
	anthropicValid := `{"model":"claude-sonnet-4-5","messages":[` +
		`{"role":"user","content":"hi"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"sig"},{"type":"redacted_thinking","data":"xx"},{"type":"text","text":"a"},{"type":"tool_use","id":"toolu_1","name":"read","input":{"path":"a"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"text","is_error":true},` +
		`{"type":"tool_result","tool_use_id":"toolu_2","content":[{"type":"text","text":"x"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"aGk="}}]},` +
		`{"type":"text","text":"next","cache_control":{"type":"ephemeral"}}]}],` +
		`"max_tokens":1000,"stream":true,"system":[{"type":"text","text":"sys","cache_control":{"type":"ephemeral"}}],` +
		`"thinking":{"type":"enabled","budget_tokens":500},` +
		`"tools":[{"name":"read","description":"Read","input_schema":{"type":"object","properties":{"path":{"type":"string"}}},"cache_control":{"type":"ephemeral"}}]}`
	tests := []struct {
		name  string
		api   string
		body  string
		extra map[string]bool
		err   string // "" for valid
	}{
		{"openai: lunar's full body", APIOpenAI, openAIValid, nil, ""},
		{"openai: services' extensions", APIOpenAI, `{"model":"m","messages":[{"role":"assistant","content":"a","reasoning_details":[{"type":"reasoning.encrypted"}]},{"role":"tool","content":"r","tool_call_id":"c","name":"bash"}],"thinking":{"type":"enabled"}}`, nil, ""},
		{"openai: unknown top-level field", APIOpenAI, `{"model":"m","messages":[],"temprature":1}`, nil, "temprature: unknown field"},
		{"openai: allowed by the test", APIOpenAI, `{"model":"m","messages":[],"top_k":5}`, map[string]bool{"top_k": true}, ""},
		{"openai: content of the wrong type", APIOpenAI, `{"model":"m","messages":[{"role":"user","content":5}]}`, nil, "messages.0.content"},
		{"openai: unknown role", APIOpenAI, `{"model":"m","messages":[{"role":"robot","content":"x"}]}`, nil, "messages.0"},
		{"openai: unknown part type", APIOpenAI, `{"model":"m","messages":[{"role":"user","content":[{"type":"image","data":"x"}]}]}`, nil, "messages.0.content.0"},
		{"openai: arguments must be a string", APIOpenAI, `{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"n","arguments":{}}}]}]}`, nil, "messages.0.tool_calls.0.function.arguments"},
		{"openai: stream not a boolean", APIOpenAI, `{"model":"m","stream":"yes"}`, nil, "stream"},
		{"anthropic: lunar's full body", APIAnthropic, anthropicValid, nil, ""},
		{"anthropic: no extensions", APIAnthropic, `{"model":"m","max_tokens":1,"messages":[{"role":"assistant","content":"a","reasoning_content":"x"}]}`, nil, "messages.0.reasoning_content"},
		{"anthropic: unknown block field", APIAnthropic, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"a","cache":true}]}]}`, nil, "messages.0.content.0.cache"},
		{"anthropic: tool_use input must be an object", APIAnthropic, `{"model":"m","max_tokens":1,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":"{}"}]}]}`, nil, "messages.0.content.0.input"},
		{"not JSON", APIOpenAI, `{"model":`, nil, "not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkBody(tt.api, []byte(tt.body), tt.extra)
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

// A body the API would refuse gets the API's 400, naming the field, and
// uses up no scripted reply.
func TestInvalidBodyIsRefused(t *testing.T) {
	srv := New(t)
	srv.Reply(Text("ok"))
	res := post(t, context.Background(), srv.URL()+"/chat/completions", `{"model":"m","stream":true,"messages":[],"temprature":1}`, nil)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	assert.Contains(t, string(body), `"type":"invalid_request_error"`)
	assert.Contains(t, string(body), "llmtest: not a valid openai-completions request: temprature: unknown field")
	require.Len(t, srv.Invalid(), 1)
	assert.Len(t, srv.Requests(), 1, "recorded all the same")
	assert.Equal(t, 1, srv.Pending(), "the scripted reply is still there")
}
