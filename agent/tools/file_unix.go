//go:build unix

package tools

import "syscall"

// openNoBlock makes opening a FIFO return at once instead of waiting for
// the other end; it changes nothing for regular files.
const openNoBlock = syscall.O_NONBLOCK
