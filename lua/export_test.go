package lua

import "time"

// The package's tests check the locks functions say their callers hold
// (mustHold).
func init() { checkLocks = true }

// Settled waits until no hook is still running a call lunar stopped
// waiting for (on a loaded machine a stopped call may outlast the grace
// period, and the next call would find its hook busy). Tests use it to
// make a sequence of timeouts deterministic.
func (r *Runtime) Settled() {
	for _, h := range r.hooks {
		for h.stuck.Load() {
			time.Sleep(time.Millisecond)
		}
	}
}
