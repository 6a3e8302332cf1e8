package agent

// Session-level operations of the Runtime: model and thinking changes,
// new sessions, switches, branches (with summaries), forks, labels and
// names.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/lunar-cli/lunar/agent/compaction"
	"github.com/lunar-cli/lunar/session"
)

// restore takes model and thinking level from the open session's path,
// unless the options say the front end chose them (flags). A path without
// a thinking_level_change gets the configured level, as in pi. It
// returns what the path said. The caller holds rt.mu.
func (rt *Runtime) restore() session.PathSettings {
	mustHold(&rt.mu)
	c := rt.sess.PathSettings()
	if !rt.opts.KeepModel && c.Provider != "" {
		if m, ok := rt.opts.Registry.Find(c.Provider, c.ModelID); ok {
			if _, err := rt.APIKey(m); err == nil {
				rt.model = rt.adjust(m)
			}
		}
	}
	switch {
	case rt.opts.KeepThinking:
	case c.ThinkingLevelSet:
		rt.thinking = ThinkingLevel(c.ThinkingLevel)
	default:
		rt.thinking = rt.opts.ThinkingLevel
	}
	rt.agent.Model, rt.agent.ThinkingLevel = rt.model, rt.thinking
	return c
}

func (rt *Runtime) adjust(m Model) Model {
	if rt.opts.AdjustModel != nil {
		return rt.opts.AdjustModel(m)
	}
	return m
}

// SetModel switches the model: "provider/id" (or a bare id the registry
// knows), or "next" to cycle through ModelCycle. It records a
// model_change entry and fires model.change; choosing the current model
// again does nothing.
func (rt *Runtime) SetModel(ctx context.Context, spec string) error {
	spec = strings.TrimSpace(spec)
	source := "set"
	if spec == "next" {
		source = "cycle"
		next, err := rt.NextModelSpec()
		if err != nil {
			return err
		}
		spec = next
	}
	m, err := rt.opts.Registry.Resolve(spec)
	if err != nil {
		return err
	}
	prev := rt.Model()
	// --base-url was given for the model chosen at startup; it only makes
	// sense for that model's provider.
	if m.Provider == prev.Provider {
		m = rt.adjust(m)
	}
	if m.Provider == prev.Provider && m.ID == prev.ID {
		return nil
	}
	if _, err := rt.APIKey(m); err != nil {
		return fmt.Errorf("model %s: %w", ModelSpec(m), err)
	}
	if _, err := rt.Session().AppendModelChange(m.Provider, m.ID); err != nil {
		return fmt.Errorf("model %s: %w", ModelSpec(m), err)
	}
	rt.mu.Lock()
	rt.model = m
	rt.agent.Model = m
	thinking := rt.thinking
	rt.mu.Unlock()
	rt.sessionHooks().ModelChange(ctx, prev.Provider, prev.ID, m.Provider, m.ID, string(thinking), source)
	return nil
}

// NextModelSpec is the entry after the current model in the cycle list
// (the first one when the current model is not in it).
func (rt *Runtime) NextModelSpec() (string, error) {
	var list []string
	for _, s := range rt.opts.ModelCycle {
		if s = strings.TrimSpace(s); s != "" {
			list = append(list, s)
		}
	}
	if len(list) == 0 {
		return "", errors.New(`no models to cycle through: list them under "models" in config.json`)
	}
	cur := rt.Model()
	for i, s := range list {
		if s == ModelSpec(cur) || s == cur.ID {
			return list[(i+1)%len(list)], nil
		}
	}
	return list[0], nil
}

// SetThinkingLevel changes the thinking level, recording a
// thinking_level_change entry and publishing thinking_level_changed
// (nothing happens when the level stays the same).
func (rt *Runtime) SetThinkingLevel(_ context.Context, s string) error {
	level, err := ParseThinkingLevel(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("thinking level %w", err)
	}
	if level == rt.ThinkingLevel() {
		return nil
	}
	if _, err := rt.Session().AppendThinkingLevel(string(level)); err != nil {
		return fmt.Errorf("thinking level: %w", err)
	}
	rt.mu.Lock()
	rt.thinking = level
	rt.agent.ThinkingLevel = level
	rt.mu.Unlock()
	rt.emit(RuntimeEvent{ThinkingLevel: &level})
	return nil
}

