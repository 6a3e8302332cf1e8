package main

// Typing while the agent works (issue #21): keys pressed during a run go
// to a one-line editor drawn at the bottom of the live area, below the
// streaming output and never mixed into it (the output is whole lines,
// so the editor line is erased, the lines written, and the editor drawn
// again). Enter steers the running agent (the text joins before its next
// model call), Alt+Enter queues a follow-up (for when it would stop),
// pi's keys; queued messages show as dim lines until delivered; Up or
// Alt+Up takes the newest queued message back into the editor; Esc stops
// the run as Ctrl+C does. A /command entered during the run is handled
// as commands_running.go decides (a hook command runs at once, /clear is
// refused, /name X waits for the end, …); /quit, /expand, a !command or
// a line continued with a backslash is typed ahead, for the prompt after
// the run.
//
// What decides is whether the agent will call the model again, not
// whether the run has ended (agent.Runtime.Accepting): once its final
// reply has ended, a line entered is typed ahead exactly as if the run
// had ended. A /command entered while a reply streams waits for that
// reply's end to know (the lines entered after it wait behind it). What
// is left in the editor when the run ends is the next prompt's text.

import (
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/session"
)

// runEditor is the in-run editor. Its fields are guarded by the
// terminal's mutex.
type runEditor struct {
	r      *repl
	active bool
	buf    []rune
	cur    int    // the cursor, an index in buf (repl_runline.go)
	carry  []byte // the start of a key sequence split between reads
	// choices are the completions Tab listed, shown until the next key.
	choices []string
	sent    map[string]int // steered or queued texts not yet shown delivered
	// steering and followUp are the queued prompts, as queue_update
	// last listed them.
	steering, followUp []string
	later              []string // lines typed ahead
	holding            bool     // keys go to the prompt after the run
	// deferred are the lines entered while a reply streams, from the
	// first /command on: decided when the reply ends (replyEnded).
	deferred []edAction
	// ahead: a line was typed ahead because the run's final reply had
	// ended; the lines after it follow it.
	ahead bool
	// stash holds keys typed while a dialog took the terminal, before
	// its question was asked: the editor's, taken after the dialog
	// (stashMu; closed once the editor has ended).
	stashMu sync.Mutex
	stash   []byte
	closed  bool
	// acting is held while keys are taken and their actions run, and
	// while the run's end or a reply's end settles them: taken before
	// the terminal's mutex.
	acting sync.Mutex
}

// Editor actions run once the terminal's mutex is released (they take
// other locks, and the runtime publishes queue_update synchronously).
type edAction struct {
	kind string // steer, followUp, command, ahead (typed ahead), takeBack, stop, hold (keys)
	text string // the line's text (hold: the keys)
	line string // the line as typed (markers not decoded), to type it ahead
}

// keysOf are the keys that type a's line ahead.
func (a edAction) keysOf() []byte {
	if a.kind == "hold" {
		return []byte(a.text)
	}
	return []byte(a.line + "\r")
}

// visible reports whether the editor has lines to draw (nil-safe).
func (e *runEditor) visible() bool {
	return e != nil && e.active && (len(e.buf) > 0 || len(e.steering)+len(e.followUp)+len(e.later)+len(e.deferred) > 0)
}

// begin routes keys to the editor for the run that starts.
func (e *runEditor) begin() {
	t := e.r.term
	if t.filter == nil || !t.ttyErr {
		return // no line editing, or no live area to draw it in
	}
	t.mu.Lock()
	e.active, e.buf, e.cur, e.carry, e.holding, e.ahead, e.choices = true, nil, 0, nil, false, false, nil
	e.steering, e.followUp, e.later, e.deferred = nil, nil, nil, nil
	e.sent = map[string]int{}
	t.mu.Unlock()
	e.stashMu.Lock()
	e.stash, e.closed = nil, false
	e.stashMu.Unlock()
	t.filter.setRunKeys(e.keys)
}

