package agent

// The session runtime: one open session with its model, thinking level,
// tools and hooks, and every operation a front end (REPL, one-shot, JSON
// mode) or a hook can ask for. Front ends turn input into calls on it and
// its events into output; they never change the session themselves.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/lunar-cli/lunar/agent/compaction"
	"github.com/lunar-cli/lunar/session"
)

// RuntimeOptions configure a Runtime.
type RuntimeOptions struct {
	Registry *Registry
	Cwd      string
	// SessionDir is where new sessions (/clear, forks) are written; with
	// InMemory they are not written at all (--no-session).
	SessionDir string
	InMemory   bool

	Model         Model
	ThinkingLevel ThinkingLevel
	SystemPrompt  string
	Tools         []*Tool
	// ToolAllow, when not nil, is --tools' allowlist: hook tools it does
	// not name are left out of the tool set, as built-ins are (pi's
	// allowlist covers extension tools).
	ToolAllow []string
	// MoreTools gives tools from outside lunar (MCP servers), offered
	// after the hooks' tools; nil: none. A name already taken leaves its
	// tool out, with a warning.
	MoreTools ToolProvider

	// APIKey resolves the key for a model (the front end's policy, e.g.
	// --api-key); nil means Registry.APIKey.
	APIKey func(Model) (string, error)
	// AdjustModel applies the front end's per-model overrides (--base-url)
	// to a model chosen later (/model, lunar.complete); nil keeps it.
	AdjustModel func(Model) Model
	// KeepModel and KeepThinking: the front end chose them (flags), so a
	// resumed session's context does not.
	KeepModel, KeepThinking bool
	// ModelCycle is the list `/model next` cycles through.
	ModelCycle []string
	// Compaction configures automatic and manual compaction.
	Compaction compaction.Settings
	// Warn shows a warning (a session file's, a hook's); nil drops it.
	Warn func(msg string)
	// Notice shows news that is not a problem (a hook tool replacing a
	// built-in); nil: Warn.
	Notice func(msg string)
	// Temperature, when set, is sent with every request.
	Temperature *float64
}

// Runtime owns the open session and runs everything done with it. Its
// methods are called from one front end goroutine at a time (hooks call
// them from inside that goroutine's calls); the getters may be called
// from anywhere.
type Runtime struct {
	opts  RuntimeOptions
	agent *agent

	mu       sync.Mutex
	sess     *session.Session
	model    Model
	thinking ThinkingLevel
	resumed  bool
	hooks    Hooks
	shooks   SessionHooks

	toolProvider ToolProvider    // the hooks' tools, when they have some
	toolsOff     map[string]bool // tools disabled by name (lunar.disable_tool, set_active_tools)
	toolNoticed  map[string]bool // hook tools already announced as replacing a built-in or ignored

	pending   pendingQueue
	queueEmit sync.Mutex // orders queue_update events (queueChange)
	// turnQueue is the queue_update of follow-ups taken for the next
	// turn, published after its turn_start (under queueEmit).
	turnQueue *QueueUpdate
	// compactReq is a compaction a hook asked for during the run (rt.mu).
	compactReq *compactRequest
	running    atomic.Bool
	// autoCompactOn is whether compaction runs by itself (SetAutoCompaction);
	// compacting is set while a compaction runs.
	autoCompactOn atomic.Bool
	compacting    atomic.Bool
	abort         atomic.Pointer[func()]

	subscribers subscribers[RuntimeEvent]

	bg sync.WaitGroup // session hooks running in the background (session.compact)
}

