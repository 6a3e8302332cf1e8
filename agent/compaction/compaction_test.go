package compaction

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/session"
)

func userMsg(text string) *session.Message {
	return &session.Message{Role: session.RoleUser, Content: []session.ContentBlock{{Type: session.BlockText, Text: text}}}
}

func assistantMsg(text string, blocks ...session.ContentBlock) *session.Message {
	m := &session.Message{Role: session.RoleAssistant, StopReason: session.StopStop, Usage: &session.Usage{},
		Content: []session.ContentBlock{{Type: session.BlockText, Text: text}}}
	m.Content = append(m.Content, blocks...)
	return m
}

func toolCall(name, args string) session.ContentBlock {
	return session.ContentBlock{Type: session.BlockToolCall, ID: "c", Name: name, Arguments: json.RawMessage(args)}
}

func TestSerializeConversation(t *testing.T) {
	var msgs []session.Message
	require.NoError(t, json.Unmarshal([]byte(`[
		{"role":"user","content":"fix <b> & \"it\"","timestamp":1},
		{"role":"assistant","content":[{"type":"thinking","thinking":"t1"},{"type":"text","text":"a"},{"type":"thinking","thinking":"t2"},{"type":"text","text":"b"},
			{"type":"toolCall","id":"1","name":"grep","arguments":{"pattern":"a<b>&c","2":"two","1":[1.0,2.50,1e2,{"b":1,"a":"\u00e9"}],"path":"src","path":"dup","u":"\u2028"}},
			{"type":"toolCall","id":"2","name":"ls","arguments":{}}],
			"api":"x","provider":"x","model":"x","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":2},
		{"role":"toolResult","toolCallId":"1","toolName":"grep","content":[{"type":"text","text":"`+strings.Repeat("x", 1999)+`😀yyyyyyyyyy"},{"type":"image","data":"x","mimeType":"image/png"}],"isError":false,"timestamp":3},
		{"role":"toolResult","toolCallId":"2","toolName":"ls","content":[{"type":"text","text":"`+strings.Repeat("x", 1998)+`😀😀"}],"isError":false,"timestamp":4},
		{"role":"toolResult","toolCallId":"2","toolName":"ls","content":[{"type":"text","text":""}],"isError":false,"timestamp":5},
		{"role":"bashExecution","command":"make","output":"","exitCode":2,"cancelled":false,"truncated":false,"timestamp":6},
		{"role":"custom","customType":"n","content":"custom text","display":true,"timestamp":7}
	]`), &msgs))
	msgs = append(msgs,
		session.Message{Role: session.RoleBranchSummary, Extra: &session.MessageExtra{Summary: "went elsewhere", FromID: "x"}},
		session.Message{Role: session.RoleCompactionSummary, Extra: &session.MessageExtra{Summary: "before", TokensBefore: 5}})

	// Golden text: pi 0.73.1's serializeConversation(convertToLlm(msgs))
	// run with node on the same messages, its lone surrogate (the cut
	// through 😀) shown as U+FFFD as it is once encoded.
	want := `[User]: fix <b> & "it"

[Assistant thinking]: t1
t2

[Assistant]: a
b

[Assistant tool calls]: grep(1=[1,2.5,100,{"b":1,"a":"é"}], 2="two", pattern="a<b>&c", path="dup", u="` + "\u2028" + `"); ls()

[Tool result]: ` + strings.Repeat("x", 1999) + "\uFFFD" + `

[... 11 more characters truncated]

[Tool result]: ` + strings.Repeat("x", 1998) + `😀

[... 2 more characters truncated]

[User]: Ran ` + "`make`" + `
(no output)

Command exited with code 2

[User]: custom text

[User]: The following is a summary of a branch that this conversation came back from:

<summary>
went elsewhere</summary>

[User]: The conversation history before this point was compacted into the following summary:

<summary>
before
</summary>`
	assert.Equal(t, want, SerializeConversation(session.ConvertToLLM(msgs)))
}

