package session

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// base fills the common entry fields used by the encoding tests.
func base(typ string) Entry {
	return Entry{Type: typ, ID: "aaaaaaaa", ParentID: "bbbbbbbb", Timestamp: "2025-06-01T10:00:00.000Z"}
}

const baseIDs = `"id":"aaaaaaaa","parentId":"bbbbbbbb","timestamp":"2025-06-01T10:00:00.000Z"`

func encode(t *testing.T, e *Entry) string {
	t.Helper()
	b, err := appendEntry(nil, e)
	require.NoError(t, err)
	return string(b)
}

// decodeStrict decodes an entry line with the strict (non-lenient) decoder.
func decodeStrict(t *testing.T, line string) *Entry {
	t.Helper()
	var e Entry
	require.NoError(t, json.Unmarshal([]byte(line), &e), line)
	return &e
}

// roundTrip checks that want decodes and re-encodes (without Raw) to the
// same bytes, and that the encoding of e is want.
func roundTrip(t *testing.T, e *Entry, want string) {
	t.Helper()
	assert.Equal(t, want, encode(t, e))
	d := decodeStrict(t, want)
	assert.Equal(t, want, string(d.Raw))
	d.Raw = nil
	assert.Equal(t, want, encode(t, d))
}

func TestEncodeEntryTypes(t *testing.T) {
	cases := []struct {
		name string
		e    Entry
		want string
	}{
		{"model_change", func() Entry {
			e := base(TypeModelChange)
			e.fields().Provider, e.fields().ModelID = "anthropic", "claude-sonnet-4-5"
			return e
		}(), `{"type":"model_change",` + baseIDs + `,"provider":"anthropic","modelId":"claude-sonnet-4-5"}`},
		{"thinking_level_change", func() Entry {
			e := base(TypeThinkingLevelChange)
			e.fields().ThinkingLevel = "high"
			return e
		}(), `{"type":"thinking_level_change",` + baseIDs + `,"thinkingLevel":"high"}`},
		{"compaction without details", func() Entry {
			e := base(TypeCompaction)
			e.fields().Summary, e.fields().FirstKeptEntryID, e.fields().TokensBefore = "S", "cccccccc", 1234
			return e
		}(), `{"type":"compaction",` + baseIDs + `,"summary":"S","firstKeptEntryId":"cccccccc","tokensBefore":1234,"fromHook":false}`},
		{"compaction with details from a hook", func() Entry {
			e := base(TypeCompaction)
			e.fields().Summary, e.fields().FirstKeptEntryID, e.fields().TokensBefore = "S", "cccccccc", 1
			e.fields().Details, e.fields().FromHook = json.RawMessage(`{ "readFiles": ["a"], "n": 1.50 }`), true
			return e
		}(), `{"type":"compaction",` + baseIDs + `,"summary":"S","firstKeptEntryId":"cccccccc","tokensBefore":1,"details":{"readFiles":["a"],"n":1.5},"fromHook":true}`},
		{"branch_summary", func() Entry {
			e := base(TypeBranchSummary)
			e.fields().FromID, e.fields().Summary = "cccccccc", "tried X"
			return e
		}(), `{"type":"branch_summary",` + baseIDs + `,"fromId":"cccccccc","summary":"tried X","fromHook":false}`},
		{"branch_summary with details", func() Entry {
			e := base(TypeBranchSummary)
			e.fields().FromID, e.fields().Summary, e.fields().Details, e.fields().FromHook = "root", "s", json.RawMessage(`{"modifiedFiles":[]}`), true
			return e
		}(), `{"type":"branch_summary",` + baseIDs + `,"fromId":"root","summary":"s","details":{"modifiedFiles":[]},"fromHook":true}`},
		{"custom with data", func() Entry {
			e := base(TypeCustom)
			e.fields().CustomType, e.fields().Data = "prune", json.RawMessage(`{"drop":["x"]}`)
			return e
		}(), `{"type":"custom","customType":"prune","data":{"drop":["x"]},` + baseIDs + `}`},
		{"custom without data", func() Entry {
			e := base(TypeCustom)
			e.fields().CustomType = "marker"
			return e
		}(), `{"type":"custom","customType":"marker",` + baseIDs + `}`},
		{"custom with null data", func() Entry {
			e := base(TypeCustom)
			e.fields().CustomType, e.fields().Data = "marker", json.RawMessage(`null`)
			return e
		}(), `{"type":"custom","customType":"marker","data":null,` + baseIDs + `}`},
		{"custom_message with string content", func() Entry {
			e := base(TypeCustomMessage)
			e.fields().CustomType, e.fields().Content, e.fields().ContentIsString, e.fields().Display = "memory", []ContentBlock{{Type: BlockText, Text: "remember"}}, true, true
			e.fields().Details = json.RawMessage(`{"k":"v"}`)
			return e
		}(), `{"type":"custom_message","customType":"memory","content":"remember","display":true,"details":{"k":"v"},` + baseIDs + `}`},
		{"custom_message with blocks", func() Entry {
			e := base(TypeCustomMessage)
			e.fields().CustomType = "todo"
			e.fields().Content = []ContentBlock{{Type: BlockText, Text: "a"}, {Type: BlockImage, Extra: &BlockExtra{Data: "iVBO", MimeType: "image/png"}}}
			return e
		}(), `{"type":"custom_message","customType":"todo","content":[{"type":"text","text":"a"},{"type":"image","data":"iVBO","mimeType":"image/png"}],"display":false,` + baseIDs + `}`},
		{"label", func() Entry {
			e := base(TypeLabel)
			e.fields().TargetID, e.fields().Label = "cccccccc", "start"
			return e
		}(), `{"type":"label",` + baseIDs + `,"targetId":"cccccccc","label":"start"}`},
		{"label cleared", func() Entry {
			e := base(TypeLabel)
			e.fields().TargetID = "cccccccc"
			return e
		}(), `{"type":"label",` + baseIDs + `,"targetId":"cccccccc"}`},
		{"session_info", func() Entry {
			e := base(TypeSessionInfo)
			e.fields().Name = "Refactor"
			return e
		}(), `{"type":"session_info",` + baseIDs + `,"name":"Refactor"}`},
		{"first entry has a null parent", func() Entry {
			e := base(TypeThinkingLevelChange)
			e.ParentID, e.fields().ThinkingLevel = "", "off"
			return e
		}(), `{"type":"thinking_level_change","id":"aaaaaaaa","parentId":null,"timestamp":"2025-06-01T10:00:00.000Z","thinkingLevel":"off"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { roundTrip(t, &c.e, c.want) })
	}
}

func TestEncodeMessageRoles(t *testing.T) {
	two := 2
	zero := 0
	cases := []struct {
		name string
		m    Message
		want string
	}{
		{"user blocks", Message{Role: RoleUser, Content: []ContentBlock{{Type: BlockText, Text: "hi"}, {Type: BlockImage, Extra: &BlockExtra{Data: "R0lG", MimeType: "image/gif"}}}, Timestamp: 1748772000000},
			`{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","data":"R0lG","mimeType":"image/gif"}],"timestamp":1748772000000}`},
		{"user string", Message{Role: RoleUser, Content: []ContentBlock{{Type: BlockText, Text: "hi"}}, ContentIsString: true, Timestamp: 5},
			`{"role":"user","content":"hi","timestamp":5}`},
		{"assistant full", Message{Role: RoleAssistant, Content: []ContentBlock{
			{Type: BlockThinking, Thinking: "hmm", ThinkingSignature: "sig"},
			{Type: BlockThinking, Thinking: "", ThinkingSignature: "enc", Extra: &BlockExtra{Redacted: true}},
			{Type: BlockText, Text: "ok", Extra: &BlockExtra{TextSignature: "ts"}},
			{Type: BlockToolCall, ID: "call_1", Name: "read", Arguments: json.RawMessage(`{"path":"a.go","limit":2e1}`), Extra: &BlockExtra{ThoughtSignature: "th"}},
		}, API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4-5",
			Usage:      &Usage{Input: 1, Output: 2, CacheRead: 3, CacheWrite: 4, TotalTokens: 10, Cost: Cost{Input: 0.000123, Output: 1e-7, CacheRead: 0.1, CacheWrite: 0, Total: 0.30000000000000004}},
			StopReason: StopToolUse, Timestamp: 7,
			Extra: &MessageExtra{ResponseModel: "claude-sonnet-4-5-2025", ResponseID: "msg_1", Diagnostics: json.RawMessage(`{"retries":1}`), ErrorMessage: "boom"}},
			`{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","thinkingSignature":"sig"},{"type":"thinking","thinking":"","thinkingSignature":"enc","redacted":true},{"type":"text","text":"ok","textSignature":"ts"},{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"a.go","limit":20},"thoughtSignature":"th"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"cost":{"input":0.000123,"output":1e-7,"cacheRead":0.1,"cacheWrite":0,"total":0.30000000000000004}},"stopReason":"toolUse","timestamp":7,"responseModel":"claude-sonnet-4-5-2025","responseId":"msg_1","diagnostics":{"retries":1},"errorMessage":"boom"}`},
		{"assistant minimal", Message{Role: RoleAssistant, Content: []ContentBlock{}, API: "openai-completions", Provider: "openai", Model: "gpt", Usage: &Usage{}, StopReason: StopStop, Timestamp: 1},
			`{"role":"assistant","content":[],"api":"openai-completions","provider":"openai","model":"gpt","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1}`},
		{"toolResult with details", Message{Role: RoleToolResult, ToolCallID: "call_1", ToolName: "edit", Content: []ContentBlock{{Type: BlockText, Text: "done"}}, Details: json.RawMessage(`{"diff":"-a\n+b"}`), IsError: false, Timestamp: 8},
			`{"role":"toolResult","toolCallId":"call_1","toolName":"edit","content":[{"type":"text","text":"done"}],"details":{"diff":"-a\n+b"},"isError":false,"timestamp":8}`},
		{"toolResult without details", Message{Role: RoleToolResult, ToolCallID: "c", ToolName: "bash", Content: []ContentBlock{{Type: BlockText, Text: "x"}}, IsError: true, Timestamp: 8},
			`{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":"x"}],"isError":true,"timestamp":8}`},
		{"bashExecution full", Message{Role: RoleBashExecution, Timestamp: 9, Extra: &MessageExtra{Command: "make", Output: "FAIL\n", ExitCode: &two, Truncated: true, FullOutputPath: "/tmp/o.log"}},
			`{"role":"bashExecution","command":"make","output":"FAIL\n","exitCode":2,"cancelled":false,"truncated":true,"fullOutputPath":"/tmp/o.log","timestamp":9}`},
		{"bashExecution cancelled, excluded", Message{Role: RoleBashExecution, Timestamp: 9, Extra: &MessageExtra{Command: "sleep 9", Cancelled: true, ExcludeFromContext: true}},
			`{"role":"bashExecution","command":"sleep 9","output":"","cancelled":true,"truncated":false,"timestamp":9,"excludeFromContext":true}`},
		{"bashExecution exit 0", Message{Role: RoleBashExecution, Timestamp: 9, Extra: &MessageExtra{Command: "true", ExitCode: &zero}},
			`{"role":"bashExecution","command":"true","output":"","exitCode":0,"cancelled":false,"truncated":false,"timestamp":9}`},
		{"custom", Message{Role: RoleCustom, Content: []ContentBlock{{Type: BlockText, Text: "n"}}, Details: json.RawMessage(`[1]`), Timestamp: 10, Extra: &MessageExtra{CustomType: "note", Display: true}},
			`{"role":"custom","customType":"note","content":[{"type":"text","text":"n"}],"display":true,"details":[1],"timestamp":10}`},
		{"custom string, no details", Message{Role: RoleCustom, Content: []ContentBlock{{Type: BlockText, Text: "n"}}, ContentIsString: true, Timestamp: 10, Extra: &MessageExtra{CustomType: "note"}},
			`{"role":"custom","customType":"note","content":"n","display":false,"timestamp":10}`},
		{"branchSummary", Message{Role: RoleBranchSummary, Timestamp: 11, Extra: &MessageExtra{Summary: "s", FromID: "root"}},
			`{"role":"branchSummary","summary":"s","fromId":"root","timestamp":11}`},
		{"compactionSummary", Message{Role: RoleCompactionSummary, Timestamp: 12, Extra: &MessageExtra{Summary: "s", TokensBefore: 99}},
			`{"role":"compactionSummary","summary":"s","tokensBefore":99,"timestamp":12}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.m.MarshalJSON()
			require.NoError(t, err)
			assert.Equal(t, c.want, string(got))
			var back Message
			require.NoError(t, json.Unmarshal([]byte(c.want), &back))
			again, err := back.MarshalJSON()
			require.NoError(t, err)
			assert.Equal(t, c.want, string(again))

			// Inside a message entry.
			e := base(TypeMessage)
			e.Message = &c.m
			roundTrip(t, &e, `{"type":"message",`+baseIDs+`,"message":`+c.want+`}`)
		})
	}
}

func TestDecodeMessageFields(t *testing.T) {
	line := `{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"b":1,"a":[true]}}],"api":"x","provider":"p","model":"m","usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"cost":{"input":0.5,"output":0.25,"cacheRead":0,"cacheWrite":0,"total":0.75}},"stopReason":"length","timestamp":1748772000123,"future":{"x":1}}`
	var m Message
	require.NoError(t, json.Unmarshal([]byte(line), &m))
	assert.Equal(t, RoleAssistant, m.Role)
	require.Len(t, m.ToolCalls(), 1)
	assert.Equal(t, `{"b":1,"a":[true]}`, string(m.ToolCalls()[0].Arguments), "arguments are kept verbatim")
	assert.Equal(t, &Usage{Input: 1, Output: 2, CacheRead: 3, CacheWrite: 4, TotalTokens: 10, Cost: Cost{Input: 0.5, Output: 0.25, Total: 0.75}}, m.Usage)
	assert.Equal(t, StopLength, m.StopReason)
	assert.Equal(t, int64(1748772000123), m.Timestamp)

	// The strict decoder rejects a known key holding the wrong type.
	err := json.Unmarshal([]byte(`{"role":"user","timestamp":"yesterday"}`), &m)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "timestamp: want a number, got a string")
	require.Error(t, json.Unmarshal([]byte(`{"role":"user","content":5}`), &m))

	// bashExecution exitCode null and absent both mean unknown.
	require.NoError(t, json.Unmarshal([]byte(`{"role":"bashExecution","command":"c","output":"","exitCode":null,"cancelled":true,"truncated":false,"timestamp":1}`), &m))
	assert.Nil(t, m.ExitCode())
	assert.True(t, m.Cancelled())
}

func TestEncodingIsJavaScripts(t *testing.T) {
	// No HTML escaping, U+2028/U+2029 written raw, control characters as
	// JSON.stringify writes them, non-ASCII raw.
	text := "<a href=\"x\">&amp;</a>\u2028\u2029 é 日本 😀 \x00\x1f\x7f \\ \t\n\r\b\f /"
	m := userMsg(text)
	b, err := m.MarshalJSON()
	require.NoError(t, err)
	want := `{"role":"user","content":[{"type":"text","text":"<a href=\"x\">&amp;</a>` + "\u2028\u2029" + ` é 日本 😀 \u0000\u001f` + "\x7f" + ` \\ \t\n\r\b\f /"}],"timestamp":1748772000000}`
	assert.Equal(t, want, string(b))
	assert.NotContains(t, string(b), `\u2028`)
	assert.NotContains(t, string(b), `\u003c`)

	var back Message
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, text, back.Text())

	// Escaped input decodes to the same text and is written back
	// canonically.
	var esc Message
	require.NoError(t, json.Unmarshal([]byte(`{"role":"user","content":"\u003c\/\u2028\ud83d\ude00","timestamp":1}`), &esc))
	assert.Equal(t, "</\u2028😀", esc.Text())
	b, err = esc.MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, "{\"role\":\"user\",\"content\":\"</\u2028😀\",\"timestamp\":1}", string(b))
}