// NewRuntime makes a runtime over an open session. resumed says the
// session existed before (its context chose model and thinking level, see
// Restore); a new session starts with model_change and
// thinking_level_change entries, as pi's do.
func NewRuntime(opts RuntimeOptions, s *session.Session, resumed bool) (*Runtime, error) {
	if opts.Registry == nil {
		opts.Registry = NewRegistry(nil)
	}
	if opts.ThinkingLevel == "" {
		opts.ThinkingLevel = ThinkingOff
	}
	if opts.Compaction == (compaction.Settings{}) {
		opts.Compaction = compaction.DefaultSettings()
	}
	rt := &Runtime{opts: opts, sess: s, model: opts.Model, thinking: opts.ThinkingLevel, resumed: resumed,
		hooks: NopHooks{}, shooks: NopSessionHooks{}}
	rt.autoCompactOn.Store(opts.Compaction.Enabled)
	rt.agent = &agent{
		Session:       s,
		Model:         opts.Model,
		ThinkingLevel: rt.thinking,
		SystemPrompt:  opts.SystemPrompt,
		NewProvider:   func(m Model) (Provider, error) { return opts.Registry.NewProvider(m), nil },
		APIKey:        rt.APIKey,
		Temperature:   opts.Temperature,
	}
	rt.agent.ToolsFunc = rt.Tools
	rt.agent.Steer = rt
	rt.agent.subscribe(func(ev Event) {
		switch ev.Type {
		case EventAgentStart:
			rt.running.Store(true)
		case EventAgentEnd:
			rt.flushTurnQueue() // a run aborted before the turn
			rt.running.Store(false)
		}
		rt.trackFinal(ev)
		rt.emit(RuntimeEvent{Loop: &ev})
		if ev.Type == EventTurnStart {
			rt.flushTurnQueue()
		}
	})
	if resumed {
		// pi records the level a resumed conversation continues with when
		// its path has none, before anything else is appended.
		rt.mu.Lock()
		c := rt.restore()
		rt.mu.Unlock()
		if c.HasMessages && !c.ThinkingLevelSet {
			if _, err := s.AppendThinkingLevel(string(rt.thinking)); err != nil {
				return nil, err
			}
		}
	} else {
		if _, err := s.AppendModelChange(rt.model.Provider, rt.model.ID); err != nil {
			return nil, err
		}
		if _, err := s.AppendThinkingLevel(string(rt.thinking)); err != nil {
			return nil, err
		}
	}
	return rt, nil
}

// SetHooks installs the hooks (the Lua runtime implements both sets);
// nil keeps the ones that do nothing.
func (rt *Runtime) SetHooks(h Hooks, sh SessionHooks) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if h == nil {
		h = NopHooks{}
	}
	if sh == nil {
		sh = NopSessionHooks{}
	}
	rt.hooks, rt.shooks = h, sh
	rt.agent.Hooks = h
	rt.toolProvider, _ = h.(ToolProvider)
}

// SetSystemPrompt replaces the base system prompt. Like the other
// prompt setters it is for setting up: call it before the first run (a
// run reads the prompt without a lock).
func (rt *Runtime) SetSystemPrompt(p string) {
	rt.agent.SystemPrompt, rt.agent.SystemPromptFunc, rt.agent.SystemPromptInfoFunc = p, nil, nil
}

// SetPromptBuilder makes the base system prompt of each run b's prompt
// for the tools that run starts with, as SetSystemPromptFunc, and lets
// agent.before_start see what it is built from (b.Info). Set-up only, as
// SetSystemPrompt.
func (rt *Runtime) SetPromptBuilder(b *PromptBuilder) {
	rt.agent.SystemPromptFunc, rt.agent.SystemPromptInfoFunc = b.Prompt, b.Info
}

// SetSystemPromptFunc makes the base system prompt of each run fn of the
// tools that run starts with (see SystemPromptBuilder), so tools a hook
// registers, replaces or disables are listed as the model gets them.
// Set-up only, as SetSystemPrompt.
func (rt *Runtime) SetSystemPromptFunc(fn func(tools []*Tool) string) {
	rt.agent.SystemPromptFunc, rt.agent.SystemPromptInfoFunc = fn, nil
}

// Session is the open session.
func (rt *Runtime) Session() *session.Session {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.sess
}

// Model is the current model.
func (rt *Runtime) Model() Model {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.model
}

// ThinkingLevel is the current thinking level.
func (rt *Runtime) ThinkingLevel() ThinkingLevel {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.thinking
}

// Resumed reports whether the open session existed before this run.
func (rt *Runtime) Resumed() bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.resumed
}

// Registry is the model registry.
func (rt *Runtime) Registry() *Registry { return rt.opts.Registry }

// Cwd is the working folder.
func (rt *Runtime) Cwd() string { return rt.opts.Cwd }

// CompactionSettings are the compaction settings in use; Enabled says
// whether compaction runs by itself now (see SetAutoCompaction).
func (rt *Runtime) CompactionSettings() compaction.Settings {
	st := rt.opts.Compaction
	st.Enabled = rt.autoCompactOn.Load()
	return st
}

// Running reports whether an agent run is in progress.
func (rt *Runtime) Running() bool { return rt.running.Load() }

// APIKey resolves the key for a model.
func (rt *Runtime) APIKey(m Model) (string, error) {
	if rt.opts.APIKey != nil {
		return rt.opts.APIKey(m)
	}
	key, _, err := rt.opts.Registry.APIKey(m.Provider)
	return key, err
}

func (rt *Runtime) sessionHooks() SessionHooks {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.shooks
}

func (rt *Runtime) loopHooks() Hooks {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.hooks
}

