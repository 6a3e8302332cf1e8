package lua_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/session"
)

// lazyProbe records, for every event it listens to, what a hook sees of
// the payload through each way of looking at a table: pairs, next,
// json.encode, rawget, getmetatable, # and ipairs of the lazy arrays, and
// an assignment before the first read.
const lazyProbe = `local json = require("json")
local function keys(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = k end
  table.sort(out)
  return json.array(out)
end
local function count(t)
  local n, k = 0, next(t)
  while k do n = n + 1; k = next(t, k) end
  return n
end
lunar.on("turn.end", function(ev, ctx)
  lunar.append_entry("pairs", { event = ev.type, keys = keys(ev) })
end)
lunar.on("turn.end", function(ev, ctx)
  lunar.append_entry("next", { event = ev.type, n = count(ev) })
end)
lunar.on("turn.end", function(ev, ctx)
  local d = json.decode(json.encode(ev))
  lunar.append_entry("encode", { event = ev.type, text = d.message.content[1].text, results = #d.tool_results, input = d.tokens.input })
end)
lunar.on("turn.end", function(ev, ctx)
  lunar.append_entry("raw", { event = ev.type, meta = getmetatable(ev) == nil,
    role = rawget(ev, "message").role, n = #rawget(ev, "tool_results") })
end)
lunar.on("turn.end", function(ev, ctx)
  local n = 0
  for _, m in ipairs(ev.tool_results) do n = n + #m.content end
  lunar.append_entry("ipairs", { event = ev.type, len = #ev.tool_results, blocks = n, meta = getmetatable(ev) == nil })
end)
lunar.on("turn.end", function(ev, ctx)
  ev.message = "mine"
  rawset(ev, "tool_results", "also mine")
  lunar.append_entry("assign", { event = ev.type, message = ev.message, results = ev.tool_results, keys = keys(ev) })
end)
lunar.on("turn.end", function(ev, ctx)
  -- a handler that changes its payload does not change the next one's
  ev.message.role = "changed"
  table.remove(ev.tool_results)
end)
lunar.on("turn.end", function(ev, ctx)
  lunar.append_entry("after", { role = ev.message.role, n = #ev.tool_results })
end)
lunar.on("session.before_compact", function(ev, ctx)
  lunar.append_entry("compact", { keys = keys(ev), prep = keys(ev.preparation),
    n = #ev.preparation.messages, first = ev.preparation.messages[1].content[1].text,
    prev = ev.previous_compactions[1].summary, model = ev.model.id })
end)
lunar.on("tool.execute.after", function(ev, ctx)
  lunar.append_entry("tool", { keys = keys(ev), input = ev.input.path, orig = ev.original_input.path,
    text = ev.content[1].text, details = ev.details.lines })
end)
lunar.on("chat.message", function(ev, ctx)
  lunar.append_entry("chat", { keys = keys(ev), parts = #ev.parts })
end)
`

