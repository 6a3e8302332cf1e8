// Package luatest provides in-memory fakes of what the hook runtime needs
// from the application — a Host, a Session and a UI — that record what
// hooks do, for tests of the runtime and of hooks.
package luatest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/session"
)

// Session is an in-memory lua.Session: a tree of entries with a leaf.
type Session struct {
	mu      sync.Mutex
	id      string
	file    string
	entries []*session.Entry
	byID    map[string]*session.Entry
	leaf    string
	labels  map[string]string
	name    string
	next    int
}

var _ lua.Session = (*Session)(nil)

// NewSession returns an empty session.
func NewSession(id, file string) *Session {
	return &Session{id: id, file: file, byID: map[string]*session.Entry{}, labels: map[string]string{}}
}

// ID implements lua.Session.
func (s *Session) ID() string { return s.id }

// File implements lua.Session.
func (s *Session) File() string { return s.file }

func (s *Session) append(e *session.Entry) string {
	s.next++
	e.ID = fmt.Sprintf("%08x", s.next)
	e.ParentID = s.leaf
	e.Timestamp = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(s.next) * time.Second).Format("2006-01-02T15:04:05.000Z")
	s.entries = append(s.entries, e)
	s.byID[e.ID] = e
	s.leaf = e.ID
	return e.ID
}

// AppendMessage appends a message entry and returns its id.
func (s *Session) AppendMessage(m session.Message) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.append(&session.Entry{Type: session.TypeMessage, Message: &m})
}

// SetLeaf moves the leaf (branching).
func (s *Session) SetLeaf(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leaf = id
}

// Entries implements lua.Session.
func (s *Session) Entries() []*session.Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*session.Entry(nil), s.entries...)
}

// Path implements lua.Session.
func (s *Session) Path(id string) []*session.Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == "" {
		id = s.leaf
	}
	var path []*session.Entry
	for e := s.byID[id]; e != nil; e = s.byID[e.ParentID] {
		path = append(path, e)
	}
	slices.Reverse(path)
	return path
}

// Get implements lua.Session.
func (s *Session) Get(id string) *session.Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byID[id]
}

// LeafID implements lua.Session.
func (s *Session) LeafID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.leaf
}

// Label implements lua.Session.
func (s *Session) Label(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.labels[id]
}

// SetLabel implements lua.Session.
func (s *Session) SetLabel(id, label string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byID[id] == nil {
		return "", fmt.Errorf("no entry %s", id)
	}
	if label == "" {
		delete(s.labels, id)
	} else {
		s.labels[id] = label
	}
	return s.append(&session.Entry{Type: session.TypeLabel, Fields: &session.EntryFields{TargetID: id, Label: label}}), nil
}

// SetName implements lua.Session.
func (s *Session) SetName(name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.name = name
	return s.append(&session.Entry{Type: session.TypeSessionInfo, Fields: &session.EntryFields{Name: name}}), nil
}

// Name implements lua.Session.
func (s *Session) Name() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.name
}

// AppendCustom implements lua.Session.
func (s *Session) AppendCustom(customType string, data json.RawMessage) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.append(&session.Entry{Type: session.TypeCustom, Fields: &session.EntryFields{CustomType: customType, Data: data}}), nil
}

// AppendCustomMessage implements lua.Session.
func (s *Session) AppendCustomMessage(customType string, content []session.ContentBlock, display bool, details json.RawMessage) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.append(&session.Entry{Type: session.TypeCustomMessage, Fields: &session.EntryFields{CustomType: customType, Content: content, Display: display, Details: details}}), nil
}

// Custom returns the data of the custom entries of a type, in order.
func (s *Session) Custom(customType string) []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []json.RawMessage
	for _, e := range s.entries {
		if e.Type == session.TypeCustom && e.CustomType() == customType {
			out = append(out, e.Data())
		}
	}
	return out
}

// UI is a scripted lua.UI that records what it was asked.
type UI struct {
	mu sync.Mutex
	// Interactive is HasUI's answer.
	Interactive bool
	// SelectAnswer, ConfirmAnswer and InputAnswer are the scripted replies
	// (select/input answer nothing when the answer is "").
	SelectAnswer  string
	ConfirmAnswer bool
	InputAnswer   string
	// OnDialog, when set, runs inside every dialog (e.g. to simulate a
	// user who takes time).
	OnDialog func()

	Asked   []string // "select: title", "confirm: title", "input: title"
	Options []string // the options of the last select
	Notices []string // "level: message"
	Prefill string   // the editor prefill (set_editor_text)
	// EditorAnswer is the text ctx.ui.editor returns (nil when
	// EditorCancel is set).
	EditorAnswer string
	EditorCancel bool
}

var _ lua.UI = (*UI)(nil)

func (u *UI) ask(kind, title string) {
	u.mu.Lock()
	u.Asked = append(u.Asked, kind+": "+title)
	f := u.OnDialog
	u.mu.Unlock()
	if f != nil {
		f()
	}
}

// HasUI implements lua.UI.
func (u *UI) HasUI() bool { return u.Interactive }

