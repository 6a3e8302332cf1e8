package main

// The REPL's built-in slash commands and the dispatch to hook commands.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/agent/compaction"
	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/session/export/ansi"
)

// slashCommand is a built-in command.
type slashCommand struct {
	name  string
	usage string // arguments, for /help
	desc  string
	run   func(r *repl, ctx context.Context, args string) error
	alias bool // left out of /help
}

// errQuit is returned by /quit.
var errQuit = errors.New("quit")

// builtinCommands is the table of built-in commands, in /help order.
var builtinCommands []slashCommand

func init() {
	builtinCommands = []slashCommand{
		{"help", "", "list commands", (*repl).cmdHelp, false},
		{"model", "[model[:level]|next]", "show the models or switch to one (as --model)", (*repl).cmdModel, false},
		{"thinking", "[level]", "show or set the thinking level (" + agent.ThinkingLevelNames("|") + ")", (*repl).cmdThinking, false},
		{"clear", "", "start a new session", (*repl).cmdClear, false},
		{"compact", "[instructions]", "summarise older messages to free context", (*repl).cmdCompact, false},
		{"tree", "", "show the session tree with entry ids", (*repl).cmdTree, false},
		{"branch", "ID [--summarize]", "continue from an earlier entry (optionally summarising the branch left)", (*repl).cmdBranch, false},
		{"fork", "[ID]", "copy the conversation up to ID (default: here) into a new session", (*repl).cmdFork, false},
		{"label", "ID [TEXT]", "label an entry (no text: remove the label)", (*repl).cmdLabel, false},
		{"name", "[TEXT]", "show or set the session's name", (*repl).cmdName, false},
		{"sessions", "", "list this folder's sessions and pick one", (*repl).cmdSessions, false},
		{"resume", "[ID]", "switch to another session of this folder", (*repl).cmdResume, false},
		{"session", "", "show the session's file, tokens and cost", (*repl).cmdSession, false},
		{"export", "[FILE]", "export the session to HTML", (*repl).cmdExport, false},
		{"hooks", "", "list loaded hooks and their commands", (*repl).cmdHooks, false},
		{"tools", "", "list the tools the model can use", (*repl).cmdTools, false},
		{"mcp", "", "list MCP servers, their state and tools", (*repl).cmdMCP, false},
		{"expand", "[N]", "show the full output of the last tool call (or the Nth last)", (*repl).cmdExpand, false},
		{"quit", "", "leave lunar (also /exit)", (*repl).cmdQuit, false},
		{"exit", "", "leave lunar", (*repl).cmdQuit, true},
	}
}

// builtinNames lists the built-in command names, aliases included: the
// hook runtime refuses hook commands of these names (lua.Options.Builtins).
func builtinNames() []string {
	names := make([]string, len(builtinCommands))
	for i, c := range builtinCommands {
		names[i] = c.name
	}
	return names
}

func findBuiltin(name string) *slashCommand {
	for i := range builtinCommands {
		if builtinCommands[i].name == name {
			return &builtinCommands[i]
		}
	}
	return nil
}

// commands lists built-in and hook commands (hooks may not shadow
// built-ins), for /help and completion.
func (r *repl) commands() []commandInfo {
	var out []commandInfo
	for _, c := range builtinCommands {
		out = append(out, commandInfo{Name: c.name, Description: c.desc, Source: "built-in"})
	}
	for _, c := range r.a.appHookSet().Commands() {
		if findBuiltin(c.Name) == nil {
			out = append(out, c)
		}
	}
	return out
}