// end stops routing keys to the editor: the lines still waiting for a
// reply's end and then its text become the next prompt's (keys held as
// type-ahead), unless the run was stopped (Ctrl+C and Esc discard what
// was typed, as a shell does).
func (e *runEditor) end(stopped bool) {
	t := e.r.term
	if t.filter == nil {
		return
	}
	// After the actions of keys taken before (a line typed ahead as the
	// run ended is held before the text after it); the text is held
	// before keys stop coming to the editor: a key that arrives
	// meanwhile finds it inactive and is held after it.
	e.acting.Lock()
	t.mu.Lock()
	if e.active {
		e.active = false
		text, deferred := string(e.buf), e.deferred
		e.buf, e.cur, e.choices, e.steering, e.followUp, e.later, e.deferred = nil, 0, nil, nil, nil, nil, nil
		e.r.view.hideLive()
		if !stopped {
			for _, a := range deferred {
				t.filter.holdKeys(a.keysOf())
			}
			if text != "" {
				t.filter.holdKeys([]byte(text))
			}
		}
	}
	e.stashMu.Lock()
	if !stopped && len(e.stash) > 0 {
		t.filter.holdKeys(e.stash)
	}
	e.stash, e.closed = nil, true
	e.stashMu.Unlock()
	t.mu.Unlock()
	e.acting.Unlock()
	t.filter.setRunKeys(nil)
}

// stashKeys keeps keys that arrive while a dialog takes the terminal,
// before its question reads keys: typed before it asked, they are not
// its answer; the editor takes them after it. False once the editor
// has ended (they are held for the prompt).
func (e *runEditor) stashKeys(b []byte) bool {
	e.stashMu.Lock()
	defer e.stashMu.Unlock()
	if e.closed {
		return false
	}
	e.stash = append(e.stash, b...)
	return true
}

// flushStash gives the editor the keys stashed during a dialog (after
// it, the terminal released).
func (e *runEditor) flushStash() {
	e.stashMu.Lock()
	n := len(e.stash)
	e.stashMu.Unlock()
	if n > 0 {
		e.keys(nil)
	}
}

// keys takes keys typed during the run; false when the editor is not
// active (they are held for the next prompt).
func (e *runEditor) keys(b []byte) bool {
	t := e.r.term
	// A dialog holds the terminal while it asks, and reads keys once
	// its question is up (a line prompt's, or a picker's diverted
	// keys): waiting for a mutex then (the terminal's, or acting, held
	// by an end waiting for the terminal) would keep the keys from it.
	asking := func() bool { return t.prompting.Load() || t.dialogs.Load() > 0 }
	for !e.acting.TryLock() {
		if asking() {
			return e.stashKeys(b)
		}
		time.Sleep(time.Millisecond)
	}
	defer e.acting.Unlock()
	for !t.mu.TryLock() {
		if asking() {
			return e.stashKeys(b)
		}
		time.Sleep(time.Millisecond)
	}
	if !e.active {
		t.mu.Unlock()
		return false
	}
	e.stashMu.Lock()
	b = append(append(e.carry, e.stash...), b...)
	e.stash = nil
	e.stashMu.Unlock()
	e.carry = nil
	var acts []edAction
	for len(b) > 0 {
		if e.holding {
			acts = append(acts, edAction{kind: "hold", text: string(b)})
			break
		}
		n, act := e.key(b)
		if e.holding {
			continue // the hold above takes b
		}
		if n == 0 {
			e.carry = append([]byte(nil), b...)
			break
		}
		switch {
		case act.kind == "":
		case len(e.deferred) > 0 && act.kind != "stop" && act.kind != "takeBack":
			e.deferred = append(e.deferred, act) // in order behind them
		default:
			acts = append(acts, act)
		}
		b = b[n:]
	}
	e.r.view.drawLive()
	t.mu.Unlock()
	// In order, and done before end holds the editor's text (it waits
	// for acting): a prompt steered as the run ends reaches the
	// runtime's queue before the REPL looks at it.
	for _, a := range acts {
		e.do(a)
	}
	return true
}

// replyEnded decides the lines entered while the reply m streamed (on
// the loop's goroutine, after the runtime knew whether the run goes on):
// commands and prompts act on the run if it still accepts input, else
// they are typed ahead; after a stopped reply they go with it.
func (e *runEditor) replyEnded(m *session.Message) {
	if e == nil || e.r.term.filter == nil {
		return
	}
	t := e.r.term
	e.acting.Lock()
	defer e.acting.Unlock()
	t.mu.Lock()
	acts := e.deferred
	e.deferred = nil
	if len(acts) > 0 {
		e.r.view.drawLive()
	}
	t.mu.Unlock()
	if m.StopReason == session.StopAborted {
		return
	}
	for _, a := range acts {
		e.do(a)
	}
}

