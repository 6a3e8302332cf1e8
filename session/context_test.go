package session

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chain links entries into a path (ids e1, e2, ... unless set) with
// timestamps one second apart.
func chain(entries ...*Entry) []*Entry {
	parent := ""
	for i, e := range entries {
		if e.ID == "" {
			e.ID = fmt.Sprintf("e%07d", i+1)
		}
		e.ParentID = parent
		e.Timestamp = fmt.Sprintf("2025-06-01T10:00:%02d.000Z", i+1)
		parent = e.ID
	}
	return entries
}

func msgEntry(m *Message) *Entry { return &Entry{Type: TypeMessage, Message: m} }

func TestContextEntryRules(t *testing.T) {
	exit := 1
	path := chain(
		&Entry{Type: TypeModelChange, Fields: &EntryFields{Provider: "openai", ModelID: "gpt-5"}},
		&Entry{Type: TypeThinkingLevelChange, Fields: &EntryFields{ThinkingLevel: "low"}},
		msgEntry(userMsg("u1")),
		msgEntry(assistantMsg("a1")),
		msgEntry(&Message{Role: RoleToolResult, ToolCallID: "c", ToolName: "bash", Content: []ContentBlock{{Type: BlockText, Text: "r1"}}}),
		msgEntry(&Message{Role: RoleBashExecution, Extra: &MessageExtra{Command: "ls", Output: "x", ExitCode: &exit}}),
		&Entry{Type: TypeCustom, Fields: &EntryFields{CustomType: "state", Data: json.RawMessage(`1`)}},
		&Entry{Type: TypeCustomMessage, Fields: &EntryFields{CustomType: "memory", Content: []ContentBlock{{Type: BlockText, Text: "cm"}}, ContentIsString: true, Display: true, Details: json.RawMessage(`{"k":1}`)}},
		&Entry{Type: TypeLabel, Fields: &EntryFields{TargetID: "e0000003", Label: "l"}},
		&Entry{Type: TypeSessionInfo, Fields: &EntryFields{Name: "n"}},
		&Entry{Type: TypeBranchSummary, Fields: &EntryFields{FromID: "e0000004", Summary: "bs"}},
		&Entry{Type: TypeBranchSummary, Fields: &EntryFields{FromID: "root", Summary: ""}},
		&Entry{Type: "stack_pop"},
		msgEntry(&Message{Role: RoleCustom, Content: []ContentBlock{{Type: BlockText, Text: "migrated"}}, Extra: &MessageExtra{CustomType: "hook"}}),
		&Entry{Type: TypeMessage}, // a message entry without a message (bad file)
	)
	c := BuildContext(path)
	assert.Equal(t, []string{"user:u1", "assistant:a1", "toolResult:r1", "bashExecution:ls", "custom:cm", "branchSummary:bs", "custom:migrated"}, texts(c.Messages))
	assert.Equal(t, []string{"e0000003", "e0000004", "e0000005", "e0000006", "e0000008", "", "e0000014"},
		func() (out []string) {
			for _, m := range c.Messages {
				out = append(out, m.EntryID)
			}
			return
		}())

	cm := c.Messages[4].Message
	assert.Equal(t, Message{Role: RoleCustom, Content: []ContentBlock{{Type: BlockText, Text: "cm"}}, ContentIsString: true, Details: json.RawMessage(`{"k":1}`), Timestamp: 1748772008000,
		Extra: &MessageExtra{CustomType: "memory", Display: true}}, cm)
	assert.Equal(t, Message{Role: RoleBranchSummary, Timestamp: 1748772011000, Extra: &MessageExtra{Summary: "bs", FromID: "e0000004"}}, c.Messages[5].Message)

	assert.Equal(t, "low", c.ThinkingLevel)
	assert.Equal(t, "anthropic", c.Provider, "the assistant message after the model change sets the model")
	assert.Equal(t, "claude-sonnet-4-5", c.ModelID)
}

