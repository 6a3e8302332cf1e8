package hooksd_test

// What the bundled hooks cost: loading them (every run pays it), and the
// context handlers before every model call, idle (no pop or prune on the
// path: they must not build ev.messages) and in use, over a session of
// 1,000 entries.
//
//	go test ./hooks.d -bench . -benchtime 200x

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/session"
)

var bg = context.Background()

// bundled loads the bundled hooks but those disabled.
func bundled(tb testing.TB, host lua.Host, disabled ...string) *lua.Runtime {
	tb.Helper()
	srcs, _, err := lua.Discover(lua.DiscoverOptions{Disabled: disabled})
	require.NoError(tb, err)
	rt := lua.Load(srcs, lua.Options{Host: host, Report: func(m string) { tb.Error(m) }, DataDir: tb.TempDir()})
	tb.Cleanup(rt.Close)
	return rt
}

// host serves a real in-memory session (its Path is what lunar uses).
type host struct {
	lua.NopHost
	s *session.Session
}

func (h host) Session() lua.Session { return h.s }
func (h host) Model() agent.Model {
	return agent.Model{Provider: "openai", ID: "gpt-test", ContextWindow: 128000}
}

// longSession is a host whose session has n entries: turns of a user
// message, an assistant tool call and its result.
func longSession(tb testing.TB, n int) host {
	s := session.CreateInMemory(tb.TempDir())
	for i := range n {
		var m session.Message
		switch i % 3 {
		case 0:
			m = session.Message{Role: session.RoleUser, Content: []session.ContentBlock{{Type: session.BlockText, Text: fmt.Sprintf("please look at file %d", i)}}, Timestamp: 1700000000000}
		case 1:
			m = session.Message{Role: session.RoleAssistant, StopReason: session.StopToolUse, Timestamp: 1700000000000,
				Content: []session.ContentBlock{{Type: session.BlockText, Text: "Let me read it."},
					{Type: session.BlockToolCall, ID: fmt.Sprintf("call_%d", i), Name: "read", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"src/file%d.go"}`, i))}}}
		default:
			m = session.Message{Role: session.RoleToolResult, ToolCallID: fmt.Sprintf("call_%d", i-1), ToolName: "read", Timestamp: 1700000000000,
				Content: []session.ContentBlock{{Type: session.BlockText, Text: "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"}}}
		}
		_, err := s.AppendMessage(&m)
		require.NoError(tb, err)
	}
	return host{s: s}
}

func contextOf(h host) []agent.ContextMessage {
	return h.s.BuildContext().Messages
}

func BenchmarkBundledLoad(b *testing.B) {
	for _, c := range []struct {
		name     string
		disabled []string
	}{{"all", nil}, {"without-stack-prune", []string{"stack", "prune"}}} {
		b.Run(c.name, func(b *testing.B) {
			srcs, _, err := lua.Discover(lua.DiscoverOptions{Disabled: c.disabled})
			require.NoError(b, err)
			h := host{s: session.CreateInMemory(b.TempDir())}
			b.ReportAllocs()
			for b.Loop() {
				lua.Load(srcs, lua.Options{Host: h, Report: func(m string) { b.Fatal(m) }}).Close()
			}
		})
	}
}

// withPopAndPrune adds a pop of the last two turns and a prune of one
// result to the session.
func withPopAndPrune(tb testing.TB, h host) {
	path := h.s.Path("")
	target := path[len(path)-6].ID
	var result string
	for _, e := range path {
		if e.Message.Role == session.RoleToolResult {
			result = e.ID
			break
		}
	}
	_, err := h.s.AppendCustom("prune", json.RawMessage(fmt.Sprintf(`{"action":"drop","ids":[%q]}`, result)))
	require.NoError(tb, err)
	_, err = h.s.AppendCustom("stack_pop", json.RawMessage(fmt.Sprintf(`{"target":%q,"turns":2,"summary":"S"}`, target)))
	require.NoError(tb, err)
}

func BenchmarkBundledContext1000(b *testing.B) {
	for _, c := range []struct {
		name     string
		disabled []string
		active   bool
	}{
		{"none", []string{"stack", "prune"}, false},
		{"idle", nil, false},
		{"pop-and-prune", nil, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			h := longSession(b, 1000)
			if c.active {
				withPopAndPrune(b, h)
			}
			rt := bundled(b, h, c.disabled...)
			msgs := contextOf(h)
			rt.Context(bg, msgs) // the first call fills the hooks' caches
			b.ReportAllocs()
			for b.Loop() {
				rt.Context(bg, msgs)
			}
		})
	}
}

func TestIdleBundledHooksConvertNothing(t *testing.T) {
	h := longSession(t, 1000)
	rt := bundled(t, h)
	msgs := contextOf(h)
	assert.Equal(t, msgs, rt.Context(bg, msgs))
	allocs := testing.AllocsPerRun(10, func() { rt.Context(bg, msgs) })
	assert.Less(t, allocs, 300.0, "idle, the context handlers of stack.lua and prune.lua must not build ev.messages")
}

func TestBundledHooksApplyPopAndPrune(t *testing.T) {
	h := longSession(t, 30)
	withPopAndPrune(t, h)
	rt := bundled(t, h)
	msgs := contextOf(h)
	got := rt.Context(bg, msgs)
	require.Len(t, got, 30-6+1, "the last two turns (six messages) give way to one summary")
	assert.Equal(t, session.RoleBranchSummary, got[len(got)-1].Message.Role)
	assert.Equal(t, "S", got[len(got)-1].Message.Summary())
	assert.Equal(t, "[tool output dropped by /prune: 48 bytes, 5 lines]", got[2].Message.Text())
	assert.Equal(t, msgs[3:24], got[3:24])
}

// BenchmarkBundledBeforeCompact1000 is session.before_compact over the
// 1,000 messages of a session to summarise, with the bundled hooks (the
// only listener, stack.lua, returns without reading them when the path has
// no pops) and without them.
func BenchmarkBundledBeforeCompact1000(b *testing.B) {
	for _, c := range []struct {
		name     string
		disabled []string
	}{{"none", []string{"stack", "prune"}}, {"idle", nil}} {
		b.Run(c.name, func(b *testing.B) {
			h := longSession(b, 1000)
			rt := bundled(b, h, c.disabled...)
			var msgs []session.Message
			for _, cm := range contextOf(h) {
				msgs = append(msgs, cm.Message)
			}
			ev := lua.CompactEvent{Reason: lua.CompactManual, Preparation: lua.CompactPreparation{Messages: msgs, TokensBefore: 100000},
				Model: agent.Model{Provider: "openai", ID: "gpt-4.1"}}
			rt.BeforeCompact(bg, ev)
			b.ReportAllocs()
			for b.Loop() {
				rt.BeforeCompact(bg, ev)
			}
		})
	}
}

func TestIdleBundledHooksCompactConvertsNothing(t *testing.T) {
	h := longSession(t, 1000)
	rt := bundled(t, h)
	var msgs []session.Message
	for _, cm := range contextOf(h) {
		msgs = append(msgs, cm.Message)
	}
	ev := lua.CompactEvent{Reason: lua.CompactManual, Preparation: lua.CompactPreparation{Messages: msgs}}
	rt.BeforeCompact(bg, ev)
	allocs := testing.AllocsPerRun(10, func() { rt.BeforeCompact(bg, ev) })
	assert.Less(t, allocs, 300.0, "idle, stack.lua's session.before_compact handler must not build the messages to summarise")
}
