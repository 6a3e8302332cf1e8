// This file hardens lunar's own process on Linux: its memory and
// /proc/<pid>/environ (which holds provider keys) are not readable by the
// commands it runs, though they run as the same user.

package main

import "golang.org/x/sys/unix"

// hardenProcess makes the process non-dumpable: /proc/<pid>/environ,
// mem and maps are then root's, and closed to the commands of a user
// who is not root. (Commands of root keep reading them on the kernel
// this was tested on, even without CAP_SYS_PTRACE, which agent/tools
// drops for them.) It also means no core dumps. A failure is ignored: the kernel always accepts
// the call, and there is nothing better to do without it.
func hardenProcess() {
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
