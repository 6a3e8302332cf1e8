package sessiontest

import "testing"

// CPUPerOp starts measuring the process's CPU time (user and system, all
// threads, the garbage collector's included: on a shared machine it
// measures the work better than the wall clock does). The function it
// returns reports the time since, per iteration of b, as "cpu-ns/op";
// where the CPU time is not measured it reports nothing.
func CPUPerOp(b *testing.B) (report func()) {
	start := cpuTime()
	return func() {
		if cpu := cpuTime() - start; cpu > 0 && b.N > 0 {
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
}
