package main

// The interactive REPL: the terminal (liner line editing with persistent
// history, Ctrl+R search and tab completion), an input filter in front of
// it (bracketed paste, Ctrl+C detection), and the read–dispatch loop for
// slash commands, !shell commands and prompts.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/peterh/liner"
	"golang.org/x/term"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/agent/compaction"
	"github.com/lunar-cli/lunar/agent/tools"
	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/session/export/ansi"
)

// Runes that stand for what a liner line cannot hold. liner edits a single
// line and treats a newline as Enter and a tab as completion, so pasted
// newlines and tabs travel through it as these visible stand-ins and are
// turned back on submit.
const (
	newlineMarker = '␤'
	tabMarker     = '␉'
)

// maxCompletions bounds the candidates offered at once: liner would
// otherwise stop to ask "Display all N possibilities?", a prompt the Ctrl+C
// translation cannot leave.
const maxCompletions = 100

// Bracketed paste (xterm): the terminal wraps pasted text in these.
const (
	pasteStart    = "\x1b[200~"
	pasteEnd      = "\x1b[201~"
	pasteModeOn   = "\x1b[?2004h"
	pasteModeOff  = "\x1b[?2004l"
	exitHintDelay = 2 * time.Second
)

// errInterrupted is returned by a prompt the user left with Ctrl+C.
var errInterrupted = errors.New("interrupted")

// inputFilter sits between the terminal and liner. It turns Ctrl+C into
// Enter and counts it, so the REPL learns both that the user pressed Ctrl+C
// and what the line held; and it turns bracketed pastes into text liner can
// edit (one line as is, several lines as a "[paste #N +M lines]"
// placeholder that expands on submit).
type inputFilter struct {
	interrupts atomic.Int32 // Ctrl+C presses not yet seen by a prompt
	// onInterrupt, when set, may take a Ctrl+C (returning true) before it
	// goes to the prompt.
	onInterrupt func() bool

	mu     sync.Mutex
	pastes map[string]string // placeholder → pasted text
	n      int

	inPaste bool
	paste   []byte
	carry   []byte // the start of a marker split across reads

	// With hold set, keys typed while no prompt reads are held back: they
	// go to the next main prompt (type-ahead), never to a hook's dialog
	// (a permission question is not answered by keys typed before it was
	// asked), and a Ctrl+C that stops a reply discards them, as a shell
	// discards what was typed before its Ctrl+C.
	hold   bool
	holdMu sync.Mutex
	open   bool   // a prompt reads: keys go through
	main   bool   // that prompt is the REPL's own (not a dialog)
	held   []byte // type-ahead

	cycles atomic.Int32 // Ctrl+P presses at the main prompt not yet seen
	divert chan []byte  // a picker reads the keys (repl_picker.go)
	ended  atomic.Bool  // the keyboard's input ended
	src    io.Reader    // the keyboard (a pausableInput where it can pause)
	// backlog counts the bytes typed before lunar made the terminal raw
	// (the cooked terminal turned their Enter into a line feed): in them
	// a line feed is Enter, not Ctrl+J.
	backlog int
	// runKeys, when set, takes keys while no prompt reads (the in-run
	// editor); it returns false to have them held.
	runKeys func([]byte) bool
}

func newInputFilter() *inputFilter { return &inputFilter{pastes: map[string]string{}} }

// deliver writes filtered keys to the prompt, or gives them to the
// in-run editor (see repl_typeahead.go), or holds them back.
func (f *inputFilter) deliver(dst io.Writer, out []byte) error {
	f.holdMu.Lock()
	if f.hold && !f.open && f.runKeys != nil {
		keys := f.runKeys
		f.holdMu.Unlock() // the editor takes the terminal's mutex
		if keys(out) {
			return nil
		}
		f.holdMu.Lock()
	}
	defer f.holdMu.Unlock()
	if f.hold && !f.open {
		f.held = append(f.held, out...)
		return nil
	}
	_, err := dst.Write(out)
	return err
}

