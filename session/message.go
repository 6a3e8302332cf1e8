// Package session stores lunar's conversations as pi-compatible (format
// version 3) append-only JSONL trees, and builds the LLM context from them.
//
// This file holds the message types shared by every other package.
package session

import (
	"encoding/json"
	"strings"
)

// Message roles, as pi writes them.
const (
	RoleUser              = "user"
	RoleAssistant         = "assistant"
	RoleToolResult        = "toolResult"
	RoleBashExecution     = "bashExecution"
	RoleCustom            = "custom"
	RoleBranchSummary     = "branchSummary"     // synthesized by context building, never stored
	RoleCompactionSummary = "compactionSummary" // synthesized by context building, never stored
)

// Content block types.
const (
	BlockText     = "text"
	BlockThinking = "thinking"
	BlockImage    = "image"
	BlockToolCall = "toolCall"
)

// Assistant stop reasons.
const (
	StopStop    = "stop"
	StopLength  = "length"
	StopToolUse = "toolUse"
	StopError   = "error"
	StopAborted = "aborted"
)

// ContentBlock is one part of a message's content. Which fields are used
// depends on Type:
//
//	text      Text, TextSignature?
//	thinking  Thinking, ThinkingSignature, Redacted?
//	image     Data (base64), MimeType
//	toolCall  ID, Name, Arguments, ThoughtSignature?
//
// The fields few blocks have (signatures of text and tool calls, the
// redacted mark, an image's data and type) are in Extra, nil when they
// are all zero, and read with the methods of the same names. Copies of a
// block share its Extra: give a copy a new one to change them.
type ContentBlock struct {
	Type string

	Text string

	Thinking          string
	ThinkingSignature string

	ID        string
	Name      string
	Arguments json.RawMessage // a JSON object, kept verbatim so key order survives

	Extra *BlockExtra
}

// BlockExtra holds the fields of a ContentBlock that few blocks have (see
// ContentBlock).
type BlockExtra struct {
	TextSignature    string
	Redacted         bool
	Data             string
	MimeType         string
	ThoughtSignature string
}

// noBlockExtra is what the accessors read for a block without Extra.
var noBlockExtra BlockExtra

func (b ContentBlock) x() *BlockExtra {
	if b.Extra == nil {
		return &noBlockExtra
	}
	return b.Extra
}

// extra returns c.Extra for writing, allocated when nil (for decoding).
func (c *ContentBlock) extra() *BlockExtra {
	if c.Extra == nil {
		c.Extra = new(BlockExtra)
	}
	return c.Extra
}

// WithExtra sets the fields of c's Extra that set changes on a copy of it
// (or on a new one), so that copies of c that share its Extra keep theirs.
// Extra is nil afterwards when all its fields are zero.
func (c *ContentBlock) WithExtra(set func(*BlockExtra)) {
	x := *c.x()
	set(&x)
	if x == (BlockExtra{}) {
		c.Extra = nil
	} else {
		c.Extra = &x
	}
}

// SetThoughtSignature sets ThoughtSignature (see WithExtra).
func (c *ContentBlock) SetThoughtSignature(s string) {
	c.WithExtra(func(x *BlockExtra) { x.ThoughtSignature = s })
}

// ImageBlock is an image block of base64 data.
func ImageBlock(data, mimeType string) ContentBlock {
	return ContentBlock{Type: BlockImage, Extra: &BlockExtra{Data: data, MimeType: mimeType}}
}

// TextSignature is a text block's signature.
func (b ContentBlock) TextSignature() string { return b.x().TextSignature }

// Redacted reports whether a thinking block is redacted (its signature
// holds the encrypted thinking).
func (b ContentBlock) Redacted() bool { return b.x().Redacted }

// Data is an image block's base64 data.
func (b ContentBlock) Data() string { return b.x().Data }

// MimeType is an image block's MIME type.
func (b ContentBlock) MimeType() string { return b.x().MimeType }

// ThoughtSignature is a tool call's thought signature.
func (b ContentBlock) ThoughtSignature() string { return b.x().ThoughtSignature }

// Cost is the dollar cost of a call, split like Usage.
type Cost struct {
	Input      float64
	Output     float64
	CacheRead  float64
	CacheWrite float64
	Total      float64
}

// Usage is the token usage the provider reported for one assistant message.
type Usage struct {
	Input       int
	Output      int
	CacheRead   int
	CacheWrite  int
	TotalTokens int
	Cost        Cost
}

// Message is a conversation message exactly as pi stores it inside a
// "message" entry. Which fields are used depends on Role:
//
//	user               Content, Timestamp
//	assistant          Content, API, Provider, Model, Usage, StopReason, Timestamp,
//	                   ResponseModel?, ResponseID?, Diagnostics?, ErrorMessage?
//	toolResult         ToolCallID, ToolName, Content, Details, IsError, Timestamp
//	bashExecution      Command, Output, ExitCode, Cancelled, Truncated,
//	                   FullOutputPath?, Timestamp, ExcludeFromContext?
//	custom             CustomType, Content, Display, Details?, Timestamp
//	branchSummary      Summary, FromID, Timestamp
//	compactionSummary  Summary, TokensBefore, Timestamp
//
// The fields few messages have (an assistant message's error and response
// details, and those of the rarer roles) are in Extra, nil when they are
// all zero, and read with the methods of the same names. A long session
// holds a Message for each of its entries. Copies of a message share its
// Extra: give a copy a new Extra (WithExtra) to change one of them.
//
// Timestamp is Unix milliseconds.
type Message struct {
	Role string

	// Content holds the message's parts. ContentIsString records that the
	// JSON content was (and is written back as) a plain string; Content then
	// holds a single text block.
	Content         []ContentBlock
	ContentIsString bool

	API        string
	Provider   string
	Model      string
	Usage      *Usage
	StopReason string

	ToolCallID string
	ToolName   string
	Details    json.RawMessage // any JSON value; nil means absent
	IsError    bool

	Extra *MessageExtra

	Timestamp int64
}

