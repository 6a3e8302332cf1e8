package lua

// This file is the event catalogue: every event a hook can listen to, its
// kind (how results chain), pi's names for it, and its payload and result
// shapes. The same table drives lunar.on's validation, dispatch, the
// LuaLS annotations (TypesMeta) and the reference in docs/hooks.md.

import (
	"sort"
	"strings"

	"github.com/lunar-cli/lunar/stdlib"
)

// eventID indexes the catalogue.
type eventID int

// The events, in catalogue order.
const (
	evAppStart eventID = iota
	evSessionStart
	evSessionResume
	evSessionBeforeClear
	evSessionClear
	evSessionBeforeSwitch
	evSessionSwitch
	evSessionBeforeBranch
	evSessionBranch
	evSessionBeforeFork
	evSessionFork
	evSessionBeforeCompact
	evSessionCompact
	evSessionShutdown
	evChatMessage
	evAgentBeforeStart
	evAgentStart
	evAgentEnd
	evTurnStart
	evTurnEnd
	evContext
	evSystemTransform
	evChatParams
	evModelResolve
	evAuthGet
	evToolBefore
	evToolAfter
	evModelChange
	evProviderRequest
	evProviderResponse
	numEvents
)

// eventKind says how the results of several handlers combine.
type eventKind int

const (
	// kindNotify: every handler runs, results are ignored.
	kindNotify eventKind = iota
	// kindTransform: each handler's result feeds the next, in load order.
	kindTransform
	// kindCancel: handlers run in load order until one cancels.
	kindCancel
)

func (k eventKind) String() string {
	switch k {
	case kindTransform:
		return "transform"
	case kindCancel:
		return "cancel"
	}
	return "notification"
}

// eventSpec describes one event.
type eventSpec struct {
	Name      string
	Aliases   []string // pi's (and marvin's) names; an alias may name several events
	Kind      eventKind
	NoTimeout bool // handlers may run as long as they like (they may call a model)
	When      string
	Payload   []stdlib.Field
	Result    []stdlib.Field // nil: results are ignored
	ResultDoc string
}

// Shared field shapes.
var (
	fSessionID = stdlib.Field{Name: "session_id", Type: "string"}
	// fRunSession is the open session's id, which dispatch sets itself
	// for every event whose payload lists it (the run's events).
	fRunSession = stdlib.Field{Name: "session_id", Type: "string", Doc: "the open session's id"}
	fMessages   = stdlib.Field{Name: "messages", Type: "lunar.Message[]", Doc: "session JSON"}
	fCancel     = stdlib.Field{Name: "cancel", Type: "boolean?", Doc: "true stops the operation (and later handlers)"}
	fReason     = stdlib.Field{Name: "reason", Type: "string?", Doc: "shown to the user when cancelling"}
	fTokens     = stdlib.Field{Name: "tokens", Type: "lunar.Tokens"}
	fCtxTokens  = stdlib.Field{Name: "context_tokens", Type: "integer", Doc: "tokens of the context now (provider usage, else estimate)"}
	fCtxLimit   = stdlib.Field{Name: "context_limit", Type: "integer", Doc: "the model's context window"}
)

