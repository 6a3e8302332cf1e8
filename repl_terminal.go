package main

// The REPL's terminal: liner line editing over the input filter, prompts
// and dialogs' line reads, colours, and the persistent prompt history.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/peterh/liner"
	"golang.org/x/term"

	"github.com/lunar-cli/lunar/session/export/ansi"
)

// errInterrupted is returned by a prompt the user left with Ctrl+C.
var errInterrupted = errors.New("interrupted")

// terminal is the REPL's screen and keyboard. mu serialises everything
// that touches the screen: prompts (the main one and hook dialogs),
// streamed output and the spinner.
type terminal struct {
	mu     sync.Mutex
	line   *liner.State   // nil: no line editing (not a terminal, TERM=dumb output)
	filter *inputFilter   // nil without line editing
	in     *os.File       // the keyboard (with line editing)
	pipeW  io.WriteCloser // liner's input; closing it ends the prompt with EOF

	prompting atomic.Bool   // a prompt is reading keys
	dialogs   atomic.Int32  // hook dialogs that have or want the terminal (replUI.dialog)
	plain     *bufio.Reader // input without line editing
	stdout    io.Writer
	stderr    io.Writer
	color     bool // ANSI colours on stdout
	ttyOut    bool // stdout is a terminal that takes escape sequences (not TERM=dumb)
	ttyErr    bool // stderr is such a terminal (spinner)
	hist      *history

	closeOnce sync.Once
	stopOnce  sync.Once
	stopped   chan struct{} // closed by stopInput
	cooked    *term.State   // the keyboard's mode before line editing
}

// isTTY reports whether w is a terminal.
func isTTY(w any) bool {
	fd, ok := fdOf(w)
	return ok && term.IsTerminal(int(fd))
}

// newTerminal sets up line editing when stdin and stdout are terminals.
func newTerminal(stdin io.Reader, stdout, stderr io.Writer, historyFile string) *terminal {
	t := &terminal{stdout: stdout, stderr: stderr, ttyOut: isTTY(stdout), ttyErr: isTTY(stderr), stopped: make(chan struct{})}
	if os.Getenv("TERM") == "dumb" {
		// A terminal that understands no escape sequences (Emacs' shell,
		// some CI logs): no colours, no spinner, no line redrawn in place,
		// no line editing; output as to a file.
		t.ttyOut, t.ttyErr = false, false
	}
	t.color = t.ttyOut && os.Getenv("NO_COLOR") == ""
	t.hist = &history{path: historyFile}
	in, ok := stdin.(*os.File)
	if !ok || !isTTY(in) || !t.ttyOut || !liner.TerminalSupported() {
		t.plain = bufio.NewReader(stdin)
		return t
	}
	// liner reads os.Stdin; hand it the filtered pipe instead while the
	// terminal modes still apply to the real one (fd 0).
	pr, pw, err := os.Pipe()
	if err != nil {
		t.plain = bufio.NewReader(stdin)
		return t
	}
	// The terminal's own mode, before liner makes it raw: an editor run
	// from the REPL gets it back (repl_editor.go).
	t.cooked, _ = term.GetState(int(in.Fd()))
	saved := os.Stdin
	os.Stdin = pr
	t.line = liner.NewLiner()
	os.Stdin = saved
	t.pipeW = pw
	t.in = in
	t.filter = newInputFilter()
	t.filter.hold = true
	// Ctrl+C is read as a key at all times, not only at prompts: the
	// filter sends it to the running reply or to the prompt, so a press
	// between the two is never lost.
	readCtrlCAsKey(int(in.Fd()))

	t.line.SetCtrlCAborts(true)
	t.line.SetBeep(false)
	t.line.SetMultiLineMode(true)
	t.line.SetTabCompletionStyle(liner.TabPrints)
	t.hist.load(t.line)
	io.WriteString(stdout, pasteModeOn)
	return t
}

// start begins reading the keyboard; onInterrupt (called on the reading
// goroutine) gets each Ctrl+C pressed outside a prompt and reports whether
// it used it (stopped a reply); unused ones go to the next prompt.
func (t *terminal) start(onInterrupt func() bool) {
	if t.filter == nil {
		return
	}
	t.filter.onInterrupt = func() bool { return !t.prompting.Load() && onInterrupt() }
	t.filter.src = newPausableInput(t.in)
	t.filter.backlog = pendingInput(int(t.in.Fd()))
	go t.filter.run(t.filter.src, t.pipeW)
}

// close restores the terminal; it may be called more than once.
func (t *terminal) close() {
	t.closeOnce.Do(func() {
		if t.line != nil {
			io.WriteString(t.stdout, pasteModeOff)
			t.line.Close()
		}
	})
}

// closeTerminal restores the terminal if the REPL's UI set it up (for a
// setup error after interactiveUI, before runREPL).
func (a *app) closeTerminal() {
	if u, ok := a.ui.(*replUI); ok {
		u.r.term.close()
	}
}

