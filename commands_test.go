// Tests of the session-level operations behind the slash commands, on an
// in-process app wired as the binary wires it, against the fake LLM server.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// hookCall is one app hook event a test saw.
type hookCall struct {
	name string
	args []string
}

// recordingHooks records app hook events and answers the before_* events
// as configured.
type recordingHooks struct {
	nopHooks
	calls         []hookCall
	cancel        map[string]string // event → reason ("" cancels without one)
	branchSummary string
}

func (h *recordingHooks) record(name string, args ...string) {
	h.calls = append(h.calls, hookCall{name, args})
}

func (h *recordingHooks) cancels(ev string) (bool, string) {
	reason, ok := h.cancel[ev]
	return ok, reason
}

func (h *recordingHooks) names() []string {
	var out []string
	for _, c := range h.calls {
		out = append(out, c.name)
	}
	return out
}

func (h *recordingHooks) BeforeClear(context.Context) (bool, string) {
	h.record("before_clear")
	return h.cancels("clear")
}
func (h *recordingHooks) Clear(context.Context) { h.record("clear") }
func (h *recordingHooks) BeforeSwitch(_ context.Context, target string) (bool, string) {
	h.record("before_switch", target)
	return h.cancels("switch")
}
func (h *recordingHooks) Switch(_ context.Context, prev string) { h.record("switch", prev) }
func (h *recordingHooks) BeforeBranch(_ context.Context, target, from string) (bool, string) {
	h.record("before_branch", target, from)
	if c, _ := h.cancels("branch"); c {
		return true, ""
	}
	return false, h.branchSummary
}
func (h *recordingHooks) Branch(_ context.Context, target, from string) {
	h.record("branch", target, from)
}
func (h *recordingHooks) BeforeFork(_ context.Context, id string) (bool, string) {
	h.record("before_fork", id)
	return h.cancels("fork")
}
func (h *recordingHooks) Fork(_ context.Context, id, _ string) { h.record("fork", id) }
func (h *recordingHooks) ModelChange(_ context.Context, pp, pid, np, nid, th string) {
	h.record("model_change", pp+"/"+pid, np+"/"+nid, th)
}

// recordingUI records the editor prefill.
type recordingUI struct {
	noUI
	editor string
}

func (u *recordingUI) SetEditorText(s string) { u.editor = s }

// newTestApp builds an app as run() does, with openai/gpt-4.1 pointed at
// a fake server.
func newTestApp(t *testing.T) (*app, *llmtest.Server, *recordingHooks) {
	t.Helper()
	srv := llmtest.New(t)
	home := t.TempDir()
	cwd, _ := filepath.EvalSymlinks(t.TempDir())
	a := &app{
		opts:   &options{Model: "openai/gpt-4.1", BaseURL: srv.URL(), APIKey: "sk-test", NoHooks: true},
		paths:  paths{Config: filepath.Join(home, "config"), Data: filepath.Join(home, "data"), State: filepath.Join(home, "state")},
		cfg:    &config{},
		cwd:    cwd,
		stdin:  strings.NewReader(""),
		stdout: io.Discard,
		stderr: &bytes.Buffer{},
	}
	require.NoError(t, a.setupModels())
	require.NoError(t, a.setup(false))
	t.Cleanup(a.close)
	h := &recordingHooks{cancel: map[string]string{}}
	a.hooks = h
	a.ui = &recordingUI{}
	return a, srv, h
}

func userMsg(text string) *session.Message {
	return &session.Message{Role: session.RoleUser, Content: []session.ContentBlock{{Type: session.BlockText, Text: text}},
		Timestamp: time.Now().UnixMilli()}
}

