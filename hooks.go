// The seam between the front ends (one-shot, REPL) and the Lua hook
// runtime: the app-level hook events and the UI hooks may use.
package main

import (
	"context"
	"fmt"
	"io"

	"github.com/lunar-cli/lunar/session"
)

// commandInfo describes a slash command for /help and completion.
type commandInfo struct {
	Name        string
	Description string
	Source      string // "built-in" or the hook file
}

// appHooks are the hook events the front ends fire. The Lua runtime
// implements it (see hooks_lua.go); nopHooks does nothing.
type appHooks interface {
	Commands() []commandInfo
	// RunCommand runs a hook command; a non-empty prompt is sent as the user's message.
	RunCommand(ctx context.Context, name, args string) (prompt string, handled bool, err error)
	// Render renders a custom message with the hook renderer for its type.
	Render(m *session.Message, expanded bool) (string, bool)
	SessionStart(ctx context.Context, resumed bool)
	BeforeClear(ctx context.Context) (cancel bool, reason string)
	Clear(ctx context.Context)
	BeforeSwitch(ctx context.Context, target string) (cancel bool, reason string)
	Switch(ctx context.Context, previous string)
	BeforeBranch(ctx context.Context, targetID, fromID string) (cancel bool, summary string)
	Branch(ctx context.Context, targetID, fromID string)
	BeforeFork(ctx context.Context, entryID string) (cancel bool, reason string)
	// Fork fires after a fork; previousFile is the session forked from.
	Fork(ctx context.Context, entryID, previousFile string)
	ModelChange(ctx context.Context, prevProvider, prevID, newProvider, newID, thinking string)
	Shutdown(ctx context.Context)
}

type nopHooks struct{}

func (nopHooks) Commands() []commandInfo { return nil }
func (nopHooks) RunCommand(context.Context, string, string) (string, bool, error) {
	return "", false, nil
}
func (nopHooks) Render(*session.Message, bool) (string, bool)                        { return "", false }
func (nopHooks) SessionStart(context.Context, bool)                                  {}
func (nopHooks) BeforeClear(context.Context) (bool, string)                          { return false, "" }
func (nopHooks) Clear(context.Context)                                               {}
func (nopHooks) BeforeSwitch(context.Context, string) (bool, string)                 { return false, "" }
func (nopHooks) Switch(context.Context, string)                                      {}
func (nopHooks) BeforeBranch(context.Context, string, string) (bool, string)         { return false, "" }
func (nopHooks) Branch(context.Context, string, string)                              {}
func (nopHooks) BeforeFork(context.Context, string) (bool, string)                   { return false, "" }
func (nopHooks) Fork(context.Context, string, string)                                {}
func (nopHooks) ModelChange(context.Context, string, string, string, string, string) {}
func (nopHooks) Shutdown(context.Context)                                            {}

// hookUI is how hooks talk to the user (ctx.ui). The REPL implements it
// with numbered prompts; one-shot mode uses noUI.
type hookUI interface {
	HasUI() bool
	Select(title string, options []string) (string, bool)
	Confirm(title, message string) bool
	Input(title, placeholder string) (string, bool)
	Notify(message, level string)
	SetEditorText(text string)
	EditorText() string
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
	fmt.Fprintf(u.stderr, "[%s] %s\n", level, message)
}
func (noUI) SetEditorText(string) {}
func (noUI) EditorText() string   { return "" }
