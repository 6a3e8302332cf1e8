package lua

// This file builds `ctx`, the second argument of every handler: live
// fields (cwd, model, session_id, ...) read through a metatable, and the
// ui, session and models tables. Each hook gets its ctx once; command
// handlers get a variant that adds set_model, set_thinking_level and abort.

import (
	"fmt"
	"strings"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/stdlib"
)

// ctxFields are ctx's live fields.
var ctxFields = []stdlib.Field{
	{Name: "cwd", Type: "string", Doc: "the working folder"},
	{Name: "has_ui", Type: "boolean", Doc: "true in the REPL and --mode rpc (the RPC client answers the dialogs); false in one-shot and JSON modes: dialogs answer nil/false"},
	{Name: "session_id", Type: "string?"},
	{Name: "session_file", Type: "string?", Doc: "nil without a session file (--no-session)"},
	{Name: "model", Type: "lunar.Model"},
	{Name: "thinking_level", Type: `"off"|"minimal"|"low"|"medium"|"high"`},
	{Name: "data_dir", Type: "string?", Doc: "this hook's own writable folder (created on first use)"},
	{Name: "config_dir", Type: "string?", Doc: "lunar's configuration folder (config.json, hooks.d/, AGENTS.md), as seed 004's configDir; nil when unknown. Hooks read it; writing stays under data_dir"},
	{Name: "ui", Type: "lunar.UI"},
	{Name: "session", Type: "lunar.SessionAPI"},
	{Name: "models", Type: "lunar.Models"},
	{Name: "sessions", Type: "lunar.Sessions", Doc: "the other sessions on disk, read-only"},
}

// commandFields are what command handlers' ctx adds.
var commandFields = []stdlib.Field{
	{Name: "args", Type: "string[]", Doc: "the arguments split into words"},
}

// ctxFuncs describes ctx's own functions, bound to h (nil: description only).
func ctxFuncs(h *hook) *stdlib.Module {
	return &stdlib.Module{Name: "lunar.Ctx", Funcs: []stdlib.Func{
		{Name: "get_system_prompt", Fn: h.ctxGetSystemPrompt, Returns: "string?, string?",
			Doc: "The system prompt the next model call sends: the base prompt (or, during a run, the one agent.before_start set) after the chat.system.transform hooks. Not from a chat.system.transform handler (ev.system_prompt is the prompt so far). In `lunar hooks check` (no session, no model): nil, \"not available\"."},
		{Name: "is_idle", Fn: h.ctxIsIdle, Returns: "boolean",
			Doc: "Reports whether no run is in progress. During one, lunar.send and lunar.send_message join the running loop, ctx.session.compact() waits for the next turn boundary, and built-in commands that change the session are refused."},
		{Name: "queued", Fn: h.ctxQueued, Returns: "lunar.Queue",
			Doc: "The prompts waiting in the agent's input queue, in delivery order: `steering` (before its next model call) and `follow_up` (when it would stop). Between runs: what waits for the next run (left by a stopped run, or an RPC client's steer and follow_up); a new session starts with none. Custom messages hooks queued are not listed."},
	}}
}

func (h *hook) ctxGetSystemPrompt(L *glua.LState) int {
	if ctx := L.Context(); ctx != nil && ctx.Value(inSystemTransform{}) != nil {
		L.RaiseError("ctx.get_system_prompt cannot be called from a chat.system.transform handler: ev.system_prompt is the prompt so far")
	}
	sys, err := h.rt.host.SystemPrompt(L.Context())
	if err != nil {
		return pushResult(L, err)
	}
	L.Push(glua.LString(sys))
	return 1
}

func (h *hook) ctxIsIdle(L *glua.LState) int {
	L.Push(glua.LBool(h.rt.host.Idle()))
	return 1
}

