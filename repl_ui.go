// ctx.ui for hooks in the REPL: numbered selections, y/N confirmations,
// text input, coloured notifications and the editor prefill. Dialogs may
// open while a reply streams; they take the terminal for their duration.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode"
)

// replUI implements hookUI on the REPL's terminal.
type replUI struct {
	r *repl

	mu     sync.Mutex
	editor string // text for the next prompt
}

// HasUI is true: the REPL can ask the user.
func (u *replUI) HasUI() bool { return true }

// Select lists options numbered from 1 and returns the chosen one; an
// empty answer, Ctrl+C or Ctrl+D cancels.
func (u *replUI) Select(title string, options []string) (string, bool) {
	if len(options) == 0 {
		return "", false
	}
	i, ok := u.pick(title, options)
	if !ok {
		return "", false
	}
	return options[i], true
}

// pick asks for a number in 1..len(options) and returns its index.
func (u *replUI) pick(title string, options []string) (int, bool) {
	v, t := u.r.view, u.r.term
	defer v.resume(v.suspend())
	t.mu.Lock()
	defer t.mu.Unlock()
	if title != "" {
		// The first line is the question; further lines (a command, a
		// diff) are shown as they are, control characters excepted.
		first, rest, _ := strings.Cut(title, "\n")
		fmt.Fprintln(t.stdout, t.paint(ansiBold, oneLine(first)))
		if rest != "" {
			fmt.Fprintln(t.stdout, strings.Map(printable, rest))
		}
	}
	width := t.columns() - 6
	for i, o := range options {
		fmt.Fprintf(t.stdout, "  %s %s\n", t.paint(ansiCyan, fmt.Sprintf("%2d)", i+1)), truncateRunes(oneLine(o), width))
	}
	prompt := fmt.Sprintf("choose 1-%d (empty to cancel): ", len(options))
	for {
		line, err := t.readLineLocked(prompt, "")
		if err != nil {
			return 0, false
		}
		line = strings.TrimSpace(line)
		if line == "" {
			return 0, false
		}
		if n, ok := atoiOK(line); ok && n <= len(options) {
			return n - 1, true
		}
		fmt.Fprintln(t.stdout, t.paint(ansiYellow, fmt.Sprintf("please answer with a number from 1 to %d", len(options))))
	}
}

// Confirm asks "title: message [y/N]"; only y or yes confirms.
func (u *replUI) Confirm(title, message string) bool {
	defer u.r.view.resume(u.r.view.suspend())
	t := u.r.term
	t.mu.Lock()
	defer t.mu.Unlock()
	return confirmLocked(t, title, message)
}

// confirmLocked asks a y/N question on t (mutex held). A long or
// multi-line question is printed above a short prompt.
func confirmLocked(t *terminal, title, message string) bool {
	q := title
	if message != "" {
		if q != "" {
			q += ": "
		}
		q += message
	}
	prompt := oneLine(q) + " [y/N] "
	if strings.Contains(q, "\n") || len([]rune(prompt)) > t.columns()-12 {
		fmt.Fprintln(t.stdout, q)
		prompt = "[y/N] "
	}
	line, err := t.readLineLocked(prompt, "")
	if err != nil {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// Input asks for a line of text, showing the placeholder as a hint. Ctrl+C
// or Ctrl+D cancels; an empty answer is returned as "".
func (u *replUI) Input(title, placeholder string) (string, bool) {
	defer u.r.view.resume(u.r.view.suspend())
	t := u.r.term
	t.mu.Lock()
	defer t.mu.Unlock()
	prompt := oneLine(title)
	if placeholder != "" {
		prompt += " (" + oneLine(placeholder) + ")"
	}
	prompt += ": "
	if len([]rune(prompt)) > t.columns()-12 {
		fmt.Fprintln(t.stdout, strings.TrimSuffix(prompt, " "))
		prompt = "> "
	}
	line, err := t.readLineLocked(prompt, "")
	if err != nil {
		return "", false
	}
	return t.decode(line), true
}

// Notify prints a message coloured by level (info, warning, error).
func (u *replUI) Notify(message, level string) {
	v := u.r.view
	var s string
	switch level {
	case "error":
		s = v.styled(ansiRed, "error: "+message)
	case "warning", "warn":
		s = v.styled(ansiYellow, "warning: "+message)
	case "success":
		s = v.styled(ansiGreen, message)
	default:
		s = v.styled(ansiCyan, message)
	}
	v.printf("%s", s)
}

// Print prints text as it is on lines of its own, through the view (a
// reply's spinner and text resume below it; never inside the prompt line).
func (u *replUI) Print(text string) {
	u.r.view.printf("%s\n", strings.TrimRight(cleanForTerminal(text), "\n"))
}

// SetEditorText puts text into the next prompt, ready to edit.
func (u *replUI) SetEditorText(text string) {
	u.mu.Lock()
	u.editor = text
	u.mu.Unlock()
}

// EditorText returns the text waiting for the next prompt.
func (u *replUI) EditorText() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.editor
}

// takeEditorText returns and clears the prefill of the next prompt.
func (u *replUI) takeEditorText() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	s := u.editor
	u.editor = ""
	return s
}

// printable keeps newlines and tabs and drops other control characters
// (an escape sequence in a dialog could redraw what the user reads).
func printable(r rune) rune {
	if r == '\n' || r == '\t' || !unicode.IsControl(r) {
		return r
	}
	return -1
}

// oneLine flattens whitespace so text fits a liner prompt, which may not
// hold control characters.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// askTrust asks once whether the project hooks in dir may run, listing
// them. The REPL's terminal is used when it is up; before that, the
// question is read from the terminal in its normal (cooked) mode.
func (a *app) askTrust(dir string, files []string) bool {
	title := fmt.Sprintf("%s has project hooks that would run with your permissions:", dir)
	for _, f := range files {
		if filepath.Base(f) == "config.json" {
			title = fmt.Sprintf("%s has project settings (models, providers, hooks to disable) and hooks that would run with your permissions:", dir)
		}
	}
	var b strings.Builder
	b.WriteString(title)
	for _, f := range files {
		b.WriteString("\n  " + f)
	}
	b.WriteString("\nTrust them?")
	if u, ok := a.ui.(*replUI); ok {
		return u.Confirm("", b.String())
	}
	in, ok := a.stdin.(*os.File)
	if !ok || !isTTY(in) {
		return false
	}
	fmt.Fprint(a.stderr, b.String()+" [y/N] ")
	line, err := readCookedLine(in)
	if err != nil {
		fmt.Fprintln(a.stderr)
		return false
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// readCookedLine reads one line byte by byte, so nothing after it is
// consumed from the terminal.
func readCookedLine(r io.Reader) (string, error) {
	var b []byte
	buf := make([]byte, 1)
	for {
		n, err := r.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				return string(b), nil
			}
			b = append(b, buf[0])
		}
		if err != nil {
			if len(b) > 0 && errors.Is(err, io.EOF) {
				return string(b), nil
			}
			return "", err
		}
	}
}