func TestHeaderEncoding(t *testing.T) {
	h := Header{Type: TypeSession, Version: 3, ID: "0197a3c4-5e6f-7a8b-9c0d-1e2f3a4b5c6d", Timestamp: "2025-06-01T10:00:00.000Z", Cwd: "/home/ana/<x>"}
	assert.Equal(t, `{"type":"session","version":3,"id":"0197a3c4-5e6f-7a8b-9c0d-1e2f3a4b5c6d","timestamp":"2025-06-01T10:00:00.000Z","cwd":"/home/ana/<x>"}`, string(appendHeader(nil, &h)))
	h.ParentSession = "/s/--w--/a.jsonl"
	line := string(appendHeader(nil, &h))
	assert.Equal(t, `{"type":"session","version":3,"id":"0197a3c4-5e6f-7a8b-9c0d-1e2f3a4b5c6d","timestamp":"2025-06-01T10:00:00.000Z","cwd":"/home/ana/<x>","parentSession":"/s/--w--/a.jsonl"}`, line)

	var back Header
	require.NoError(t, json.Unmarshal([]byte(line), &back))
	assert.Equal(t, h.ParentSession, back.ParentSession)
	assert.Equal(t, 3, back.Version)
	assert.Equal(t, line, string(back.Raw))

	// A v1 header has no version.
	require.NoError(t, json.Unmarshal([]byte(`{"type":"session","id":"x","timestamp":"t","cwd":"/"}`), &back))
	assert.Equal(t, 1, back.Version)
}

