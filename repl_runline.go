package main

// Line editing in the in-run editor (repl_typeahead.go): the cursor and
// the keys that move it or edit at it, as liner's at the prompt (Left,
// Right, Home, End, Ctrl+A/E/B/F, Alt+B/F and Ctrl/Alt+arrows by words,
// Backspace, Delete, Ctrl+D, Ctrl+U/K/W, Alt+Backspace/D), Tab completion
// through the prompt's own completer (completeWord), and the window of
// the line that is drawn with the cursor in it. The editor's fields are
// guarded by the terminal's mutex.

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// editKey applies a cursor or editing key; false when c is none.
func (e *runEditor) editKey(c byte) bool {
	switch c {
	case 0x7f, 0x08: // Backspace, Ctrl+H
		e.cut(e.cur-1, e.cur)
	case 0x04: // Ctrl+D (on a line with text): delete at the cursor
		e.cut(e.cur, e.cur+1)
	case 0x15: // Ctrl+U: delete to the line's start
		e.cut(0, e.cur)
	case 0x0b: // Ctrl+K: delete to its end
		e.cut(e.cur, len(e.buf))
	case 0x17: // Ctrl+W: delete the word before the cursor
		e.cut(e.wordBack(), e.cur)
	case 0x01: // Ctrl+A
		e.cur = 0
	case 0x05: // Ctrl+E
		e.cur = len(e.buf)
	case 0x02: // Ctrl+B
		e.cur = max(e.cur-1, 0)
	case 0x06: // Ctrl+F
		e.cur = min(e.cur+1, len(e.buf))
	case '\t':
		e.complete()
	default:
		return false
	}
	return true
}

// editSeq applies a cursor or editing key sent as an escape sequence
// (ESC [ …, ESC O …, or Alt+key as ESC key); false when seq is none.
func (e *runEditor) editSeq(seq string) bool {
	switch seq {
	case "\x1b[D", "\x1bOD":
		e.cur = max(e.cur-1, 0)
	case "\x1b[C", "\x1bOC":
		e.cur = min(e.cur+1, len(e.buf))
	case "\x1b[H", "\x1bOH", "\x1b[1~", "\x1b[7~":
		e.cur = 0
	case "\x1b[F", "\x1bOF", "\x1b[4~", "\x1b[8~":
		e.cur = len(e.buf)
	case "\x1b[3~":
		e.cut(e.cur, e.cur+1)
	case "\x1bb", "\x1bB", "\x1b[1;5D", "\x1b[1;3D":
		e.cur = e.wordBack()
	case "\x1bf", "\x1bF", "\x1b[1;5C", "\x1b[1;3C":
		e.cur = e.wordForward()
	case "\x1b\x7f", "\x1b\x08": // Alt+Backspace
		e.cut(e.wordBack(), e.cur)
	case "\x1bd", "\x1bD":
		e.cut(e.cur, e.wordForward())
	default:
		return false
	}
	return true
}

// insert types r at the cursor.
func (e *runEditor) insert(r rune) {
	e.buf = slices.Insert(e.buf, e.cur, r)
	e.cur++
}

// cut deletes the runes from i to j (clamped to the line) and leaves the
// cursor where they were.
func (e *runEditor) cut(i, j int) {
	i, j = max(i, 0), min(j, len(e.buf))
	if i >= j {
		return
	}
	e.buf = slices.Delete(slices.Clone(e.buf), i, j)
	if e.cur > j {
		e.cur -= j - i
	} else if e.cur > i {
		e.cur = i
	}
}

// setLine replaces the line and puts the cursor at its end.
func (e *runEditor) setLine(buf []rune) {
	e.buf, e.cur = buf, len(buf)
}

// wordBack is where the word before the cursor starts (spaces before
// the cursor skipped first), as liner's Ctrl+W and Alt+B.
func (e *runEditor) wordBack() int {
	i := e.cur
	for i > 0 && unicode.IsSpace(e.buf[i-1]) {
		i--
	}
	for i > 0 && !unicode.IsSpace(e.buf[i-1]) {
		i--
	}
	return i
}

// wordForward is where the word at or after the cursor ends (Alt+F).
func (e *runEditor) wordForward() int {
	i := e.cur
	for i < len(e.buf) && unicode.IsSpace(e.buf[i]) {
		i++
	}
	for i < len(e.buf) && !unicode.IsSpace(e.buf[i]) {
		i++
	}
	return i
}

// complete is Tab: the prompt's completer (commands, their arguments,
// @paths) on the text before the cursor. One candidate is put in; of
// several, what they share, and when that adds nothing they are listed
// under the line until the next key.
func (e *runEditor) complete() {
	head, list, tail := e.r.completeWord(string(e.buf), e.cur)
	if len(list) == 0 {
		return
	}
	common := list[0]
	for _, c := range list[1:] {
		for !strings.HasPrefix(c, common) {
			_, size := utf8.DecodeLastRuneInString(common)
			common = common[:len(common)-size]
		}
	}
	before := []rune(head + common)
	if len(list) > 1 && len(before) <= e.cur {
		e.choices = list
		return
	}
	e.buf = append(before, []rune(tail)...)
	e.cur = len(before)
}

// window is the part of the line drawn in avail columns, with the cursor
// in it, and the columns from its start to the cursor.
func (e *runEditor) window(avail int) (text string, before int) {
	// at[i] is the columns of the runes before i.
	at := make([]int, len(e.buf)+1)
	for i, r := range e.buf {
		at[i+1] = at[i] + runewidth.RuneWidth(r)
	}
	start := 0
	for start < e.cur && at[e.cur]-at[start] > avail-1 { // a column for the cursor
		start++
	}
	end := e.cur
	for end < len(e.buf) && at[end+1]-at[start] <= avail {
		end++
	}
	return string(e.buf[start:end]), at[e.cur] - at[start]
}
