package lua_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/lua/luatest"
	"github.com/lunar-cli/lunar/session"
)

// typicalHook registers a few handlers, a command and a tool, like a
// real hook of moderate size.
const typicalHook = `
local json = require("json")
local text = require("text")
local seen = 0
lunar.on("turn.end", function(ev, ctx) seen = seen + 1 end)
lunar.on("tool.execute.before", function(ev, ctx)
  if ev.tool_name == "bash" and text.starts_with(ev.input.command or "", "rm ") then
    return { block = true, reason = "no" }
  end
end)
lunar.on("chat.system.transform", function(ev) return nil end)
lunar.command("count%d", { description = "turns so far", handler = function() return tostring(seen) end })
lunar.tool({ name = "echo%d", description = "echoes", parameters = { type = "object", properties = { s = { type = "string" } } },
  execute = function(args) return json.encode(args) end })
`

func BenchmarkLoad30Hooks(b *testing.B) {
	var srcs []lua.Source
	for i := range 30 {
		srcs = append(srcs, lua.Source{Name: fmt.Sprintf("%02d-hook.lua", i), Origin: lua.OriginGlobal, Code: fmt.Appendf(nil, typicalHook, i, i)})
	}
	for _, cached := range []bool{false, true} {
		b.Run(cacheName(cached), func(b *testing.B) {
			opts := lua.Options{Report: func(m string) { b.Fatal(m) }, ChunkCache: warmCache(b, srcs, cached)}
			b.ReportAllocs()
			for b.Loop() {
				rt := lua.Load(srcs, opts)
				rt.Close()
			}
		})
	}
}

func cacheName(cached bool) string {
	if cached {
		return "warm-cache"
	}
	return "compile"
}

// warmCache returns a chunk cache holding srcs' chunks (nil unless cached).
func warmCache(b *testing.B, srcs []lua.Source, cached bool) *lua.ChunkCache {
	if !cached {
		return nil
	}
	cache := lua.OpenChunkCache(filepath.Join(b.TempDir(), "chunks"))
	require.NotNil(b, cache)
	lua.Load(srcs, lua.Options{ChunkCache: cache}).Close()
	return cache
}

// trivialHook is the whole-process start-up benchmarks' hook (package
// main's bench_startup_e2e_test.go, testdata/bench/startup.sh): it counts
// turns and offers a command.
const trivialHook = `-- a trivial hook: counts turns, offers a command
local turns = 0
lunar.on("turn.end", function() turns = turns + 1 end)
lunar.command("turns%02d", { description = "turns so far", handler = function() return nil end })
`

// BenchmarkLoad30Trivial loads 30 trivial hooks, and also fires their
// turn.end once (what a one-shot run does with them).
func BenchmarkLoad30Trivial(b *testing.B) {
	var srcs []lua.Source
	for i := range 30 {
		srcs = append(srcs, lua.Source{Name: fmt.Sprintf("%02d-trivial.lua", i), Origin: lua.OriginGlobal, Code: fmt.Appendf(nil, trivialHook, i)})
	}
	turnEnd := agent.Event{Type: agent.EventTurnEnd, Message: &session.Message{Role: session.RoleAssistant,
		Content: []session.ContentBlock{{Type: session.BlockText, Text: "done"}}, Usage: &session.Usage{Input: 1}}}
	for _, turn := range []bool{false, true} {
		for _, cached := range []bool{false, true} {
			name := "load"
			if turn {
				name = "load+turn.end"
			}
			b.Run(name+"/"+cacheName(cached), func(b *testing.B) {
				opts := lua.Options{Report: func(m string) { b.Fatal(m) }, ChunkCache: warmCache(b, srcs, cached)}
				b.ReportAllocs()
				for b.Loop() {
					rt := lua.Load(srcs, opts)
					if turn {
						rt.Notify(bg, turnEnd)
					}
					rt.Close()
				}
			})
		}
	}
}

// BenchmarkTurnEnd30 fires turn.end at 30 hooks whose handler takes
// (ev, ctx) and reads neither (what the trivial hooks of a one-shot run
// cost per turn): "first" loads them and fires once (ctx is built then),
// "next" fires once more.
func BenchmarkTurnEnd30(b *testing.B) {
	var srcs []lua.Source
	for i := range 30 {
		srcs = append(srcs, lua.Source{Name: fmt.Sprintf("%02d-trivial.lua", i), Origin: lua.OriginGlobal,
			Code: fmt.Appendf(nil, `local turns = 0
lunar.on("turn.end", function(ev, ctx) turns = turns + 1 end)
lunar.command("turns%02d", { description = "turns so far", handler = function() return nil end })`, i)})
	}
	msgs := manyMessages(3)
	turnEnd := agent.Event{Type: agent.EventTurnEnd, Message: &msgs[1].Message, ToolResults: []session.Message{msgs[2].Message},
		Tokens: agent.TokenStats{Input: 100, Output: 20, Total: 120}}
	opts := lua.Options{Report: func(m string) { b.Fatal(m) }}
	b.Run("first", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rt := lua.Load(srcs, opts)
			rt.Notify(bg, turnEnd)
			rt.Close()
		}
	})
	b.Run("next", func(b *testing.B) {
		rt := lua.Load(srcs, opts)
		defer rt.Close()
		rt.Notify(bg, turnEnd)
		b.ReportAllocs()
		for b.Loop() {
			rt.Notify(bg, turnEnd)
		}
	})
}

