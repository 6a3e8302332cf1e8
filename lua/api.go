package lua

// This file is the `lunar` module (global, and require("lunar")): event
// handlers, commands, tools, renderers and the actions hooks take.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/agent/tools"
	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/stdlib"
)

// lunarFuncs are the lunar module's functions (lunarModule documents
// them). The module table builds each on first use.
var lunarFuncs = map[string]func(h *hook, L *glua.LState) int{
	"on":               (*hook).luaOn,
	"command":          (*hook).luaCommand,
	"tool":             (*hook).luaTool,
	"tools":            (*hook).luaTools,
	"enable_tool":      (*hook).luaEnableTool,
	"disable_tool":     (*hook).luaDisableTool,
	"set_active_tools": (*hook).luaSetActiveTools,
	"remove_tool":      (*hook).luaRemoveTool,
	"builtin_tool":     (*hook).luaBuiltinTool,
	"send":             (*hook).luaSend,
	"send_message":     (*hook).luaSendMessage,
	"append_entry":     (*hook).luaAppendEntry,
	"renderer":         (*hook).luaRenderer,
	"complete":         (*hook).luaComplete,
	"exec":             (*hook).luaExec,
	"config":           (*hook).luaConfig,
	"log":              (*hook).luaLog,
	"guard":            (*hook).luaGuard,
	"sandbox":          (*hook).luaSandbox,
	"paths":            (*hook).luaPaths,
}

