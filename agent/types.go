package agent

// The types every part of the loop shares: models, requests, stream
// events, tools, loop events and the Hooks interface that the Lua runtime
// implements.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/lunar-cli/lunar/agent/compaction"
	"github.com/lunar-cli/lunar/session"
)

// Wire APIs.
const (
	APIOpenAICompletions = "openai-completions"
	APIAnthropicMessages = "anthropic-messages"
)

// ThinkingLevel is how much a model reasons before it answers: one of
// ThinkingLevels. ParseThinkingLevel is the one check of a level that
// comes from outside (flags, config, a hook, a model pattern).
type ThinkingLevel string

// Thinking levels.
const (
	ThinkingOff     ThinkingLevel = "off"
	ThinkingMinimal ThinkingLevel = "minimal"
	ThinkingLow     ThinkingLevel = "low"
	ThinkingMedium  ThinkingLevel = "medium"
	ThinkingHigh    ThinkingLevel = "high"
)

// ModelCost is the price of a model in dollars per million tokens.
type ModelCost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
}

// Model describes one model of one provider.
type Model struct {
	Provider      string            `json:"provider"`
	ID            string            `json:"id"`
	API           string            `json:"api"`
	BaseURL       string            `json:"base_url"`
	ContextWindow int               `json:"context_window"`
	MaxTokens     int               `json:"max_tokens"`
	Reasoning     bool              `json:"reasoning"`
	Cost          ModelCost         `json:"cost"`
	Headers       map[string]string `json:"headers,omitempty"`
	// Input are the kinds of input the model takes, pi's "text" and
	// "image" (InputText, InputImage). A model without InputImage gets
	// each run of images as a placeholder text (see TakesImages).
	Input []string `json:"input,omitempty"`
}

// The kinds of input a model takes (Model.Input), as pi names them.
const (
	InputText  = "text"
	InputImage = "image"
)

// TakesImages reports whether the model takes images; the images of a
// conversation sent to one that does not become placeholder texts, as
// pi sends them.
func (m Model) TakesImages() bool {
	for _, in := range m.Input {
		if in == InputImage {
			return true
		}
	}
	return false
}

// ParseInput checks the kinds of input a model takes (a config's
// "input"): only InputText and InputImage, each once.
func ParseInput(input []string) error {
	for i, in := range input {
		if in != InputText && in != InputImage {
			return fmt.Errorf("%q is not %q or %q", in, InputText, InputImage)
		}
		for _, prev := range input[:i] {
			if prev == in {
				return fmt.Errorf("%q is given twice", in)
			}
		}
	}
	return nil
}

// ToolSpec is what a model is told about a tool.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  json.RawMessage // JSON schema object
}

// Params are the sampling parameters of a request; hooks may change them
// (chat.params).
type Params struct {
	Temperature   *float64       `json:"temperature,omitempty"`
	MaxTokens     int            `json:"max_tokens,omitempty"`
	TopP          *float64       `json:"top_p,omitempty"`
	ThinkingLevel ThinkingLevel  `json:"thinking_level"`
	Extra         map[string]any `json:"extra,omitempty"` // merged into the request body
}

// Request is one model call. Messages contain only the roles a provider
// understands (user, assistant, toolResult): see session.ConvertToLLM.
type Request struct {
	Model        Model
	APIKey       string
	Headers      map[string]string
	SystemPrompt string
	Messages     []session.Message
	// MessageRefs, when not nil, are the messages instead of Messages: the
	// same by reference (read only). The loop passes a session's context
	// this way, so that a long one is not copied for every call.
	MessageRefs []*session.Message
	Tools       []ToolSpec
	Params      Params
	// SessionID is the id of the session the call continues ("" for none):
	// OpenAI keys its prompt cache by it (prompt_cache_key), as from pi.
	SessionID string
	// BeforeSend, when set, is given the body about to be sent to url and
	// may return another (nil keeps it); the body is then built whole in
	// memory, whatever its size (provider.request hooks).
	BeforeSend func(ctx context.Context, url string, body []byte) []byte
	// AfterResponse, when set, receives the status and headers of every
	// response from url, retries included, before its body is read
	// (provider.response hooks).
	AfterResponse func(ctx context.Context, url string, status int, header http.Header)
}

// Stream event types, as pi's assistantMessageEvent.
const (
	StreamStart         = "start"
	StreamTextStart     = "text_start"
	StreamTextDelta     = "text_delta"
	StreamTextEnd       = "text_end"
	StreamThinkingStart = "thinking_start"
	StreamThinkingDelta = "thinking_delta"
	StreamThinkingEnd   = "thinking_end"
	StreamToolCallStart = "toolcall_start"
	StreamToolCallDelta = "toolcall_delta"
	StreamToolCallEnd   = "toolcall_end"
)

