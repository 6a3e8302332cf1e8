//go:build unix

package agent

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system, all threads, the garbage
// collector's included) the process has used: on a shared machine it
// measures the work better than the wall clock does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
