package main

// The interactive REPL: the read–dispatch loop for slash commands,
// !shell commands and prompts, and what hooks queue between them. The
// terminal is in repl_terminal.go, its input filter in repl_input.go,
// completion in repl_complete.go, attachments in repl_attach.go.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/agent/tools"
	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/session/export/ansi"
)

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
	if err := r.a.agentRuntime.Shutdown(context.Background()); err != nil {
		r.errorf("saving session: %v", err)
	}
}

// exitHintDelay: a second Ctrl+C on an empty line within it quits.
const exitHintDelay = 2 * time.Second

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
	r.a.agentRuntime.SetAbort(abort)
	defer func() {
		r.a.agentRuntime.SetAbort(nil)
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
	if n := r.a.imageNotice(images); n != "" {
		r.warnf("%s", n)
	}
	var err error
	r.runAgent(func(ctx context.Context) error {
		err = r.a.agentRuntime.Prompt(ctx, text, images)
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
	for n := 0; r.a.agentRuntime.HasPending() && !r.quit; n++ {
		if r.stopped || n == maxQueuedSteps {
			r.dropPending()
			return
		}
		if line, ok := r.a.agentRuntime.TakeCommand(); ok {
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
	mark := r.a.agentRuntime.Session().LeafID()
	r.runAgent(func(ctx context.Context) error {
		return r.a.agentRuntime.RunPending(ctx, func(ctx context.Context, text string, images []session.ContentBlock) error {
			r.showCustomSince(mark)
			r.view.echo(text)
			err := r.a.agentRuntime.Prompt(ctx, text, images)
			mark = r.a.agentRuntime.Session().LeafID()
			return err
		}, func(ctx context.Context) error {
			r.showCustomSince(mark)
			err := r.a.agentRuntime.Continue(ctx)
			mark = r.a.agentRuntime.Session().LeafID()
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
	for _, p := range r.a.agentRuntime.TakePending() {
		if p.Message == nil {
			dropped++
			continue
		}
		if p.Trigger {
			dropped++
		}
		m := p.Message
		if _, err := r.a.agentRuntime.Session().AppendCustomMessage(m.CustomType, m.Content, m.Display, m.Details); err != nil {
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
	path := r.a.agentRuntime.Session().Path(r.a.agentRuntime.Session().LeafID())
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
	unsub := r.a.agentRuntime.Subscribe(r.view.runtimeEvent)
	r.editor.begin()
	err := r.interruptible(fn)
	r.editor.end(r.stopped || errors.Is(err, agent.ErrAborted))
	unsub()
	r.view.end(err, r.contextInfo())
}

// contextInfo measures the context for the status line.
func (r *repl) contextInfo() contextInfo {
	ci := contextInfo{tokens: r.a.agentRuntime.ContextTokens(), window: r.a.agentRuntime.Model().ContextWindow}
	if st := r.a.agentRuntime.CompactionSettings(); st.Enabled && ci.window > st.ReserveTokens {
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
	if err := r.a.agentRuntime.RecordBash(m); err != nil {
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
