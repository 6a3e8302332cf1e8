package lua_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/lua/luatest"
	"github.com/lunar-cli/lunar/session"
)

var bg = context.Background()

// The session store is what hosts hand the runtime.
var _ lua.Session = (*session.Session)(nil)

// newHost returns a fake host with an empty session and a scripted UI.
func newHost(t *testing.T) *luatest.Host {
	t.Helper()
	return &luatest.Host{
		Dir:        t.TempDir(),
		Sess:       luatest.NewSession("sess-1", "/sessions/sess-1.jsonl"),
		ModelValue: agent.Model{Provider: "openai", ID: "gpt-test", API: agent.APIOpenAICompletions, ContextWindow: 128000, MaxTokens: 4096},
		Thinking:   string(agent.ThinkingLow),
		UIValue:    &luatest.UI{Interactive: true},
		Limit:      128000,
	}
}

// holdDialog makes the host's first dialog wait inside, as a user who has
// not answered yet: inDialog is closed once it is shown, and closing
// release lets it answer.
func holdDialog(host *luatest.Host) (inDialog, release chan struct{}) {
	inDialog, release = make(chan struct{}), make(chan struct{})
	host.UIValue.OnDialog = func() {
		close(inDialog)
		<-release
	}
	return inDialog, release
}

// loadHooks loads testdata files (in order) with opts completed by
// defaults, and returns the runtime and its reports.
func loadHooks(t *testing.T, host lua.Host, opts lua.Options, files ...string) (*lua.Runtime, *luatest.Reports) {
	t.Helper()
	var srcs []lua.Source
	for _, f := range files {
		s, err := lua.FileSource(filepath.Join("testdata", f), lua.OriginGlobal)
		require.NoError(t, err)
		srcs = append(srcs, s)
	}
	reps := &luatest.Reports{}
	opts.Host = host
	if opts.Report == nil {
		opts.Report = reps.Add
	}
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	if opts.DataDir == "" {
		opts.DataDir = t.TempDir()
	}
	rt := lua.Load(srcs, opts)
	t.Cleanup(rt.Close)
	return rt, reps
}

// lastCustom decodes the data of the last custom entry of a type.
func lastCustom(t *testing.T, s *luatest.Session, customType string) map[string]any {
	t.Helper()
	all := s.Custom(customType)
	require.NotEmpty(t, all, "no %q entry", customType)
	var m map[string]any
	require.NoError(t, json.Unmarshal(all[len(all)-1], &m))
	return m
}

func userMsg(text string) session.Message {
	return session.Message{Role: session.RoleUser, Content: []session.ContentBlock{{Type: session.BlockText, Text: text}}, Timestamp: 1700000000000}
}

