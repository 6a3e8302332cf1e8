package lua

// This file implements agent.Hooks: the events of the agent loop.

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/session"
)

var _ agent.Hooks = (*Runtime)(nil)

// ChatMessage implements agent.Hooks (chat.message): each handler may
// replace the text and the attachments, or handle the input (the first
// {handled=true} wins: later handlers do not run).
func (r *Runtime) ChatMessage(ctx context.Context, source, text string, parts []session.ContentBlock) (string, []session.ContentBlock, bool) {
	if len(r.listeners(evChatMessage)) == 0 {
		return text, parts, false
	}
	return r.chatMessage(ctx, source, text, parts)
}

func (r *Runtime) chatMessage(ctx context.Context, source, text string, parts []session.ContentBlock) (string, []session.ContentBlock, bool) {
	for _, hd := range r.listeners(evChatMessage) {
		var newText string
		var newParts []session.ContentBlock
		var setText, setParts, handled bool
		shared := newSharedBlocks(parts) // parts as this handler gets them
		err := r.invoke(ctx, hd, func(h *hook, L *glua.LState, ev *glua.LTable) error {
			ev.RawSetString("text", glua.LString(text))
			ev.RawSetString("source", glua.LString(source))
			h.setLazy(L, ev, h.lazyArray("parts", shared.get))
			return nil
		}, func(rr *resultReader) error {
			handled, _ = rr.boolean("handled")
			newText, setText = rr.str("text")
			if t, ok := rr.table("parts"); ok {
				var err error
				if newParts, err = rr.h.luaContent(t); err != nil {
					return fmt.Errorf("parts: %w", err)
				}
				setParts = true
			}
			return nil
		})
		if err != nil {
			continue
		}
		if handled {
			return text, parts, true
		}
		if setText {
			text = newText
		}
		if setParts {
			parts = newParts
		}
	}
	return text, parts, false
}

// BeforeStart implements agent.Hooks (agent.before_start): every
// handler's message is collected; system_prompt chains. The returned
// prompt is "" when no handler set one.
func (r *Runtime) BeforeStart(ctx context.Context, prompt string, images []session.ContentBlock, systemPrompt string) ([]agent.CustomMessage, string) {
	if len(r.listeners(evAgentBeforeStart)) == 0 {
		return nil, ""
	}
	return r.beforeStart(ctx, prompt, images, systemPrompt)
}

func (r *Runtime) beforeStart(ctx context.Context, prompt string, images []session.ContentBlock, systemPrompt string) ([]agent.CustomMessage, string) {
	var msgs []agent.CustomMessage
	override := ""
	shared := newSharedBlocks(images)
	opts := promptOptionsJSON(ctx)
	for _, hd := range r.listeners(evAgentBeforeStart) {
		var msg *agent.CustomMessage
		var sys string
		var setSys bool
		err := r.invoke(ctx, hd, func(h *hook, L *glua.LState, ev *glua.LTable) error {
			ev.RawSetString("prompt", glua.LString(prompt))
			ev.RawSetString("system_prompt", glua.LString(systemPrompt))
			h.setLazy(L, ev, h.lazyArray("images", shared.get))
			if opts != nil {
				h.setLazy(L, ev, lazyField{"system_prompt_options", func() (glua.LValue, error) { return h.jsonLua(opts) }})
			}
			return nil
		}, func(rr *resultReader) error {
			sys, setSys = rr.str("system_prompt")
			if t, ok := rr.table("message"); ok {
				cm, err := rr.h.customMessage(t)
				if err != nil {
					return fmt.Errorf("message: %w", err)
				}
				msg = &cm
			}
			return nil
		})
		if err != nil {
			continue
		}
		if msg != nil {
			msgs = append(msgs, *msg)
		}
		if setSys {
			systemPrompt, override = sys, sys
		}
	}
	return msgs, override
}