// StreamEvent is one incremental update of an assistant message while it
// streams. Partial is the message so far; it is only valid during the
// callback that receives it.
type StreamEvent struct {
	Type         string
	ContentIndex int
	Delta        string
	Partial      *session.Message
}

// Provider streams one assistant message for a request.
//
// Stream always returns a message: on failure it is the partial message
// with StopReason "error" (or "aborted" when ctx was cancelled) and
// ErrorMessage set, and the error is returned as well. Usage and cost are
// filled in from the provider's report and the model's prices.
type Provider interface {
	Stream(ctx context.Context, req *Request, emit func(StreamEvent)) (*session.Message, error)
}

// ToolResult is what a tool returns to the model.
type ToolResult struct {
	Content []session.ContentBlock
	Details json.RawMessage
	IsError bool
	// Terminate asks to end the run after this tool batch: when every
	// result of the batch terminates, no further model call follows (pi's
	// terminate, e.g. a final structured-output tool). It is not stored.
	Terminate bool
}

// TextResult is a ToolResult holding one text block.
func TextResult(text string, isError bool) ToolResult {
	return ToolResult{Content: []session.ContentBlock{{Type: session.BlockText, Text: text}}, IsError: isError}
}

// Tool is a tool the model may call. Arguments are validated against
// Parameters before Execute runs; Execute errors become error results.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage // JSON schema object
	// Source is who provides the tool: "" for lunar's built-ins, else the
	// hook (its file name) that registered it.
	Source string
	// ReadOnly: the tool does not change its environment, as its provider
	// says (an MCP server's readOnlyHint); the permission policy may let it
	// run in read-only mode. Built-ins leave it false: the policy knows
	// them by name.
	ReadOnly bool
	// PromptSnippet, when set, is the tool's line in the system prompt's
	// tool list instead of its description's first sentence (pi's
	// promptSnippet); PromptGuidelines are bullets added to the prompt's
	// guidelines while the tool is offered (pi's promptGuidelines). A
	// custom system prompt (--system-prompt) has neither, as in pi.
	PromptSnippet    string
	PromptGuidelines []string
	// Execute runs the tool. onUpdate (may be nil) reports partial output.
	Execute func(ctx context.Context, callID string, args json.RawMessage, onUpdate func(ToolResult)) (ToolResult, error)
}

// Loop event types, as pi's --mode json event names.
const (
	EventAgentStart          = "agent_start"
	EventAgentEnd            = "agent_end"
	EventTurnStart           = "turn_start"
	EventTurnEnd             = "turn_end"
	EventMessageStart        = "message_start"
	EventMessageUpdate       = "message_update"
	EventMessageEnd          = "message_end"
	EventToolExecutionStart  = "tool_execution_start"
	EventToolExecutionUpdate = "tool_execution_update"
	EventToolExecutionEnd    = "tool_execution_end"
)

// TokenStats summarises token use for turn_end and agent_end.
type TokenStats struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cache_read"`
	CacheWrite int `json:"cache_write"`
	Total      int `json:"total"`
}

// add counts the usage of one reply (nil: nothing). Total grows by the
// provider's total, or by the sum of the parts when it gave none
// (compaction.ContextTokens).
func (t *TokenStats) add(u *session.Usage) {
	if u == nil {
		return
	}
	t.Input += u.Input
	t.Output += u.Output
	t.CacheRead += u.CacheRead
	t.CacheWrite += u.CacheWrite
	t.Total += compaction.ContextTokens(*u)
}

// Event is one thing that happened in the loop. Subscribers (printers, the
// REPL, hooks) receive every event in order, on the loop's goroutine.
type Event struct {
	Type string

	Message     *session.Message // message_*, turn_end
	Stream      *StreamEvent     // message_update
	ToolCallID  string           // tool_execution_*
	ToolName    string
	Args        json.RawMessage
	Result      *ToolResult // tool_execution_update/end
	IsError     bool
	ToolResults []session.Message // turn_end
	Messages    []session.Message // agent_end: the messages of this run

	Tokens        TokenStats // turn_end, agent_end
	ContextTokens int        // turn_end, agent_end: tokens of the context now
	ContextLimit  int        // turn_end, agent_end: the model's context window
}

// ContextMessage is a context message with the entry it came from ("" for
// synthetic ones such as summaries).
type ContextMessage = session.ContextMessage

// CustomMessage is a message a hook injects (a custom_message entry).
type CustomMessage struct {
	CustomType string
	Content    []session.ContentBlock
	Display    bool
	Details    json.RawMessage
}

// message is cm as the message the loop reports and sends, stamped now.
func (cm *CustomMessage) message() session.Message {
	return session.Message{Role: session.RoleCustom, Content: cm.Content, Details: cm.Details, Timestamp: time.Now().UnixMilli(),
		Extra: &session.MessageExtra{CustomType: cm.CustomType, Display: cm.Display}}
}

