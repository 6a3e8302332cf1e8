package main

// Subcommands: `lunar sessions [show ID | rm ID]`, `lunar hooks [check
// FILE | types]` and `lunar completion SHELL`.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/session/export/ansi"
)

// subcommand runs a subcommand if the positional arguments name one.
func (a *app) subcommand() (int, bool) {
	if !isSubcommand(a.opts.Args) {
		return 0, false
	}
	args := a.opts.Args[1:]
	switch a.opts.Args[0] {
	case "sessions":
		return a.subcommandSessions(args), true
	case "hooks":
		return a.subcommandHooks(args), true
	case "completion":
		return a.subcommandCompletion(args), true
	case "mcp":
		return a.subcommandMCP(args), true
	}
	return exitUsage, true
}

// subcommandSessions is `lunar sessions`, `lunar sessions show ID` and `lunar
// sessions rm ID`.
func (a *app) subcommandSessions(args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "show", "rm":
			if len(args) < 2 {
				return a.fail(&usageError{fmt.Sprintf("usage: lunar sessions %s ID|NAME", args[0])})
			}
			query := strings.Join(args[1:], " ")
			if args[0] == "show" {
				return a.subcommandSessionShow(query)
			}
			return a.subcommandSessionRemove(query)
		case "list", "ls":
			args = args[1:]
		}
		if len(args) > 0 {
			return a.fail(&usageError{fmt.Sprintf("unknown sessions command %q (use: lunar sessions [--all] [--json], lunar sessions show ID, lunar sessions rm ID)", args[0])})
		}
	}
	infos, err := a.listSessions(a.opts.All)
	if err != nil {
		return a.fail(err)
	}
	if a.opts.JSON {
		return a.printSessionsJSON(infos)
	}
	if len(infos) == 0 {
		where := a.cwd
		if a.opts.All {
			where = "any folder"
		}
		fmt.Fprintf(a.stderr, "no sessions for %s\n", where)
		return exitOK
	}
	short := shortIDs(sessionIDs(infos))
	now := time.Now()
	idWidth := 8
	for _, s := range short {
		idWidth = max(idWidth, len(s))
	}
	fmt.Fprintf(a.stdout, "%-*s  %-13s %5s  %s\n", idWidth, "ID", "MODIFIED", "MSGS", "NAME / FIRST MESSAGE")
	for _, in := range infos {
		title := sessionTitle(in, 60)
		if a.opts.All {
			title = ansi.Sanitize(displayPath(in.Cwd, a.cwd)) + "  " + title
		}
		fmt.Fprintf(a.stdout, "%-*s  %-13s %5d  %s\n", idWidth, short[in.ID], relativeTime(in.Modified, now), in.MessageCount, title)
	}
	return exitOK
}

// listSessions lists this folder's sessions (those of --session-dir), or
// every folder's.
func (a *app) listSessions(all bool) ([]session.Info, error) {
	switch {
	case a.opts.SessionDir != "":
		return session.ListDir(a.opts.SessionDir)
	case all:
		return session.ListAll(a.paths.Sessions())
	}
	return session.List(a.paths.Sessions(), a.cwd)
}

// sessionJSON is one session in `lunar sessions --json`.
type sessionJSON struct {
	ID            string `json:"id"`
	ShortID       string `json:"short_id"`
	Path          string `json:"path"`
	Cwd           string `json:"cwd"`
	Name          string `json:"name,omitempty"`
	FirstMessage  string `json:"first_message,omitempty"`
	Modified      string `json:"modified"`
	MessageCount  int    `json:"message_count"`
	ParentSession string `json:"parent_session,omitempty"`
}

func (a *app) printSessionsJSON(infos []session.Info) int {
	short := shortIDs(sessionIDs(infos))
	out := make([]sessionJSON, len(infos))
	for i, in := range infos {
		out[i] = sessionJSON{ID: in.ID, ShortID: short[in.ID], Path: in.Path, Cwd: in.Cwd, Name: in.Name,
			FirstMessage: in.FirstMessage, Modified: in.Modified.UTC().Format(time.RFC3339), MessageCount: in.MessageCount,
			ParentSession: in.ParentSession}
	}
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return a.fail(err)
	}
	return exitOK
}

// subcommandSessionShow prints a session's conversation (its current branch).
func (a *app) subcommandSessionShow(query string) int {
	path, err := a.resolveSession(query)
	if err != nil {
		return a.fail(err)
	}
	s, err := session.Load(path)
	if err != nil {
		return a.fail(err)
	}
	md := transcript(s)
	// On a terminal the transcript is markdown: the renderer draws it.
	io.WriteString(a.stdout, renderMarkdown(md, a.stdout))
	return exitOK
}

// subcommandSessionRemove deletes a session file, after asking on a terminal;
// without one, only with --yes.
func (a *app) subcommandSessionRemove(query string) int {
	path, err := a.resolveSession(query)
	if err != nil {
		return a.fail(err)
	}
	in, _ := sessionInfoOf(path)
	if !a.opts.Yes {
		if !isTerminal(a.stdin) {
			return a.fail(&usageError{fmt.Sprintf("not removing %s without confirmation: pass --yes (no terminal to ask on)", path)})
		}
		fmt.Fprintf(a.stderr, "remove session %s (%s, %d messages)?\n  %s\n[y/N] ", in.ID, sessionTitle(in, 60), in.MessageCount, path)
		answer, err := readCookedLine(a.stdin)
		if err != nil && answer == "" {
			fmt.Fprintln(a.stderr)
			return a.fail(errors.New("not removed"))
		}
		if ans := strings.ToLower(strings.TrimSpace(answer)); ans != "y" && ans != "yes" {
			fmt.Fprintln(a.stderr, "not removed")
			return exitError
		}
	}
	if err := os.Remove(path); err != nil {
		return a.fail(err)
	}
	fmt.Fprintf(a.stderr, "removed %s\n", path)
	return exitOK
}

// sessionTitle is a session's name or else its first message, on one
// line, cut to max characters.
func sessionTitle(in session.Info, max int) string {
	title := in.Name
	if title == "" {
		title = withoutAttachments(in.FirstMessage)
	}
	title = strings.Join(strings.Fields(ansi.Sanitize(title)), " ")
	if r := []rune(title); len(r) > max {
		title = string(r[:max]) + "…"
	}
	return title
}

// withoutAttachments is a prompt's text without the <file> blocks that
// @path attachments appended to it (after a blank line, at its end): the
// user's own words.
func withoutAttachments(text string) string {
	if i := strings.Index(text, "\n\n<file name=\""); i >= 0 {
		return text[:i]
	}
	if strings.HasPrefix(text, "<file name=\"") {
		return "" // attachments alone (lunar @a.go -p "")
	}
	return text
}

// formatSessionInfo is a session on one line, for the REPL's picker;
// short is its id as shortIDs gives it.
func formatSessionInfo(in session.Info, short string) string {
	return fmt.Sprintf("%s  %-13s %4d msgs  %s", short, relativeTime(in.Modified, time.Now()), in.MessageCount, sessionTitle(in, 60))
}

// relativeTime writes t as "just now", "3 min ago", "2 h ago",
// "yesterday", "5 days ago", or a date for anything older than a month.
func relativeTime(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h ago", int(d/time.Hour))
	case d < 48*time.Hour:
		return "yesterday"
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%d days ago", int(d/(24*time.Hour)))
	}
	return t.Local().Format("2006-01-02")
}
