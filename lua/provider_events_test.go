package lua_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/lua"
)

func TestProviderEvents(t *testing.T) {
	host := newHost(t)
	rt, reps := loadHooks(t, host, lua.Options{}, "events/provider.lua")
	assert.True(t, rt.Listening("provider.request"))
	assert.True(t, rt.Listening("after_provider_response"))
	call := agent.ProviderCall{Provider: "openai", API: agent.APIOpenAICompletions, URL: "http://x/v1/chat/completions"}

	body := []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[],"stream":true,"max_tokens":8192}`)
	got := rt.ProviderRequest(bg, call, body)
	assert.Equal(t, `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[],"stream":true,"max_tokens":8192,`+
		`"temperature":0.5,"seen":"openai openai-completions http://x/v1/chat/completions same=true","second":0.5}`, string(got),
		"keys keep their order, empty arrays stay arrays; pi's handler returned the payload itself")

	rt.ProviderResponse(bg, call, 429, http.Header{"Retry-After": {"3"}, "X-Multi": {"a", "b"}})
	assert.Equal(t, map[string]any{"status": 429.0, "url": call.URL, "headers": map[string]any{"retry-after": "3", "x-multi": "a, b"}},
		lastCustom(t, host.Sess, "response"))
	assert.Empty(t, reps.Lines())
}

func TestProviderRequestErrorsKeepTheBody(t *testing.T) {
	rt, reps := loadHooks(t, newHost(t), lua.Options{}, "provider_bad.lua")
	call := agent.ProviderCall{Provider: "p", API: agent.APIAnthropicMessages, URL: "u"}
	assert.Nil(t, rt.ProviderRequest(bg, call, []byte(`{"model":"m"}`)), "a failing handler changes nothing")
	lines := reps.Lines()
	require.Len(t, lines, 2)
	assert.Contains(t, lines[0], "provider.request")
	assert.Contains(t, lines[0], "boom")
	assert.Contains(t, lines[1], "body")
}