func TestSerializeConversationBranchPrompt(t *testing.T) {
	// The text the branch summary tests of the root package expect.
	msgs := []session.Message{
		*userMsg("fix the bug"),
		{Role: session.RoleAssistant, Content: []session.ContentBlock{
			{Type: session.BlockThinking, Thinking: "look first"},
			{Type: session.BlockText, Text: "reading"},
			toolCall("read", `{"path": "a.go", "offset": 3}`),
			toolCall("bash", `{"command":"ls"}`),
		}},
		{Role: session.RoleToolResult, Content: []session.ContentBlock{{Type: session.BlockText, Text: strings.Repeat("x", 2005)}}},
	}
	want := "[User]: fix the bug\n\n[Assistant thinking]: look first\n\n[Assistant]: reading\n\n" +
		"[Assistant tool calls]: read(path=\"a.go\", offset=3); bash(command=\"ls\")\n\n" +
		"[Tool result]: " + strings.Repeat("x", 2000) + "\n\n[... 5 more characters truncated]"
	assert.Equal(t, want, SerializeConversation(msgs))
}

func TestCutUTF16(t *testing.T) {
	for _, c := range []struct {
		name, in string
		n        int
		head     string
		more     int
	}{
		{"short", "abc", 5, "abc", 0},
		{"exact", "abcde", 5, "abcde", 0},
		{"ascii", "abcdefg", 5, "abcde", 2},
		{"pair counts two", "ab😀", 4, "ab😀", 0},
		{"pair split at the end", "ab😀", 3, "ab\uFFFD", 1},
		{"pair split", "ab😀c", 3, "ab\uFFFD", 2},
		{"pair kept whole", "ab😀c", 4, "ab😀", 1},
		{"BMP multibyte", "ééééé", 3, "ééé", 2},
		{"zero", "ab", 0, "", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			head, more := cutUTF16(c.in, c.n)
			assert.Equal(t, c.head, head)
			assert.Equal(t, c.more, more)
		})
	}
}

func TestFileOps(t *testing.T) {
	t.Run("tool calls", func(t *testing.T) {
		var ops FileOps // the zero value works
		ops.AddToolCalls(assistantMsg("x",
			toolCall("read", `{"path":"r.go","offset":1}`),
			toolCall("write", `{"content":"{\"path\":\"not-me\"}","path":"w.go"}`),
			toolCall("edit", `{"path":"e.go","edits":[]}`),
			toolCall("edit", `{"path":"first","path":"last"}`), // JavaScript keeps the last
			toolCall("read", `{"Path":"cased.go"}`),            // names are case-sensitive
			toolCall("read", `{"path":7}`),
			toolCall("read", `{"path":""}`),
			toolCall("read", `{"path":null}`),
			toolCall("read", `"path"`),
			toolCall("bash", `{"path":"b.go"}`),
		))
		ops.AddToolCalls(userMsg("read main.go")) // only assistant messages count
		assert.Equal(t, []string{"r.go"}, sortedKeys(ops.Read))
		assert.Equal(t, []string{"w.go"}, sortedKeys(ops.Written))
		assert.Equal(t, []string{"e.go", "last"}, sortedKeys(ops.Edited))
	})
	t.Run("details", func(t *testing.T) {
		ops := NewFileOps()
		ops.AddDetails(json.RawMessage(`{"readFiles":["a.go",3,"b.go"],"modifiedFiles":["m.go"],"other":{"readFiles":["x"]}}`))
		ops.AddDetails(json.RawMessage(`{"readFiles":"c.go"}`))
		ops.AddDetails(json.RawMessage(`["d.go"]`))
		ops.AddDetails(nil)
		assert.Equal(t, []string{"a.go", "b.go"}, sortedKeys(ops.Read))
		assert.Equal(t, []string{"m.go"}, sortedKeys(ops.Edited))
	})
	t.Run("lists", func(t *testing.T) {
		ops := NewFileOps()
		for _, p := range []string{"b", "a", "both", "z/😀", "z/\ue000"} {
			ops.Read[p] = true
		}
		ops.Written["both"] = true
		ops.Edited["e"] = true
		read, modified := ops.Lists()
		// JavaScript sorts by UTF-16 units: U+1F600 (D83D DE00) before U+E000.
		assert.Equal(t, []string{"a", "b", "z/😀", "z/\ue000"}, read)
		assert.Equal(t, []string{"both", "e"}, modified)
		read, modified = FileOps{}.Lists()
		assert.Equal(t, []string{}, read)
		assert.Equal(t, []string{}, modified)
	})
	t.Run("format", func(t *testing.T) {
		assert.Equal(t, "", FormatFileOps(nil, nil))
		assert.Equal(t, "\n\n<read-files>\na\nb\n</read-files>", FormatFileOps([]string{"a", "b"}, nil))
		assert.Equal(t, "\n\n<modified-files>\nm\n</modified-files>", FormatFileOps(nil, []string{"m"}))
		assert.Equal(t, "\n\n<read-files>\na\n</read-files>\n\n<modified-files>\nm\n</modified-files>", FormatFileOps([]string{"a"}, []string{"m"}))
		assert.Equal(t, `{"readFiles":["<a>&.go"],"modifiedFiles":[]}`, string(fileDetails([]string{"<a>&.go"}, []string{})))
	})
}

