// Typing while the agent works (issue #21): keys pressed during a run go
// to a one-line editor drawn at the bottom of the live area, below the
// streaming output and never mixed into it (the output is whole lines,
// so the editor line is erased, the lines written, and the editor drawn
// again). Enter steers the running agent (the text joins before its next
// model call), Alt+Enter queues a follow-up (for when it would stop),
// pi's keys; queued messages show as dim lines until delivered; Up or
// Alt+Up takes the newest queued message back into the editor; Esc stops
// the run as Ctrl+C does. A command (/…, !…) entered during the run is
// typed ahead: it runs at the prompt after the run. What is left in the editor when the run ends is
// the next prompt's text.
package main

import (
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/session"
)

// runEditor is the in-run editor. Its fields are guarded by the
// terminal's mutex.
type runEditor struct {
	r      *repl
	active bool
	buf    []rune
	carry  []byte         // the start of a key sequence split between reads
	sent   map[string]int // steered or queued texts not yet shown delivered
	// steering and followUp are the queued prompts, as queue_update
	// last listed them.
	steering, followUp []string
	later              []string // commands typed ahead
	holding            bool     // keys go to the prompt after the run
	// acting is held while the actions of keys run (see end).
	acting sync.Mutex
}

// Editor actions run once the terminal's mutex is released (they take
// other locks, and the runtime publishes queue_update synchronously).
type edAction struct {
	kind string // steer, followUp, takeBack, stop, hold
	text string
}

// visible reports whether the editor has lines to draw (nil-safe).
func (e *runEditor) visible() bool {
	return e != nil && e.active && (len(e.buf) > 0 || len(e.steering)+len(e.followUp)+len(e.later) > 0)
}

// begin routes keys to the editor for the run that starts.
func (e *runEditor) begin() {
	t := e.r.term
	if t.filter == nil || !t.ttyErr {
		return // no line editing, or no live area to draw it in
	}
	t.mu.Lock()
	e.active, e.buf, e.carry, e.holding = true, nil, nil, false
	e.steering, e.followUp, e.later = nil, nil, nil
	e.sent = map[string]int{}
	t.mu.Unlock()
	t.filter.setRunKeys(e.keys)
}

// end stops routing keys to the editor: its text becomes the next
// prompt's (keys held as type-ahead), unless the run was stopped (Ctrl+C
// and Esc discard what was typed, as a shell does).
func (e *runEditor) end(stopped bool) {
	t := e.r.term
	if t.filter == nil {
		return
	}
	// The editor's text is held before keys stop coming to it: a key
	// that arrives meanwhile finds it inactive and is held after it.
	t.mu.Lock()
	if e.active {
		e.active = false
		text := string(e.buf)
		e.buf, e.steering, e.followUp, e.later = nil, nil, nil, nil
		e.r.view.hideLive()
		if !stopped && text != "" {
			t.filter.holdKeys([]byte(text))
		}
	}
	t.mu.Unlock()
	t.filter.setRunKeys(nil)
	e.acting.Lock() // wait for the actions keys accepted before
	e.acting.Unlock()
}

