package lua

// Misspelled keys of the tables hooks pass to lunar.command and
// lunar.tool: a key the API does not know is a warning naming the
// nearest known one, so `descripton = …` does not pass silently.

import (
	"slices"
	"strings"

	glua "github.com/yuin/gopher-lua"
)

// Known keys of the spec tables.
var (
	commandSpecKeys = []string{"description", "handler"}
	toolSpecKeys    = []string{"name", "description", "parameters", "execute"}
)

// warnUnknownKeys warns, at the caller's line, about each string key of
// t outside known (in a fixed order), with the nearest known key.
func (h *hook) warnUnknownKeys(L *glua.LState, t *glua.LTable, what string, known []string) {
	var unknown []string
	t.ForEach(func(k, _ glua.LValue) {
		if s, ok := k.(glua.LString); ok && !slices.Contains(known, string(s)) {
			unknown = append(unknown, string(s))
		}
	})
	slices.Sort(unknown)
	for _, k := range unknown {
		best := closest(k, known)
		if EditDistance(k, best) <= max(2, len(k)/3) {
			h.warn("%s: %s: unknown key %q (did you mean %q?)", where(L), what, k, best)
			continue
		}
		h.warn("%s: %s: unknown key %q (known: %s)", where(L), what, k, strings.Join(known, ", "))
	}
}