func assistantMsg(text string, calls ...session.ContentBlock) *session.Message {
	m := &session.Message{Role: session.RoleAssistant, API: agent.APIOpenAICompletions, Provider: "openai", Model: "gpt-4.1",
		Usage: &session.Usage{Input: 10, Output: 5, TotalTokens: 15}, StopReason: session.StopStop, Timestamp: time.Now().UnixMilli()}
	if text != "" {
		m.Content = append(m.Content, session.ContentBlock{Type: session.BlockText, Text: text})
	}
	m.Content = append(m.Content, calls...)
	return m
}

// appendAll appends messages and returns their entry ids.
func appendAll(t *testing.T, s *session.Session, msgs ...*session.Message) []string {
	t.Helper()
	var ids []string
	for _, m := range msgs {
		id, err := s.AppendMessage(m)
		require.NoError(t, err)
		ids = append(ids, id)
	}
	return ids
}

func modelEntries(s *session.Session) []string {
	var out []string
	for _, e := range s.Entries() {
		if e.Type == session.TypeModelChange {
			out = append(out, e.Provider+"/"+e.ModelID)
		}
	}
	return out
}

func TestSetModel(t *testing.T) {
	tests := []struct {
		name      string
		models    []string
		spec      string
		want      string // model after the call
		wantErr   string
		wantEntry bool
	}{
		{name: "provider/id", spec: "openai/gpt-4.1-mini", want: "openai/gpt-4.1-mini", wantEntry: true},
		{name: "same model is a no-op", spec: "openai/gpt-4.1", want: "openai/gpt-4.1"},
		{name: "unknown provider", spec: "nope/x", want: "openai/gpt-4.1", wantErr: "unknown provider"},
		{name: "next without a list", spec: "next", want: "openai/gpt-4.1", wantErr: "no models to cycle"},
		{name: "next cycles", models: []string{"openai/gpt-4.1", "openai/gpt-4o"}, spec: "next", want: "openai/gpt-4o", wantEntry: true},
		{name: "next wraps around", models: []string{"openai/gpt-4o", "openai/gpt-4.1"}, spec: "next", want: "openai/gpt-4o", wantEntry: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _, h := newTestApp(t)
			a.cfg.Models = tt.models
			err := a.setModel(context.Background(), tt.spec)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.want, modelSpec(a.model))
			assert.Equal(t, tt.want, modelSpec(a.agent.Model))
			if tt.wantEntry {
				assert.Equal(t, []string{"openai/gpt-4.1", tt.want}, modelEntries(a.sess))
				require.Len(t, h.calls, 1)
				assert.Equal(t, hookCall{"model_change", []string{"openai/gpt-4.1", tt.want, "off"}}, h.calls[0])
				assert.Equal(t, a.opts.BaseURL, a.model.BaseURL, "--base-url stays with its provider")
			} else {
				assert.Equal(t, []string{"openai/gpt-4.1"}, modelEntries(a.sess))
				assert.Empty(t, h.calls)
			}
		})
	}
}

func TestSetModelNeedsAKey(t *testing.T) {
	a, _, _ := newTestApp(t)
	a.opts.APIKey = ""
	a.registry.Getenv = func(string) string { return "" }
	err := a.setModel(context.Background(), "anthropic/claude-sonnet-4-5")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ANTHROPIC_API_KEY")
	assert.Equal(t, "openai/gpt-4.1", modelSpec(a.model))
}

func TestSetThinking(t *testing.T) {
	a, _, _ := newTestApp(t)
	require.NoError(t, a.setThinking(context.Background(), "high"))
	assert.Equal(t, "high", a.thinking)
	assert.Equal(t, "high", a.agent.ThinkingLevel)
	require.NoError(t, a.setThinking(context.Background(), "high"))
	err := a.setThinking(context.Background(), "extreme")
	require.Error(t, err)
	var levels []string
	for _, e := range a.sess.Entries() {
		if e.Type == session.TypeThinkingLevelChange {
			levels = append(levels, e.ThinkingLevel)
		}
	}
	assert.Equal(t, []string{"off", "high"}, levels)
	assert.Equal(t, "high", a.sess.BuildContext().ThinkingLevel)
}

