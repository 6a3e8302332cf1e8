package lua_test

// Tests of the ctx.session functions meant for frequent use (filtered
// entries, path_ids, context) and of the context event's lazily built
// ev.messages.

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/session"
)

// loadCode loads one hook from source text.
func loadCode(t *testing.T, host lua.Host, code string) (*lua.Runtime, *[]string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "q.lua")
	writeFile(t, file, code)
	src, err := lua.FileSource(file, lua.OriginGlobal)
	require.NoError(t, err)
	reports := new([]string)
	rt := lua.Load([]lua.Source{src}, lua.Options{Host: host, Report: func(m string) { *reports = append(*reports, m) }, DataDir: t.TempDir()})
	t.Cleanup(rt.Close)
	return rt, reports
}

func TestSessionEntriesFilter(t *testing.T) {
	host := newHost(t)
	s := host.Sess
	u1 := s.AppendMessage(userMsg("one"))
	p1, _ := s.AppendCustom("pop", json.RawMessage(`{"n":1}`))
	s.AppendCustom("other", nil)
	s.AppendCustomMessage("pop", []session.ContentBlock{{Type: session.BlockText, Text: "note"}}, true, nil)
	label, err := s.SetLabel(u1, "start")
	require.NoError(t, err)
	rt, reports := loadCode(t, host, `local json = require("json")
local function ids(list) local out = json.array() for i, e in ipairs(list) do out[i] = e.type .. ":" .. (e.customType or "") end return out end
lunar.command("q", { handler = function(args, ctx)
  local s = ctx.session
  return json.encode({
    all = #s.entries(),
    custom_pop = ids(s.entries({ type = "custom", custom_type = "pop" })),
    any_pop = ids(s.entries({ custom_type = "pop" })),
    types = ids(s.entries({ type = { "label", "message" } })),
    none = json.array(s.entries({ type = "compaction" })),
    data = (s.entries({ custom_type = "pop", type = "custom" })[1] or { data = {} }).data.n,
    path = s.path_ids(),
    bad_field = select(2, pcall(s.entries, { typ = "custom" })),
    bad_type = select(2, pcall(s.entries, { type = 3 })),
  })
end })`)
	out, _, err := rt.RunCommand(bg, "q", "")
	require.NoError(t, err)
	assert.Empty(t, *reports)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, 5.0, got["all"])
	assert.Equal(t, []any{"custom:pop"}, got["custom_pop"])
	assert.Equal(t, []any{"custom:pop", "custom_message:pop"}, got["any_pop"])
	assert.Equal(t, []any{"message:", "label:"}, got["types"])
	assert.Equal(t, []any{}, got["none"])
	assert.Equal(t, 1.0, got["data"])
	var path []any
	for _, e := range s.Path("") {
		path = append(path, e.ID)
	}
	assert.Equal(t, path, got["path"])
	assert.Contains(t, path, p1)
	assert.Contains(t, path, label)
	assert.Contains(t, got["bad_field"], "unknown filter field typ")
	assert.Contains(t, got["bad_type"], "type must be a string or a list of strings")

	// A filter only sees the current path: after branching back, the
	// later entries are gone.
	s.SetLeaf(u1)
	out, _, err = rt.RunCommand(bg, "q", "")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, []any{}, got["custom_pop"])
	assert.Equal(t, []any{u1}, got["path"])
}

func TestSessionContext(t *testing.T) {
	host := newHost(t)
	s := host.Sess
	u1 := s.AppendMessage(userMsg("one"))
	s.AppendMessage(session.Message{Role: session.RoleAssistant, Content: []session.ContentBlock{{Type: session.BlockText, Text: "two"}}, Timestamp: 1})
	rt, reports := loadCode(t, host, `local json = require("json")
lunar.on("context", function(ev, ctx)
  local out = { { role = "user", content = "injected", timestamp = 1 } }
  for _, m in ipairs(ev.messages) do out[#out + 1] = m end
  local ok, err = pcall(ctx.session.context)
  out[#out + 1] = { role = "user", content = tostring(ok) .. ": " .. tostring(err), timestamp = 1 }
  return { messages = out }
end)
lunar.command("q", { handler = function(args, ctx)
  local out = {}
  for i, m in ipairs(ctx.session.context()) do
    out[i] = { role = m.role, entry_id = m.entry_id or "-", text = type(m.content) == "string" and m.content or m.content[1].text }
  end
  return json.encode(out)
end })`)
	out, _, err := rt.RunCommand(bg, "q", "")
	require.NoError(t, err)
	assert.Empty(t, *reports)
	var got []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Len(t, got, 4)
	assert.Equal(t, map[string]any{"role": "user", "entry_id": "-", "text": "injected"}, got[0])
	assert.Equal(t, map[string]any{"role": "user", "entry_id": u1, "text": "one"}, got[1])
	assert.Equal(t, "assistant", got[2]["role"])
	assert.Contains(t, got[3]["text"], "false: ")
	assert.Contains(t, got[3]["text"], "not available inside a context handler")
}