func TestCompareUTF16(t *testing.T) {
	in := []string{"b", "ab", "a", "", "é", "😀", "\ue000", "\uffff", "a😀", "a\ue000"}
	slices.SortFunc(in, compareUTF16)
	// The order node's [...].sort() gives the same strings.
	assert.Equal(t, []string{"", "a", "ab", "a😀", "a\ue000", "b", "é", "😀", "\ue000", "\uffff"}, in)
}

func TestMember(t *testing.T) {
	for _, c := range []struct {
		raw, want string
		ok        bool
	}{
		{`{"path":"a"}`, "a", true},
		{` { "x" : [1, {"path":"no"}, "]"], "path" : "a\"b\u00e9" } `, "a\"bé", true},
		{`{"path":"a","path":"b"}`, "b", true},
		{`{"path":"a","path":1}`, "", false},
		{`{"path":1,"path":"b"}`, "b", true},
		{`{"p\u0061th":"esc"}`, "esc", true},
		{`{}`, "", false},
		{`[]`, "", false},
		{`{"path":"unterminated}`, "", false},
		{``, "", false},
	} {
		got, ok := stringMember([]byte(c.raw), "path")
		assert.Equal(t, c.ok, ok, c.raw)
		assert.Equal(t, c.want, got, c.raw)
	}
}

func TestContextTokens(t *testing.T) {
	assert.Equal(t, 900, ContextTokens(session.Usage{Input: 100, Output: 200, CacheRead: 300, CacheWrite: 400, TotalTokens: 900}))
	assert.Equal(t, 1000, ContextTokens(session.Usage{Input: 100, Output: 200, CacheRead: 300, CacheWrite: 400}))

	usage := func(stop string, total int) session.Message {
		m := *assistantMsg("")
		m.StopReason, m.Usage = stop, &session.Usage{TotalTokens: total}
		return m
	}
	text := func(n int) session.Message { return *userMsg(strings.Repeat("a", n)) }
	for _, c := range []struct {
		name string
		msgs []session.Message
		want int
	}{
		{"no usage: all estimated", []session.Message{text(8), text(5)}, 2 + 2},
		{"usage plus later estimates", []session.Message{text(400), usage(session.StopStop, 5000), text(8)}, 5000 + 2},
		{"aborted and failed replies are skipped", []session.Message{usage(session.StopToolUse, 5000), text(4), usage(session.StopAborted, 9000), usage(session.StopError, 9000)}, 5000 + 1},
		{"empty", nil, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, EstimateContextTokens(c.msgs))
		})
	}
	assert.True(t, ShouldCompact(111617, 128000, DefaultSettings()))
	assert.False(t, ShouldCompact(111616, 128000, DefaultSettings()))
	assert.False(t, ShouldCompact(200000, 128000, Settings{ReserveTokens: 16384}))
}