// Select implements lua.UI.
func (u *UI) Select(title string, options []string) (string, bool) {
	u.mu.Lock()
	u.Options = options
	u.mu.Unlock()
	u.ask("select", title)
	return u.SelectAnswer, u.SelectAnswer != ""
}

// Confirm implements lua.UI.
func (u *UI) Confirm(title, message string) bool {
	u.ask("confirm", title)
	return u.ConfirmAnswer
}

// Input implements lua.UI.
func (u *UI) Input(title, placeholder string) (string, bool) {
	u.ask("input", title)
	return u.InputAnswer, u.InputAnswer != ""
}

// Notify implements lua.UI.
func (u *UI) Notify(message, level string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.Notices = append(u.Notices, level+": "+message)
}

// Print implements lua.UI: recorded as a notice of level "print".
func (u *UI) Print(text string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.Notices = append(u.Notices, "print: "+text)
}

// SetEditorText implements lua.UI.
func (u *UI) SetEditorText(text string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.Prefill = text
}

// EditorText implements lua.UI.
func (u *UI) EditorText() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.Prefill
}

// Editor implements lua.UI: the scripted EditorAnswer.
func (u *UI) Editor(title, text string) (string, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.Asked = append(u.Asked, "editor: "+title)
	if u.EditorCancel || !u.Interactive {
		return "", false
	}
	return u.EditorAnswer, true
}

// Sent is one lunar.send call.
type Sent struct {
	Text        string
	Attachments []lua.Attachment
	Steer       bool // deliver = "steer"
	Command     bool // command = true: Text is a "/name args" line
}

// SentMessage is one lunar.send_message call.
type SentMessage struct {
	Message     agent.CustomMessage
	TriggerTurn bool
	FollowUp    bool
}

// Host is a lua.Host over a Session and a UI that records every action.
// Zero fields answer like lua.NopHost; set the func fields to script the
// model calls and the session operations.
type Host struct {
	mu sync.Mutex

	Dir  string
	Sess *Session // nil: no session
	// NewSessions records ctx.new_session calls (their parent option).
	NewSessions []bool
	ModelValue  agent.Model
	Thinking    string
	UIValue     *UI // nil: a non-interactive UI

	Models   []agent.Model
	Keys     map[string]string // "provider/id" → API key
	Usage    *agent.TokenStats
	Limit    int
	ExecDeny string // non-empty: CheckExec refuses with this message
	// Busy makes Idle false (an agent run in progress).
	Busy bool
	// QueuedSteering and QueuedFollowUp are what Queued answers.
	QueuedSteering, QueuedFollowUp []string
	// SystemPromptValue is what SystemPrompt answers.
	SystemPromptValue string
	// Tools is the tool registry hooks see (nil: lunar's default built-ins).
	Tools lua.ToolRegistry

	CompleteFunc func(ctx context.Context, req lua.CompleteRequest) (string, error)
	CompactFunc  func(ctx context.Context, instructions string) error
	BranchFunc   func(ctx context.Context, targetID, summary string) error
	RebuildFunc  func(ctx context.Context) (int, int, error)

	Sends        []Sent
	Messages     []SentMessage
	Completions  []lua.CompleteRequest
	ModelSets    []string // "provider/id"
	ThinkingSets []string
	Aborts       int
	Compactions  []string // instructions
	Branches     []string // "target:summary"
	Execs        []string // "cmd arg arg"
}

var _ lua.Host = (*Host)(nil)

// Cwd implements lua.Host.
func (h *Host) Cwd() string { return h.Dir }

// Session implements lua.Host.
func (h *Host) Session() lua.Session {
	if h.Sess == nil {
		return nil
	}
	return h.Sess
}

// Model implements lua.Host.
func (h *Host) Model() agent.Model { return h.ModelValue }

// ThinkingLevel implements lua.Host.
func (h *Host) ThinkingLevel() string {
	if h.Thinking == "" {
		return string(agent.ThinkingOff)
	}
	return h.Thinking
}

// UI implements lua.Host.
func (h *Host) UI() lua.UI {
	if h.UIValue == nil {
		return lua.NoUI{Notifier: func(string, string) {}}
	}
	return h.UIValue
}

// Steer implements lua.Host: recorded in Sends with Steer set.
func (h *Host) Steer(_ context.Context, text string, atts []lua.Attachment) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.Sends = append(h.Sends, Sent{Text: text, Attachments: atts, Steer: true})
	return nil
}

// Idle implements lua.Host: true unless Busy is set.
func (h *Host) Idle() bool { return !h.Busy }

// Queued implements lua.Host: QueuedSteering and QueuedFollowUp.
func (h *Host) Queued() (steering, followUp []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.QueuedSteering, h.QueuedFollowUp
}

// SystemPrompt implements lua.Host: SystemPromptValue.
func (h *Host) SystemPrompt(context.Context) (string, error) { return h.SystemPromptValue, nil }