// setRunKeys gives keys typed while no prompt reads to fn (nil: hold
// them back).
func (f *inputFilter) setRunKeys(fn func([]byte) bool) {
	f.holdMu.Lock()
	f.runKeys = fn
	f.holdMu.Unlock()
}

// holdKeys adds keys to the type-ahead.
func (f *inputFilter) holdKeys(b []byte) {
	f.holdMu.Lock()
	f.held = append(f.held, b...)
	f.holdMu.Unlock()
}

// openTo lets keys through to dst while a prompt reads; with typeAhead
// the keys held back go first.
func (f *inputFilter) openTo(dst io.Writer, typeAhead bool) {
	f.holdMu.Lock()
	defer f.holdMu.Unlock()
	f.open, f.main = true, typeAhead
	if typeAhead && len(f.held) > 0 {
		dst.Write(f.held)
		f.held = nil
	}
}

// shut holds keys back again (the prompt returned).
func (f *inputFilter) shut() {
	f.holdMu.Lock()
	f.open, f.main = false, false
	f.holdMu.Unlock()
}

// discard drops the type-ahead.
func (f *inputFilter) discard() {
	f.holdMu.Lock()
	f.held = nil
	f.holdMu.Unlock()
}

// run copies src to dst through the filter until either fails.
func (f *inputFilter) run(src io.Reader, dst io.WriteCloser) {
	buf := make([]byte, 4096)
	for {
		n, err := src.Read(buf)
		if ch := f.diverted(); n > 0 && ch != nil {
			select {
			case ch <- append([]byte(nil), buf[:n]...):
			default: // the picker is gone or far behind
			}
		} else if n > 0 {
			if out := f.process(buf[:n]); len(out) > 0 {
				if werr := f.deliver(dst, out); werr != nil {
					return
				}
			}
		}
		if err != nil {
			f.ended.Store(true)
			if ch := f.diverted(); ch != nil {
				close(ch)
			}
			dst.Close()
			return
		}
	}
}

// process filters one chunk read from the terminal.
func (f *inputFilter) process(chunk []byte) []byte {
	data := append(f.carry, chunk...)
	f.carry = nil
	var out []byte
	for len(data) > 0 {
		if f.inPaste {
			i := bytes.Index(data, []byte(pasteEnd))
			if i < 0 {
				keep := partialSuffix(data, pasteEnd)
				f.paste = append(f.paste, data[:len(data)-keep]...)
				f.carry = append([]byte(nil), data[len(data)-keep:]...)
				return out
			}
			f.paste = append(f.paste, data[:i]...)
			data = data[i+len(pasteEnd):]
			f.inPaste = false
			out = append(out, f.pasted(f.paste)...)
			f.paste = nil
			continue
		}
		i := bytes.Index(data, []byte(pasteStart))
		if i < 0 {
			keep := partialSuffix(data, pasteStart)
			if keep == 1 {
				keep = 0 // a lone ESC is the Escape key
			}
			out = append(out, f.typed(data[:len(data)-keep])...)
			f.carry = append([]byte(nil), data[len(data)-keep:]...)
			return out
		}
		out = append(out, f.typed(data[:i])...)
		data = data[i+len(pasteStart):]
		f.inPaste = true
	}
	return out
}

// typed passes keystrokes on. A Ctrl+C that onInterrupt does not take
// becomes Ctrl+G (leaves a reverse search), Ctrl+E (end of line) and Enter,
// and is counted for the prompt.
func (f *inputFilter) typed(b []byte) []byte {
	b = f.newlineKeys(b)
	if bytes.IndexByte(b, 3) < 0 && bytes.IndexByte(b, ctrlP) < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+8)
	for _, c := range b {
		if c == ctrlP && f.atMainPrompt() {
			// Ctrl+P cycles the models: the prompt returns (as for
			// Ctrl+C) and comes back with its text once the model changed.
			f.cycles.Add(1)
			out = append(out, "\x07\x05\r"...)
			continue
		}
		if c != 3 {
			out = append(out, c)
			continue
		}
		if f.onInterrupt != nil && f.onInterrupt() {
			// It stopped a reply: what was typed before it goes too.
			out = out[:0]
			f.discard()
			continue
		}
		f.interrupts.Add(1)
		out = append(out, "\x07\x05\r"...)
	}
	return out
}