// CycleThinkingLevel moves to the next thinking level (after the highest,
// back to off) and returns it; ok is false, and nothing changes, when the
// model does not reason (as pi's cycleThinkingLevel).
func (rt *Runtime) CycleThinkingLevel(ctx context.Context) (level ThinkingLevel, ok bool, err error) {
	if !rt.Model().Reasoning {
		return "", false, nil
	}
	cur := rt.ThinkingLevel()
	level = ThinkingLevels[0]
	for i, l := range ThinkingLevels {
		if l == cur {
			level = ThinkingLevels[(i+1)%len(ThinkingLevels)]
		}
	}
	if err := rt.SetThinkingLevel(ctx, string(level)); err != nil {
		return "", false, err
	}
	return level, true, nil
}

// newSession creates an empty session (in memory with InMemory) that
// starts, as every new session does, with the model and thinking level;
// parent is its header's parentSession ("" for none).
func (rt *Runtime) newSession(parent string) (*session.Session, error) {
	var s *session.Session
	if rt.opts.InMemory {
		s = session.CreateChildInMemory(rt.opts.Cwd, parent)
	} else {
		var err error
		if s, err = session.CreateChild(rt.opts.SessionDir, rt.opts.Cwd, parent); err != nil {
			return nil, err
		}
	}
	m, thinking := rt.Model(), rt.ThinkingLevel()
	if _, err := s.AppendModelChange(m.Provider, m.ID); err != nil {
		return nil, err
	}
	if _, err := s.AppendThinkingLevel(string(thinking)); err != nil {
		return nil, err
	}
	return s, nil
}

// use makes s the open session, closing the previous one and emptying
// the input queues.
func (rt *Runtime) use(s *session.Session, resumed bool) {
	rt.mu.Lock()
	old := rt.sess
	rt.sess = s
	rt.resumed = resumed
	rt.agent.Session = s
	rt.mu.Unlock()
	if old != nil && old != s {
		if err := old.Close(); err != nil {
			rt.warn("closing session: %v", err)
		}
		// What waits for the next run goes with the old session, as pi's
		// queues go with its replaced AgentSession (queue_update says so).
		rt.ClearQueue()
	}
}

// Clear starts a new session (/clear) unless a session.before_clear hook
// cancels it.
func (rt *Runtime) Clear(ctx context.Context) error {
	return rt.startNew(ctx, "", SessionStartClear)
}

// NewSession starts a new session for a hook (pi's newSession): as /clear
// (session.before_clear may cancel it), with the header's parentSession
// set to the current session's file when withParent (a handoff).
func (rt *Runtime) NewSession(ctx context.Context, withParent bool) error {
	parent := ""
	if withParent {
		parent = rt.Session().File()
	}
	return rt.NewSessionFrom(ctx, parent)
}

// NewSessionFrom is NewSession with the header's parentSession given
// ("" for none), as pi's RPC new_session takes it.
func (rt *Runtime) NewSessionFrom(ctx context.Context, parent string) error {
	return rt.startNew(ctx, parent, SessionStartNew)
}

// startNew continues in a new session whose header names parent ("" for
// none) unless a session.before_clear hook cancels it; reason is
// session.start's: SessionStartClear (/clear) or SessionStartNew (a
// hook's or an RPC client's new session), and names the operation in
// errors.
func (rt *Runtime) startNew(ctx context.Context, parent, reason string) error {
	op := "new session"
	if reason == SessionStartClear {
		op = "clear"
	}
	h := rt.sessionHooks()
	if cancel, why := h.BeforeClear(ctx, rt.Session().ID()); cancel {
		return &CancelledError{Op: op, Reason: why}
	}
	s, err := rt.newSession(parent)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	rt.use(s, false)
	h.Clear(ctx, s.ID())
	h.SessionStart(ctx, s.ID(), s.File(), reason)
	return nil
}

