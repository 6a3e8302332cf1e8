package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/session"
)

// stopWhileAsking stops the run from inside tool.execute.before, as
// Ctrl+C at a permission question does, and then allows the call.
type stopWhileAsking struct {
	NopHooks
	stop context.CancelFunc
}

func (h stopWhileAsking) BeforeTool(context.Context, string, string, json.RawMessage) ToolCallDecision {
	h.stop()
	return ToolCallDecision{}
}

// TestStopDuringBeforeToolCancelsTheCall: a run stopped while a hook
// decides about a call does not run the tool, whatever the hook decided;
// the call's result says it was cancelled and the run ends aborted.
func TestStopDuringBeforeToolCancelsTheCall(t *testing.T) {
	p := &scriptedProvider{replies: []func(context.Context, func(StreamEvent)) (*session.Message, error){
		reply(assistant(call("c1", "echo", `{"msg":"hi"}`))),
	}}
	var ran []string
	a := newTestAgent(p, &ran)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a.Hooks = stopWhileAsking{stop: cancel}

	err := a.prompt(ctx, "go", nil)
	require.ErrorIs(t, err, ErrAborted)
	assert.Empty(t, ran, "the tool did not run")
	assert.Len(t, p.requests, 1, "no request after the stop")
	msgs := a.Session.BuildContext().Messages
	last := msgs[len(msgs)-1].Message
	assert.Equal(t, session.RoleToolResult, last.Role)
	assert.True(t, last.IsError)
	assert.Equal(t, "Tool call cancelled: the user stopped the run", last.Text())
}
