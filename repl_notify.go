package main

// Desktop notifications for hooks (ctx.ui.notify{desktop = true}): the
// terminal escape that asks the terminal to raise one, built from
// sanitised text so that nothing a hook passes on (model output, file
// names) can smuggle in escapes of its own.

import (
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/lunar-cli/lunar/session/export/ansi"
)

// Longest title and body sent to the terminal, in characters.
const (
	notifyTitleMax = 64
	notifyBodyMax  = 256
)

// DesktopNotify asks the terminal for a desktop notification; it reports
// whether one was sent (stdout is a terminal that takes escapes).
func (u *replUI) DesktopNotify(title, body string) bool {
	t := u.r.view.t
	if !t.ttyOut {
		return false
	}
	// The screen's backstop (ansi.Writer) shows every escape lunar does
	// not draw with, this one too: the sequence, built from sanitised
	// text, goes to the terminal file itself.
	var w io.Writer
	switch s := t.stdout.(type) {
	case *screen:
		if s.f != nil {
			w = s.f
		}
	case *os.File:
		w = s
	}
	if w == nil {
		return false
	}
	seq := desktopNotifySeq(title, body, os.Getenv)
	t.mu.Lock()
	defer t.mu.Unlock()
	// An OSC sequence moves nothing on screen: the line being written
	// (a reply, the spinner) goes on where it was.
	_, err := io.WriteString(w, seq)
	return err == nil
}

// desktopNotifySeq is the escape sequence for a notification in the
// terminal getenv describes: OSC 99 for kitty (as pi's notify example),
// OSC 777 for the terminals known to take it (Ghostty, WezTerm, foot,
// rxvt-unicode, iTerm2, VTE-based ones), and OSC 9 (text only) for the
// others (Windows Terminal, ConEmu, Konsole, ...).
func desktopNotifySeq(title, body string, getenv func(string) string) string {
	title, body = notifyText(title, notifyTitleMax), notifyText(body, notifyBodyMax)
	if title == "" {
		title = "lunar"
	}
	prog, term := getenv("TERM_PROGRAM"), getenv("TERM")
	switch {
	case getenv("KITTY_WINDOW_ID") != "" || strings.HasPrefix(term, "xterm-kitty"):
		return "\x1b]99;i=1:d=0;" + title + "\x1b\\" + "\x1b]99;i=1:p=body;" + body + "\x1b\\"
	case prog == "ghostty", prog == "WezTerm", prog == "iTerm.app", getenv("VTE_VERSION") != "",
		strings.HasPrefix(term, "foot"), strings.HasPrefix(term, "rxvt"):
		// The title is a field of its own: a ';' in it would end it.
		return "\x1b]777;notify;" + strings.ReplaceAll(title, ";", ",") + ";" + body + "\x07"
	default:
		text := title + ": " + body
		if body == "" {
			text = title
		}
		return "\x1b]9;" + text + "\x07"
	}
}

// notifyText is s made safe inside an OSC string, on one line, at most
// max characters: control characters shown escaped (ansi.Sanitize, so an
// ESC, a BEL or a C1 ST can never end the sequence early or start
// another), newlines and tabs as spaces.
func notifyText(s string, max int) string {
	s = ansi.Sanitize(s)
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max-1]) + "…"
	}
	return s
}