// takeInterrupt reports whether the line just read ended with Ctrl+C.
func (f *inputFilter) takeInterrupt() bool {
	for {
		n := f.interrupts.Load()
		if n <= 0 {
			return false
		}
		if f.interrupts.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

// partialSuffix is the length of the longest suffix of b that is a proper
// prefix of marker.
func partialSuffix(b []byte, marker string) int {
	for n := min(len(marker)-1, len(b)); n > 0; n-- {
		if bytes.Equal(b[len(b)-n:], []byte(marker[:n])) {
			return n
		}
	}
	return 0
}

// pasted turns pasted text into keystrokes for liner.
func (f *inputFilter) pasted(p []byte) []byte {
	s := strings.ReplaceAll(string(p), "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.TrimRight(s, "\n")
	if strings.Contains(s, "\n") {
		f.mu.Lock()
		f.n++
		key := fmt.Sprintf("[paste #%d +%d lines]", f.n, strings.Count(s, "\n")+1)
		f.pastes[key] = s
		f.mu.Unlock()
		return []byte(key)
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteRune(tabMarker)
		case r < 0x20 || r == 0x7f:
			// control characters would act as editing keys
		default:
			b.WriteRune(r)
		}
	}
	return []byte(b.String())
}

// decode turns a line read through liner back into the user's text:
// paste placeholders expanded, newline and tab stand-ins restored.
func (f *inputFilter) decode(line string) string {
	if f != nil && strings.Contains(line, "[paste #") {
		f.mu.Lock()
		for k, v := range f.pastes {
			line = strings.ReplaceAll(line, k, v)
		}
		f.mu.Unlock()
	}
	return decodeMarkers(line)
}

func decodeMarkers(s string) string {
	s = strings.ReplaceAll(s, string(newlineMarker), "\n")
	return strings.ReplaceAll(s, string(tabMarker), "\t")
}

// encodeMarkers makes text fit on one liner line (history, prefills).
func encodeMarkers(s string) string {
	s = strings.ReplaceAll(s, "\n", string(newlineMarker))
	return strings.ReplaceAll(s, "\t", string(tabMarker))
}

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

// repl is one interactive session of the terminal front end.
type repl struct {
	a      *app
	term   *terminal
	view   *view
	editor *runEditor // keys typed during a run (repl_typeahead.go)
	ui     *replUI

	mu        sync.Mutex
	cancelRun context.CancelFunc // cancels the running reply or command
	stopping  bool               // SIGTERM/SIGHUP: leave after the current step

	lastInterrupt time.Time
	exitCode      int
	// quit: a command a hook sent (lunar.send("/quit")) asked to quit.
	quit bool
	// stopped: Ctrl+C or a hook's ctx.abort() stopped a step of the
	// current input, so what hooks queued for after it is not run.
	stopped bool
}

// interactiveUI returns the REPL's hook UI, creating the terminal on first
// use. The lead calls it before loading hooks so ctx.ui works from the
// start; runREPL reuses it.
func (a *app) interactiveUI() *replUI {
	if u, ok := a.ui.(*replUI); ok {
		return u
	}
	t := newTerminal(a.stdin, a.stdout, a.stderr, filepath.Join(a.paths.State, "history"))
	r := &repl{a: a, term: t}
	r.view = newView(t, a.opts.ShowThinking, a.appHookSet)
	r.view.raw = a.opts.Raw
	r.editor = &runEditor{r: r}
	r.view.ed = r.editor
	r.ui = &replUI{r: r}
	a.ui = r.ui
	if t.line != nil {
		t.line.SetWordCompleter(r.completeWord)
	}
	t.start(r.stopRunning)
	return r.ui
}

// runREPL runs the interactive mode and returns the exit code.
func (a *app) runREPL(prompts []initialPrompt) int {
	r := a.interactiveUI().r
	defer a.closeTerminal()

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	stopping := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			r.terminate()
			close(stopping)
		case <-done:
		}
	}()
	a.watchStop(stopping, done)

	r.banner()
	r.drainPending() // sends of app.start and session.start hooks
	if a.opts.Resume {
		r.report(r.interruptible(func(ctx context.Context) error { return r.cmdSessions(ctx, "") }))
		r.drainPending()
	}
	r.initialPrompts(prompts)
	r.loop()
	r.shutdown()
	r.resumeHint()
	return r.exitCode
}

