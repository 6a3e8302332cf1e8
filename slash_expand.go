package main

// /expand: the full output of a tool call whose result the REPL only
// previewed (the "… +N more lines (/expand)" hint).

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/lunar-cli/lunar/session"
)

// cmdExpand prints the whole result of the last tool call on the current
// branch, or of the Nth last with an argument.
func (r *repl) cmdExpand(_ context.Context, args string) error {
	n := 1
	if args = strings.TrimSpace(args); args != "" {
		v, err := strconv.Atoi(args)
		if err != nil || v < 1 {
			return fmt.Errorf("/expand: %q is not a count (1 = the last tool call, 2 = the one before, …)", args)
		}
		n = v
	}
	results := toolResultsOnPath(r.a.agentRuntime.Session())
	if len(results) == 0 {
		return fmt.Errorf("/expand: no tool call on this branch yet")
	}
	if n > len(results) {
		return fmt.Errorf("/expand: only %d tool call%s on this branch", len(results), plural(len(results)))
	}
	m := results[len(results)-n]
	header := "← " + m.ToolName
	if m.IsError {
		header += " (error)"
	}
	var b strings.Builder
	b.WriteString(r.term.paint(ansiBold, header) + "\n")
	text := strings.TrimRight(cleanForTerminal(m.Text()), "\n")
	if text == "" {
		text = "(no output)"
	}
	b.WriteString(text + "\n")
	if diff := editDiff(m.Details); diff != "" && m.ToolName == "edit" {
		for _, l := range strings.Split(strings.TrimRight(cleanForTerminal(diff), "\n"), "\n") {
			b.WriteString(r.term.paint(diffLineStyle(l), l) + "\n")
		}
	}
	images := 0
	for _, c := range m.Content {
		if c.Type == session.BlockImage {
			images++
		}
	}
	if images > 0 {
		b.WriteString(r.term.paint(ansiDim, fmt.Sprintf("(%d image%s)", images, plural(images))) + "\n")
	}
	r.printf("%s", b.String())
	return nil
}

// toolResultsOnPath lists the tool results from the root to the leaf.
func toolResultsOnPath(s *session.Session) []*session.Message {
	if s == nil {
		return nil
	}
	var out []*session.Message
	for _, e := range s.Path("") {
		if e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == session.RoleToolResult {
			out = append(out, e.Message)
		}
	}
	return out
}