func (h *hook) ctxQueued(L *glua.LState) int {
	steering, followUp := h.rt.host.Queued()
	list := func(ss []string) *glua.LTable {
		t := L.CreateTable(len(ss), 0)
		for _, s := range ss {
			t.Append(glua.LString(s))
		}
		return t
	}
	t := L.CreateTable(0, 2)
	t.RawSetString("steering", list(steering))
	t.RawSetString("follow_up", list(followUp))
	L.Push(t)
	return 1
}

// ctxTables describes ctx's function tables, bound to h (nil: description only).
func ctxTables(h *hook) (ui, sess, models, cmd *stdlib.Module) {
	ui = &stdlib.Module{Name: "lunar.UI", Doc: "Talking to the user: pickers and prompts in the REPL, pi's extension_ui_request lines in --mode rpc (docs/rpc.md); without a UI dialogs return nil (confirm: false) and notify prints to stderr. Every text shown (titles, options, messages, printed lines) has its control characters but newline and tab shown escaped (`\\x1b`, `\\u009b`): a hook cannot send the terminal escape sequences.",
		Funcs: []stdlib.Func{
			{Name: "select", Fn: h.uiSelect, Returns: "string?", Params: []stdlib.Param{{Name: "title", Type: "string"}, {Name: "options", Type: "string[]"}},
				Doc: "Lets the user pick one option (in the REPL a picker: arrows and Enter, a number, or the first letters of an option, such as y or no); nil when dismissed (an empty answer, Esc, Ctrl+D) or without a UI. Ctrl+C also stops the turn: a tool call the question was about is cancelled. A title of several lines shows its first line as the question and the rest as it is (a command, a diff)."},
			{Name: "confirm", Fn: h.uiConfirm, Returns: "boolean", Params: []stdlib.Param{{Name: "title", Type: "string"}, {Name: "message", Type: "string", Optional: true}},
				Doc: "Asks a yes/no question; false without a UI. Ctrl+C answers false and stops the turn: a tool call the question was about is cancelled."},
			{Name: "input", Fn: h.uiInput, Returns: "string?", Params: []stdlib.Param{{Name: "title", Type: "string"}, {Name: "placeholder", Type: "string", Optional: true}},
				Doc: "Asks for a line of text; nil when dismissed (Ctrl+D) or without a UI. Ctrl+C also stops the turn: a tool call the question was about is cancelled."},
			{Name: "notify", Fn: h.uiNotify, Returns: "boolean", Params: []stdlib.Param{{Name: "message", Type: "string|lunar.NotifyOptions", Doc: "the text, or a table with all the options"}, {Name: "level", Type: `"info"|"warning"|"error"|"success"`, Optional: true}, {Name: "opts", Type: "lunar.NotifyOptions", Optional: true}},
				Doc: "Shows a notice (\"title: message\" with a title). With desktop = true the REPL also asks the terminal for a desktop notification (OSC 777, OSC 99 in kitty, OSC 9 elsewhere), when its output is a terminal; title and message are sent sanitised, on one line, never as escapes. Returns whether a desktop notification was sent."},
			{Name: "print", Fn: h.uiPrint, Params: []stdlib.Param{{Name: "text", Type: "string"}},
				Doc: "Prints text as it is (control characters shown escaped), on lines of its own: in the REPL through its renderer (between reply lines, never inside the prompt line); on stderr in one-shot, JSON and RPC modes (stdout stays the answer, or pure JSONL)."},
			{Name: "set_editor_text", Fn: h.uiSetEditorText, Params: []stdlib.Param{{Name: "text", Type: "string"}},
				Doc: "Prefills the next prompt line."},
			{Name: "get_editor_text", Fn: h.uiGetEditorText, Returns: "string",
				Doc: "Returns the prefilled prompt line."},
			{Name: "editor", Fn: h.uiEditor, Returns: "string?", Params: []stdlib.Param{{Name: "title", Type: "string"}, {Name: "text", Type: "string", Optional: true}},
				Doc: "Lets the user edit text of several lines, starting from text: in the REPL $VISUAL (or $EDITOR) opens it in a temporary file and the saved file is the answer; in --mode rpc an editor request to the client; nil when the editor fails or exits non-zero, when neither variable is set, or without a UI (pi's ctx.ui.editor)."},
		}}
	sess = &stdlib.Module{Name: "lunar.SessionAPI", Doc: "The current session. Entries are session JSON (camelCase, as stored).",
		Funcs: []stdlib.Func{
			{Name: "entries", Fn: h.sessEntries, Returns: "lunar.Entry[]", Params: []stdlib.Param{{Name: "filter", Type: "lunar.EntryFilter", Optional: true}},
				Doc: "The entries on the current path, root to leaf; with a filter only the entries it matches (only those are converted: cheap enough for every model call)."},
			{Name: "path_ids", Fn: h.sessPathIDs, Returns: "string[]", Doc: "The ids of the entries on the current path, root to leaf (positions without converting entries)."},
			{Name: "all_entries", Fn: h.sessAllEntries, Returns: "lunar.Entry[]", Doc: "Every entry, in file order (all branches)."},
			{Name: "get", Fn: h.sessGet, Returns: "lunar.Entry?", Params: []stdlib.Param{{Name: "id", Type: "string"}}, Doc: "One entry by id."},
			{Name: "leaf_id", Fn: h.sessLeafID, Returns: "string?", Doc: "The id of the current leaf."},
			{Name: "tree", Fn: h.sessTree, Returns: "lunar.TreeNode[]", Doc: "The whole tree: root nodes, children in file order."},
			{Name: "label", Fn: h.sessLabel, Returns: "string?", Params: []stdlib.Param{{Name: "id", Type: "string"}}, Doc: "The label of an entry."},
			{Name: "set_label", Fn: h.sessSetLabel, Returns: "string?, string?", Params: []stdlib.Param{{Name: "id", Type: "string"}, {Name: "text", Type: "string", Optional: true}},
				Doc: "Labels an entry (nil or \"\" clears); returns the label entry's id. In `lunar hooks check` (no session, no model): nil, \"not available\"."},
			{Name: "name", Fn: h.sessName, Returns: "string?", Doc: "The session's name (nil when it has none)."},
			{Name: "set_name", Fn: h.sessSetName, Returns: "string?, string?", Params: []stdlib.Param{{Name: "name", Type: "string"}},
				Doc: "Names the session (\"\" clears; the latest name wins, as /name); returns the session_info entry's id. In `lunar hooks check` (no session, no model): nil, \"not available\"."},
			{Name: "branch", Fn: h.sessBranch, Returns: "true?, string?", Params: []stdlib.Param{{Name: "id", Type: "string"}, {Name: "summary", Type: "string", Optional: true}},
				Doc: "Moves the leaf to an entry (the branch events fire), storing summary as a branch summary when given. In `lunar hooks check` (no session, no model): nil, \"not available\"."},
			{Name: "compact", Fn: h.sessCompact, Returns: "true?, string?", Params: []stdlib.Param{{Name: "instructions", Type: "string", Optional: true}},
				Doc: "Compacts the session (reason \"hook\"). Idle: now, returning true, or nil and why not (nothing to compact, already compacted, cancelled by a hook, the model's error). During a run (ctx.is_idle() false): at the next turn boundary, before the next model call, and the run goes on on the compacted context (pi aborts the run instead); or after the run when it makes no more calls. It returns true at once; the outcome arrives as the session.compact event (a failure as a warning, \"compaction a hook asked for: …\"); a second call before then replaces the first's instructions. In `lunar hooks check` (no session, no model): nil, \"not available\"."},
			{Name: "context", Fn: h.sessContext, Returns: "lunar.ContextMessage[]?, string?",
				Doc: "The messages the next model call would send: the path's context after the context hooks, each with entry_id. Not from a context handler. In `lunar hooks check` (no session, no model): nil, \"not available\"."},
			{Name: "rebuild_context", Fn: h.sessRebuildContext, Returns: "{messages: integer, tokens: integer}?, string?",
				Doc: "Builds the context as the next model call would (running the context hooks) and measures it. In `lunar hooks check` (no session, no model): nil, \"not available\"."},
			{Name: "token_usage", Fn: h.sessTokenUsage, Returns: "lunar.Tokens?", Doc: "Token usage of the session so far."},
			{Name: "context_limit", Fn: h.sessContextLimit, Returns: "integer", Doc: "The current model's context window."},
			{Name: "toast", Fn: h.sessToast, Params: []stdlib.Param{{Name: "title", Type: "string"}, {Name: "message", Type: "string"}, {Name: "level", Type: `"info"|"warning"|"error"|"success"`, Optional: true}},
				Doc: "A short notice (ctx.ui.notify with a title)."},
		}}
	models = &stdlib.Module{Name: "lunar.Models", Doc: "The model registry.",
		Funcs: []stdlib.Func{
			{Name: "find", Fn: h.modelsFind, Returns: "lunar.Model?", Params: []stdlib.Param{{Name: "provider", Type: "string"}, {Name: "id", Type: "string"}}, Doc: "Looks a model up in lunar's table (pi's model registry for lunar's providers, the Ollama models, config's \"providers\") or the model in use; nil for any other id."},
			{Name: "available", Fn: h.modelsAvailable, Returns: "lunar.Model[]", Doc: "Models whose provider has credentials."},
			{Name: "resolve_api_key", Fn: h.modelsResolveAPIKey, Returns: "string?, string?", Params: []stdlib.Param{{Name: "model", Type: "lunar.Model|string", Doc: `a model table or "provider/id"`}},
				Doc: "The API key lunar would use for a model. In `lunar hooks check` (no session, no model): nil, \"not available\"."},
		}}
	cmd = &stdlib.Module{Name: "lunar.CommandCtx", Doc: "Command handlers get a ctx with these as well:",
		Funcs: []stdlib.Func{
			{Name: "set_model", Fn: h.cmdSetModel, Returns: "true?, string?", Params: []stdlib.Param{{Name: "provider", Type: "string"}, {Name: "id", Type: "string"}},
				Doc: "Switches the model (model.change fires). In `lunar hooks check` (no session, no model): nil, \"not available\"."},
			{Name: "set_thinking_level", Fn: h.cmdSetThinkingLevel, Returns: "true?, string?", Params: []stdlib.Param{{Name: "level", Type: "string"}},
				Doc: "Sets the thinking level. In `lunar hooks check` (no session, no model): nil, \"not available\"."},
			{Name: "abort", Fn: h.cmdAbort, Doc: "Stops the running reply, if any."},
			{Name: "new_session", Fn: h.cmdNewSession, Returns: "true?, string?", Params: []stdlib.Param{{Name: "opts", Type: "{parent: boolean?, prompt: string?}", Optional: true}},
				Doc: "Starts a new session (session.before_clear may cancel it; session.start fires with reason \"new\"). parent: record the current session as the new one's parentSession (a handoff); prompt: prefill the next prompt in the REPL, or send it without a UI. In `lunar hooks check` (no session, no model): nil, \"not available\"."},
		}}
	return ui, sess, models, cmd
}

