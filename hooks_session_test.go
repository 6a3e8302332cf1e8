// Tests of the session-operation events (/clear, /resume, /branch, /fork,
// /model) with the real Lua runtime loaded as the binary loads it, on an
// in-process app against the fake LLM server.
package main

import (
	"bytes"
	"context"
	"io"
	"os"
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

// hookApp is an app wired as run() wires it, with --hook files loaded.
type hookApp struct {
	*app
	t   *testing.T
	srv *llmtest.Server
	log string // $HOOK_LOG
}

func newHookApp(t *testing.T, hooks ...string) *hookApp {
	t.Helper()
	srv := llmtest.New(t)
	home := t.TempDir()
	cwd, _ := filepath.EvalSymlinks(t.TempDir())
	log := filepath.Join(cwd, "hooks.log")
	t.Setenv("HOOK_LOG", log)
	var files []string
	for _, h := range hooks {
		files = append(files, hkFile(t, h))
	}
	stderr := &bytes.Buffer{}
	a := &app{
		opts:   &options{Model: "openai/gpt-4.1", BaseURL: srv.URL(), APIKey: "sk-test", NoHooks: true, Hooks: files},
		paths:  paths{Config: filepath.Join(home, "config"), Data: filepath.Join(home, "data"), State: filepath.Join(home, "state")},
		cfg:    &config{},
		cwd:    cwd,
		stdin:  strings.NewReader(""),
		stdout: io.Discard,
		stderr: stderr,
	}
	require.NoError(t, a.setupModels())
	require.NoError(t, a.setup(false))
	t.Cleanup(a.close)
	// --no-hooks (no bundled hooks, only these) says that the policy is off.
	warned := "lunar: warning: --no-hooks: the permission policy is off: every tool call runs without asking\n"
	require.Equal(t, warned, stderr.String(), "the hooks load without problems")
	return &hookApp{app: a, t: t, srv: srv, log: log}
}

// command runs a hook command, as the REPL does for /name args.
func (h *hookApp) command(line string) {
	h.t.Helper()
	name, args, _ := strings.Cut(line, " ")
	_, handled, err := h.appHookSet().RunCommand(context.Background(), name, args)
	require.NoError(h.t, err)
	require.True(h.t, handled, line)
}

// records returns the records since the last call.
func (h *hookApp) records() []hkLine {
	h.t.Helper()
	lines := hkReadLog(h.t, h.log)
	require.NoError(h.t, os.WriteFile(h.log, nil, 0o644))
	return lines
}

// conversation appends q1, a1, q2, a2 and returns their entry ids.
func (h *hookApp) conversation() []string {
	h.t.Helper()
	var ids []string
	for i, text := range []string{"q1", "a1", "q2", "a2"} {
		m := &session.Message{Role: session.RoleUser, Content: []session.ContentBlock{{Type: session.BlockText, Text: text}},
			Timestamp: time.Now().UnixMilli()}
		if i%2 == 1 {
			m.Role, m.API, m.Provider, m.Model, m.StopReason = session.RoleAssistant, "openai-completions", "openai", "gpt-4.1", session.StopStop
			m.Usage = &session.Usage{Input: 10, Output: 5, TotalTokens: 15}
		}
		id, err := h.agentRuntime.Session().AppendMessage(m)
		require.NoError(h.t, err)
		ids = append(ids, id)
	}
	require.NoError(h.t, h.agentRuntime.Session().Sync())
	return ids
}

// hkOpRec is one session_ops.lua record: the event, and the session it ran in.
type hkOpRec struct {
	hook, kind string
	ev         map[string]any
	sessionID  string
	leafID     string
}

func hkOpRecs(lines []hkLine) []hkOpRec {
	var out []hkOpRec
	for _, l := range lines {
		r := hkOpRec{hook: l.Hook, kind: l.Kind}
		if o := l.obj(); o != nil {
			r.ev, _ = o["ev"].(map[string]any)
			r.sessionID, _ = o["session_id"].(string)
			r.leafID, _ = o["leaf_id"].(string)
		}
		out = append(out, r)
	}
	return out
}

func hkOpKinds(recs []hkOpRec) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.hook+" "+r.kind)
	}
	return out
}

