package main

// The REPL's streaming display: assistant text rendered a line at a time
// as it arrives (see session/export/ansi: every line is written once,
// whole, and never drawn again), thinking collapsed to one dimmed line,
// one line per tool call with a short result preview, hook-rendered
// custom messages. Below the output, a live area is redrawn in place: a
// spinner with elapsed seconds while the model or a tool is working, a
// running bash command's last output lines, "…" while a table is held
// and "waiting" when a stream stalls (see repl_live.go).

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/session/export/ansi"
)

// Tool result previews.
const (
	previewLines     = 3
	thinkingRedrawMs = 80
)

// view renders agent events on the terminal. Its state is guarded by the
// terminal's mutex, which every method takes.
type view struct {
	t            *terminal
	showThinking bool
	hooks        func() appHooks

	open      bool   // the stdout line is not finished
	section   string // last kind of block written: text, thinking, tool, note
	wrote     bool   // something was written during this run
	errShown  bool   // an error of this run was already printed
	abortSeen bool   // "(interrupted)" was already printed

	text *ansi.Stream // the text block being streamed
	raw  bool         // --raw: answers as the model wrote them

	thinkingChars int
	thinkingOpen  bool // a collapsed thinking line is on screen
	thinkingDrawn time.Time

	spin      *spinner
	liveShown bool // the live area is on screen
	liveRows  int  // its rows above the cursor's
	ed        *runEditor
	lastDelta time.Time // when the stream last brought something
	tail      []string  // a running bash command's last output lines

	runUsage     session.Usage // summed over this run's replies
	runCalls     int           // replies with usage in this run
	runEstimated bool          // an interrupted reply's output is estimated
	replyChars   int           // streamed by the current reply
	replying     bool          // an assistant message streams (message_start seen, not its end)
}

func newView(t *terminal, showThinking bool, hooks func() appHooks) *view {
	return &view{t: t, showThinking: showThinking, hooks: hooks}
}

// write writes s to stdout and tracks whether the line is left open.
func (v *view) write(s string) {
	if s == "" {
		return
	}
	v.hideLive()
	io.WriteString(v.t.stdout, s)
	v.open = !strings.HasSuffix(s, "\n")
	v.wrote = true
	if v.ed.visible() {
		v.drawLive() // the line being typed stays below the output
	}
}

func (v *view) endLine() {
	v.finishThinking()
	v.flushText()
	if v.open {
		v.write("\n")
	}
}

// startSection ends the current line and separates blocks of different
// kinds by a blank line (consecutive tool calls, and collapsed thinking
// followed by its answer, stay together).
func (v *view) startSection(kind string) {
	v.stopSpinner()
	v.endLine()
	if v.section != "" && !(v.section == "tool" && kind == "tool") && (v.section != "thinking" || v.showThinking) {
		v.write("\n")
	}
	v.section = kind
}

// printf prints a line of REPL output (command results, notices).
// During a reply (a hook's notification) the spinner comes back after
// it, and streamed text resumes as a new paragraph below it.
func (v *view) printf(format string, args ...any) {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	spin := v.spin
	v.stopSpinner()
	v.endLine()
	v.write(fmt.Sprintf(format, args...))
	v.section = "note"
	switch {
	case spin != nil && spin.quiet:
		v.startQuiet()
	case spin != nil:
		v.resumeSpinner(spin.label, spin.start)
	}
}

// echo shows text sent on the user's behalf (a hook command's prompt,
// lunar.send) as a dimmed prompt line; the answer follows it directly.
func (v *view) echo(text string) {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	v.stopSpinner()
	v.endLine()
	v.write(v.t.paint(ansiDim, truncateRunes("> "+oneLine(text), v.t.columns()-1)) + "\n")
	v.section = ""
}

// suspend clears the screen state before a dialog takes the terminal. It
// returns the label of the spinner it removed ("" when none) for resume.
func (v *view) suspend() string {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	label := ""
	if v.spin != nil {
		label = v.spin.label
	}
	v.stopSpinner()
	v.hideLive() // the line being typed too: the dialog reads the keys now
	v.endLine()
	v.section = ""
	return label
}

// resume brings back, counting afresh, the spinner a dialog removed (a
// tool that a permission prompt let run is still working).
func (v *view) resume(label string) {
	if label == "" {
		return
	}
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	v.startSpinner(label)
}

// begin resets the state for a new run.
func (v *view) begin() {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	v.open, v.section, v.wrote, v.errShown, v.abortSeen, v.replying = false, "", false, false, false, false
	v.thinkingOpen = false
	v.runUsage, v.runCalls, v.runEstimated = session.Usage{}, 0, false
}