// key handles the key at the start of b and returns its length (0: an
// incomplete sequence).
func (e *runEditor) key(b []byte) (int, edAction) {
	e.choices = nil
	switch c := b[0]; {
	case c == '\r' || c == '\n':
		return 1, e.submit("steer")
	case c == 0x04 && len(e.buf) == 0:
		// Ctrl+D on an empty line: quit once the run is over, as
		// before the editor took keys.
		return 1, edAction{kind: "hold", text: "\x04"}
	case c == 0x1b:
		n, act := e.escape(b)
		if act.kind == "stop" {
			e.deferred = nil // what was typed goes with the run
		}
		return n, act
	case e.editKey(c):
		return 1, edAction{}
	case c < 0x20 && len(e.buf) == 0:
		// A key of the prompt's (Ctrl+R, …): it and the keys after it
		// go to the prompt after the run, as they did before the
		// editor took keys.
		e.holding = true
		return 0, edAction{}
	case c < 0x20:
		return 1, edAction{} // other control keys do nothing here
	}
	if !utf8.FullRune(b) {
		return 0, edAction{}
	}
	r, n := utf8.DecodeRune(b)
	if r != utf8.RuneError || n > 1 {
		e.insert(r)
	}
	return n, edAction{}
}

// escape handles a key that starts with ESC: Alt+Enter, Up, Alt+Up, a
// cursor or editing key (repl_runline.go), or Esc itself (an ESC alone
// in its read).
func (e *runEditor) escape(b []byte) (int, edAction) {
	if len(b) == 1 {
		e.setLine(nil)
		return 1, edAction{kind: "stop"}
	}
	switch b[1] {
	case '\r', '\n':
		return 2, e.submit("followUp")
	case '[', 'O':
		// A CSI or SS3 sequence: parameters, then a final byte.
		i := 2
		for i < len(b) && (b[i] < 0x40 || b[i] > 0x7e) {
			i++
		}
		if i == len(b) {
			return 0, edAction{}
		}
		seq := string(b[:i+1])
		if seq == "\x1b[A" || seq == "\x1bOA" || seq == "\x1b[1;3A" {
			return i + 1, edAction{kind: "takeBack"}
		}
		e.editSeq(seq)
		return i + 1, edAction{}
	case 0x1b: // Alt+key as ESC ESC key (Alt+Up in some terminals)
		n, act := e.escape(b[1:])
		if n == 0 {
			return 0, act
		}
		return n + 1, act
	}
	e.editSeq(string(b[:2])) // Alt+key: a word key, or nothing
	return 2, edAction{}
}

// submit takes the editor's text: a prompt for the queue, a /command,
// or a line typed ahead for the prompt after the run (a !command, /quit,
// /expand, a line continued with a backslash). A /command entered while
// a reply streams, and every line after it, waits for the reply's end.
func (e *runEditor) submit(kind string) edAction {
	line := string(e.buf)
	text := e.r.term.decode(line)
	e.setLine(nil)
	t := strings.TrimSpace(text)
	var a edAction
	switch {
	case t == "":
		return edAction{}
	case strings.HasPrefix(t, "!") || strings.HasSuffix(text, "\\") || isCommand(t) && replOnlyCommand(t):
		a = edAction{kind: "ahead", text: text, line: line}
	case isCommand(t):
		a = edAction{kind: "command", text: t, line: line}
	default:
		a = edAction{kind: kind, text: t, line: line} // trimmed, as a prompt is
	}
	if len(e.deferred) > 0 || a.kind == "command" && e.r.view.replying {
		e.deferred = append(e.deferred, a)
		return edAction{}
	}
	return a
}

// typeAhead holds a's line for the prompt after the run and lists it
// (terminal mutex not held); final: because the run's final reply had
// ended, so the lines after it follow it.
func (e *runEditor) typeAhead(a edAction, final bool) {
	t := e.r.term
	t.mu.Lock()
	defer t.mu.Unlock()
	t.filter.holdKeys(a.keysOf())
	e.ahead = e.ahead || final
	if e.active && a.kind != "hold" {
		e.later = append(e.later, a.text)
		e.r.view.drawLive()
	}
}

// accepting reports whether a line entered now acts on the run.
func (e *runEditor) accepting() bool {
	e.r.term.mu.Lock()
	ahead := e.ahead
	e.r.term.mu.Unlock()
	return !ahead && e.r.a.agentRuntime.Accepting()
}