func TestNotificationPayloads(t *testing.T) {
	host := newHost(t)
	rt, reps := loadHooks(t, host, lua.Options{}, "events/notify.lua")
	assistant := &session.Message{Role: session.RoleAssistant, Content: []session.ContentBlock{{Type: session.BlockText, Text: "done"}},
		API: agent.APIOpenAICompletions, Provider: "openai", Model: "gpt-test", StopReason: session.StopStop, Usage: &session.Usage{Input: 10, Output: 5, TotalTokens: 15}, Timestamp: 1}
	toolRes := session.Message{Role: session.RoleToolResult, ToolCallID: "call_1", ToolName: "read", Content: []session.ContentBlock{{Type: session.BlockText, Text: "x"}}, Timestamp: 2}
	tokens := agent.TokenStats{Input: 10, Output: 5, CacheRead: 3, CacheWrite: 2, Total: 20}

	tests := []struct {
		name  string
		fire  func()
		check func(t *testing.T, ev map[string]any)
	}{
		{"app.start", func() { rt.AppStart(bg, "1.2.3", "repl") }, func(t *testing.T, ev map[string]any) {
			assert.Equal(t, map[string]any{"type": "app.start", "version": "1.2.3", "mode": "repl"}, ev)
		}},
		{"session.start", func() { rt.SessionStart(bg, "s1", "/f1", "startup") }, func(t *testing.T, ev map[string]any) {
			assert.Equal(t, map[string]any{"type": "session.start", "session_id": "s1", "session_file": "/f1", "reason": "startup"}, ev)
		}},
		{"session.resume", func() { rt.SessionStart(bg, "s2", "/f2", "resume") }, func(t *testing.T, ev map[string]any) {
			assert.Equal(t, map[string]any{"type": "session.resume", "session_id": "s2", "session_file": "/f2"}, ev)
		}},
		{"session.clear", func() { rt.Clear(bg, "new-id") }, func(t *testing.T, ev map[string]any) {
			assert.Equal(t, map[string]any{"type": "session.clear", "session_id": "new-id"}, ev)
		}},
		{"session.switch", func() { rt.Switch(bg, "/old.jsonl") }, func(t *testing.T, ev map[string]any) {
			assert.Equal(t, map[string]any{"type": "session.switch", "previous_session_file": "/old.jsonl"}, ev)
		}},
		{"session.branch", func() { rt.Branch(bg, "aaaa0001", "bbbb0002") }, func(t *testing.T, ev map[string]any) {
			assert.Equal(t, map[string]any{"type": "session.branch", "target_id": "aaaa0001", "from_id": "bbbb0002"}, ev)
		}},
		{"session.fork", func() { rt.Fork(bg, "cccc0003", "/prev.jsonl") }, func(t *testing.T, ev map[string]any) {
			assert.Equal(t, map[string]any{"type": "session.fork", "entry_id": "cccc0003", "previous_session_file": "/prev.jsonl"}, ev)
		}},
		{"session.compact", func() {
			rt.Compact(bg, lua.CompactInfo{Summary: "sum", FromHook: true, TokensBefore: 900, FirstKeptEntryID: "dddd0004", EntryID: "eeee0005"})
		}, func(t *testing.T, ev map[string]any) {
			assert.Equal(t, map[string]any{"type": "session.compact", "summary": "sum", "from_hook": true, "tokens_before": 900.0,
				"first_kept_entry_id": "dddd0004", "entry_id": "eeee0005"}, ev)
		}},
		{"session.shutdown", func() { rt.Shutdown(bg, "s9") }, func(t *testing.T, ev map[string]any) {
			assert.Equal(t, map[string]any{"type": "session.shutdown", "session_id": "s9"}, ev)
		}},
		{"model.change", func() { rt.ModelChange(bg, "openai", "a", "anthropic", "b", "high", "cycle") }, func(t *testing.T, ev map[string]any) {
			assert.Equal(t, map[string]any{"type": "model.change", "previous_provider": "openai", "previous_model_id": "a",
				"new_provider": "anthropic", "new_model_id": "b", "thinking_level": "high", "source": "cycle"}, ev)
		}},
		{"agent.start", func() { rt.Notify(bg, agent.Event{Type: agent.EventAgentStart}) }, func(t *testing.T, ev map[string]any) {
			assert.Equal(t, map[string]any{"type": "agent.start", "session_id": "sess-1"}, ev)
		}},
		{"turn.start", func() { rt.Notify(bg, agent.Event{Type: agent.EventTurnStart}) }, func(t *testing.T, ev map[string]any) {
			assert.Equal(t, map[string]any{"type": "turn.start", "session_id": "sess-1", "turn_index": 0.0}, ev)
		}},
		{"turn.end", func() {
			rt.Notify(bg, agent.Event{Type: agent.EventTurnEnd, Message: assistant, ToolResults: []session.Message{toolRes},
				Tokens: tokens, ContextTokens: 1234, ContextLimit: 128000})
		}, func(t *testing.T, ev map[string]any) {
			assert.Equal(t, "turn.end", ev["type"])
			assert.Equal(t, 0.0, ev["turn_index"])
			assert.Equal(t, map[string]any{"input": 10.0, "output": 5.0, "cache_read": 3.0, "cache_write": 2.0, "total": 20.0}, ev["tokens"])
			assert.Equal(t, 1234.0, ev["context_tokens"])
			assert.Equal(t, 128000.0, ev["context_limit"])
			msg := ev["message"].(map[string]any)
			assert.Equal(t, "assistant", msg["role"])
			assert.Equal(t, "stop", msg["stopReason"], "messages are session JSON (camelCase)")
			results := ev["tool_results"].([]any)
			require.Len(t, results, 1)
			assert.Equal(t, "call_1", results[0].(map[string]any)["toolCallId"])
		}},
		{"turn.start again", func() { rt.Notify(bg, agent.Event{Type: agent.EventTurnStart}) }, func(t *testing.T, ev map[string]any) {
			assert.Equal(t, 1.0, ev["turn_index"], "turn_index counts turns within the run")
		}},
		{"agent.end", func() {
			rt.Notify(bg, agent.Event{Type: agent.EventAgentEnd, Messages: []session.Message{userMsg("q"), *assistant},
				Tokens: tokens, ContextTokens: 1234, ContextLimit: 128000})
		}, func(t *testing.T, ev map[string]any) {
			assert.Equal(t, "agent.end", ev["type"])
			assert.Len(t, ev["messages"], 2)
			assert.Equal(t, 20.0, ev["total_tokens"])
			assert.Equal(t, 1234.0, ev["context_tokens"])
			assert.Equal(t, 128000.0, ev["context_limit"])
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(host.Sess.Custom("seen"))
			tt.fire()
			calls := 1
			if tt.name == "session.resume" {
				calls = 2 // session.start (reason "resume"), then session.resume
			}
			require.Len(t, host.Sess.Custom("seen"), before+calls, "exactly one handler call per event")
			tt.check(t, lastCustom(t, host.Sess, "seen"))
		})
	}
	assert.Empty(t, reps.Lines())
}