// TestPiV3LinesReencode decodes every line of a file made with pi's key
// orders and JSON.stringify (testdata/gen/v3.js) and re-encodes it from
// the decoded fields: the bytes must be identical.
func TestPiV3LinesReencode(t *testing.T) {
	data, err := os.ReadFile("testdata/pi-v3.jsonl")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	require.Len(t, lines, 25)

	var h Header
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &h))
	assert.Equal(t, lines[0], string(appendHeader(nil, &Header{Type: h.Type, Version: h.Version, ID: h.ID, Timestamp: h.Timestamp, Cwd: h.Cwd})))

	types := map[string]bool{}
	for i, line := range lines[1:] {
		e := decodeStrict(t, line)
		types[e.Type] = true
		// An encoder without HTML escaping writes the loaded bytes as
		// they are (json.Marshal would escape <, >, &).
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(e))
		assert.Equal(t, line+"\n", buf.String(), "line %d", i+2)
		mj, err := e.MarshalJSON()
		require.NoError(t, err)
		assert.Equal(t, line, string(mj), "line %d", i+2)
		if !knownTypes[e.Type] {
			e.Raw = nil
			_, err := e.MarshalJSON()
			assert.ErrorContains(t, err, `unknown type "stack_pop"`)
			continue
		}
		e.Raw = nil
		assert.Equal(t, line, encode(t, e), "line %d re-encoded from its fields", i+2)
	}
	for _, typ := range []string{TypeMessage, TypeModelChange, TypeThinkingLevelChange, TypeCompaction, TypeBranchSummary, TypeCustom, TypeCustomMessage, TypeLabel, TypeSessionInfo, "stack_pop"} {
		assert.True(t, types[typ], "the fixture has a %s entry", typ)
	}
}