func TestContextMessagesAreBuiltOnFirstRead(t *testing.T) {
	msgs := manyMessages(300)
	for i := range msgs {
		msgs[i].EntryID = "" // never cached: every read converts them all
	}
	idle, _ := loadCode(t, newHost(t), `lunar.on("context", function(ev, ctx)
  if ev.type ~= "context" then error("no type") end
end)`)
	reading, _ := loadCode(t, newHost(t), `lunar.on("context", function(ev, ctx) local n = #ev.messages end)`)
	changing, reports := loadCode(t, newHost(t), `lunar.on("context", function(ev, ctx)
  local first = ev.messages[1]
  if ev.messages[1] ~= first then error("rebuilt") end
  return { messages = { first } }
end)`)
	assert.Equal(t, msgs, idle.Context(bg, msgs))
	assert.Equal(t, msgs, reading.Context(bg, msgs))
	assert.Equal(t, []agent.ContextMessage{msgs[0]}, changing.Context(bg, msgs), "read once, kept as the field")
	assert.Empty(t, *reports)

	idleAllocs := testing.AllocsPerRun(20, func() { idle.Context(bg, msgs) })
	readAllocs := testing.AllocsPerRun(20, func() { reading.Context(bg, msgs) })
	assert.Less(t, idleAllocs*10, readAllocs, "a handler that never reads ev.messages converts nothing")
}

func TestLazyContextBuildsAndReplacesOnlyWhenNeeded(t *testing.T) {
	msgs := manyMessages(5)
	for _, c := range []struct {
		name           string
		code           string
		built, changed bool
		want           []agent.ContextMessage
	}{
		{"never reads", `lunar.on("context", function(ev, ctx) return nil end)`, false, false, nil},
		{"reads, returns nothing", `lunar.on("context", function(ev, ctx) local n = #ev.messages end)`, true, false, nil},
		{"hands back what it read", `lunar.on("context", function(ev, ctx) return { messages = ev.messages } end)`, true, false, nil},
		{"reorders", `lunar.on("context", function(ev, ctx)
  local m = ev.messages
  m[1], m[2] = m[2], m[1]
  return { messages = m }
end)`, true, true, append([]agent.ContextMessage{msgs[1], msgs[0]}, msgs[2:]...)},
		{"drops one", `lunar.on("context", function(ev, ctx)
  local m = ev.messages
  table.remove(m)
  return { messages = m }
end)`, true, true, msgs[:4]},
		{"replaces without reading", `lunar.on("context", function(ev, ctx)
  return { messages = { { role = "user", content = "only", timestamp = 1 } } }
end)`, false, true, []agent.ContextMessage{{Message: session.Message{Role: session.RoleUser,
			Content: []session.ContentBlock{{Type: session.BlockText, Text: "only"}}, ContentIsString: true, Timestamp: 1}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rt, reports := loadCode(t, newHost(t), c.code)
			builds := 0
			out, changed := rt.LazyContext(bg, func() []agent.ContextMessage { builds++; return msgs })
			assert.Empty(t, *reports)
			assert.Equal(t, c.changed, changed)
			assert.Equal(t, c.built, builds == 1, "built on first read only")
			assert.LessOrEqual(t, builds, 1)
			if c.changed {
				assert.Equal(t, c.want, out)
			}
			want := msgs
			if c.changed {
				want = c.want
			}
			assert.Equal(t, want, rt.Context(bg, msgs), "Context agrees")
		})
	}
}
