package lua

// This file generates the LuaLS annotation file for the whole hook API
// (`lunar hooks types > lunar.d.lua`) from the same tables that register
// the API in every state: the event catalogue, the lunar module, ctx and
// the stdlib modules. Nothing here is written by hand per function, so the
// annotations cannot drift from what a hook actually gets.

import (
	"fmt"
	"strings"

	"github.com/lunar-cli/lunar/stdlib"
)

// dataClasses are the data shapes shared by events and functions.
var dataClasses = []stdlib.Class{
	{Name: "lunar.ContentBlock", Doc: "A part of a message's content, as stored (camelCase).", Fields: []stdlib.Field{
		{Name: "type", Type: `"text"|"thinking"|"image"|"toolCall"`},
		{Name: "text", Type: "string?", Doc: "text"},
		{Name: "thinking", Type: "string?", Doc: "thinking"},
		{Name: "data", Type: "string?", Doc: "image: base64"},
		{Name: "mimeType", Type: "string?", Doc: "image"},
		{Name: "id", Type: "string?", Doc: "toolCall"},
		{Name: "name", Type: "string?", Doc: "toolCall"},
		{Name: "arguments", Type: "table?", Doc: "toolCall"},
	}},
	{Name: "lunar.Message", Doc: "A message exactly as stored in the session file (camelCase). Which fields exist depends on role.", Fields: []stdlib.Field{
		{Name: "role", Type: `"user"|"assistant"|"toolResult"|"bashExecution"|"custom"|"branchSummary"|"compactionSummary"`},
		{Name: "content", Type: "string|lunar.ContentBlock[]"},
		{Name: "timestamp", Type: "integer", Doc: "Unix milliseconds"},
		{Name: "api", Type: "string?", Doc: "assistant"},
		{Name: "provider", Type: "string?", Doc: "assistant"},
		{Name: "model", Type: "string?", Doc: "assistant"},
		{Name: "usage", Type: "table?", Doc: "assistant: input, output, cacheRead, cacheWrite, totalTokens, cost"},
		{Name: "stopReason", Type: `"stop"|"length"|"toolUse"|"error"|"aborted"|nil`, Doc: "assistant"},
		{Name: "errorMessage", Type: "string?", Doc: "assistant"},
		{Name: "toolCallId", Type: "string?", Doc: "toolResult"},
		{Name: "toolName", Type: "string?", Doc: "toolResult"},
		{Name: "details", Type: "any", Doc: "toolResult, custom"},
		{Name: "isError", Type: "boolean?", Doc: "toolResult"},
		{Name: "customType", Type: "string?", Doc: "custom"},
		{Name: "display", Type: "boolean?", Doc: "custom"},
		{Name: "summary", Type: "string?", Doc: "branchSummary, compactionSummary"},
		{Name: "fromId", Type: "string?", Doc: "branchSummary"},
		{Name: "tokensBefore", Type: "integer?", Doc: "compactionSummary"},
		{Name: "command", Type: "string?", Doc: "bashExecution"},
		{Name: "output", Type: "string?", Doc: "bashExecution"},
		{Name: "exitCode", Type: "integer?", Doc: "bashExecution"},
	}},
	{Name: "lunar.ContextMessage: lunar.Message", Doc: "A message of the context, with the entry it came from.", Fields: []stdlib.Field{
		{Name: "entry_id", Type: "string?", Doc: "nil for synthetic messages (summaries)"},
	}},
	{Name: "lunar.Entry", Doc: "A session entry exactly as stored (camelCase). Which fields exist depends on type.", Fields: []stdlib.Field{
		{Name: "type", Type: `"message"|"model_change"|"thinking_level_change"|"compaction"|"branch_summary"|"custom"|"custom_message"|"label"|"session_info"|string`},
		{Name: "id", Type: "string"},
		{Name: "parentId", Type: "string|userdata", Doc: "json.null for the first entry"},
		{Name: "timestamp", Type: "string", Doc: "ISO 8601"},
		{Name: "message", Type: "lunar.Message?", Doc: "message"},
		{Name: "provider", Type: "string?", Doc: "model_change"},
		{Name: "modelId", Type: "string?", Doc: "model_change"},
		{Name: "thinkingLevel", Type: "string?", Doc: "thinking_level_change"},
		{Name: "summary", Type: "string?", Doc: "compaction, branch_summary"},
		{Name: "firstKeptEntryId", Type: "string?", Doc: "compaction"},
		{Name: "tokensBefore", Type: "integer?", Doc: "compaction"},
		{Name: "fromHook", Type: "boolean?", Doc: "compaction, branch_summary"},
		{Name: "fromId", Type: "string?", Doc: "branch_summary"},
		{Name: "details", Type: "any", Doc: "compaction, branch_summary, custom_message"},
		{Name: "customType", Type: "string?", Doc: "custom, custom_message"},
		{Name: "data", Type: "any", Doc: "custom"},
		{Name: "content", Type: "string|lunar.ContentBlock[]|nil", Doc: "custom_message"},
		{Name: "display", Type: "boolean?", Doc: "custom_message"},
		{Name: "targetId", Type: "string?", Doc: "label"},
		{Name: "label", Type: "string?", Doc: "label"},
		{Name: "name", Type: "string?", Doc: "session_info"},
	}},
	{Name: "lunar.EntryFilter", Doc: "Which entries ctx.session.entries keeps: an entry must match every field given.", Fields: []stdlib.Field{
		{Name: "type", Type: "string|string[]|nil", Doc: `entry types to keep ("compaction", or {"custom", "label"})`},
		{Name: "custom_type", Type: "string|string[]|nil", Doc: "customType values to keep (custom and custom_message entries)"},
	}},
	{Name: "lunar.TreeNode", Fields: []stdlib.Field{
		{Name: "entry", Type: "lunar.Entry"},
		{Name: "label", Type: "string?"},
		{Name: "children", Type: "lunar.TreeNode[]"},
	}},
	{Name: "lunar.Queue", Fields: []stdlib.Field{
		{Name: "steering", Type: "string[]", Doc: "prompts delivered before the running agent's next model call"},
		{Name: "follow_up", Type: "string[]", Doc: "prompts delivered when it would stop"}}},
	{Name: "lunar.Model", Fields: []stdlib.Field{
		{Name: "provider", Type: "string"},
		{Name: "id", Type: "string"},
		{Name: "api", Type: `"openai-completions"|"anthropic-messages"`},
		{Name: "base_url", Type: "string"},
		{Name: "context_window", Type: "integer"},
		{Name: "max_tokens", Type: "integer"},
		{Name: "reasoning", Type: "boolean"},
		{Name: "input", Type: `("text"|"image")[]`, Doc: `the kinds of input the model takes (pi's input); without "image", the conversation's images reach it as placeholder texts`},
	}},
	{Name: "lunar.Tokens", Fields: []stdlib.Field{
		{Name: "input", Type: "integer"},
		{Name: "output", Type: "integer"},
		{Name: "cache_read", Type: "integer"},
		{Name: "cache_write", Type: "integer"},
		{Name: "total", Type: "integer"},
	}},
	{Name: "lunar.SystemPromptOptions", Doc: "What the base system prompt is built from (pi's systemPromptOptions, snake_case).", Fields: []stdlib.Field{
		{Name: "cwd", Type: "string"},
		{Name: "custom_prompt", Type: "string?", Doc: "the --system-prompt text (a file's content when it named one); nil: lunar's own prompt"},
		{Name: "append_system_prompt", Type: "string?", Doc: "the --append-system-prompt text, read the same way"},
		{Name: "selected_tools", Type: "string[]", Doc: "the tools offered to the model, in order (--tools, --no-tools, hooks' tools and set_active_tools)"},
		{Name: "tool_snippets", Type: "table<string, string>", Doc: "each tool's line in the prompt's tool list (its prompt_snippet, or its description's first sentence); empty with a custom prompt"},
		{Name: "prompt_guidelines", Type: "string[]", Doc: "the tools' prompt_guidelines in the prompt; empty with a custom prompt"},
		{Name: "context_files", Type: "{path: string, content: string}[]", Doc: "the AGENTS.md/CLAUDE.md files in the prompt"},
	}},
	sessionInfoClass,
	{Name: "lunar.NotifyOptions", Fields: []stdlib.Field{
		{Name: "message", Type: "string?"},
		{Name: "level", Type: `"info"|"warning"|"error"|"success"|nil`},
		{Name: "title", Type: "string?", Doc: "the desktop notification's title (default \"lunar\"); before the message in the terminal"},
		{Name: "desktop", Type: "boolean?", Doc: "also a desktop notification, through the terminal (the REPL only)"},
	}},
	{Name: "lunar.Params", Fields: []stdlib.Field{
		{Name: "temperature", Type: "number?"},
		{Name: "max_tokens", Type: "integer"},
		{Name: "top_p", Type: "number?"},
		{Name: "thinking_level", Type: `"off"|"minimal"|"low"|"medium"|"high"`},
		{Name: "extra", Type: "table?", Doc: "merged into the request body"},
	}},
	{Name: "lunar.CompactPreparation", Fields: []stdlib.Field{
		{Name: "messages", Type: "lunar.Message[]", Doc: "to summarise"},
		{Name: "first_kept_entry_id", Type: "string"},
		{Name: "tokens_before", Type: "integer"},
	}},
}

