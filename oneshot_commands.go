package main

// Built-in slash commands in one-shot modes (-p, piped stdin, --mode
// json): those that make sense without a terminal run as in the REPL,
// their output on stdout (stderr in JSON mode, whose stdout is events
// only); the rest are refused with one line and exit code 2, before
// anything runs.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// oneShotRefused says why a built-in does not run without a terminal.
var oneShotRefused = map[string]string{
	"clear":    "one-shot runs start a new session unless -c, -r or --session says otherwise",
	"sessions": "it picks a session interactively; list them with `lunar sessions`",
	"resume":   "it switches sessions; use --session ID or -c",
	"expand":   "one-shot output is never folded",
	"quit":     "a one-shot run ends by itself",
	"exit":     "a one-shot run ends by itself",
}

// oneShotCommand splits a one-shot prompt that is a built-in command
// line into its name and arguments.
func oneShotCommand(text string) (c *slashCommand, args string) {
	trimmed := strings.TrimSpace(text)
	if !isCommand(trimmed) {
		return nil, ""
	}
	name, args, _ := strings.Cut(strings.TrimPrefix(trimmed, "/"), " ")
	if i := strings.IndexByte(name, '\n'); i >= 0 {
		name, args = name[:i], name[i+1:]+" "+args
	}
	return findBuiltin(name), strings.TrimSpace(args)
}

// refuseOneShot returns the usage error of a built-in one-shot mode
// cannot run, nil for anything else.
func refuseOneShot(text string) error {
	c, _ := oneShotCommand(text)
	if c == nil {
		return nil
	}
	if why, ok := oneShotRefused[c.name]; ok {
		return &usageError{fmt.Sprintf("/%s needs the interactive REPL: %s", c.name, why)}
	}
	return nil
}

// runBuiltinOneShot runs a built-in command line; ok false when text is
// not one.
func (a *app) runBuiltinOneShot(ctx context.Context, text string) (ok bool, err error) {
	c, args := oneShotCommand(text)
	if c == nil {
		return false, nil
	}
	if err := refuseOneShot(text); err != nil {
		return true, err
	}
	out := a.stdout
	if a.opts.Mode == "json" {
		out = a.stderr
	}
	r := headlessREPL(a, out)
	defer r.view.endLine()
	err = c.run(r, ctx, args)
	if errors.Is(err, errQuit) {
		err = nil
	}
	return true, err
}

// headlessREPL is a REPL without a terminal, for the built-in commands'
// code: it writes to out without colours and has no editor to fill
// (/branch to a user message says its text instead).
func headlessREPL(a *app, out io.Writer) *repl {
	t := &terminal{stdout: out, stderr: a.stderr}
	r := &repl{a: a, term: t}
	r.view = newView(t, false, a.appHookSet)
	r.view.raw = true
	r.ui = &replUI{r: r}
	return r
}