// terminate stops the REPL from a signal: the running step is cancelled
// and the prompt sees end of input.
func (r *repl) terminate() {
	r.mu.Lock()
	r.stopping = true
	if r.cancelRun != nil {
		r.cancelRun()
	}
	r.mu.Unlock()
	r.exitCode = exitInterrupted
	r.term.stopInput()
}

// stopRunning cancels the running reply or command, if any (Ctrl+C).
func (r *repl) stopRunning() bool {
	r.mu.Lock()
	cancel := r.cancelRun
	r.mu.Unlock()
	if cancel == nil {
		return false
	}
	r.view.interrupted()
	cancel()
	return true
}

func (r *repl) isStopping() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopping
}

// shutdown fires session.shutdown and flushes the session; app closes it.
func (r *repl) shutdown() {
	if err := r.a.rt.Shutdown(context.Background()); err != nil {
		r.errorf("saving session: %v", err)
	}
}

// loop reads and runs input until the user quits.
func (r *repl) loop() {
	for !r.isStopping() {
		text, err := r.read()
		if errors.Is(err, errInterrupted) {
			if strings.TrimSpace(text) != "" {
				r.lastInterrupt = time.Time{}
				continue
			}
			if !r.lastInterrupt.IsZero() && time.Since(r.lastInterrupt) < exitHintDelay {
				return
			}
			r.lastInterrupt = time.Now()
			r.printf("%s\n", r.term.paint(ansiDim, "(press Ctrl+C again to quit, or Ctrl+D)"))
			continue
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			r.errorf("reading input: %v", err)
			r.exitCode = exitError
			return
		}
		r.lastInterrupt = time.Time{}
		if quit := r.handle(text); quit || r.quit {
			return
		}
	}
}

// read reads one input: a line, continued over more lines while each ends
// in a backslash. It returns the decoded text.
func (r *repl) read() (string, error) {
	prefill := r.ui.takeEditorText()
	line, err := r.readLine("> ", prefill)
	if err != nil {
		return r.term.decode(line), err
	}
	text := r.term.decode(line)
	for strings.HasSuffix(text, "\\") && !strings.HasSuffix(text, "\\\\") {
		more, err := r.readLine("… ", "")
		if err == io.EOF {
			// Ctrl+D ends the input: send what there is.
			return strings.TrimSuffix(text, "\\"), nil
		}
		if err != nil {
			return text, err
		}
		text = strings.TrimSuffix(text, "\\") + "\n" + r.term.decode(more)
	}
	return text, nil
}

// handle runs one input; it reports whether the user asked to quit.
func (r *repl) handle(text string) bool {
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		return false
	}
	r.term.addHistory(strings.TrimRight(text, " \n"))
	r.stopped = false
	defer r.drainPending()
	switch {
	case isCommand(trimmed):
		return r.command(trimmed)
	case strings.HasPrefix(trimmed, "!!"):
		r.shell(strings.TrimSpace(trimmed[2:]), true)
	case strings.HasPrefix(trimmed, "!"):
		r.shell(strings.TrimSpace(trimmed[1:]), false)
	default:
		r.prompt(strings.TrimRight(text, " \n"))
	}
	return false
}

// isCommand reports whether input is a slash command rather than a prompt
// that starts with a path such as /etc/hosts.
func isCommand(s string) bool {
	if !strings.HasPrefix(s, "/") || len(s) < 2 {
		return false
	}
	name, _, _ := strings.Cut(s[1:], " ")
	name, _, _ = strings.Cut(name, "\n")
	return name != "" && !strings.Contains(name, "/")
}