func TestPiV3Decoded(t *testing.T) {
	s, err := Load("testdata/pi-v3.jsonl")
	require.NoError(t, err)
	get := func(id string) *Entry {
		e := s.Get(id)
		require.NotNil(t, e, id)
		return e
	}
	assert.Equal(t, "/home/ana/code/ünïcode proj", s.Cwd())
	assert.Equal(t, "0197a3c4-5e6f-7a8b-9c0d-1e2f3a4b5c6d", s.ID())

	u := get("c3d4e5f6").Message
	assert.Equal(t, "Fix <div class=\"x\"> & the\u2028line\u2029sep — naïve 日本語 😀 \\path\\ \t tab\n\"quoted\"", u.Content[0].Text)
	assert.Equal(t, ContentBlock{Type: BlockImage, Extra: &BlockExtra{Data: "iVBORw0KGgo=", MimeType: "image/png"}}, u.Content[1])

	a := get("d4e5f6a7").Message
	assert.Equal(t, StopToolUse, a.StopReason)
	assert.Equal(t, "msg_01XYZ", a.ResponseID())
	assert.Equal(t, 0.015393, a.Usage.Cost.Total)
	assert.Equal(t, 22315, a.Usage.TotalTokens)
	calls := a.ToolCalls()
	require.Len(t, calls, 1)
	assert.Equal(t, "edit", calls[0].Name)

	tr := get("e5f6a7b8").Message
	assert.Equal(t, "toolu_01ABC", tr.ToolCallID)
	assert.JSONEq(t, "{\"diff\":\"-<b>\u2028</b>\\n+&amp;\",\"firstChangedLine\":12}", string(tr.Details))
	assert.True(t, get("f6a7b8c9").Message.IsError)

	bash := get("b8c9d0e1").Message
	require.NotNil(t, bash.ExitCode())
	assert.Equal(t, 2, *bash.ExitCode())
	assert.True(t, bash.Truncated())
	assert.Equal(t, "/tmp/pi-bash-1.log", bash.FullOutputPath())
	cancelled := get("c9d0e1f2").Message
	assert.Nil(t, cancelled.ExitCode())
	assert.True(t, cancelled.ExcludeFromContext())

	cm := get("d0e1f2a3")
	assert.True(t, cm.ContentIsString())
	assert.True(t, cm.Display())
	assert.Equal(t, "memory", cm.CustomType())
	cm2 := get("e1f2a3b4")
	assert.False(t, cm2.ContentIsString())
	assert.Nil(t, cm2.Details())

	assert.JSONEq(t, `{"drop":["toolu_01ABC"],"keep":{"n":3}}`, string(get("f2a3b4c5").Data()))
	assert.Nil(t, get("a3b4c5d6").Data())

	comp := get("e7f8a9b0")
	assert.Equal(t, "a7b8c9d0", comp.FirstKeptEntryID())
	assert.Equal(t, 123456, comp.TokensBefore())
	assert.False(t, comp.FromHook())
	bs := get("c1d2e3f4")
	assert.Equal(t, "d4e5f6a7", bs.FromID())
	assert.True(t, bs.FromHook())
	assert.Equal(t, "root", get("e3f4a5b6").FromID())
	assert.Equal(t, "", get("e3f4a5b6").ParentID)

	// Labels: c3d4e5f6 labelled, the label of d4e5f6a7 cleared (never set).
	assert.Equal(t, "start ⭐", s.Label("c3d4e5f6"))
	assert.Equal(t, "", s.Label("d4e5f6a7"))
	assert.Equal(t, "Refactor <parser> & friends", s.Name())

	// The leaf is the last entry in the file.
	assert.Equal(t, "f4a5b6c7", s.LeafID())
	assert.Equal(t, RoleCustom, get("d2e3f4a5").Message.Role)
	assert.Equal(t, []string{`session has entries of unknown types: "stack_pop" (kept in the file, skipped in the context)`}, s.Warnings())
}