// MessageExtra holds the fields of a Message that few messages have (see
// Message).
type MessageExtra struct {
	ResponseID   string
	ErrorMessage string
	// ResponseModel is the model id the provider reported when it differs
	// from Model; Diagnostics is pi's provider diagnostics object, kept
	// verbatim (nil means absent).
	ResponseModel string
	Diagnostics   json.RawMessage

	Command            string
	Output             string
	ExitCode           *int
	Cancelled          bool
	Truncated          bool
	FullOutputPath     string
	ExcludeFromContext bool

	CustomType string
	Display    bool

	Summary      string
	FromID       string
	TokensBefore int
}

// noExtra is what the accessors read for a message without Extra.
var noExtra MessageExtra

func (m *Message) x() *MessageExtra {
	if m.Extra == nil {
		return &noExtra
	}
	return m.Extra
}

// extra returns m.Extra for writing, allocated when nil (for decoding and
// building messages that no one else holds).
func (m *Message) extra() *MessageExtra {
	if m.Extra == nil {
		m.Extra = new(MessageExtra)
	}
	return m.Extra
}

// WithExtra sets the fields of m's Extra that set changes on a copy of
// it (or on a new one), so that copies of m that share its Extra keep
// theirs.
func (m *Message) WithExtra(set func(*MessageExtra)) {
	x := new(MessageExtra)
	if m.Extra != nil {
		*x = *m.Extra
	}
	set(x)
	m.Extra = x
}

// SetErrorMessage sets ErrorMessage (on a new Extra: see WithExtra).
func (m *Message) SetErrorMessage(s string) {
	m.WithExtra(func(x *MessageExtra) { x.ErrorMessage = s })
}

// SetResponseID sets ResponseID (on a new Extra: see WithExtra).
func (m *Message) SetResponseID(s string) { m.WithExtra(func(x *MessageExtra) { x.ResponseID = s }) }

// ResponseID is the provider's id of an assistant message's response.
func (m *Message) ResponseID() string { return m.x().ResponseID }

// ErrorMessage is the error an assistant message ended with.
func (m *Message) ErrorMessage() string { return m.x().ErrorMessage }

// ResponseModel is the model the provider reported when it differs from
// Model.
func (m *Message) ResponseModel() string { return m.x().ResponseModel }

// Diagnostics is pi's provider diagnostics object (nil: absent).
func (m *Message) Diagnostics() json.RawMessage { return m.x().Diagnostics }

// Command is a bashExecution's command.
func (m *Message) Command() string { return m.x().Command }

// Output is a bashExecution's output.
func (m *Message) Output() string { return m.x().Output }

// ExitCode is a bashExecution's exit code (nil: none).
func (m *Message) ExitCode() *int { return m.x().ExitCode }

// Cancelled reports whether a bashExecution was cancelled.
func (m *Message) Cancelled() bool { return m.x().Cancelled }

// Truncated reports whether a bashExecution's output was truncated.
func (m *Message) Truncated() bool { return m.x().Truncated }

// FullOutputPath is where a truncated bashExecution's whole output is.
func (m *Message) FullOutputPath() string { return m.x().FullOutputPath }

// ExcludeFromContext reports whether a bashExecution stays out of the
// model's context.
func (m *Message) ExcludeFromContext() bool { return m.x().ExcludeFromContext }

// CustomType is a custom message's type.
func (m *Message) CustomType() string { return m.x().CustomType }

// Display reports whether a custom message is shown.
func (m *Message) Display() bool { return m.x().Display }

// Summary is a branchSummary's or compactionSummary's summary.
func (m *Message) Summary() string { return m.x().Summary }

// FromID is the entry a branchSummary summarises the branch from.
func (m *Message) FromID() string { return m.x().FromID }

// TokensBefore is the context's size before a compaction.
func (m *Message) TokensBefore() int { return m.x().TokensBefore }

// Text returns the concatenated text blocks of the message.
func (m *Message) Text() string { return BlocksText(m.Content) }

// BlocksText joins the text blocks of a content list.
func BlocksText(blocks []ContentBlock) string {
	var b strings.Builder
	for _, c := range blocks {
		if c.Type == BlockText {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// ToolCalls returns the toolCall blocks of an assistant message.
func (m *Message) ToolCalls() []ContentBlock {
	var calls []ContentBlock
	for _, b := range m.Content {
		if b.Type == BlockToolCall {
			calls = append(calls, b)
		}
	}
	return calls
}

// ContextMessage is a message of a built context together with the id of
// the entry it came from ("" for synthetic messages such as summaries).
type ContextMessage struct {
	EntryID string
	Message Message
}
