package main

// The REPL's first and last words: the banner (model, session, hooks and
// context files in use), the prompts given on the command line, and how
// to come back to the session on quitting.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/session"
)

// banner greets the user with what this run uses and, for a resumed
// session, the last messages.
func (r *repl) banner() {
	a := r.a
	var b strings.Builder
	fmt.Fprintf(&b, "lunar %s · %s · thinking %s\n", version, modelSpec(a.agentRuntime.Model()), a.agentRuntime.ThinkingLevel())
	// A value wider than the terminal is broken between words, its
	// further lines under its first, so the columns hold.
	width := max(r.term.columns()-12, 20)
	row := func(k, v string) {
		for i, l := range wrapWords(v, width) {
			if i > 0 {
				k = ""
			}
			fmt.Fprintf(&b, "  %-8s %s\n", k, l)
		}
	}
	row("session", a.sessionLine())
	if hooks := a.hooksLine(); hooks != "" {
		row("hooks", hooks)
	}
	if files := agent.ContextFiles(a.cwd, a.paths.Config); len(files) > 0 {
		for i, f := range files {
			files[i] = displayPath(f, a.cwd)
		}
		row("context", strings.Join(files, ", "))
	}
	// Last, so that what follows the banner comes after these words.
	row("help", "/help for commands, Ctrl+D to quit")
	r.printf("%s", r.view.styled(ansiDim, b.String()))
	if a.agentRuntime.Resumed() {
		r.replay(4)
	}
}

// sessionLine says which session the REPL writes to.
func (a *app) sessionLine() string {
	s := a.agentRuntime.Session()
	if s.File() == "" {
		return "not saved (--no-session)"
	}
	id := a.shortSessionID(s.ID())
	name := ""
	if n := s.Name(); n != "" {
		name = fmt.Sprintf(" %q", n)
	}
	switch {
	case a.opts.Fork != "":
		return fmt.Sprintf("%s%s, forked from %s", id, name, a.opts.Fork)
	case a.agentRuntime.Resumed():
		n := 0
		for _, e := range s.Entries() {
			if e.Type == session.TypeMessage {
				n++
			}
		}
		return fmt.Sprintf("%s%s, resumed (%d message%s)", id, name, n, plural(n))
	}
	return id + " (new; saved once the model answers)"
}

// hooksLine names the active hooks, those from the project and the
// command line marked so.
func (a *app) hooksLine() string {
	if a.luaRuntime == nil {
		return ""
	}
	var names []string
	failed := 0
	for _, h := range a.luaRuntime.Report() {
		if len(h.Errors) > 0 {
			failed++
			continue
		}
		name := strings.TrimSuffix(h.Name, ".lua")
		switch h.Origin {
		case lua.OriginProject:
			name += " (project)"
		case lua.OriginCLI:
			name += " (-e)"
		case lua.OriginGlobal:
			name += " (user)"
		}
		names = append(names, name)
	}
	line := strings.Join(names, ", ")
	if line == "" {
		line = "none"
	}
	if failed > 0 {
		line += fmt.Sprintf("; %d failed to load (lunar hooks)", failed)
	}
	return line
}

// displayPath writes path relative to cwd when inside it, with ~ for the
// home folder otherwise.
func displayPath(path, cwd string) string {
	if rel, err := filepath.Rel(cwd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if rel, err := filepath.Rel(home, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return path
}

// initialPrompts sends the prompts given on the command line, each shown
// as if typed; Ctrl+C stops the rest.
func (r *repl) initialPrompts(prompts []initialPrompt) {
	for _, p := range prompts {
		if r.isStopping() || r.stopped {
			return
		}
		r.view.echo(p.text)
		r.stopped = false
		if isCommand(strings.TrimSpace(p.text)) && len(p.images) == 0 {
			if quit := r.command(strings.TrimSpace(p.text)); quit {
				return
			}
		} else {
			r.send(p.text, p.images)
		}
		r.drainPending()
	}
}

// resumeHint tells, on quitting, how to come back to a saved session.
func (r *repl) resumeHint() {
	a := r.a
	s := a.agentRuntime.Session()
	if !s.OnDisk() {
		return
	}
	dir := ""
	if a.opts.SessionDir != "" {
		dir = " --session-dir " + shellQuote(a.opts.SessionDir)
	}
	r.printf("%s\n", r.term.paint(ansiDim, fmt.Sprintf("to resume: lunar%s -c  (or lunar%s --session %s)", dir, dir, a.shortSessionID(s.ID()))))
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./~:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