func TestUnknownFieldsAndTypesSurvive(t *testing.T) {
	unknownField := `{"type":"message","id":"a0000001","parentId":null,"timestamp":"2025-06-01T10:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1,"mood":"happy"},"extra":{"z":1,"a":[1e300]}}`
	unknownType := `{"type":"stack_pop","id":"a0000002","parentId":"a0000001","timestamp":"2025-06-01T10:00:02.000Z","backToIndex":2,"summary":"popped"}`
	unknownType2 := `{"type":"stack_pop","id":"a0000003","parentId":"a0000002","timestamp":"2025-06-01T10:00:03.000Z","backToIndex":1}`
	other := `{"type":"bookmark","id":"a0000004","parentId":"a0000003","timestamp":"2025-06-01T10:00:04.000Z"}`
	path := writeLines(t, testHeader, unknownField, unknownType, unknownType2, other)
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	s, err := Open(path)
	require.NoError(t, err)
	// Unknown types are reported once per load, each type once.
	assert.Equal(t, []string{`session has entries of unknown types: "stack_pop", "bookmark" (kept in the file, skipped in the context)`}, s.Warnings())
	assert.Equal(t, "stack_pop", s.Get("a0000002").Type)
	id := mustAppend(t, s, assistantMsg("ok"))
	require.NoError(t, s.Close())

	after, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(after, before), "earlier bytes are untouched")
	lines := fileLines(t, path)
	require.Len(t, lines, 6)
	e := decodeStrict(t, lines[5])
	assert.Equal(t, id, e.ID)
	assert.Equal(t, "a0000004", e.ParentID)

	// Context building skips the unknown entries and keeps the message
	// with an unknown field.
	s2, err := Load(path)
	require.NoError(t, err)
	assert.Equal(t, []string{"user:hi", "assistant:ok"}, texts(s2.BuildContext().Messages))

	// Appending an unknown type is refused (it could not be written).
	s3, err := Open(path)
	require.NoError(t, err)
	defer s3.Close()
	_, err = s3.Append(&Entry{Type: "stack_pop"})
	assert.ErrorContains(t, err, `unknown entry type "stack_pop"`)
	_, err = s3.Append(&Entry{Type: TypeMessage, Message: &Message{Role: RoleCompactionSummary}})
	assert.ErrorContains(t, err, "not stored")
	_, err = s3.Append(&Entry{Type: TypeMessage})
	assert.ErrorContains(t, err, "without a message")
}