var hkBG = context.Background()

func TestHookClear(t *testing.T) {
	h := newHookApp(t, "session_ops.lua", "session_ops_later.lua")
	h.conversation()
	old := h.agentRuntime.Session().ID()

	h.command("cancel session.before_clear unsaved work")
	err := h.agentRuntime.Clear(hkBG)
	var ce *agent.CancelledError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "clear cancelled by a hook: unsaved work", err.Error())
	assert.Equal(t, old, h.agentRuntime.Session().ID())
	recs := hkOpRecs(h.records())
	assert.Equal(t, []string{"session_ops session.before_clear"}, hkOpKinds(recs), "the first cancel stops the chain")
	assert.Equal(t, map[string]any{"type": "session.before_clear", "session_id": old}, recs[0].ev)

	h.command("allow")
	require.NoError(t, h.agentRuntime.Clear(hkBG))
	assert.NotEqual(t, old, h.agentRuntime.Session().ID())
	recs = hkOpRecs(h.records())
	assert.Equal(t, []string{"session_ops session.before_clear", "later session.before_clear", "session_ops session.clear"}, hkOpKinds(recs))
	assert.Equal(t, old, recs[0].sessionID)
	assert.Equal(t, map[string]any{"type": "session.clear", "session_id": h.agentRuntime.Session().ID()}, recs[2].ev)
	assert.Equal(t, h.agentRuntime.Session().ID(), recs[2].sessionID, "session.clear runs in the new session")
}

func TestHookBranch(t *testing.T) {
	h := newHookApp(t, "session_ops.lua", "session_ops_later.lua")
	ids := h.conversation()

	h.command("cancel session.before_branch")
	err := h.branchTo(hkBG, ids[1], true)
	var ce *agent.CancelledError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, ids[3], h.agentRuntime.Session().LeafID())
	recs := hkOpRecs(h.records())
	assert.Equal(t, []string{"session_ops session.before_branch"}, hkOpKinds(recs))
	assert.Equal(t, map[string]any{"type": "session.before_branch", "target_id": ids[1], "from_id": ids[3]}, recs[0].ev)
	assert.Empty(t, h.srv.Requests())

	// A hook's summary is stored and replaces the model's.
	h.command("allow")
	h.command("summary what the abandoned branch did")
	require.NoError(t, h.branchTo(hkBG, ids[1], true))
	assert.Empty(t, h.srv.Requests(), "no model call for the summary")
	leaf := h.agentRuntime.Session().Get(h.agentRuntime.Session().LeafID())
	require.Equal(t, session.TypeBranchSummary, leaf.Type)
	assert.Equal(t, ids[1], leaf.ParentID)
	assert.Equal(t, "what the abandoned branch did", leaf.Summary())
	assert.True(t, leaf.FromHook())
	recs = hkOpRecs(h.records())
	assert.Equal(t, []string{"session_ops session.before_branch", "later session.before_branch", "session_ops session.branch"}, hkOpKinds(recs))
	assert.Equal(t, map[string]any{"type": "session.branch", "target_id": ids[1], "from_id": ids[3]}, recs[2].ev)
	assert.Equal(t, leaf.ID, recs[2].leafID, "session.branch runs after the leaf moved")
	assert.Equal(t, ids[3], recs[0].leafID)
}

