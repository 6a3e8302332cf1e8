package main

// The REPL's built-in slash commands and the dispatch to hook commands.

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/agent/compaction"
	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/session"
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
	sess, mark := r.a.rt.Session(), r.a.rt.Session().LeafID()
	showNew := func() {
		if r.a.rt.Session() == sess {
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
	add(r.a.rt.Model())
	for _, m := range r.a.registry.All() {
		if m.Provider == r.a.rt.Model().Provider {
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
		cur := modelSpec(r.a.rt.Model())
		for _, m := range r.modelChoices() {
			mark, spec := "  ", fmt.Sprintf("%-40s", modelSpec(m))
			if modelSpec(m) == cur {
				mark, spec = r.term.paint(ansiGreen, "* "), r.term.paint(ansiBold, spec)
			}
			info := ""
			if m.ContextWindow > 0 {
				info = shortTokens(m.ContextWindow) + " context"
			}
			fmt.Fprintf(&b, "%s%s %s\n", mark, spec, r.term.paint(ansiDim, info))
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
	if err := r.a.rt.SetModel(ctx, spec); err != nil {
		return err
	}
	if level != "" {
		if err := r.a.rt.SetThinkingLevel(ctx, level); err != nil {
			return err
		}
		r.printf("model: %s, thinking: %s%s\n", modelSpec(r.a.rt.Model()), r.a.rt.ThinkingLevel(), r.thinkingUnsent())
		return nil
	}
	r.printf("model: %s\n", modelSpec(r.a.rt.Model()))
	return nil
}

func (r *repl) cmdThinking(ctx context.Context, args string) error {
	if args == "" {
		r.printf("thinking: %s %s\n", r.a.rt.ThinkingLevel(), r.term.paint(ansiDim, "("+agent.ThinkingLevelNames("|")+")"))
		return nil
	}
	if err := r.a.rt.SetThinkingLevel(ctx, args); err != nil {
		return err
	}
	r.printf("thinking: %s%s\n", r.a.rt.ThinkingLevel(), r.thinkingUnsent())
	return nil
}

// thinkingUnsent says, after a thinking level was set, that the current
// model does not reason, so the level is not sent (it applies once a
// model that does is chosen); "" when it is sent or is off.
func (r *repl) thinkingUnsent() string {
	m := r.a.rt.Model()
	if m.Reasoning || r.a.rt.ThinkingLevel() == agent.ThinkingOff {
		return ""
	}
	return r.term.paint(ansiYellow, fmt.Sprintf(" — but %s does not reason: no level is sent to it (the level applies to models that do)", modelSpec(m)))
}

func (r *repl) cmdClear(ctx context.Context, _ string) error {
	if err := r.a.rt.Clear(ctx); err != nil {
		return err
	}
	r.printf("%s\n", r.term.paint(ansiDim, "new session "+r.a.rt.Session().ID()))
	return nil
}

// cmdCompact compacts the session now; Ctrl+C stops it and leaves the
// session as it was.
func (r *repl) cmdCompact(ctx context.Context, args string) error {
	unsub := r.a.rt.Subscribe(r.view.runtimeEvent)
	defer unsub()
	_, err := r.a.rt.Compact(ctx, agent.CompactManual, args)
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
	path, err := r.a.exportSession(r.a.rt.Session(), strings.TrimSpace(args))
	if err != nil {
		return err
	}
	r.printf("exported to %s\n", path)
	return nil
}

func (r *repl) cmdQuit(context.Context, string) error { return errQuit }

// resolveEntry finds an entry by id, unique id prefix or label.
func (r *repl) resolveEntry(arg string) (string, error) {
	s := r.a.rt.Session()
	if e := s.Get(arg); e != nil {
		return e.ID, nil
	}
	var matches []string
	for _, e := range s.Entries() {
		if strings.HasPrefix(e.ID, arg) {
			matches = append(matches, e.ID)
		}
	}
	if len(matches) == 1 {
		return matches[0], nil
	}
	if len(matches) > 1 {
		return "", fmt.Errorf("%q matches %d entries: %s", arg, len(matches), strings.Join(matches, ", "))
	}
	for _, e := range s.Entries() {
		if s.Label(e.ID) == arg {
			return e.ID, nil
		}
	}
	return "", fmt.Errorf("no entry %q in this session (see /tree)", arg)
}

func (r *repl) cmdBranch(ctx context.Context, args string) error {
	var id string
	summarize := false
	for _, f := range strings.Fields(args) {
		switch {
		case f == "--summarize" || f == "--summarise" || f == "-s":
			summarize = true
		case strings.HasPrefix(f, "-"):
			return fmt.Errorf("/branch: unknown option %s (usage: /branch ID [--summarize])", f)
		case id == "":
			id = f
		default:
			return errors.New("/branch: one entry id only (usage: /branch ID [--summarize])")
		}
	}
	if id == "" && r.term.line != nil {
		var ok bool
		if id, ok = r.pickEntry("Branch from which entry?"); !ok {
			return nil
		}
	}
	if id == "" {
		return errors.New("usage: /branch ID [--summarize] (entry ids are in /tree)")
	}
	id, err := r.resolveEntry(id)
	if err != nil {
		return err
	}
	if id == r.a.rt.Session().LeafID() {
		r.printf("already there\n")
		return nil
	}
	if summarize {
		r.printf("%s\n", r.term.paint(ansiDim, "summarising the branch…"))
	}
	// A user message is left out of the new path: its text goes into the
	// prompt to edit and resend (branchTo).
	before := false
	if e := r.a.rt.Session().Get(id); e != nil {
		before = e.Type == session.TypeCustomMessage ||
			(e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == session.RoleUser)
	}
	text, err := r.a.rt.Branch(ctx, id, agent.BranchOptions{Summarize: summarize})
	if err != nil {
		return err
	}
	if text != "" {
		r.ui.SetEditorText(text)
	}
	msg := "now at " + id
	if before {
		msg = "now before " + id + "; its text is in the prompt to edit and resend"
		if r.term.line == nil && r.term.plain == nil { // one-shot: there is no prompt to fill
			msg = "now before " + id + "; its text was: " + ansi.Sanitize(text)
		}
	}
	if e := r.a.rt.Session().Get(r.a.rt.Session().LeafID()); e != nil && e.Type == session.TypeBranchSummary {
		msg += " (summary of the branch left: " + e.ID + ")"
	}
	r.printf("%s\n", r.term.paint(ansiDim, msg))
	return nil
}

func (r *repl) cmdFork(ctx context.Context, args string) error {
	id := ""
	if args != "" {
		var err error
		if id, err = r.resolveEntry(args); err != nil {
			return err
		}
	}
	if err := r.a.rt.Fork(ctx, id); err != nil {
		return err
	}
	where := r.a.rt.Session().File()
	if where == "" {
		where = r.a.rt.Session().ID()
	}
	r.printf("%s\n", r.term.paint(ansiDim, "forked into "+where))
	return nil
}

func (r *repl) cmdLabel(_ context.Context, args string) error {
	idArg, text, _ := strings.Cut(args, " ")
	if idArg == "" {
		return errors.New("usage: /label ID [TEXT]")
	}
	id, err := r.resolveEntry(idArg)
	if err != nil {
		return err
	}
	text = strings.TrimSpace(text)
	if err := r.a.rt.SetLabel(id, text); err != nil {
		return err
	}
	if text == "" {
		r.printf("label of %s removed\n", id)
	} else {
		r.printf("%s labelled %q\n", id, text)
	}
	return nil
}

func (r *repl) cmdName(_ context.Context, args string) error {
	if args == "" {
		if n := r.a.rt.Session().Name(); n != "" {
			r.printf("name: %s\n", ansi.Sanitize(n))
		} else {
			r.printf("the session has no name; set one with /name TEXT\n")
		}
		return nil
	}
	if err := r.a.rt.SetName(args); err != nil {
		return err
	}
	r.printf("name: %s\n", ansi.Sanitize(r.a.rt.Session().Name()))
	return nil
}

// sessionInfos lists this folder's sessions, newest first.
func (r *repl) sessionInfos() ([]session.Info, error) {
	var infos []session.Info
	var err error
	if r.a.opts.SessionDir != "" {
		infos, err = session.ListDir(r.a.opts.SessionDir)
	} else {
		infos, err = session.List(r.a.paths.Sessions(), r.a.cwd)
	}
	sort.SliceStable(infos, func(i, j int) bool { return infos[i].Modified.After(infos[j].Modified) })
	return infos, err
}

// pickSession lists sessions numbered (the current one marked) and
// switches to the one chosen.
func (r *repl) pickSession(ctx context.Context, infos []session.Info) error {
	if len(infos) == 0 {
		r.printf("no sessions for %s\n", r.a.cwd)
		return nil
	}
	opts := make([]string, len(infos))
	short := paddedShortIDs(infos)
	for i, in := range infos {
		opts[i] = formatSessionInfo(in, short[in.ID])
		if in.Path == r.a.rt.Session().File() {
			opts[i] += "  (current)"
		}
	}
	i, ok := r.ui.choose(pickSpec{title: "Sessions of " + r.a.cwd, items: opts, numbered: true, initial: -1})
	if !ok {
		return nil
	}
	return r.switchTo(ctx, infos[i].Path)
}

// switchTo switches sessions and shows where the new one stands.
func (r *repl) switchTo(ctx context.Context, path string) error {
	if path == r.a.rt.Session().File() {
		r.printf("that is the current session\n")
		return nil
	}
	if err := r.a.rt.Switch(ctx, path); err != nil {
		return err
	}
	name := r.a.rt.Session().Name()
	if name == "" {
		name = r.a.rt.Session().ID()
	}
	r.printf("%s\n", r.term.paint(ansiDim, fmt.Sprintf("resumed %s · %s · thinking %s", name, modelSpec(r.a.rt.Model()), r.a.rt.ThinkingLevel())))
	r.replay(4)
	return nil
}

func (r *repl) cmdSessions(ctx context.Context, _ string) error {
	infos, err := r.sessionInfos()
	if err != nil {
		return err
	}
	return r.pickSession(ctx, infos)
}

func (r *repl) cmdResume(ctx context.Context, args string) error {
	infos, err := r.sessionInfos()
	if err != nil {
		return err
	}
	if args == "" {
		return r.pickSession(ctx, infos)
	}
	// An id (its start, or four or more of its characters), a name or
	// words of the first message (matchSessions).
	matches := matchSessions(infos, args)
	switch len(matches) {
	case 0:
		return fmt.Errorf("no session %q in this folder: no id, name or first message matches (see /sessions)", args)
	case 1:
		return r.switchTo(ctx, matches[0].Path)
	}
	return r.pickSession(ctx, matches)
}

// sessionStats are the totals /session shows.
type sessionStats struct {
	entries, messages, user, assistant, tools int
	usage                                     session.Usage
	contextTokens                             int
}

// statsOf adds up usage over every assistant message in the file.
func statsOf(s *session.Session) sessionStats {
	var st sessionStats
	for _, e := range s.Entries() {
		st.entries++
		if e.Type != session.TypeMessage || e.Message == nil {
			continue
		}
		st.messages++
		switch e.Message.Role {
		case session.RoleUser:
			st.user++
		case session.RoleAssistant:
			st.assistant++
			if u := e.Message.Usage; u != nil {
				st.usage.Input += u.Input
				st.usage.Output += u.Output
				st.usage.CacheRead += u.CacheRead
				st.usage.CacheWrite += u.CacheWrite
				st.usage.Cost.Total += u.Cost.Total
			}
		case session.RoleToolResult:
			st.tools++
		}
	}
	return st
}

func (r *repl) cmdSession(_ context.Context, _ string) error {
	s := r.a.rt.Session()
	st := statsOf(s)
	st.contextTokens = r.a.rt.ContextTokens()
	file := s.File()
	if file == "" {
		file = "(not saved: --no-session)"
	}
	name := ansi.Sanitize(s.Name())
	if name == "" {
		name = r.term.paint(ansiDim, "(none; /name TEXT)")
	}
	var b strings.Builder
	row := func(k, v string) { fmt.Fprintf(&b, "%-9s %s\n", k, v) }
	row("file", file)
	row("id", s.ID())
	row("name", name)
	row("model", modelSpec(r.a.rt.Model())+" · thinking "+string(r.a.rt.ThinkingLevel()))
	row("entries", fmt.Sprintf("%d (%d messages: %d user, %d assistant, %d tool results)", st.entries, st.messages, st.user, st.assistant, st.tools))
	row("tokens", fmt.Sprintf("in %s · out %s · cache read %s · cache write %s",
		groupDigits(st.usage.Input), groupDigits(st.usage.Output), groupDigits(st.usage.CacheRead), groupDigits(st.usage.CacheWrite)))
	row("cost", fmt.Sprintf("$%.4f", st.usage.Cost.Total))
	ctxLine := groupDigits(st.contextTokens) + " tokens"
	if w := r.a.rt.Model().ContextWindow; w > 0 {
		ctxLine = fmt.Sprintf("%s / %s tokens (%.1f%%)", groupDigits(st.contextTokens), groupDigits(w), 100*float64(st.contextTokens)/float64(w))
	}
	row("context", ctxLine)
	r.printf("%s", b.String())
	return nil
}

// shortTokens writes a token count as 128k or 1.05M.
func shortTokens(n int) string {
	switch {
	case n >= 1_000_000:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", float64(n)/1e6), "0"), ".") + "M"
	case n >= 1000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

// groupDigits writes n with thousands separators: 12,345.
func groupDigits(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + groupDigits(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

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
	if len(r.a.rt.Tools()) == 0 {
		r.printf("no tools enabled\n")
		return nil
	}
	var b strings.Builder
	width := r.term.columns() - 14
	for _, t := range r.a.rt.Tools() {
		fmt.Fprintf(&b, "  %-10s %s\n", t.Name, r.term.paint(ansiDim, truncateRunes(firstLine(t.Description, 500), width)))
	}
	r.printf("%s", b.String())
	return nil
}

func (r *repl) cmdTree(_ context.Context, _ string) error {
	s := r.a.rt.Session()
	roots := s.Tree()
	if len(roots) == 0 {
		r.printf("the session is empty\n")
		return nil
	}
	onPath := map[string]bool{}
	leaf := ""
	if id := s.LeafID(); id != "" {
		for _, e := range s.Path(id) {
			onPath[e.ID] = true
			// The marker goes on the last entry shown: a trailing label
			// or name entry is not drawn.
			if !hiddenInTree(e) {
				leaf = e.ID
			}
		}
	}
	tw := &treeWriter{t: r.term, onPath: onPath, leaf: leaf, width: r.term.columns(), label: s.Label}
	tw.nodes(visible(roots), "")
	r.printf("%s", tw.b.String())
	return nil
}

// treeWriter renders the session tree: a chain of single children stays
// in one column, branches are drawn with ├─ and └─.
type treeWriter struct {
	t      *terminal
	b      strings.Builder
	onPath map[string]bool
	leaf   string
	width  int
	label  func(id string) string
}

// hiddenInTree are entry types /tree leaves out (their children take
// their place).
func hiddenInTree(e *session.Entry) bool {
	return e.Type == session.TypeLabel || e.Type == session.TypeSessionInfo
}

// visible replaces hidden nodes by their visible descendants.
func visible(nodes []*session.TreeNode) []*session.TreeNode {
	var out []*session.TreeNode
	for _, n := range nodes {
		if hiddenInTree(n.Entry) {
			out = append(out, visible(n.Children)...)
		} else {
			out = append(out, n)
		}
	}
	return out
}

// nodes writes sibling subtrees under prefix.
func (tw *treeWriter) nodes(nodes []*session.TreeNode, prefix string) {
	if len(nodes) == 1 {
		tw.chain(nodes[0], prefix, "", prefix)
		return
	}
	for i, n := range nodes {
		if i == len(nodes)-1 {
			tw.chain(n, prefix, "└─ ", prefix+"   ")
		} else {
			tw.chain(n, prefix, "├─ ", prefix+"│  ")
		}
	}
}

// chain writes n and its single-child descendants, then its branches.
func (tw *treeWriter) chain(n *session.TreeNode, prefix, connector, cont string) {
	for {
		tw.line(n.Entry, prefix+connector, n.Label)
		kids := visible(n.Children)
		if len(kids) != 1 {
			tw.nodes(kids, cont)
			return
		}
		n, prefix, connector = kids[0], cont, ""
	}
}

func (tw *treeWriter) line(e *session.Entry, prefix, label string) {
	mark := "  "
	if tw.onPath[e.ID] {
		mark = tw.t.paint(ansiGreen, "* ")
	}
	if label == "" && tw.label != nil {
		label = tw.label(e.ID)
	}
	suffix := ""
	if label != "" {
		suffix += " " + tw.t.paint(ansiYellow, "["+label+"]")
	}
	if e.ID == tw.leaf {
		suffix += " " + tw.t.paint(ansiGreen, "← leaf")
	}
	desc := ansi.Sanitize(entryPreview(e))
	room := tw.width - len([]rune(prefix)) - 12 - len([]rune(label)) - 10
	fmt.Fprintf(&tw.b, "%s%s%s  %s%s\n", mark, prefix, tw.t.paint(ansiDim, e.ID), truncateRunes(desc, max(room, 20)), suffix)
}

// entryPreview describes an entry in one line: role and text for
// messages, the change for model and thinking entries.
func entryPreview(e *session.Entry) string {
	switch e.Type {
	case session.TypeMessage:
		if e.Message != nil {
			return messagePreview(e.Message)
		}
	case session.TypeModelChange:
		return "model → " + e.Provider() + "/" + e.ModelID()
	case session.TypeThinkingLevelChange:
		return "thinking → " + e.ThinkingLevel()
	case session.TypeCompaction:
		return "compaction: " + firstLine(e.Summary(), 200)
	case session.TypeBranchSummary:
		return "branch summary: " + firstLine(strings.TrimPrefix(e.Summary(), compaction.BranchSummaryPreamble), 200)
	case session.TypeCustomMessage:
		return "[" + e.CustomType() + "] " + firstLine(blocksText(e.Content()), 200)
	case session.TypeCustom:
		return "custom " + e.CustomType()
	}
	return e.Type
}

// blocksText joins the text blocks of a content list.
func blocksText(blocks []session.ContentBlock) string {
	var b strings.Builder
	for _, c := range blocks {
		if c.Type == session.BlockText {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}
