// Package luar_test measures gopher-luar's proxies of Go values against
// the copies lunar gives hooks (docs/hooks.md, "Values are copies"). It is
// a module of its own so that lunar does not depend on gopher-luar:
//
//	cd testdata/bench/luar && go test -bench . -benchtime 5x
package luar_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/lua/luatest"
	"github.com/lunar-cli/lunar/session"
	glua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"
)

// sessionOf returns a session of n message entries: user prompts,
// assistant tool calls and tool results in turn.
func sessionOf(n int) *luatest.Session {
	s := luatest.NewSession("s", "/s.jsonl")
	for i := range n {
		var m session.Message
		switch i % 3 {
		case 0:
			m = session.Message{Role: session.RoleUser, Timestamp: 1700000000000,
				Content: []session.ContentBlock{{Type: session.BlockText, Text: fmt.Sprintf("please look at file %d and tell me what it does", i)}}}
		case 1:
			m = session.Message{Role: session.RoleAssistant, API: agent.APIAnthropicMessages, Provider: "anthropic", Model: "claude",
				StopReason: session.StopToolUse, Usage: &session.Usage{Input: 100, Output: 20, TotalTokens: 120}, Timestamp: 1700000000000,
				Content: []session.ContentBlock{{Type: session.BlockText, Text: "Let me read it."},
					{Type: session.BlockToolCall, ID: fmt.Sprintf("toolu_%d", i), Name: "read", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"src/file%d.go"}`, i))}}}
		default:
			m = session.Message{Role: session.RoleToolResult, ToolCallID: fmt.Sprintf("toolu_%d", i-1), ToolName: "read", Timestamp: 1700000000000,
				Content: []session.ContentBlock{{Type: session.BlockText, Text: "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"}}}
		}
		s.AppendMessage(m)
	}
	return s
}

// The same two reads both ways: every entry's type (a full walk) and the
// text of the last entry's first block (one deep read).
const (
	copyWalk  = `local n = 0 for _, e in ipairs(ctx.session.entries()) do n = n + #e.type end`
	copyLast  = `local es = ctx.session.entries() local m = es[#es].message local n = #m.content[1].text`
	proxyWalk = `local n = 0 for i = 1, #entries do n = n + #entries[i].Type end`
	proxyLast = `local m = entries[#entries].Message local n = #m.Content[1].Text`
)

func BenchmarkCopies(b *testing.B) {
	for _, n := range []int{1000, 100_000} {
		host := &luatest.Host{Sess: sessionOf(n), ModelValue: agent.Model{Provider: "openai", ID: "m"}}
		for name, code := range map[string]string{"walk": copyWalk, "last": copyLast} {
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				src := `lunar.on("turn.start", function(ev, ctx) ` + code + ` end)`
				rt := lua.Load([]lua.Source{{Name: "e.lua", Code: []byte(src)}}, lua.Options{Host: host, MemoryLimit: -1, Timeout: time.Hour, Report: func(m string) { b.Fatal(m) }})
				defer rt.Close()
				b.ReportAllocs()
				for b.Loop() {
					rt.Notify(context.Background(), agent.Event{Type: agent.EventTurnStart})
				}
			})
		}
	}
}

func BenchmarkProxies(b *testing.B) {
	for _, n := range []int{1000, 100_000} {
		entries := sessionOf(n).Entries()
		for name, code := range map[string]string{"walk": proxyWalk, "last": proxyLast} {
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				L := glua.NewState()
				defer L.Close()
				fn, err := L.LoadString(code)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					L.SetGlobal("entries", luar.New(L, entries))
					L.Push(fn)
					if err := L.PCall(0, 0, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
