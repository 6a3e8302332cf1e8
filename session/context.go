package session

// Context building (pi's buildSessionContext), conversion of session
// messages to the plain user/assistant/toolResult messages models accept
// (convertToLlm), and pi's token estimate.

import (
	"math"
	"strconv"
)

// Context is what a path contributes to a model call.
type Context struct {
	Messages      []ContextMessage
	ThinkingLevel string // "off" unless the path changed it
	Provider      string // from the last model_change or assistant message; "" if none
	ModelID       string
}

// BuildContext builds the context of a path (root first), as pi does:
// thinking_level_change and model_change entries and assistant messages
// set the level and model; with a compaction on the path (the last one
// counts) the context is its summary, then the path entries before it
// from its firstKeptEntryId, then everything after it. message entries
// contribute their message, custom_message entries a custom message,
// branch_summary entries with a summary a branchSummary message; all
// other entries (custom, label, session_info, unknown types) are skipped.
func BuildContext(path []*Entry) Context {
	c := Context{ThinkingLevel: "off"}
	compaction := -1
	for i, e := range path {
		switch e.Type {
		case TypeThinkingLevelChange:
			c.ThinkingLevel = e.ThinkingLevel()
		case TypeModelChange:
			c.Provider, c.ModelID = e.Provider(), e.ModelID()
		case TypeMessage:
			if e.Message != nil && e.Message.Role == RoleAssistant {
				c.Provider, c.ModelID = e.Message.Provider, e.Message.Model
			}
		case TypeCompaction:
			compaction = i
		}
	}
	comp, kept, after := contextSpan(path, compaction)
	c.Messages = make([]ContextMessage, 0, len(kept)+len(after)+1)
	if comp != nil {
		c.Messages = append(c.Messages, ContextMessage{Message: compactionMessage(comp)})
	}
	for _, e := range kept {
		c.Messages = appendContext(c.Messages, e)
	}
	for _, e := range after {
		c.Messages = appendContext(c.Messages, e)
	}
	return c
}

// ContextLen is len(BuildContext(path).Messages), counted without
// building the context.
func ContextLen(path []*Entry) int {
	compaction := -1
	for i, e := range path {
		if e.Type == TypeCompaction {
			compaction = i
		}
	}
	comp, kept, after := contextSpan(path, compaction)
	n := 0
	if comp != nil {
		n++
	}
	for _, span := range [2][]*Entry{kept, after} {
		for _, e := range span {
			switch e.Type {
			case TypeMessage:
				if e.Message != nil {
					n++
				}
			case TypeCustomMessage:
				n++
			case TypeBranchSummary:
				if e.Summary() != "" {
					n++
				}
			}
		}
	}
	return n
}

// ContextTail is the last messages of BuildContext(path).Messages, from
// as few of the path's last entries as give at least n messages that
// keep accepts (all of the context when fewer do): a long session's
// whole context is as large as its file.
func ContextTail(path []*Entry, n int, keep func(*Message) bool) []ContextMessage {
	// After the path's last compaction, the context is the messages of
	// the entries in order: the context of a suffix of them is the end
	// of the whole.
	floor := 0
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Type == TypeCompaction {
			floor = i + 1
			break
		}
	}
	for k := 4 * (n + 1); k < len(path)-floor; k *= 2 {
		msgs := BuildContext(path[len(path)-k:]).Messages
		kept := 0
		for i := range msgs {
			if keep(&msgs[i].Message) {
				kept++
			}
		}
		if kept >= n {
			return msgs
		}
	}
	return BuildContext(path).Messages
}

// contextSpan splits a path (root first) at its compaction entry (index
// compaction, -1 for none) into what the context holds: the compaction
// (nil without one), the entries before it from its firstKeptEntryId on,
// and the entries after it.
func contextSpan(path []*Entry, compaction int) (comp *Entry, kept, after []*Entry) {
	if compaction < 0 {
		return nil, nil, path
	}
	comp = path[compaction]
	for i, e := range path[:compaction] {
		if e.ID == comp.FirstKeptEntryID() {
			kept = path[i:compaction]
			break
		}
	}
	return comp, kept, path[compaction+1:]
}

// compactionMessage is the compactionSummary message of a compaction entry.
func compactionMessage(e *Entry) Message {
	return Message{Role: RoleCompactionSummary, Timestamp: isoMillis(e.Timestamp), Extra: &MessageExtra{Summary: e.Summary(), TokensBefore: e.TokensBefore()}}
}