func TestHookFork(t *testing.T) {
	h := newHookApp(t, "session_ops.lua", "session_ops_later.lua")
	ids := h.conversation()
	oldFile, oldID := h.agentRuntime.Session().File(), h.agentRuntime.Session().ID()

	h.command("cancel session.before_fork no forks today")
	err := h.agentRuntime.Fork(hkBG, ids[1])
	var ce *agent.CancelledError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "fork cancelled by a hook: no forks today", err.Error())
	assert.Equal(t, oldFile, h.agentRuntime.Session().File())
	recs := hkOpRecs(h.records())
	assert.Equal(t, []string{"session_ops session.before_fork"}, hkOpKinds(recs))
	assert.Equal(t, map[string]any{"type": "session.before_fork", "entry_id": ids[1]}, recs[0].ev)

	h.command("allow")
	require.NoError(t, h.agentRuntime.Fork(hkBG, ids[1]))
	assert.NotEqual(t, oldFile, h.agentRuntime.Session().File())
	recs = hkOpRecs(h.records())
	assert.Equal(t, []string{"session_ops session.before_fork", "later session.before_fork", "session_ops session.fork"}, hkOpKinds(recs))
	assert.Equal(t, oldID, recs[0].sessionID)
	assert.Equal(t, map[string]any{"type": "session.fork", "entry_id": ids[1], "previous_session_file": oldFile}, recs[2].ev)
	assert.Equal(t, h.agentRuntime.Session().ID(), recs[2].sessionID, "session.fork runs in the new session")
}

func TestHookSwitch(t *testing.T) {
	h := newHookApp(t, "session_ops.lua", "session_ops_later.lua")
	h.conversation()
	fileA, idA := h.agentRuntime.Session().File(), h.agentRuntime.Session().ID()
	require.NoError(t, h.agentRuntime.Clear(hkBG))
	h.conversation()
	fileB := h.agentRuntime.Session().File()
	h.records()

	h.command("cancel session.before_switch busy")
	err := h.agentRuntime.Switch(hkBG, fileA)
	var ce *agent.CancelledError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "switch cancelled by a hook: busy", err.Error())
	assert.Equal(t, fileB, h.agentRuntime.Session().File())
	recs := hkOpRecs(h.records())
	assert.Equal(t, []string{"session_ops session.before_switch"}, hkOpKinds(recs))
	assert.Equal(t, map[string]any{"type": "session.before_switch", "target_session_file": fileA}, recs[0].ev)

	h.command("allow")
	require.NoError(t, h.agentRuntime.Switch(hkBG, fileA))
	assert.Equal(t, fileA, h.agentRuntime.Session().File())
	recs = hkOpRecs(h.records())
	assert.Equal(t, []string{"session_ops session.before_switch", "later session.before_switch", "session_ops session.switch"}, hkOpKinds(recs))
	assert.Equal(t, map[string]any{"type": "session.switch", "previous_session_file": fileB}, recs[2].ev)
	assert.Equal(t, idA, recs[2].sessionID)
}

func TestHookModelChange(t *testing.T) {
	h := newHookApp(t, "session_ops.lua")
	require.NoError(t, h.agentRuntime.SetThinkingLevel(hkBG, "low"))
	require.NoError(t, h.agentRuntime.SetModel(hkBG, "openai/gpt-4.1-mini"))
	recs := hkOpRecs(h.records())
	assert.Equal(t, []string{"session_ops model.change"}, hkOpKinds(recs))
	assert.Equal(t, map[string]any{"type": "model.change", "previous_provider": "openai", "previous_model_id": "gpt-4.1",
		"new_provider": "openai", "new_model_id": "gpt-4.1-mini", "thinking_level": "low", "source": "set"}, recs[0].ev)
	require.NoError(t, h.agentRuntime.SetModel(hkBG, "openai/gpt-4.1-mini"))
	assert.Empty(t, h.records(), "choosing the current model changes nothing")
}

// branchTo branches as /branch ID [--summarize] does.
func (h *hookApp) branchTo(ctx context.Context, id string, summarize bool) error {
	_, err := h.agentRuntime.Branch(ctx, id, agent.BranchOptions{Summarize: summarize})
	return err
}
