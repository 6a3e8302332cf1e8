// Rendering helpers shared by the one-shot printer and the REPL.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"golang.org/x/term"

	"github.com/lunar-cli/lunar/session/export/ansi"
)

// markdownOn reports whether answers shown on a terminal are
// rendered: not with --raw, not on TERM=dumb. Elsewhere (a pipe, a
// file) they are always the model's text.
func markdownOn(tty, raw bool) bool {
	return tty && !raw && os.Getenv("TERM") != "dumb"
}

// termSize is the size of the terminal w is (80×24 when unknown).
func termSize(w io.Writer) (cols, rows int) {
	if f, ok := w.(*os.File); ok {
		if c, r, err := term.GetSize(int(f.Fd())); err == nil && c > 0 && r > 0 {
			return c, r
		}
	}
	return 80, 24
}

// markdownStreams returns a constructor of streams that render answers
// written to the terminal w, or nil when they are not rendered.
func markdownStreams(w io.Writer, raw bool) func() *ansi.Stream {
	if !markdownOn(isTTY(w), raw) {
		return nil
	}
	return func() *ansi.Stream {
		o := ansi.StreamOptions{Options: ansi.Options{Color: os.Getenv("NO_COLOR") == ""}, Size: func() (int, int) { return termSize(w) }}
		o.Width, o.Rows = termSize(w)
		return ansi.NewStream(o)
	}
}

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