// ctxSubtables are the fields of ctx holding function tables.
var ctxSubtables = [...]string{"ui", "session", "models", "sessions"}

// newCtxTable builds the hook's ctx (cmd: the command ctx): an empty
// table whose metatable serves the live fields and, on the first read of
// anything else (or pairs), fills in ctx's functions and function tables.
// A handler that ignores ctx, or only reads live fields, builds none of
// its ~35 functions.
func (h *hook) newCtxTable(cmd bool) *glua.LTable {
	L := h.L
	if h.ctxMeta == nil {
		h.ctxMeta = L.CreateTable(0, 2)
		h.ctxMeta.RawSetString("__index", L.NewFunction(h.ctxIndex))
		// pairs and next see the functions (stdlib.FillKey); the
		// metatable stays for the live fields.
		h.ctxMeta.RawSetString(stdlib.FillKey, L.NewFunction(func(L *glua.LState) int {
			h.ctxFill(L.CheckTable(1))
			return 0
		}))
	}
	t := L.CreateTable(0, 8)
	t.Metatable = h.ctxMeta
	return t
}

// ctxFill sets ctx's functions and function tables in t (ctx or the
// command ctx), once; the function tables are shared by both. Fields the
// hook set itself stay.
func (h *hook) ctxFill(t *glua.LTable) {
	if t == h.ctxFilled[0] || t == h.ctxFilled[1] {
		return
	}
	ui, sess, models, cmd := ctxTables(h)
	if h.ctxSubs[0] == nil {
		for i, m := range []*stdlib.Module{ui, sess, models, sessionsModule(h)} {
			h.ctxSubs[i] = m.Table(h.L)
		}
	}
	set := func(name string, v glua.LValue) {
		if t.RawGetString(name) == glua.LNil {
			t.RawSetString(name, v)
		}
	}
	for _, f := range ctxFuncs(h).Funcs {
		set(f.Name, h.L.NewFunction(f.Fn))
	}
	if t == h.cmdCtx {
		for _, f := range cmd.Funcs {
			set(f.Name, h.L.NewFunction(f.Fn))
		}
	}
	for i, name := range ctxSubtables {
		set(name, h.ctxSubs[i])
	}
	if h.ctxFilled[0] == nil {
		h.ctxFilled[0] = t
	} else {
		h.ctxFilled[1] = t
	}
}