// TestPrepareCrafted checks Prepare on the hand-built sessions. The
// golden values were printed by pi 0.73.1's prepareCompaction and
// findCutPoint (testdata/pi_compaction.mjs) on the same files; indexes
// are positions in the path.
func TestPrepareCrafted(t *testing.T) {
	files := crafted(t)
	byName := map[string]*session.Session{}
	for f, name := range files {
		s, err := session.Load(f)
		require.NoError(t, err)
		byName[name] = s
	}
	type ops struct{ read, written, edited []string }
	for _, c := range []struct {
		session            string
		keep               int
		cut, turn          int
		split              bool
		tokens             int
		summarize, prefix  int
		ops                ops
		nothingToSummarize bool
	}{
		{"split-after-compaction", 0, 2, -1, false, 1000, 0, 0, ops{read: []string{"old.go"}}, true},
		{"split-after-compaction", 2500, 14, 2, true, 1000, 0, 11, ops{read: []string{"a.go", "old.go"}, edited: []string{"f0.go", "f1.go", "f2.go", "f3.go"}}, false},
		{"split-after-compaction", 5000, 10, 2, true, 1000, 0, 7, ops{read: []string{"a.go", "old.go"}, edited: []string{"f0.go", "f1.go"}}, false},
		{"split-after-compaction", 8000, 6, 2, true, 1000, 0, 3, ops{read: []string{"a.go", "old.go"}}, false},
		{"split-after-compaction", 20000, 2, -1, false, 1000, 0, 0, ops{read: []string{"old.go"}}, true},
		{"single-huge-turn", 0, 0, -1, false, 1500, 0, 0, ops{}, true},
		{"single-huge-turn", 2500, 15, 0, true, 1500, 0, 15, ops{written: []string{"w0.go", "w1.go", "w2.go", "w3.go", "w4.go", "w5.go", "w6.go"}}, false},
		{"single-huge-turn", 8000, 7, 0, true, 1500, 0, 7, ops{written: []string{"w0.go", "w1.go", "w2.go"}}, false},
		{"turn-starts", 1000, 9, 9, true, 500, 8, 0, ops{read: []string{"r.go"}, edited: []string{"r.go"}}, false},
		{"turn-starts", 2500, 6, 6, true, 500, 6, 0, ops{read: []string{"r.go"}, edited: []string{"r.go"}}, false},
		{"turn-starts", 5000, 3, 3, true, 500, 3, 0, ops{read: []string{"r.go"}}, false},
		{"turn-starts", 8000, 0, -1, false, 500, 0, 0, ops{}, true},
	} {
		t.Run(fmt.Sprintf("%s keep %d", c.session, c.keep), func(t *testing.T) {
			s := byName[c.session]
			path := s.Path("")
			start := 0
			if c.session == "split-after-compaction" {
				start = 2
			}
			assert.Equal(t, CutPoint{c.cut, c.turn, c.split}, FindCutPoint(path, start, len(path), c.keep))

			p, err := Prepare(path, Settings{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: c.keep})
			if c.nothingToSummarize {
				assert.ErrorIs(t, err, ErrNothingToCompact)
				assert.Nil(t, p)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, path[c.cut].ID, p.FirstKeptEntryID)
			assert.Equal(t, c.split, p.IsSplitTurn)
			assert.Equal(t, c.tokens, p.TokensBefore)
			assert.Len(t, p.MessagesToSummarize, c.summarize)
			assert.Len(t, p.TurnPrefixMessages, c.prefix)
			norm := func(l []string) []string {
				if l == nil {
					return []string{}
				}
				return l
			}
			assert.Equal(t, ops{norm(c.ops.read), norm(c.ops.written), norm(c.ops.edited)},
				ops{sortedKeys(p.FileOps.Read), sortedKeys(p.FileOps.Written), sortedKeys(p.FileOps.Edited)})
		})
	}
}

