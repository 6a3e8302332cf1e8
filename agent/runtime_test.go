package agent

// Tests of the runtime's session-level operations (what /model, /thinking,
// /clear, /branch, /fork, /resume and lunar.complete do), against the fake
// LLM server.

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/compaction"
	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// hookCall is one session hook event a test saw.
type hookCall struct {
	name string
	args []string
}

// sessionRecorder records session hook events and answers the before_*
// events as configured.
type sessionRecorder struct {
	NopSessionHooks
	mu            sync.Mutex // Compact runs in the background, beside the next run
	calls         []hookCall
	cancel        map[string]string // event → reason ("" cancels without one)
	branchSummary string
	compact       CompactDecision // what before_compact answers (Instructions "" keeps the event's)
	compactEvents []CompactEvent
	compacted     []CompactInfo
}

func (h *sessionRecorder) record(name string, args ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, hookCall{name, args})
}

func (h *sessionRecorder) cancels(ev string) (bool, string) {
	reason, ok := h.cancel[ev]
	return ok, reason
}

func (h *sessionRecorder) names() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, c := range h.calls {
		out = append(out, c.name)
	}
	return out
}

func (h *sessionRecorder) BeforeClear(context.Context, string) (bool, string) {
	h.record("before_clear")
	return h.cancels("clear")
}
func (h *sessionRecorder) Clear(context.Context, string) { h.record("clear") }
func (h *sessionRecorder) BeforeSwitch(_ context.Context, target string) (bool, string) {
	h.record("before_switch", target)
	return h.cancels("switch")
}
func (h *sessionRecorder) Switch(_ context.Context, prev string) { h.record("switch", prev) }
func (h *sessionRecorder) BeforeBranch(_ context.Context, target, from string) (bool, string) {
	h.record("before_branch", target, from)
	if c, _ := h.cancels("branch"); c {
		return true, ""
	}
	return false, h.branchSummary
}
func (h *sessionRecorder) Branch(_ context.Context, target, from string) {
	h.record("branch", target, from)
}
func (h *sessionRecorder) BeforeFork(_ context.Context, id string) (bool, string) {
	h.record("before_fork", id)
	return h.cancels("fork")
}
func (h *sessionRecorder) Fork(_ context.Context, id, _ string) { h.record("fork", id) }
func (h *sessionRecorder) ModelChange(_ context.Context, pp, pid, np, nid, th, _ string) {
	h.record("model_change", pp+"/"+pid, np+"/"+nid, th)
}
func (h *sessionRecorder) BeforeCompact(_ context.Context, ev CompactEvent) CompactDecision {
	h.record("before_compact", ev.Reason)
	h.compactEvents = append(h.compactEvents, ev)
	d := h.compact
	if d.Instructions == "" {
		d.Instructions = ev.Instructions
	}
	return d
}
func (h *sessionRecorder) Compact(_ context.Context, info CompactInfo) {
	h.record("compact")
	h.mu.Lock()
	defer h.mu.Unlock()
	h.compacted = append(h.compacted, info)
}

// newTestRuntime builds a runtime as the binary does, on a new session
// file, with openai/gpt-4.1 pointed at a fake server (as --base-url and
// --api-key would).
func newTestRuntime(t testing.TB, opt func(*RuntimeOptions)) (*Runtime, *llmtest.Server, *sessionRecorder) {
	t.Helper()
	srv := llmtest.New(t)
	home := t.TempDir()
	cwd, _ := filepath.EvalSymlinks(t.TempDir())
	reg := NewRegistry(nil)
	m, err := reg.Resolve("openai/gpt-4.1")
	require.NoError(t, err)
	m.BaseURL = srv.URL()
	o := RuntimeOptions{
		Registry:    reg,
		Cwd:         cwd,
		SessionDir:  filepath.Join(home, "sessions"),
		Model:       m,
		KeepModel:   true,
		AdjustModel: func(m Model) Model { m.BaseURL = srv.URL(); return m },
		APIKey: func(m Model) (string, error) {
			if m.Provider == "openai" {
				return "sk-test", nil
			}
			key, _, err := reg.APIKey(m.Provider)
			return key, err
		},
	}
	if opt != nil {
		opt(&o)
	}
	s, err := session.Create(o.SessionDir, cwd)
	require.NoError(t, err)
	rt, err := NewRuntime(o, s, false)
	require.NoError(t, err)
	t.Cleanup(func() { rt.Close() })
	h := &sessionRecorder{cancel: map[string]string{}}
	rt.SetHooks(nil, h)
	return rt, srv, h
}

