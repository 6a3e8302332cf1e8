// Subcommands: `lunar sessions` and `lunar hooks [check FILE | types]`.
package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/lunar-cli/lunar/session"
)

// subcommand runs a subcommand if the positional arguments name one.
func (a *app) subcommand() (int, bool) {
	if len(a.opts.Args) == 0 {
		return 0, false
	}
	switch a.opts.Args[0] {
	case "sessions":
		return a.cmdSessions(), true
	case "hooks":
		return a.cmdHooks(a.opts.Args[1:]), true
	}
	fmt.Fprintf(a.stderr, "lunar: unknown command %q (commands: sessions, hooks; use -p for a prompt)\n", a.opts.Args[0])
	return exitUsage, true
}

func (a *app) cmdSessions() int {
	var infos []session.Info
	var err error
	if a.opts.SessionDir != "" {
		infos, err = session.ListDir(a.opts.SessionDir)
	} else {
		infos, err = session.List(a.paths.Sessions(), a.cwd)
	}
	if err != nil {
		fmt.Fprintf(a.stderr, "lunar: %v\n", err)
		return exitError
	}
	if len(infos) == 0 {
		fmt.Fprintf(a.stderr, "no sessions for %s\n", a.cwd)
		return exitOK
	}
	for _, in := range infos {
		fmt.Fprintln(a.stdout, formatSessionInfo(in))
	}
	return exitOK
}

func formatSessionInfo(in session.Info) string {
	title := in.Name
	if title == "" {
		title = in.FirstMessage
	}
	title = strings.Join(strings.Fields(title), " ")
	if r := []rune(title); len(r) > 60 {
		title = string(r[:60]) + "…"
	}
	return fmt.Sprintf("%s  %s  %4d msgs  %s", in.ID, in.Modified.Local().Format(time.DateTime), in.MessageCount, title)
}