// promptOptions is agent.before_start's system_prompt_options: pi's
// systemPromptOptions, snake_case.
type promptOptions struct {
	Cwd              string            `json:"cwd"`
	CustomPrompt     string            `json:"custom_prompt,omitempty"`
	AppendPrompt     string            `json:"append_system_prompt,omitempty"`
	SelectedTools    []string          `json:"selected_tools"`
	ToolSnippets     map[string]string `json:"tool_snippets"`
	PromptGuidelines []string          `json:"prompt_guidelines"`
	ContextFiles     []contextFileInfo `json:"context_files"`
}

type contextFileInfo struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// promptOptionsJSON is the run's system_prompt_options as JSON; nil when
// the base prompt is a fixed text.
func promptOptionsJSON(ctx context.Context) json.RawMessage {
	info, ok := agent.PromptInfoFrom(ctx)
	if !ok {
		return nil
	}
	o := promptOptions{Cwd: info.Cwd, CustomPrompt: info.Custom, AppendPrompt: info.Append,
		SelectedTools: info.SelectedTools, ToolSnippets: info.ToolSnippets, PromptGuidelines: info.PromptGuidelines,
		ContextFiles: []contextFileInfo{}}
	for _, f := range info.ContextFiles {
		o.ContextFiles = append(o.ContextFiles, contextFileInfo{f.Path, f.Content})
	}
	b, err := marshal(o)
	if err != nil {
		return nil
	}
	return b
}

// SystemPrompt implements agent.Hooks (chat.system.transform).
func (r *Runtime) SystemPrompt(ctx context.Context, prompt string) string {
	if len(r.listeners(evSystemTransform)) == 0 {
		return prompt
	}
	return r.systemPrompt(ctx, prompt)
}

// inSystemTransform marks the context of chat.system.transform handlers
// (ctx.get_system_prompt would run them again, forever).
type inSystemTransform struct{}

func (r *Runtime) systemPrompt(ctx context.Context, prompt string) string {
	ctx = context.WithValue(ctx, inSystemTransform{}, true)
	for _, hd := range r.listeners(evSystemTransform) {
		var sys string
		var set bool
		err := r.invoke(ctx, hd, func(_ *hook, _ *glua.LState, ev *glua.LTable) error {
			ev.RawSetString("system_prompt", glua.LString(prompt))
			return nil
		}, func(rr *resultReader) error {
			sys, set = rr.str("system_prompt")
			return nil
		})
		if err == nil && set {
			prompt = sys
		}
	}
	return prompt
}

// Params implements agent.Hooks (chat.params): fields present in the
// result replace the current ones; json.null clears an optional one.
func (r *Runtime) Params(ctx context.Context, p agent.Params) agent.Params {
	if len(r.listeners(evChatParams)) == 0 {
		return p
	}
	return r.params(ctx, p)
}

func (r *Runtime) params(ctx context.Context, p agent.Params) agent.Params {
	for _, hd := range r.listeners(evChatParams) {
		var np agent.Params
		set := false
		err := r.invoke(ctx, hd, func(h *hook, L *glua.LState, ev *glua.LTable) error {
			t := L.CreateTable(0, 5)
			if p.Temperature != nil {
				t.RawSetString("temperature", glua.LNumber(*p.Temperature))
			}
			t.RawSetString("max_tokens", glua.LNumber(p.MaxTokens))
			if p.TopP != nil {
				t.RawSetString("top_p", glua.LNumber(*p.TopP))
			}
			t.RawSetString("thinking_level", glua.LString(p.ThinkingLevel))
			if p.Extra != nil {
				v, err := h.valueLua(p.Extra)
				if err != nil {
					return err
				}
				t.RawSetString("extra", v)
			}
			ev.RawSetString("params", t)
			return nil
		}, func(rr *resultReader) error {
			t, ok := rr.table("params")
			if !ok {
				return nil
			}
			var err error
			np, err = rr.h.mergeParams(p, t)
			set = err == nil
			return err
		})
		if err == nil && set {
			p = np
		}
	}
	return p
}