// end finishes a run: the spinner goes, a run error that no message
// showed is printed, and a blank line separates the reply from the next
// prompt.
func (v *view) end(err error, ci contextInfo) {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	v.stopSpinner()
	v.endLine()
	switch {
	case err == nil:
	case errors.Is(err, agent.ErrAborted) || errors.Is(err, errInterrupted):
		if !v.abortSeen {
			v.abortSeen = true
			v.write(v.t.paint(ansiDim, "(interrupted)") + "\n")
		}
	case !v.errShown:
		v.write(v.styled(ansiRed, "error: "+err.Error()))
	}
	v.statusLine(ci)
	if v.wrote {
		v.write("\n")
	}
}

// styled paints text in style line by line, each line broken between
// words at the terminal's width (keeping its indentation), so that a long
// error or notice is not cut inside a word by the terminal.
func (v *view) styled(style, text string) string {
	width := 0
	if v.t.ttyOut {
		width = v.t.columns() - 1
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		parts := []string{line}
		if width > 0 && runewidth.StringWidth(line) > width {
			indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
			parts = wrapWords(line, max(width-len(indent), 20))
			for i := range parts {
				parts[i] = indent + parts[i]
			}
		}
		for _, p := range parts {
			b.WriteString(v.t.paint(style, p) + "\n")
		}
	}
	return b.String()
}

// interrupted is called from the signal handler when Ctrl+C aborts a run.
func (v *view) interrupted() {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	v.stopSpinner()
}

// event renders one agent event. It runs on the loop's goroutine.
// runtimeEvent shows a runtime event: loop events as they stream, a
// compaction as a spinner and then what it did.
func (v *view) runtimeEvent(ev agent.RuntimeEvent) {
	switch {
	case ev.Loop != nil:
		v.event(*ev.Loop)
		if ev.Loop.Type == agent.EventMessageEnd && ev.Loop.Message != nil && ev.Loop.Message.Role == session.RoleAssistant {
			v.ed.replyEnded(ev.Loop.Message)
		}
	case ev.Compaction != nil:
		v.compaction(ev.Compaction)
	case ev.Queue != nil:
		v.queueUpdate(ev.Queue)
	}
}

// compaction shows a compaction starting (a spinner) and ending (tokens
// before → after, or why it did not happen).
func (v *view) compaction(c *agent.CompactionEvent) {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	if c.Type == agent.CompactionStart {
		v.endLine()
		label := "compacting"
		switch c.Reason {
		case agent.CompactionThreshold:
			label = "compacting (context nearly full)"
		case agent.CompactionOverflow:
			label = "compacting (context overflow)"
		}
		v.startSpinner(label)
		return
	}
	v.stopSpinner()
	v.endLine()
	switch {
	case c.Result != nil:
		msg := fmt.Sprintf("compacted: %s → %s tokens", groupDigits(c.Result.TokensBefore), groupDigits(c.Result.TokensAfter))
		if c.Result.FromHook {
			msg += " (summary from a hook)"
		}
		if c.WillRetry {
			msg += "; retrying"
		}
		v.write(v.t.paint(ansiDim, msg) + "\n")
	case c.Aborted:
		v.write(v.t.paint(ansiDim, "(compaction stopped: the session is unchanged)") + "\n")
	case c.ErrorMessage != "" && c.Reason != agent.CompactionManual:
		v.write(v.styled(ansiYellow, "compaction failed: "+c.ErrorMessage))
	}
}

func (v *view) event(ev agent.Event) {
	var custom string
	if (ev.Type == agent.EventMessageEnd) && ev.Message != nil && ev.Message.Role == session.RoleCustom {
		if !ev.Message.Display() {
			return
		}
		custom = v.renderCustom(ev.Message) // may run Lua: outside the lock
	}
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	switch ev.Type {
	case agent.EventAgentStart, agent.EventTurnStart:
		v.endLine()
		v.startSpinner("working")
		v.replyChars = 0
	case agent.EventMessageStart:
		v.replying = ev.Message != nil && ev.Message.Role == session.RoleAssistant
	case agent.EventMessageUpdate:
		if ev.Stream != nil {
			v.lastDelta = time.Now()
			v.replyChars += len(ev.Stream.Delta)
			v.stream(ev.Stream)
		}
	case agent.EventMessageEnd:
		v.replying = false
		v.messageEnd(ev.Message, custom)
	case agent.EventToolExecutionStart:
		v.startSection("tool")
		v.write(v.t.paint(ansiCyan, "→ ") + v.t.paint(ansiBold, toolCallSummary(ev.ToolName, ev.Args)) + "\n")
		v.tail = nil
		v.startSpinner(ev.ToolName)
	case agent.EventToolExecutionUpdate:
		if ev.ToolName == "bash" && ev.Result != nil {
			v.showTail(resultText(ev.Result))
		}
	case agent.EventToolExecutionEnd:
		v.tail = nil
		v.stopSpinner()
		v.toolResult(ev.ToolName, ev.Result, ev.IsError)
	case agent.EventAgentEnd:
		v.stopSpinner()
		v.endLine()
	}
}

