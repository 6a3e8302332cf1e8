package main

// One-shot mode: `lunar -p "…"` or a prompt piped through stdin. The answer
// (or pure JSONL in --mode json) goes to stdout and nothing else does; tool
// activity and diagnostics go to stderr.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/session/export/ansi"
)

// textPrinter streams assistant text to stdout and tool activity to stderr.
type textPrinter struct {
	out, errw io.Writer
	wroteText bool // something was written to out
	trailing  int  // newlines at the end of what was written (at most 2)
	needBreak bool // a new assistant message started after text was written

	// On a terminal, answers are rendered as markdown (see
	// markdownStreams): newText starts a stream for each text block.
	newText func() *ansi.Stream
	text    *ansi.Stream
	// tty: out is a terminal, so text that is not rendered (--raw,
	// TERM=dumb) is still sanitised. To a pipe or a file the answer is
	// the product: byte for byte what the model wrote.
	tty bool
}

func (p *textPrinter) event(ev agent.Event) {
	switch ev.Type {
	case agent.EventMessageStart:
		if ev.Message != nil && ev.Message.Role == session.RoleAssistant && p.wroteText {
			p.needBreak = true
		}
	case agent.EventMessageUpdate:
		if ev.Stream.Type == agent.StreamTextStart && p.wroteText && !p.needBreak {
			// A second text block of the same reply starts on its own line.
			p.endLine()
		}
		if ev.Stream.Type == agent.StreamTextDelta && ev.Stream.Delta != "" {
			if p.needBreak { // one blank line between the texts of two replies
				p.flushText()
				p.write(strings.Repeat("\n", 2-p.trailing))
				p.needBreak = false
			}
			p.writeText(ev.Stream.Delta)
		}
	case agent.EventToolExecutionStart:
		p.endLine()
		fmt.Fprintf(p.errw, "→ %s\n", toolCallSummary(ev.ToolName, ev.Args))
	case agent.EventToolExecutionEnd:
		if ev.IsError && ev.Result != nil {
			fmt.Fprintf(p.errw, "  ✗ %s\n", ansi.Sanitize(errorSummary(resultText(ev.Result))))
		}
	}
}

func (p *textPrinter) write(s string) {
	if s == "" {
		return
	}
	io.WriteString(p.out, s)
	p.wroteText = true
	n := len(s) - len(strings.TrimRight(s, "\n"))
	if n == len(s) {
		n += p.trailing
	}
	p.trailing = min(n, 2)
}

// writeText writes answer text: as it is, or through a markdown stream.
func (p *textPrinter) writeText(s string) {
	if p.newText == nil {
		if p.tty {
			s = ansi.Sanitize(s)
		}
		p.write(s)
		return
	}
	if p.text == nil {
		p.text = p.newText()
	}
	p.write(p.text.Write(s))
}

// flushText ends a rendered text block (its last line is rendered).
func (p *textPrinter) flushText() {
	if p.text != nil {
		p.write(p.text.Flush())
		p.text = nil
	}
}

// endLine finishes the current stdout line so stderr output does not glue
// onto it on a shared terminal.
func (p *textPrinter) endLine() {
	p.flushText()
	if p.wroteText && p.trailing == 0 {
		p.write("\n")
	}
}