func (h *hook) mergeParams(p agent.Params, t *glua.LTable) (agent.Params, error) {
	optFloat := func(key string, dst **float64) error {
		switch v := t.RawGetString(key).(type) {
		case *glua.LNilType:
		case glua.LNumber:
			f := float64(v)
			*dst = &f
		default:
			if !h.codec().IsNull(v) {
				return fmt.Errorf("params.%s: number expected, got %s", key, v.Type())
			}
			*dst = nil
		}
		return nil
	}
	if err := checkFields(t, "params", "temperature", "max_tokens", "top_p", "thinking_level", "extra"); err != nil {
		return p, err
	}
	if err := optFloat("temperature", &p.Temperature); err != nil {
		return p, err
	}
	if err := optFloat("top_p", &p.TopP); err != nil {
		return p, err
	}
	switch v := t.RawGetString("max_tokens").(type) {
	case *glua.LNilType:
	case glua.LNumber:
		p.MaxTokens = int(v)
	default:
		return p, fmt.Errorf("params.max_tokens: number expected, got %s", v.Type())
	}
	switch v := t.RawGetString("thinking_level").(type) {
	case *glua.LNilType:
	case glua.LString:
		l, err := agent.ParseThinkingLevel(string(v))
		if err != nil {
			return p, fmt.Errorf("params.thinking_level: unknown level %q", string(v))
		}
		p.ThinkingLevel = l
	default:
		return p, fmt.Errorf("params.thinking_level: string expected, got %s", v.Type())
	}
	switch v := t.RawGetString("extra").(type) {
	case *glua.LNilType:
	case *glua.LTable:
		raw, err := h.luaJSON(v)
		if err != nil {
			return p, fmt.Errorf("params.extra: %w", err)
		}
		var extra map[string]any
		if err := json.Unmarshal(raw, &extra); err != nil {
			return p, fmt.Errorf("params.extra: an object expected")
		}
		p.Extra = extra
	default:
		if !h.codec().IsNull(v) {
			return p, fmt.Errorf("params.extra: table expected, got %s", v.Type())
		}
		p.Extra = nil
	}
	return p, nil
}

// checkFields refuses keys of t outside known.
func checkFields(t *glua.LTable, what string, known ...string) error {
	rr := resultReader{t: t, known: known}
	if err := rr.checkKeys(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// ResolveModel implements agent.Hooks (model.resolve): fields present in
// the result replace the current ones.
func (r *Runtime) ResolveModel(ctx context.Context, m agent.Model) agent.Model {
	if len(r.listeners(evModelResolve)) == 0 {
		return m
	}
	return r.resolveModel(ctx, m)
}

func (r *Runtime) resolveModel(ctx context.Context, m agent.Model) agent.Model {
	for _, hd := range r.listeners(evModelResolve) {
		var nm agent.Model
		set := false
		err := r.invoke(ctx, hd, func(_ *hook, L *glua.LState, ev *glua.LTable) error {
			ev.RawSetString("model", modelLua(L, m))
			return nil
		}, func(rr *resultReader) error {
			t, ok := rr.table("model")
			if !ok {
				return nil
			}
			var err error
			nm, err = mergeModel(m, t)
			set = err == nil
			return err
		})
		if err == nil && set {
			m = nm
		}
	}
	return m
}

func mergeModel(m agent.Model, t *glua.LTable) (agent.Model, error) {
	if err := checkFields(t, "model", "provider", "id", "api", "base_url", "context_window", "max_tokens", "reasoning", "input"); err != nil {
		return m, err
	}
	rr := resultReader{t: t}
	if v, ok := rr.str("provider"); ok {
		m.Provider = v
	}
	if v, ok := rr.str("id"); ok {
		m.ID = v
	}
	if v, ok := rr.str("api"); ok {
		if v != agent.APIOpenAICompletions && v != agent.APIAnthropicMessages {
			return m, fmt.Errorf("model.api: unknown API %q", v)
		}
		m.API = v
	}
	if v, ok := rr.str("base_url"); ok {
		m.BaseURL = v
	}
	if v, ok := rr.boolean("reasoning"); ok {
		m.Reasoning = v
	}
	switch v := t.RawGetString("input").(type) {
	case *glua.LNilType:
	case *glua.LTable:
		input := []string{}
		for i := 1; i <= v.Len(); i++ {
			s, ok := v.RawGetInt(i).(glua.LString)
			if !ok {
				return m, fmt.Errorf("model.input[%d]: string expected, got %s", i, v.RawGetInt(i).Type())
			}
			input = append(input, string(s))
		}
		if err := agent.ParseInput(input); err != nil {
			return m, fmt.Errorf("model.input: %w", err)
		}
		m.Input = input
	default:
		return m, fmt.Errorf("model.input: array of \"text\" and \"image\" expected, got %s", v.Type())
	}
	for key, dst := range map[string]*int{"context_window": &m.ContextWindow, "max_tokens": &m.MaxTokens} {
		switch v := t.RawGetString(key).(type) {
		case *glua.LNilType:
		case glua.LNumber:
			*dst = int(v)
		default:
			return m, fmt.Errorf("model.%s: number expected, got %s", key, v.Type())
		}
	}
	if rr.err != nil {
		return m, fmt.Errorf("model.%w", rr.err)
	}
	return m, nil
}

// checkBaseURL accepts an absolute http or https URL with a host.
func checkBaseURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%q is not a URL", s)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", s)
	}
	return nil
}

