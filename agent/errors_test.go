package agent

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/lunar-cli/lunar/session"
)

func TestProviderErrorMessage(t *testing.T) {
	tests := []struct {
		err  ProviderError
		want string
	}{
		{ProviderError{Provider: "openai", StatusCode: 429, Type: "rate_limit_exceeded", Message: "Slow down."}, "openai: 429 rate limited: Slow down."},
		{ProviderError{Provider: "openai", StatusCode: 400, Type: "context_length_exceeded", Message: "Too long."}, "openai: 400 bad request (context_length_exceeded): Too long."},
		{ProviderError{Provider: "anthropic", StatusCode: 400, Type: "invalid_request_error", Message: "prompt is too long"}, "anthropic: 400 bad request: prompt is too long"},
		{ProviderError{Provider: "anthropic", StatusCode: 529, Message: "Overloaded"}, "anthropic: 529 overloaded: Overloaded"},
		{ProviderError{Provider: "x", StatusCode: 418}, "x: 418 i'm a teapot"},
		{ProviderError{Provider: "anthropic", Stream: true, Type: "overloaded_error", Message: "Overloaded"}, "anthropic: stream error (overloaded_error): Overloaded"},
		{ProviderError{Provider: "openai", Stream: true, Message: "unexpected EOF"}, "openai: stream interrupted: unexpected EOF"},
		{ProviderError{Provider: "ollama", Message: "dial tcp: connection refused"}, "ollama: request failed: dial tcp: connection refused"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, tc.err.Error())
	}
	cause := errors.New("cause")
	assert.ErrorIs(t, fmt.Errorf("wrapped: %w", &ProviderError{Provider: "p", Err: cause}), cause)
}

func TestIsContextOverflow(t *testing.T) {
	errMsg := func(text string) *session.Message {
		return &session.Message{Role: session.RoleAssistant, StopReason: session.StopError, Usage: &session.Usage{}, Extra: &session.MessageExtra{ErrorMessage: text}}
	}
	ok := func(stop string, input, cacheRead, output int) *session.Message {
		return &session.Message{Role: session.RoleAssistant, StopReason: stop, Usage: &session.Usage{Input: input, CacheRead: cacheRead, Output: output}}
	}
	tests := []struct {
		name   string
		msg    *session.Message
		window int
		want   bool
	}{
		{"anthropic", errMsg("anthropic: 400 bad request: prompt is too long: 213462 tokens > 200000 maximum"), 0, true},
		{"openai", errMsg("openai: 400 bad request (context_length_exceeded): This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens."), 0, true},
		{"openai responses", errMsg("Your input exceeds the context window of this model"), 0, true},
		{"google", errMsg("The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)"), 0, true},
		{"xai", errMsg("This model's maximum prompt length is 131072 but the request contains 537812 tokens"), 0, true},
		{"groq", errMsg("Please reduce the length of the messages or completion"), 0, true},
		{"llama.cpp", errMsg("the request exceeds the available context size, try increasing it"), 0, true},
		{"lm studio", errMsg("tokens to keep from the initial prompt is greater than the context length"), 0, true},
		{"mistral", errMsg("Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum context length"), 0, true},
		{"kimi", errMsg("Your request exceeded model token limit: 262144 (requested: 300000)"), 0, true},
		{"cerebras", errMsg("cerebras: 400 bad request: (no body)"), 0, true},
		{"generic", errMsg("context_length_exceeded"), 0, true},
		{"rate limit with tokens", errMsg("openai: 429 rate limited: Rate limit reached on tokens per min (TPM): too many tokens"), 0, false},
		{"rate limit", errMsg("Too many requests, please slow down"), 0, false},
		{"other error", errMsg("anthropic: 500 server error: Internal server error"), 200000, false},
		{"silent overflow", ok(session.StopStop, 150000, 60000, 10), 200000, true},
		{"fits", ok(session.StopStop, 150000, 40000, 10), 200000, false},
		{"no window", ok(session.StopStop, 150000, 60000, 10), 0, false},
		{"length with nothing out", ok(session.StopLength, 198500, 0, 0), 200000, true},
		{"length with output", ok(session.StopLength, 198500, 0, 5), 200000, false},
		{"length far from full", ok(session.StopLength, 1000, 0, 0), 200000, false},
		{"tool use", ok(session.StopToolUse, 300000, 0, 5), 200000, false},
		{"no usage", &session.Message{StopReason: session.StopStop}, 100, false},
		{"nil", nil, 100, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, IsContextOverflow(tc.msg, tc.window))
		})
	}
}