func TestAliasesReachTheirEvents(t *testing.T) {
	host := newHost(t)
	rt, reps := loadHooks(t, host, lua.Options{}, "events/aliases.lua")
	rt.SessionStart(bg, "a", "f", "startup")
	rt.SessionStart(bg, "a", "f", "resume")
	rt.Shutdown(bg, "a")
	rt.Compact(bg, lua.CompactInfo{})
	rt.Branch(bg, "x", "y")
	rt.Notify(bg, agent.Event{Type: agent.EventAgentStart})
	rt.Notify(bg, agent.Event{Type: agent.EventTurnStart})
	rt.Notify(bg, agent.Event{Type: agent.EventTurnEnd})
	rt.Notify(bg, agent.Event{Type: agent.EventAgentEnd})
	rt.ModelChange(bg, "a", "b", "c", "d", "off", "set")
	var got []string
	for _, raw := range host.Sess.Custom("alias") {
		var m struct{ Via, Type string }
		require.NoError(t, json.Unmarshal(raw, &m))
		got = append(got, m.Via+"→"+m.Type)
	}
	assert.Equal(t, []string{
		"session_start→session.start", "session_start→session.start", "session_shutdown→session.shutdown",
		"session_compact→session.compact", "session_tree→session.branch", "agent_start→agent.start",
		"turn_start→turn.start", "turn_end→turn.end", "agent_end→agent.end", "model_select→model.change",
	}, got)
	assert.Empty(t, reps.Lines())
	assert.True(t, rt.Listening("tool.execute.before") == false)
	assert.True(t, rt.Listening("session_start"))
}

func TestChatMessageChainsThroughAlias(t *testing.T) {
	rt, reps := loadHooks(t, newHost(t), lua.Options{}, "events/chat_message.lua", "events/input_alias.lua")
	img := session.ContentBlock{Type: session.BlockImage, Extra: &session.BlockExtra{Data: "aGk=", MimeType: "image/png"}}
	text, parts, _ := rt.ChatMessage(bg, "interactive", "hello", []session.ContentBlock{img})
	assert.Equal(t, "[hello!] parts=0", text, "the alias handler sees the first handler's result")
	assert.Empty(t, parts)
	assert.Empty(t, reps.Lines())
}

