package main

// The live area under the REPL's output while a run works: a spinner
// line ("⠋ bash 3s"), above it a running bash command's last output
// lines; while an answer streams, the line that is not complete yet
// (dim, provisional) and "…" when a table is held back or "waiting"
// when the stream stalls. Output above it is whole lines (see
// session/export/ansi's Stream), so the area is erased, the lines
// written, and the area drawn again below them: nothing already written
// is ever redrawn. It is drawn on stderr, and only when stderr is a
// terminal.

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"
)

// Live area timing.
const (
	spinnerTick = 100 * time.Millisecond
	// stallAfter is how long a stream that began to show text may
	// bring nothing before the live area says it is waiting.
	stallAfter = 2 * time.Second
	// tailLines bounds a running bash command's output shown live.
	tailLines = 5
)

// spinner animates the live area until stopped. Its fields are guarded
// by the terminal's mutex.
type spinner struct {
	label   string
	start   time.Time
	quiet   bool // shown only when a stream stalls or holds a table back
	stopped bool
	stop    chan struct{}
	frame   int
}

var spinFrames = []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

// startSpinner shows the spinner (terminal mutex held; stdout line closed).
func (v *view) startSpinner(label string) {
	v.resumeSpinner(label, time.Now())
}

// startQuiet starts a spinner that stays hidden while the text streams.
func (v *view) startQuiet() {
	v.stopSpinner()
	v.resumeSpinner("", time.Now())
	if v.spin != nil {
		v.spin.quiet = true
	}
}

// resumeSpinner shows the spinner counting from start.
func (v *view) resumeSpinner(label string, start time.Time) {
	if !v.t.ttyErr || v.spin != nil {
		return
	}
	s := &spinner{label: label, start: start, stop: make(chan struct{})}
	v.spin = s
	go func() {
		tick := time.NewTicker(spinnerTick)
		defer tick.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-tick.C:
			}
			v.t.mu.Lock()
			if !s.stopped {
				s.frame++
				v.drawLive()
			}
			v.t.mu.Unlock()
		}
	}()
}

// stopSpinner removes the spinner and the live area (terminal mutex
// held).
func (v *view) stopSpinner() {
	if v.spin == nil {
		return
	}
	v.hideLive()
	v.spin.stopped = true
	close(v.spin.stop)
	v.spin = nil
}

// hideLive erases the live area (terminal mutex held); the spinner's
// next frame draws it again.
func (v *view) hideLive() {
	if !v.liveShown {
		return
	}
	up := ""
	if v.liveRows > 0 {
		up = fmt.Sprintf("\x1b[%dA", v.liveRows)
	}
	io.WriteString(v.t.stderr, "\r"+up+"\x1b[J")
	v.liveShown = false
}

// drawLive draws the live area afresh (terminal mutex held).
func (v *view) drawLive() {
	s := v.spin
	if v.open || !v.t.ttyErr {
		return // nothing can go below a line that is not finished
	}
	width := v.t.columns() - 1
	var lines []string
	if s == nil {
		lines, col := v.editorLines(width)
		v.hideLive()
		v.showLive(lines, col)
		return
	}
	for _, l := range v.tail {
		lines = append(lines, v.t.paint(ansiDim, "  "+truncateRunes(l, width-2)))
	}
	label, since := s.label, s.start
	if s.quiet {
		if v.text != nil {
			if p := v.text.Pending(); p != "" {
				lines = append(lines, v.t.paint(ansiDim, lastColumns(p, width)))
			}
		}
		switch {
		case v.text != nil && v.text.Held():
			label = "…"
		case !v.lastDelta.IsZero() && time.Since(v.lastDelta) >= stallAfter:
			label, since = "waiting for the model", v.lastDelta
		default:
			label = ""
		}
	}
	if label != "" {
		line := fmt.Sprintf("%c %s %ds", spinFrames[s.frame%len(spinFrames)], label, int(time.Since(since).Seconds()))
		lines = append(lines, v.t.paint(ansiDim, truncateRunes(line, width)))
	}
	ed, col := v.editorLines(width)
	lines = append(lines, ed...)
	v.hideLive()
	v.showLive(lines, col)
}

// showLive writes the live area's lines (erased before) and, col >= 0,
// puts the cursor in that column of the last one (the run editor's
// cursor; the area is erased from the start of its row).
func (v *view) showLive(lines []string, col int) {
	if len(lines) == 0 {
		return
	}
	s := strings.Join(lines, "\n")
	if col >= 0 {
		s += "\r" // from the row's start: CSI C is a move the screen writer lets through
		if col > 0 {
			s += fmt.Sprintf("\x1b[%dC", col)
		}
	}
	io.WriteString(v.t.stderr, s)
	v.liveRows, v.liveShown = len(lines)-1, true
}

// lastColumns is the end of s that fits in width columns.
func lastColumns(s string, width int) string {
	r := []rune(s)
	w := 0
	for i := len(r) - 1; i >= 0; i-- {
		w += runewidth.RuneWidth(r[i])
		if w > width {
			return string(r[i+1:])
		}
	}
	return s
}

// showTail takes a running bash command's output so far: its last lines
// are shown above the spinner.
func (v *view) showTail(text string) {
	lines := strings.Split(strings.TrimRight(cleanForTerminal(text), "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		lines = nil
	}
	v.tail = lines[max(len(lines)-tailLines, 0):]
	v.drawLive()
}
