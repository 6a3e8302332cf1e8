package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lunar-cli/lunar/session"
)

// ErrAborted is returned by Prompt and Continue when the run was cancelled.
var ErrAborted = errors.New("aborted")

// agent is the loop under a Runtime (which builds it and is the package's
// one entry point): it runs prompts against one model, persisting every
// message into a session. It is used by one run at a time; the Runtime
// changes its fields between runs (e.g. /model).
type agent struct {
	Session       *session.Session
	Model         Model
	ThinkingLevel ThinkingLevel
	SystemPrompt  string
	// SystemPromptFunc, when set, gives the base system prompt of each run
	// for the tools offered at its start instead of SystemPrompt.
	SystemPromptFunc func(tools []*Tool) string
	// SystemPromptInfoFunc, when set, says what SystemPromptFunc builds
	// its prompt from; agent.before_start handlers see it (see
	// PromptInfoFrom).
	SystemPromptInfoFunc func(tools []*Tool) SystemPromptInfo
	Tools                []*Tool
	// ToolsFunc, when set, gives the tools of each model call instead of
	// Tools (tools hooks register or drop while lunar runs).
	ToolsFunc func() []*Tool
	Hooks     Hooks // nil means NopHooks
	// Temperature, when set, is sent with every request (--temperature);
	// a hook's params handler may still change it.
	Temperature *float64
	// Steer, when set, holds prompts queued into the running turn: they
	// are added before the next model call, and a run that would end
	// makes one more call while some wait.
	Steer SteerQueue

	// NewProvider returns the client for a model (normally Registry.NewProvider).
	NewProvider func(Model) (Provider, error)
	// APIKey resolves the key for a model; an error stops the run before any request.
	APIKey func(Model) (string, error)
	// MaxTurns bounds the model calls of one run (0 = 500).
	MaxTurns int

	mu          sync.Mutex
	subscribers subscribers[Event]
	validators  map[*Tool]*Validator
	current     atomic.Pointer[run] // the run in progress, if any
}

// subscribe registers fn to receive every loop event, in order, on the
// loop's goroutine. It returns a function that unsubscribes.
func (a *agent) subscribe(fn func(Event)) func() { return a.subscribers.add(fn) }

func (a *agent) emit(ev Event) { a.subscribers.emit(ev) }

func (a *agent) hooks() Hooks {
	if a.Hooks == nil {
		return NopHooks{}
	}
	return a.Hooks
}

// run holds the state of one prompt or continueRun call.
type run struct {
	a            *agent
	ctx          context.Context
	systemPrompt string
	messages     []session.Message // new in this run
	tokens       TokenStats
	lastCtxTok   int
	ctxLimit     int               // context window of the model last called (after model.resolve)
	model        Model             // the model last called (after model.resolve), whose tool calls run
	turnOpen     bool              // turn_start was sent before the prompt messages
	followUps    []session.Message // taken when the agent would stop, for the next turn
	tools        []*Tool           // offered to the last model call
}

// prompt adds a user message (text plus image parts) and runs the loop
// until the model answers without tool calls. It returns ErrAborted when
// ctx is cancelled, and the provider's error when the reply ended in
// error; in both cases everything received so far is kept in the
// session. The chat.message hooks have seen the input (Runtime.Prompt).
func (a *agent) prompt(ctx context.Context, text string, images []session.ContentBlock) error {
	h := a.hooks()
	base := a.baseSystemPrompt()
	r := &run{a: a, ctx: ctx, systemPrompt: base}
	injected, sys := h.BeforeStart(a.withPromptInfo(ctx), text, images, base)
	if sys != "" {
		r.systemPrompt = sys
	}
	r.start()
	r.beginTurn() // as pi: agent_start, turn_start, then the prompt's messages
	r.turnOpen = true
	content := []session.ContentBlock{{Type: session.BlockText, Text: text}}
	content = append(content, images...)
	user := session.Message{Role: session.RoleUser, Content: content, Timestamp: time.Now().UnixMilli()}
	if err := r.appendMessage(user); err != nil {
		return r.finish(err)
	}
	for _, cm := range injected {
		if err := r.appendMessage(cm.message()); err != nil {
			return r.finish(err)
		}
	}
	return r.finish(r.loop())
}

