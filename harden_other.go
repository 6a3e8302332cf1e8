//go:build !linux

// This file stands in for harden_linux.go where there is no
// PR_SET_DUMPABLE.

package main

// hardenProcess does nothing here.
func hardenProcess() {}