// ctxGetters serve ctx's live fields (documented in ctxFields).
var ctxGetters = map[string]func(h *hook, L *glua.LState) glua.LValue{
	"cwd":    func(h *hook, _ *glua.LState) glua.LValue { return glua.LString(h.rt.cwd()) },
	"has_ui": func(h *hook, _ *glua.LState) glua.LValue { return glua.LBool(h.rt.host.UI().HasUI()) },
	"session_id": func(h *hook, _ *glua.LState) glua.LValue {
		if s := h.rt.host.Session(); s != nil {
			return strOrNil(s.ID())
		}
		return glua.LNil
	},
	"session_file": func(h *hook, _ *glua.LState) glua.LValue {
		if s := h.rt.host.Session(); s != nil {
			return strOrNil(s.File())
		}
		return glua.LNil
	},
	"model":          func(h *hook, L *glua.LState) glua.LValue { return modelLua(L, h.rt.host.Model()) },
	"thinking_level": func(h *hook, _ *glua.LState) glua.LValue { return glua.LString(h.rt.host.ThinkingLevel()) },
	"config_dir":     func(h *hook, _ *glua.LState) glua.LValue { return strOrNil(h.rt.opts.ConfigDir) },
	"data_dir": func(h *hook, _ *glua.LState) glua.LValue {
		dir, err := h.dataDirPath()
		if err != nil {
			return glua.LNil
		}
		return glua.LString(dir)
	},
}