func TestBeforeStartCollectsMessagesAndChainsSystemPrompt(t *testing.T) {
	rt, reps := loadHooks(t, newHost(t), lua.Options{}, "events/before_start.lua")
	img := session.ContentBlock{Type: session.BlockImage, Extra: &session.BlockExtra{Data: "aGk=", MimeType: "image/png"}}
	msgs, sys := rt.BeforeStart(bg, "what now?", []session.ContentBlock{img}, "base")
	assert.Equal(t, "base +A +B", sys)
	require.Len(t, msgs, 2)
	assert.Equal(t, "memory", msgs[0].CustomType)
	assert.False(t, msgs[0].Display)
	assert.Equal(t, "remembered: what now?", msgs[0].Content[0].Text)
	assert.JSONEq(t, `{"n":1}`, string(msgs[0].Details))
	assert.Equal(t, "note", msgs[1].CustomType)
	assert.True(t, msgs[1].Display, "display defaults to true")
	assert.Equal(t, "hi", msgs[1].Content[0].Text)
	assert.Empty(t, reps.Lines())

	none, _ := loadHooks(t, newHost(t), lua.Options{})
	msgs, sys = none.BeforeStart(bg, "x", nil, "base")
	assert.Empty(t, msgs)
	assert.Equal(t, "", sys, `"" means no override`)
}

func contextMessages() []agent.ContextMessage {
	return []agent.ContextMessage{
		{EntryID: "", Message: session.Message{Role: session.RoleCompactionSummary, Timestamp: 5, Extra: &session.MessageExtra{Summary: "earlier work", TokensBefore: 500}}},
		{EntryID: "00000001", Message: userMsg("first question")},
		{EntryID: "00000002", Message: session.Message{Role: session.RoleCustom, Content: []session.ContentBlock{{Type: session.BlockText, Text: "fact"}}, Timestamp: 6, Extra: &session.MessageExtra{CustomType: "memory", Display: true}}},
		{EntryID: "00000003", Message: session.Message{Role: session.RoleAssistant, Content: []session.ContentBlock{{Type: session.BlockText, Text: "answer"}},
			API: agent.APIOpenAICompletions, Provider: "openai", Model: "gpt-test", StopReason: session.StopStop, Usage: &session.Usage{Input: 3, Output: 4, TotalTokens: 7}, Timestamp: 7}},
	}
}

func TestContextReplacesMessagesForOneCall(t *testing.T) {
	rt, reps := loadHooks(t, newHost(t), lua.Options{}, "events/context.lua")
	in := contextMessages()
	out := rt.Context(bg, in)
	assert.Empty(t, reps.Lines())
	require.Len(t, out, 4)
	assert.Equal(t, in[0], out[0], "synthetic message kept as is (entry_id nil)")
	assert.Equal(t, in[1], out[1])
	assert.Equal(t, in[3], out[2], "assistant message round-trips unchanged, usage included")
	assert.Equal(t, "", out[3].EntryID, "a new message has no entry")
	assert.Equal(t, session.RoleUser, out[3].Message.Role)
	assert.Equal(t, "reminder: be brief", out[3].Message.Text())
	assert.Len(t, in, 4, "the input slice is not modified")
	assert.Equal(t, session.RoleCustom, in[2].Message.Role)
}

func TestContextAliasEditsInPlace(t *testing.T) {
	rt, reps := loadHooks(t, newHost(t), lua.Options{}, "events/context_alias.lua")
	in := []agent.ContextMessage{{EntryID: "00000001", Message: userMsg("hello")}}
	out := rt.Context(bg, in)
	assert.Empty(t, reps.Lines())
	require.Len(t, out, 1)
	assert.Equal(t, "00000001", out[0].EntryID)
	assert.Equal(t, "hello (edited)", out[0].Message.Text())
	assert.Equal(t, "hello", in[0].Message.Text(), "the caller's message is untouched")
}