// LLMContext is what ConvertContextToLLM(BuildContext(path).Messages)
// returns, without copying the stored messages: the result points at the
// messages of the path's entries (read only; entries never change). Only
// the messages made along the way (summaries, custom messages, bash
// executions as user text) are new. A long session's context is sent this
// way when no hook rewrites it.
func LLMContext(path []*Entry) []*Message {
	compaction := -1
	for i, e := range path {
		if e.Type == TypeCompaction {
			compaction = i
		}
	}
	comp, kept, after := contextSpan(path, compaction)
	out := make([]*Message, 0, len(kept)+len(after)+1)
	if comp != nil {
		m := compactionMessage(comp)
		out = appendLLMRef(out, &m)
	}
	for _, span := range [2][]*Entry{kept, after} {
		for _, e := range span {
			switch e.Type {
			case TypeMessage:
				if e.Message != nil {
					out = appendLLMRef(out, e.Message)
				}
			case TypeCustomMessage, TypeBranchSummary:
				for _, cm := range appendContext(nil, e) {
					out = appendLLMRef(out, &cm.Message)
				}
			}
		}
	}
	return out
}

// ContextLLMRefs is ConvertContextToLLM returning references: messages a
// model accepts as they are point into msgs (read only), the others are
// converted.
func ContextLLMRefs(msgs []ContextMessage) []*Message {
	out := make([]*Message, 0, len(msgs))
	for i := range msgs {
		out = appendLLMRef(out, &msgs[i].Message)
	}
	return out
}

// PathSettings is what a path says without its messages: the thinking
// level and model BuildContext would report, whether a
// thinking_level_change entry set the level, and whether the context has
// any message.
type PathSettings struct {
	ThinkingLevel    string // "off" unless the path changed it
	ThinkingLevelSet bool
	Provider         string
	ModelID          string
	HasMessages      bool
}

// PathSettingsOf returns the settings of a path (root first) in one pass,
// without copying its messages.
func PathSettingsOf(path []*Entry) PathSettings {
	p := PathSettings{ThinkingLevel: "off"}
	for _, e := range path {
		switch e.Type {
		case TypeThinkingLevelChange:
			p.ThinkingLevel, p.ThinkingLevelSet = e.ThinkingLevel(), true
		case TypeModelChange:
			p.Provider, p.ModelID = e.Provider(), e.ModelID()
		case TypeMessage:
			if e.Message != nil {
				p.HasMessages = true
				if e.Message.Role == RoleAssistant {
					p.Provider, p.ModelID = e.Message.Provider, e.Message.Model
				}
			}
		case TypeCustomMessage, TypeCompaction:
			p.HasMessages = true
		case TypeBranchSummary:
			p.HasMessages = p.HasMessages || e.Summary() != ""
		}
	}
	return p
}

// appendContext adds the message an entry contributes, if any.
func appendContext(msgs []ContextMessage, e *Entry) []ContextMessage {
	switch e.Type {
	case TypeMessage:
		if e.Message != nil {
			msgs = append(msgs, ContextMessage{EntryID: e.ID, Message: *e.Message})
		}
	case TypeCustomMessage:
		msgs = append(msgs, ContextMessage{EntryID: e.ID, Message: Message{
			Role: RoleCustom, Content: e.Content(), ContentIsString: e.ContentIsString(), Details: e.Details(), Timestamp: isoMillis(e.Timestamp),
			Extra: &MessageExtra{CustomType: e.CustomType(), Display: e.Display()},
		}})
	case TypeBranchSummary:
		if e.Summary() != "" {
			msgs = append(msgs, ContextMessage{Message: Message{
				Role: RoleBranchSummary, Timestamp: isoMillis(e.Timestamp),
				Extra: &MessageExtra{Summary: e.Summary(), FromID: e.FromID()},
			}})
		}
	}
	return msgs
}

// The wrappers pi puts around summaries when sending them to a model.
const (
	CompactionSummaryPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	CompactionSummarySuffix = "\n</summary>"
	BranchSummaryPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	BranchSummarySuffix     = "</summary>"
)

