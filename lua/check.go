package lua

// This file implements `lunar hooks check FILE`: load one hook in
// isolation (no session, no UI, no other hooks) and list its problems.

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Check loads file alone, with a NopHost, and reports what it registers
// and its problems: syntax and load errors (Errors), unknown event names,
// misspelled keys of lunar.command and lunar.tool tables, commands that
// shadow one of builtins and bad tool schemas (Warnings). A load error
// that comes from a module the sandbox leaves out (io, debug) says so and
// what to use instead. The file's main chunk runs, as on a real load,
// under the default hook timeout. The error is for a file that cannot be
// read.
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
	for i, e := range rep.Errors {
		rep.Errors[i] = explainMissingModule(e, file)
	}
	return rep, nil
}

// missingModules are the standard Lua modules hooks do not have, with
// what to use instead (missingModuleOnLine looks for them in this order).
var missingModules = map[string]string{
	"io":    "use fs",
	"debug": "hooks cannot inspect the interpreter",
}

var (
	moduleNotFound = regexp.MustCompile(`module (\w+) not found`)
	nilIndexAt     = regexp.MustCompile(`^[^:]+:(\d+): attempt to index a non-table object\(nil\) with key`)
)

// explainMissingModule adds to a load error caused by a missing module
// ("module io not found", or indexing the nil global io on that line)
// that the module is not available in hooks and what to use instead.
func explainMissingModule(msg, file string) string {
	name := ""
	if m := moduleNotFound.FindStringSubmatch(msg); m != nil {
		name = m[1]
	} else if m := nilIndexAt.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		name = missingModuleOnLine(file, n)
	}
	hint, ok := missingModules[name]
	if !ok {
		return msg
	}
	first, _, _ := strings.Cut(msg, "\n")
	return fmt.Sprintf("%s: `%s` is not available in hooks (%s)", strings.TrimRight(first, ": "), name, hint)
}

// missingModuleOnLine is the missing module that line n of file indexes
// (io.open), or "".
func missingModuleOnLine(file string, n int) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	for _, name := range []string{"io", "debug"} {
		if regexp.MustCompile(`(^|[^\w.])` + name + `\s*[.:\[]`).MatchString(lines[n-1]) {
			return name
		}
	}
	return ""
}