// Send implements lua.Host.
func (h *Host) Send(_ context.Context, text string, atts []lua.Attachment) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.Sends = append(h.Sends, Sent{Text: text, Attachments: atts})
	return nil
}

// SendCommand implements lua.Host: the line is recorded as a Sent with
// Command set.
func (h *Host) SendCommand(_ context.Context, line string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.Sends = append(h.Sends, Sent{Text: line, Command: true})
	return nil
}

// SendMessage implements lua.Host: the message is also appended to Sess.
func (h *Host) SendMessage(_ context.Context, msg agent.CustomMessage, trigger, followUp bool) error {
	h.mu.Lock()
	h.Messages = append(h.Messages, SentMessage{Message: msg, TriggerTurn: trigger, FollowUp: followUp})
	h.mu.Unlock()
	if h.Sess != nil {
		_, err := h.Sess.AppendCustomMessage(msg.CustomType, msg.Content, msg.Display, msg.Details)
		return err
	}
	return nil
}

// Complete implements lua.Host.
func (h *Host) Complete(ctx context.Context, req lua.CompleteRequest) (string, error) {
	h.mu.Lock()
	h.Completions = append(h.Completions, req)
	f := h.CompleteFunc
	h.mu.Unlock()
	if f == nil {
		return "", lua.ErrNotAvailable
	}
	return f(ctx, req)
}

// CheckExec implements lua.Host.
func (h *Host) CheckExec(cmd string, args []string, _ string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.Execs = append(h.Execs, strings.TrimSpace(cmd+" "+strings.Join(args, " ")))
	if h.ExecDeny != "" {
		return fmt.Errorf("%s", h.ExecDeny)
	}
	return nil
}

// FindModel implements lua.Host.
func (h *Host) FindModel(provider, id string) (agent.Model, bool) {
	for _, m := range h.Models {
		if m.Provider == provider && m.ID == id {
			return m, true
		}
	}
	return agent.Model{}, false
}

// AvailableModels implements lua.Host.
func (h *Host) AvailableModels() []agent.Model { return h.Models }

// ResolveAPIKey implements lua.Host.
func (h *Host) ResolveAPIKey(m agent.Model) (string, error) {
	if k, ok := h.Keys[m.Provider+"/"+m.ID]; ok {
		return k, nil
	}
	return "", fmt.Errorf("no API key for %s", m.Provider)
}

// SetModel implements lua.Host.
func (h *Host) SetModel(_ context.Context, provider, id string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ModelSets = append(h.ModelSets, provider+"/"+id)
	h.ModelValue.Provider, h.ModelValue.ID = provider, id
	return nil
}

// SetThinkingLevel implements lua.Host.
func (h *Host) SetThinkingLevel(_ context.Context, level string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ThinkingSets = append(h.ThinkingSets, level)
	h.Thinking = level
	return nil
}

// Abort implements lua.Host.
func (h *Host) Abort() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.Aborts++
}

// NewSession implements lua.Host: it records the call and starts a fresh
// in-memory session.
func (h *Host) NewSession(_ context.Context, withParent bool) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.NewSessions = append(h.NewSessions, withParent)
	return nil
}

// Branch implements lua.Host.
func (h *Host) Branch(ctx context.Context, targetID, summary string) error {
	h.mu.Lock()
	h.Branches = append(h.Branches, targetID+":"+summary)
	f := h.BranchFunc
	h.mu.Unlock()
	if f != nil {
		return f(ctx, targetID, summary)
	}
	if h.Sess != nil {
		h.Sess.SetLeaf(targetID)
	}
	return nil
}

// Compact implements lua.Host.
func (h *Host) Compact(ctx context.Context, instructions string) error {
	h.mu.Lock()
	h.Compactions = append(h.Compactions, instructions)
	f := h.CompactFunc
	h.mu.Unlock()
	if f == nil {
		return lua.ErrNotAvailable
	}
	return f(ctx, instructions)
}

// RebuildContext implements lua.Host.
func (h *Host) RebuildContext(ctx context.Context) (int, int, error) {
	if h.RebuildFunc == nil {
		return 0, 0, lua.ErrNotAvailable
	}
	return h.RebuildFunc(ctx)
}

// TokenUsage implements lua.Host.
func (h *Host) TokenUsage() (agent.TokenStats, bool) {
	if h.Usage == nil {
		return agent.TokenStats{}, false
	}
	return *h.Usage, true
}

// ContextLimit implements lua.Host.
func (h *Host) ContextLimit() int { return h.Limit }

// ToolRegistry implements lua.Host.
func (h *Host) ToolRegistry() lua.ToolRegistry {
	if h.Tools == nil {
		return nil
	}
	return h.Tools
}

// Reports collects the runtime's reports (Options.Report) for assertions.
type Reports struct {
	mu    sync.Mutex
	lines []string
}

// Add records one report; use it as Options.Report.
func (r *Reports) Add(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, msg)
}

// Lines returns the reports so far.
func (r *Reports) Lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lines...)
}

// String joins the reports, one a line.
func (r *Reports) String() string { return strings.Join(r.Lines(), "\n") }