func TestIDsAndNames(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := NewEntryID(func(id string) bool { return seen[id] })
		require.Regexp(t, hex8Re, id)
		require.False(t, seen[id])
		seen[id] = true
	}
	// After 100 collisions pi falls back to a full UUID.
	calls := 0
	id := NewEntryID(func(string) bool { calls++; return true })
	assert.Equal(t, 100, calls)
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, id)

	at := time.Date(2024, 12, 3, 14, 0, 0, 0, time.UTC)
	u := newUUIDv7(at)
	require.Regexp(t, uuidv7Re, u)
	// The first 48 bits are the Unix milliseconds.
	assert.Equal(t, "0193 8cd2-1b00", u[:4]+" "+u[4:8]+u[8:13])
	assert.Less(t, newUUIDv7(at), newUUIDv7(at.Add(time.Millisecond)), "v7 baseIDs sort by time")

	assert.Equal(t, "2024-12-03T14:00:00.000Z", formatISO(at))
	assert.Equal(t, "2024-12-03T14:00:00.007Z", formatISO(at.Add(7*time.Millisecond).In(time.FixedZone("x", 3600))))
	assert.Equal(t, "2024-12-03T14-00-00-000Z_0193abcd.jsonl", fileName("2024-12-03T14:00:00.000Z", "0193abcd"))
	assert.Equal(t, int64(1733234400007), isoMillis("2024-12-03T14:00:00.007Z"))
	assert.Equal(t, int64(0), isoMillis("not a date"))

	assert.Equal(t, "/root/--home-ana-code-x--", Dir("/root", "/home/ana/code/x"))
	assert.Equal(t, "/root/--C--Users-ana-x--", Dir("/root", `C:\Users\ana\x`))
	assert.Equal(t, "/root/--relative-dir--", Dir("/root", "relative/dir"))
	assert.Equal(t, "/root/----", Dir("/root", "/"))
}

func TestCreateNamesFileAsPi(t *testing.T) {
	fakeClock(t, time.Date(2024, 12, 3, 14, 0, 0, 0, time.UTC))
	dir := t.TempDir()
	s, err := Create(dir, "/home/ana")
	require.NoError(t, err)
	h := s.Header()
	assert.Equal(t, "2024-12-03T14:00:00.000Z", h.Timestamp)
	assert.Regexp(t, uuidv7Re, h.ID)
	assert.Equal(t, dir+"/2024-12-03T14-00-00-000Z_"+h.ID+".jsonl", s.File())
	assert.Equal(t, 3, h.Version)
	assert.Equal(t, "/home/ana", s.Cwd())
}