// testBaseURL is where the test runtime's models go.
func testBaseURL(rt *Runtime) string { return rt.opts.AdjustModel(Model{}).BaseURL }

func userMsg(text string) *session.Message {
	return &session.Message{Role: session.RoleUser, Content: []session.ContentBlock{{Type: session.BlockText, Text: text}},
		Timestamp: time.Now().UnixMilli()}
}

func assistantMsg(text string, calls ...session.ContentBlock) *session.Message {
	m := &session.Message{Role: session.RoleAssistant, API: APIOpenAICompletions, Provider: "openai", Model: "gpt-4.1",
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
			out = append(out, e.Provider()+"/"+e.ModelID())
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
			rt, _, h := newTestRuntime(t, func(o *RuntimeOptions) { o.ModelCycle = tt.models })
			err := rt.SetModel(context.Background(), tt.spec)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.want, ModelSpec(rt.Model()))
			assert.Equal(t, tt.want, ModelSpec(rt.agent.Model))
			if tt.wantEntry {
				assert.Equal(t, []string{"openai/gpt-4.1", tt.want}, modelEntries(rt.Session()))
				require.Len(t, h.calls, 1)
				assert.Equal(t, hookCall{"model_change", []string{"openai/gpt-4.1", tt.want, "off"}}, h.calls[0])
				assert.Equal(t, testBaseURL(rt), rt.Model().BaseURL, "--base-url stays with its provider")
			} else {
				assert.Equal(t, []string{"openai/gpt-4.1"}, modelEntries(rt.Session()))
				assert.Empty(t, h.calls)
			}
		})
	}
}

func TestSetModelNeedsAKey(t *testing.T) {
	rt, _, _ := newTestRuntime(t, nil)
	rt.opts.Registry.Getenv = func(string) string { return "" }
	err := rt.SetModel(context.Background(), "anthropic/claude-sonnet-4-5")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ANTHROPIC_API_KEY")
	assert.Equal(t, "openai/gpt-4.1", ModelSpec(rt.Model()))
}

func TestParseThinkingLevel(t *testing.T) {
	for _, l := range ThinkingLevels {
		got, err := ParseThinkingLevel(string(l))
		require.NoError(t, err)
		assert.Equal(t, l, got)
	}
	for _, bad := range []string{"", "max", "High", " low"} {
		_, err := ParseThinkingLevel(bad)
		assert.EqualError(t, err, strconv.Quote(bad)+" is not one of off|minimal|low|medium|high")
	}
}

func TestSetThinking(t *testing.T) {
	rt, _, _ := newTestRuntime(t, nil)
	require.NoError(t, rt.SetThinkingLevel(context.Background(), "high"))
	assert.Equal(t, ThinkingHigh, rt.ThinkingLevel())
	assert.Equal(t, ThinkingHigh, rt.agent.ThinkingLevel)
	require.NoError(t, rt.SetThinkingLevel(context.Background(), "high"))
	err := rt.SetThinkingLevel(context.Background(), "extreme")
	require.Error(t, err)
	var levels []string
	for _, e := range rt.Session().Entries() {
		if e.Type == session.TypeThinkingLevelChange {
			levels = append(levels, e.ThinkingLevel())
		}
	}
	assert.Equal(t, []string{"off", "high"}, levels)
	assert.Equal(t, "high", rt.Session().BuildContext().ThinkingLevel)
}

// TestSettingsEvents: every change of the thinking level or the
// session's name is published, whoever makes it; no change, no event.
func TestSettingsEvents(t *testing.T) {
	rt, _, _ := newTestRuntime(t, nil)
	var got []string
	rt.Subscribe(func(ev RuntimeEvent) {
		switch {
		case ev.ThinkingLevel != nil:
			got = append(got, EventThinkingLevelChanged+" "+string(*ev.ThinkingLevel))
		case ev.SessionInfo != nil:
			got = append(got, EventSessionInfoChanged+" "+ev.SessionInfo.Name)
		}
	})
	ctx := context.Background()
	require.NoError(t, rt.SetThinkingLevel(ctx, "high"))
	require.NoError(t, rt.SetThinkingLevel(ctx, "high"))
	require.Error(t, rt.SetThinkingLevel(ctx, "extreme"))
	_, _, err := rt.CycleThinkingLevel(ctx) // the test model does not reason: nothing
	require.NoError(t, err)
	require.NoError(t, rt.SetName("  two\nlines "))
	id, err := rt.NameSession("")
	require.NoError(t, err)
	assert.NotEmpty(t, id)
	assert.Equal(t, []string{"thinking_level_changed high", "session_info_changed two lines", "session_info_changed "}, got)
}