// continueRun runs the loop over the session's current context without
// adding a user message (after a hook's send_message with trigger_turn,
// or a retry).
func (a *agent) continueRun(ctx context.Context) error {
	r := &run{a: a, ctx: ctx, systemPrompt: a.baseSystemPrompt()}
	r.start()
	return r.finish(r.loop())
}

// contextLimit is the context window of the model the run called last
// (a model.resolve hook may have chosen another), else the agent's model's.
func (r *run) contextLimit() int {
	if r.ctxLimit > 0 {
		return r.ctxLimit
	}
	return r.a.Model.ContextWindow
}

func (r *run) start() {
	r.a.current.Store(r)
	ev := Event{Type: EventAgentStart}
	r.a.emit(ev)
	r.a.hooks().Notify(r.ctx, ev)
}

func (r *run) finish(err error) error {
	r.a.current.Store(nil)
	ev := Event{Type: EventAgentEnd, Messages: r.messages, Tokens: r.tokens,
		ContextTokens: r.lastCtxTok, ContextLimit: r.contextLimit()}
	r.a.emit(ev)
	r.a.hooks().Notify(context.WithoutCancel(r.ctx), ev)
	if serr := r.a.Session.Sync(); serr != nil && err == nil {
		err = serr
	}
	return err
}

// appendMessage persists a finished message and reports it: a hook's
// custom message (one from the input queue) as a custom_message entry.
func (r *run) appendMessage(m session.Message) error {
	r.a.emit(Event{Type: EventMessageStart, Message: &m})
	var err error
	if m.Role == session.RoleCustom && m.Extra != nil {
		err = appendCustom(r.a.Session, &CustomMessage{CustomType: m.Extra.CustomType, Content: m.Content, Display: m.Extra.Display, Details: m.Details})
	} else {
		_, err = r.a.Session.AppendMessage(&m)
	}
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	r.messages = append(r.messages, m)
	r.a.emit(Event{Type: EventMessageEnd, Message: &m})
	return nil
}

func (r *run) loop() error {
	maxTurns := r.a.MaxTurns
	if maxTurns <= 0 {
		maxTurns = 500
	}
	q := r.a.Steer
	for turn := 0; turn < maxTurns; turn++ {
		if err := r.ctx.Err(); err != nil {
			return ErrAborted
		}
		if turn > 0 && q != nil {
			q.TurnBoundary(r.ctx)
		}
		more, err := r.turn()
		switch {
		case err != nil:
			return err
		case more:
			continue
		case q == nil:
			return nil
		case q.HasSteer():
			continue
		}
		// The agent would stop: follow-ups go on with it (pi's followUp).
		if r.followUps = q.TakeFollowUp(r.ctx); len(r.followUps) == 0 {
			return nil
		}
	}
	return fmt.Errorf("stopped after %d model calls in one run", maxTurns)
}

// turn makes one model call and runs the tools it asks for: the queued
// messages join the context, then the reply is streamed (stream), stored
// (record) and its tool calls run (runTools). It reports whether the
// model should be called again.
func (r *run) turn() (bool, error) {
	if r.turnOpen {
		r.turnOpen = false
	} else {
		r.beginTurn()
	}

	queued := r.followUps
	r.followUps = nil
	if r.a.Steer != nil {
		queued = append(queued, r.a.Steer.TakeSteer(r.ctx)...)
	}
	for _, m := range queued {
		if err := r.appendMessage(m); err != nil {
			return false, r.endTurn(nil, nil, err)
		}
	}
	req, prov, err := r.request()
	if err != nil {
		return false, r.endTurn(nil, nil, err)
	}
	msg, serr := r.stream(req, prov)
	if err := r.record(msg, serr, req.Model.ContextWindow); err != nil {
		return false, r.endTurn(msg, nil, err)
	}
	results, more, err := r.runTools(msg)
	return more, r.endTurn(msg, results, err)
}