// eventClass names the LuaLS class of an event's payload or result.
func eventClass(prefix, name string) string {
	return "lunar." + prefix + "." + strings.NewReplacer(".", "_").Replace(name)
}

// TypesMeta returns the LuaLS ---@meta file describing the whole hook API.
func TypesMeta() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("---@meta")
	w("-- lunar hook API: LuaLS annotations, generated by `lunar hooks types`.")
	w("-- Put this file where your editor's Lua language server looks (e.g. a")
	w("-- workspace.library folder); do not edit it.")
	w("")
	for _, c := range dataClasses {
		writeClass(&b, c)
	}

	w("---@alias lunar.EventName")
	for _, name := range allEventNames() {
		ids := lookupEvent(name)
		doc := events[ids[0]].When
		if name != events[ids[0]].Name {
			var canon []string
			for _, id := range ids {
				canon = append(canon, events[id].Name)
			}
			doc = "alias of " + strings.Join(canon, " and ")
		}
		w("---| %q # %s", name, doc)
	}
	w("")
	for id := range events {
		e := &events[id]
		payload := append([]stdlib.Field{{Name: "type", Type: fmt.Sprintf("%q", e.Name)}}, e.Payload...)
		writeClass(&b, stdlib.Class{Name: eventClass("ev", e.Name), Doc: fmt.Sprintf("Payload of %s (%s event): %s.", e.Name, e.Kind, e.When), Fields: payload})
		if e.Result != nil {
			doc := "Result of " + e.Name + "."
			if e.ResultDoc != "" {
				doc += " " + e.ResultDoc
			}
			writeClass(&b, stdlib.Class{Name: eventClass("res", e.Name), Doc: doc, Fields: e.Result})
		}
	}

	ui, sess, models, cmd := ctxTables(nil)
	writeClass(&b, stdlib.Class{Name: "lunar.Ctx", Doc: "The second argument of every handler.", Fields: append(slicesClone(ctxFields), funcFields(ctxFuncs(nil))...)})
	writeClass(&b, stdlib.Class{Name: "lunar.CommandCtx: lunar.Ctx", Doc: cmd.Doc, Fields: append(slicesClone(commandFields), funcFields(cmd)...)})
	for _, m := range []*stdlib.Module{ui, sess, models, sessionsModule(nil)} {
		writeClass(&b, stdlib.Class{Name: m.Name, Doc: m.Doc, Fields: funcFields(m)})
	}

	lunar := lunarModule()
	for _, c := range lunar.Classes {
		writeClass(&b, c)
	}
	w("---%s", lunar.Doc)
	w("lunar = {}")
	w("")
	for _, f := range lunar.Funcs {
		var overloads []string
		if f.Name == "on" {
			for _, name := range allEventNames() {
				var evT, resT []string
				for _, id := range lookupEvent(name) {
					evT = append(evT, eventClass("ev", events[id].Name))
					if events[id].Result != nil {
						resT = append(resT, eventClass("res", events[id].Name))
					}
				}
				ret := ""
				if len(resT) > 0 {
					ret = ": " + strings.Join(resT, "|") + "?"
				}
				overloads = append(overloads, fmt.Sprintf("fun(event: %q, handler: fun(ev: %s, ctx: lunar.Ctx)%s)", name, strings.Join(evT, "|"), ret))
			}
		}
		writeFunc(&b, "lunar", f, overloads)
	}

	mods := stdlib.Modules(nil)
	for _, m := range mods {
		for _, c := range m.Classes {
			writeClass(&b, c)
		}
		fields := append(slicesClone(m.Fields), funcFields(m)...)
		writeClass(&b, stdlib.Class{Name: "lunar.mod." + m.Name, Doc: m.Doc, Fields: fields})
	}
	w("---require() finds lunar's modules and the hook's own lib/<name>.lua.")
	for _, m := range append([]*stdlib.Module{lunar}, mods...) {
		t := "lunar.mod." + m.Name
		if m.Name == "lunar" {
			t = "lunar"
		}
		w("---@overload fun(name: %q): %s", m.Name, t)
	}
	w("---@param name string")
	w("---@return any")
	w("function require(name) end")
	return b.String()
}

