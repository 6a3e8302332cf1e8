//go:build !unix

package sessiontest

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