var events = [numEvents]eventSpec{
	evAppStart: {Name: "app.start", When: "hooks loaded", Payload: []stdlib.Field{
		{Name: "version", Type: "string"}, {Name: "mode", Type: "string", Doc: `"repl", "oneshot", "json" or "rpc"`}}},
	evSessionStart: {Name: "session.start", Aliases: []string{"session_start"}, When: "a session becomes the open one: at launch, /clear, /resume, /fork, a hook's new session",
		Payload: []stdlib.Field{fSessionID, {Name: "session_file", Type: "string", Doc: `"" without a file (--no-session)`},
			{Name: "reason", Type: `"startup"|"resume"|"new"|"clear"|"fork"`, Doc: "startup: a new session at launch; resume: a stored one (-c, --session, /resume); new: a hook's ctx.new_session; clear: /clear; fork: /fork, --fork"}}},
	evSessionResume: {Name: "session.resume", When: "a stored session is loaded (after session.start with reason \"resume\")",
		Payload: []stdlib.Field{fSessionID, {Name: "session_file", Type: "string"}}},
	evSessionBeforeClear: {Name: "session.before_clear", Aliases: []string{"session_before_switch"}, Kind: kindCancel, When: "/clear, before the new session",
		Payload: []stdlib.Field{fSessionID}, Result: []stdlib.Field{fCancel, fReason}},
	evSessionClear: {Name: "session.clear", When: "after /clear",
		Payload: []stdlib.Field{{Name: "session_id", Type: "string", Doc: "the new session"}}},
	evSessionBeforeSwitch: {Name: "session.before_switch", Aliases: []string{"session_before_switch"}, Kind: kindCancel, When: "/resume or a /sessions pick",
		Payload: []stdlib.Field{{Name: "target_session_file", Type: "string"}}, Result: []stdlib.Field{fCancel, fReason}},
	evSessionSwitch: {Name: "session.switch", When: "after switching sessions",
		Payload: []stdlib.Field{{Name: "previous_session_file", Type: "string"}}},
	evSessionBeforeBranch: {Name: "session.before_branch", Aliases: []string{"session_before_tree"}, Kind: kindCancel, When: "/branch, ctx.session.branch",
		Payload: []stdlib.Field{{Name: "target_id", Type: "string"}, {Name: "from_id", Type: "string", Doc: "the leaf before branching"}},
		Result:  []stdlib.Field{fCancel, fReason, {Name: "summary", Type: "string?", Doc: "branch summary to store (skips the model call); the last one wins"}}},
	evSessionBranch: {Name: "session.branch", Aliases: []string{"session_tree"}, When: "after branching",
		Payload: []stdlib.Field{{Name: "target_id", Type: "string"}, {Name: "from_id", Type: "string"}}},
	evSessionBeforeFork: {Name: "session.before_fork", Aliases: []string{"session_before_fork"}, Kind: kindCancel, When: "/fork",
		Payload: []stdlib.Field{{Name: "entry_id", Type: "string"}}, Result: []stdlib.Field{fCancel, fReason}},
	evSessionFork: {Name: "session.fork", When: "after /fork (in the new session)",
		Payload: []stdlib.Field{{Name: "entry_id", Type: "string"}, {Name: "previous_session_file", Type: "string"}}},
	evSessionBeforeCompact: {Name: "session.before_compact", Aliases: []string{"session_before_compact", "compact.before"}, Kind: kindCancel, NoTimeout: true,
		When: "any compaction",
		Payload: []stdlib.Field{
			{Name: "reason", Type: `"manual"|"auto"|"overflow"|"hook"`},
			{Name: "instructions", Type: "string", Doc: `custom instructions ("" for none); chained from earlier handlers`},
			{Name: "preparation", Type: "lunar.CompactPreparation"},
			{Name: "previous_compactions", Type: "lunar.Entry[]", Doc: "compaction entries on the path, newest first"},
			{Name: "model", Type: "lunar.Model", Doc: "the model that would summarise"},
		},
		Result: []stdlib.Field{fCancel, fReason,
			{Name: "summary", Type: "string?", Doc: "use this summary and skip the model call; the last one wins"},
			{Name: "details", Type: "any", Doc: "stored with a hook summary"},
			{Name: "instructions", Type: "string?", Doc: "replace the instructions (chains)"},
			{Name: "context", Type: "string[]?", Doc: "lines added to the summary prompt (in an <additional-context> block after it); every handler's lines are kept, in order"},
			{Name: "prompt", Type: "string?", Doc: "replaces lunar's summary prompt (the format the summary follows; instructions and context are still added); the last one wins"}}},
	evSessionCompact: {Name: "session.compact", Aliases: []string{"session_compact", "compact.after"},
		When: "after compaction, once its result is shown, in the background: /compact and the run do not wait for it (lunar does before it exits)",
		Payload: []stdlib.Field{{Name: "summary", Type: "string"}, {Name: "from_hook", Type: "boolean"},
			{Name: "tokens_before", Type: "integer"}, {Name: "first_kept_entry_id", Type: "string"}, {Name: "entry_id", Type: "string", Doc: "the compaction entry"}}},
	evSessionShutdown: {Name: "session.shutdown", Aliases: []string{"session_shutdown"}, When: "exit",
		Payload: []stdlib.Field{fSessionID}},
	evChatMessage: {Name: "chat.message", Aliases: []string{"input"}, Kind: kindTransform, When: "user input, before it is stored",
		Payload: []stdlib.Field{{Name: "text", Type: "string"}, {Name: "parts", Type: "lunar.ContentBlock[]", Doc: "attachments (images), session JSON"},
			{Name: "source", Type: `"interactive"|"extension"|"print"|"stdin"|"rpc"`, Doc: `interactive: typed in the REPL (a line typed during a run too, when it is delivered); extension: lunar.send, a hook command's prompt (and a command's ctx.new_session prompt without a UI); print: the -p prompt of a one-shot or JSON run; stdin: a prompt piped in (pi's source is "interactive" for both); rpc: a prompt, steer or follow_up command of --mode rpc (pi runs no input event for a steer or follow-up)`}},
		Result: []stdlib.Field{{Name: "text", Type: "string?", Doc: "replaces the text"},
			{Name: "parts", Type: "lunar.ContentBlock[]?", Doc: "replaces the attachments"},
			{Name: "handled", Type: "boolean?", Doc: "true: the hook took care of the input (it printed what it wanted): nothing is stored or sent to the model, later handlers do not run; the REPL returns to the prompt, a one-shot run exits 0"}},
		ResultDoc: `Under pi's name "input" pi's results work too: {action="transform", text=, images=}, {action="handled"}, {action="continue"}.`},
	evAgentBeforeStart: {Name: "agent.before_start", Aliases: []string{"before_agent_start"}, Kind: kindTransform, When: "once per prompt",
		Payload: []stdlib.Field{fRunSession, {Name: "prompt", Type: "string"}, {Name: "images", Type: "lunar.ContentBlock[]"},
			{Name: "system_prompt", Type: "string", Doc: "the system prompt so far (chained)"},
			{Name: "system_prompt_options", Type: "lunar.SystemPromptOptions?", Doc: "what lunar built the base prompt from (nil when a front end set a fixed prompt)"}},
		Result: []stdlib.Field{{Name: "message", Type: "lunar.CustomMessage?", Doc: "persisted, injected after the prompt; every handler's message is kept"},
			{Name: "system_prompt", Type: "string?", Doc: "system prompt for this prompt's model calls (chains)"}}},
	evAgentStart: {Name: "agent.start", Aliases: []string{"agent_start"}, When: "a run begins", Payload: []stdlib.Field{fRunSession}},
	evAgentEnd: {Name: "agent.end", Aliases: []string{"agent_end"}, When: "a run ends",
		Payload: []stdlib.Field{fRunSession, {Name: "messages", Type: "lunar.Message[]", Doc: "the messages of this run"},
			{Name: "total_tokens", Type: "integer"}, fTokens, fCtxTokens, fCtxLimit}},
	evTurnStart: {Name: "turn.start", Aliases: []string{"turn_start"}, When: "each model call",
		Payload: []stdlib.Field{fRunSession, {Name: "turn_index", Type: "integer", Doc: "0-based within the run"}}},
	evTurnEnd: {Name: "turn.end", Aliases: []string{"turn_end"}, When: "after each model call and its tools",
		Payload: []stdlib.Field{fRunSession, {Name: "turn_index", Type: "integer"}, {Name: "message", Type: "lunar.Message?", Doc: "the assistant message"},
			{Name: "tool_results", Type: "lunar.Message[]"}, fTokens, fCtxTokens, fCtxLimit}},
	evContext: {Name: "context", Aliases: []string{"chat.messages.transform"}, Kind: kindTransform, When: "before every model call",
		Payload: []stdlib.Field{{Name: "messages", Type: "lunar.ContextMessage[]", Doc: "session JSON plus entry_id (nil for synthetic messages); built when first read, so a handler that returns without reading it costs nothing"},
			{Name: "entries", Type: "lunar.Entry[]", Doc: "the entries on the session's path, root to leaf (what ctx.session.entries() returns; empty without a session); built when first read, as messages"}},
		Result: []stdlib.Field{{Name: "messages", Type: "lunar.ContextMessage[]?", Doc: "replaces the messages of this call only; never stored"}}},
	evSystemTransform: {Name: "chat.system.transform", Kind: kindTransform, When: "before every model call",
		Payload: []stdlib.Field{{Name: "system_prompt", Type: "string"}},
		Result:  []stdlib.Field{{Name: "system_prompt", Type: "string?"}}},
	evChatParams: {Name: "chat.params", Kind: kindTransform, When: "before every model call",
		Payload: []stdlib.Field{{Name: "params", Type: "lunar.Params"}},
		Result:  []stdlib.Field{{Name: "params", Type: "lunar.Params?", Doc: "fields present replace the current ones; json.null clears"}}},
	evModelResolve: {Name: "model.resolve", Kind: kindTransform, When: "before every model call",
		Payload: []stdlib.Field{{Name: "model", Type: "lunar.Model"}},
		Result:  []stdlib.Field{{Name: "model", Type: "lunar.Model?", Doc: "fields present replace the current ones"}}},
	evAuthGet: {Name: "auth.get", Kind: kindTransform, When: "before every model call",
		Payload: []stdlib.Field{{Name: "provider", Type: "string"}, {Name: "model_id", Type: "string"}},
		Result: []stdlib.Field{{Name: "api_key", Type: "string?"}, {Name: "headers", Type: "table<string,string>?", Doc: "merged over earlier handlers' headers"},
			{Name: "base_url", Type: "string?", Doc: "an absolute http(s) URL; anything else is reported with the hook's name and ignored (the rest of the result stands)"}}},
	evToolBefore: {Name: "tool.execute.before", Aliases: []string{"tool_call"}, Kind: kindCancel, When: "before a tool runs (arguments already checked)",
		Payload: []stdlib.Field{fRunSession, {Name: "tool_name", Type: "string"}, {Name: "tool_call_id", Type: "string"}, {Name: "input", Type: "table", Doc: "the arguments, exactly as the tool will get them"},
			{Name: "source", Type: "string", Doc: `who provides the tool, as lunar.tools() says: "builtin", a hook's file name, or "mcp:<server>"`},
			{Name: "read_only", Type: "boolean", Doc: "the tool's provider says it changes nothing (an MCP server's readOnlyHint); false for built-ins and hook tools"}},
		Result: []stdlib.Field{{Name: "block", Type: "boolean?", Doc: "true refuses the call; the model gets reason as an error result"}, fReason,
			{Name: "input", Type: "table?", Doc: "replaces the arguments (chains; checked again as the model's were: if they fail, the call does not run)"},
			{Name: "sandbox", Type: "lunar.Sandbox?", Doc: "confines the call to writing where it says: the bash tool's processes through the kernel where lunar.sandbox().available, the write and edit tools by resolving their path again before they open it; the last handler that returns one decides (guards judge last, so a guard's stands)"}},
		ResultDoc: "An error in the handler blocks the call with the error as the reason."},
	evToolAfter: {Name: "tool.execute.after", Aliases: []string{"tool_result"}, Kind: kindTransform, When: "after a tool ran, also on error",
		Payload: []stdlib.Field{fRunSession, {Name: "tool_name", Type: "string"}, {Name: "tool_call_id", Type: "string"},
			{Name: "input", Type: "table", Doc: "the arguments the tool ran with (after any tool.execute.before {input=} replacement)"},
			{Name: "original_input", Type: "table", Doc: "the arguments before any replacement (the model's, checked); the same as input when no hook replaced them"},
			{Name: "content", Type: "lunar.ContentBlock[]"}, {Name: "details", Type: "any"}, {Name: "is_error", Type: "boolean"},
			{Name: "terminate", Type: "boolean", Doc: "the result asks to end the run after this tool batch"}},
		Result: []stdlib.Field{{Name: "content", Type: "string|lunar.ContentBlock[]?"}, {Name: "details", Type: "any"}, {Name: "is_error", Type: "boolean?"},
			{Name: "terminate", Type: "boolean?", Doc: "end the run after this batch when every result of it terminates"}}},
	evModelChange: {Name: "model.change", Aliases: []string{"model_select"}, When: "/model, cycling, ctx.set_model, a resumed session's model",
		Payload: []stdlib.Field{{Name: "previous_provider", Type: "string"}, {Name: "previous_model_id", Type: "string"},
			{Name: "new_provider", Type: "string"}, {Name: "new_model_id", Type: "string"}, {Name: "thinking_level", Type: "string"},
			{Name: "source", Type: `"set"|"cycle"|"restore"`, Doc: "set: /model or ctx.set_model; cycle: /model next or Ctrl+P at the prompt; restore: /resume or a /sessions pick brought the session's model back (pi's model_select source)"}}},
	evProviderRequest: {Name: "provider.request", Aliases: []string{"before_provider_request"}, Kind: kindTransform,
		When: "before every model request of the agent loop is sent (not lunar.complete's or a compaction's), once per request (retries send the same body)",
		Payload: []stdlib.Field{{Name: "body", Type: "table", Doc: "the exact JSON body, decoded (keys in order; arrays marked as json arrays); only built when a handler listens"},
			{Name: "payload", Type: "table", Doc: "the same table, under pi's name"},
			{Name: "provider", Type: "string"}, {Name: "api", Type: `"openai-completions"|"anthropic-messages"`}, {Name: "url", Type: "string", Doc: "the endpoint"}},
		Result:    []stdlib.Field{{Name: "body", Type: "table?", Doc: "replaces the body (chains); sent as json.encode writes it"}},
		ResultDoc: `Under pi's name "before_provider_request" the returned table is the payload itself, as in pi.`},
	evProviderResponse: {Name: "provider.response", Aliases: []string{"after_provider_response"},
		When: "each response to a model request of the agent loop (every attempt, retries included), before its body is read",
		Payload: []stdlib.Field{{Name: "status", Type: "integer", Doc: "the HTTP status"},
			{Name: "headers", Type: "table<string,string>", Doc: "lowercase names; repeated headers joined with \", \""},
			{Name: "provider", Type: "string"}, {Name: "api", Type: "string"}, {Name: "url", Type: "string"}}},
}