func TestIsRateLimit(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"429", &ProviderError{Provider: "p", StatusCode: 429}, true},
		{"wrapped 429", fmt.Errorf("turn: %w", &ProviderError{Provider: "p", StatusCode: 429}), true},
		{"stream rate limit", &ProviderError{Provider: "p", Stream: true, Type: "rate_limit_error", Message: "slow"}, true},
		{"message", &ProviderError{Provider: "p", StatusCode: 400, Message: "Rate limit exceeded for model"}, true},
		{"overloaded", &ProviderError{Provider: "p", StatusCode: 529, Type: "overloaded_error", Message: "Overloaded"}, false},
		{"overflow", &ProviderError{Provider: "p", StatusCode: 400, Message: "prompt is too long"}, false},
		{"plain error", errors.New("429 Too Many Requests"), true},
		{"other", errors.New("boom"), false},
		{"nil", nil, false},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, IsRateLimit(tc.err), tc.name)
	}
}

func TestErrorBody(t *testing.T) {
	tests := []struct {
		body, typ, msg string
	}{
		{`{"error":{"message":"Bad\nthing","type":"invalid_request_error","param":null,"code":"context_length_exceeded"}}`, "context_length_exceeded", "Bad thing"},
		{`{"error":{"message":"Slow","type":"tokens","code":null}}`, "tokens", "Slow"},
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"r"}`, "overloaded_error", "Overloaded"},
		{`{"error":"model \"x\" not found, try pulling it first"}`, "", `model "x" not found, try pulling it first`},
		{`{"message":"Invalid key"}`, "", "Invalid key"},
		{`{"detail":"Not Found"}`, "", "Not Found"},
		{`{"detail":[{"loc":["body"],"msg":"bad"}]}`, "", `[{"loc":["body"],"msg":"bad"}]`},
		{"<html>\n<body>502 Bad Gateway</body>\n</html>", "", "<html> <body>502 Bad Gateway</body> </html>"},
		{"", "", "(no body)"},
	}
	for _, tc := range tests {
		typ, msg := provErrorBody([]byte(tc.body))
		assert.Equal(t, tc.typ, typ, tc.body)
		assert.Equal(t, tc.msg, msg, tc.body)
	}
	long := make([]byte, 1000)
	for i := range long {
		long[i] = 'x'
	}
	_, msg := provErrorBody(long)
	assert.Len(t, []rune(msg), 301)
}

func TestRetryAfterAndRedact(t *testing.T) {
	h := http.Header{}
	assert.Zero(t, provRetryAfter(h))
	h.Set("Retry-After", "2")
	assert.Equal(t, 2*time.Second, provRetryAfter(h))
	h.Set("Retry-After-Ms", "150")
	assert.Equal(t, 150*time.Millisecond, provRetryAfter(h))

	assert.Equal(t, "key *** leaked ***", provRedact("key sk-secret-1 leaked sk-secret-1", []string{"sk-secret-1"}))
	assert.Equal(t, "a short b", provRedact("a short b", []string{"short"}), "short keys are not redacted")
	assert.Equal(t, "nothing", provRedact("nothing", []string{""}))
}

func TestSecretHeadersAreRedacted(t *testing.T) {
	for name, secret := range map[string]bool{
		"Authorization": true, "Proxy-Authorization": true, "Cookie": true, "X-Api-Key": true,
		"x-goog-api-key": true, "X-Auth-Token": true, "Ocp-Apim-Subscription-Key": true, "X-Client-Secret": true,
		"X-Session-Id": true, "Anthropic-Version": false, "X-Title": false, "HTTP-Referer": false,
	} {
		assert.Equal(t, secret, SecretHeader(name), name)
	}
	req := &Request{APIKey: "sk-api-key-1", Model: Model{Headers: map[string]string{"X-Api-Key": "hdr-secret-1", "X-Title": "lunar-title"}},
		Headers: map[string]string{"Authorization": "Bearer hook-token-1"}}
	got := provRedact("sk-api-key-1 hdr-secret-1 hook-token-1 Bearer hook-token-1 lunar-title", requestSecrets(req))
	assert.Equal(t, "*** *** *** *** lunar-title", got)
}