func TestContextTablesAreRebuiltAfterInPlaceEdits(t *testing.T) {
	// context_alias.lua edits the first message in place. Hook states keep
	// their tables between calls; an edited one must never be handed out
	// again, and a message another hook changed is not the stored one.
	rt, reps := loadHooks(t, newHost(t), lua.Options{}, "events/context_alias.lua", "events/context_alias.lua")
	in := []agent.ContextMessage{{EntryID: "00000001", Message: userMsg("hello")}, {EntryID: "00000002", Message: userMsg("two")}}
	for range 3 {
		out := rt.Context(bg, in)
		require.Len(t, out, 2)
		assert.Equal(t, "hello (edited) (edited)", out[0].Message.Text())
		assert.Equal(t, in[1], out[1])
	}
	assert.Empty(t, reps.Lines())
}

func TestParamsModelAuth(t *testing.T) {
	rt, reps := loadHooks(t, newHost(t), lua.Options{}, "events/params.lua", "events/model_resolve.lua", "events/auth.lua")
	topP := 0.9
	p := rt.Params(bg, agent.Params{ThinkingLevel: agent.ThinkingLow, MaxTokens: 4096, TopP: &topP})
	require.NotNil(t, p.Temperature)
	assert.Equal(t, 0.25, *p.Temperature)
	assert.Nil(t, p.TopP, "json.null clears")
	assert.Equal(t, 4096, p.MaxTokens, "absent fields keep their value")
	assert.Equal(t, agent.ThinkingLow, p.ThinkingLevel)
	assert.Equal(t, map[string]any{"seed": 7.0}, p.Extra)

	m := rt.ResolveModel(bg, agent.Model{Provider: "openai", ID: "gpt-test", API: agent.APIOpenAICompletions, BaseURL: "https://api.openai.com/v1", ContextWindow: 1000})
	assert.Equal(t, "http://proxy.local/v1", m.BaseURL)
	assert.Equal(t, 2000, m.ContextWindow)
	assert.Equal(t, "gpt-test", m.ID)
	other := agent.Model{Provider: "anthropic", ID: "claude"}
	assert.Equal(t, other, rt.ResolveModel(bg, other))
	local := rt.ResolveModel(bg, agent.Model{Provider: "local", ID: "llava", Input: []string{agent.InputText}})
	assert.Equal(t, []string{"text", "image"}, local.Input, "a hook declares the model's inputs")
	assert.True(t, local.TakesImages())

	auth := rt.Auth(bg, "google", "gemini-x")
	assert.Equal(t, agent.AuthOverride{APIKey: "key-for-google", Headers: map[string]string{"X-Model": "gemini-x", "X-Second": "yes"}}, auth)
	assert.Empty(t, reps.Lines())
}

func TestToolEvents(t *testing.T) {
	rt, reps := loadHooks(t, newHost(t), lua.Options{}, "events/tool_before.lua", "events/tool_after.lua")

	dec := rt.BeforeTool(bg, "bash", "c1", json.RawMessage(`{"command":"rm -rf /"}`))
	assert.Equal(t, agent.ToolCallDecision{Block: true, Reason: "refusing: rm -rf /"}, dec)

	dec = rt.BeforeTool(bg, "read", "c2", json.RawMessage(`{"path":"a.txt"}`))
	assert.False(t, dec.Block)
	assert.JSONEq(t, `{"path":"/sandbox/a.txt","limit":10}`, string(dec.Input), "input rewrites chain")

	dec = rt.BeforeTool(bg, "bash", "c3", json.RawMessage(`{"command":"ls"}`))
	assert.Equal(t, agent.ToolCallDecision{}, dec, "no change")

	res := rt.AfterTool(bg, "read", "c2", json.RawMessage(`{"path":"a.txt"}`), nil, agent.TextResult("hello", false))
	assert.Equal(t, "HELLO", res.Content[0].Text)
	assert.JSONEq(t, `{"seen":"a.txt","was_error":false}`, string(res.Details))
	assert.False(t, res.IsError)

	res = rt.AfterTool(bg, "read", "c4", json.RawMessage(`{"path":"s"}`), nil, agent.TextResult("secret", false))
	assert.True(t, res.IsError, "second handler sees the first one's content")
	assert.Empty(t, reps.Lines())
}