// lunarModule describes the lunar module (its functions: lunarFuncs).
func lunarModule() *stdlib.Module {
	return &stdlib.Module{
		Name: "lunar",
		Doc:  "lunar's hook API: the global `lunar`, also require(\"lunar\").",
		Funcs: []stdlib.Func{
			{Name: "on", Params: []stdlib.Param{{Name: "event", Type: "lunar.EventName"}, {Name: "handler", Type: "fun(ev: table, ctx: lunar.Ctx): table?"}},
				Doc: "Registers a handler. pi's event names are accepted as aliases; an unknown name is a load warning naming the closest known one."},
			{Name: "command", Params: []stdlib.Param{{Name: "name", Type: "string"}, {Name: "spec", Type: "lunar.CommandSpec"}},
				Doc: "Registers a slash command. Built-in commands cannot be shadowed; the first hook to register a name keeps it."},
			{Name: "tool", Params: []stdlib.Param{{Name: "spec", Type: "lunar.ToolSpec"}},
				Doc: "Registers a tool the model may call. Arguments are validated against parameters before execute runs; tool events run for it like for built-in tools."},
			{Name: "tools", Returns: "lunar.ToolInfo[]",
				Doc: "Every tool the model may be offered, built-in, hook and MCP server tools, disabled ones included, in the order the model gets them. With MCP servers configured, the first call starts them."},
			{Name: "enable_tool", Returns: "true?, string?", Params: []stdlib.Param{{Name: "name", Type: "string"}},
				Doc: "Offers a disabled tool to the model again, from the next model call on. Not available in `lunar hooks check`."},
			{Name: "disable_tool", Returns: "true?, string?", Params: []stdlib.Param{{Name: "name", Type: "string"}},
				Doc: "Stops offering a tool (built-in or hook) to the model from the next model call on; /hooks lists it as disabled. Not available in `lunar hooks check`."},
			{Name: "set_active_tools", Returns: "true?, string?", Params: []stdlib.Param{{Name: "names", Type: "string[]"}},
				Doc: "Enables exactly the named tools and disables every other (pi's setActiveTools). An unknown name changes nothing and returns the error. Not available in `lunar hooks check`."},
			{Name: "remove_tool", Returns: "true?, string?", Params: []stdlib.Param{{Name: "name", Type: "string"}},
				Doc: "Unregisters a tool this hook registered, from the next model call on (a built-in it replaced comes back)."},
			{Name: "builtin_tool", Returns: "lunar.BuiltinTool?, string?", Params: []stdlib.Param{{Name: "name", Type: "string"}},
				Doc: "lunar's own tool of that name (read, write, edit, bash), also while a hook tool replaces it, so that an override can wrap it. nil when lunar runs without it (--tools, --no-tools)."},
			{Name: "send", Returns: "true?, string?", Params: []stdlib.Param{{Name: "content", Type: "string|lunar.ContentBlock[]", Doc: "text, or text and image parts"}, {Name: "opts", Type: "lunar.SendOptions", Optional: true}},
				Doc: "Submits a prompt as the user's; the text goes to the model as it is, a leading /name included (as pi's sendUserMessage). During a run it joins the agent's input queue (ctx.queued() lists it): by default as a follow-up, taken when the agent would stop, the run going on with it; with deliver = \"steer\" once the current tool calls have finished, before the next model call. Between runs it is sent when the current step (a command, a handler) ends. With command = true a \"/name args\" line runs that command as typed instead, once the current step ends. chat.message sees it with source \"extension\". In `lunar hooks check` (no session, no model): nil, \"not available\"."},
			{Name: "send_message", Returns: "true?, string?", Params: []stdlib.Param{{Name: "message", Type: "lunar.CustomMessage"}, {Name: "opts", Type: "lunar.SendMessageOptions", Optional: true}},
				Doc: "Appends a custom_message entry (sent to the model as user content); trigger_turn runs the agent on it. During a run it joins the running loop (seed 002), as a steering message by default: appended before the next model call (deliver = \"follow_up\": when the agent would stop), or, when the run makes none, after it (with trigger_turn the run makes one more call for it). In `lunar hooks check` (no session, no model): nil, \"not available\"."},
			{Name: "append_entry", Returns: "string?, string?", Params: []stdlib.Param{{Name: "custom_type", Type: "string"}, {Name: "data", Type: "any", Optional: true}},
				Doc: "Appends a custom entry: hook state kept in the session, never sent to the model. Returns the entry id. In `lunar hooks check` (no session, no model): nil, \"not available\"."},
			{Name: "renderer", Params: []stdlib.Param{{Name: "custom_type", Type: "string"}, {Name: "fn", Type: "fun(message: lunar.Message, opts: {expanded: boolean}): string?"}},
				Doc: "Sets how the REPL prints custom messages of a type (nil: the default)."},
			{Name: "complete", Returns: "string?, string?", Params: []stdlib.Param{{Name: "input", Type: "string|lunar.Message[]"}, {Name: "opts", Type: "lunar.CompleteOptions", Optional: true}},
				Doc: "Makes one model call (e.g. for a summary) and returns its text. In `lunar hooks check` (no session, no model): nil, \"not available\"."},
			{Name: "serialize_conversation", Returns: "string", Params: []stdlib.Param{{Name: "messages", Type: "(lunar.Message|lunar.Entry)[]", Doc: "messages, or message entries (others are an error)"}},
				Doc: `The messages as plain text, as the compaction shows them to the summarising model (pi's serializeConversation): "[User]: …", "[Assistant]: …", "[Assistant thinking]: …", "[Assistant tool calls]: name(key=value, …)", "[Tool result]: …" (cut after 2000 characters), parts separated by blank lines; custom, bash and summary messages as the model gets them.`},
			{Name: "summary_prompts", Returns: "lunar.SummaryPrompts",
				Doc: `lunar's summary prompts (a fresh table), for hooks that make summaries of their own: the user message of a summary call is "<conversation>\n" .. lunar.serialize_conversation(msgs) .. "\n</conversation>\n\n" .. prompt, with the system prompt ` + "`system`."},
			{Name: "exec", Returns: "lunar.ExecResult?, string?", Params: []stdlib.Param{{Name: "cmd", Type: "string"}, {Name: "args", Type: "string[]", Optional: true}, {Name: "opts", Type: "lunar.ExecOptions", Optional: true}},
				Doc: "Runs a program (no shell) and waits for it. On timeout or cancellation its whole process group is killed."},
			{Name: "config", Returns: "any",
				Doc: "This hook's settings from config.json: the section `hooks.<name>` (name: the hook's file name without .lua; the bundled permissions hook gets the top-level `permissions`), a fresh copy on every call; nil when there is none. Available at load time."},
			{Name: "log", Params: []stdlib.Param{{Name: "level", Type: `"debug"|"info"|"warn"|"error"`}, {Name: "message", Type: "string"}},
				Doc: "Logs a line on stderr (debug lines only with --debug)."},
			{Name: "guard",
				Doc: "Makes this hook a guard, from this call on (put it on the file's first line): a guard fails closed. A tool call its tool.execute.before handler cannot decide (an error, a timeout, the memory cap) is refused, and the memory cap and hook_max_timeouts never disable it; while it is out of order (failed to load, disabled after an internal error) every tool call is refused. Only the user's own disabled_hooks (or --no-hooks) switches a guard off. The bundled permissions hook is one."},
			{Name: "sandbox", Returns: "lunar.SandboxInfo",
				Doc: "Whether the bash tool can confine commands on this system (Landlock on Linux): a `tool.execute.before` handler's `sandbox` result is only enforced where `available` is true."},
			{Name: "paths", Returns: "lunar.Paths",
				Doc: "Where lunar keeps its files and whether the working folder is trusted, for hooks that read files of their own from there (skills, prompt templates). Available at load time."},
		},
		Classes: []stdlib.Class{
			{Name: "lunar.Sandbox", Fields: []stdlib.Field{
				{Name: "workdir", Type: "boolean?", Doc: "the working folder and the temp folder are writable"},
				{Name: "write", Type: "string[]?", Doc: "more folders (with all beneath) and files that are writable; ~/ and relative paths allowed"}}},
			{Name: "lunar.Paths", Fields: []stdlib.Field{
				{Name: "config", Type: "string", Doc: `lunar's config folder ($XDG_CONFIG_HOME/lunar, default ~/.config/lunar); "" when unknown`},
				{Name: "home", Type: "string", Doc: `the user's home folder; "" when unknown`},
				{Name: "project", Type: "string", Doc: "the working folder, absolute"},
				{Name: "project_trusted", Type: "boolean", Doc: "the user trusted the working folder's .lunar/ (the trust question, or --trust): only then may a hook act on files of its .lunar/"}}},
			{Name: "lunar.SandboxInfo", Fields: []stdlib.Field{
				{Name: "available", Type: "boolean"},
				{Name: "name", Type: "string?", Doc: `the kernel feature, "landlock"`},
				{Name: "version", Type: "integer?", Doc: "its ABI version"},
				{Name: "reason", Type: "string?", Doc: "why it is not available"}}},
			{Name: "lunar.CommandSpec", Fields: []stdlib.Field{
				{Name: "description", Type: "string?"},
				{Name: "handler", Type: "fun(args: string, ctx: lunar.CommandCtx): string?", Doc: "args is the raw text after the name; a returned string is sent as the user's prompt"}}},
			{Name: "lunar.ToolSpec", Fields: []stdlib.Field{
				{Name: "name", Type: "string", Doc: "letters, digits, _ and -"},
				{Name: "description", Type: "string"},
				{Name: "parameters", Type: "table?", Doc: `JSON schema of the arguments (type = "object")`},
				{Name: "prompt_snippet", Type: "string?", Doc: "the tool's line in the system prompt's tool list, on one line (default: the description's first sentence); pi's promptSnippet"},
				{Name: "prompt_guidelines", Type: "string[]?", Doc: "bullets added to the system prompt's guidelines while the tool is offered (duplicates once); pi's promptGuidelines. Neither goes into a custom prompt (--system-prompt)"},
				{Name: "execute", Type: "fun(args: table, ctx: lunar.Ctx): string|lunar.ToolResult", Doc: "runs under the hook timeout; an error becomes an error result"}}},
			{Name: "lunar.ToolResult", Fields: []stdlib.Field{
				{Name: "content", Type: "string|lunar.ContentBlock[]"},
				{Name: "details", Type: "any", Doc: "stored with the result, not sent to the model"},
				{Name: "is_error", Type: "boolean?"},
				{Name: "terminate", Type: "boolean?", Doc: "end the run after this tool batch (no further model call) when every result of the batch terminates, as pi's"}}},
			{Name: "lunar.ToolInfo", Fields: []stdlib.Field{
				{Name: "name", Type: "string"},
				{Name: "description", Type: "string"},
				{Name: "parameters", Type: "table", Doc: "the JSON schema"},
				{Name: "source", Type: "string", Doc: `"builtin", the file name of the hook that registered it, or "mcp:<server>" for an MCP server's tool (named mcp__<server>__<tool>)`},
				{Name: "enabled", Type: "boolean", Doc: "offered to the model on the next call"},
				{Name: "read_only", Type: "boolean", Doc: "the provider says the tool changes nothing (an MCP server's readOnlyHint); false for built-ins and hook tools"},
				{Name: "replaces_builtin", Type: "boolean", Doc: "a hook tool standing in for the built-in tool of the same name"}}},
			{Name: "lunar.BuiltinTool", Fields: []stdlib.Field{
				{Name: "name", Type: "string"},
				{Name: "description", Type: "string"},
				{Name: "parameters", Type: "table", Doc: "the JSON schema"},
				{Name: "execute", Type: "fun(args: table): lunar.ToolResult", Doc: "runs the built-in (arguments validated against its schema; failures are error results) on the calling handler's context, the hook timeout paused; the result can be returned from a tool as it is"}}},
			{Name: "lunar.SendOptions", Fields: []stdlib.Field{
				{Name: "attachments", Type: "(string|lunar.ContentBlock)[]?", Doc: "file paths, or image blocks"},
				{Name: "command", Type: "boolean?", Doc: `true: content is a "/name args" line, run as if typed (a built-in, a hook's command, a template) once the current step ends; not with steer or attachments. Default false: the text is a prompt, as pi's sendUserMessage`},
				{Name: "deliver", Type: `"follow_up"|"steer"|nil`, Doc: `During a run, follow_up (default) waits until the agent would stop, then the run goes on with it; steer joins it once the current tool calls have finished, before the next model call (pi's deliverAs "followUp" and "steer"; "followUp" is accepted too). Between runs both are sent when the current step ends`}}},
			{Name: "lunar.SendMessageOptions", Fields: []stdlib.Field{
				{Name: "trigger_turn", Type: "boolean?", Doc: "run the agent on the message"},
				{Name: "deliver", Type: `"steer"|"follow_up"|nil`, Doc: `During a run: steer (default) adds it before the next model call, follow_up when the agent would stop (pi's deliverAs; "followUp" is accepted too)`}}},
			{Name: "lunar.CustomMessage", Fields: []stdlib.Field{
				{Name: "custom_type", Type: "string"},
				{Name: "content", Type: "string|lunar.ContentBlock[]"},
				{Name: "display", Type: "boolean?", Doc: "show it in the REPL (default true)"},
				{Name: "details", Type: "any"}}},
			{Name: "lunar.CompleteOptions", Fields: []stdlib.Field{
				{Name: "model", Type: "string?", Doc: `"provider/id"; default: the current model`},
				{Name: "system", Type: "string?"},
				{Name: "max_tokens", Type: "integer?"},
				{Name: "thinking", Type: `"off"|"minimal"|"low"|"medium"|"high"|nil`, Doc: "thinking level of this call (default off); used when the model can reason. A model outside lunar's table (ctx.models.find gives nil) counts as one that cannot: the level is not sent, with a warning"}}},
			{Name: "lunar.SummaryPrompts", Fields: []stdlib.Field{
				{Name: "system", Type: "string", Doc: "the system prompt of every summary call"},
				{Name: "compaction", Type: "string", Doc: "a first compaction's structured summary (Goal, Constraints & Preferences, Progress, Key Decisions, Next Steps, Critical Context)"},
				{Name: "update", Type: "string", Doc: "a later compaction: put the previous summary in <previous-summary> tags after the conversation"},
				{Name: "branch_summary", Type: "string", Doc: "a summary of a branch left with /branch --summarize"},
				{Name: "turn_prefix", Type: "string", Doc: "the beginning of a turn too long to keep whole"},
				{Name: "branch_summary_preamble", Type: "string", Doc: "the text lunar puts before a branch summary"}}},
			{Name: "lunar.ExecOptions", Fields: []stdlib.Field{
				{Name: "timeout_ms", Type: "integer?"},
				{Name: "cwd", Type: "string?", Doc: "default: the working folder"},
				{Name: "env", Type: "table<string, string|false>?", Doc: "variables to set (a string) or remove (false) in the program's environment, which is lunar's otherwise"},
				{Name: "stdin", Type: "string?", Doc: "the program's standard input (default: none)"}}},
			{Name: "lunar.ExecResult", Fields: []stdlib.Field{
				{Name: "code", Type: "integer", Doc: "exit code; -1 when killed"},
				{Name: "stdout", Type: "string"},
				{Name: "stderr", Type: "string"},
				{Name: "killed", Type: "boolean", Doc: "stopped by timeout_ms or cancellation"}}},
		},
	}
}