func TestContextThinkingLevelAndModel(t *testing.T) {
	c := BuildContext(nil)
	assert.Empty(t, c.Messages)
	assert.Equal(t, "off", c.ThinkingLevel)
	assert.Equal(t, "", c.Provider)

	c = BuildContext(chain(msgEntry(userMsg("u"))))
	assert.Equal(t, "off", c.ThinkingLevel, "off unless the path changes it")
	assert.Equal(t, "", c.Provider+c.ModelID)

	c = BuildContext(chain(
		&Entry{Type: TypeThinkingLevelChange, Fields: &EntryFields{ThinkingLevel: "high"}},
		msgEntry(assistantMsg("a")),
		&Entry{Type: TypeModelChange, Fields: &EntryFields{Provider: "openai", ModelID: "gpt-5"}},
		&Entry{Type: TypeThinkingLevelChange, Fields: &EntryFields{ThinkingLevel: "minimal"}},
	))
	assert.Equal(t, "minimal", c.ThinkingLevel, "the last change wins")
	assert.Equal(t, "openai/gpt-5", c.Provider+"/"+c.ModelID, "a model change after the assistant wins")

	// Only the path counts: changes on another branch do not.
	s := CreateInMemory("/w")
	root := mustAppend(t, s, userMsg("u"))
	_, err := s.AppendThinkingLevel("high")
	require.NoError(t, err)
	_, err = s.AppendModelChange("openai", "gpt-5")
	require.NoError(t, err)
	require.NoError(t, s.Branch(root))
	mustAppend(t, s, assistantMsg("a"))
	c = s.BuildContext()
	assert.Equal(t, "off", c.ThinkingLevel)
	assert.Equal(t, "anthropic", c.Provider)
}

func TestContextCompaction(t *testing.T) {
	u1, a1, u2, a2 := msgEntry(userMsg("u1")), msgEntry(assistantMsg("a1")), msgEntry(userMsg("u2")), msgEntry(assistantMsg("a2"))
	cm := &Entry{Type: TypeCustomMessage, Fields: &EntryFields{CustomType: "note", Content: []ContentBlock{{Type: BlockText, Text: "kept note"}}}}
	bs := &Entry{Type: TypeBranchSummary, Fields: &EntryFields{FromID: "x", Summary: "kept branch"}}
	u3, a3 := msgEntry(userMsg("u3")), msgEntry(assistantMsg("a3"))
	comp := &Entry{Type: TypeCompaction, Fields: &EntryFields{Summary: "C1", TokensBefore: 5000}}
	u4, a4 := msgEntry(userMsg("u4")), msgEntry(assistantMsg("a4"))
	path := chain(u1, a1, u2, a2, cm, bs, u3, a3, comp, u4, a4)
	comp.fields().FirstKeptEntryID = u2.ID

	c := BuildContext(path)
	assert.Equal(t, []string{"compactionSummary:C1", "user:u2", "assistant:a2", "custom:kept note", "branchSummary:kept branch", "user:u3", "assistant:a3", "user:u4", "assistant:a4"}, texts(c.Messages))
	assert.Equal(t, Message{Role: RoleCompactionSummary, Timestamp: 1748772009000, Extra: &MessageExtra{Summary: "C1", TokensBefore: 5000}}, c.Messages[0].Message)
	assert.Equal(t, "", c.Messages[0].EntryID)
	assert.Equal(t, u2.ID, c.Messages[1].EntryID)

	// The latest compaction on the path is the one that counts.
	comp2 := &Entry{Type: TypeCompaction, Fields: &EntryFields{Summary: "C2", TokensBefore: 9000}}
	u5 := msgEntry(userMsg("u5"))
	path2 := chain(u1, a1, u2, a2, cm, bs, u3, a3, comp, u4, a4, comp2, u5)
	comp.fields().FirstKeptEntryID = u2.ID
	comp2.fields().FirstKeptEntryID = u4.ID
	assert.Equal(t, []string{"compactionSummary:C2", "user:u4", "assistant:a4", "user:u5"}, texts(BuildContext(path2).Messages))

	// The kept range may reach back over an earlier compaction: that
	// compaction entry itself is not a message.
	comp2.fields().FirstKeptEntryID = a3.ID
	assert.Equal(t, []string{"compactionSummary:C2", "assistant:a3", "user:u4", "assistant:a4", "user:u5"}, texts(BuildContext(path2).Messages))

	// A firstKeptEntryId that is not before the compaction on the path
	// keeps nothing before it.
	comp2.fields().FirstKeptEntryID = "missing0"
	assert.Equal(t, []string{"compactionSummary:C2", "user:u5"}, texts(BuildContext(path2).Messages))
	comp2.fields().FirstKeptEntryID = u5.ID
	assert.Equal(t, []string{"compactionSummary:C2", "user:u5"}, texts(BuildContext(path2).Messages))

	// A compaction on another branch does not count.
	s := CreateInMemory("/w")
	x := mustAppend(t, s, userMsg("x"))
	y := mustAppend(t, s, assistantMsg("y"))
	_, err := s.AppendCompaction("gone", y, 10, nil, false)
	require.NoError(t, err)
	require.NoError(t, s.Branch(y))
	mustAppend(t, s, userMsg("z"))
	assert.Equal(t, []string{"user:x", "assistant:y", "user:z"}, texts(s.BuildContext().Messages))
	_ = x
}

