package lua

// This file implements `lunar hooks check FILE`: load one hook in
// isolation (no session, no UI, no other hooks) and list its problems.

// Check loads file alone, with a NopHost, and reports what it registers
// and its problems: syntax and load errors (Errors), unknown event names,
// commands that shadow one of builtins and bad tool schemas (Warnings). The file's main chunk
// runs, as on a real load, under the default hook timeout. The error is
// for a file that cannot be read.
func Check(file string, builtins []string) (HookReport, error) {
	src, err := FileSource(file, OriginCLI)
	if err != nil {
		return HookReport{}, err
	}
	r := newRuntime(Options{Report: func(string) {}, Builtins: builtins})
	defer r.Close()
	r.loadHook(src)
	r.rebuild()
	rep := r.Report()[0]
	return rep, nil
}
