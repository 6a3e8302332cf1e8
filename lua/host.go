package lua

// This file defines what the runtime needs from the application: the Host
// (session access, sending, model calls, model switching, UI, ...). Package
// main implements it; NopHost answers "not available" everywhere and is
// meant to be embedded by partial implementations and used by tests and
// `lunar hooks check`.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/session/export/ansi"
)

// ErrNotAvailable is what NopHost answers for every action. Hosts return
// it (or wrap it) for actions they cannot perform in their mode.
var ErrNotAvailable = errors.New("not available")

// Session is the part of the session store hooks can reach. *session.Session
// implements it.
type Session interface {
	ID() string
	File() string
	// Entries returns every entry in file order.
	Entries() []*session.Entry
	// Path returns the entries from the root to id ("" = the leaf).
	Path(id string) []*session.Entry
	Get(id string) *session.Entry
	LeafID() string
	// Label returns the current label of an entry ("" for none).
	Label(id string) string
	// SetLabel appends a label entry ("" clears) and returns its id.
	SetLabel(id, label string) (string, error)
	// SetName appends a session_info entry naming the session ("" clears)
	// and returns its id.
	SetName(name string) (string, error)
	// Name is the session's current name ("" for none).
	Name() string
	// AppendCustom appends a custom entry (hook state, never sent to the model).
	AppendCustom(customType string, data json.RawMessage) (string, error)
	// AppendCustomMessage appends a custom_message entry (sent to the model).
	AppendCustomMessage(customType string, content []session.ContentBlock, display bool, details json.RawMessage) (string, error)
}

// UI is how hooks talk to the user (ctx.ui). The REPL implements it with
// numbered prompts; without a terminal HasUI is false, dialogs answer
// nothing (confirm: false) and notifications go to stderr.
type UI interface {
	HasUI() bool
	Select(title string, options []string) (string, bool)
	Confirm(title, message string) bool
	Input(title, placeholder string) (string, bool)
	Notify(message, level string)
	SetEditorText(text string)
	EditorText() string
	// Print shows text as it is (ctx.ui.print): through the REPL's
	// renderer, so the prompt line stays whole; on stderr without a UI.
	Print(text string)
}

// Attachment is a file or an image sent with lunar.send.
type Attachment struct {
	Path  string                // a file to attach (text, or an image by extension)
	Image *session.ContentBlock // an image part given inline
}

// CompleteRequest is one model call made by lunar.complete.
type CompleteRequest struct {
	Prompt    string            // set when called with a string
	Messages  []session.Message // set when called with messages
	Model     string            // "provider/id", "" = the current model
	System    string
	MaxTokens int
	// ThinkingLevel is the call's thinking level ("" = off); it applies
	// when the model can reason.
	ThinkingLevel string
}

// Host is everything app-specific the hooks reach through ctx and the
// lunar module. Methods taking a context are called from inside a handler:
// the context carries the handler's deadline and cancellation, and must be
// passed on to any hook event the method fires (it lets the runtime
// re-enter the calling hook's state on the same goroutine). Such callbacks
// must happen synchronously, on the calling goroutine.
type Host interface {
	// Cwd is the working folder.
	Cwd() string
	// Session is the current session; nil when there is none.
	Session() Session
	// Model and ThinkingLevel are the current settings.
	Model() agent.Model
	ThinkingLevel() string
	// UI is never nil (a no-UI implementation in one-shot mode).
	UI() UI

	// Send submits text as the user's next prompt (queued while a run is
	// busy), as it is: a "/command" line is text for the model too, as
	// with pi's sendUserMessage.
	Send(ctx context.Context, text string, attachments []Attachment) error
	// SendCommand queues a "/name args" line to run as if the user typed
	// it, once the current step ends (lunar.send with command = true).
	SendCommand(ctx context.Context, line string) error
	// Steer queues text into the running turn (lunar.send with deliver =
	// "steer"): it is added before the next model call. Idle, it is Send.
	Steer(ctx context.Context, text string, attachments []Attachment) error
	// Idle reports whether no agent run is in progress (ctx.is_idle).
	Idle() bool
	// Queued is the prompts waiting in the running agent's steering and
	// follow-up queues, in delivery order (ctx.queued).
	Queued() (steering, followUp []string)
	// SystemPrompt is the system prompt of the next model call, after the
	// chat.system.transform hooks (ctx.get_system_prompt).
	SystemPrompt(ctx context.Context) (string, error)
	// SendMessage appends a custom_message; triggerTurn runs the agent on it.
	SendMessage(ctx context.Context, msg agent.CustomMessage, triggerTurn bool) error
	// Complete makes one model call and returns its text.
	Complete(ctx context.Context, req CompleteRequest) (string, error)
	// CheckExec decides whether lunar.exec may run a command (nil = yes).
	CheckExec(cmd string, args []string, dir string) error

	// FindModel, AvailableModels and ResolveAPIKey serve ctx.models.
	FindModel(provider, id string) (agent.Model, bool)
	AvailableModels() []agent.Model
	ResolveAPIKey(m agent.Model) (string, error)

	// NewSession starts a new session (a command's ctx.new_session), with
	// the current session as its parentSession when withParent.
	NewSession(ctx context.Context, withParent bool) error

	// SetModel, SetThinkingLevel and Abort serve command handlers.
	SetModel(ctx context.Context, provider, id string) error
	SetThinkingLevel(ctx context.Context, level string) error
	Abort()

	// Branch moves the leaf to targetID (firing the branch events), with a
	// branch summary when summary is non-empty.
	Branch(ctx context.Context, targetID, summary string) error
	// Compact compacts the session now (reason "hook").
	Compact(ctx context.Context, instructions string) error
	// RebuildContext builds the context, runs the context hooks and returns
	// the message count and estimated tokens.
	RebuildContext(ctx context.Context) (messages, tokens int, err error)
	// TokenUsage is the session's token usage so far; ok false if unknown.
	TokenUsage() (usage agent.TokenStats, ok bool)
	// ContextLimit is the current model's context window.
	ContextLimit() int
	// ToolRegistry is the session's tool set (lunar.tools, enable_tool,
	// builtin_tool); nil: lunar's default built-ins, fixed.
	ToolRegistry() ToolRegistry
}

