package main

import (
	"os"
	"runtime"
	"runtime/debug"
)

// startHeapPercent is the GOGC lunar starts with: the first garbage
// collection waits for an 8 MB heap (Go's own start is 4 MB) instead of
// 4 MB. A one-shot answer allocates about 2.6 MB in all, and each hook
// loaded adds ~23 KB (its Lua state, chunk and first calls): 30 trivial
// hooks took a run to 3.25 MB, past the first cycle's trigger, and that
// one collection (its mark workers, write barriers and the memory they
// touch) was most of what the hooks cost (+40 % wall against +13 %
// without it, 2,040 page faults against 1,690). The Go compiler starts
// with a larger heap for the same reason.
const startHeapPercent = 200

// deferFirstGC raises GOGC to startHeapPercent until the first collection
// has run, then puts back Go's default (100): a process whose start-up
// and first answer fit in 8 MB collects nothing, and one that goes on
// (the REPL, a long run) collects as usual from its first cycle on, so
// that at most ~4 MB more garbage waits than with the default. A GOGC
// the user set wins: then nothing changes.
func deferFirstGC() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	debug.SetGCPercent(startHeapPercent)
	// A cleanup runs once a collection found its object unreachable:
	// after the first cycle. The object holds a pointer, so that the
	// allocator does not batch it with live tiny objects (whose slot
	// would keep it, and the cleanup, from ever running).
	sentinel := &struct{ p *int }{}
	runtime.AddCleanup(sentinel, func(int) { debug.SetGCPercent(100) }, 0)
}