// noopRuntime loads a hook that listens to every event and does nothing.
func noopRuntime(tb testing.TB) *lua.Runtime {
	var code string
	for _, name := range lua.EventNames() {
		code += fmt.Sprintf("lunar.on(%q, function(ev, ctx) end)\n", name)
	}
	rt := lua.Load([]lua.Source{{Name: "noop.lua", Code: []byte(code)}}, lua.Options{Report: func(m string) { tb.Fatal(m) }})
	tb.Cleanup(rt.Close)
	return rt
}

func BenchmarkDispatchNoop(b *testing.B) {
	rt := noopRuntime(b)
	input := json.RawMessage(`{"command":"ls -la","timeout":10}`)
	turnEnd := agent.Event{Type: agent.EventTurnEnd, Message: &session.Message{Role: session.RoleAssistant,
		Content: []session.ContentBlock{{Type: session.BlockText, Text: "done"}}, Usage: &session.Usage{Input: 1}}}
	cases := []struct {
		name string
		fn   func()
	}{
		{"app.start", func() { rt.AppStart(bg, "1", "repl") }},
		{"session.before_clear", func() { rt.BeforeClear(bg, "s") }},
		{"chat.message", func() { rt.ChatMessage(bg, "interactive", "hello", nil) }},
		{"agent.before_start", func() { rt.BeforeStart(bg, "hello", nil, "sys") }},
		{"turn.start", func() { rt.Notify(bg, agent.Event{Type: agent.EventTurnStart}) }},
		{"turn.end", func() { rt.Notify(bg, turnEnd) }},
		{"chat.system.transform", func() { rt.SystemPrompt(bg, "You are lunar.") }},
		{"chat.params", func() { rt.Params(bg, agent.Params{MaxTokens: 100}) }},
		{"model.resolve", func() { rt.ResolveModel(bg, agent.Model{Provider: "openai", ID: "x"}) }},
		{"auth.get", func() { rt.Auth(bg, "openai", "x") }},
		{"tool.execute.before", func() { rt.BeforeTool(bg, "bash", "c1", input) }},
		{"tool.execute.after", func() { rt.AfterTool(bg, "bash", "c1", input, nil, agent.TextResult("ok", false)) }},
		{"context/10", func() { rt.Context(bg, manyMessages(10)) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.fn()
			}
		})
	}
}