func (v *view) stream(se *agent.StreamEvent) {
	switch se.Type {
	case agent.StreamThinkingStart:
		v.startSection("thinking")
		v.thinkingChars = 0
		if v.showThinking {
			v.startText(false) // wrapped between words like the answer
			return
		}
		v.thinkingOpen = true
		v.drawThinking(true)
	case agent.StreamThinkingDelta:
		if v.showThinking {
			v.write(v.t.paintDrawn(ansiDim, v.text.Write(se.Delta)))
			return
		}
		v.thinkingChars += len([]rune(se.Delta))
		v.drawThinking(false)
	case agent.StreamThinkingEnd:
		v.finishThinking()
		v.endLine()
	case agent.StreamTextStart:
		v.startSection("text")
		v.startText(true)
	case agent.StreamTextDelta:
		if v.section != "text" {
			v.startSection("text")
			v.startText(true)
		}
		v.write(v.text.Write(se.Delta))
		if v.text.Held() {
			v.drawLive() // "…" at once
		}
	case agent.StreamTextEnd:
		v.flushText()
	case agent.StreamToolCallStart:
		v.stopSpinner()
		v.endLine()
		v.startSpinner("preparing a tool call")
	}
}

// startText begins a text block: on a terminal, wrapped between words
// at its width and, for an answer (markdown), rendered a line at a time
// — unless --raw or TERM=dumb asks for the text as it is. While it
// streams, the live area stays quiet unless the stream stalls or holds
// a table back.
func (v *view) startText(markdown bool) {
	o := ansi.StreamOptions{Plain: !markdown || !v.markdown()}
	if v.t.ttyOut {
		o.Width, _ = v.t.size()
		o.Color, o.NoColor = true, !v.t.color
		o.Size = v.t.size
	}
	v.text = ansi.NewStream(o)
	v.startQuiet()
}

// markdown reports whether answers are rendered.
func (v *view) markdown() bool { return markdownOn(v.t.ttyOut, v.raw) }

// flushText ends the text block: its last markdown block is drawn.
func (v *view) flushText() {
	if v.text != nil {
		v.write(v.text.Flush())
		v.text = nil
	}
}

// size is the terminal's width and height (80×24 when unknown).
func (t *terminal) size() (cols, rows int) { return termSize(t.stdout) }

// drawThinking updates the collapsed thinking line in place (on a
// terminal, at most every few frames); elsewhere it is written once when
// thinking ends.
func (v *view) drawThinking(first bool) {
	if !v.t.ttyOut {
		return
	}
	if !first && time.Since(v.thinkingDrawn) < thinkingRedrawMs*time.Millisecond {
		return
	}
	v.thinkingDrawn = time.Now()
	label := "thinking…"
	if v.thinkingChars > 0 {
		label = fmt.Sprintf("thinking… (%d chars)", v.thinkingChars)
	}
	v.hideLive()
	io.WriteString(v.t.stdout, "\r\x1b[K"+v.t.paint(ansiDim, label))
	v.open, v.wrote = true, true
}

// finishThinking leaves the final collapsed thinking line on screen.
func (v *view) finishThinking() {
	if !v.thinkingOpen {
		return
	}
	v.thinkingOpen = false
	label := fmt.Sprintf("thinking… (%d chars)", v.thinkingChars)
	if v.t.ttyOut {
		io.WriteString(v.t.stdout, "\r\x1b[K")
	}
	io.WriteString(v.t.stdout, v.t.paint(ansiDim, label)+"\n")
	v.open, v.wrote = false, true
}