func resultText(r *agent.ToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if c.Type == session.BlockText {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// errorSummary is a failed tool's result on one line: its first line and,
// when there are more, its last (where bash puts "Command exited with code
// N" or "Command timed out ...").
func errorSummary(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	first := strings.TrimSpace(lines[0])
	last := strings.TrimSpace(lines[len(lines)-1])
	if len(lines) == 1 || last == "" {
		return firstLine(first, 200)
	}
	return firstLine(first, 100) + " … " + firstLine(last, 100)
}

func firstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len([]rune(s)) > max {
		s = string([]rune(s)[:max]) + "…"
	}
	return s
}

// compaction reports a compaction on stderr.
func (p *textPrinter) compaction(c *agent.CompactionEvent) {
	p.endLine()
	if c.Type == agent.CompactionStart {
		fmt.Fprintf(p.errw, "compacting the context (%s)…\n", c.Reason)
		return
	}
	switch {
	case c.Result != nil:
		fmt.Fprintf(p.errw, "compacted: %s → %s tokens\n", groupDigits(c.Result.TokensBefore), groupDigits(c.Result.TokensAfter))
	case c.Aborted:
		fmt.Fprintln(p.errw, "compaction stopped: the session is unchanged")
	case c.ErrorMessage != "":
		fmt.Fprintf(p.errw, "compaction failed: %s\n", ansi.Sanitize(c.ErrorMessage))
	}
}

// runOneShot runs the prompts, one after the other, and returns the
// process exit code.
func (a *app) runOneShot(ctx context.Context, prompts []initialPrompt) int {
	if a.opts.Mode == "json" {
		j := &jsonWriter{w: a.stdout}
		j.header(a.agentRuntime.Session().Header())
		unsub := a.agentRuntime.Subscribe(j.runtimeEvent)
		defer unsub()
	} else {
		p := &textPrinter{out: a.stdout, errw: a.stderr, newText: markdownStreams(a.stdout, a.opts.Raw), tty: isTTY(a.stdout)}
		unsub := a.agentRuntime.Subscribe(func(ev agent.RuntimeEvent) {
			if ev.Loop != nil {
				p.event(*ev.Loop)
			} else if ev.Compaction != nil {
				p.compaction(ev.Compaction)
			}
		})
		defer func() {
			unsub()
			p.endLine()
		}()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a.agentRuntime.SetAbort(cancel)
	ctx = agent.WithInputSource(ctx, a.oneShotSource())
	var err error
	for _, p := range prompts {
		if err = refuseOneShot(p.text); err != nil {
			return a.exitCode(err) // before anything runs
		}
	}
	for _, p := range prompts {
		if err = a.submit(ctx, p.text, p.images); err == nil {
			err = a.runPending(ctx)
		}
		if err != nil {
			break
		}
	}
	if serr := a.agentRuntime.Shutdown(context.WithoutCancel(ctx)); serr != nil && err == nil {
		err = fmt.Errorf("saving session: %w", serr)
	}
	return a.exitCode(err)
}

// oneShotSource is chat.message's source for the one-shot prompts:
// "stdin" when only piped stdin gave them, else "print".
func (a *app) oneShotSource() string {
	if strings.TrimSpace(a.opts.Prompt) == "" && len(a.opts.Args) == 0 && !isTerminal(a.stdin) {
		return agent.SourceStdin
	}
	return agent.SourcePrint
}

// runPending runs what hooks queued: prompts and triggered turns, and
// command lines (lunar.send("/name …")) as if given with -p.
func (a *app) runPending(ctx context.Context) error {
	for n := 0; ; n++ {
		if err := a.agentRuntime.RunPending(ctx, a.agentRuntime.Prompt, a.agentRuntime.Continue); err != nil {
			return err
		}
		line, ok := a.agentRuntime.TakeCommand()
		if !ok {
			return nil
		}
		if n == maxQueuedSteps {
			return fmt.Errorf("hooks keep queueing commands: stopped after %d", maxQueuedSteps)
		}
		if err := a.submit(agent.WithInputSource(ctx, agent.SourceExtension), line, nil); err != nil {
			return err
		}
	}
}

// exitCode maps a run's error to the process exit code, reporting it.
func (a *app) exitCode(err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(a.stderr, "lunar: %s\n", ue.msg)
		return exitUsage
	case errors.Is(err, agent.ErrAborted) || errors.Is(err, context.Canceled):
		fmt.Fprintln(a.stderr, "lunar: interrupted")
		return exitInterrupted
	case errors.Is(err, agent.ErrContextOverflow):
		fmt.Fprintf(a.stderr, "lunar: context overflow: the conversation does not fit %s/%s's context window; start a new session or shorten the input (%v)\n",
			a.agentRuntime.Model().Provider, a.agentRuntime.Model().ID, err)
		return exitError
	default:
		if help := a.firstRunHelp(err); help != "" {
			io.WriteString(a.stderr, "lunar: "+help)
			return exitError
		}
		fmt.Fprintf(a.stderr, "lunar: %s\n", ansi.Sanitize(err.Error()))
		return exitError
	}
}