func slicesClone(f []stdlib.Field) []stdlib.Field { return append([]stdlib.Field(nil), f...) }

// allEventNames lists canonical names in catalogue order, then aliases.
func allEventNames() []string {
	var names, aliases []string
	seen := map[string]bool{}
	for id := range events {
		names = append(names, events[id].Name)
		seen[events[id].Name] = true
	}
	for id := range events {
		for _, a := range events[id].Aliases {
			if !seen[a] {
				seen[a] = true
				aliases = append(aliases, a)
			}
		}
	}
	return append(names, aliases...)
}

// funcType renders a function's LuaLS type.
func funcType(f stdlib.Func) string {
	var ps []string
	for _, p := range f.Params {
		n := p.Name
		if p.Optional {
			n += "?"
		}
		ps = append(ps, n+": "+p.Type)
	}
	t := "fun(" + strings.Join(ps, ", ") + ")"
	if f.Returns != "" {
		t += ": " + f.Returns
	}
	return t
}

// funcFields describes a module's functions as fields of a class.
func funcFields(m *stdlib.Module) []stdlib.Field {
	out := make([]stdlib.Field, len(m.Funcs))
	for i, f := range m.Funcs {
		out[i] = stdlib.Field{Name: f.Name, Type: funcType(f), Doc: f.Doc}
	}
	return out
}