// ctxIndex is ctx's __index: the live fields, and the functions on the
// first read of anything else.
func (h *hook) ctxIndex(L *glua.LState) int {
	t, key := L.CheckTable(1), L.Get(2)
	if ks, ok := key.(glua.LString); ok {
		if get, ok := ctxGetters[string(ks)]; ok {
			L.Push(get(h, L))
			return 1
		}
	}
	h.ctxFill(t)
	L.Push(t.RawGet(key))
	return 1
}

func (h *hook) uiSelect(L *glua.LState) int {
	title := L.CheckString(1)
	opts := L.CheckTable(2)
	var options []string
	for i := 1; i <= opts.Len(); i++ {
		options = append(options, L.ToStringMeta(opts.RawGetInt(i)).String())
	}
	var choice string
	var ok bool
	h.waitForUser(L, func() { choice, ok = h.rt.host.UI().Select(title, options) })
	if !ok {
		L.Push(glua.LNil)
	} else {
		L.Push(glua.LString(choice))
	}
	return 1
}

func (h *hook) uiConfirm(L *glua.LState) int {
	title := L.CheckString(1)
	msg := L.OptString(2, "")
	var yes bool
	h.waitForUser(L, func() { yes = h.rt.host.UI().Confirm(title, msg) })
	L.Push(glua.LBool(yes))
	return 1
}

