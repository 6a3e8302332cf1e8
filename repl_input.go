package main

// The REPL's input filter, between the keyboard and liner: Ctrl+C read
// as a key and counted, bracketed pastes turned into text a liner line
// can hold (stand-ins for newlines and tabs, placeholders for pastes of
// several lines), keys held back as type-ahead while no prompt reads, or
// given to the in-run editor (repl_typeahead.go) or a picker
// (repl_picker.go).

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
)

// Runes that stand for what a liner line cannot hold. liner edits a single
// line and treats a newline as Enter and a tab as completion, so pasted
// newlines and tabs travel through it as these visible stand-ins and are
// turned back on submit.
const (
	newlineMarker = '␤'
	tabMarker     = '␉'
)

// Bracketed paste (xterm): the terminal wraps pasted text in these.
const (
	pasteStart   = "\x1b[200~"
	pasteEnd     = "\x1b[201~"
	pasteModeOn  = "\x1b[?2004h"
	pasteModeOff = "\x1b[?2004l"
)

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
