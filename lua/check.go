package lua

// This file implements `lunar hooks check FILE`: load one hook in
// isolation (no session, no UI, no other hooks) and list its problems.

import "time"

// Check loads file alone, with a NopHost, and reports what it registers
// and its problems: syntax and load errors (Errors), unknown event names,
// shadowed or duplicate commands and bad tool schemas (Warnings). The
// file's main chunk runs, as on a real load, under timeout (0: the
// default). The error is for a file that cannot be read.
func Check(file string, timeout time.Duration) (HookReport, error) {
	src, err := FileSource(file, OriginCLI)
	if err != nil {
		return HookReport{}, err
	}
	r := newRuntime(Options{Timeout: timeout, Report: func(string) {}})
	defer r.Close()
	r.loadHook(src)
	r.rebuild()
	rep := r.Report()[0]
	return rep, nil
}