// notice shows news through Notice (Warn without one).
func (rt *Runtime) notice(format string, args ...any) {
	if rt.opts.Notice != nil {
		rt.opts.Notice(fmt.Sprintf(format, args...))
		return
	}
	rt.warn(format, args...)
}

func (rt *Runtime) warn(format string, args ...any) {
	if rt.opts.Warn != nil {
		rt.opts.Warn(fmt.Sprintf(format, args...))
	}
}

// RuntimeEvent is what subscribers of a Runtime receive: a loop event, a
// compaction starting or ending, a change of the input queue, the
// thinking level or the session's name. Exactly one field is set.
type RuntimeEvent struct {
	Loop       *Event           // a loop event (agent_start, message_update, …)
	Compaction *CompactionEvent // compaction_start / compaction_end
	// Queue is queue_update: the input queue changed (a message queued,
	// delivered, taken back or cleared). It comes from the goroutine that
	// changed the queue, while later changes wait for it: a subscriber
	// must not change the queue from inside it, nor take a lock that a
	// goroutine calling Steer, FollowUp, TakeBackLast or ClearQueue may
	// hold (hand the update to its own goroutine instead).
	Queue *QueueUpdate
	// ThinkingLevel is thinking_level_changed: the thinking level moved
	// to this one, whoever moved it (a front end, a hook, a command).
	ThinkingLevel *ThinkingLevel
	// SessionInfo is session_info_changed: the session was named.
	SessionInfo *SessionInfo
}

// Event types of RuntimeEvent's settings changes, pi's names.
const (
	EventThinkingLevelChanged = "thinking_level_changed"
	EventSessionInfoChanged   = "session_info_changed"
)

// SessionInfo is what session_info_changed reports: the session's name
// after the change ("" when it was cleared).
type SessionInfo struct {
	Name string
}

// CompactionEvent types, pi's session event names.
const (
	CompactionStart = "compaction_start"
	CompactionEnd   = "compaction_end"
)

// CompactionEvent reasons, pi's names (hooks see the Compact* reasons).
const (
	CompactionManual    = "manual"
	CompactionThreshold = "threshold"
	CompactionOverflow  = "overflow"
)

// CompactionEvent reports a compaction, as pi's compaction_start and
// compaction_end session events.
type CompactionEvent struct {
	Type   string // CompactionStart or CompactionEnd
	Reason string // CompactionManual, CompactionThreshold or CompactionOverflow
	// Set on compaction_end:
	Result       *CompactionResult
	Aborted      bool
	WillRetry    bool
	ErrorMessage string
}

// CompactionResult is a finished compaction.
type CompactionResult struct {
	EntryID          string
	Summary          string
	FirstKeptEntryID string
	TokensBefore     int
	TokensAfter      int // estimated context after it
	FromHook         bool
}

// Subscribe registers fn for every runtime event, delivered in order on the
// goroutine that runs the operation. It returns a function that
// unsubscribes.
func (rt *Runtime) Subscribe(fn func(RuntimeEvent)) func() { return rt.subscribers.add(fn) }

// SubscribeLoop registers fn for the loop events only.
func (rt *Runtime) SubscribeLoop(fn func(Event)) func() {
	return rt.Subscribe(func(ev RuntimeEvent) {
		if ev.Loop != nil {
			fn(*ev.Loop)
		}
	})
}

func (rt *Runtime) emit(ev RuntimeEvent) { rt.subscribers.emit(ev) }

// SetAbort installs the function ctx.abort() calls (the front end's way
// to stop the current step); nil removes it.
func (rt *Runtime) SetAbort(fn func()) {
	if fn == nil {
		rt.abort.Store(nil)
		return
	}
	rt.abort.Store(&fn)
}

// Abort stops the current step, if a front end installed a way to.
func (rt *Runtime) Abort() {
	if f := rt.abort.Load(); f != nil {
		(*f)()
	}
}

// Start fires session.start for the session open at launch; reason is
// SessionStartStartup, SessionStartResume or SessionStartFork ("" picks
// startup or resume).
func (rt *Runtime) Start(ctx context.Context, reason string) {
	s := rt.Session()
	if reason == "" {
		reason = SessionStartStartup
		if rt.Resumed() {
			reason = SessionStartResume
		}
	}
	rt.sessionHooks().SessionStart(ctx, s.ID(), s.File(), reason)
}

// Shutdown waits for the session hooks running in the background, fires
// session.shutdown and flushes the session to disk.
func (rt *Runtime) Shutdown(ctx context.Context) error {
	rt.WaitHooks()
	s := rt.Session()
	rt.sessionHooks().Shutdown(ctx, s.ID())
	return s.Sync()
}

