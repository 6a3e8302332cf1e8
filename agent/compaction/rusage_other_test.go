//go:build !unix

package compaction

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
