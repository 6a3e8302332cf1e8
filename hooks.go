package main

// The seam between the front ends (one-shot, REPL) and the Lua hook
// runtime: the app-level hook events and the UI hooks may use.

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/session/export/ansi"
)

// commandInfo describes a slash command for /help and completion.
type commandInfo struct {
	Name        string
	Description string
	Source      string // "built-in" or the hook file
}

// appHooks is what the front ends ask of the hooks themselves: their
// commands and renderers. (Session events are the runtime's: it fires them
// through agent.SessionHooks.) The Lua runtime implements it (see
// hooks_lua.go); nopHooks does nothing.
type appHooks interface {
	Commands() []commandInfo
	// RunCommand runs a hook command; a non-empty prompt is sent as the user's message.
	RunCommand(ctx context.Context, name, args string) (prompt string, handled bool, err error)
	// Render renders a custom message with the hook renderer for its type.
	Render(m *session.Message, expanded bool) (string, bool)
}

type nopHooks struct{}

func (nopHooks) Commands() []commandInfo { return nil }
func (nopHooks) RunCommand(context.Context, string, string) (string, bool, error) {
	return "", false, nil
}
func (nopHooks) Render(*session.Message, bool) (string, bool) { return "", false }

// appHookSet returns the app's hooks, or hooks that do nothing.
func (a *app) appHookSet() appHooks {
	var h appHooks = nopHooks{}
	if a.hooks != nil {
		h = a.hooks
	}
	if a.mcp != nil {
		return mcpPrompts{h, a.mcp} // mcp_cmd.go
	}
	return h
}

// modelSpec is "provider/id".
func modelSpec(m agent.Model) string { return agent.ModelSpec(m) }

// hookUI is how hooks talk to the user (ctx.ui). The REPL implements it
// with pickers and prompts; one-shot mode uses noUI.
type hookUI interface {
	HasUI() bool
	Select(title string, options []string) (string, bool)
	Confirm(title, message string) bool
	Input(title, placeholder string) (string, bool)
	Notify(message, level string)
	SetEditorText(text string)
	EditorText() string
	Editor(title, text string) (string, bool)
	Print(text string)
}

// noUI is the one-shot UI: no dialogs (select/input nothing, confirm
// false — a permission gate denies), notifications on stderr.
type noUI struct{ stderr io.Writer }

func (noUI) HasUI() bool                            { return false }
func (noUI) Select(string, []string) (string, bool) { return "", false }
func (noUI) Confirm(string, string) bool            { return false }
func (noUI) Input(string, string) (string, bool)    { return "", false }
func (u noUI) Notify(message, level string) {
	if level == "" {
		level = "info"
	}
	fmt.Fprintf(u.stderr, "[%s] %s\n", ansi.Sanitize(level), ansi.Sanitize(message))
}
func (noUI) SetEditorText(string) {}
func (noUI) EditorText() string   { return "" }

// Editor answers nothing: no one can edit.
func (noUI) Editor(string, string) (string, bool) { return "", false }

// Print writes text to stderr, sanitised: stdout is the answer (or pure
// JSONL).
func (u noUI) Print(text string) {
	fmt.Fprintln(u.stderr, strings.TrimRight(ansi.Sanitize(text), "\n"))
}