func TestClearSession(t *testing.T) {
	t.Run("new session", func(t *testing.T) {
		a, _, h := newTestApp(t)
		appendAll(t, a.sess, userMsg("hi"), assistantMsg("hello"))
		old := a.sess.ID()
		require.NoError(t, a.clearSession(context.Background()))
		assert.NotEqual(t, old, a.sess.ID())
		assert.Same(t, a.sess, a.agent.Session)
		assert.Empty(t, a.sess.BuildContext().Messages)
		assert.Equal(t, []string{"openai/gpt-4.1"}, modelEntries(a.sess))
		assert.Equal(t, []string{"before_clear", "clear"}, h.names())
	})
	t.Run("cancelled by a hook", func(t *testing.T) {
		a, _, h := newTestApp(t)
		h.cancel["clear"] = "unsaved work"
		old := a.sess.ID()
		err := a.clearSession(context.Background())
		var ce *cancelledError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, "clear cancelled by a hook: unsaved work", err.Error())
		assert.Equal(t, old, a.sess.ID())
		assert.Equal(t, []string{"before_clear"}, h.names())
	})
}

func TestBranchTo(t *testing.T) {
	setup := func(t *testing.T) (*app, *llmtest.Server, *recordingHooks, []string) {
		a, srv, h := newTestApp(t)
		ids := appendAll(t, a.sess,
			userMsg("first question"), assistantMsg("first answer"),
			userMsg("second question"),
			assistantMsg("", session.ContentBlock{Type: session.BlockToolCall, ID: "c1", Name: "edit", Arguments: json.RawMessage(`{"path":"main.go","edits":[]}`)}),
			&session.Message{Role: session.RoleToolResult, ToolCallID: "c1", ToolName: "edit", Content: []session.ContentBlock{{Type: session.BlockText, Text: "edited"}}},
			assistantMsg("second answer"))
		return a, srv, h, ids
	}

	t.Run("user message target: leaf is its parent, text to the editor", func(t *testing.T) {
		a, srv, h, ids := setup(t)
		require.NoError(t, a.branchTo(context.Background(), ids[2], false))
		assert.Equal(t, ids[1], a.sess.LeafID())
		assert.Equal(t, "second question", a.ui.(*recordingUI).editor)
		assert.Equal(t, []string{"before_branch", "branch"}, h.names())
		assert.Equal(t, []string{ids[2], ids[5]}, h.calls[1].args)
		assert.Empty(t, srv.Requests())
	})
	t.Run("assistant target becomes the leaf", func(t *testing.T) {
		a, _, _, ids := setup(t)
		require.NoError(t, a.branchTo(context.Background(), ids[1], false))
		assert.Equal(t, ids[1], a.sess.LeafID())
		assert.Empty(t, a.ui.(*recordingUI).editor)
	})
	t.Run("first user message: back to the root", func(t *testing.T) {
		a, _, _, ids := setup(t)
		require.NoError(t, a.branchTo(context.Background(), ids[0], false))
		e := a.sess.Get(ids[0])
		assert.Equal(t, e.ParentID, a.sess.LeafID())
		assert.Empty(t, a.sess.BuildContext().Messages)
	})
	t.Run("summarize asks the model", func(t *testing.T) {
		a, srv, _, ids := setup(t)
		srv.Reply(llmtest.Text("## Goal\nFix main.go"))
		require.NoError(t, a.branchTo(context.Background(), ids[1], true))
		leaf := a.sess.Get(a.sess.LeafID())
		require.Equal(t, session.TypeBranchSummary, leaf.Type)
		assert.Equal(t, ids[1], leaf.ParentID)
		assert.False(t, leaf.FromHook)
		assert.Equal(t, branchSummaryPreamble+"## Goal\nFix main.go\n\n<modified-files>\nmain.go\n</modified-files>", leaf.Summary)
		assert.JSONEq(t, `{"readFiles":[],"modifiedFiles":["main.go"]}`, string(leaf.Details))

		reqs := srv.Requests()
		require.Len(t, reqs, 1)
		prompt := lastUserText(t, reqs[0])
		assert.True(t, strings.HasPrefix(prompt, "<conversation>\n[User]: second question\n\n[Assistant tool calls]: edit(path=\"main.go\", edits=[])\n\n[Assistant]: second answer\n</conversation>\n\n"), prompt)
		assert.NotContains(t, prompt, "first question")
		assert.NotContains(t, prompt, "[Tool result]")
		assert.Contains(t, string(reqs[0].Body), "Do NOT continue the conversation")

		msgs := a.sess.BuildContext().Messages
		require.Len(t, msgs, 3)
		assert.Equal(t, session.RoleBranchSummary, msgs[2].Message.Role)
	})
	t.Run("a hook supplies the summary", func(t *testing.T) {
		a, srv, h, ids := setup(t)
		h.branchSummary = "hook summary"
		require.NoError(t, a.branchTo(context.Background(), ids[1], true))
		leaf := a.sess.Get(a.sess.LeafID())
		require.Equal(t, session.TypeBranchSummary, leaf.Type)
		assert.Equal(t, "hook summary", leaf.Summary)
		assert.True(t, leaf.FromHook)
		assert.Empty(t, srv.Requests())
	})
	t.Run("a hook cancels", func(t *testing.T) {
		a, _, h, ids := setup(t)
		h.cancel["branch"] = ""
		err := a.branchTo(context.Background(), ids[1], false)
		var ce *cancelledError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, ids[5], a.sess.LeafID())
	})
	t.Run("unknown id", func(t *testing.T) {
		a, _, _, _ := setup(t)
		err := a.branchTo(context.Background(), "ffffffff", false)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "no entry")
	})
	t.Run("summary call fails: nothing moves", func(t *testing.T) {
		a, srv, _, ids := setup(t)
		srv.Reply(llmtest.Status(401))
		err := a.branchTo(context.Background(), ids[1], true)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "branch summary")
		assert.Equal(t, ids[5], a.sess.LeafID())
	})
}