// interruptible runs fn with a context that Ctrl+C cancels: the key, read
// by the input filter (see stopRunning), or a SIGINT sent from elsewhere
// (or typed when there is no line editing), caught only while fn runs.
func (r *repl) interruptible(fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.mu.Lock()
	if r.stopping {
		r.mu.Unlock()
		return agent.ErrAborted
	}
	r.cancelRun = cancel
	r.mu.Unlock()
	// ctx.abort() from a hook stops this step as Ctrl+C would.
	abort := func() {
		r.view.interrupted()
		cancel()
	}
	r.a.rt.SetAbort(abort)
	defer func() {
		r.a.rt.SetAbort(nil)
		r.mu.Lock()
		r.cancelRun = nil
		r.mu.Unlock()
	}()

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sigs:
			r.view.interrupted()
			cancel()
		case <-done:
		}
	}()
	err := fn(ctx)
	if ctx.Err() != nil {
		r.stopped = true
	}
	return err
}

// prompt sends text (with @file attachments) to the agent and streams the
// reply.
func (r *repl) prompt(text string) {
	full, images, notes := expandAttachments(text, r.a.cwd)
	if len(notes) > 0 {
		// As in one-shot, a file that cannot be attached stops the prompt;
		// it comes back in the editor to fix.
		for _, n := range notes {
			r.errorf("%s", n)
		}
		r.warnf("not sent")
		r.ui.SetEditorText(text)
		return
	}
	r.send(full, images)
}

// send sends a prompt and streams the reply.
func (r *repl) send(text string, images []session.ContentBlock) {
	var err error
	r.runAgent(func(ctx context.Context) error {
		err = r.a.rt.Prompt(ctx, text, images)
		return err
	})
	if help := r.a.firstRunHelp(err); help != "" {
		r.warnf("%s", strings.TrimRight(help, "\n"))
	}
}

// maxQueuedSteps bounds the commands and batches of prompts hooks queue
// after one input, so that hooks sending each other commands stop.
const maxQueuedSteps = 100

// drainPending runs what hooks queued during the last step (lunar.send,
// send_message with trigger_turn), and what those runs queue in turn:
// prompts through the streaming view, command lines as if typed. Hook
// prompts and commands are echoed so the answer does not come out of
// nowhere, and displayed custom messages that hooks appended outside an
// agent run are shown.
func (r *repl) drainPending() {
	for n := 0; r.a.rt.HasPending() && !r.quit; n++ {
		if r.stopped || n == maxQueuedSteps {
			r.dropPending()
			return
		}
		if line, ok := r.a.rt.TakeCommand(); ok {
			r.view.echo(line)
			r.quit = r.command(line)
			continue
		}
		r.runPending()
	}
}

// runPending runs queued prompts and triggered turns up to the next
// queued command line.
func (r *repl) runPending() {
	mark := r.a.rt.Session().LeafID()
	r.runAgent(func(ctx context.Context) error {
		return r.a.rt.RunPending(ctx, func(ctx context.Context, text string, images []session.ContentBlock) error {
			r.showCustomSince(mark)
			r.view.echo(text)
			err := r.a.rt.Prompt(ctx, text, images)
			mark = r.a.rt.Session().LeafID()
			return err
		}, func(ctx context.Context) error {
			r.showCustomSince(mark)
			err := r.a.rt.Continue(ctx)
			mark = r.a.rt.Session().LeafID()
			return err
		})
	})
	r.showCustomSince(mark)
}