// keys takes keys typed during the run; false when the editor is not
// active (they are held for the next prompt).
func (e *runEditor) keys(b []byte) bool {
	t := e.r.term
	// A dialog holds the terminal while it asks, and reads keys once
	// its prompt opens: waiting for the mutex then would keep the keys
	// from it.
	for !t.mu.TryLock() {
		if t.prompting.Load() {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	if !e.active {
		t.mu.Unlock()
		return false
	}
	b = append(e.carry, b...)
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
		if act.kind != "" {
			acts = append(acts, act)
		}
		b = b[n:]
	}
	for _, a := range acts {
		if a.kind == "hold" {
			// In order with the editor's text, which end holds too.
			t.filter.holdKeys([]byte(a.text))
		}
	}
	e.r.view.drawLive()
	// Actions accepted while the run was on are done before end
	// returns: a prompt steered as the run ends reaches the runtime's
	// queue before the REPL looks at it.
	e.acting.Lock()
	t.mu.Unlock()
	defer e.acting.Unlock()
	for _, a := range acts {
		e.do(a)
	}
	return true
}

// key handles the key at the start of b and returns its length (0: an
// incomplete sequence).
func (e *runEditor) key(b []byte) (int, edAction) {
	switch c := b[0]; {
	case c == '\r' || c == '\n':
		return 1, e.submit("steer")
	case c == 0x7f || c == 0x08:
		if len(e.buf) > 0 {
			e.buf = e.buf[:len(e.buf)-1]
		}
		return 1, edAction{}
	case c == 0x15: // Ctrl+U
		e.buf = nil
		return 1, edAction{}
	case c == 0x04 && len(e.buf) == 0:
		// Ctrl+D on an empty line: quit once the run is over, as
		// before the editor took keys.
		return 1, edAction{kind: "hold", text: "\x04"}
	case c == 0x1b:
		return e.escape(b)
	case c < 0x20 && len(e.buf) == 0:
		// A key of the prompt's (Ctrl+R, Tab, …): it and the keys after
		// it go to the prompt after the run, as they did before the
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
		e.buf = append(e.buf, r)
	}
	return n, edAction{}
}

// escape handles a key that starts with ESC: Alt+Enter, Up, Alt+Up, or
// Esc itself (an ESC alone in its read).
func (e *runEditor) escape(b []byte) (int, edAction) {
	if len(b) == 1 {
		e.buf = nil
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
		return i + 1, edAction{}
	case 0x1b: // Alt+key as ESC ESC key (Alt+Up in some terminals)
		n, act := e.escape(b[1:])
		if n == 0 {
			return 0, act
		}
		return n + 1, act
	}
	return 2, edAction{} // Alt+key: nothing
}

// submit takes the editor's text for the queue. A command (/…, !…) or a
// line continued with a backslash is not a message for the agent: it is
// typed ahead, for the prompt after the run.
func (e *runEditor) submit(kind string) edAction {
	line := string(e.buf)
	text := e.r.term.decode(line)
	e.buf = nil
	if strings.TrimSpace(text) == "" {
		return edAction{}
	}
	if t := strings.TrimSpace(text); isCommand(t) || strings.HasPrefix(t, "!") || strings.HasSuffix(text, "\\") {
		e.later = append(e.later, text)
		return edAction{kind: "hold", text: line + "\r"}
	}
	text = strings.TrimSpace(text) // as a prompt is
	e.sent[text]++
	return edAction{kind: kind, text: text}
}

// do runs an action (terminal mutex not held).
func (e *runEditor) do(a edAction) {
	r := e.r
	switch a.kind {
	case "steer", "followUp":
		r.term.addHistory(a.text)
		full, images, _ := expandAttachments(a.text, r.a.cwd)
		if full != a.text {
			r.term.mu.Lock()
			e.sent[a.text]--
			e.sent[full]++
			r.term.mu.Unlock()
		}
		if a.kind == "steer" {
			r.a.rt.Steer(full, images)
		} else {
			r.a.rt.FollowUp(full, images)
		}
	case "takeBack":
		text, ok := r.a.rt.TakeBackLast()
		if !ok {
			return
		}
		r.term.mu.Lock()
		if e.active {
			back := []rune(encodeMarkers(text))
			if len(e.buf) > 0 {
				back = append(append(back, newlineMarker), e.buf...)
			}
			e.buf = back
			e.r.view.drawLive()
		}
		r.term.mu.Unlock()
	case "stop":
		r.stopRunning()
		r.term.filter.discard()
	}
}

// queueUpdate shows the queue as queue_update lists it.
func (v *view) queueUpdate(q *agent.QueueUpdate) {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	if v.ed == nil || !v.ed.active {
		return
	}
	v.ed.steering, v.ed.followUp = q.Steering, q.FollowUp
	v.drawLive()
}

// delivered shows a prompt typed during the run when it joins the
// conversation (terminal mutex held); false for other user messages.
func (v *view) delivered(m *session.Message) bool {
	e := v.ed
	if e == nil || e.sent[m.Text()] == 0 {
		return false
	}
	e.sent[m.Text()]--
	v.startSection("note")
	v.write(v.t.paint(ansiDim, truncateRunes("> "+oneLine(m.Text()), v.t.columns()-1)) + "\n")
	v.section = ""
	return true
}

// editorLines are the editor's lines of the live area: the queued
// prompts (dim) and the line being typed.
func (v *view) editorLines(width int) []string {
	e := v.ed
	if !e.visible() {
		return nil
	}
	var lines []string
	for _, s := range e.steering {
		lines = append(lines, v.t.paint(ansiDim, truncateRunes("Steering: "+oneLine(s), width)))
	}
	for _, s := range e.followUp {
		lines = append(lines, v.t.paint(ansiDim, truncateRunes("Follow-up: "+oneLine(s), width)))
	}
	for _, s := range e.later {
		lines = append(lines, v.t.paint(ansiDim, truncateRunes("After the reply: "+oneLine(s), width)))
	}
	if len(e.buf) > 0 {
		// The end of the text, where the cursor is.
		text := lastColumns(string(e.buf), width-2)
		for runewidth.StringWidth(text) > width-2 {
			text = text[1:]
		}
		lines = append(lines, v.t.paint(ansiCyan, "› ")+cleanForTerminal(text))
	}
	return lines
}