func TestCancelEventsStopAtFirstCancel(t *testing.T) {
	host := newHost(t)
	rt, reps := loadHooks(t, host, lua.Options{}, "events/cancel.lua", "events/cancel_later.lua")

	cancel, reason := rt.BeforeClear(bg, "sess-1")
	assert.True(t, cancel)
	assert.Equal(t, "unsaved work in sess-1", reason)

	cancel, reason = rt.BeforeSwitch(bg, "/x/locked.jsonl")
	assert.True(t, cancel)
	assert.Equal(t, "locked", reason)
	cancel, _ = rt.BeforeSwitch(bg, "/x/free.jsonl")
	assert.False(t, cancel)

	cancel, _ = rt.BeforeFork(bg, "deadbeef")
	assert.True(t, cancel)
	cancel, _ = rt.BeforeFork(bg, "00000005")
	assert.False(t, cancel)

	cancel, summary := rt.BeforeBranch(bg, "00000000", "0000000a")
	assert.True(t, cancel)
	assert.Empty(t, summary)
	cancel, summary = rt.BeforeBranch(bg, "00000002", "0000000a")
	assert.False(t, cancel)
	assert.Equal(t, "summary of 0000000a -> 00000002", summary)

	var later []string
	for _, raw := range host.Sess.Custom("later") {
		var m struct{ Type string }
		require.NoError(t, json.Unmarshal(raw, &m))
		later = append(later, m.Type)
	}
	assert.Equal(t, []string{"session.before_switch", "session.before_fork", "session.before_branch"}, later,
		"the later hook runs only when nobody cancelled before it")
	assert.Empty(t, reps.Lines())
}

func TestBeforeCompact(t *testing.T) {
	host := newHost(t)
	rt, reps := loadHooks(t, host, lua.Options{Timeout: 50 * time.Millisecond}, "events/compact.lua", "events/compact_summary.lua")
	ev := lua.CompactEvent{
		Reason:       lua.CompactManual,
		Instructions: "Focus on the API.",
		Preparation: lua.CompactPreparation{Messages: []session.Message{userMsg("a"), userMsg("b")},
			FirstKeptEntryID: "0000000c", TokensBefore: 4321},
		PreviousCompactions: []*session.Entry{{Type: session.TypeCompaction, ID: "0000000b", Fields: &session.EntryFields{Summary: "old", FirstKeptEntryID: "00000003", TokensBefore: 100}}},
		Model:               agent.Model{Provider: "openai", ID: "gpt-small"},
	}
	res := rt.BeforeCompact(bg, ev)
	assert.Empty(t, reps.Lines(), "no timeout for session.before_compact")
	assert.False(t, res.Cancel)
	assert.Equal(t, "Focus on the API. Keep file names.", res.Instructions)
	assert.Equal(t, "2 messages, first kept 0000000c, 4321 tokens; Focus on the API. Keep file names.; previous 1; model gpt-small", res.Summary)
	assert.JSONEq(t, `{"from":"compact_summary.lua"}`, string(res.Details))

	ev.Reason = lua.CompactAuto
	res = rt.BeforeCompact(bg, ev)
	assert.True(t, res.Cancel)
	assert.Equal(t, "no auto compaction on this project", res.Reason)
	assert.Empty(t, res.Summary)

	none, _ := loadHooks(t, host, lua.Options{})
	assert.Equal(t, lua.CompactResult{Instructions: "x"}, none.BeforeCompact(bg, lua.CompactEvent{Instructions: "x"}))
}

func TestSystemPromptTransform(t *testing.T) {
	rt, reps := loadHooks(t, newHost(t), lua.Options{}, "events/system.lua")
	assert.Equal(t, "You are lunar.\n\nAlways answer in French.", rt.SystemPrompt(bg, "You are lunar."))
	assert.Empty(t, reps.Lines())
}

