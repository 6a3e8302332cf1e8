package main

// Keys of the REPL's line editor that liner does not have: Ctrl+J and
// Shift+Enter insert a newline, Ctrl+P cycles the models. The input
// filter (repl.go) turns them into what liner can edit, or into a
// returned prompt that the REPL acts on and then shows again.

import (
	"bytes"
	"context"
	"errors"
)

// ctrlP is Ctrl+P (pi's key to cycle the models).
const ctrlP = 0x10

// errCycleModel is returned by the main prompt left with Ctrl+P; the line
// typed so far comes with it.
var errCycleModel = errors.New("cycle model")

// shiftEnter are the sequences terminals send for Shift+Enter where they
// report it: the kitty keyboard protocol's CSI u and xterm's
// modifyOtherKeys. Elsewhere Shift+Enter is Enter.
var shiftEnter = [][]byte{[]byte("\x1b[13;2u"), []byte("\x1b[27;2;13~")}

// newlineKeys turns Ctrl+J (a line feed: Enter sends a carriage return)
// and Shift+Enter into the newline stand-in liner edits as one character;
// submitting turns it back into a newline, as a trailing \ does.
func (f *inputFilter) newlineKeys(b []byte) []byte {
	if f.backlog > 0 {
		// Typed ahead before the terminal was raw: a line feed there was
		// Enter.
		n := min(f.backlog, len(b))
		f.backlog -= n
		return append(append([]byte(nil), b[:n]...), newlineKeys(b[n:])...)
	}
	return newlineKeys(b)
}

// newlineKeys is inputFilter.newlineKeys for keys typed on the raw
// terminal.
func newlineKeys(b []byte) []byte {
	marker := []byte(string(newlineMarker))
	for _, seq := range shiftEnter {
		if bytes.Contains(b, seq) {
			b = bytes.ReplaceAll(b, seq, marker)
		}
	}
	if bytes.IndexByte(b, '\n') >= 0 {
		b = bytes.ReplaceAll(b, []byte{'\n'}, marker)
	}
	return b
}

// atMainPrompt reports whether the REPL's own prompt reads the keys.
func (f *inputFilter) atMainPrompt() bool {
	f.holdMu.Lock()
	defer f.holdMu.Unlock()
	return f.open && f.main
}

// takeCycle reports whether the line just read ended with Ctrl+P.
func (f *inputFilter) takeCycle() bool {
	for {
		n := f.cycles.Load()
		if n <= 0 {
			return false
		}
		if f.cycles.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

// readLine reads a line at the main prompt; Ctrl+P there switches to the
// next model of the config's "models" and shows the prompt again with
// what was typed.
func (r *repl) readLine(prompt, prefill string) (string, error) {
	for {
		line, err := r.term.readLine(prompt, prefill)
		if !errors.Is(err, errCycleModel) {
			return line, err
		}
		r.report(r.interruptible(func(ctx context.Context) error { return r.cmdModel(ctx, "next") }))
		prefill = r.term.decode(line)
	}
}
