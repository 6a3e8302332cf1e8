package main

// The last messages of a resumed session, shown so it is clear where it
// stands.

import (
	"fmt"
	"strings"

	"github.com/lunar-cli/lunar/agent/compaction"
	"github.com/lunar-cli/lunar/session"
)

// replay prints the last n messages of the current context, so a resumed
// session shows where it stands.
func (r *repl) replay(n int) {
	path := r.a.agentRuntime.Session().Path("")
	msgs := session.ContextTail(path, n, func(m *session.Message) bool {
		return m.Role != session.RoleToolResult && messagePreview(m) != ""
	})
	total := session.ContextLen(path)
	var shown []string
	for i := len(msgs) - 1; i >= 0 && len(shown) < n; i-- {
		m := &msgs[i].Message
		if m.Role == session.RoleToolResult {
			continue
		}
		if s := messagePreview(m); s != "" {
			shown = append(shown, s)
		}
	}
	if len(shown) == 0 {
		return
	}
	width := r.term.columns() - 2
	if skipped := total - len(shown); skipped > 0 {
		r.printf("%s\n", r.term.paint(ansiDim, fmt.Sprintf("… %d earlier message%s", skipped, plural(skipped))))
	}
	for i := len(shown) - 1; i >= 0; i-- {
		r.printf("%s\n", r.term.paint(ansiDim, truncateRunes(shown[i], width)))
	}
}

// messagePreview renders a message as "role: first line".
func messagePreview(m *session.Message) string {
	switch m.Role {
	case session.RoleUser:
		return "you: " + firstLine(m.Text(), 200)
	case session.RoleAssistant:
		if t := strings.TrimSpace(m.Text()); t != "" {
			return "assistant: " + firstLine(t, 200)
		}
		var names []string
		for _, c := range m.ToolCalls() {
			names = append(names, c.Name)
		}
		if len(names) > 0 {
			return "assistant: (calls " + strings.Join(names, ", ") + ")"
		}
		if m.StopReason == session.StopError {
			return "assistant: (error: " + firstLine(m.ErrorMessage(), 150) + ")"
		}
		return "assistant: (no text)"
	case session.RoleToolResult:
		return m.ToolName + " result: " + firstLine(m.Text(), 200)
	case session.RoleBashExecution:
		return "!" + firstLine(m.Command(), 200)
	case session.RoleCustom:
		return "[" + m.CustomType() + "] " + firstLine(m.Text(), 200)
	case session.RoleBranchSummary:
		return "branch summary: " + firstLine(strings.TrimPrefix(m.Summary(), compaction.BranchSummaryPreamble), 200)
	case session.RoleCompactionSummary:
		return "compaction summary: " + firstLine(m.Summary(), 200)
	}
	return ""
}