// command runs one slash command line; it reports whether to quit.
func (r *repl) command(line string) bool {
	name, args, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	if i := strings.IndexByte(name, '\n'); i >= 0 {
		name, args = name[:i], name[i+1:]+" "+args
	}
	args = strings.TrimSpace(args)
	// Displayed custom messages hooks append meanwhile (send_message
	// without a turn) are shown once the command is done.
	sess, mark := r.a.agentRuntime.Session(), r.a.agentRuntime.Session().LeafID()
	showNew := func() {
		if r.a.agentRuntime.Session() == sess {
			r.showCustomSince(mark)
		}
	}
	if c := findBuiltin(name); c != nil {
		err := r.interruptible(func(ctx context.Context) error { return c.run(r, ctx, args) })
		if errors.Is(err, errQuit) {
			return true
		}
		r.report(err)
		showNew()
		return false
	}
	var prompt string
	var handled bool
	err := r.interruptible(func(ctx context.Context) error {
		var err error
		prompt, handled, err = r.a.appHookSet().RunCommand(ctx, name, args)
		return err
	})
	showNew()
	switch {
	case !handled && err == nil:
		if alt := r.suggestCommand(name); alt != "" {
			r.errorf("unknown command /%s; did you mean /%s? (see /help)", name, alt)
		} else {
			r.errorf("unknown command /%s, see /help", name)
		}
	case err != nil:
		r.report(fmt.Errorf("/%s: %w", name, err))
	case strings.TrimSpace(prompt) != "":
		r.view.echo(prompt)
		r.prompt(prompt)
	}
	return false
}

