package main

// ctx.ui.editor in the REPL: the user's $VISUAL or $EDITOR on a temporary
// file. The input filter stops reading the keyboard while the editor runs
// (pausableInput), so every key goes to the editor.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/term"
)

// Editor opens $VISUAL (or $EDITOR) on a temporary file holding text and
// returns the file as saved; false when neither is set, or the editor
// could not run or exited non-zero. title is shown above it.
func (u *replUI) Editor(title, text string) (out string, ok bool) {
	editor := strings.TrimSpace(os.Getenv("VISUAL"))
	if editor == "" {
		editor = strings.TrimSpace(os.Getenv("EDITOR"))
	}
	if editor == "" {
		u.Notify("no editor: set $VISUAL or $EDITOR to edit text of several lines", "warning")
		return "", false
	}
	u.dialog(func(t *terminal) error {
		var err error
		out, err = t.editLocked(editor, title, text)
		if err != nil {
			fmt.Fprintln(t.stdout, t.paint(ansiYellow, "warning: "+err.Error()))
			return nil
		}
		ok = true
		return nil
	})
	return out, ok
}

// editLocked runs editor on a temporary file holding text (t.mu held)
// and returns what it saved, without the newline editors end a file with.
func (t *terminal) editLocked(editor, title, text string) (string, error) {
	dir, err := os.MkdirTemp("", "lunar-edit-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "text.md")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return "", err
	}
	words := strings.Fields(editor) // "code --wait" takes arguments
	if title != "" {
		fmt.Fprintln(t.stdout, t.paint(ansiBold, oneLine(title)))
	}
	fmt.Fprintln(t.stdout, t.paint(ansiDim, fmt.Sprintf("(editing in %s: save and quit to go on)", words[0])))
	cmd := exec.Command(words[0], append(words[1:], path)...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Stdin = os.Stdin
	if t.in != nil {
		cmd.Stdin = t.in
		// The keys are the editor's until it exits.
		if in, ok := t.filter.src.(*pausableInput); ok && !t.filter.ended.Load() {
			in.pause()
			defer in.resume()
		}
		// The editor starts from the terminal's own mode (liner's is raw),
		// Ctrl+C still a key; the REPL's mode comes back after it.
		fd := int(t.in.Fd())
		if raw, err := term.GetState(fd); err == nil && t.cooked != nil {
			term.Restore(fd, t.cooked)
			readCtrlCAsKey(fd)
			defer term.Restore(fd, raw)
		}
	}
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("%s exited with status %d: nothing edited", words[0], ee.ExitCode())
		}
		return "", fmt.Errorf("editor %s: %v", words[0], err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n"), nil
}
