package agent

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// A BeforeSend hook sees the exact body and what it returns is sent (a
// streamed body too); AfterResponse sees every attempt's status and
// headers.
func TestProviderRequestAndResponseHooks(t *testing.T) {
	for _, api := range []string{APIOpenAICompletions, APIAnthropicMessages} {
		for _, streamed := range []bool{false, true} {
			name := api
			if streamed {
				name += "/large"
			}
			t.Run(name, func(t *testing.T) {
				if streamed {
					old := streamBodyMin
					streamBodyMin = 0
					t.Cleanup(func() { streamBodyMin = old })
				}
				srv := llmtest.New(t)
				srv.Reply(llmtest.Status(http.StatusTooManyRequests).RetryAfter("0"))
				srv.Reply(llmtest.Text("ok"))
				type response struct {
					url    string
					status int
					header http.Header
				}
				var seen [][]byte
				var urls []string
				var responses []response
				req := &Request{Messages: llmConversation(api), Tools: llmTools,
					BeforeSend: func(_ context.Context, url string, body []byte) []byte {
						seen = append(seen, bytes.Clone(body))
						urls = append(urls, url)
						return bytes.Replace(body, []byte("Thanks, go on."), []byte("Rewritten by a hook."), 1)
					},
					AfterResponse: func(_ context.Context, url string, status int, header http.Header) {
						responses = append(responses, response{url, status, header})
					}}
				_, err, _ := llmStream(t, srv, api, req)
				require.NoError(t, err)

				reqs := srv.Requests()
				require.Len(t, reqs, 2, "the 429 is retried")
				require.Len(t, seen, 1, "the hook sees the body once, before the first attempt")
				// Without the hook the same body is sent.
				plain, _, _ := llmRequestBody(t, api, &Request{Model: req.Model, Messages: llmConversation(api), Tools: llmTools})
				assert.Equal(t, string(plain), string(seen[0]))
				for _, r := range reqs {
					assert.Equal(t, string(bytes.Replace(plain, []byte("Thanks, go on."), []byte("Rewritten by a hook."), 1)), string(r.Body))
				}
				want := srv.URL() + "/chat/completions"
				if api == APIAnthropicMessages {
					want = srv.RootURL() + "/v1/messages"
				}
				assert.Equal(t, []string{want}, urls)

				require.Len(t, responses, 2)
				assert.Equal(t, http.StatusTooManyRequests, responses[0].status)
				assert.Equal(t, http.StatusOK, responses[1].status)
				assert.Equal(t, want, responses[1].url)
				assert.True(t, strings.HasPrefix(responses[1].header.Get("Content-Type"), "text/event-stream"))
			})
		}
	}
}

// llmRequestBody encodes the body a provider sends for req.
func llmRequestBody(t *testing.T, api string, req *Request) ([]byte, *requestBody, error) {
	t.Helper()
	var rb *requestBody
	var err error
	if api == APIOpenAICompletions {
		rb, _, err = openAIRequest(req)
	} else {
		rb, _, err = anthropicRequest(req)
	}
	require.NoError(t, err)
	return rb.bytes(), rb, err
}

// providerHooks listen to the provider events named in listen.
type providerHooks struct {
	NopHooks
	listen map[string]bool
}

func (h *providerHooks) Listening(event string) bool { return h.listen[event] }
func (h *providerHooks) ProviderRequest(context.Context, ProviderCall, []byte) []byte {
	return nil
}
func (h *providerHooks) ProviderResponse(context.Context, ProviderCall, int, http.Header) {}

// The loop wires only the provider events a handler listens to.
func TestProviderEventsOnlyWhenListening(t *testing.T) {
	for _, listen := range []map[string]bool{{}, {"provider.request": true}, {"provider.response": true}, {"provider.request": true, "provider.response": true}} {
		p := &scriptedProvider{replies: []func(context.Context, func(StreamEvent)) (*session.Message, error){reply(assistant(text("a")))}}
		var ran []string
		a := newTestAgent(p, &ran)
		a.Hooks = &providerHooks{listen: listen}
		require.NoError(t, a.prompt(context.Background(), "q", nil))
		req := p.requests[0]
		assert.Equal(t, listen["provider.request"], req.BeforeSend != nil, "%v", listen)
		assert.Equal(t, listen["provider.response"], req.AfterResponse != nil, "%v", listen)
	}
}
