package main

// `lunar sessions show ID`: a session's conversation (its current branch)
// as markdown, rendered on a terminal.

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/session/export/ansi"
)

// maxShownResult is how many lines of a tool result the transcript keeps.
const maxShownResult = 12

// transcript writes the conversation on s's current branch as markdown:
// a heading per message, tool calls as one line each, tool results cut to
// their first lines, thinking left out.
func transcript(s *session.Session) string {
	var b strings.Builder
	h := s.Header()
	title := s.Name()
	ctx := s.BuildContext()
	if title == "" {
		for _, m := range ctx.Messages {
			if m.Message.Role == session.RoleUser {
				title = firstLine(m.Message.Text(), 70)
				break
			}
		}
	}
	if title == "" {
		title = "session " + h.ID
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	fmt.Fprintf(&b, "*session %s · %s · %s*\n", h.ID, h.Cwd, h.Timestamp)
	for _, cm := range ctx.Messages {
		m := &cm.Message
		when := ""
		if m.Timestamp > 0 {
			when = " · " + time.UnixMilli(m.Timestamp).Local().Format("2006-01-02 15:04")
		}
		switch m.Role {
		case session.RoleUser:
			fmt.Fprintf(&b, "\n## user%s\n\n%s\n", when, strings.TrimSpace(m.Text()))
		case session.RoleAssistant:
			fmt.Fprintf(&b, "\n## assistant · %s/%s%s\n\n", m.Provider, m.Model, when)
			for _, c := range m.Content {
				switch c.Type {
				case session.BlockText:
					if t := strings.TrimSpace(c.Text); t != "" {
						fmt.Fprintf(&b, "%s\n\n", t)
					}
				case session.BlockToolCall:
					fmt.Fprintf(&b, "→ `%s`\n\n", toolCallSummary(c.Name, c.Arguments))
				}
			}
			if m.StopReason == session.StopError && m.ErrorMessage() != "" {
				fmt.Fprintf(&b, "*error: %s*\n\n", m.ErrorMessage())
			}
		case session.RoleToolResult:
			mark := "result"
			if m.IsError {
				mark = "error"
			}
			fmt.Fprintf(&b, "%s of `%s`:\n\n%s\n", mark, m.ToolName, fence(cutLines(strings.TrimRight(m.Text(), "\n"), maxShownResult)))
		case session.RoleBashExecution:
			fmt.Fprintf(&b, "\n## !%s%s\n\n%s\n", m.Command(), when, fence(cutLines(strings.TrimRight(m.Output(), "\n"), maxShownResult)))
		case session.RoleCompactionSummary, session.RoleBranchSummary:
			fmt.Fprintf(&b, "\n## summary of earlier messages\n\n%s\n", strings.TrimSpace(m.Summary()))
		case session.RoleCustom:
			if m.Display() {
				fmt.Fprintf(&b, "\n## [%s]\n\n%s\n", m.CustomType(), strings.TrimSpace(m.Text()))
			}
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// cutLines keeps the first n lines of s, saying how many it left out.
func cutLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… %d more lines", len(lines)-n)
}

// fence puts s in a code block whose fence no line of s can close.
func fence(s string) string {
	f := "```"
	for strings.Contains(s, f) {
		f += "`"
	}
	return f + "\n" + s + "\n" + f + "\n"
}

// renderMarkdown is md as it should reach w: drawn by the REPL's markdown
// renderer on a terminal (colours unless NO_COLOR), as it is elsewhere
// (a pipe, a file, TERM=dumb).
func renderMarkdown(md string, w io.Writer) string {
	fd, ok := fdOf(w)
	if !ok || !isTTY(w) || os.Getenv("TERM") == "dumb" {
		return ansi.Sanitize(md)
	}
	width, _, err := term.GetSize(int(fd))
	if err != nil {
		width = 80
	}
	return ansi.Render(md, ansi.Options{Width: width, Color: true, NoColor: noColor()})
}