// do runs an action (terminal mutex not held, acting held).
func (e *runEditor) do(a edAction) {
	r := e.r
	switch a.kind {
	case "steer", "followUp":
		full, images, _ := expandAttachments(a.text, r.a.cwd)
		r.term.mu.Lock()
		ok := !e.ahead
		if ok {
			e.sent[full]++ // before it can be delivered
		}
		r.term.mu.Unlock()
		if ok {
			if a.kind == "steer" {
				ok = r.a.agentRuntime.TrySteer(agent.SourceInteractive, full, images)
			} else {
				ok = r.a.agentRuntime.TryFollowUp(agent.SourceInteractive, full, images)
			}
		}
		if !ok {
			r.term.mu.Lock()
			if e.sent[full] > 0 {
				e.sent[full]--
			}
			r.term.mu.Unlock()
			e.typeAhead(a, true)
			return
		}
		r.term.addHistory(a.text)
	case "command":
		if !e.accepting() {
			e.typeAhead(a, true)
			return
		}
		r.term.addHistory(a.text)
		// In a goroutine of its own: a hook command may open a dialog,
		// which reads the keys this goroutine delivers.
		go r.commandWhileRunning(a.text)
	case "ahead", "hold":
		e.typeAhead(a, false)
	case "takeBack":
		r.term.mu.Lock()
		if n := len(e.deferred); n > 0 {
			// The newest line still waiting for the reply's end.
			last := e.deferred[n-1]
			e.deferred = e.deferred[:n-1]
			if last.kind != "hold" {
				e.putBack(last.text)
			}
			r.term.mu.Unlock()
			return
		}
		r.term.mu.Unlock()
		text, ok := r.a.agentRuntime.TakeBackLast()
		if !ok {
			return
		}
		r.term.mu.Lock()
		if e.sent[text] > 0 {
			e.sent[text]-- // never to be shown delivered
		}
		e.putBack(text)
		r.term.mu.Unlock()
	case "stop":
		r.stopRunning()
		r.term.filter.discard()
	}
}

// putBack puts text taken back into the editor, before what it holds
// (terminal mutex held).
func (e *runEditor) putBack(text string) {
	if !e.active {
		return
	}
	back := []rune(encodeMarkers(text))
	cur := len(back)
	if len(e.buf) > 0 {
		back = append(append(back, newlineMarker), e.buf...)
	}
	e.buf, e.cur = back, cur
	e.r.view.drawLive()
}

// queueUpdate shows the queue as queue_update lists it, after the
// prompts typed during the run that left it for the conversation.
func (v *view) queueUpdate(q *agent.QueueUpdate) {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	if v.ed == nil || !v.ed.active {
		return
	}
	for _, text := range q.Delivered {
		v.delivered(text)
	}
	v.ed.steering, v.ed.followUp = q.Steering, q.FollowUp
	v.drawLive()
}

// delivered shows a prompt typed during the run when the runtime takes
// it into the conversation, as it was typed (the chat.message hooks may
// change what is sent); a delivered prompt the user did not type (a
// hook's) is not shown (terminal mutex held).
func (v *view) delivered(text string) {
	e := v.ed
	if e == nil || e.sent[text] == 0 {
		return
	}
	e.sent[text]--
	v.startSection("note")
	v.write(v.t.paint(ansiDim, truncateRunes("> "+oneLine(text), v.t.columns()-1)) + "\n")
	v.section = ""
}

// editorLines are the editor's lines of the live area: the queued
// prompts (dim), Tab's choices and the line being typed; col is the
// cursor's column on the last line when it is not at the line's end
// (else -1).
func (v *view) editorLines(width int) (lines []string, col int) {
	e := v.ed
	if !e.visible() {
		return nil, -1
	}
	for _, s := range e.steering {
		lines = append(lines, v.t.paint(ansiDim, truncateRunes("Steering: "+oneLine(s), width)))
	}
	for _, s := range e.followUp {
		lines = append(lines, v.t.paint(ansiDim, truncateRunes("Follow-up: "+oneLine(s), width)))
	}
	for _, s := range e.later {
		lines = append(lines, v.t.paint(ansiDim, truncateRunes("After the reply: "+oneLine(s), width)))
	}
	for _, a := range e.deferred {
		if a.kind != "hold" {
			lines = append(lines, v.t.paint(ansiDim, truncateRunes("When this reply ends: "+oneLine(a.text), width)))
		}
	}
	if len(e.choices) > 0 {
		shown := make([]string, len(e.choices))
		for i, c := range e.choices {
			shown[i] = strings.TrimSpace(c)
		}
		lines = append(lines, v.t.paint(ansiDim, truncateRunes(strings.Join(shown, "  "), width)))
	}
	col = -1
	if len(e.buf) > 0 {
		// The part of the text around the cursor.
		text, before := e.window(width - 2)
		lines = append(lines, v.t.paint(ansiCyan, "› ")+cleanForTerminal(text))
		if e.cur < len(e.buf) {
			col = 2 + before
		}
	}
	return lines, col
}