func TestForkAt(t *testing.T) {
	a, _, h := newTestApp(t)
	ids := appendAll(t, a.sess, userMsg("q1"), assistantMsg("a1"), userMsg("q2"), assistantMsg("a2"))
	require.NoError(t, a.sess.Sync())
	oldFile := a.sess.File()
	require.NoError(t, a.forkAt(context.Background(), ids[1]))
	assert.NotEqual(t, oldFile, a.sess.File())
	assert.Same(t, a.sess, a.agent.Session)
	assert.Equal(t, oldFile, a.sess.Header().ParentSession)
	var texts []string
	for _, m := range a.sess.BuildContext().Messages {
		texts = append(texts, m.Message.Text())
	}
	assert.Equal(t, []string{"q1", "a1"}, texts)
	assert.Equal(t, []string{"before_fork", "fork"}, h.names())

	h.cancel["fork"] = "no"
	err := a.forkAt(context.Background(), "")
	var ce *cancelledError
	require.ErrorAs(t, err, &ce)
}

func TestSwitchSession(t *testing.T) {
	a, _, h := newTestApp(t)
	appendAll(t, a.sess, userMsg("in A"), assistantMsg("answer A"))
	require.NoError(t, a.setThinking(context.Background(), "low"))
	require.NoError(t, a.sess.Sync())
	fileA := a.sess.File()
	require.NoError(t, a.clearSession(context.Background()))
	require.NoError(t, a.setThinking(context.Background(), "high"))
	appendAll(t, a.sess, userMsg("in B"), assistantMsg("answer B"))
	require.NoError(t, a.sess.Sync())
	fileB := a.sess.File()
	h.calls = nil

	require.NoError(t, a.switchSession(context.Background(), fileA))
	assert.Equal(t, fileA, a.sess.File())
	assert.Same(t, a.sess, a.agent.Session)
	assert.Equal(t, "low", a.thinking)
	assert.Equal(t, "low", a.agent.ThinkingLevel)
	assert.Equal(t, []string{"before_switch", "switch"}, h.names())
	assert.Equal(t, []string{fileB}, h.calls[1].args)

	err := a.switchSession(context.Background(), fileA)
	require.Error(t, err)

	h.cancel["switch"] = "busy"
	err = a.switchSession(context.Background(), fileB)
	var ce *cancelledError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, fileA, a.sess.File())
}