// where returns "file:line" of the calling Lua code.
func where(L *glua.LState) string {
	return strings.TrimSuffix(strings.TrimSpace(L.Where(1)), ":")
}

func (h *hook) luaOn(L *glua.LState) int {
	name := L.CheckString(1)
	fn := L.CheckFunction(2)
	ids := lookupEvent(name)
	if len(ids) == 0 {
		h.warn("%s: unknown event %q (did you mean %q?)", where(L), name, closestEvent(name))
		return 0
	}
	r := h.rt
	r.regMu.Lock()
	for _, id := range ids {
		h.handlers = append(h.handlers, handler{h: h, ev: id, fn: fn, piShape: piResultShapes[name][id]})
	}
	live := h.loaded()
	r.regMu.Unlock()
	if live {
		r.rebuild()
	}
	return 0
}

// command is one lunar.command registration.
type command struct {
	name, description string
	h                 *hook
	fn                *glua.LFunction
}

func (h *hook) luaCommand(L *glua.LState) int {
	name := strings.TrimPrefix(L.CheckString(1), "/")
	spec := L.CheckTable(2)
	fn, ok := spec.RawGetString("handler").(*glua.LFunction)
	if !ok {
		L.ArgError(2, "handler must be a function")
	}
	desc, ok := spec.RawGetString("description").(glua.LString)
	if !ok && spec.RawGetString("description") != glua.LNil {
		L.ArgError(2, "description must be a string")
	}
	if !validCommandName(name) {
		L.ArgError(1, fmt.Sprintf("invalid command name %q", name))
	}
	h.warnUnknownKeys(L, spec, fmt.Sprintf("lunar.command %q", name), commandSpecKeys)
	if slices.Contains(h.rt.opts.Builtins, name) {
		h.warn("%s: command /%s would shadow the built-in command: ignored", where(L), name)
		return 0
	}
	r := h.rt
	r.regMu.Lock()
	if owner := r.commandOwner(name); owner != nil {
		r.regMu.Unlock()
		h.warn("%s: command /%s is already registered by %s: ignored", where(L), name, owner.src.Name)
		return 0
	}
	h.commands = append(h.commands, &command{name: name, description: string(desc), h: h, fn: fn})
	live := h.loaded()
	r.regMu.Unlock()
	if live {
		r.rebuild()
	}
	return 0
}