// WaitHooks waits for the session hooks running in the background
// (session.compact handlers, bounded by the hook timeout).
func (rt *Runtime) WaitHooks() { rt.bg.Wait() }

// Close closes the session. It does not wait for background hooks (a
// stuck exit closes it to leave): Shutdown and WaitHooks do.
func (rt *Runtime) Close() error {
	return rt.Session().Close()
}

// CancelledError is returned when a hook cancelled an operation.
type CancelledError struct {
	Op     string // "clear", "switch", "branch", "fork", "compaction"
	Reason string
}

func (e *CancelledError) Error() string {
	if e.Reason == "" {
		return e.Op + " cancelled by a hook"
	}
	return e.Op + " cancelled by a hook: " + e.Reason
}

// ModelSpec is "provider/id".
func ModelSpec(m Model) string { return m.Provider + "/" + m.ID }

// ThinkingLevels are the thinking levels, lowest first.
var ThinkingLevels = []ThinkingLevel{ThinkingOff, ThinkingMinimal, ThinkingLow, ThinkingMedium, ThinkingHigh}

// ThinkingLevelNames is ThinkingLevels as "off|minimal|…", for messages.
func ThinkingLevelNames(sep string) string {
	names := make([]string, len(ThinkingLevels))
	for i, l := range ThinkingLevels {
		names[i] = string(l)
	}
	return strings.Join(names, sep)
}

// ParseThinkingLevel returns s as a thinking level; the error names the
// levels.
func ParseThinkingLevel(s string) (ThinkingLevel, error) {
	if l := ThinkingLevel(s); slices.Contains(ThinkingLevels, l) {
		return l, nil
	}
	return "", fmt.Errorf("%q is not one of %s", s, ThinkingLevelNames("|"))
}

// checkLocks, set by the package's tests, makes mustHold check the locks
// that functions say their callers hold.
var checkLocks bool

// mustHold panics, with checkLocks set, when mu is not locked (by anyone:
// a sync.Mutex knows no owner, so this catches a caller that forgot the
// lock, not one that took the wrong turn with it).
func mustHold(mu *sync.Mutex) {
	if checkLocks && mu.TryLock() {
		mu.Unlock()
		panic("agent: the caller must hold the lock")
	}
}

// errEmptySession is returned by operations that need an entry.
var errEmptySession = errors.New("the session is empty")

// RebuildContext builds the context of the open session and runs the
// context hooks over it, returning the message count and estimated tokens.
func (rt *Runtime) RebuildContext(ctx context.Context) (messages, tokens int, err error) {
	s := rt.Session()
	if s == nil {
		return 0, 0, errors.New("no session")
	}
	msgs := rt.loopHooks().Context(ctx, s.BuildContext().Messages)
	for i := range msgs {
		tokens += session.EstimateTokens(&msgs[i].Message)
	}
	return len(msgs), tokens, nil
}

// TokenUsage sums the usage of the assistant messages on the current
// path, as agent.end's tokens do for one run; ok is false when no message
// has usage.
func (rt *Runtime) TokenUsage() (st TokenStats, ok bool) {
	s := rt.Session()
	if s == nil {
		return st, false
	}
	for _, e := range s.Path("") {
		m := e.Message
		if e.Type != session.TypeMessage || m == nil || m.Role != session.RoleAssistant || m.Usage == nil {
			continue
		}
		ok = true
		st.add(m.Usage)
	}
	return st, ok
}

// ContextTokens estimates the current context's size: the usage the
// provider reported for the last reply plus estimates of what came after
// it, or (when the last reply came before the latest compaction, whose
// usage no longer describes the context) estimates of every message.
func (rt *Runtime) ContextTokens() int {
	s := rt.Session()
	if s == nil {
		return 0
	}
	path := s.Path("")
	compactedAfterUsage := false
	for i := len(path) - 1; i >= 0; i-- {
		e := path[i]
		if e.Type == session.TypeCompaction {
			compactedAfterUsage = true
			break
		}
		if m := e.Message; e.Type == session.TypeMessage && m != nil && m.Role == session.RoleAssistant && m.Usage != nil &&
			m.StopReason != session.StopError && m.StopReason != session.StopAborted {
			break
		}
	}
	if !compactedAfterUsage {
		// Without copying the context: the REPL asks after every run,
		// and a long session's context is as large as its file.
		return compaction.PathContextTokens(path)
	}
	total := 0
	for _, cm := range session.BuildContext(path).Messages {
		total += session.EstimateTokens(&cm.Message)
	}
	return total
}