func writeClass(b *strings.Builder, c stdlib.Class) {
	if c.Doc != "" {
		fmt.Fprintf(b, "---%s\n", c.Doc)
	}
	fmt.Fprintf(b, "---@class %s\n", c.Name)
	for _, f := range c.Fields {
		if f.Doc != "" {
			fmt.Fprintf(b, "---@field %s %s # %s\n", f.Name, f.Type, f.Doc)
		} else {
			fmt.Fprintf(b, "---@field %s %s\n", f.Name, f.Type)
		}
	}
	b.WriteString("\n")
}

func writeFunc(b *strings.Builder, table string, f stdlib.Func, overloads []string) {
	fmt.Fprintf(b, "---%s\n", f.Doc)
	var names []string
	for _, p := range f.Params {
		n := p.Name
		if p.Optional {
			n += "?"
		}
		if p.Doc != "" {
			fmt.Fprintf(b, "---@param %s %s # %s\n", n, p.Type, p.Doc)
		} else {
			fmt.Fprintf(b, "---@param %s %s\n", n, p.Type)
		}
		names = append(names, p.Name)
	}
	if f.Returns != "" {
		fmt.Fprintf(b, "---@return %s\n", f.Returns)
	}
	for _, o := range overloads {
		fmt.Fprintf(b, "---@overload %s\n", o)
	}
	fmt.Fprintf(b, "function %s.%s(%s) end\n\n", table, f.Name, strings.Join(names, ", "))
}