// appendCustom appends cm to s as a custom_message entry.
func appendCustom(s *session.Session, cm *CustomMessage) error {
	_, err := s.AppendCustomMessage(cm.CustomType, cm.Content, cm.Display, cm.Details)
	return err
}

// AuthOverride is what an auth.get hook returns.
type AuthOverride struct {
	APIKey  string
	Headers map[string]string
	BaseURL string
}

// ToolCallDecision is what tool.execute.before hooks decide.
type ToolCallDecision struct {
	Block  bool
	Reason string
	Input  json.RawMessage // replaced input, or nil
	// Sandbox confines the processes the call starts (nil: none).
	Sandbox *Sandbox
}

// Hooks is how the loop lets user code shape a run. lunar's Lua runtime
// implements it; NopHooks does nothing. Every method must be cheap when no
// hook listens. Methods are called from the loop's goroutine.
type Hooks interface {
	// ChatMessage may rewrite user input before it is stored, or handle it
	// (handled: nothing is stored, no model is called). source is where the
	// input came from (the Source* constants).
	ChatMessage(ctx context.Context, source, text string, parts []session.ContentBlock) (newText string, newParts []session.ContentBlock, handled bool)
	// BeforeStart runs once per prompt: injected messages and a system prompt override ("" = none).
	BeforeStart(ctx context.Context, prompt string, images []session.ContentBlock, systemPrompt string) ([]CustomMessage, string)
	// Context may replace the messages of one model call (never stored).
	Context(ctx context.Context, msgs []ContextMessage) []ContextMessage
	// SystemPrompt may transform the system prompt of one model call.
	SystemPrompt(ctx context.Context, prompt string) string
	// Params may change the sampling parameters of one model call.
	Params(ctx context.Context, p Params) Params
	// ResolveModel may change the model of one model call.
	ResolveModel(ctx context.Context, m Model) Model
	// Auth may supply the key, headers or base URL of one model call.
	Auth(ctx context.Context, provider, modelID string) AuthOverride
	// BeforeTool may block a tool call or replace its input.
	BeforeTool(ctx context.Context, name, callID string, input json.RawMessage) ToolCallDecision
	// AfterTool may replace a tool's result; it runs on errors too. input
	// is what the tool ran with, original what the hooks were first asked
	// about (they differ after a BeforeTool replacement).
	AfterTool(ctx context.Context, name, callID string, input, original json.RawMessage, r ToolResult) ToolResult
	// Notify receives loop events (agent/turn start and end, ...).
	Notify(ctx context.Context, ev Event)
}

// EventListener is implemented by Hooks that can tell whether a handler
// listens to an event (by its name in docs/hooks.md, e.g. "context"). The
// loop then skips preparing what no handler reads; Hooks that do not
// implement it are given everything.
type EventListener interface {
	Listening(event string) bool
}

// LazyContextHooks is implemented by Hooks that can run the context event
// over a context built on demand. messages builds the context when a
// handler first reads it (never, when no handler does); changed is false
// when no handler replaced the messages, and the loop then hands the
// provider the stored messages by reference instead of a copy (a long
// session's context is as large as its file). out is the new context
// when changed.
type LazyContextHooks interface {
	LazyContext(ctx context.Context, messages func() []ContextMessage) (out []ContextMessage, changed bool)
}

// listening reports whether h may have a handler for event.
func listening(h Hooks, event string) bool {
	switch h := h.(type) {
	case NopHooks: // (a type embedding it may override any method)
		return false
	case EventListener:
		return h.Listening(event)
	}
	return true
}

// NopHooks is a Hooks that changes nothing.
type NopHooks struct{}

func (NopHooks) ChatMessage(_ context.Context, _, t string, p []session.ContentBlock) (string, []session.ContentBlock, bool) {
	return t, p, false
}
func (NopHooks) BeforeStart(context.Context, string, []session.ContentBlock, string) ([]CustomMessage, string) {
	return nil, ""
}
func (NopHooks) Context(_ context.Context, m []ContextMessage) []ContextMessage { return m }
func (NopHooks) SystemPrompt(_ context.Context, p string) string                { return p }
func (NopHooks) Params(_ context.Context, p Params) Params                      { return p }
func (NopHooks) ResolveModel(_ context.Context, m Model) Model                  { return m }
func (NopHooks) Auth(context.Context, string, string) AuthOverride              { return AuthOverride{} }
func (NopHooks) BeforeTool(context.Context, string, string, json.RawMessage) ToolCallDecision {
	return ToolCallDecision{}
}
func (NopHooks) AfterTool(_ context.Context, _, _ string, _, _ json.RawMessage, r ToolResult) ToolResult {
	return r
}
func (NopHooks) Notify(context.Context, Event) {}