func TestConvertToLLM(t *testing.T) {
	one, zero := 1, 0
	bash := func(m Message) string {
		m.Role = RoleBashExecution
		out := ConvertToLLM([]Message{m})
		require.Len(t, out, 1)
		require.Equal(t, RoleUser, out[0].Role)
		require.Len(t, out[0].Content, 1)
		return out[0].Content[0].Text
	}
	assert.Equal(t, "Ran `ls`\n```\na\nb\n```", bash(Message{Extra: &MessageExtra{Command: "ls", Output: "a\nb", ExitCode: &zero}}))
	assert.Equal(t, "Ran `true`\n(no output)", bash(Message{Extra: &MessageExtra{Command: "true"}}))
	assert.Equal(t, "Ran `false`\n(no output)\n\nCommand exited with code 1", bash(Message{Extra: &MessageExtra{Command: "false", ExitCode: &one}}))
	assert.Equal(t, "Ran `sleep 9`\n```\npartial\n```\n\n(command cancelled)", bash(Message{Extra: &MessageExtra{Command: "sleep 9", Output: "partial", Cancelled: true, ExitCode: &one}}))
	assert.Equal(t, "Ran `cat big`\n```\ntail\n```\n\n[Output truncated. Full output: /tmp/o.log]", bash(Message{Extra: &MessageExtra{Command: "cat big", Output: "tail", Truncated: true, FullOutputPath: "/tmp/o.log"}}))
	assert.Equal(t, "Ran `cat big`\n```\ntail\n```", bash(Message{Extra: &MessageExtra{Command: "cat big", Output: "tail", Truncated: true}}), "no path, no note")

	msgs := []Message{
		*userMsg("u"),
		*assistantMsg("a"),
		{Role: RoleToolResult, ToolCallID: "c", Content: []ContentBlock{{Type: BlockText, Text: "r"}}, Timestamp: 3},
		{Role: RoleBashExecution, Timestamp: 4, Extra: &MessageExtra{Command: "secret", Output: "x", ExcludeFromContext: true}},
		{Role: RoleCustom, Content: []ContentBlock{{Type: BlockText, Text: "str"}}, ContentIsString: true, Timestamp: 5, Extra: &MessageExtra{CustomType: "k", Display: true}},
		{Role: RoleCustom, Content: []ContentBlock{{Type: BlockText, Text: "t"}, {Type: BlockImage, Extra: &BlockExtra{Data: "d", MimeType: "image/png"}}}, Timestamp: 6, Extra: &MessageExtra{CustomType: "k"}},
		{Role: RoleBranchSummary, Timestamp: 7, Extra: &MessageExtra{Summary: "B", FromID: "x"}},
		{Role: RoleCompactionSummary, Timestamp: 8, Extra: &MessageExtra{Summary: "C", TokensBefore: 1}},
		{Role: "hookMessage", Timestamp: 9},
	}
	out := ConvertToLLM(msgs)
	require.Len(t, out, 7)
	assert.Equal(t, msgs[0], out[0])
	assert.Equal(t, msgs[1], out[1])
	assert.Equal(t, msgs[2], out[2])
	assert.Equal(t, Message{Role: RoleUser, Content: []ContentBlock{{Type: BlockText, Text: "str"}}, Timestamp: 5}, out[3])
	b, err := out[3].MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, `{"role":"user","content":[{"type":"text","text":"str"}],"timestamp":5}`, string(b), "string content becomes a text block")
	assert.Equal(t, Message{Role: RoleUser, Content: msgs[5].Content, Timestamp: 6}, out[4])
	assert.Equal(t, Message{Role: RoleUser, Content: []ContentBlock{{Type: BlockText, Text: "The following is a summary of a branch that this conversation came back from:\n\n<summary>\nB</summary>"}}, Timestamp: 7}, out[5])
	assert.Equal(t, Message{Role: RoleUser, Content: []ContentBlock{{Type: BlockText, Text: "The conversation history before this point was compacted into the following summary:\n\n<summary>\nC\n</summary>"}}, Timestamp: 8}, out[6])
}

