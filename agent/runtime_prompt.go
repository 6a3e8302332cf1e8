package agent

// Prompts through the Runtime: the agent loop plus automatic compaction
// (after a turn past the threshold, and on a context overflow: compact,
// then retry once), hook-queued messages, and one-off model calls.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lunar-cli/lunar/agent/compaction"
	"github.com/lunar-cli/lunar/session"
)

// Prompt adds a user message (text plus image parts) and runs the agent
// until the model answers without tool calls. It returns ErrAborted when
// ctx is cancelled, and the provider's error when the reply ended in
// error; in both cases everything received so far is kept in the
// session. ctx carries the input's source (WithInputSource). Input a
// chat.message hook handles goes no further: nothing is stored or sent,
// and Prompt returns nil. Before the run, a context already past the
// compaction threshold (a resumed session) is compacted; after it, the
// context is compacted when the reply took it past the threshold, and a
// reply that failed with a context overflow is retried once after
// compacting.
func (rt *Runtime) Prompt(ctx context.Context, text string, images []session.ContentBlock) error {
	text, images, handled := rt.loopHooks().ChatMessage(ctx, InputSource(ctx), text, images)
	if handled {
		return nil
	}
	if err := rt.checkPromptSize(text, images); err != nil {
		return err
	}
	rt.autoCompact(ctx, false)
	err := rt.agent.prompt(ctx, text, images)
	return rt.afterRun(ctx, err)
}

// Continue runs the agent over the current context without a new user
// message (a hook's triggered turn); compaction as for Prompt.
func (rt *Runtime) Continue(ctx context.Context) error {
	err := rt.agent.continueRun(ctx)
	return rt.afterRun(ctx, err)
}

// afterRun compacts after a run as pi's _checkCompaction does.
func (rt *Runtime) afterRun(ctx context.Context, err error) (rerr error) {
	defer func() { rt.settleQueue(rerr == nil && ctx.Err() == nil) }()
	// A compaction a hook asked for in the run's last turn runs now.
	rt.TurnBoundary(ctx)
	if ctx.Err() != nil {
		return err
	}
	if errors.Is(err, ErrContextOverflow) {
		if !rt.autoCompactOn.Load() {
			return err
		}
		if _, cerr := rt.compact(ctx, CompactOverflow, "", true); cerr != nil {
			return err
		}
		err = rt.agent.continueRun(ctx)
		if errors.Is(err, ErrContextOverflow) || ctx.Err() != nil {
			return err
		}
	}
	if err == nil {
		rt.autoCompact(ctx, true)
	}
	return err
}

// autoCompact compacts when the last reply's context is past the
// threshold. afterTurn false is the check before a prompt.
func (rt *Runtime) autoCompact(ctx context.Context, afterTurn bool) {
	st := rt.CompactionSettings()
	if !st.Enabled || ctx.Err() != nil {
		return
	}
	window := rt.Model().ContextWindow
	if window <= 0 {
		return
	}
	path := rt.Session().Path("")
	var last *session.Message
	var lastTime, compactedAt int64
	for i := len(path) - 1; i >= 0; i-- {
		e := path[i]
		if e.Type == session.TypeCompaction {
			compactedAt = entryMillis(e)
			break
		}
		if last == nil && e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == session.RoleAssistant {
			m := e.Message
			if m.StopReason == session.StopAborted || m.StopReason == session.StopError || m.Usage == nil {
				if afterTurn {
					return
				}
				continue
			}
			last, lastTime = m, m.Timestamp
		}
	}
	if last == nil || (compactedAt > 0 && lastTime <= compactedAt) {
		return
	}
	if !compaction.ShouldCompact(compaction.ContextTokens(*last.Usage), window, st) {
		return
	}
	rt.compact(ctx, CompactAuto, "", false) //nolint:errcheck // reported through the compaction_end event
}

func entryMillis(e *session.Entry) int64 {
	t, err := time.Parse(time.RFC3339Nano, e.Timestamp)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}