// stream makes the model call and reports the reply as it streams
// (message_start, message_update). It always returns a message: the
// reply, or an error message standing for one that never came; err is
// the provider's error.
func (r *run) stream(req *Request, prov Provider) (msg *session.Message, err error) {
	a, ctx := r.a, r.ctx
	// From the moment a connection to the provider is made, before the
	// request is written, the prompt is on disk: a process killed while
	// the reply streams keeps the question. A run that never reaches the
	// provider (nothing listens there) writes no file, nor does one that
	// never sends anything, as pi's.
	// Should writing fail, appending the reply tries again and reports it.
	var persistOnce sync.Once
	persist := func() { persistOnce.Do(func() { _ = a.Session.Persist() }) }
	streamCtx := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { persist() }})
	var started bool
	partialStart := func(p *session.Message) {
		if !started {
			started = true
			a.emit(Event{Type: EventMessageStart, Message: p})
		}
	}
	msg, err = prov.Stream(streamCtx, req, func(se StreamEvent) {
		persist() // providers that do not speak HTTP
		partialStart(se.Partial)
		a.emit(Event{Type: EventMessageUpdate, Message: se.Partial, Stream: &se})
	})
	if msg == nil {
		msg = &session.Message{Role: session.RoleAssistant, API: req.Model.API, Provider: req.Model.Provider,
			Model: req.Model.ID, StopReason: session.StopError, Timestamp: time.Now().UnixMilli(), Usage: &session.Usage{}}
		if err != nil {
			msg.SetErrorMessage(err.Error())
		}
	}
	if ctx.Err() != nil && msg.StopReason != session.StopAborted && (err != nil || msg.StopReason == session.StopError) {
		msg.StopReason = session.StopAborted
		if msg.ErrorMessage() == "" {
			msg.SetErrorMessage("Request was aborted")
		}
	}
	partialStart(msg)
	return msg, err
}

// record stores the streamed reply msg in the session, reports it
// (message_end) and counts its tokens. It returns the error that ends
// the turn: ErrAborted for an aborted reply, the provider's error serr
// (an overflowError when the context was too long for window) for a
// failed one, or the session's.
func (r *run) record(msg *session.Message, serr error, window int) error {
	// A reply that is only "could not connect" in a session with nothing
	// on disk yet is not saved: it would make a file holding nothing but
	// that error (the prompt stays in memory, sent with the next one).
	if !(msg.StopReason == session.StopError && IsDialError(serr) && !r.a.Session.OnDisk()) {
		if _, err := r.a.Session.AppendMessage(msg); err != nil {
			return fmt.Errorf("session: %w", err)
		}
	}
	r.messages = append(r.messages, *msg)
	r.a.emit(Event{Type: EventMessageEnd, Message: msg})
	r.countUsage(msg)

	switch msg.StopReason {
	case session.StopAborted:
		return ErrAborted
	case session.StopError:
		if serr == nil {
			serr = errors.New(msg.ErrorMessage())
		}
		if IsContextOverflow(msg, window) {
			serr = &overflowError{serr}
		}
		return serr
	}
	return nil
}