// commandOwner returns the hook holding a command name. The caller holds
// r.regMu.
func (r *Runtime) commandOwner(name string) *hook {
	mustHold(&r.regMu)
	for _, o := range r.hooks {
		if len(o.errs) > 0 {
			continue
		}
		for _, c := range o.commands {
			if c.name == name {
				return o
			}
		}
	}
	return nil
}

// renderer is one lunar.renderer registration.
type renderer struct {
	customType string
	h          *hook
	fn         *glua.LFunction
}

func (h *hook) luaRenderer(L *glua.LState) int {
	ct := L.CheckString(1)
	fn := L.CheckFunction(2)
	r := h.rt
	r.regMu.Lock()
	for _, o := range r.hooks {
		for _, rd := range o.renderers {
			if rd.customType == ct && len(o.errs) == 0 {
				r.regMu.Unlock()
				h.warn("%s: renderer for %q is already set by %s: ignored", where(L), ct, o.src.Name)
				return 0
			}
		}
	}
	h.renderers = append(h.renderers, &renderer{customType: ct, h: h, fn: fn})
	live := h.loaded()
	r.regMu.Unlock()
	if live {
		r.rebuild()
	}
	return 0
}

func (h *hook) luaSend(L *glua.LState) int {
	var text string
	var atts []Attachment
	switch c := L.Get(1).(type) {
	case glua.LString:
		text = string(c)
	case *glua.LTable:
		blocks, err := h.luaContent(c)
		if err != nil {
			L.ArgError(1, err.Error())
		}
		var parts []string
		for i := range blocks {
			switch b := blocks[i]; b.Type {
			case session.BlockText:
				parts = append(parts, b.Text)
			case session.BlockImage:
				atts = append(atts, Attachment{Image: &b})
			default:
				L.ArgError(1, fmt.Sprintf("content[%d]: text or image part expected, got %s", i+1, b.Type))
			}
		}
		text = strings.Join(parts, "\n")
	default:
		L.ArgError(1, "string or content parts expected")
	}
	steer, command := false, false
	if opts, ok := L.Get(2).(*glua.LTable); ok {
		switch c := opts.RawGetString("command").(type) {
		case *glua.LNilType:
		case glua.LBool:
			command = bool(c)
		default:
			L.ArgError(2, fmt.Sprintf("command must be a boolean, got %s", c.Type()))
		}
		switch d := opts.RawGetString("deliver"); d {
		case glua.LNil, glua.LString("follow_up"), glua.LString("followUp"):
		case glua.LString("steer"):
			steer = true
		default:
			L.ArgError(2, fmt.Sprintf(`deliver must be "follow_up" or "steer", got %s`, d))
		}
		if list, ok := opts.RawGetString("attachments").(*glua.LTable); ok {
			for i := 1; i <= list.Len(); i++ {
				switch a := list.RawGetInt(i).(type) {
				case glua.LString:
					atts = append(atts, Attachment{Path: string(a)})
				case *glua.LTable:
					b, err := h.luaBlock(a)
					if err != nil {
						L.ArgError(2, fmt.Sprintf("attachments[%d]: %v", i, err))
					}
					atts = append(atts, Attachment{Image: &b})
				default:
					L.ArgError(2, fmt.Sprintf("attachments[%d]: a path or an image block expected", i))
				}
			}
		}
	}
	if command {
		line := strings.TrimSpace(text)
		switch {
		case !isCommandLine(line):
			L.ArgError(1, `with command = true, a "/name args" line expected`)
		case steer || len(atts) > 0:
			L.ArgError(2, "command = true takes neither deliver = \"steer\" nor attachments")
		}
		return pushResult(L, h.rt.host.SendCommand(L.Context(), line))
	}
	if steer {
		return pushResult(L, h.rt.host.Steer(L.Context(), text, atts))
	}
	return pushResult(L, h.rt.host.Send(L.Context(), text, atts))
}