// ConvertToLLM turns session messages into the user, assistant and
// toolResult messages a model accepts, as pi's convertToLlm does:
// bashExecution becomes user text (dropped when ExcludeFromContext),
// custom becomes a user message (string content as one text block),
// branch and compaction summaries become user text in pi's wrappers.
// Messages of other roles are dropped.
func ConvertToLLM(msgs []Message) []Message {
	out := make([]Message, 0, len(msgs))
	for i := range msgs {
		out = appendLLM(out, &msgs[i])
	}
	return out
}

// ConvertContextToLLM is ConvertToLLM over the messages of a context,
// without an intermediate copy (a long session's context is large).
func ConvertContextToLLM(msgs []ContextMessage) []Message {
	out := make([]Message, 0, len(msgs))
	for i := range msgs {
		out = appendLLM(out, &msgs[i].Message)
	}
	return out
}

// appendLLM appends what m becomes for a model, if anything.
func appendLLM(out []Message, m *Message) []Message {
	switch m.Role {
	case RoleUser, RoleAssistant, RoleToolResult:
		out = append(out, *m)
	case RoleBashExecution:
		if !m.ExcludeFromContext() {
			out = append(out, userText(BashExecutionText(m), m.Timestamp))
		}
	case RoleCustom:
		out = append(out, Message{Role: RoleUser, Content: m.Content, Timestamp: m.Timestamp})
	case RoleBranchSummary:
		out = append(out, userText(BranchSummaryPrefix+m.Summary()+BranchSummarySuffix, m.Timestamp))
	case RoleCompactionSummary:
		out = append(out, userText(CompactionSummaryPrefix+m.Summary()+CompactionSummarySuffix, m.Timestamp))
	}
	return out
}

// appendLLMRef appends what m becomes for a model, if anything: m itself
// when a model accepts it as it is, else a new message.
func appendLLMRef(out []*Message, m *Message) []*Message {
	switch m.Role {
	case RoleUser, RoleAssistant, RoleToolResult:
		return append(out, m)
	}
	if conv := appendLLM(nil, m); len(conv) > 0 {
		out = append(out, &conv[0])
	}
	return out
}

func userText(text string, ts int64) Message {
	return Message{Role: RoleUser, Content: []ContentBlock{{Type: BlockText, Text: text}}, Timestamp: ts}
}

// BashExecutionText is the user text pi sends for a bashExecution message.
func BashExecutionText(m *Message) string {
	text := "Ran `" + m.Command() + "`\n"
	if m.Output() != "" {
		text += "```\n" + m.Output() + "\n```"
	} else {
		text += "(no output)"
	}
	if m.Cancelled() {
		text += "\n\n(command cancelled)"
	} else if m.ExitCode() != nil && *m.ExitCode() != 0 {
		text += "\n\nCommand exited with code " + strconv.Itoa(*m.ExitCode())
	}
	if m.Truncated() && m.FullOutputPath() != "" {
		text += "\n\n[Output truncated. Full output: " + m.FullOutputPath() + "]"
	}
	return text
}

// imageChars is what pi counts for an image in the estimate.
const imageChars = 4800

// EstimateTokens is pi's token estimate of a message: ceil(chars/4), with
// chars counted in UTF-16 code units as JavaScript does. user: its text;
// assistant: text, thinking, and each tool call's name plus its JSON
// arguments; custom and toolResult: text plus 4800 per image;
// bashExecution: command plus output; summaries: the summary. Other roles
// count 0.
func EstimateTokens(m *Message) int {
	chars := 0
	switch m.Role {
	case RoleUser:
		for i := range m.Content {
			if m.Content[i].Type == BlockText {
				chars += utf16Len(m.Content[i].Text)
			}
		}
	case RoleAssistant:
		for i := range m.Content {
			b := &m.Content[i]
			switch b.Type {
			case BlockText:
				chars += utf16Len(b.Text)
			case BlockThinking:
				chars += utf16Len(b.Thinking)
			case BlockToolCall:
				chars += utf16Len(b.Name)
				if b.Arguments != nil {
					chars += jsLength(b.Arguments)
				}
			}
		}
	case RoleCustom, RoleToolResult:
		for i := range m.Content {
			switch m.Content[i].Type {
			case BlockText:
				chars += utf16Len(m.Content[i].Text)
			case BlockImage:
				chars += imageChars
			}
		}
	case RoleBashExecution:
		chars = utf16Len(m.Command()) + utf16Len(m.Output())
	case RoleBranchSummary, RoleCompactionSummary:
		chars = utf16Len(m.Summary())
	default:
		return 0
	}
	return int(math.Ceil(float64(chars) / 4))
}
