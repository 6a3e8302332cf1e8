// Rendering helpers shared by the one-shot printer and the REPL.
package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// toolCallSummary renders a tool call as one line: `bash  ls -la`.
func toolCallSummary(name string, args json.RawMessage) string {
	var m map[string]any
	_ = json.Unmarshal(args, &m)
	str := func(k string) string {
		if v, ok := m[k].(string); ok {
			return v
		}
		return ""
	}
	var detail string
	switch name {
	case "bash":
		detail = str("command")
	case "read":
		detail = str("path")
		if off, ok := m["offset"].(float64); ok {
			detail += fmt.Sprintf(":%d", int(off))
		}
	case "write":
		detail = fmt.Sprintf("%s (%d bytes)", str("path"), len(str("content")))
	case "edit":
		n := 1
		if e, ok := m["edits"].([]any); ok {
			n = len(e)
		}
		detail = fmt.Sprintf("%s (%d edit%s)", str("path"), n, plural(n))
	default:
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			b, _ := json.Marshal(m[k])
			parts = append(parts, k+"="+string(b))
		}
		detail = strings.Join(parts, " ")
	}
	return name + "  " + firstLine(detail, 120)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