// runTools runs the tool calls of the reply msg in order and stores
// their results. more says whether the model should be called again
// with them.
func (r *run) runTools(msg *session.Message) (results []session.Message, more bool, err error) {
	a, ctx := r.a, r.ctx
	calls := msg.ToolCalls()
	// As pi's: the run ends after the batch only when every result in it
	// asked to terminate.
	terminate := len(calls) > 0
	for _, call := range calls {
		var res session.Message
		if ctx.Err() != nil {
			res = r.toolMessage(call, TextResult("Tool execution aborted", true))
			a.emit(Event{Type: EventToolExecutionEnd, ToolCallID: call.ID, ToolName: call.Name, Args: call.Arguments,
				Result: &ToolResult{Content: res.Content, IsError: true}, IsError: true})
			terminate = false
		} else {
			var term bool
			res, term = r.runTool(call)
			terminate = terminate && term
		}
		if err := r.appendMessage(res); err != nil {
			return results, false, err
		}
		results = append(results, res)
	}
	if ctx.Err() != nil {
		return results, false, ErrAborted
	}
	return results, len(calls) > 0 && !terminate, nil
}

func (r *run) beginTurn() {
	ev := Event{Type: EventTurnStart}
	r.a.emit(ev)
	r.a.hooks().Notify(r.ctx, ev)
}

func (r *run) endTurn(msg *session.Message, results []session.Message, err error) error {
	ev := Event{Type: EventTurnEnd, Message: msg, ToolResults: results, Tokens: turnTokens(msg),
		ContextTokens: r.lastCtxTok, ContextLimit: r.contextLimit()}
	r.a.emit(ev)
	r.a.hooks().Notify(context.WithoutCancel(r.ctx), ev)
	if serr := r.a.Session.Sync(); serr != nil && err == nil {
		err = fmt.Errorf("session: %w", serr)
	}
	return err
}

// turnTokens is the token use of one reply (m nil: none).
func turnTokens(m *session.Message) (t TokenStats) {
	if m != nil {
		t.add(m.Usage)
	}
	return t
}

func (r *run) countUsage(m *session.Message) {
	r.tokens.add(m.Usage)
	if t := turnTokens(m); t.Total > 0 && m.StopReason != session.StopError && m.StopReason != session.StopAborted {
		r.lastCtxTok = t.Total
	}
}