func (h *hook) uiInput(L *glua.LState) int {
	title := L.CheckString(1)
	ph := L.OptString(2, "")
	var text string
	var ok bool
	h.waitForUser(L, func() { text, ok = h.rt.host.UI().Input(title, ph) })
	if !ok {
		L.Push(glua.LNil)
	} else {
		L.Push(glua.LString(text))
	}
	return 1
}

func (h *hook) uiEditor(L *glua.LState) int {
	title := L.CheckString(1)
	text := L.OptString(2, "")
	var out string
	var ok bool
	h.waitForUser(L, func() { out, ok = h.rt.host.UI().Editor(title, text) })
	if !ok {
		L.Push(glua.LNil)
	} else {
		L.Push(glua.LString(out))
	}
	return 1
}

func (h *hook) uiNotify(L *glua.LState) int {
	var msg, level, title string
	var desktop bool
	opts := func(t *glua.LTable, arg int) {
		if v := luaOptString(L, t, "message", arg); v != "" {
			msg = v
		}
		if v := luaOptString(L, t, "level", arg); v != "" {
			level = v
		}
		title = luaOptString(L, t, "title", arg)
		switch v := t.RawGetString("desktop").(type) {
		case *glua.LNilType:
		case glua.LBool:
			desktop = bool(v)
		default:
			L.ArgError(arg, "desktop must be a boolean, got "+v.Type().String())
		}
	}
	if t, ok := L.Get(1).(*glua.LTable); ok {
		opts(t, 1)
	} else {
		msg, level = L.CheckString(1), L.OptString(2, "")
		if t, ok := L.Get(3).(*glua.LTable); ok {
			opts(t, 3)
		}
	}
	if level == "" {
		level = "info"
	}
	ui := h.rt.host.UI()
	text := msg
	if title != "" {
		text = title + ": " + msg
	}
	ui.Notify(text, level)
	sent := false
	if dn, ok := ui.(DesktopNotifier); ok && desktop {
		sent = dn.DesktopNotify(title, msg)
	}
	L.Push(glua.LBool(sent))
	return 1
}

func (h *hook) uiPrint(L *glua.LState) int {
	h.rt.host.UI().Print(L.CheckString(1))
	return 0
}

func (h *hook) uiSetEditorText(L *glua.LState) int {
	h.rt.host.UI().SetEditorText(L.CheckString(1))
	return 0
}

func (h *hook) uiGetEditorText(L *glua.LState) int {
	L.Push(glua.LString(h.rt.host.UI().EditorText()))
	return 1
}

func (h *hook) pushEntries(L *glua.LState, entries []*session.Entry) int {
	t, err := h.entriesLua(entries)
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	L.Push(t)
	return 1
}

func (h *hook) sessAllEntries(L *glua.LState) int {
	s := h.rt.host.Session()
	if s == nil {
		L.Push(h.codec().NewArray(0))
		return 1
	}
	return h.pushEntries(L, s.Entries())
}

func (h *hook) sessGet(L *glua.LState) int {
	id := L.CheckString(1)
	s := h.rt.host.Session()
	if s == nil {
		L.Push(glua.LNil)
		return 1
	}
	e := s.Get(id)
	if e == nil {
		L.Push(glua.LNil)
		return 1
	}
	v, err := h.valueLua(e)
	if err != nil {
		L.RaiseError("entry %s: %s", id, err.Error())
	}
	L.Push(v)
	return 1
}