// PendingAction is something a hook asked for while lunar was busy (or
// from inside a handler): a prompt to send, a command line to run as if
// typed, or a custom message to append and maybe answer. The front end
// runs them when the current step ends.
type PendingAction struct {
	Text    string
	Images  []session.ContentBlock
	Command string // a "/name args" line (lunar.send of a command)
	Message *CustomMessage
	Trigger bool
}

type pendingQueue struct {
	mu    sync.Mutex
	items []PendingAction // for the front end, when the current step ends

	// The running loop's queues (runtime_queue.go).
	steering, followUp    []queued
	steerMode, followMode QueueMode
	seq                   uint64 // of the last message queued
	// final: the running loop makes no more model calls for a front
	// end's input (see Accepting).
	final bool
	// delivered: the prompts the change being made takes into the
	// conversation (QueueUpdate.Delivered); queueChangeAt resets it.
	delivered []string
}

func (q *pendingQueue) push(p PendingAction) {
	q.mu.Lock()
	q.items = append(q.items, p)
	q.mu.Unlock()
}

// Send queues text as the user's next message (lunar.send): it is sent
// when the current step ends.
func (rt *Runtime) Send(text string, images []session.ContentBlock) {
	rt.pending.push(PendingAction{Text: text, Images: images})
}

// SendCommand queues a command line ("/name args") to run as if the user
// typed it when the current step ends (lunar.send of a /command).
func (rt *Runtime) SendCommand(line string) {
	rt.pending.push(PendingAction{Command: line})
}

// TakePending returns and clears the queued hook actions.
func (rt *Runtime) TakePending() []PendingAction {
	rt.pending.mu.Lock()
	defer rt.pending.mu.Unlock()
	out := rt.pending.items
	rt.pending.items = nil
	return out
}

// TakeCommand takes the first queued action when it is a command line.
func (rt *Runtime) TakeCommand() (string, bool) {
	rt.pending.mu.Lock()
	defer rt.pending.mu.Unlock()
	if len(rt.pending.items) == 0 || rt.pending.items[0].Command == "" {
		return "", false
	}
	line := rt.pending.items[0].Command
	rt.pending.items = rt.pending.items[1:]
	return line, true
}

// HasPending reports whether a hook action is waiting.
func (rt *Runtime) HasPending() bool {
	rt.pending.mu.Lock()
	defer rt.pending.mu.Unlock()
	return len(rt.pending.items) > 0
}

// popPending takes the first queued action unless it is a command line.
func (rt *Runtime) popPending() (PendingAction, bool) {
	rt.pending.mu.Lock()
	defer rt.pending.mu.Unlock()
	if len(rt.pending.items) == 0 || rt.pending.items[0].Command != "" {
		return PendingAction{}, false
	}
	p := rt.pending.items[0]
	rt.pending.items = rt.pending.items[1:]
	return p, true
}

// maxPending bounds the hook actions one RunPending runs, so that hooks
// that queue a prompt for every prompt cannot loop forever.
const maxPending = 100

// RunPending runs the queued hook actions in order, and those they queue
// in turn, through prompt (a user message; its ctx says the source is
// "extension") and resume (a run over the context). It stops at the first
// error, and before a command line, which it leaves queued for the front
// end to run as typed (TakeCommand).
func (rt *Runtime) RunPending(ctx context.Context, prompt func(ctx context.Context, text string, images []session.ContentBlock) error, resume func(ctx context.Context) error) error {
	pctx := WithInputSource(ctx, SourceExtension)
	for n := 0; ; n++ {
		p, ok := rt.popPending()
		if !ok {
			return nil
		}
		if n == maxPending {
			return fmt.Errorf("hooks keep queueing messages: stopped after %d", maxPending)
		}
		if err := ctx.Err(); err != nil {
			return ErrAborted
		}
		var err error
		switch {
		case p.Message != nil:
			if err = appendCustom(rt.Session(), p.Message); err == nil && p.Trigger {
				err = resume(ctx)
			}
		default:
			err = prompt(pctx, p.Text, p.Images)
		}
		if err != nil {
			return err
		}
	}
}