// request builds the next model call: context, hooks, system prompt, params,
// model and auth.
func (r *run) request() (*Request, Provider, error) {
	a, h, ctx := r.a, r.a.hooks(), r.ctx
	// The context is handed to the provider by reference: copied only
	// for context hooks that read it, and sent as the copy only when one
	// of them changed it.
	var msgs []*session.Message
	path := a.Session.Path("")
	switch lh, lazy := h.(LazyContextHooks); {
	case !listening(h, "context"):
		msgs = session.LLMContext(path)
	case lazy:
		out, changed := lh.LazyContext(ctx, func() []ContextMessage { return session.BuildContext(path).Messages })
		if changed {
			msgs = session.ContextLLMRefs(out)
		} else {
			msgs = session.LLMContext(path)
		}
	default:
		msgs = session.ContextLLMRefs(h.Context(ctx, session.BuildContext(path).Messages))
	}
	model := h.ResolveModel(ctx, a.Model)
	r.ctxLimit = model.ContextWindow
	r.model = model
	params := h.Params(ctx, Params{ThinkingLevel: a.ThinkingLevel, MaxTokens: model.MaxTokens, Temperature: a.Temperature})
	req := &Request{
		Model:        model,
		SystemPrompt: h.SystemPrompt(ctx, r.systemPrompt),
		MessageRefs:  msgs,
		Params:       params,
		SessionID:    a.Session.ID(),
	}
	providerEvents(h, req)
	r.tools = a.currentTools()
	for _, t := range r.tools {
		req.Tools = append(req.Tools, ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	if err := authorize(ctx, h, req, a.APIKey); err != nil {
		return nil, nil, err
	}
	if a.NewProvider == nil {
		return nil, nil, errors.New("agent: no provider configured")
	}
	prov, err := a.NewProvider(req.Model)
	if err != nil {
		return nil, nil, err
	}
	return req, prov, nil
}

// authorize sets req's base URL, headers and key from the auth hooks;
// without a key from them, apiKey (nil: none) resolves it, and its error
// stops the call before any request. The agent's model calls and
// Runtime.Complete both go through it.
func authorize(ctx context.Context, h Hooks, req *Request, apiKey func(Model) (string, error)) error {
	auth := h.Auth(ctx, req.Model.Provider, req.Model.ID)
	if auth.BaseURL != "" {
		req.Model.BaseURL = auth.BaseURL
	}
	req.Headers, req.APIKey = auth.Headers, auth.APIKey
	if req.APIKey == "" && apiKey != nil {
		key, err := apiKey(req.Model)
		if err != nil {
			return err
		}
		req.APIKey = key
	}
	return nil
}

func (r *run) toolMessage(call session.ContentBlock, res ToolResult) session.Message {
	return session.Message{Role: session.RoleToolResult, ToolCallID: call.ID, ToolName: call.Name,
		Content: res.Content, Details: res.Details, IsError: res.IsError, Timestamp: time.Now().UnixMilli()}
}

// runTool executes one tool call through validation and the tool hooks. A
// failure of any kind becomes an error result for the model. It reports
// whether the result asks to end the run (ToolResult.Terminate).
func (r *run) runTool(call session.ContentBlock) (session.Message, bool) {
	a, h, ctx := r.a, r.a.hooks(), r.ctx
	args, res, ok := r.prepare(call.Name, call.Arguments)
	a.emit(Event{Type: EventToolExecutionStart, ToolCallID: call.ID, ToolName: call.Name, Args: args})
	original := args
	if ok {
		args, res = r.execute(call.Name, call.ID, args)
	}
	res = h.AfterTool(ctx, call.Name, call.ID, args, original, res)
	if len(res.Content) == 0 {
		res.Content = []session.ContentBlock{{Type: session.BlockText, Text: ""}}
	}
	a.emit(Event{Type: EventToolExecutionEnd, ToolCallID: call.ID, ToolName: call.Name, Args: args, Result: &res, IsError: res.IsError})
	return r.toolMessage(call, res), res.Terminate
}

// prepare decodes the arguments of a call to the tool name once, strictly
// (Validator.Decode): ok, they come back as the canonical text that the
// hooks judge and the tool runs with; not ok, the call does not run, res
// says why, and raw comes back as the model sent it.
func (r *run) prepare(name string, raw json.RawMessage) (args json.RawMessage, res ToolResult, ok bool) {
	tool := r.tool(name)
	if tool == nil {
		return raw, TextResult(fmt.Sprintf("Tool %q not found", name), true), false
	}
	if !json.Valid(raw) || len(raw) == 0 || raw[0] != '{' {
		return raw, TextResult(fmt.Sprintf("Invalid arguments for tool %q: not a JSON object: %s", name, truncateForError(raw)), true), false
	}
	v, err := r.a.validator(tool)
	if err != nil {
		return raw, TextResult(err.Error(), true), false
	}
	args, err = v.Decode(raw)
	if err != nil {
		return raw, TextResult(err.Error(), true), false
	}
	return args, ToolResult{}, true
}

// execute asks the hooks about a prepared call and runs it. It returns
// the arguments the tool ran with: args, or a hook's replacement, decoded
// as strictly (a replacement that does not pass is an error result, and
// the call does not run).
func (r *run) execute(name, id string, args json.RawMessage) (json.RawMessage, ToolResult) {
	a, h, ctx := r.a, r.a.hooks(), r.ctx
	tool := r.tool(name)
	dec := h.BeforeTool(ctx, name, id, args)
	if ctx.Err() != nil {
		// The run was stopped while a hook decided (Ctrl+C at a
		// permission question): the tool does not run, whatever it said.
		return args, TextResult("Tool call cancelled: the user stopped the run", true)
	}
	if dec.Block {
		reason := dec.Reason
		if reason == "" {
			reason = "Tool execution was blocked"
		}
		return args, TextResult(reason, true)
	}
	if dec.Input != nil {
		in, res, ok := r.prepare(name, dec.Input)
		if !ok {
			return args, TextResult("A tool.execute.before hook replaced the arguments with invalid ones, so the call did not run: "+resultText(res), true)
		}
		args = in
	}
	if dec.Sandbox != nil {
		ctx = WithSandbox(ctx, dec.Sandbox)
	}
	ctx = context.WithValue(ctx, toolModelKey{}, r.model)
	onUpdate := func(p ToolResult) {
		a.emit(Event{Type: EventToolExecutionUpdate, ToolCallID: id, ToolName: name, Args: args, Result: &p})
	}
	res, err := safeExecute(ctx, tool, id, args, onUpdate)
	if err != nil {
		return args, TextResult(err.Error(), true)
	}
	return args, res
}

// toolModelKey carries the model whose tool call runs to the tool.
type toolModelKey struct{}

// ModelFrom is the model whose tool call is running, in a tool's context
// (pi's ctx.model): a tool may tell it what it cannot take.
func ModelFrom(ctx context.Context) (Model, bool) {
	m, ok := ctx.Value(toolModelKey{}).(Model)
	return m, ok
}

// resultText is the text of a result built by TextResult.
func resultText(res ToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	return res.Content[0].Text
}

func safeExecute(ctx context.Context, t *Tool, id string, args json.RawMessage, onUpdate func(ToolResult)) (res ToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("tool %s crashed: %v", t.Name, p)
		}
	}()
	return t.Execute(ctx, id, args, onUpdate)
}