func (h *hook) sessLeafID(L *glua.LState) int {
	if s := h.rt.host.Session(); s != nil {
		L.Push(strOrNil(s.LeafID()))
	} else {
		L.Push(glua.LNil)
	}
	return 1
}

// sessTree builds {entry=, label=, children={...}} nodes from the entries'
// parent links; an entry whose parent is unknown is a root.
func (h *hook) sessTree(L *glua.LState) int {
	roots := h.codec().NewArray(0)
	s := h.rt.host.Session()
	if s == nil {
		L.Push(roots)
		return 1
	}
	entries := s.Entries()
	nodes := make(map[string]*glua.LTable, len(entries))
	for _, e := range entries {
		v, err := h.valueLua(e)
		if err != nil {
			L.RaiseError("entry %s: %s", e.ID, err.Error())
		}
		n := L.CreateTable(0, 3)
		n.RawSetString("entry", v)
		n.RawSetString("children", h.codec().NewArray(0))
		if lbl := s.Label(e.ID); lbl != "" {
			n.RawSetString("label", glua.LString(lbl))
		}
		nodes[e.ID] = n
		parent := nodes[e.ParentID]
		if e.ParentID == "" || parent == nil {
			roots.Append(n)
		} else {
			parent.RawGetString("children").(*glua.LTable).Append(n)
		}
	}
	L.Push(roots)
	return 1
}

func (h *hook) sessLabel(L *glua.LState) int {
	id := L.CheckString(1)
	if s := h.rt.host.Session(); s != nil {
		L.Push(strOrNil(s.Label(id)))
	} else {
		L.Push(glua.LNil)
	}
	return 1
}

func (h *hook) sessSetLabel(L *glua.LState) int {
	id := L.CheckString(1)
	text := L.OptString(2, "")
	s := h.rt.host.Session()
	if s == nil {
		return pushResult(L, fmt.Errorf("no session: %w", ErrNotAvailable))
	}
	lid, err := s.SetLabel(id, text)
	if err != nil {
		return pushResult(L, err)
	}
	L.Push(glua.LString(lid))
	return 1
}

func (h *hook) sessName(L *glua.LState) int {
	s := h.rt.host.Session()
	if s == nil || s.Name() == "" {
		L.Push(glua.LNil)
		return 1
	}
	L.Push(glua.LString(s.Name()))
	return 1
}

func (h *hook) sessSetName(L *glua.LState) int {
	name := L.CheckString(1)
	s := h.rt.host.Session()
	if s == nil {
		return pushResult(L, fmt.Errorf("no session: %w", ErrNotAvailable))
	}
	id, err := s.SetName(name)
	if err != nil {
		return pushResult(L, err)
	}
	L.Push(glua.LString(id))
	return 1
}

func (h *hook) sessBranch(L *glua.LState) int {
	id := L.CheckString(1)
	summary := L.OptString(2, "")
	defer pauseTimeout(L.Context())()
	return pushResult(L, h.rt.host.Branch(L.Context(), id, summary))
}

func (h *hook) sessCompact(L *glua.LState) int {
	instr := L.OptString(1, "")
	defer pauseTimeout(L.Context())()
	return pushResult(L, h.rt.host.Compact(L.Context(), instr))
}

func (h *hook) sessRebuildContext(L *glua.LState) int {
	n, tokens, err := h.rt.host.RebuildContext(L.Context())
	if err != nil {
		return pushResult(L, err)
	}
	t := L.CreateTable(0, 2)
	t.RawSetString("messages", glua.LNumber(n))
	t.RawSetString("tokens", glua.LNumber(tokens))
	L.Push(t)
	return 1
}

