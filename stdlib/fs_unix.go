//go:build unix

package stdlib

import "syscall"

// openNoBlock makes opening a FIFO return at once (fs.read then refuses
// it as not a regular file) instead of waiting for a writer.
const openNoBlock = syscall.O_NONBLOCK