// stopInput makes the current or next prompt return io.EOF (SIGTERM).
func (t *terminal) stopInput() {
	t.stopOnce.Do(func() { close(t.stopped) })
	if t.pipeW != nil {
		t.pipeW.Close()
	}
}

// columns is the width of the terminal (80 when unknown).
func (t *terminal) columns() int {
	if fd, ok := fdOf(t.stdout); ok {
		if w, _, err := term.GetSize(int(fd)); err == nil && w > 0 {
			return w
		}
	}
	return 80
}

// readLine shows prompt, with prefill as editable text, and returns the
// line as typed (stand-ins not yet decoded). Ctrl+C returns the line and
// errInterrupted; Ctrl+D on an empty line io.EOF.
func (t *terminal) readLine(prompt, prefill string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.readLocked(prompt, prefill, true)
}

// readLineLocked reads the answer to a dialog (t.mu held): keys typed
// ahead of the question are not taken as its answer.
func (t *terminal) readLineLocked(prompt, prefill string) (string, error) {
	return t.readLocked(prompt, prefill, false)
}

func (t *terminal) readLocked(prompt, prefill string, typeAhead bool) (string, error) {
	if t.line == nil {
		fmt.Fprint(t.promptWriter(), prompt)
		s, err := t.plain.ReadString('\n')
		if err != nil && (s == "" || err != io.EOF) {
			if err == io.EOF {
				fmt.Fprintln(t.promptWriter()) // Ctrl+D left the cursor after the prompt
			}
			return "", err
		}
		return strings.TrimRight(s, "\r\n"), nil
	}
	t.prompting.Store(true)
	t.filter.openTo(t.pipeW, typeAhead)
	s, err := t.line.PromptWithSuggestion(prompt, encodeMarkers(prefill), -1)
	t.filter.shut()
	t.prompting.Store(false)
	if errors.Is(err, liner.ErrPromptAborted) {
		return "", errInterrupted
	}
	if err == io.EOF {
		// Ctrl+D leaves the cursor after the prompt: what follows (the
		// next prompt, the shell's) starts on a line of its own.
		io.WriteString(t.stdout, "\n")
	}
	if err != nil {
		return "", err
	}
	if t.filter.takeInterrupt() {
		return s, errInterrupted
	}
	if typeAhead && t.filter.takeCycle() {
		return s, errCycleModel
	}
	return s, nil
}

// promptWriter is where prompts go without line editing: stderr when
// stdout is a file, so that it holds only answers.
func (t *terminal) promptWriter() io.Writer {
	if t.ttyOut {
		return t.stdout
	}
	return t.stderr
}

// decode turns a line read by readLine into the user's text.
func (t *terminal) decode(line string) string { return t.filter.decode(line) }

// addHistory records an entry (multi-line text is stored on one line).
func (t *terminal) addHistory(text string) {
	if t.line == nil || strings.TrimSpace(text) == "" {
		return
	}
	t.hist.add(t.line, encodeMarkers(text))
}

// paint wraps s in an ANSI style when colours are on. s is text, never
// escape sequences: it is sanitised first, so whatever the REPL shows
// painted (tool calls, results, errors, notices) cannot act on the
// terminal.
func (t *terminal) paint(style, s string) string {
	s = ansi.Sanitize(s)
	if !t.color || s == "" {
		return s
	}
	return style + s + ansiReset
}

// paintDrawn wraps in a style text an ansi.Stream drew (sanitised, with
// its own redraw sequences).
func (t *terminal) paintDrawn(style, s string) string {
	if !t.color || s == "" {
		return s
	}
	return style + s + ansiReset
}

// ANSI styles.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

// history is the persistent prompt history: one entry a line, appended as
// entries are made so that concurrent sessions do not overwrite each other.
type history struct {
	path string
	last string
}

const historyKeep = liner.HistoryLimit

func (h *history) load(l *liner.State) {
	data, err := os.ReadFile(h.path)
	if err != nil {
		return
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > 2*historyKeep {
		lines = lines[len(lines)-historyKeep:]
		h.rewrite(lines)
	}
	l.ReadHistory(strings.NewReader(strings.Join(lines, "\n") + "\n"))
	h.last = lines[len(lines)-1]
}

// rewrite replaces the file with lines (temp file and rename).
func (h *history) rewrite(lines []string) {
	tmp := h.path + ".tmp"
	if os.WriteFile(tmp, []byte(strings.Join(lines, "\n")+"\n"), 0o600) == nil {
		os.Rename(tmp, h.path)
	}
}

func (h *history) add(l *liner.State, entry string) {
	l.AppendHistory(entry)
	if entry == h.last {
		return
	}
	h.last = entry
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(h.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	f.WriteString(entry + "\n")
	f.Close()
}