func (h *hook) sessTokenUsage(L *glua.LState) int {
	u, ok := h.rt.host.TokenUsage()
	if !ok {
		L.Push(glua.LNil)
		return 1
	}
	L.Push(tokensLua(L, u))
	return 1
}

func (h *hook) sessContextLimit(L *glua.LState) int {
	L.Push(glua.LNumber(h.rt.host.ContextLimit()))
	return 1
}

func (h *hook) sessToast(L *glua.LState) int {
	title := L.CheckString(1)
	msg := L.CheckString(2)
	level := L.OptString(3, "info")
	text := msg
	if title != "" {
		text = title + ": " + msg
	}
	h.rt.host.UI().Notify(text, level)
	return 0
}

func (h *hook) modelsFind(L *glua.LState) int {
	m, ok := h.rt.host.FindModel(L.CheckString(1), L.CheckString(2))
	if !ok {
		L.Push(glua.LNil)
		return 1
	}
	L.Push(modelLua(L, m))
	return 1
}

func (h *hook) modelsAvailable(L *glua.LState) int {
	ms := h.rt.host.AvailableModels()
	t := h.codec().NewArray(len(ms))
	for i, m := range ms {
		t.RawSetInt(i+1, modelLua(L, m))
	}
	L.Push(t)
	return 1
}

func (h *hook) modelsResolveAPIKey(L *glua.LState) int {
	var provider, id string
	switch v := L.Get(1).(type) {
	case glua.LString:
		var ok bool
		if provider, id, ok = strings.Cut(string(v), "/"); !ok {
			L.ArgError(1, `"provider/id" expected`)
		}
	case *glua.LTable:
		provider = luaOptString(L, v, "provider", 1)
		id = luaOptString(L, v, "id", 1)
	default:
		L.ArgError(1, "model table or \"provider/id\" expected")
	}
	m, ok := h.rt.host.FindModel(provider, id)
	if !ok {
		m = agent.Model{Provider: provider, ID: id}
	}
	key, err := h.rt.host.ResolveAPIKey(m)
	if err != nil {
		return pushResult(L, err)
	}
	L.Push(glua.LString(key))
	return 1
}

// commandOnly raises unless a command handler of this hook is running.
func (h *hook) commandOnly(L *glua.LState, name string) {
	if ctx := L.Context(); ctx == nil || ctx.Value(commandKey{}) != h {
		L.RaiseError("ctx.%s is only available in command handlers", name)
	}
}

func (h *hook) cmdSetModel(L *glua.LState) int {
	h.commandOnly(L, "set_model")
	return pushResult(L, h.rt.host.SetModel(L.Context(), L.CheckString(1), L.CheckString(2)))
}

func (h *hook) cmdSetThinkingLevel(L *glua.LState) int {
	h.commandOnly(L, "set_thinking_level")
	return pushResult(L, h.rt.host.SetThinkingLevel(L.Context(), L.CheckString(1)))
}

func (h *hook) cmdNewSession(L *glua.LState) int {
	h.commandOnly(L, "new_session")
	opts := L.OptTable(1, L.NewTable())
	withParent := glua.LVAsBool(opts.RawGetString("parent"))
	prompt := ""
	if v, ok := opts.RawGetString("prompt").(glua.LString); ok {
		prompt = string(v)
	}
	defer pauseTimeout(L.Context())()
	if err := h.rt.host.NewSession(L.Context(), withParent); err != nil {
		return pushResult(L, err)
	}
	if prompt != "" {
		if ui := h.rt.host.UI(); ui.HasUI() {
			ui.SetEditorText(prompt)
		} else if err := h.rt.host.Send(L.Context(), prompt, nil); err != nil {
			return pushResult(L, err)
		}
	}
	return pushResult(L, nil)
}

func (h *hook) cmdAbort(L *glua.LState) int {
	h.commandOnly(L, "abort")
	h.rt.host.Abort()
	return 0
}
