package main

// Provider events through the binary: provider.request edits the exact
// body the server receives, provider.response sees each attempt's status
// and headers, and pi's provider-payload example runs as ported.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

func TestProviderRequestHookEditsTheBody(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			e := newHookE2E(t)
			e.api = api
			e.hkGlobal("provider_body.lua")
			e.srv.Reply(llmtest.Status(429).RetryAfter("0"))
			e.srv.Reply(llmtest.Text("ok"))
			r := e.run("", "-p", "hello")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, "ok\n", r.stdout)

			reqs := e.srv.Requests()
			require.Len(t, reqs, 2, "the 429 is retried with the edited body")
			assert.Equal(t, string(reqs[0].Body), string(reqs[1].Body))
			for _, rq := range reqs {
				assert.Equal(t, 0.5, rq.Field("temperature"))
				msgs := rq.JSON["messages"].([]any)
				last := msgs[len(msgs)-1].(map[string]any)
				assert.Equal(t, map[string]any{"role": "user", "content": "added by provider.request"}, last)
			}

			url, msgs := e.srv.URL()+"/chat/completions", 2.0 // the system prompt and the prompt
			provider, apiName, model := "openai", llmtest.APIOpenAI, "gpt-4.1"
			if api == "anthropic" {
				url, msgs = e.srv.RootURL()+"/v1/messages", 1
				provider, apiName, model = "anthropic", llmtest.APIAnthropic, "claude-sonnet-4-5"
			}
			var got []string
			for _, l := range e.hkLines() {
				got = append(got, l.Kind)
				switch l.Kind {
				case "request":
					assert.Equal(t, map[string]any{"provider": provider, "api": apiName, "url": url, "model": model,
						"messages": msgs, "same": true}, l.obj())
				case "response":
					assert.Equal(t, url, l.obj()["url"])
				}
			}
			require.Equal(t, []string{"request", "response", "response"}, got, "one body, two attempts")
			lines := e.hkLines()
			assert.Equal(t, 429.0, lines[1].obj()["status"])
			assert.Equal(t, "0", lines[1].obj()["retry_after"])
			assert.Equal(t, 200.0, lines[2].obj()["status"])
			assert.True(t, strings.HasPrefix(lines[2].obj()["content_type"].(string), "text/event-stream"), "%v", lines[2].obj())
		})
	}
}

// pi's examples/extensions/provider-payload.ts, ported: the payload and
// each response logged to .pi/provider-payload.log; and the replacement
// its comment shows, in pi's result shape.
func TestPiExtProviderPayload(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("ok"))
	pi := filepath.Join(hkDir(t), "pi")
	r := e.run("", "--hook", filepath.Join(pi, "provider-payload.lua"), "--hook", filepath.Join(pi, "payload-replace.lua"), "-p", "hello")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "ok\n", r.stdout)
	assert.NotContains(t, r.stderr, "hook")

	reqs := e.srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, 0.0, reqs[0].Field("temperature"), "pi's shape: the returned payload is sent")

	data, err := os.ReadFile(filepath.Join(e.cwd, ".pi", "provider-payload.log"))
	require.NoError(t, err)
	blocks := strings.Split(strings.TrimSuffix(string(data), "\n\n"), "\n\n")
	require.Len(t, blocks, 2, "%s", data)
	assert.True(t, strings.HasPrefix(blocks[0], "{\n  \"model\": \"gpt-4.1\",\n  \"messages\": ["), "pretty-printed, keys in the body's order:\n%s", blocks[0])
	var logged map[string]any
	require.NoError(t, json.Unmarshal([]byte(blocks[0]), &logged))
	sent := reqs[0].JSON
	sent["temperature"] = nil
	delete(sent, "temperature")
	assert.Equal(t, sent, logged, "the payload as built, before the later hook replaced it")
	assert.True(t, strings.HasPrefix(blocks[1], `[200] {"`), blocks[1])
	assert.Contains(t, blocks[1], `"content-type":"text/event-stream`)
}
