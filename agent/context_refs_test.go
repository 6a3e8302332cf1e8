package agent

// The loop hands the session's context to the provider by reference
// unless a context hook may change it.

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/session"
)

// listenHooks says whether its context handler listens, and counts the
// calls it gets anyway.
type listenHooks struct {
	NopHooks
	listen bool
	calls  int
}

func (h *listenHooks) Listening(event string) bool { return h.listen && event == "context" }

func (h *listenHooks) Context(_ context.Context, msgs []ContextMessage) []ContextMessage {
	h.calls++
	return msgs
}

// lazyHooks runs a context handler over the context built on demand:
// read builds it, change replaces it by a copy.
type lazyHooks struct {
	listenHooks
	read, change bool
}

func (h *lazyHooks) LazyContext(_ context.Context, messages func() []ContextMessage) ([]ContextMessage, bool) {
	h.calls++
	if !h.read {
		return nil, false
	}
	msgs := messages()
	return msgs, h.change
}

func TestRequestSharesTheStoredContext(t *testing.T) {
	for _, c := range []struct {
		name   string
		hooks  Hooks
		shared bool
	}{
		{"no hooks", nil, true},
		{"nobody listens to context", &listenHooks{}, true},
		{"a context hook listens", &listenHooks{listen: true}, false},
		{"hooks that cannot tell", &resolvingHooks{}, false},
		{"a lazy context hook that does not read", &lazyHooks{listenHooks: listenHooks{listen: true}}, true},
		{"a lazy context hook that reads", &lazyHooks{listenHooks: listenHooks{listen: true}, read: true}, true},
		{"a lazy context hook that replaces", &lazyHooks{listenHooks: listenHooks{listen: true}, read: true, change: true}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &scriptedProvider{replies: []func(context.Context, func(StreamEvent)) (*session.Message, error){reply(assistant(text("a")))}}
			var ran []string
			a := newTestAgent(p, &ran)
			a.Hooks = c.hooks
			require.NoError(t, a.prompt(context.Background(), "q", nil))
			require.Len(t, p.requests, 1)
			refs := p.requests[0].MessageRefs
			require.Len(t, refs, 1)
			stored := a.Session.Path("")[0].Message
			assert.Equal(t, *stored, *refs[0])
			if c.shared {
				assert.Same(t, stored, refs[0], "the stored message itself, not a copy")
			} else {
				assert.NotSame(t, stored, refs[0], "a copy the hook may have changed")
			}
			if h, ok := c.hooks.(*listenHooks); ok {
				assert.Equal(t, h.listen, h.calls == 1, "the context handler runs only when it listens")
			}
			if h, ok := c.hooks.(*lazyHooks); ok {
				assert.Equal(t, 1, h.calls, "the lazy context handler runs")
			}
		})
	}
}
