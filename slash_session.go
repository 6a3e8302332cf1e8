package main

// The REPL's commands that move in or between sessions: /branch, /fork,
// /label, /name, /sessions, /resume, and /session's statistics.

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/session/export/ansi"
)

// resolveEntry finds an entry by id, unique id prefix or label.
func (r *repl) resolveEntry(arg string) (string, error) {
	s := r.a.agentRuntime.Session()
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
	if id == r.a.agentRuntime.Session().LeafID() {
		r.printf("already there\n")
		return nil
	}
	if summarize {
		r.printf("%s\n", r.term.paint(ansiDim, "summarising the branch…"))
	}
	// A user message is left out of the new path: its text goes into the
	// prompt to edit and resend (branchTo).
	before := false
	if e := r.a.agentRuntime.Session().Get(id); e != nil {
		before = e.Type == session.TypeCustomMessage ||
			(e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == session.RoleUser)
	}
	text, err := r.a.agentRuntime.Branch(ctx, id, agent.BranchOptions{Summarize: summarize})
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
	if e := r.a.agentRuntime.Session().Get(r.a.agentRuntime.Session().LeafID()); e != nil && e.Type == session.TypeBranchSummary {
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
	if err := r.a.agentRuntime.Fork(ctx, id); err != nil {
		return err
	}
	where := r.a.agentRuntime.Session().File()
	if where == "" {
		where = r.a.agentRuntime.Session().ID()
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
	if err := r.a.agentRuntime.SetLabel(id, text); err != nil {
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
		if n := r.a.agentRuntime.Session().Name(); n != "" {
			r.printf("name: %s\n", ansi.Sanitize(n))
		} else {
			r.printf("the session has no name; set one with /name TEXT\n")
		}
		return nil
	}
	if err := r.a.agentRuntime.SetName(args); err != nil {
		return err
	}
	r.printf("name: %s\n", ansi.Sanitize(r.a.agentRuntime.Session().Name()))
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
		if in.Path == r.a.agentRuntime.Session().File() {
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
	if path == r.a.agentRuntime.Session().File() {
		r.printf("that is the current session\n")
		return nil
	}
	if err := r.a.agentRuntime.Switch(ctx, path); err != nil {
		return err
	}
	name := r.a.agentRuntime.Session().Name()
	if name == "" {
		name = r.a.agentRuntime.Session().ID()
	}
	r.printf("%s\n", r.term.paint(ansiDim, fmt.Sprintf("resumed %s · %s · thinking %s", name, modelSpec(r.a.agentRuntime.Model()), r.a.agentRuntime.ThinkingLevel())))
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
	s := r.a.agentRuntime.Session()
	st := statsOf(s)
	st.contextTokens = r.a.agentRuntime.ContextTokens()
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
	row("model", modelSpec(r.a.agentRuntime.Model())+" · thinking "+string(r.a.agentRuntime.ThinkingLevel()))
	row("entries", fmt.Sprintf("%d (%d messages: %d user, %d assistant, %d tool results)", st.entries, st.messages, st.user, st.assistant, st.tools))
	row("tokens", fmt.Sprintf("in %s · out %s · cache read %s · cache write %s",
		groupDigits(st.usage.Input), groupDigits(st.usage.Output), groupDigits(st.usage.CacheRead), groupDigits(st.usage.CacheWrite)))
	row("cost", fmt.Sprintf("$%.4f", st.usage.Cost.Total))
	ctxLine := groupDigits(st.contextTokens) + " tokens"
	if w := r.a.agentRuntime.Model().ContextWindow; w > 0 {
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
