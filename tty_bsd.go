//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package main

import "golang.org/x/sys/unix"

const (
	ioctlGetTermios = unix.TIOCGETA
	ioctlSetTermios = unix.TIOCSETA
)

// ioctlPendingInput asks how many bytes wait to be read (FIONREAD: _IOR('f', 127, int)).
const ioctlPendingInput = 0x4004667f