// Auth implements agent.Hooks (auth.get): later handlers override the key
// and base URL; headers merge.
func (r *Runtime) Auth(ctx context.Context, provider, modelID string) agent.AuthOverride {
	if len(r.listeners(evAuthGet)) == 0 {
		return agent.AuthOverride{}
	}
	return r.auth(ctx, provider, modelID)
}

func (r *Runtime) auth(ctx context.Context, provider, modelID string) agent.AuthOverride {
	var out agent.AuthOverride
	for _, hd := range r.listeners(evAuthGet) {
		var key, base string
		var setKey, setBase bool
		var headers map[string]string
		err := r.invoke(ctx, hd, setStr("provider", provider, "model_id", modelID), func(rr *resultReader) error {
			key, setKey = rr.str("api_key")
			base, setBase = rr.str("base_url")
			if setBase && base != "" {
				if err := checkBaseURL(base); err != nil {
					// The rest of the result stands: the request goes
					// where it would have gone.
					r.report(fmt.Sprintf("hook %s: %s: base_url ignored: %v", hd.h.src.Name, events[evAuthGet].Name, err))
					setBase = false
				}
			}
			if t, ok := rr.table("headers"); ok {
				headers = map[string]string{}
				var bad glua.LValue
				t.ForEach(func(k, v glua.LValue) {
					ks, ok1 := k.(glua.LString)
					vs, ok2 := v.(glua.LString)
					if !ok1 || !ok2 {
						bad = k
						return
					}
					headers[string(ks)] = string(vs)
				})
				if bad != nil {
					return fmt.Errorf("headers: string names and values expected (at %s)", bad)
				}
			}
			return nil
		})
		if err != nil {
			continue
		}
		if setKey {
			out.APIKey = key
		}
		if setBase {
			out.BaseURL = base
		}
		if headers != nil {
			if out.Headers == nil {
				out.Headers = map[string]string{}
			}
			maps.Copy(out.Headers, headers)
		}
	}
	return out
}

// BeforeTool implements agent.Hooks (tool.execute.before): the first
// block wins; input replacements chain. A handler that fails in any way
// blocks the call, with the failure as the reason; a guard out of order
// (guard.go) blocks every call.
func (r *Runtime) BeforeTool(ctx context.Context, name, callID string, input json.RawMessage) agent.ToolCallDecision {
	s := r.snap.Load()
	if len(s.handlers[evToolBefore]) == 0 && len(s.guards) == 0 {
		return agent.ToolCallDecision{}
	}
	return r.beforeTool(ctx, s, name, callID, input)
}