// Entry returns the entry id of the open session, or an error naming it.
func (rt *Runtime) Entry(id string) (*session.Entry, error) {
	e := rt.Session().Get(id)
	if e == nil {
		return nil, fmt.Errorf("no entry %q in this session (see /tree)", id)
	}
	return e, nil
}

// BranchOptions say how to summarise the branch being left.
type BranchOptions struct {
	// Summarize asks the model for a summary when no hook gives one.
	Summarize bool
	// Summary is given by the caller (a hook's ctx.session.branch(id,
	// summary)): stored as from a hook, it takes precedence over a
	// session.before_branch summary and the model's.
	Summary string
	// Instructions focus the model's summary ("" for none).
	Instructions string
}

// Branch moves the leaf to entry id, as pi's tree navigation: a user
// message (or custom message) as target moves the leaf to its parent and
// returns its text for the editor (to edit and resend); any other entry
// becomes the leaf itself. session.before_branch hooks may cancel or
// supply a summary of the branch being left; a summary is stored as a
// branch_summary entry on the new leaf.
func (rt *Runtime) Branch(ctx context.Context, id string, o BranchOptions) (editorText string, err error) {
	target, err := rt.Entry(id)
	if err != nil {
		return "", err
	}
	s := rt.Session()
	oldLeaf := s.LeafID()
	if target.ID == oldLeaf {
		return "", nil
	}
	h := rt.sessionHooks()
	cancel, hookSummary := h.BeforeBranch(ctx, target.ID, oldLeaf)
	if cancel {
		return "", &CancelledError{Op: "branch"}
	}

	newLeaf := target.ID
	if (target.Type == session.TypeMessage && target.Message != nil && target.Message.Role == session.RoleUser) ||
		target.Type == session.TypeCustomMessage {
		newLeaf = target.ParentID
		if target.Message != nil {
			editorText = target.Message.Text()
		} else {
			editorText = session.BlocksText(target.Content())
		}
	}

	if o.Summary != "" {
		hookSummary = o.Summary
	}
	summary, fromHook := hookSummary, hookSummary != ""
	var details []byte
	if summary == "" && o.Summarize {
		entries := compaction.BranchEntries(s, oldLeaf, target.ID)
		summary, details, err = compaction.BranchSummary(ctx, entries, rt.Model().ContextWindow, o.Instructions, rt.completer(nil))
		if err != nil {
			return "", fmt.Errorf("branch summary: %w", err)
		}
	}
	if summary != "" {
		if _, err := s.BranchWithSummary(newLeaf, summary, details, fromHook); err != nil {
			return "", fmt.Errorf("branch to %s: %w", id, err)
		}
	} else if err := s.Branch(newLeaf); err != nil {
		return "", fmt.Errorf("branch to %s: %w", id, err)
	}
	h.Branch(ctx, target.ID, oldLeaf)
	return editorText, nil
}

// Fork copies the path from the root to entry id (the leaf when id is
// empty) into a new session file and continues there.
func (rt *Runtime) Fork(ctx context.Context, id string) error {
	s := rt.Session()
	if id == "" {
		if id = s.LeafID(); id == "" {
			return fmt.Errorf("fork: %w", errEmptySession)
		}
	}
	if _, err := rt.Entry(id); err != nil {
		return err
	}
	return rt.fork(ctx, id, id)
}

// ForkBefore forks at the user message id as pi's fork does by default:
// the new session holds the path before it, and the message's text comes
// back for the user to edit and resend. session.before_fork sees id.
func (rt *Runtime) ForkBefore(ctx context.Context, id string) (text string, err error) {
	e, err := rt.Entry(id)
	if err != nil {
		return "", err
	}
	if e.Type != session.TypeMessage || e.Message == nil || e.Message.Role != session.RoleUser {
		return "", fmt.Errorf("fork: entry %s is not a user message", id)
	}
	return e.Message.Text(), rt.fork(ctx, id, e.ParentID)
}

