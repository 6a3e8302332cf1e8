package main

// ctx.ui for hooks in the REPL: selections (the picker), y/N confirmations,
// text input, coloured notifications and the editor prefill. Dialogs may
// open while a reply streams; they take the terminal for their duration.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mattn/go-runewidth"

	"github.com/lunar-cli/lunar/session/export/ansi"
)

// errCancelled is a dialog left with an empty answer.
var errCancelled = errors.New("cancelled")

// replUI implements hookUI on the REPL's terminal.
type replUI struct {
	r *repl

	mu     sync.Mutex
	editor string // text for the next prompt
}

// HasUI is true: the REPL can ask the user.
func (u *replUI) HasUI() bool { return true }

// Select lists options numbered from 1 and returns the chosen one; an
// empty answer or Ctrl+D cancels; Ctrl+C cancels and stops the turn.
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

// dialog runs ask with the terminal to itself. Ctrl+C at the question
// stops the running turn, as it would have without the question (the
// tool it was asked for does not run), and the prompt comes back.
func (u *replUI) dialog(ask func(t *terminal) error) {
	v, t := u.r.view, u.r.term
	label := v.suspend()
	t.dialogs.Add(1)
	t.mu.Lock()
	err := ask(t)
	t.mu.Unlock()
	t.dialogs.Add(-1)
	u.r.editor.flushStash()
	if errors.Is(err, errInterrupted) && u.r.stopRunning() {
		return
	}
	v.resume(label)
}

// pick asks for a number in 1..len(options) and returns its index.
func (u *replUI) pick(title string, options []string) (index int, ok bool) {
	u.dialog(func(t *terminal) error {
		var err error
		index, err = pickLocked(t, title, options)
		ok = err == nil
		return err
	})
	return index, ok
}

// pickLocked asks on t (mutex held) for one of options, with the
// picker: arrows and Enter, a number, or the first letters of an option;
// nothing chosen answers no (errCancelled).
func pickLocked(t *terminal, title string, options []string) (int, error) {
	return t.choose(pickSpec{title: title, items: options, numbered: true, initial: -1})
}

// Confirm asks "title: message [y/N]"; only y or yes confirms. Ctrl+C
// also stops the turn.
func (u *replUI) Confirm(title, message string) (yes bool) {
	u.dialog(func(t *terminal) error {
		var err error
		yes, err = confirmLocked(t, title, message)
		return err
	})
	return yes
}

// confirmLocked asks a y/N question on t (mutex held): "title: message"
// (a title that is a question, "Run this command?", is not followed by a
// colon). A question of several lines, or longer than the terminal is
// wide, is printed broken between words, and its last line carries
// "[y/N]".
func confirmLocked(t *terminal, title, message string) (bool, error) {
	q := strings.TrimSpace(title)
	if message != "" {
		switch {
		case q == "":
		case strings.ContainsAny(q[len(q)-1:], "?:!."):
			q += " "
		default:
			q += ": "
		}
		q += message
	}
	above, last := questionLines(q, t.columns())
	for _, l := range above {
		fmt.Fprintln(t.stdout, l)
	}
	prompt := "[y/N] "
	if last != "" {
		prompt = last + " [y/N] "
	}
	line, err := t.readLineLocked(prompt, "")
	if err != nil {
		return false, err
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// questionLines lays a y/N question out for a terminal cols wide: its
// lines broken between words (keeping their indentation, sanitised), all but the last printed above the prompt, the
// last (on one line) the prompt's start.
func questionLines(q string, cols int) (above []string, last string) {
	var lines []string
	width := max(cols-len(" [y/N] ")-1, 20)
	for _, l := range strings.Split(strings.TrimRight(q, "\n"), "\n") {
		l = strings.TrimRight(cleanForTerminal(l), " ")
		if runewidth.StringWidth(l) <= width {
			lines = append(lines, l)
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
		for _, w := range wrapWords(l, max(width-len(indent), 20)) {
			lines = append(lines, indent+w)
		}
	}
	return lines[:len(lines)-1], oneLine(lines[len(lines)-1])
}

// Input asks for a line of text, showing the placeholder as a hint. Ctrl+D
// cancels, Ctrl+C cancels and stops the turn; an empty answer is
// returned as "".
func (u *replUI) Input(title, placeholder string) (text string, ok bool) {
	u.dialog(func(t *terminal) error {
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
			return err
		}
		text, ok = t.decode(line), true
		return nil
	})
	return text, ok
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
// reply's spinner and text resume below it; never inside the prompt
// line), sanitised: control characters are shown escaped.
func (u *replUI) Print(text string) {
	u.r.view.printf("%s\n", strings.TrimRight(ansi.Sanitize(text), "\n"))
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

// oneLine is text sanitised and with its whitespace flattened, so that
// it fits a liner prompt (which may not hold control characters) or a
// line of a list.
func oneLine(s string) string {
	return strings.Join(strings.Fields(ansi.Sanitize(s)), " ")
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
	for _, f := range files {
		if strings.Contains(f, " (MCP servers: ") {
			title = fmt.Sprintf("%s has project files that would run with your permissions, MCP servers among them (programs lunar would start):", dir)
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
	cols, _ := termSize(a.stderr)
	above, last := questionLines(b.String(), cols)
	for _, l := range above {
		fmt.Fprintln(a.stderr, l)
	}
	fmt.Fprint(a.stderr, last+" [y/N] ")
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