// eventNames maps every accepted name (canonical and alias) to its events.
var eventNames = func() map[string][]eventID {
	m := make(map[string][]eventID)
	for id := eventID(0); id < numEvents; id++ {
		e := &events[id]
		m[e.Name] = append(m[e.Name], id)
		for _, a := range e.Aliases {
			m[a] = append(m[a], id)
		}
	}
	return m
}()

// lookupEvent returns the events a name (canonical or alias) stands for.
func lookupEvent(name string) []eventID { return eventNames[name] }

// closestEvent returns the known name nearest to name (Levenshtein).
func closestEvent(name string) string {
	names := make([]string, 0, len(eventNames))
	for n := range eventNames {
		names = append(names, n)
	}
	sort.Strings(names)
	return closest(name, names)
}

// closest returns the candidate with the smallest edit distance to s.
func closest(s string, candidates []string) string {
	best, bestD := "", -1
	ls := strings.ToLower(s)
	for _, c := range candidates {
		d := EditDistance(ls, strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// EditDistance is the Levenshtein distance between a and b, in runes. It
// suggests the closest event name here and the closest command in the REPL.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// EventNames returns the canonical event names, in catalogue order.
func EventNames() []string {
	names := make([]string, numEvents)
	for id := range events {
		names[id] = events[id].Name
	}
	return names
}
