package main

// Rendering helpers shared by the one-shot printer and the REPL.

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

// noColor reports whether NO_COLOR asks for no colours: rendered text
// keeps its attributes (bold, italic, underline, strikethrough, dim).
func noColor() bool { return os.Getenv("NO_COLOR") != "" }

// termSize is the size of the terminal w is (80×24 when unknown).
func termSize(w io.Writer) (cols, rows int) {
	if fd, ok := fdOf(w); ok {
		if c, r, err := term.GetSize(int(fd)); err == nil && c > 0 && r > 0 {
			return c, r
		}
	}
	return 80, 24
}

// screen is one of lunar's output streams, every write passing
// ansi.Writer: whatever a code path forgot to sanitise, only lunar's own
// styling and redraws reach the terminal as escape sequences. The
// writers still sanitise what they did not write before styling it
// (ansi.Sanitize), since text could otherwise use those few sequences.
type screen struct {
	f *os.File // for terminal queries (isTTY, termSize); nil when not a file
	w *ansi.Writer
}

// guardOutput wraps stdout when it is a terminal (to a pipe or a file the
// answer is the product, byte for byte) and stderr always (status lines
// for a person, whether on a terminal or in a log read later).
func guardOutput(stdout, stderr io.Writer) (io.Writer, io.Writer) {
	wrap := func(w io.Writer) io.Writer {
		f, _ := w.(*os.File)
		return &screen{f: f, w: ansi.NewWriter(w)}
	}
	if isTTY(stdout) {
		stdout = wrap(stdout)
	}
	return stdout, wrap(stderr)
}

func (s *screen) Write(p []byte) (int, error)       { return s.w.Write(p) }
func (s *screen) WriteString(t string) (int, error) { return s.w.WriteString(t) }

// fdOf is the file descriptor behind w: a file, or a screen on one.
func fdOf(w any) (uintptr, bool) {
	switch f := w.(type) {
	case *os.File:
		return f.Fd(), true
	case *screen:
		if f.f != nil {
			return f.f.Fd(), true
		}
	}
	return 0, false
}

// markdownStreams returns a constructor of streams that render answers
// written to the terminal w, or nil when they are not rendered.
func markdownStreams(w io.Writer, raw bool) func() *ansi.Stream {
	if !markdownOn(isTTY(w), raw) {
		return nil
	}
	return func() *ansi.Stream {
		o := ansi.StreamOptions{Options: ansi.Options{Color: true, NoColor: noColor()}, Size: func() (int, int) { return termSize(w) }}
		o.Width, _ = termSize(w)
		return ansi.NewStream(o)
	}
}

// toolCallSummary renders a tool call as one line: `bash  ls -la`,
// sanitised (the name and arguments are the model's).
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
	return ansi.Sanitize(name + "  " + firstLine(detail, 120))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