func TestComplete(t *testing.T) {
	a, srv, _ := newTestApp(t)
	srv.Reply(llmtest.Thinking("hmm"), llmtest.Text("a summary"))
	text, err := a.complete(context.Background(), []session.Message{*userMsg("summarise")}, "be brief", 100, nil)
	require.NoError(t, err)
	assert.Equal(t, "a summary", text)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "gpt-4.1", reqs[0].Field("model"))
	assert.Equal(t, "be brief", reqs[0].Field("messages.0.content"))
	assert.Nil(t, reqs[0].Field("tools"))

	other, err := a.registry.Resolve("openai/gpt-4o")
	require.NoError(t, err)
	other.BaseURL = srv.URL()
	srv.Reply(llmtest.Text("from 4o"))
	text, err = a.complete(context.Background(), []session.Message{*userMsg("x")}, "", 0, &other)
	require.NoError(t, err)
	assert.Equal(t, "from 4o", text)
	assert.Equal(t, "gpt-4o", srv.Requests()[1].Field("model"))

	srv.Reply(llmtest.Status(400).Message("bad request"))
	_, err = a.complete(context.Background(), []session.Message{*userMsg("x")}, "", 0, nil)
	require.Error(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = a.complete(ctx, []session.Message{*userMsg("x")}, "", 0, nil)
	assert.ErrorIs(t, err, agent.ErrAborted)
}

func TestSerializeConversation(t *testing.T) {
	msgs := []session.Message{
		*userMsg("fix the bug"),
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
	assert.Equal(t, want, serializeConversation(msgs))
}

func TestPrepareBranchEntriesBudget(t *testing.T) {
	big := strings.Repeat("w", 4000) // about 1000 tokens
	entries := []*session.Entry{
		{Type: session.TypeBranchSummary, Summary: "earlier", Details: json.RawMessage(`{"readFiles":["old.go"],"modifiedFiles":["mod.go"]}`)},
		{Type: session.TypeMessage, Message: userMsg(big)},
		{Type: session.TypeMessage, Message: assistantMsg("ok", session.ContentBlock{Type: session.BlockToolCall, Name: "read", Arguments: json.RawMessage(`{"path":"new.go"}`)})},
		{Type: session.TypeMessage, Message: &session.Message{Role: session.RoleToolResult, Content: []session.ContentBlock{{Type: session.BlockText, Text: big}}}},
		{Type: session.TypeLabel, TargetID: "x", Label: "l"},
		{Type: session.TypeMessage, Message: userMsg("last")},
	}
	msgs, ops := prepareBranchEntries(entries, 500)
	require.Len(t, msgs, 2, "the big user message does not fit; the tool result is skipped")
	assert.Equal(t, "ok", msgs[0].Text())
	assert.Equal(t, "last", msgs[1].Text())
	read, modified := ops.lists()
	assert.Equal(t, []string{"new.go", "old.go"}, read)
	assert.Equal(t, []string{"mod.go"}, modified)

	msgs, _ = prepareBranchEntries(entries, 0)
	assert.Len(t, msgs, 4, "no budget: summary, user, assistant, user")
	assert.Equal(t, session.RoleBranchSummary, msgs[0].Role)
}

func TestGroupDigits(t *testing.T) {
	for in, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"} {
		assert.Equal(t, want, groupDigits(in))
	}
}
