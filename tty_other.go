//go:build !unix

package main

// readCtrlCAsKey does nothing where there are no termios: the console
// delivers Ctrl+C as an interrupt, which the REPL handles as well.
func readCtrlCAsKey(int) {}