// CompleteRequest is one tool-less model call (summaries, lunar.complete).
type CompleteRequest struct {
	Messages  []session.Message
	System    string
	MaxTokens int
	// Model is the model to call; nil means the current one.
	Model *Model
	// Reasoning lets the call think at the session's thinking level when
	// the model can.
	Reasoning bool
	// ThinkingLevel, when set, is the call's thinking level (when the
	// model can reason), whatever Reasoning says.
	ThinkingLevel ThinkingLevel
}

// ResolveModel resolves a "provider/id" spec for a one-off call, with the
// front end's overrides for the current provider (as /model does).
func (rt *Runtime) ResolveModel(spec string) (Model, error) {
	m, err := rt.opts.Registry.Resolve(spec)
	if err != nil {
		return Model{}, err
	}
	if m.Provider == rt.Model().Provider {
		m = rt.adjust(m)
	}
	return m, nil
}

// Complete makes one model call without tools and returns the text of the
// answer; auth hooks apply as they do to the agent's calls.
func (rt *Runtime) Complete(ctx context.Context, cr CompleteRequest) (string, error) {
	m := rt.Model()
	if cr.Model != nil {
		m = *cr.Model
	}
	thinking := ThinkingOff
	switch {
	case !m.Reasoning:
	case cr.ThinkingLevel != "":
		thinking = cr.ThinkingLevel
	case cr.Reasoning:
		thinking = rt.ThinkingLevel()
	}
	req := &Request{
		Model:        m,
		SystemPrompt: cr.System,
		Messages:     session.ConvertToLLM(cr.Messages),
		Params:       Params{MaxTokens: cr.MaxTokens, ThinkingLevel: thinking},
	}
	if err := authorize(ctx, rt.loopHooks(), req, rt.APIKey); err != nil {
		return "", err
	}
	msg, err := rt.opts.Registry.NewProvider(req.Model).Stream(ctx, req, func(StreamEvent) {})
	if ctx.Err() != nil {
		return "", ErrAborted
	}
	if err != nil {
		return "", err
	}
	if msg.StopReason == session.StopError {
		return "", fmt.Errorf("%s: %s", ModelSpec(m), msg.ErrorMessage())
	}
	var parts []string
	for _, b := range msg.Content {
		if b.Type == session.BlockText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n"), nil
}

// completer adapts Complete to the compaction package.
func (rt *Runtime) completer(model *Model) compaction.Completer {
	return func(ctx context.Context, r compaction.Request) (string, error) {
		return rt.Complete(ctx, CompleteRequest{Messages: r.Messages, System: r.System, MaxTokens: r.MaxTokens, Model: model, Reasoning: r.Reasoning})
	}
}

// SystemPrompt is the system prompt the next model call sends: the run's
// (or the base one between runs) after the chat.system.transform hooks.
func (rt *Runtime) SystemPrompt(ctx context.Context) string {
	return rt.loopHooks().SystemPrompt(ctx, rt.agent.runSystemPrompt())
}

// Idle reports whether no agent run is in progress.
func (rt *Runtime) Idle() bool { return !rt.running.Load() }

// PromptTooLargeError refuses a prompt that alone is larger than the
// model's context window: no compaction can make room for it, and the
// provider would only refuse it after the upload.
type PromptTooLargeError struct {
	Model  string // provider/id
	Tokens int    // the prompt's estimate
	Window int    // the model's context window
}

func (e *PromptTooLargeError) Error() string {
	return fmt.Sprintf("prompt too large: about %s tokens, and %s's context window is %s tokens; nothing was sent (attach less, or pick a model with a larger window)",
		groupDigits(e.Tokens), e.Model, groupDigits(e.Window))
}

// checkPromptSize refuses a prompt larger than the model's window (when
// the window is known), before anything is stored or sent.
func (rt *Runtime) checkPromptSize(text string, images []session.ContentBlock) error {
	m := rt.Model()
	if m.ContextWindow <= 0 {
		return nil
	}
	msg := session.Message{Role: session.RoleUser, Content: append([]session.ContentBlock{{Type: session.BlockText, Text: text}}, images...)}
	if n := session.EstimateTokens(&msg); n > m.ContextWindow {
		return &PromptTooLargeError{Model: ModelSpec(m), Tokens: n, Window: m.ContextWindow}
	}
	return nil
}

// groupDigits writes n with thousands separated by commas.
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