func TestPrepareRefuses(t *testing.T) {
	_, err := Prepare(nil, DefaultSettings())
	assert.ErrorIs(t, err, ErrNothingToCompact)

	b := newBuilder(t, t.TempDir())
	u := b.user("hello " + words(400))
	b.assistant("hi", 100)
	b.compaction("summary", u, "", false)
	path := b.s.Path("")
	_, err = Prepare(path, DefaultSettings())
	assert.ErrorIs(t, err, ErrAlreadyCompacted)

	b.user("again")
	b.assistant("answer", 100)
	_, err = Prepare(b.s.Path(""), DefaultSettings())
	assert.ErrorIs(t, err, ErrNothingToCompact, "everything since the last compaction fits in the kept tokens")

	p, err := Prepare(b.s.Path(""), Settings{KeepRecentTokens: 1, ReserveTokens: 1000})
	require.NoError(t, err)
	assert.Equal(t, "summary", p.PreviousSummary)
	assert.True(t, p.IsSplitTurn, "cut at the last answer")
	assert.Len(t, p.MessagesToSummarize, 2, "hello and hi; the compaction itself is not a message")
	assert.Len(t, p.TurnPrefixMessages, 1, "again")
	assert.Equal(t, "again", p.TurnPrefixMessages[0].Text())
}

func TestPreviousCompactionDetails(t *testing.T) {
	for _, fromHook := range []bool{false, true} {
		b := newBuilder(t, t.TempDir())
		u := b.user(words(4000))
		b.assistant("", 0, "edit e.go")
		b.compaction("s", u, `{"readFiles":["r.go"],"modifiedFiles":["m.go"]}`, fromHook)
		b.user(words(4000))
		b.assistant(words(4000), 0, "read n.go")
		p, err := Prepare(b.s.Path(""), Settings{KeepRecentTokens: 1000, ReserveTokens: 1000})
		require.NoError(t, err)
		read, modified := p.FileOps.Lists()
		if fromHook {
			// A hook's details are its own business.
			assert.Equal(t, []string{}, read)
			assert.Equal(t, []string{"e.go"}, modified)
		} else {
			assert.Equal(t, []string{"r.go"}, read)
			assert.Equal(t, []string{"e.go", "m.go"}, modified)
		}
	}
}

// fakeModel records requests and answers each by its max tokens.
type fakeModel struct {
	mu    sync.Mutex
	reqs  []Request
	fail  map[int]error // by MaxTokens
	block map[int]bool  // wait for cancellation
}

