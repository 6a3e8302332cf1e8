package agent

// Provider events: hooks that see the exact request body before it is
// sent (and may replace it) and the status and headers of each response
// (pi's before_provider_request and after_provider_response). Encoding a
// body whole and decoding it for a hook costs time and memory on a long
// session, so nothing of it happens unless a handler listens.

import (
	"context"
	"net/http"
	"strings"
)

// ProviderHooks is implemented by Hooks that watch the provider's HTTP
// traffic. The loop wires them into its requests only while a handler
// listens ("provider.request", "provider.response"; see EventListener).
type ProviderHooks interface {
	// ProviderRequest sees the body of a request about to be sent and may
	// return another (nil keeps it).
	ProviderRequest(ctx context.Context, call ProviderCall, body []byte) []byte
	// ProviderResponse receives the status and headers of a response
	// (every attempt, retries included) before its body is read.
	ProviderResponse(ctx context.Context, call ProviderCall, status int, header http.Header)
}

// ProviderCall is the HTTP call a provider event is about.
type ProviderCall struct {
	Provider string // the model's provider
	API      string // APIOpenAICompletions or APIAnthropicMessages
	URL      string // the endpoint
}

// providerEvents sets req's BeforeSend and AfterResponse to h's handlers,
// each only when a handler listens.
func providerEvents(h Hooks, req *Request) {
	ph, ok := h.(ProviderHooks)
	if !ok {
		return
	}
	call := func(url string) ProviderCall {
		return ProviderCall{Provider: req.Model.Provider, API: req.Model.API, URL: url}
	}
	if listening(h, "provider.request") {
		req.BeforeSend = func(ctx context.Context, url string, body []byte) []byte {
			return ph.ProviderRequest(ctx, call(url), body)
		}
	}
	if listening(h, "provider.response") {
		req.AfterResponse = func(ctx context.Context, url string, status int, header http.Header) {
			ph.ProviderResponse(ctx, call(url), status, header)
		}
	}
}

// middleware is what both SDKs take as a request middleware.
type middleware = func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error)

// prepare returns the raw body to give an SDK's Execute and the
// middlewares to install for req sent to url: the streamed body's (see
// sdkBody), and the provider events'. A BeforeSend hook gets the body
// built whole, whatever its size, and what it returns is sent.
func (rb *requestBody) prepare(ctx context.Context, req *Request, url string) ([]byte, []middleware) {
	var raw []byte
	var mws []middleware
	if req.BeforeSend != nil {
		raw = rb.bytes()
		if b := req.BeforeSend(ctx, url, raw); b != nil {
			raw = b
		}
	} else {
		var stream middleware
		if raw, stream = rb.sdkBody(); stream != nil {
			mws = append(mws, stream)
		}
	}
	if after := req.AfterResponse; after != nil {
		mws = append(mws, func(r *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
			res, err := next(r)
			if res != nil {
				after(r.Context(), url, res.StatusCode, res.Header)
			}
			return res, err
		})
	}
	return raw, mws
}

// endpoint joins a base URL and a path as the SDKs do.
func endpoint(base, path string) string {
	return strings.TrimRight(base, "/") + "/" + path
}