func (v *view) messageEnd(m *session.Message, custom string) {
	if m == nil {
		return
	}
	switch m.Role {
	case session.RoleAssistant:
		u := m.Usage
		if m.StopReason == session.StopAborted && (u == nil || u.Output == 0) && v.replyChars > 0 {
			// The stream was cut before the usage came: what the reply
			// used is estimated from what it streamed (4 bytes a token).
			est := session.Usage{Output: (v.replyChars + 3) / 4}
			if u != nil {
				est.Input, est.CacheRead, est.CacheWrite = u.Input, u.CacheRead, u.CacheWrite
			}
			u = &est
			v.runEstimated = true
		}
		if u != nil {
			v.runCalls++
			v.runUsage.Input += u.Input
			v.runUsage.Output += u.Output
			v.runUsage.CacheRead += u.CacheRead
			v.runUsage.CacheWrite += u.CacheWrite
			v.runUsage.Cost.Total += u.Cost.Total
		}
		v.stopSpinner()
		v.endLine()
		switch m.StopReason {
		case session.StopError:
			v.startSection("note")
			v.write(v.styled(ansiRed, "error: "+m.ErrorMessage()))
			v.errShown = true
		case session.StopAborted:
			if !v.abortSeen {
				v.abortSeen = true
				v.write(v.t.paint(ansiDim, "(interrupted)") + "\n")
			}
		case session.StopLength:
			v.write(v.t.paint(ansiYellow, "(the reply hit the output token limit)") + "\n")
		}
	case session.RoleCustom:
		v.startSection("note")
		v.write(strings.TrimRight(custom, "\n") + "\n") // sanitised by renderCustom
	}
}

// renderCustom renders a displayed custom message with its hook renderer,
// or as "[type] text".
func (v *view) renderCustom(m *session.Message) string {
	if v.hooks != nil {
		if s, ok := v.hooks().Render(m, false); ok {
			return ansi.Sanitize(s)
		}
	}
	return v.t.paint(ansiDim, "["+m.CustomType()+"]") + " " + ansi.Sanitize(m.Text())
}

// toolResult prints the first lines of a tool's output under its call.
func (v *view) toolResult(name string, r *agent.ToolResult, isError bool) {
	if r == nil {
		return
	}
	text := strings.TrimRight(cleanForTerminal(resultText(r)), "\n")
	images := 0
	for _, c := range r.Content {
		if c.Type == session.BlockImage {
			images++
		}
	}
	width := v.t.columns() - 4
	var lines []string
	if text != "" {
		lines = strings.Split(text, "\n")
	}
	switch {
	case isError:
		first := "failed"
		if len(lines) > 0 {
			first, lines = lines[0], lines[1:]
		}
		v.write("  " + v.t.paint(ansiRed, "✗ "+truncateRunes(first, width-2)) + "\n")
	case name == "read" && len(lines) > 0:
		v.write(v.t.paint(ansiDim, fmt.Sprintf("  %d line%s", len(lines), plural(len(lines)))) + "\n")
		lines = nil
	case len(lines) == 0 && images == 0:
		v.write(v.t.paint(ansiDim, "  (no output)") + "\n")
	}
	if !isError && name == "edit" {
		if diff := editDiff(r.Details); diff != "" {
			v.diffPreview(diff, width)
			lines = nil
		}
	}
	if !isError && name == "bash" && len(lines) > previewLines {
		// A command's errors and results are at its end: show the last lines.
		earlier := len(lines) - previewLines
		v.write(v.t.paint(ansiDim, fmt.Sprintf("  … %d earlier line%s (/expand)", earlier, plural(earlier))) + "\n")
		lines = lines[earlier:]
	}
	shown := min(len(lines), previewLines)
	for _, l := range lines[:shown] {
		v.write(v.t.paint(ansiDim, "  "+truncateRunes(l, width)) + "\n")
	}
	if rest := len(lines) - shown; rest > 0 {
		v.write(v.t.paint(ansiDim, fmt.Sprintf("  … +%d more line%s (/expand)", rest, plural(rest))) + "\n")
	}
	if images > 0 {
		v.write(v.t.paint(ansiDim, fmt.Sprintf("  (%d image%s)", images, plural(images))) + "\n")
	}
}

// cleanForTerminal is text for a preview laid out in columns (tool
// output, a diff, ctx.ui.print): sanitised (see ansi.Sanitize) and with
// tabs expanded, so that widths can be counted.
func cleanForTerminal(s string) string {
	return strings.ReplaceAll(ansi.Sanitize(s), "\t", "    ")
}

// contextInfo is what the status line says about the context.
type contextInfo struct {
	tokens, window int
	threshold      int // auto-compaction starts above it; 0: off
}