func TestLazyPayloadsLookLikePlainTables(t *testing.T) {
	host := newHost(t)
	rt, reports := loadCode(t, host, lazyProbe)
	results := []session.Message{
		{Role: session.RoleToolResult, ToolCallID: "c1", ToolName: "read", Content: []session.ContentBlock{{Type: session.BlockText, Text: "one"}}},
		{Role: session.RoleToolResult, ToolCallID: "c2", ToolName: "read", Content: []session.ContentBlock{{Type: session.BlockText, Text: "two"}, {Type: session.BlockText, Text: "three"}}},
	}
	rt.Notify(bg, agent.Event{Type: agent.EventTurnEnd, Message: &session.Message{Role: session.RoleAssistant,
		Content: []session.ContentBlock{{Type: session.BlockText, Text: "done"}}}, ToolResults: results,
		Tokens: agent.TokenStats{Input: 12, Total: 20}, ContextTokens: 30, ContextLimit: 1000})
	rt.BeforeCompact(bg, lua.CompactEvent{Reason: lua.CompactManual,
		Preparation:         lua.CompactPreparation{Messages: []session.Message{userMsg("a"), userMsg("b")}, FirstKeptEntryID: "0000000c", TokensBefore: 9},
		PreviousCompactions: []*session.Entry{{Type: session.TypeCompaction, ID: "0000000b", Fields: &session.EntryFields{Summary: "old", FirstKeptEntryID: "00000003"}}},
		Model:               agent.Model{Provider: "openai", ID: "gpt-small"}})
	rt.AfterTool(bg, "read", "c1", json.RawMessage(`{"path":"b.go"}`), json.RawMessage(`{"path":"a.go"}`),
		agent.ToolResult{Content: []session.ContentBlock{{Type: session.BlockText, Text: "package b"}}, Details: json.RawMessage(`{"lines":1}`)})
	rt.ChatMessage(bg, "interactive", "hi", []session.ContentBlock{{Type: session.BlockText, Text: "attached"}})
	assert.Empty(t, *reports)

	got := func(kind string) string {
		t.Helper()
		c := host.Sess.Custom(kind)
		require.Len(t, c, 1, kind)
		return string(c[0])
	}
	turnKeys := `["context_limit","context_tokens","message","session_id","tokens","tool_results","turn_index","type"]`
	assert.JSONEq(t, `{"event":"turn.end","keys":`+turnKeys+`}`, got("pairs"))
	assert.JSONEq(t, `{"event":"turn.end","n":8}`, got("next"))
	assert.JSONEq(t, `{"event":"turn.end","text":"done","results":2,"input":12}`, got("encode"))
	assert.JSONEq(t, `{"event":"turn.end","meta":true,"role":"assistant","n":2}`, got("raw"))
	assert.JSONEq(t, `{"event":"turn.end","len":2,"blocks":3,"meta":true}`, got("ipairs"))
	assert.JSONEq(t, `{"event":"turn.end","message":"mine","results":"also mine","keys":`+turnKeys+`}`, got("assign"))
	assert.JSONEq(t, `{"role":"assistant","n":2}`, got("after"))
	assert.JSONEq(t, `{"keys":["instructions","model","preparation","previous_compactions","reason","type"],
		"prep":["first_kept_entry_id","messages","tokens_before"],"n":2,"first":"a","prev":"old","model":"gpt-small"}`, got("compact"))
	assert.JSONEq(t, `{"keys":["content","details","input","is_error","original_input","session_id","terminate","tool_call_id","tool_name","type"],
		"input":"b.go","orig":"a.go","text":"package b","details":1}`, got("tool"))
	assert.JSONEq(t, `{"keys":["parts","source","text","type"],"parts":1}`, got("chat"))
}

// A handler that does not read a large field does not pay for it: the
// turn.end message of 2,000 blocks is converted only for the hook that
// reads it.
func TestLazyPayloadsUnreadCostNothing(t *testing.T) {
	blocks := make([]session.ContentBlock, 2000)
	for i := range blocks {
		blocks[i] = session.ContentBlock{Type: session.BlockText, Text: strings.Repeat("x", 40)}
	}
	ev := agent.Event{Type: agent.EventTurnEnd, Message: &session.Message{Role: session.RoleAssistant, Content: blocks}}
	allocs := func(code string) float64 {
		rt, reports := loadCode(t, newHost(t), code)
		rt.Notify(bg, ev) // first call: builds ctx, grows the stacks
		a := testing.AllocsPerRun(20, func() { rt.Notify(bg, ev) })
		require.Empty(t, *reports)
		return a
	}
	unread := allocs(`local n = 0
lunar.on("turn.end", function(ev, ctx) n = n + ev.turn_index end)`)
	read := allocs(`local n = 0
lunar.on("turn.end", function(ev, ctx) n = n + #ev.message.content end)`)
	assert.Greater(t, read, 2000.0, "reading the message converts its blocks")
	assert.Less(t, unread, 100.0, "an unread message is not converted")
}