func TestChainOrderGlobalThenProject(t *testing.T) {
	root := t.TempDir()
	global := filepath.Join(root, "config", "hooks.d")
	project := filepath.Join(root, "project")
	writeFile(t, filepath.Join(global, "10-a.lua"), `lunar.on("chat.system.transform", function(ev) return {system_prompt = ev.system_prompt .. " global-10"} end)`)
	writeFile(t, filepath.Join(global, "20-b.lua"), `lunar.on("chat.system.transform", function(ev) return {system_prompt = ev.system_prompt .. " global-20"} end)`)
	writeFile(t, filepath.Join(project, ".lunar", "hooks.d", "05-p.lua"), `lunar.on("chat.system.transform", function(ev) return {system_prompt = ev.system_prompt .. " project-05"} end)`)
	cli := filepath.Join(root, "cli.lua")
	writeFile(t, cli, `lunar.on("chat.system.transform", function(ev) return {system_prompt = ev.system_prompt .. " cli"} end)`)
	srcs, warns, err := lua.Discover(lua.DiscoverOptions{Bundled: emptyFS(), GlobalDir: global, ProjectDir: project, Files: []string{cli}, Trust: true})
	require.NoError(t, err)
	assert.Empty(t, warns)
	rt := lua.Load(srcs, lua.Options{Host: newHost(t)})
	defer rt.Close()
	assert.Equal(t, "base global-10 global-20 project-05 cli", rt.SystemPrompt(bg, "base"),
		"load order: global (by name), project, --hook: later hooks have the last word")
}

func TestRebuildContextReentersSameHook(t *testing.T) {
	host := newHost(t)
	var rt *lua.Runtime
	host.RebuildFunc = func(ctx context.Context) (int, int, error) {
		out := rt.Context(ctx, []agent.ContextMessage{{EntryID: "00000001", Message: userMsg("hello")}})
		return len(out), 3, nil
	}
	host.CompactFunc = func(ctx context.Context, instructions string) error {
		res := rt.BeforeCompact(ctx, lua.CompactEvent{Reason: lua.CompactHook, Instructions: instructions})
		if res.Summary == "" {
			return assert.AnError
		}
		return nil
	}
	rt, reps := loadHooks(t, host, lua.Options{Timeout: time.Second}, "reentry.lua")
	prompt, handled, err := rt.RunCommand(bg, "measure", "")
	require.NoError(t, err)
	require.True(t, handled)
	assert.Equal(t, "2 messages, 3 tokens; compacted: true", prompt)
	assert.Empty(t, reps.Lines())
	assert.Equal(t, []string{"from the command"}, host.Compactions)
}

// writeFile creates a file and its folders.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, mkdirAll(filepath.Dir(path)))
	require.NoError(t, writeString(path, content))
}

func TestEveryEventHasATestScript(t *testing.T) {
	// Every event appears in a testdata/events script driven above.
	scripts := readAll(t, "testdata/events")
	for _, name := range eventNames() {
		assert.Contains(t, scripts, `"`+name+`"`, "event %s", name)
	}
}

// The context event's messages and entries are built lazily, but
// iterating the event or encoding it shows them as any field.
func TestContextLazyMessagesIterate(t *testing.T) {
	host := newHost(t)
	rt, reports := loadCode(t, host, `local json = require("json")
lunar.on("context", function(ev)
  local keys = {}
  for k in pairs(ev) do keys[#keys + 1] = k end
  table.sort(keys)
  lunar.append_entry("keys", { keys = json.array(keys), encoded = json.encode(ev):find('"messages":%[') ~= nil })
end)
lunar.on("context", function(ev)
  local n = 0
  local k = next(ev)
  while k do n = n + 1; k = next(ev, k) end
  lunar.append_entry("count", { n = n })
end)`)
	rt.Context(bg, contextMessages())
	assert.Empty(t, *reports)
	require.Len(t, host.Sess.Custom("keys"), 1)
	assert.JSONEq(t, `{"keys":["entries","messages","type"],"encoded":true}`, string(host.Sess.Custom("keys")[0]))
	assert.JSONEq(t, `{"n":3}`, string(host.Sess.Custom("count")[0]))
}