// isCommandLine reports whether s is a "/name args" line.
func isCommandLine(s string) bool {
	name, _, _ := strings.Cut(strings.TrimPrefix(s, "/"), " ")
	name, _, _ = strings.Cut(name, "\n")
	return strings.HasPrefix(s, "/") && name != "" && !strings.Contains(name, "/")
}

// pushResult pushes true, or nil and the error's message.
func pushResult(L *glua.LState, err error) int {
	if err != nil {
		L.Push(glua.LNil)
		L.Push(errString(err))
		return 2
	}
	L.Push(glua.LTrue)
	return 1
}

// customMessage reads a {custom_type, content, display, details} table.
func (h *hook) customMessage(t *glua.LTable) (agent.CustomMessage, error) {
	var cm agent.CustomMessage
	ct, ok := t.RawGetString("custom_type").(glua.LString)
	if !ok || ct == "" {
		return cm, fmt.Errorf("custom_type must be a non-empty string")
	}
	cm.CustomType = string(ct)
	content, err := h.luaContent(t.RawGetString("content"))
	if err != nil {
		return cm, fmt.Errorf("content: %w", err)
	}
	cm.Content = content
	cm.Display = true
	switch d := t.RawGetString("display").(type) {
	case *glua.LNilType:
	case glua.LBool:
		cm.Display = bool(d)
	default:
		return cm, fmt.Errorf("display must be a boolean")
	}
	if d := t.RawGetString("details"); d != glua.LNil {
		if cm.Details, err = h.luaJSON(d); err != nil {
			return cm, fmt.Errorf("details: %w", err)
		}
	}
	return cm, nil
}

