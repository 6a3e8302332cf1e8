//go:build unix

package main

import "golang.org/x/sys/unix"

// readCtrlCAsKey turns the terminal's signal keys off (ISIG) so Ctrl+C
// arrives as a key the input filter routes, instead of a SIGINT.
func readCtrlCAsKey(fd int) {
	if tio, err := unix.IoctlGetTermios(fd, ioctlGetTermios); err == nil {
		tio.Lflag &^= unix.ISIG
		unix.IoctlSetTermios(fd, ioctlSetTermios, tio)
	}
}