func TestClearSession(t *testing.T) {
	t.Run("new session", func(t *testing.T) {
		rt, _, h := newTestRuntime(t, nil)
		appendAll(t, rt.Session(), userMsg("hi"), assistantMsg("hello"))
		old := rt.Session().ID()
		require.NoError(t, rt.Clear(context.Background()))
		assert.NotEqual(t, old, rt.Session().ID())
		assert.Same(t, rt.Session(), rt.agent.Session)
		assert.Empty(t, rt.Session().BuildContext().Messages)
		assert.Equal(t, []string{"openai/gpt-4.1"}, modelEntries(rt.Session()))
		assert.Equal(t, []string{"before_clear", "clear"}, h.names())
	})
	t.Run("cancelled by a hook", func(t *testing.T) {
		rt, _, h := newTestRuntime(t, nil)
		h.cancel["clear"] = "unsaved work"
		old := rt.Session().ID()
		err := rt.Clear(context.Background())
		var ce *CancelledError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, "clear cancelled by a hook: unsaved work", err.Error())
		assert.Equal(t, old, rt.Session().ID())
		assert.Equal(t, []string{"before_clear"}, h.names())
	})
}

func TestBranchTo(t *testing.T) {
	setup := func(t *testing.T) (*Runtime, *llmtest.Server, *sessionRecorder, []string) {
		rt, srv, h := newTestRuntime(t, nil)
		ids := appendAll(t, rt.Session(),
			userMsg("first question"), assistantMsg("first answer"),
			userMsg("second question"),
			assistantMsg("", session.ContentBlock{Type: session.BlockToolCall, ID: "c1", Name: "edit", Arguments: json.RawMessage(`{"path":"main.go","edits":[]}`)}),
			&session.Message{Role: session.RoleToolResult, ToolCallID: "c1", ToolName: "edit", Content: []session.ContentBlock{{Type: session.BlockText, Text: "edited"}}},
			assistantMsg("second answer"))
		return rt, srv, h, ids
	}

	t.Run("user message target: leaf is its parent, text to the editor", func(t *testing.T) {
		rt, srv, h, ids := setup(t)
		text, err := rt.Branch(context.Background(), ids[2], BranchOptions{})
		require.NoError(t, err)
		assert.Equal(t, ids[1], rt.Session().LeafID())
		assert.Equal(t, "second question", text)
		assert.Equal(t, []string{"before_branch", "branch"}, h.names())
		assert.Equal(t, []string{ids[2], ids[5]}, h.calls[1].args)
		assert.Empty(t, srv.Requests())
	})
	t.Run("assistant target becomes the leaf", func(t *testing.T) {
		rt, _, _, ids := setup(t)
		text, err := rt.Branch(context.Background(), ids[1], BranchOptions{})
		require.NoError(t, err)
		assert.Equal(t, ids[1], rt.Session().LeafID())
		assert.Empty(t, text)
	})
	t.Run("first user message: back to the root", func(t *testing.T) {
		rt, _, _, ids := setup(t)
		_, err := rt.Branch(context.Background(), ids[0], BranchOptions{})
		require.NoError(t, err)
		e := rt.Session().Get(ids[0])
		assert.Equal(t, e.ParentID, rt.Session().LeafID())
		assert.Empty(t, rt.Session().BuildContext().Messages)
	})
	t.Run("summarize asks the model", func(t *testing.T) {
		rt, srv, _, ids := setup(t)
		srv.Reply(llmtest.Text("## Goal\nFix main.go"))
		_, err := rt.Branch(context.Background(), ids[1], BranchOptions{Summarize: true})
		require.NoError(t, err)
		leaf := rt.Session().Get(rt.Session().LeafID())
		require.Equal(t, session.TypeBranchSummary, leaf.Type)
		assert.Equal(t, ids[1], leaf.ParentID)
		assert.False(t, leaf.FromHook())
		assert.Equal(t, compaction.BranchSummaryPreamble+"## Goal\nFix main.go\n\n<modified-files>\nmain.go\n</modified-files>", leaf.Summary())
		assert.JSONEq(t, `{"readFiles":[],"modifiedFiles":["main.go"]}`, string(leaf.Details()))

		reqs := srv.Requests()
		require.Len(t, reqs, 1)
		prompt := lastUserText(t, reqs[0])
		assert.True(t, strings.HasPrefix(prompt, "<conversation>\n[User]: second question\n\n[Assistant tool calls]: edit(path=\"main.go\", edits=[])\n\n[Assistant]: second answer\n</conversation>\n\n"), prompt)
		assert.NotContains(t, prompt, "first question")
		assert.NotContains(t, prompt, "[Tool result]")
		assert.Contains(t, string(reqs[0].Body), "Do NOT continue the conversation")

		msgs := rt.Session().BuildContext().Messages
		require.Len(t, msgs, 3)
		assert.Equal(t, session.RoleBranchSummary, msgs[2].Message.Role)
	})
	t.Run("a hook supplies the summary", func(t *testing.T) {
		rt, srv, h, ids := setup(t)
		h.branchSummary = "hook summary"
		_, err := rt.Branch(context.Background(), ids[1], BranchOptions{Summarize: true})
		require.NoError(t, err)
		leaf := rt.Session().Get(rt.Session().LeafID())
		require.Equal(t, session.TypeBranchSummary, leaf.Type)
		assert.Equal(t, "hook summary", leaf.Summary())
		assert.True(t, leaf.FromHook())
		assert.Empty(t, srv.Requests())
	})
	t.Run("a hook cancels", func(t *testing.T) {
		rt, _, h, ids := setup(t)
		h.cancel["branch"] = ""
		_, err := rt.Branch(context.Background(), ids[1], BranchOptions{})
		var ce *CancelledError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, ids[5], rt.Session().LeafID())
	})
	t.Run("unknown id", func(t *testing.T) {
		rt, _, _, _ := setup(t)
		_, err := rt.Branch(context.Background(), "ffffffff", BranchOptions{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "no entry")
	})
	t.Run("summary call fails: nothing moves", func(t *testing.T) {
		rt, srv, _, ids := setup(t)
		srv.Reply(llmtest.Status(401))
		_, err := rt.Branch(context.Background(), ids[1], BranchOptions{Summarize: true})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "branch summary")
		assert.Equal(t, ids[5], rt.Session().LeafID())
	})
}

