package compaction_test

// Tests carried over from the root package, where branch summaries were
// made before this package existed: their assertions are unchanged.

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/compaction"
	"github.com/lunar-cli/lunar/session"
)

func user(text string) *session.Message {
	return &session.Message{Role: session.RoleUser, Content: []session.ContentBlock{{Type: session.BlockText, Text: text}},
		Timestamp: time.Now().UnixMilli()}
}

func userPtr(text string) *session.Message { return user(text) }

func assistant(text string, calls ...session.ContentBlock) *session.Message {
	m := &session.Message{Role: session.RoleAssistant, API: "openai-completions", Provider: "openai", Model: "gpt-4.1",
		Usage: &session.Usage{Input: 10, Output: 5, TotalTokens: 15}, StopReason: session.StopStop, Timestamp: time.Now().UnixMilli()}
	if text != "" {
		m.Content = append(m.Content, session.ContentBlock{Type: session.BlockText, Text: text})
	}
	m.Content = append(m.Content, calls...)
	return m
}

func TestSerializeConversation(t *testing.T) {
	msgs := []session.Message{
		*user("fix the bug"),
		{Role: session.RoleAssistant, Content: []session.ContentBlock{
			{Type: session.BlockThinking, Thinking: "look first"},
			{Type: session.BlockText, Text: "reading"},
			{Type: session.BlockToolCall, Name: "read", Arguments: json.RawMessage(`{"path": "a.go", "offset": 3}`)},
			{Type: session.BlockToolCall, Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)},
		}},
		{Role: session.RoleToolResult, Content: []session.ContentBlock{{Type: session.BlockText, Text: strings.Repeat("x", 2005)}}},
	}
	want := "[User]: fix the bug\n\n[Assistant thinking]: look first\n\n[Assistant]: reading\n\n" +
		"[Assistant tool calls]: read(path=\"a.go\", offset=3); bash(command=\"ls\")\n\n" +
		"[Tool result]: " + strings.Repeat("x", 2000) + "\n\n[... 5 more characters truncated]"
	assert.Equal(t, want, compaction.SerializeConversation(msgs))
}

func TestPrepareBranchEntriesBudget(t *testing.T) {
	big := strings.Repeat("w", 4000) // about 1000 tokens
	entries := []*session.Entry{
		{Type: session.TypeBranchSummary, Fields: &session.EntryFields{Summary: "earlier", Details: json.RawMessage(`{"readFiles":["old.go"],"modifiedFiles":["mod.go"]}`)}},
		{Type: session.TypeMessage, Message: userPtr(big)},
		{Type: session.TypeMessage, Message: assistant("ok", session.ContentBlock{Type: session.BlockToolCall, Name: "read", Arguments: json.RawMessage(`{"path":"new.go"}`)})},
		{Type: session.TypeMessage, Message: &session.Message{Role: session.RoleToolResult, Content: []session.ContentBlock{{Type: session.BlockText, Text: big}}}},
		{Type: session.TypeLabel, Fields: &session.EntryFields{TargetID: "x", Label: "l"}},
		{Type: session.TypeMessage, Message: userPtr("last")},
	}
	msgs, ops := compaction.PrepareBranch(entries, 500)
	require.Len(t, msgs, 2, "the big user message does not fit; the tool result is skipped")
	assert.Equal(t, "ok", msgs[0].Text())
	assert.Equal(t, "last", msgs[1].Text())
	read, modified := ops.Lists()
	assert.Equal(t, []string{"new.go", "old.go"}, read)
	assert.Equal(t, []string{"mod.go"}, modified)

	msgs, _ = compaction.PrepareBranch(entries, 0)
	assert.Len(t, msgs, 4, "no budget: summary, user, assistant, user")
	assert.Equal(t, session.RoleBranchSummary, msgs[0].Role)
}
