// Package session stores lunar's conversations as pi-compatible (format
// version 3) append-only JSONL trees, and builds the LLM context from them.
//
// This file holds the message types shared by every other package.
package session

import "encoding/json"

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
//	text      Text, TextSignature
//	thinking  Thinking, ThinkingSignature, Redacted
//	image     Data (base64), MimeType
//	toolCall  ID, Name, Arguments, ThoughtSignature
type ContentBlock struct {
	Type string

	Text          string
	TextSignature string

	Thinking          string
	ThinkingSignature string
	Redacted          bool

	Data     string
	MimeType string

	ID               string
	Name             string
	Arguments        json.RawMessage // a JSON object, kept verbatim so key order survives
	ThoughtSignature string
}

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
// Timestamp is Unix milliseconds.
type Message struct {
	Role string

	// Content holds the message's parts. ContentIsString records that the
	// JSON content was (and is written back as) a plain string; Content then
	// holds a single text block.
	Content         []ContentBlock
	ContentIsString bool

	API          string
	Provider     string
	Model        string
	Usage        *Usage
	StopReason   string
	ResponseID   string
	ErrorMessage string
	// ResponseModel is the model id the provider reported when it differs
	// from Model; Diagnostics is pi's provider diagnostics object, kept
	// verbatim (nil means absent).
	ResponseModel string
	Diagnostics   json.RawMessage

	ToolCallID string
	ToolName   string
	Details    json.RawMessage // any JSON value; nil means absent
	IsError    bool

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

	Timestamp int64
}

// Text returns the concatenated text blocks of the message.
func (m *Message) Text() string {
	var s string
	for _, b := range m.Content {
		if b.Type == BlockText {
			s += b.Text
		}
	}
	return s
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
