package lua_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/session"
)

func TestChatMessageSourceAndHandled(t *testing.T) {
	rt, reps := loadHooks(t, newHost(t), lua.Options{}, "pi/input.lua")
	img := session.ContentBlock{Type: session.BlockImage, Extra: &session.BlockExtra{Data: "aGk=", MimeType: "image/png"}}
	for _, tt := range []struct {
		name, source, in, want string
		parts                  int
		handled                bool
	}{
		{"source is passed", agent.SourceInteractive, "hello", "interactive:hello", 1, false},
		{"one-shot", agent.SourcePrint, "hello", "print:hello", 1, false},
		{"pi's continue", agent.SourceExtension, "hello", "hello", 1, false},
		{"pi's transform with images", agent.SourceStdin, "?quick why", "Respond briefly: why", 0, false},
		{"pi's handled", agent.SourceInteractive, "ping", "ping", 1, true},
		{"lunar's handled after a transform", agent.SourceInteractive, "stop", "interactive:stop", 1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text, parts, handled := rt.ChatMessage(bg, tt.source, tt.in, []session.ContentBlock{img})
			assert.Equal(t, tt.handled, handled)
			assert.Equal(t, tt.want, text)
			assert.Len(t, parts, tt.parts)
		})
	}
	assert.Empty(t, reps.Lines())
	text, _, handled := rt.ChatMessage(bg, agent.SourceInteractive, "bad", nil)
	assert.False(t, handled)
	assert.Equal(t, "bad", text)
	assert.Contains(t, reps.Lines(), `hook input.lua: chat.message: bad result: action must be "continue", "transform" or "handled", got explode`)
}

func TestPiResultShapesUnderPiNames(t *testing.T) {
	rt, reps := loadHooks(t, newHost(t), lua.Options{}, "pi/results.lua")
	res := rt.AfterTool(bg, "read", "c1", json.RawMessage(`{"path":"a"}`), nil, agent.TextResult("fine", false))
	assert.True(t, res.IsError, "isError is pi's is_error")
	assert.Equal(t, "pi says no", res.Content[0].Text)

	msgs, sys := rt.BeforeStart(bg, "go", nil, "base")
	assert.Equal(t, "base +pi", sys, "systemPrompt is pi's system_prompt")
	require.Len(t, msgs, 1)
	assert.Equal(t, "pi-note", msgs[0].CustomType, "message.customType is pi's custom_type")
	assert.False(t, msgs[0].Display)

	dec := rt.BeforeCompact(bg, lua.CompactEvent{Reason: lua.CompactManual})
	assert.Equal(t, "pi summary", dec.Summary, "compaction.summary is pi's summary")
	assert.JSONEq(t, `{"by":"pi"}`, string(dec.Details))

	cancel, summary := rt.BeforeBranch(bg, "00000001", "00000002")
	assert.False(t, cancel)
	assert.Equal(t, "pi branch summary", summary, "summary.summary is pi's summary")
	assert.Empty(t, reps.Lines())
}