// statusLine prints one dim line after a reply: this run's tokens and cost,
// and the context used of the window, marked when auto-compaction (or,
// without it, the end of the window) is near.
// The terminal mutex is held.
func (v *view) statusLine(ci contextInfo) {
	if v.runCalls == 0 {
		return
	}
	u := v.runUsage
	out := "out " + shortTokens(u.Output)
	if v.runEstimated {
		out = "out ~" + shortTokens(u.Output) + " (interrupted)"
	}
	in := "in " + shortTokens(u.Input+u.CacheRead+u.CacheWrite)
	if v.runEstimated && u.Input+u.CacheRead+u.CacheWrite == 0 {
		in = "in ~" + shortTokens(ci.tokens) // the request was the context
	}
	parts := []string{in, out}
	if u.CacheRead > 0 {
		parts = append(parts, "cached "+shortTokens(u.CacheRead))
	}
	if u.Cost.Total > 0 {
		parts = append(parts, fmt.Sprintf("$%.4f", u.Cost.Total))
	}
	warn := ""
	if ci.window > 0 {
		pct := 100 * float64(ci.tokens) / float64(ci.window)
		if ci.tokens > ci.window {
			// Past the window (an estimate before the next reply counts
			// it, a model switched to a smaller one): not a normal figure.
			parts = append(parts, fmt.Sprintf("context %s/%s (full)", shortTokens(ci.tokens), shortTokens(ci.window)))
			pct = 100
		} else {
			parts = append(parts, fmt.Sprintf("context %s/%s (%.0f%%)", shortTokens(ci.tokens), shortTokens(ci.window), min(pct, 100)))
		}
		switch {
		case ci.tokens > ci.window:
			warn = "over the context window: /compact or /clear"
		case ci.threshold > 0 && ci.tokens >= ci.threshold*9/10:
			warn = "auto-compaction near"
		case ci.threshold <= 0 && pct >= 90:
			warn = "context nearly full: /compact or /clear"
		}
	}
	// On a narrow terminal the line breaks between its parts, never
	// inside one.
	width := v.t.columns() - 1
	var line strings.Builder
	col := 0
	for i, p := range append(parts, warn) {
		if p == "" {
			continue
		}
		style := ansiDim
		if i == len(parts) {
			style = ansiYellow
		}
		w := runewidth.StringWidth(p)
		switch {
		case col == 0:
		case width > 0 && col+3+w > width:
			line.WriteString("\n")
			col = 0
		default:
			line.WriteString(v.t.paint(ansiDim, " · "))
			col += 3
		}
		line.WriteString(v.t.paint(style, p))
		col += w
	}
	v.endLine()
	v.write(line.String() + "\n")
}

// dialogDetail is the detail under a dialog's question, sanitised; a
// diff (an edit or a write asking permission: every line "+…", "-…",
// "@@ …", "…" or "(…)") is coloured as a tool result's diff is.
func (t *terminal) dialogDetail(text string) string {
	text = cleanForTerminal(text)
	lines := strings.Split(text, "\n")
	for _, l := range lines {
		l = strings.TrimPrefix(l, "  ")
		if l != "" && !strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "@@") &&
			!strings.HasPrefix(l, "…") && !strings.HasPrefix(l, "(") && !strings.HasPrefix(l, " ") {
			return text
		}
	}
	for i, l := range lines {
		switch body := strings.TrimPrefix(l, "  "); {
		case strings.HasPrefix(body, "+"):
			lines[i] = t.paint(ansiGreen, l)
		case strings.HasPrefix(body, "-"):
			lines[i] = t.paint(ansiRed, l)
		case l != "":
			lines[i] = t.paint(ansiDim, l)
		}
	}
	return strings.Join(lines, "\n")
}

// diffPreviewLines bounds the diff shown under an edit.
const diffPreviewLines = 12

// editDiff is the diff in an edit result's details ({"diff": …}).
func editDiff(details json.RawMessage) string {
	var d struct {
		Diff string `json:"diff"`
	}
	if len(details) == 0 || json.Unmarshal(details, &d) != nil {
		return ""
	}
	return d.Diff
}

// diffLineStyle is the colour of a line of an edit's diff: red removed,
// green added, dim context.
func diffLineStyle(l string) string {
	switch {
	case strings.HasPrefix(l, "-"):
		return ansiRed
	case strings.HasPrefix(l, "+"):
		return ansiGreen
	}
	return ansiDim
}

// diffPreview prints an edit's diff (lines "-12 old", "+12 new", " 12 same"
// and " ... "), removals red, additions green, context dim, with at most
// diffPreviewLines lines (the rest: /expand).
func (v *view) diffPreview(diff string, width int) {
	lines := strings.Split(strings.TrimRight(cleanForTerminal(diff), "\n"), "\n")
	shown := min(len(lines), diffPreviewLines)
	for _, l := range lines[:shown] {
		v.write("  " + v.t.paint(diffLineStyle(l), truncateRunes(l, width)) + "\n")
	}
	if rest := len(lines) - shown; rest > 0 {
		v.write(v.t.paint(ansiDim, fmt.Sprintf("  … +%d more diff line%s (/expand)", rest, plural(rest))) + "\n")
	}
}