// TestSeed000Linear is the complex compaction + /pop scenario of
// seeds/000 as the entries a stacking hook writes: stack_pop is an
// unknown entry type to the core, so without the hook the pop is undone
// (the seed's "Session Resumed Without Hook"), and the later compaction
// replaces everything before msg11 (the seed's final result).
func TestSeed000Linear(t *testing.T) {
	m := func(n int) *Entry {
		if n%2 == 1 {
			return msgEntry(userMsg(fmt.Sprintf("msg%d", n)))
		}
		return msgEntry(assistantMsg(fmt.Sprintf("msg%d", n)))
	}
	msg := map[int]*Entry{}
	for i := 1; i <= 12; i++ {
		msg[i] = m(i)
	}
	c1 := &Entry{Type: TypeCompaction, Fields: &EntryFields{Summary: "C1", TokensBefore: 100}}
	pop := &Entry{Type: "stack_pop", Raw: []byte(`{"type":"stack_pop","backToIndex":2,"summary":"S1","prePopSummary":"P1"}`)}
	c2 := &Entry{Type: TypeCompaction, Fields: &EntryFields{Summary: "C2", TokensBefore: 200}}

	// Compaction triggers after msg5, keeping msg4 on: [C1, msg4, msg5].
	path := chain(msg[1], msg[2], msg[3], msg[4], msg[5], c1)
	c1.fields().FirstKeptEntryID = msg[4].ID
	assert.Equal(t, []string{"compactionSummary:C1", "assistant:msg4", "user:msg5"}, texts(BuildContext(path).Messages))

	// The user continues: [C1, msg4, msg5, msg6, msg7].
	path = chain(msg[1], msg[2], msg[3], msg[4], msg[5], c1, msg[6], msg[7])
	assert.Equal(t, []string{"compactionSummary:C1", "assistant:msg4", "user:msg5", "assistant:msg6", "user:msg7"}, texts(BuildContext(path).Messages))

	// /pop to msg2 writes stack_pop; the core skips it (the hook's
	// context handler would give [P1, S1, msg10+]).
	path = chain(msg[1], msg[2], msg[3], msg[4], msg[5], c1, msg[6], msg[7], pop, msg[10])
	assert.Equal(t, []string{"compactionSummary:C1", "assistant:msg4", "user:msg5", "assistant:msg6", "user:msg7", "assistant:msg10"}, texts(BuildContext(path).Messages))

	// Another compaction keeping msg11 on: [C2, msg11, msg12].
	path = chain(msg[1], msg[2], msg[3], msg[4], msg[5], c1, msg[6], msg[7], pop, msg[10], msg[11], msg[12], c2)
	c2.fields().FirstKeptEntryID = msg[11].ID
	assert.Equal(t, []string{"compactionSummary:C2", "user:msg11", "assistant:msg12"}, texts(BuildContext(path).Messages))
}