// NopHost is a Host without a session, UI or models: queries answer
// nothing and actions fail with ErrNotAvailable. Embed it to implement only
// part of Host.
type NopHost struct{}

var _ Host = NopHost{}

// Cwd implements Host.
func (NopHost) Cwd() string { return "" }

// Session implements Host.
func (NopHost) Session() Session { return nil }

// Model implements Host.
func (NopHost) Model() agent.Model { return agent.Model{} }

// ThinkingLevel implements Host.
func (NopHost) ThinkingLevel() string { return string(agent.ThinkingOff) }

// UI implements Host.
func (NopHost) UI() UI { return NoUI{} }

// Send implements Host.
func (NopHost) Send(context.Context, string, []Attachment) error { return ErrNotAvailable }
func (NopHost) SendCommand(context.Context, string) error        { return ErrNotAvailable }

// Steer implements Host.
func (NopHost) Steer(context.Context, string, []Attachment) error { return ErrNotAvailable }

// Idle implements Host.
func (NopHost) Idle() bool { return true }

// Queued implements Host: nothing queued.
func (NopHost) Queued() (steering, followUp []string) { return nil, nil }

// SystemPrompt implements Host.
func (NopHost) SystemPrompt(context.Context) (string, error) { return "", ErrNotAvailable }

// SendMessage implements Host.
func (NopHost) SendMessage(context.Context, agent.CustomMessage, bool) error {
	return ErrNotAvailable
}

// Complete implements Host.
func (NopHost) Complete(context.Context, CompleteRequest) (string, error) {
	return "", ErrNotAvailable
}

// CheckExec implements Host: NopHost allows every command.
func (NopHost) CheckExec(string, []string, string) error { return nil }

// FindModel implements Host.
func (NopHost) FindModel(string, string) (agent.Model, bool) { return agent.Model{}, false }

// AvailableModels implements Host.
func (NopHost) AvailableModels() []agent.Model { return nil }

// ResolveAPIKey implements Host.
func (NopHost) ResolveAPIKey(agent.Model) (string, error) { return "", ErrNotAvailable }

// SetModel implements Host.
func (NopHost) SetModel(context.Context, string, string) error { return ErrNotAvailable }

// NewSession implements Host.
func (NopHost) NewSession(context.Context, bool) error { return ErrNotAvailable }

// SetThinkingLevel implements Host.
func (NopHost) SetThinkingLevel(context.Context, string) error { return ErrNotAvailable }

// Abort implements Host.
func (NopHost) Abort() {}

// Branch implements Host.
func (NopHost) Branch(context.Context, string, string) error { return ErrNotAvailable }

// Compact implements Host.
func (NopHost) Compact(context.Context, string) error { return ErrNotAvailable }

// RebuildContext implements Host.
func (NopHost) RebuildContext(context.Context) (int, int, error) { return 0, 0, ErrNotAvailable }

// TokenUsage implements Host.
func (NopHost) TokenUsage() (agent.TokenStats, bool) { return agent.TokenStats{}, false }

// ContextLimit implements Host.
func (NopHost) ContextLimit() int { return 0 }

// ToolRegistry implements Host.
func (NopHost) ToolRegistry() ToolRegistry { return nil }

// NoUI is the UI without a terminal: dialogs answer nothing, confirm
// answers false (a permission gate denies), notifications go to stderr.
type NoUI struct {
	// Notifier, when set, receives notifications instead of stderr.
	Notifier func(message, level string)
}

// HasUI implements UI.
func (NoUI) HasUI() bool { return false }

// Select implements UI.
func (NoUI) Select(string, []string) (string, bool) { return "", false }

// Confirm implements UI.
func (NoUI) Confirm(string, string) bool { return false }

// Input implements UI.
func (NoUI) Input(string, string) (string, bool) { return "", false }

// Notify implements UI.
func (u NoUI) Notify(message, level string) {
	if u.Notifier != nil {
		u.Notifier(message, level)
		return
	}
	if level == "" {
		level = "info"
	}
	fmt.Fprintf(os.Stderr, "[%s] %s\n", ansi.Sanitize(level), ansi.Sanitize(message))
}

// Print implements UI: text on stderr, sanitised (see ansi.Sanitize), or
// the Notifier's (level "print").
func (u NoUI) Print(text string) {
	if u.Notifier != nil {
		u.Notifier(text, "print")
		return
	}
	fmt.Fprintln(os.Stderr, strings.TrimRight(ansi.Sanitize(text), "\n"))
}

// SetEditorText implements UI.
func (NoUI) SetEditorText(string) {}

// EditorText implements UI.
func (NoUI) EditorText() string { return "" }