func (h *hook) luaSendMessage(L *glua.LState) int {
	cm, err := h.customMessage(L.CheckTable(1))
	if err != nil {
		L.ArgError(1, err.Error())
	}
	trigger, followUp := false, false
	if opts, ok := L.Get(2).(*glua.LTable); ok {
		trigger = glua.LVAsBool(opts.RawGetString("trigger_turn"))
		switch d := opts.RawGetString("deliver"); d {
		case glua.LNil, glua.LString("steer"):
		case glua.LString("follow_up"), glua.LString("followUp"):
			followUp = true
		default:
			L.ArgError(2, fmt.Sprintf(`deliver must be "steer" or "follow_up", got %s`, d))
		}
	}
	return pushResult(L, h.rt.host.SendMessage(L.Context(), cm, trigger, followUp))
}

func (h *hook) luaAppendEntry(L *glua.LState) int {
	ct := L.CheckString(1)
	var data json.RawMessage
	if v := L.Get(2); v != glua.LNil {
		var err error
		if data, err = h.luaJSON(v); err != nil {
			L.ArgError(2, err.Error())
		}
	}
	s := h.rt.host.Session()
	if s == nil {
		return pushResult(L, fmt.Errorf("no session: %w", ErrNotAvailable))
	}
	id, err := s.AppendCustom(ct, data)
	if err != nil {
		return pushResult(L, err)
	}
	L.Push(glua.LString(id))
	return 1
}