func (f *fakeModel) complete(ctx context.Context, req Request) (string, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	err, block := f.fail[req.MaxTokens], f.block[req.MaxTokens]
	f.mu.Unlock()
	if block {
		<-ctx.Done()
		return "", ctx.Err()
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("summary(%d)", req.MaxTokens), nil
}

func (f *fakeModel) prompt(maxTokens int) string {
	for _, r := range f.reqs {
		if r.MaxTokens == maxTokens {
			return r.Messages[0].Text()
		}
	}
	return ""
}

func TestCompact(t *testing.T) {
	prep := func(t *testing.T, previous string, split bool) *Preparation {
		msgs := []session.Message{*userMsg("make it fast"), *assistantMsg("done", toolCall("edit", `{"path":"a.go"}`))}
		p := &Preparation{FirstKeptEntryID: "abcd1234", MessagesToSummarize: msgs, TokensBefore: 12345,
			PreviousSummary: previous, FileOps: NewFileOps(), Settings: Settings{ReserveTokens: 10001}}
		p.FileOps.Read["r.go"] = true
		p.FileOps.Edited["a.go"] = true
		if split {
			p.IsSplitTurn = true
			p.TurnPrefixMessages = []session.Message{*userMsg("second task"), *assistantMsg("working")}
		}
		return p
	}
	files := "\n\n<read-files>\nr.go\n</read-files>\n\n<modified-files>\na.go\n</modified-files>"
	conversation := "<conversation>\n[User]: make it fast\n\n[Assistant]: done\n\n[Assistant tool calls]: edit(path=\"a.go\")\n</conversation>\n\n"

	t.Run("first summary", func(t *testing.T) {
		m := &fakeModel{}
		res, err := Compact(context.Background(), prep(t, "", false), "", m.complete)
		require.NoError(t, err)
		require.Len(t, m.reqs, 1)
		r := m.reqs[0]
		assert.Equal(t, SystemPrompt, r.System)
		assert.Equal(t, 8000, r.MaxTokens, "floor(0.8 * 10001)")
		assert.True(t, r.Reasoning)
		require.Len(t, r.Messages, 1)
		assert.Equal(t, session.RoleUser, r.Messages[0].Role)
		assert.Equal(t, conversation+compactionPrompt, r.Messages[0].Text())
		assert.Equal(t, &Result{Summary: "summary(8000)" + files, FirstKeptEntryID: "abcd1234", TokensBefore: 12345,
			Details: json.RawMessage(`{"readFiles":["r.go"],"modifiedFiles":["a.go"]}`)}, res)
	})
	t.Run("update with instructions", func(t *testing.T) {
		m := &fakeModel{}
		_, err := Compact(context.Background(), prep(t, "old summary", false), "keep the API names", m.complete)
		require.NoError(t, err)
		assert.Equal(t, conversation+"<previous-summary>\nold summary\n</previous-summary>\n\n"+updatePrompt+"\n\nAdditional focus: keep the API names",
			m.prompt(8000))
	})
	t.Run("split turn", func(t *testing.T) {
		m := &fakeModel{}
		res, err := Compact(context.Background(), prep(t, "old", true), "focus", m.complete)
		require.NoError(t, err)
		require.Len(t, m.reqs, 2)
		assert.Equal(t, conversation+"<previous-summary>\nold\n</previous-summary>\n\n"+updatePrompt+"\n\nAdditional focus: focus", m.prompt(8000))
		assert.Equal(t, "<conversation>\n[User]: second task\n\n[Assistant]: working\n</conversation>\n\n"+turnPrefixPrompt, m.prompt(5000), "0.5 * reserve, no instructions")
		assert.Equal(t, "summary(8000)\n\n---\n\n**Turn Context (split turn):**\n\nsummary(5000)"+files, res.Summary)
	})
	t.Run("split turn without history", func(t *testing.T) {
		m := &fakeModel{}
		p := prep(t, "", true)
		p.MessagesToSummarize = nil
		res, err := Compact(context.Background(), p, "", m.complete)
		require.NoError(t, err)
		require.Len(t, m.reqs, 1)
		assert.Equal(t, "No prior history.\n\n---\n\n**Turn Context (split turn):**\n\nsummary(5000)"+files, res.Summary)

		// With a previous summary, lunar keeps it (pi would lose it).
		m = &fakeModel{}
		p.PreviousSummary = "## Goal\nearlier" + FormatFileOps([]string{"old.go"}, []string{"x.go"})
		res, err = Compact(context.Background(), p, "", m.complete)
		require.NoError(t, err)
		require.Len(t, m.reqs, 1)
		assert.Equal(t, "## Goal\nearlier\n\n---\n\n**Turn Context (split turn):**\n\nsummary(5000)"+files, res.Summary)
	})
	t.Run("a failed call cancels the other", func(t *testing.T) {
		boom := errors.New("boom")
		for _, c := range []struct {
			fail, block int
			want        string
		}{{8000, 5000, "compaction summary: boom"}, {5000, 8000, "turn prefix summary: boom"}} {
			m := &fakeModel{fail: map[int]error{c.fail: boom}, block: map[int]bool{c.block: true}}
			_, err := Compact(context.Background(), prep(t, "", true), "", m.complete)
			require.ErrorIs(t, err, boom)
			assert.EqualError(t, err, c.want)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		m := &fakeModel{block: map[int]bool{8000: true}}
		_, err := Compact(ctx, prep(t, "", false), "", m.complete)
		assert.ErrorIs(t, err, context.Canceled)
	})
}

func TestPrepareBranch(t *testing.T) {
	big := strings.Repeat("w", 4000) // 1000 tokens
	entries := []*session.Entry{
		{Type: session.TypeBranchSummary, Fields: &session.EntryFields{Summary: "earlier", Details: json.RawMessage(`{"readFiles":["old.go"],"modifiedFiles":["mod.go"]}`)}},
		{Type: session.TypeBranchSummary, Fields: &session.EntryFields{Summary: "hook's", FromHook: true, Details: json.RawMessage(`{"readFiles":["hook.go"]}`)}},
		{Type: session.TypeMessage, Message: userMsg(big)},
		{Type: session.TypeMessage, Message: assistantMsg("ok", toolCall("read", `{"path":"new.go"}`))},
		{Type: session.TypeMessage, Message: &session.Message{Role: session.RoleToolResult, Content: []session.ContentBlock{{Type: session.BlockText, Text: big}}}},
		{Type: session.TypeLabel, Fields: &session.EntryFields{TargetID: "x", Label: "l"}},
		{Type: session.TypeMessage, Message: userMsg("last")},
	}
	msgs, ops := PrepareBranch(entries, 500)
	require.Len(t, msgs, 2, "the big user message does not fit; the tool result is skipped")
	assert.Equal(t, "ok", msgs[0].Text())
	assert.Equal(t, "last", msgs[1].Text())
	read, modified := ops.Lists()
	assert.Equal(t, []string{"new.go", "old.go"}, read)
	assert.Equal(t, []string{"mod.go"}, modified)

	msgs, _ = PrepareBranch(entries, 0)
	assert.Len(t, msgs, 5, "no budget: both summaries, user, assistant, user")
	assert.Equal(t, session.RoleBranchSummary, msgs[0].Role)

	// A summary that does not fit is still taken while under 90 % of the budget.
	withSummary := []*session.Entry{
		{Type: session.TypeCompaction, Timestamp: "2025-01-02T03:04:05.678Z", Fields: &session.EntryFields{Summary: strings.Repeat("s", 2000)}},
		{Type: session.TypeMessage, Message: userMsg(strings.Repeat("u", 1600))},
	}
	msgs, _ = PrepareBranch(withSummary, 500)
	require.Len(t, msgs, 2, "400 tokens used < 450")
	assert.Equal(t, session.Message{Role: session.RoleCompactionSummary, Timestamp: 1735787045678, Extra: &session.MessageExtra{Summary: strings.Repeat("s", 2000)}}, msgs[0])
	msgs, _ = PrepareBranch(withSummary, 440)
	assert.Len(t, msgs, 1, "400 tokens used ≥ 396")
}

func TestBranchSummary(t *testing.T) {
	b := newBuilder(t, t.TempDir())
	b.user("first question")
	a1 := b.assistant("first answer", 100)
	b.user("second question")
	b.assistant("second answer", 200, "edit main.go")
	b.result("edited")
	leaf := b.s.LeafID()

	entries := BranchEntries(b.s, leaf, a1)
	require.Len(t, entries, 3)
	assert.Nil(t, BranchEntries(b.s, "", a1))
	assert.Empty(t, BranchEntries(b.s, leaf, leaf))

	m := &fakeModel{}
	summary, details, err := BranchSummary(context.Background(), entries, 0, "", m.complete)
	require.NoError(t, err)
	assert.Equal(t, BranchSummaryPreamble+"summary(2048)\n\n<modified-files>\nmain.go\n</modified-files>", summary)
	assert.JSONEq(t, `{"readFiles":[],"modifiedFiles":["main.go"]}`, string(details))
	require.Len(t, m.reqs, 1)
	r := m.reqs[0]
	assert.Equal(t, SystemPrompt, r.System)
	assert.Equal(t, 2048, r.MaxTokens)
	assert.False(t, r.Reasoning)
	assert.Equal(t, "<conversation>\n[User]: second question\n\n[Assistant]: second answer\n\n[Assistant tool calls]: edit(path=\"main.go\")\n</conversation>\n\n"+branchSummaryPrompt,
		r.Messages[0].Text())

	m = &fakeModel{}
	_, _, err = BranchSummary(context.Background(), entries, 0, "what broke", m.complete)
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(m.reqs[0].Messages[0].Text(), branchSummaryPrompt+"\n\nAdditional focus: what broke"))

	summary, details, err = BranchSummary(context.Background(), entries[2:], 0, "", m.complete)
	require.NoError(t, err)
	assert.Empty(t, summary, "only a tool result: nothing to summarise")
	assert.Nil(t, details)

	m = &fakeModel{fail: map[int]error{2048: errors.New("401 unauthorized")}}
	_, _, err = BranchSummary(context.Background(), entries, 0, "", m.complete)
	assert.EqualError(t, err, "branch summary: 401 unauthorized")
}

func TestIsContextOverflow(t *testing.T) {
	failed := func(text string) *session.Message {
		return &session.Message{Role: session.RoleAssistant, StopReason: session.StopError, Extra: &session.MessageExtra{ErrorMessage: text}}
	}
	replied := func(stop string, input, cacheRead, output int) *session.Message {
		return &session.Message{Role: session.RoleAssistant, StopReason: stop, Usage: &session.Usage{Input: input, CacheRead: cacheRead, Output: output}}
	}
	for _, c := range []struct {
		name   string
		m      *session.Message
		window int
		want   bool
	}{
		{"anthropic", failed("anthropic: 400 bad request: prompt is too long: 213462 tokens > 200000 maximum"), 0, true},
		{"openai", failed("openai: 400 bad request (context_length_exceeded): Your input exceeds the context window of this model"), 0, true},
		{"ollama", failed("ollama: 500 internal server error: prompt too long; exceeded max context length by 12 tokens"), 0, true},
		{"cerebras after a prefix", failed("cerebras: 413 status code (no body)"), 0, true},
		{"raw throttling (as pi)", failed("ThrottlingException: Too many tokens, please wait before trying again."), 0, true},
		{"throttling after a prefix", failed("bedrock: Throttling error: too many tokens"), 0, false},
		{"rate limit", failed("openai: 429 rate limited: Rate limit reached for gpt-4.1 on tokens per min (TPM)"), 0, false},
		{"other error", failed("anthropic: stream error (overloaded_error): Overloaded"), 128000, false},
		{"silent overflow", replied(session.StopStop, 120000, 9000, 10), 128000, true},
		{"fits", replied(session.StopStop, 120000, 8000, 10), 128000, false},
		{"no window", replied(session.StopStop, 120000, 9000, 10), 0, false},
		{"truncated input", replied(session.StopLength, 126720, 0, 0), 128000, true},
		{"truncated input, some output", replied(session.StopLength, 127000, 0, 1), 128000, false},
		{"tool use", replied(session.StopToolUse, 200000, 0, 0), 128000, false},
		{"nil", nil, 128000, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, IsContextOverflow(c.m, c.window))
		})
	}
}

// TestPathContextTokens checks the shortcut Prepare takes for tokensBefore
// against building the context, at every leaf of the synthetic sessions.
func TestPathContextTokens(t *testing.T) {
	for _, f := range generated(t) {
		s, err := session.Load(f)
		require.NoError(t, err)
		for _, e := range s.Entries() {
			path := s.Path(e.ID)
			var msgs []session.Message
			for _, m := range session.BuildContext(path).Messages {
				msgs = append(msgs, m.Message)
			}
			require.Equal(t, EstimateContextTokens(msgs), pathContextTokens(path), "leaf %s", e.ID)
		}
	}
}
