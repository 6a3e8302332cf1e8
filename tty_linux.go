package main

import "golang.org/x/sys/unix"

const (
	ioctlGetTermios = unix.TCGETS
	ioctlSetTermios = unix.TCSETS
)

// ioctlPendingInput asks how many bytes wait to be read.
const ioctlPendingInput = unix.TIOCINQ