// The context event carries the path's entries, as ctx.session.entries()
// returns them, built when first read.
func TestContextEventEntries(t *testing.T) {
	host := newHost(t)
	u := host.Sess.AppendMessage(userMsg("first question"))
	c, err := host.Sess.AppendCustom("note", json.RawMessage(`{"n":1}`))
	require.NoError(t, err)
	rt, reports := loadCode(t, host, `local json = require("json")
lunar.on("context", function(ev, ctx)
  local ids = {}
  for i, e in ipairs(ev.entries) do ids[i] = e.id .. ":" .. e.type end
  lunar.append_entry("ids", { ids = ids, same = json.encode(ev.entries) == json.encode(ctx.session.entries()) })
end)`)
	rt.Context(bg, contextMessages())
	assert.Empty(t, *reports)
	got := host.Sess.Custom("ids")
	require.Len(t, got, 1)
	assert.JSONEq(t, `{"ids":["`+u+`:message","`+c+`:custom"],"same":true}`, string(got[0]))
}

// ctx's function tables are built on first read, but pairs, rawget and
// reads through either ctx show them as before.
func TestCtxTablesOnDemand(t *testing.T) {
	host := newHost(t)
	rt, reports := loadCode(t, host, `local json = require("json")
local function keys(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = k end
  table.sort(out)
  return json.array(out)
end
lunar.on("turn.start", function(ev, ctx)
  lunar.append_entry("pairs", { keys = keys(ctx) })
end)
lunar.on("turn.start", function(ev, ctx)
  lunar.append_entry("raw", { ui = type(rawget(ctx, "ui")), leaf = type(ctx.session.leaf_id), same = rawget(ctx, "models") == ctx.models })
end)`)
	rt.Notify(bg, agent.Event{Type: agent.EventTurnStart})
	assert.Empty(t, *reports)
	assert.JSONEq(t, `{"keys":["get_system_prompt","is_idle","models","queued","session","sessions","ui"]}`, string(host.Sess.Custom("pairs")[0]))
	assert.JSONEq(t, `{"ui":"table","leaf":"function","same":true}`, string(host.Sess.Custom("raw")[0]))

	// a fresh state: the first look is a rawget
	host2 := newHost(t)
	rt2, reports2 := loadCode(t, host2, `lunar.on("turn.start", function(ev, ctx)
  lunar.append_entry("raw", { ui = type(rawget(ctx, "ui")), cwd = type(ctx.cwd) })
end)`)
	rt2.Notify(bg, agent.Event{Type: agent.EventTurnStart})
	assert.Empty(t, *reports2)
	assert.JSONEq(t, `{"ui":"table","cwd":"string"}`, string(host2.Sess.Custom("raw")[0]))
}

// The command ctx fills in its own functions besides ctx's, and shares
// ctx's function tables.
func TestCommandCtxOnDemand(t *testing.T) {
	host := newHost(t)
	rt, reports := loadCode(t, host, `local json = require("json")
local ui
lunar.on("turn.start", function(ev, ctx) ui = ctx.ui end)
lunar.command("keys", { handler = function(args, ctx)
  local out = {}
  for k in pairs(ctx) do out[#out + 1] = k end
  table.sort(out)
  lunar.append_entry("keys", { keys = out, same = ctx.ui == ui, set_model = type(rawget(ctx, "set_model")) })
end })`)
	rt.Notify(bg, agent.Event{Type: agent.EventTurnStart})
	_, handled, err := rt.RunCommand(bg, "keys", "a b")
	require.NoError(t, err)
	require.True(t, handled)
	assert.Empty(t, *reports)
	assert.JSONEq(t, `{"keys":["abort","args","get_system_prompt","is_idle","models","new_session","queued","session","sessions","set_model","set_thinking_level","ui"],
		"same":true,"set_model":"function"}`, string(host.Sess.Custom("keys")[0]))
}