// TestSeed000Tree is the same scenario with the session tree, where /pop
// is a branch with summary: the pop goes back before msg2 (its parent,
// msg1, becomes the leaf) and summarises msg2..msg7 as S1. The path back
// to msg1 does not contain the compaction, so no pre-pop summary is
// needed: msg1 itself is in the context.
func TestSeed000Tree(t *testing.T) {
	s := CreateInMemory("/w")
	id := map[int]string{}
	add := func(n int) {
		if n%2 == 1 {
			id[n] = mustAppend(t, s, userMsg(fmt.Sprintf("msg%d", n)))
		} else {
			id[n] = mustAppend(t, s, assistantMsg(fmt.Sprintf("msg%d", n)))
		}
	}
	for n := 1; n <= 5; n++ {
		add(n)
	}
	_, err := s.AppendCompaction("C1", id[4], 100, nil, false)
	require.NoError(t, err)
	assert.Equal(t, []string{"compactionSummary:C1", "assistant:msg4", "user:msg5"}, texts(s.BuildContext().Messages))
	add(6)
	add(7)
	assert.Equal(t, []string{"compactionSummary:C1", "assistant:msg4", "user:msg5", "assistant:msg6", "user:msg7"}, texts(s.BuildContext().Messages))

	// /pop to msg2.
	_, err = s.BranchWithSummary(id[1], "S1", nil, true)
	require.NoError(t, err)
	assert.Equal(t, []string{"user:msg1", "branchSummary:S1"}, texts(s.BuildContext().Messages))
	add(10)
	add(11)
	add(12)
	assert.Equal(t, []string{"user:msg1", "branchSummary:S1", "assistant:msg10", "user:msg11", "assistant:msg12"}, texts(s.BuildContext().Messages))

	// Another compaction keeping msg11 on: [C2, msg11, msg12].
	_, err = s.AppendCompaction("C2", id[11], 200, nil, false)
	require.NoError(t, err)
	ctx := s.BuildContext()
	assert.Equal(t, []string{"compactionSummary:C2", "user:msg11", "assistant:msg12"}, texts(ctx.Messages))
	assert.Equal(t, 200, ctx.Messages[0].Message.TokensBefore())

	// The popped branch is still in the file: going back to msg7 brings
	// the first compaction's context back.
	require.NoError(t, s.Branch(id[7]))
	assert.Equal(t, []string{"compactionSummary:C1", "assistant:msg4", "user:msg5", "assistant:msg6", "user:msg7"}, texts(s.BuildContext().Messages))
}

func TestPiV3Context(t *testing.T) {
	s, err := Load("testdata/pi-v3.jsonl")
	require.NoError(t, err)

	// Leaf: the last entry, after a root branch summary with no text.
	c := s.BuildContext()
	assert.Equal(t, []string{"assistant:Hi again"}, texts(c.Messages))
	assert.Equal(t, "openai/gpt-5", c.Provider+"/"+c.ModelID)
	assert.Equal(t, "off", c.ThinkingLevel)

	// The compacted branch.
	require.NoError(t, s.Branch("a9b0c1d2"))
	c = s.BuildContext()
	assert.Equal(t, []string{
		"compactionSummary:## Goal\nFix the parser.\n\n<read-files>\nsrc/a b.ts\n</read-files>",
		"assistant:Done. Costs 0.000123 $.", "bashExecution:make test", "bashExecution:sleep 100",
		"custom:Remembered: the user prefers tabs.\u2028Second line.", "custom:TODO list",
		"user:plain string content with \"quotes\" and \\ and \u2029", "assistant:",
	}, texts(c.Messages))
	assert.Equal(t, "medium", c.ThinkingLevel)
	assert.Equal(t, "anthropic/claude-sonnet-4-5", c.Provider+"/"+c.ModelID)
	assert.Equal(t, int64(1748772022212), c.Messages[0].Message.Timestamp)

	var plain []Message
	for _, m := range c.Messages {
		plain = append(plain, m.Message)
	}
	llm := ConvertToLLM(plain)
	require.Len(t, llm, 7, "the excluded bash execution is dropped")
	assert.Equal(t, "Ran `make test`\n```\nFAIL\tpkg\t0.01s\n\n```\n\nCommand exited with code 2\n\n[Output truncated. Full output: /tmp/pi-bash-1.log]", llm[2].Content[0].Text)

	// The branch that came back with a summary.
	require.NoError(t, s.Branch("d2e3f4a5"))
	assert.Equal(t, []string{"user:" + s.Get("c3d4e5f6").Message.Text(), "assistant:I'll read it.",
		"branchSummary:The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\nTried X.",
		"custom:from a v2 hookMessage"}, texts(s.BuildContext().Messages))
}