func (h *hook) luaComplete(L *glua.LState) int {
	var req CompleteRequest
	switch in := L.Get(1).(type) {
	case glua.LString:
		req.Prompt = string(in)
	case *glua.LTable:
		for i := 1; i <= in.Len(); i++ {
			m, err := h.luaMessage(in.RawGetInt(i))
			if err != nil {
				L.ArgError(1, fmt.Sprintf("messages[%d]: %v", i, err))
			}
			req.Messages = append(req.Messages, m)
		}
	default:
		L.ArgError(1, "prompt string or messages table expected")
	}
	if opts, ok := L.Get(2).(*glua.LTable); ok {
		req.Model = luaOptString(L, opts, "model", 2)
		req.System = luaOptString(L, opts, "system", 2)
		switch n := opts.RawGetString("max_tokens").(type) {
		case *glua.LNilType:
		case glua.LNumber:
			req.MaxTokens = int(n)
		default:
			L.ArgError(2, "max_tokens must be a number")
		}
		req.ThinkingLevel = luaOptString(L, opts, "thinking", 2)
		if req.ThinkingLevel != "" { // the warning is about a level lunar cannot send
			at := where(L)
			req.Warn = func(msg string) { h.reportWarning(at + ": lunar.complete: " + msg) }
		}
		if _, err := agent.ParseThinkingLevel(req.ThinkingLevel); req.ThinkingLevel != "" && err != nil {
			L.ArgError(2, fmt.Sprintf("thinking must be one of %s, got %q", agent.ThinkingLevelNames(", "), req.ThinkingLevel))
		}
	}
	text, err := h.rt.host.Complete(L.Context(), req)
	if err != nil {
		return pushResult(L, err)
	}
	L.Push(glua.LString(text))
	return 1
}

func (h *hook) luaLog(L *glua.LState) int {
	level := L.CheckString(1)
	switch level {
	case "debug", "info", "warn", "error":
	default:
		L.ArgError(1, `level must be "debug", "info", "warn" or "error"`)
	}
	h.rt.log(h, level, L.CheckString(2))
	return 0
}

func (h *hook) luaSandbox(L *glua.LState) int {
	info := tools.Sandbox()
	t := L.CreateTable(0, 4)
	t.RawSetString("available", glua.LBool(info.Available))
	if info.Available {
		t.RawSetString("name", glua.LString(info.Name))
		t.RawSetString("version", glua.LNumber(info.Version))
	} else {
		t.RawSetString("reason", glua.LString(info.Reason))
	}
	L.Push(t)
	return 1
}

func (h *hook) luaPaths(L *glua.LState) int {
	t := L.CreateTable(0, 4)
	t.RawSetString("config", glua.LString(h.rt.opts.ConfigDir))
	home, _ := os.UserHomeDir()
	t.RawSetString("home", glua.LString(home))
	cwd := h.rt.host.Cwd()
	if abs, err := filepath.Abs(cwd); err == nil {
		cwd = abs
	}
	t.RawSetString("project", glua.LString(cwd))
	t.RawSetString("project_trusted", glua.LBool(h.rt.opts.ProjectTrusted))
	L.Push(t)
	return 1
}

func (h *hook) luaConfig(L *glua.LState) int {
	v, err := h.jsonLua(h.rt.opts.Config[strings.TrimSuffix(h.src.Name, ".lua")])
	if err != nil {
		L.RaiseError("config: %s", err.Error())
	}
	L.Push(v)
	return 1
}

// luaOptString reads an optional string field, raising an argument error
// for other types.
func luaOptString(L *glua.LState, t *glua.LTable, key string, arg int) string {
	switch v := t.RawGetString(key).(type) {
	case *glua.LNilType:
		return ""
	case glua.LString:
		return string(v)
	default:
		L.ArgError(arg, key+" must be a string")
		return ""
	}
}
