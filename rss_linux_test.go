package main

import (
	"os"
	"syscall"
)

// peakRSS is the most memory an ended process held resident, in bytes (0:
// unknown).
func peakRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss << 10 // KiB on Linux
	}
	return 0
}