func TestEstimateTokens(t *testing.T) {
	assert.Equal(t, 1, EstimateTokens(userMsg("abcd")))
	assert.Equal(t, 2, EstimateTokens(userMsg("abcde")))
	assert.Equal(t, 1, EstimateTokens(userMsg("😀😀")), "UTF-16 code units, as JavaScript counts")
	a := &Message{Role: RoleAssistant, Content: []ContentBlock{
		{Type: BlockThinking, Thinking: "1234"},
		{Type: BlockText, Text: "1234"},
		{Type: BlockToolCall, Name: "read", Arguments: json.RawMessage(`{ "p" : 1 }`)},
	}}
	assert.Equal(t, 5, EstimateTokens(a), `4 + 4 + "read" + {"p":1}`)
	img := &Message{Role: RoleToolResult, Content: []ContentBlock{{Type: BlockImage}, {Type: BlockText, Text: "abcd"}}}
	assert.Equal(t, 1201, EstimateTokens(img))
	assert.Equal(t, 2, EstimateTokens(&Message{Role: RoleBashExecution, Extra: &MessageExtra{Command: "ls", Output: "abcdef"}}))
	assert.Equal(t, 1, EstimateTokens(&Message{Role: RoleCompactionSummary, Extra: &MessageExtra{Summary: "abc"}}))
	assert.Equal(t, 0, EstimateTokens(&Message{Role: "other", Extra: &MessageExtra{Summary: "abc"}}))
}

func TestContextLenAndTail(t *testing.T) {
	var long []*Entry
	for i := range 60 {
		long = append(long, msgEntry(userMsg(fmt.Sprintf("u%d", i))), msgEntry(assistantMsg(fmt.Sprintf("a%d", i))))
		if i%7 == 3 {
			long = append(long, &Entry{Type: TypeCustomMessage, Fields: &EntryFields{CustomType: "note", Content: []ContentBlock{{Type: BlockText, Text: "n"}}}},
				&Entry{Type: TypeLabel, Fields: &EntryFields{TargetID: "x"}}, &Entry{Type: TypeBranchSummary, Fields: &EntryFields{FromID: "x"}})
		}
	}
	comp := &Entry{Type: TypeCompaction, Fields: &EntryFields{Summary: "C"}}
	compacted := append(append([]*Entry{}, long[:50]...), comp)
	compacted = append(compacted, long[50:]...)
	paths := map[string][]*Entry{"empty": nil, "short": long[:3], "long": chain(long...), "compacted": chain(compacted...)}
	comp.fields().FirstKeptEntryID = long[40].ID
	users := func(m *Message) bool { return m.Role == RoleUser }
	all := func(*Message) bool { return true }
	for name, path := range paths {
		whole := BuildContext(path).Messages
		assert.Equal(t, len(whole), ContextLen(path), name)
		for _, n := range []int{0, 1, 3, 10, 80, 200} {
			for _, keep := range []func(*Message) bool{users, all} {
				tail := ContextTail(path, n, keep)
				require.LessOrEqual(t, len(tail), len(whole), "%s n=%d", name, n)
				assert.Equal(t, texts(whole[len(whole)-len(tail):]), texts(tail), "%s n=%d: the end of the context", name, n)
				kept, wholeKept := 0, 0
				for i := range tail {
					if keep(&tail[i].Message) {
						kept++
					}
				}
				for i := range whole {
					if keep(&whole[i].Message) {
						wholeKept++
					}
				}
				assert.GreaterOrEqual(t, kept, min(n, wholeKept), "%s n=%d", name, n)
				if n <= 3 && name != "short" && name != "empty" {
					assert.Less(t, len(tail), len(whole), "%s n=%d: a few messages need a few entries", name, n)
				}
			}
		}
	}
}