func (r *Runtime) beforeTool(ctx context.Context, s *snapshot, name, callID string, input json.RawMessage) agent.ToolCallDecision {
	if dec, refused := r.guardsAnswer(s.guards); refused {
		return dec
	}
	var dec agent.ToolCallDecision
	cur := input
	source, readOnly := r.toolOrigin(name)
	for _, hd := range s.handlers[evToolBefore] {
		var block bool
		var reason string
		var newInput json.RawMessage
		var sandbox *agent.Sandbox
		input := cur // the arguments this handler gets
		err := r.invoke(ctx, hd, func(h *hook, L *glua.LState, ev *glua.LTable) error {
			ev.RawSetString("tool_name", glua.LString(name))
			ev.RawSetString("tool_call_id", glua.LString(callID))
			ev.RawSetString("source", glua.LString(source))
			ev.RawSetString("read_only", glua.LBool(readOnly))
			h.setLazy(L, ev, lazyField{"input", func() (glua.LValue, error) {
				in, err := h.jsonLua(input)
				if in == glua.LNil && err == nil {
					in = L.NewTable()
				}
				return in, err
			}})
			return nil
		}, func(rr *resultReader) error {
			block, _ = rr.boolean("block")
			reason, _ = rr.str("reason")
			if t, ok := rr.table("input"); ok {
				raw, err := rr.h.luaJSON(t)
				if err != nil {
					return fmt.Errorf("input: %w", err)
				}
				if len(raw) == 0 || raw[0] != '{' {
					return fmt.Errorf("input: an object expected")
				}
				newInput = raw
			}
			if t, ok := rr.table("sandbox"); ok {
				sandbox = sandboxOf(rr, t)
			}
			return nil
		})
		if err != nil {
			if hd.h.isGuard() {
				return guardFailed(hd.h, err)
			}
			return agent.ToolCallDecision{Block: true, Reason: fmt.Sprintf("hook %s: %s: %v", hd.h.src.Name, events[evToolBefore].Name, err)}
		}
		if block {
			if reason == "" {
				reason = "Tool call blocked by hook " + hd.h.src.Name
			}
			return agent.ToolCallDecision{Block: true, Reason: reason}
		}
		if newInput != nil {
			cur = newInput
			dec.Input = newInput
		}
		if sandbox != nil {
			dec.Sandbox = sandbox // guards come last: theirs stands
		}
	}
	return dec
}

// sandboxOf reads a tool.execute.before result's sandbox table.
func sandboxOf(rr *resultReader, t *glua.LTable) *agent.Sandbox {
	sb := &agent.Sandbox{}
	switch v := t.RawGetString("workdir").(type) {
	case *glua.LNilType:
	case glua.LBool:
		sb.Workdir = bool(v)
	default:
		rr.fail("sandbox.workdir: boolean expected, got %s", v.Type())
	}
	switch v := t.RawGetString("write").(type) {
	case *glua.LNilType:
	case *glua.LTable:
		for i := 1; i <= v.Len(); i++ {
			p, ok := v.RawGetInt(i).(glua.LString)
			if !ok || p == "" {
				rr.fail("sandbox.write: a list of paths expected")
				break
			}
			sb.Write = append(sb.Write, string(p))
		}
	default:
		rr.fail("sandbox.write: table expected, got %s", v.Type())
	}
	return sb
}

// AfterTool implements agent.Hooks (tool.execute.after): each handler may
// replace the content, the details and the error flag. Handlers see input
// (what the tool ran with) and original_input (what tool.execute.before
// was first given; input itself when nothing replaced it, or original is
// nil).
func (r *Runtime) AfterTool(ctx context.Context, name, callID string, input, original json.RawMessage, res agent.ToolResult) agent.ToolResult {
	if len(r.listeners(evToolAfter)) == 0 {
		return res
	}
	if original == nil {
		original = input
	}
	return r.afterTool(ctx, name, callID, input, original, res)
}