// dropPending discards what hooks queued when the user stopped the step
// they were queued in: Ctrl+C stops everything, so no hook prompt or
// triggered turn starts by itself afterwards. Custom messages are still
// appended (they are data), without their turn.
func (r *repl) dropPending() {
	dropped := 0
	for _, p := range r.a.rt.TakePending() {
		if p.Message == nil {
			dropped++
			continue
		}
		if p.Trigger {
			dropped++
		}
		m := p.Message
		if _, err := r.a.rt.Session().AppendCustomMessage(m.CustomType, m.Content, m.Display, m.Details); err != nil {
			r.errorf("saving a hook message: %v", err)
		}
	}
	if dropped > 0 {
		r.printf("%s\n", r.term.paint(ansiDim, fmt.Sprintf("(stopped: %d queued hook message%s not sent)", dropped, plural(dropped))))
	}
}

// showCustomSince renders the displayed custom messages on the current
// path after the entry mark ("": the path's start); nothing when mark
// is not on the path (the session or branch changed).
func (r *repl) showCustomSince(mark string) {
	path := r.a.rt.Session().Path(r.a.rt.Session().LeafID())
	start := -1
	if mark == "" {
		start = 0
	}
	for i, e := range path {
		if e.ID == mark {
			start = i + 1
		}
	}
	if start < 0 {
		return
	}
	for _, e := range path[start:] {
		if e.Type != session.TypeCustomMessage || !e.Display() {
			continue
		}
		for _, m := range session.BuildContext([]*session.Entry{e}).Messages {
			r.printf("%s\n", strings.TrimRight(r.view.renderCustom(&m.Message), "\n"))
		}
	}
}

// runAgent runs one agent call with the streaming view attached.
func (r *repl) runAgent(fn func(ctx context.Context) error) {
	r.view.begin()
	unsub := r.a.rt.Subscribe(r.view.runtimeEvent)
	r.editor.begin()
	err := r.interruptible(fn)
	r.editor.end(r.stopped || errors.Is(err, agent.ErrAborted))
	unsub()
	r.view.end(err, r.contextInfo())
}

// contextInfo measures the context for the status line.
func (r *repl) contextInfo() contextInfo {
	ci := contextInfo{tokens: r.a.rt.ContextTokens(), window: r.a.rt.Model().ContextWindow}
	if st := r.a.rt.CompactionSettings(); st.Enabled && ci.window > st.ReserveTokens {
		ci.threshold = ci.window - st.ReserveTokens
	}
	return ci
}

// shell runs a !command, streaming its output, and stores it as a
// bashExecution message (excluded from the context for !!).
func (r *repl) shell(command string, exclude bool) {
	if command == "" {
		r.warnf("usage: !command (or !!command to keep it out of the context)")
		return
	}
	var res tools.BashResult
	out := &lineTracker{w: r.term.stdout}
	text := ansi.NewStream(ansi.StreamOptions{Plain: true}) // sanitises, characters whole
	err := r.interruptible(func(ctx context.Context) error {
		var err error
		res, err = tools.RunBash(ctx, r.a.cwd, command, 0, func(chunk string) {
			r.term.mu.Lock()
			out.WriteString(text.Write(chunk))
			r.term.mu.Unlock()
		})
		return err
	})
	r.term.mu.Lock()
	out.WriteString(text.Flush())
	out.endLine()
	r.term.mu.Unlock()
	if err != nil && !res.Cancelled {
		r.errorf("%v", err)
		return
	}
	switch {
	case res.Cancelled:
		r.printf("%s\n", r.term.paint(ansiDim, "(command cancelled)"))
	case res.ExitCode != nil && *res.ExitCode != 0:
		r.printf("%s\n", r.term.paint(ansiDim, fmt.Sprintf("(exit code %d)", *res.ExitCode)))
	}
	if res.Truncated && res.FullOutputPath != "" {
		r.printf("%s\n", r.term.paint(ansiDim, "(output truncated; full output in "+res.FullOutputPath+")"))
	}
	m := &session.Message{Role: session.RoleBashExecution, Timestamp: time.Now().UnixMilli(),
		Extra: &session.MessageExtra{Command: command, Output: res.Output, ExitCode: res.ExitCode, Cancelled: res.Cancelled, Truncated: res.Truncated, FullOutputPath: res.FullOutputPath, ExcludeFromContext: exclude}}
	if err := r.a.rt.RecordBash(m); err != nil {
		r.errorf("saving command output: %v", err)
	}
}