func TestForkAt(t *testing.T) {
	rt, _, h := newTestRuntime(t, nil)
	ids := appendAll(t, rt.Session(), userMsg("q1"), assistantMsg("a1"), userMsg("q2"), assistantMsg("a2"))
	require.NoError(t, rt.Session().Sync())
	oldFile := rt.Session().File()
	require.NoError(t, rt.Fork(context.Background(), ids[1]))
	assert.NotEqual(t, oldFile, rt.Session().File())
	assert.Same(t, rt.Session(), rt.agent.Session)
	assert.Equal(t, oldFile, rt.Session().Header().ParentSession)
	var texts []string
	for _, m := range rt.Session().BuildContext().Messages {
		texts = append(texts, m.Message.Text())
	}
	assert.Equal(t, []string{"q1", "a1"}, texts)
	assert.Equal(t, []string{"before_fork", "fork"}, h.names())

	h.cancel["fork"] = "no"
	err := rt.Fork(context.Background(), "")
	var ce *CancelledError
	require.ErrorAs(t, err, &ce)
}

// TestForkEmptySessionKeepsSentinel: the error names the operation and
// still is errEmptySession for errors.Is.
func TestForkEmptySessionKeepsSentinel(t *testing.T) {
	cwd := t.TempDir()
	s, err := session.Create(filepath.Join(t.TempDir(), "sessions"), cwd)
	require.NoError(t, err)
	rt, err := NewRuntime(RuntimeOptions{Cwd: cwd, Model: Model{Provider: "openai", ID: "gpt-4.1"}}, s, true) // resumed: no start entries
	require.NoError(t, err)
	defer rt.Close()
	err = rt.Fork(context.Background(), "")
	require.ErrorIs(t, err, errEmptySession)
	assert.EqualError(t, err, "fork: the session is empty")
}

