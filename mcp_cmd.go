package main

// MCP servers at the front ends: /mcp in the REPL and `lunar mcp list`
// list the servers, their state, tools and prompts; /mcp__server__prompt
// runs a server's prompt (the prompt's text becomes the user's).

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/lunar-cli/lunar/agent/mcp"
	"github.com/lunar-cli/lunar/session/export/ansi"
)

// writeMCPStatus lists the servers for /mcp and `lunar mcp list`. What a
// server says (names, errors) is sanitised: a server is not the terminal's.
func writeMCPStatus(w io.Writer, list []mcp.Status, home string) {
	if len(list) == 0 {
		fmt.Fprintln(w, "no MCP servers configured (see docs/mcp.md: mcp.json beside config.json, or a trusted project's .mcp.json)")
		return
	}
	for _, s := range list {
		state := string(s.State)
		if s.Error != "" {
			state += ": " + s.Error
		}
		origin := s.Origin
		if home != "" && strings.HasPrefix(origin, home+string(os.PathSeparator)) {
			origin = "~" + origin[len(home):]
		}
		fmt.Fprintf(w, "%s  %s %s  %s  (%s)\n", ansi.Sanitize(s.Name), s.Transport, ansi.Sanitize(s.Target), ansi.Sanitize(state), ansi.Sanitize(origin))
		for _, t := range s.Tools {
			ro := ""
			if t.ReadOnly {
				ro = "  (read-only)"
			}
			fmt.Fprintf(w, "  %s%s\n", ansi.Sanitize(t.Name), ro)
		}
		for _, p := range s.Prompts {
			fmt.Fprintf(w, "  /%s  (prompt)\n", ansi.Sanitize(p))
		}
	}
}

// cmdMCP is /mcp: it starts the servers if no run has yet.
func (r *repl) cmdMCP(ctx context.Context, _ string) error {
	var b strings.Builder
	if r.a.mcp != nil {
		r.a.mcp.Start(context.WithoutCancel(ctx))
		writeMCPStatus(&b, r.a.mcp.Status(), homeDir())
	} else {
		writeMCPStatus(&b, nil, "")
	}
	r.printf("%s", b.String())
	return nil
}

// subcommandMCP is `lunar mcp list`: it starts the servers, lists them and
// stops them. The exit code is 1 when a server did not start.
func (a *app) subcommandMCP(args []string) int {
	if len(args) > 0 && args[0] != "list" && args[0] != "ls" || len(args) > 1 {
		return a.fail(&usageError{"usage: lunar mcp [list]"})
	}
	if err := a.setupMCP(); err != nil {
		return a.fail(err)
	}
	if a.mcp == nil {
		writeMCPStatus(a.stdout, nil, "")
		return exitOK
	}
	defer a.mcp.Close()
	a.mcp.Start(context.Background())
	list := a.mcp.Status()
	writeMCPStatus(a.stdout, list, homeDir())
	for _, s := range list {
		if s.State != mcp.StateReady {
			return exitError
		}
	}
	return exitOK
}

func homeDir() string {
	h, _ := os.UserHomeDir()
	return h
}

// mcpPrompts adds the MCP servers' prompts to the hooks' commands: the
// REPL and one-shot mode run them as they run hook commands.
type mcpPrompts struct {
	appHooks
	m *mcp.Manager
}

// Commands lists the hooks' commands and the prompts of the servers
// started so far (listing does not start them).
func (p mcpPrompts) Commands() []commandInfo {
	out := p.appHooks.Commands()
	for _, pr := range p.m.Prompts() {
		desc := firstLine(pr.Description, 200)
		if pr.Usage != "" {
			desc = strings.TrimSpace(pr.Usage + "  " + desc)
		}
		out = append(out, commandInfo{Name: pr.Name, Description: ansi.Sanitize(desc), Source: "MCP"})
	}
	return out
}

// RunCommand runs an MCP prompt (mcp__server__prompt), else the hooks'
// command.
func (p mcpPrompts) RunCommand(ctx context.Context, name, args string) (string, bool, error) {
	if text, handled, err := p.m.RunPrompt(ctx, name, args); handled {
		return text, true, err
	}
	return p.appHooks.RunCommand(ctx, name, args)
}