// lineTracker writes through and remembers whether the last line is open.
type lineTracker struct {
	w    io.Writer
	open bool
}

func (l *lineTracker) WriteString(s string) {
	if s == "" {
		return
	}
	io.WriteString(l.w, s)
	l.open = !strings.HasSuffix(s, "\n")
}

func (l *lineTracker) endLine() {
	if l.open {
		io.WriteString(l.w, "\n")
		l.open = false
	}
}

// printf writes to stdout, serialised with everything else on screen.
func (r *repl) printf(format string, args ...any) {
	r.view.printf(format, args...)
}

// warnf writes a warning line.
func (r *repl) warnf(format string, args ...any) {
	r.view.printf("%s", r.view.styled(ansiYellow, fmt.Sprintf(format, args...)))
}

// errorf writes an error line.
func (r *repl) errorf(format string, args ...any) {
	r.view.printf("%s", r.view.styled(ansiRed, "error: "+fmt.Sprintf(format, args...)))
}

// Attachment limits.
const (
	maxAttachmentBytes = 5 << 20
)

var imageTypes = map[string]string{".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp"}

// expandAttachments resolves @path words that name files: text files are
// appended to the prompt as <file name="…"> blocks and images become image
// parts (with an empty <file> block naming them), as pi does. Words that
// name no file (e.g. @someone) stay as they are. notes explains files that
// could not be attached.
func expandAttachments(text, cwd string) (string, []session.ContentBlock, []string) {
	var blocks strings.Builder
	var images []session.ContentBlock
	var notes []string
	seen := map[string]bool{}
	for _, word := range strings.Fields(text) {
		if !strings.HasPrefix(word, "@") || len(word) < 2 {
			continue
		}
		path, ok := attachmentPath(word[1:], cwd)
		if !ok || seen[path] {
			continue
		}
		seen[path] = true
		data, err := os.ReadFile(path)
		switch {
		case err != nil:
			notes = append(notes, fmt.Sprintf("@%s: %v", word[1:], err))
			continue
		case len(data) == 0:
			continue
		case len(data) > maxAttachmentBytes:
			notes = append(notes, fmt.Sprintf("@%s: %d bytes is too large to attach (limit %d MB)", word[1:], len(data), maxAttachmentBytes>>20))
			continue
		}
		if mime := imageMime(path, data); mime != "" {
			images = append(images, session.ContentBlock{Type: session.BlockImage, Extra: &session.BlockExtra{Data: base64.StdEncoding.EncodeToString(data), MimeType: mime}})
			fmt.Fprintf(&blocks, "<file name=%q></file>\n", path)
			continue
		}
		if bytes.IndexByte(data, 0) >= 0 {
			notes = append(notes, fmt.Sprintf("@%s: not a text or image file; not attached", word[1:]))
			continue
		}
		// Text in another encoding is attached with its invalid bytes
		// replaced, as the read tool reads it.
		fmt.Fprintf(&blocks, "<file name=%q>\n%s\n</file>\n", path, strings.ToValidUTF8(string(data), "\uFFFD"))
	}
	if blocks.Len() == 0 {
		return text, images, notes
	}
	return text + "\n\n" + strings.TrimRight(blocks.String(), "\n"), images, notes
}

// attachmentPath resolves the path of an @word to an existing regular
// file, forgiving trailing punctuation ("see @main.go,").
func attachmentPath(p, cwd string) (string, bool) {
	for {
		if strings.HasPrefix(p, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				p = filepath.Join(home, p[2:])
			}
		}
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cwd, p)
		}
		if fi, err := os.Stat(abs); err == nil && fi.Mode().IsRegular() {
			return abs, true
		}
		trimmed := strings.TrimRight(p, ".,;:!?)]}'\"")
		if trimmed == p || trimmed == "" {
			return "", false
		}
		p = trimmed
	}
}