func TestSwitchSession(t *testing.T) {
	rt, _, h := newTestRuntime(t, nil)
	appendAll(t, rt.Session(), userMsg("in A"), assistantMsg("answer A"))
	require.NoError(t, rt.SetThinkingLevel(context.Background(), "low"))
	require.NoError(t, rt.Session().Sync())
	fileA := rt.Session().File()
	require.NoError(t, rt.Clear(context.Background()))
	require.NoError(t, rt.SetThinkingLevel(context.Background(), "high"))
	appendAll(t, rt.Session(), userMsg("in B"), assistantMsg("answer B"))
	require.NoError(t, rt.Session().Sync())
	fileB := rt.Session().File()
	h.calls = nil

	require.NoError(t, rt.Switch(context.Background(), fileA))
	assert.Equal(t, fileA, rt.Session().File())
	assert.Same(t, rt.Session(), rt.agent.Session)
	assert.Equal(t, ThinkingLow, rt.ThinkingLevel())
	assert.Equal(t, ThinkingLow, rt.agent.ThinkingLevel)
	assert.Equal(t, []string{"before_switch", "switch"}, h.names())
	assert.Equal(t, []string{fileB}, h.calls[1].args)

	err := rt.Switch(context.Background(), fileA)
	require.Error(t, err)

	h.cancel["switch"] = "busy"
	err = rt.Switch(context.Background(), fileB)
	var ce *CancelledError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, fileA, rt.Session().File())
}

func TestComplete(t *testing.T) {
	rt, srv, _ := newTestRuntime(t, nil)
	srv.Reply(llmtest.Thinking("hmm"), llmtest.Text("a summary"))
	text, err := rt.Complete(context.Background(), CompleteRequest{Messages: []session.Message{*userMsg("summarise")}, System: "be brief", MaxTokens: 100})
	require.NoError(t, err)
	assert.Equal(t, "a summary", text)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "gpt-4.1", reqs[0].Field("model"))
	assert.Equal(t, "be brief", reqs[0].Field("messages.0.content"))
	assert.Nil(t, reqs[0].Field("tools"))

	other, err := rt.opts.Registry.Resolve("openai/gpt-4o")
	require.NoError(t, err)
	other.BaseURL = srv.URL()
	srv.Reply(llmtest.Text("from 4o"))
	text, err = rt.Complete(context.Background(), CompleteRequest{Messages: []session.Message{*userMsg("x")}, Model: &other})
	require.NoError(t, err)
	assert.Equal(t, "from 4o", text)
	assert.Equal(t, "gpt-4o", srv.Requests()[1].Field("model"))

	srv.Reply(llmtest.Status(400).Message("bad request"))
	_, err = rt.Complete(context.Background(), CompleteRequest{Messages: []session.Message{*userMsg("x")}})
	require.Error(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = rt.Complete(ctx, CompleteRequest{Messages: []session.Message{*userMsg("x")}})
	assert.ErrorIs(t, err, ErrAborted)
}

// lastUserText is the text of the last user message of a request.
func lastUserText(t *testing.T, r llmtest.Request) string {
	t.Helper()
	text, ok := r.LastUserText()
	if !ok {
		t.Fatalf("no user message in %s", r.Body)
	}
	return text
}

func TestContextTokensIsTheBuiltContextsEstimate(t *testing.T) {
	rt, _, _ := newTestRuntime(t, nil)
	s := rt.Session()
	estimate := func() int {
		var msgs []session.Message
		for _, cm := range s.BuildContext().Messages {
			msgs = append(msgs, cm.Message)
		}
		return compaction.EstimateContextTokens(msgs)
	}
	assert.Equal(t, 0, rt.ContextTokens(), "empty")
	appendAll(t, s, userMsg("what is in the repository?"))
	assert.Equal(t, estimate(), rt.ContextTokens(), "no usage yet")
	appendAll(t, s, assistantMsg("a Go module"), userMsg("and its tests?"))
	_, err := s.AppendCustomMessage("note", []session.ContentBlock{{Type: session.BlockText, Text: "remember the tests"}}, true, nil)
	require.NoError(t, err)
	require.Greater(t, estimate(), 15)
	assert.Equal(t, estimate(), rt.ContextTokens(), "the last usage and estimates of what followed")
}