func (r *Runtime) afterTool(ctx context.Context, name, callID string, input, original json.RawMessage, res agent.ToolResult) agent.ToolResult {
	for _, hd := range r.listeners(evToolAfter) {
		next := res
		changed := false
		cur := res // the result this handler gets
		content := newSharedBlocks(cur.Content)
		err := r.invoke(ctx, hd, func(h *hook, L *glua.LState, ev *glua.LTable) error {
			ev.RawSetString("tool_name", glua.LString(name))
			ev.RawSetString("tool_call_id", glua.LString(callID))
			ev.RawSetString("is_error", glua.LBool(cur.IsError))
			ev.RawSetString("terminate", glua.LBool(cur.Terminate))
			h.setLazy(L, ev,
				lazyField{"input", func() (glua.LValue, error) { return h.jsonLua(input) }},
				lazyField{"original_input", func() (glua.LValue, error) { return h.jsonLua(original) }},
				h.lazyArray("content", content.get),
				lazyField{"details", func() (glua.LValue, error) { return h.jsonLua(cur.Details) }})
			return nil
		}, func(rr *resultReader) error {
			h := rr.h
			switch c := rr.t.RawGetString("content"); c.(type) {
			case *glua.LNilType:
			default:
				content, err := h.luaContent(c)
				if err != nil {
					return fmt.Errorf("content: %w", err)
				}
				next.Content, changed = content, true
			}
			switch d := rr.t.RawGetString("details"); {
			case d == glua.LNil:
			case h.codec().IsNull(d):
				next.Details, changed = nil, true
			default:
				raw, err := h.luaJSON(d)
				if err != nil {
					return fmt.Errorf("details: %w", err)
				}
				next.Details, changed = raw, true
			}
			if v, ok := rr.boolean("is_error"); ok {
				next.IsError, changed = v, true
			}
			if v, ok := rr.boolean("terminate"); ok {
				next.Terminate, changed = v, true
			}
			return nil
		})
		if err == nil && changed {
			res = next
		}
	}
	return res
}

// Notify implements agent.Hooks: agent_start, turn_start, turn_end and
// agent_end become agent.start, turn.start, turn.end and agent.end.
func (r *Runtime) Notify(ctx context.Context, ev agent.Event) {
	var id eventID
	switch ev.Type {
	case agent.EventAgentStart:
		r.turnIndex.Store(0)
		id = evAgentStart
	case agent.EventTurnStart:
		id = evTurnStart
	case agent.EventTurnEnd:
		defer r.turnIndex.Add(1)
		id = evTurnEnd
	case agent.EventAgentEnd:
		id = evAgentEnd
	default:
		return
	}
	if len(r.listeners(id)) == 0 {
		return
	}
	r.notifyLoop(ctx, id, r.turnIndex.Load(), ev)
}

func (r *Runtime) notifyLoop(ctx context.Context, id eventID, turn int64, ev agent.Event) {
	// The messages' JSON is encoded once, for the first hook that reads
	// them; each hook decodes its own tables from it.
	var msg *sharedJSON
	var msgs *sharedList
	switch id {
	case evTurnEnd:
		if ev.Message != nil {
			msg = newSharedJSON(ev.Message)
		}
		msgs = newSharedMessages(ev.ToolResults)
	case evAgentEnd:
		msgs = newSharedMessages(ev.Messages)
	}
	r.notify(ctx, id, func(h *hook, L *glua.LState, t *glua.LTable) error {
		var lazy []lazyField
		switch id {
		case evTurnStart:
			t.RawSetString("turn_index", glua.LNumber(turn))
		case evTurnEnd:
			t.RawSetString("turn_index", glua.LNumber(turn))
			if msg != nil {
				lazy = append(lazy, h.lazyJSON("message", msg))
			}
			lazy = append(lazy, h.lazyArray("tool_results", msgs.get))
		case evAgentEnd:
			lazy = append(lazy, h.lazyArray("messages", msgs.get))
			t.RawSetString("total_tokens", glua.LNumber(ev.Tokens.Total))
		}
		if id == evTurnEnd || id == evAgentEnd {
			lazy = append(lazy, lazyValue("tokens", func() glua.LValue { return tokensLua(L, ev.Tokens) }))
			t.RawSetString("context_tokens", glua.LNumber(ev.ContextTokens))
			t.RawSetString("context_limit", glua.LNumber(ev.ContextLimit))
		}
		h.setLazy(L, t, lazy...)
		return nil
	})
}
