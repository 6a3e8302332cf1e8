//go:build !unix

package main

import (
	"io"
	"os"
)

// readCtrlCAsKey does nothing where there are no termios: the console
// delivers Ctrl+C as an interrupt, which the REPL handles as well.
func readCtrlCAsKey(int) {}

// pausableInput is the keyboard as it is where there is no poll: an
// editor run from the REPL shares the console's input with the filter.
type pausableInput struct{ io.Reader }

func newPausableInput(f *os.File) io.Reader { return f }

func (*pausableInput) pause()  {}
func (*pausableInput) resume() {}

// pendingInput is 0: the console gives no count.
func pendingInput(int) int { return 0 }