// fork runs the fork hooks for entry id and continues in a copy of the
// path to leaf; with leaf "" (before the first entry) in a new empty
// session whose parent is the current one.
func (rt *Runtime) fork(ctx context.Context, id, leaf string) error {
	s := rt.Session()
	h := rt.sessionHooks()
	if cancel, reason := h.BeforeFork(ctx, id); cancel {
		return &CancelledError{Op: "fork", Reason: reason}
	}
	var forked *session.Session
	var err error
	if leaf == "" {
		forked, err = rt.newSession(s.File())
	} else {
		forked, err = s.Fork(leaf, rt.opts.SessionDir)
	}
	if err != nil {
		return fmt.Errorf("fork at %s: %w", id, err)
	}
	previous := s.File()
	rt.use(forked, leaf != "")
	h.Fork(ctx, id, previous)
	h.SessionStart(ctx, forked.ID(), forked.File(), SessionStartFork)
	return nil
}

// Switch continues the session in file path, taking its model and
// thinking level unless the front end chose them. session.before_switch
// hooks may cancel it.
func (rt *Runtime) Switch(ctx context.Context, path string) error {
	cur := rt.Session()
	if cur != nil && cur.File() == path {
		return errors.New("that is the current session")
	}
	h := rt.sessionHooks()
	if cancel, reason := h.BeforeSwitch(ctx, path); cancel {
		return &CancelledError{Op: "switch", Reason: reason}
	}
	s, err := session.Open(path)
	if err != nil {
		return err
	}
	for _, w := range s.Warnings() {
		rt.warn("%s", w)
	}
	previous := ""
	if cur != nil {
		previous = cur.File()
	}
	prevModel := rt.Model()
	rt.use(s, true)
	rt.mu.Lock()
	c := rt.restore()
	m, thinking := rt.model, rt.thinking
	rt.mu.Unlock()
	if c.HasMessages && !c.ThinkingLevelSet { // as NewRuntime does
		if _, err := s.AppendThinkingLevel(string(thinking)); err != nil {
			return err
		}
	}
	if prevModel.Provider != m.Provider || prevModel.ID != m.ID {
		h.ModelChange(ctx, prevModel.Provider, prevModel.ID, m.Provider, m.ID, string(thinking), "restore")
	}
	h.Switch(ctx, previous)
	h.SessionStart(ctx, s.ID(), s.File(), SessionStartResume)
	return nil
}

// SetLabel labels entry id ("" removes the label).
func (rt *Runtime) SetLabel(id, text string) error {
	if _, err := rt.Entry(id); err != nil {
		return err
	}
	_, err := rt.Session().SetLabel(id, text)
	return err
}

// SetName names the session ("" clears the name).
func (rt *Runtime) SetName(name string) error {
	_, err := rt.NameSession(name)
	return err
}

// NameSession names the session ("" clears the name), publishing
// session_info_changed, and returns the session_info entry's id. Every
// change of the name goes through here (hooks' ctx.session.set_name too),
// so that every front end sees it.
func (rt *Runtime) NameSession(name string) (id string, err error) {
	s := rt.Session()
	if id, err = s.SetName(name); err != nil {
		return "", err
	}
	rt.emit(RuntimeEvent{SessionInfo: &SessionInfo{Name: s.Name()}})
	return id, nil
}

// RecordBash stores the output of a command the user ran (!cmd, or !!cmd
// with ExcludeFromContext) as a bashExecution message and writes it to
// disk at once: it is the user's work, kept even if no reply follows.
func (rt *Runtime) RecordBash(m *session.Message) error {
	s := rt.Session()
	if _, err := s.AppendMessage(m); err != nil {
		return err
	}
	if err := s.Persist(); err != nil {
		return err
	}
	return s.Sync()
}
