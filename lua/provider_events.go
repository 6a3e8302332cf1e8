package lua

// This file implements the provider events: provider.request (pi's
// before_provider_request) hands each handler the exact request body as a
// table and sends what they return; provider.response (pi's
// after_provider_response) reports each response's status and headers.
// The agent asks for them only while a handler listens, so a body is
// encoded whole and decoded into Lua only then.

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/stdlib"
)

var _ agent.ProviderHooks = (*Runtime)(nil)

// ProviderRequest implements agent.ProviderHooks (provider.request): each
// handler sees the body as the previous one left it and may replace it.
// It returns nil when no handler changed it.
func (r *Runtime) ProviderRequest(ctx context.Context, call agent.ProviderCall, body []byte) []byte {
	cur, changed := body, false
	for _, hd := range r.listeners(evProviderRequest) {
		var next []byte
		err := r.invoke(ctx, hd, func(h *hook, L *glua.LState, ev *glua.LTable) error {
			v, err := h.codec().Decode(cur)
			if err != nil {
				return fmt.Errorf("the request body: %w", err)
			}
			ev.RawSetString("body", v)
			ev.RawSetString("payload", v)
			setCall(ev, call)
			return nil
		}, func(rr *resultReader) error {
			t, ok := rr.table("body")
			if !ok {
				return nil
			}
			b, err := rr.h.codec().Encode(nil, t, stdlib.EncodeOptions{})
			if err != nil {
				return fmt.Errorf("body: %w", err)
			}
			next = b
			return nil
		})
		if err == nil && next != nil {
			cur, changed = next, true
		}
	}
	if !changed {
		return nil
	}
	return cur
}

// ProviderResponse implements agent.ProviderHooks (provider.response).
func (r *Runtime) ProviderResponse(ctx context.Context, call agent.ProviderCall, status int, header http.Header) {
	for _, hd := range r.listeners(evProviderResponse) {
		_ = r.invoke(ctx, hd, func(h *hook, L *glua.LState, ev *glua.LTable) error {
			ev.RawSetString("status", glua.LNumber(status))
			names := make([]string, 0, len(header))
			for k := range header {
				names = append(names, k)
			}
			sort.Strings(names)
			ht := L.CreateTable(0, len(names))
			for _, k := range names {
				ht.RawSetString(strings.ToLower(k), glua.LString(strings.Join(header[k], ", ")))
			}
			ev.RawSetString("headers", ht)
			setCall(ev, call)
			return nil
		}, nil)
	}
}

// setCall fills the fields naming the call.
func setCall(ev *glua.LTable, call agent.ProviderCall) {
	ev.RawSetString("provider", glua.LString(call.Provider))
	ev.RawSetString("api", glua.LString(call.API))
	ev.RawSetString("url", glua.LString(call.URL))
}

// piProviderRequest: pi's handler returns the payload itself.
func piProviderRequest(L *glua.LState, t *glua.LTable) (*glua.LTable, error) {
	out := L.CreateTable(0, 1)
	out.RawSetString("body", t)
	return out, nil
}