func truncateForError(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// currentTools are the tools offered to the next model call.
func (a *agent) currentTools() []*Tool {
	if a.ToolsFunc != nil {
		return a.ToolsFunc()
	}
	return a.Tools
}

// tool finds a tool the last model call was offered.
func (r *run) tool(name string) *Tool {
	for _, t := range r.tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func (a *agent) validator(t *Tool) (*Validator, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if v, ok := a.validators[t]; ok {
		return v, nil
	}
	v, err := CompileSchema(t.Name, t.Parameters)
	if err != nil {
		return nil, err
	}
	if a.validators == nil {
		a.validators = map[*Tool]*Validator{}
	}
	a.validators[t] = v
	return v, nil
}

// runSystemPrompt is the system prompt of the run in progress (after
// agent.before_start), or the base one between runs; the chat.system
// hooks have not seen it.
func (a *agent) runSystemPrompt() string {
	if r := a.current.Load(); r != nil {
		return r.systemPrompt
	}
	return a.baseSystemPrompt()
}

// promptInfoKey carries a run's SystemPromptInfo to BeforeStart.
type promptInfoKey struct{}

// withPromptInfo gives BeforeStart's context a way to describe the base
// system prompt (computed only when a hook asks).
func (a *agent) withPromptInfo(ctx context.Context) context.Context {
	if a.SystemPromptInfoFunc == nil {
		return ctx
	}
	tools := a.currentTools()
	fn := a.SystemPromptInfoFunc
	return context.WithValue(ctx, promptInfoKey{}, func() SystemPromptInfo { return fn(tools) })
}

// PromptInfoFrom is what the base system prompt of the run starting was
// built from, in Hooks.BeforeStart's context; ok is false when the
// prompt is a fixed text (Runtime.SetSystemPrompt).
func PromptInfoFrom(ctx context.Context) (info SystemPromptInfo, ok bool) {
	if fn, ok := ctx.Value(promptInfoKey{}).(func() SystemPromptInfo); ok {
		return fn(), true
	}
	return SystemPromptInfo{}, false
}

// baseSystemPrompt is the system prompt a run starting now begins with,
// before the hooks: for the tools offered now when SystemPromptFunc is set.
func (a *agent) baseSystemPrompt() string {
	if a.SystemPromptFunc != nil {
		return a.SystemPromptFunc(a.currentTools())
	}
	return a.SystemPrompt
}