// suggestCommand is the command closest to a mistyped name: the only one
// it is a prefix of, or one at most two edits away.
func (r *repl) suggestCommand(name string) string {
	var prefixed []string
	best, bestD := "", 3
	for _, c := range r.commands() {
		if strings.HasPrefix(c.Name, name) {
			prefixed = append(prefixed, c.Name)
		}
		if d := lua.EditDistance(strings.ToLower(name), strings.ToLower(c.Name)); d < bestD {
			best, bestD = c.Name, d
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return best
}

// report prints a command's error, if any.
func (r *repl) report(err error) {
	var ce *agent.CancelledError
	switch {
	case err == nil:
	case errors.As(err, &ce):
		r.warnf("%s", ce.Error())
	case errors.Is(err, agent.ErrAborted) || errors.Is(err, context.Canceled):
		r.printf("%s\n", r.term.paint(ansiDim, "(interrupted)"))
	default:
		r.errorf("%v", err)
	}
}

func (r *repl) cmdHelp(_ context.Context, _ string) error {
	var b strings.Builder
	b.WriteString(r.term.paint(ansiBold, "Commands") + "\n")
	for _, c := range builtinCommands {
		if c.alias {
			continue
		}
		left := "/" + c.name
		if c.usage != "" {
			left += " " + c.usage
		}
		r.helpRow(&b, left, c.desc, ansiDim)
	}
	var hooked []commandInfo
	for _, c := range r.a.appHookSet().Commands() {
		if findBuiltin(c.Name) == nil {
			hooked = append(hooked, c)
		}
	}
	if len(hooked) > 0 {
		b.WriteString("\n" + r.term.paint(ansiBold, "Hook commands") + "\n")
		for _, c := range hooked {
			desc := c.Description
			if c.Source != "" {
				desc += "  (" + c.Source + ")"
			}
			r.helpRow(&b, "/"+c.Name, desc, "")
		}
	}
	b.WriteString("\n" + r.term.paint(ansiBold, "Input") + "\n")
	for _, l := range [][2]string{
		{"@path", "attach a file (text, or png/jpg/gif/webp image)"},
		{"!cmd / !!cmd", "run a shell command (!! keeps it out of the context)"},
		{"line ending in \\", "continue on the next line"},
		{"Tab", "complete commands and @paths"},
		{"Ctrl+R", "search the history"},
		{"Ctrl+C", "stop the reply; twice on an empty prompt to quit"},
		{"Ctrl+D", "quit"},
	} {
		r.helpRow(&b, l[0], l[1], ansiDim)
	}
	r.printf("%s", b.String())
	return nil
}

// helpRow writes one "  left   description" row of /help, the
// description wrapped between words to the terminal's width under its
// column.
func (r *repl) helpRow(b *strings.Builder, left, desc, style string) {
	const col = 31 // 2 + 28 + 1
	width := r.term.columns() - col - 1
	fmt.Fprintf(b, "  %-28s ", left)
	if runewidth.StringWidth(left) > 28 {
		b.WriteString("\n" + strings.Repeat(" ", col))
	}
	for i, l := range wrapWords(desc, max(width, 20)) {
		if i > 0 {
			b.WriteString(strings.Repeat(" ", col))
		}
		if style != "" {
			l = r.term.paint(style, l)
		}
		b.WriteString(l + "\n")
	}
}

// wrapWords breaks s between words into lines of at most width columns
// (a longer word gets a line of its own).
func wrapWords(s string, width int) []string {
	var lines []string
	var cur strings.Builder
	n := 0
	for _, w := range strings.Fields(s) {
		ww := runewidth.StringWidth(w)
		if n > 0 && n+1+ww > width {
			lines = append(lines, cur.String())
			cur.Reset()
			n = 0
		}
		if n > 0 {
			cur.WriteByte(' ')
			n++
		}
		cur.WriteString(w)
		n += ww
	}
	return append(lines, cur.String())
}

// modelChoices are the models /model offers: those of providers with a
// key, plus the current provider's (its key may come from --api-key).
func (r *repl) modelChoices() []agent.Model {
	seen := map[string]bool{}
	var out []agent.Model
	add := func(m agent.Model) {
		if !seen[modelSpec(m)] {
			seen[modelSpec(m)] = true
			out = append(out, m)
		}
	}
	add(r.a.agentRuntime.Model())
	for _, m := range r.a.registry.All() {
		if m.Provider == r.a.agentRuntime.Model().Provider {
			add(m)
		}
	}
	for _, m := range r.a.registry.Available() {
		add(m)
	}
	return out
}

func (r *repl) cmdModel(ctx context.Context, args string) error {
	if args == "" && r.term.line != nil {
		// On a terminal: the searchable picker.
		return r.pickModel(ctx)
	}
	if args == "" {
		var b strings.Builder
		cur := modelSpec(r.a.agentRuntime.Model())
		for _, m := range r.modelChoices() {
			mark, spec := "  ", fmt.Sprintf("%-40s", modelSpec(m))
			if modelSpec(m) == cur {
				mark, spec = r.term.paint(ansiGreen, "* "), r.term.paint(ansiBold, spec)
			}
			fmt.Fprintf(&b, "%s%s %s\n", mark, spec, r.term.paint(ansiDim, modelInfo(m)))
		}
		b.WriteString(r.term.paint(ansiDim, "switch with /model provider/id (or a part of an id, :level for thinking), or /model next to cycle the config's \"models\"") + "\n")
		r.printf("%s", b.String())
		return nil
	}
	spec, level := strings.TrimSpace(args), ""
	if spec != "next" {
		// What --model takes: a part of an id ("sonnet"), with ":level".
		m, lv, err := r.a.registry.Match("", spec)
		if err != nil {
			return err
		}
		spec, level = modelSpec(m), lv
	}
	if err := r.a.agentRuntime.SetModel(ctx, spec); err != nil {
		return err
	}
	if level != "" {
		if err := r.a.agentRuntime.SetThinkingLevel(ctx, level); err != nil {
			return err
		}
		r.printf("model: %s, thinking: %s%s\n", modelSpec(r.a.agentRuntime.Model()), r.a.agentRuntime.ThinkingLevel(), r.thinkingUnsent())
		return nil
	}
	r.printf("model: %s\n", modelSpec(r.a.agentRuntime.Model()))
	return nil
}

func (r *repl) cmdThinking(ctx context.Context, args string) error {
	if args == "" {
		r.printf("thinking: %s %s\n", r.a.agentRuntime.ThinkingLevel(), r.term.paint(ansiDim, "("+agent.ThinkingLevelNames("|")+")"))
		return nil
	}
	if err := r.a.agentRuntime.SetThinkingLevel(ctx, args); err != nil {
		return err
	}
	r.printf("thinking: %s%s\n", r.a.agentRuntime.ThinkingLevel(), r.thinkingUnsent())
	return nil
}

// thinkingUnsent says, after a thinking level was set, that the current
// model does not reason, so the level is not sent (it applies once a
// model that does is chosen); "" when it is sent or is off.
func (r *repl) thinkingUnsent() string {
	m := r.a.agentRuntime.Model()
	if m.Reasoning || r.a.agentRuntime.ThinkingLevel() == agent.ThinkingOff {
		return ""
	}
	return r.term.paint(ansiYellow, fmt.Sprintf(" — but %s does not reason: no level is sent to it (the level applies to models that do)", modelSpec(m)))
}

func (r *repl) cmdClear(ctx context.Context, _ string) error {
	if err := r.a.agentRuntime.Clear(ctx); err != nil {
		return err
	}
	r.printf("%s\n", r.term.paint(ansiDim, "new session "+r.a.agentRuntime.Session().ID()))
	return nil
}

// cmdCompact compacts the session now; Ctrl+C stops it and leaves the
// session as it was.
func (r *repl) cmdCompact(ctx context.Context, args string) error {
	unsub := r.a.agentRuntime.Subscribe(r.view.runtimeEvent)
	defer unsub()
	_, err := r.a.agentRuntime.Compact(ctx, agent.CompactManual, args)
	switch {
	case errors.Is(err, compaction.ErrNothingToCompact), errors.Is(err, compaction.ErrAlreadyCompacted):
		r.printf("%s\n", r.term.paint(ansiDim, err.Error()))
		return nil
	case errors.Is(err, agent.ErrAborted):
		return nil
	}
	return err
}

func (r *repl) cmdExport(_ context.Context, args string) error {
	path, err := r.a.exportSession(r.a.agentRuntime.Session(), strings.TrimSpace(args))
	if err != nil {
		return err
	}
	r.printf("exported to %s\n", path)
	return nil
}

func (r *repl) cmdQuit(context.Context, string) error { return errQuit }

func (r *repl) cmdHooks(_ context.Context, _ string) error {
	h := r.a.appHookSet()
	if d, ok := h.(interface{ Describe() string }); ok {
		if s := strings.TrimSpace(d.Describe()); s != "" {
			r.printf("%s\n", ansi.Sanitize(s))
			return nil
		}
	}
	cmds := h.Commands()
	if len(cmds) == 0 {
		r.printf("no hooks loaded\n")
		return nil
	}
	bySource := map[string][]commandInfo{}
	var sources []string
	for _, c := range cmds {
		if _, ok := bySource[c.Source]; !ok {
			sources = append(sources, c.Source)
		}
		bySource[c.Source] = append(bySource[c.Source], c)
	}
	var b strings.Builder
	for _, src := range sources {
		if src == "" {
			src = "(unknown file)"
		}
		b.WriteString(r.term.paint(ansiBold, src) + "\n")
		for _, c := range bySource[src] {
			fmt.Fprintf(&b, "  /%-20s %s\n", c.Name, r.term.paint(ansiDim, c.Description))
		}
	}
	r.printf("%s", b.String())
	return nil
}

func (r *repl) cmdTools(_ context.Context, _ string) error {
	if len(r.a.agentRuntime.Tools()) == 0 {
		r.printf("no tools enabled\n")
		return nil
	}
	var b strings.Builder
	width := r.term.columns() - 14
	for _, t := range r.a.agentRuntime.Tools() {
		fmt.Fprintf(&b, "  %-10s %s\n", t.Name, r.term.paint(ansiDim, truncateRunes(firstLine(t.Description, 500), width)))
	}
	r.printf("%s", b.String())
	return nil
}