// imageMime is the MIME type of a supported image, judged by content
// and extension.
func imageMime(path string, data []byte) string {
	mime, ok := imageTypes[strings.ToLower(filepath.Ext(path))]
	sniffed := http.DetectContentType(data)
	for _, m := range imageTypes {
		if sniffed == m {
			return m
		}
	}
	if ok && strings.HasPrefix(sniffed, "image/") {
		return mime
	}
	return ""
}

// completeWord completes slash commands (and their arguments) at the
// start of the line and file paths after @.
func (r *repl) completeWord(line string, pos int) (string, []string, string) {
	runes := []rune(line)
	if pos > len(runes) {
		pos = len(runes)
	}
	before, tail := string(runes[:pos]), string(runes[pos:])
	if strings.HasPrefix(before, "/") {
		if !strings.Contains(before, " ") {
			var out []string
			for _, c := range r.commands() {
				if strings.HasPrefix("/"+c.Name, before) {
					out = append(out, "/"+c.Name+" ")
				}
			}
			return "", capList(out), tail
		}
		if head, list, ok := r.completeArgument(before); ok {
			return head, capList(list), tail
		}
	}
	start := strings.LastIndexAny(before, " \t") + 1
	word := before[start:]
	if !strings.HasPrefix(word, "@") {
		return before, nil, tail
	}
	dirPart, list := completePath(word[1:], r.a.cwd)
	for i, c := range list {
		if !strings.HasSuffix(c, "/") {
			list[i] = c + " " // a file is complete: go on typing
		}
	}
	return before[:start] + "@" + dirPart, capList(list), tail
}

// capList keeps the first maxCompletions candidates.
func capList(list []string) []string {
	if len(list) > maxCompletions {
		return list[:maxCompletions]
	}
	return list
}

// completeArgument completes the argument of /model, /thinking and the
// commands taking entry or session ids.
func (r *repl) completeArgument(before string) (string, []string, bool) {
	name, arg, _ := strings.Cut(before[1:], " ")
	if strings.Contains(arg, " ") {
		return "", nil, false
	}
	var cands []string
	switch name {
	case "model":
		cands = append(cands, "next")
		seen := map[string]bool{}
		for _, m := range r.modelChoices() {
			cands = append(cands, modelSpec(m))
			// A bare id ("/model gpt-4" Tab) completes to the ids, as
			// --model takes them.
			if !strings.Contains(arg, "/") && !seen[m.ID] {
				seen[m.ID] = true
				cands = append(cands, m.ID)
			}
		}
	case "thinking":
		for _, l := range agent.ThinkingLevels {
			cands = append(cands, string(l))
		}
	case "branch", "fork", "label":
		for _, e := range r.a.rt.Session().Entries() {
			cands = append(cands, e.ID)
		}
	case "resume":
		infos, _ := r.sessionInfos()
		for _, in := range infos {
			cands = append(cands, in.ID)
		}
	default:
		return "", nil, false
	}
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, arg) {
			out = append(out, c+" ")
		}
	}
	return "/" + name + " ", out, true
}

// completePath lists the entries of the folder named by the part of p up
// to its last slash that start with the rest; folders end in "/".
func completePath(p, cwd string) (string, []string) {
	dirPart, base := "", p
	if i := strings.LastIndex(p, "/"); i >= 0 {
		dirPart, base = p[:i+1], p[i+1:]
	}
	dir := dirPart
	if strings.HasPrefix(dir, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, dir[2:])
		}
	}
	if dir == "" {
		dir = "."
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(cwd, dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return dirPart, nil
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, base) || (strings.HasPrefix(n, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		if e.IsDir() {
			n += "/"
		}
		out = append(out, n)
	}
	return dirPart, out
}

// replay prints the last n messages of the current context, so a resumed
// session shows where it stands.
func (r *repl) replay(n int) {
	path := r.a.rt.Session().Path("")
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

// truncateRunes cuts s to at most n runes, ending in … when cut.
func truncateRunes(s string, n int) string {
	if n < 2 {
		n = 2
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// atoiOK parses a positive number.
func atoiOK(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	return n, err == nil && n > 0
}