// manyMessages is a conversation of n messages (users, assistants with
// tool calls, tool results).
func manyMessages(n int) []agent.ContextMessage {
	out := make([]agent.ContextMessage, n)
	for i := range out {
		var m session.Message
		switch i % 3 {
		case 0:
			m = userMsg(fmt.Sprintf("please look at file %d and tell me what it does", i))
		case 1:
			m = session.Message{Role: session.RoleAssistant, API: agent.APIAnthropicMessages, Provider: "anthropic", Model: "claude",
				StopReason: session.StopToolUse, Usage: &session.Usage{Input: 100, Output: 20, TotalTokens: 120}, Timestamp: 1700000000000,
				Content: []session.ContentBlock{{Type: session.BlockText, Text: "Let me read it."},
					{Type: session.BlockToolCall, ID: fmt.Sprintf("toolu_%d", i), Name: "read", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"src/file%d.go"}`, i))}}}
		default:
			m = session.Message{Role: session.RoleToolResult, ToolCallID: fmt.Sprintf("toolu_%d", i-1), ToolName: "read", Timestamp: 1700000000000,
				Content: []session.ContentBlock{{Type: session.BlockText, Text: "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"}}}
		}
		out[i] = agent.ContextMessage{EntryID: fmt.Sprintf("%08x", i+1), Message: m}
	}
	return out
}

func BenchmarkContext1000(b *testing.B) {
	for _, c := range []struct{ name, code string }{
		{"passthrough", `lunar.on("context", function(ev) return { messages = ev.messages } end)`},
		{"passthrough-cold", `lunar.on("context", function(ev) return { messages = ev.messages } end)`},
		{"drop-tool-results", `lunar.on("context", function(ev)
  local out = {}
  for _, m in ipairs(ev.messages) do if m.role ~= "toolResult" then out[#out + 1] = m end end
  return { messages = out }
end)`},
		{"read-only", `lunar.on("context", function(ev) local n = 0 for _, m in ipairs(ev.messages) do n = n + #m.role end end)`},
	} {
		b.Run(c.name, func(b *testing.B) {
			rt := lua.Load([]lua.Source{{Name: "ctx.lua", Code: []byte(c.code)}}, lua.Options{Report: func(m string) { b.Fatal(m) }})
			defer rt.Close()
			msgs := manyMessages(1000)
			if c.name == "passthrough-cold" {
				// messages without entries are never kept between calls:
				// every call converts everything, like a hook's first call
				for i := range msgs {
					msgs[i].EntryID = ""
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				rt.Context(bg, msgs)
			}
		})
	}
}

// silentRuntime has a hook that listens to nothing the benchmark fires.
func silentRuntime(tb testing.TB) *lua.Runtime {
	rt := lua.Load([]lua.Source{{Name: "cmd.lua", Code: []byte(`lunar.command("x", { handler = function() end })`)}},
		lua.Options{Report: func(m string) { tb.Fatal(m) }})
	tb.Cleanup(rt.Close)
	return rt
}

func BenchmarkNoListeners(b *testing.B) {
	rt := silentRuntime(b)
	in := newFireInputs()
	in.msgs = manyMessages(1000)
	b.ReportAllocs()
	for b.Loop() {
		fireAll(rt, bg, in)
	}
}

func TestNoListenersCostsNoAllocation(t *testing.T) {
	rt := silentRuntime(t)
	in := newFireInputs()
	in.msgs = manyMessages(1000)
	allocs := testing.AllocsPerRun(100, func() { fireAll(rt, bg, in) })
	assert.Zero(t, allocs, "an event nobody listens to must not build anything")
}

func TestContextOver1000MessagesRoundTrips(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ctx.lua")
	writeFile(t, file, `lunar.on("context", function(ev) return { messages = ev.messages } end)`)
	src, err := lua.FileSource(file, lua.OriginGlobal)
	require.NoError(t, err)
	rt := lua.Load([]lua.Source{src}, lua.Options{Report: func(m string) { t.Error(m) }})
	defer rt.Close()
	in := manyMessages(1000)
	assert.Equal(t, in, rt.Context(bg, in))
}

// TestTrivialHookMemory bounds what loading a trivial hook from the chunk
// cache allocates: 20 KB today. A data stack set under gopher-lua's
// minimum (128 values) is replaced by its default of 5,120 (80 KB a hook)
// and fails this.
func TestTrivialHookMemory(t *testing.T) {
	var srcs []lua.Source
	for i := range 10 {
		srcs = append(srcs, lua.Source{Name: fmt.Sprintf("%02d-trivial.lua", i), Origin: lua.OriginGlobal, Code: fmt.Appendf(nil, trivialHook, i)})
	}
	cache := lua.OpenChunkCache(filepath.Join(t.TempDir(), "chunks"))
	require.NotNil(t, cache)
	opts := lua.Options{Report: func(m string) { t.Error(m) }, ChunkCache: cache}
	lua.Load(srcs, opts).Close() // compiles and caches
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rt := lua.Load(srcs, opts)
	runtime.ReadMemStats(&after)
	rt.Close()
	perHook := (after.TotalAlloc - before.TotalAlloc) / uint64(len(srcs))
	assert.Less(t, perHook, uint64(40<<10), "bytes allocated per trivial hook")
	t.Logf("%d bytes per trivial hook", perHook)
}

// BenchmarkEntryCopies measures what hooks pay for session entries as
// copies (tables built from their session JSON) on sessions of 1,000 and
// 100,000 entries: ctx.session.entries() in full and with a filter that
// keeps none, and the context event's ev.entries read in full or not at
// all. It is the measure docs/hooks.md's "Values" gives for copies over
// proxies. (The 100,000-entry full copies take about a second each.)
func BenchmarkEntryCopies(b *testing.B) {
	for _, n := range []int{1000, 100_000} {
		host := &luatest.Host{Sess: luatest.NewSession("s", "/s.jsonl"), ModelValue: agent.Model{Provider: "openai", ID: "m"}}
		for _, cm := range manyMessages(n) {
			host.Sess.AppendMessage(cm.Message)
		}
		msgs := manyMessages(3)
		for _, c := range []struct{ name, code string }{
			{"session.entries", `lunar.on("turn.start", function(ev, ctx) local n = 0 for _, e in ipairs(ctx.session.entries()) do n = n + #e.type end end)`},
			{"session.entries-filtered", `lunar.on("turn.start", function(ev, ctx) local n = #ctx.session.entries({ type = "custom" }) end)`},
			{"context.entries-read", `lunar.on("context", function(ev) local n = 0 for _, e in ipairs(ev.entries) do n = n + #e.type end end)`},
			{"context.entries-unread", `lunar.on("context", function(ev) return nil end)`},
		} {
			b.Run(fmt.Sprintf("%s/%d", c.name, n), func(b *testing.B) {
				// no memory cap: a full copy of 100,000 entries holds more
				// than the default 256 MiB a call may take
				rt := lua.Load([]lua.Source{{Name: "e.lua", Code: []byte(c.code)}}, lua.Options{Host: host, MemoryLimit: -1, Report: func(m string) { b.Fatal(m) }})
				defer rt.Close()
				b.ReportAllocs()
				for b.Loop() {
					rt.Notify(bg, agent.Event{Type: agent.EventTurnStart})
					rt.Context(bg, msgs)
				}
			})
		}
	}
}
