package main

// The REPL's picker: a list to choose from with the arrow keys and
// Enter, filtered as the user types (words, an option's first letters,
// or its number), as pi's selectors are. Hook dialogs (ctx.ui.select, the
// permission question) and the commands that choose without an argument
// (/model, /resume, /branch, /pop) use it. Without line editing (not a
// terminal, TERM=dumb) the same list is numbered and answered on a line.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/session/export/ansi"
)

// pickSpec is one choice to make.
type pickSpec struct {
	title    string   // the question: first line bold, further lines as they are
	items    []string // what to choose from, one line each
	numbered bool     // items show their number, and a typed number picks one
	// initial is the item highlighted at first; -1 highlights none, and
	// Enter with nothing typed then answers no (errCancelled).
	initial int
}

// pickerRows bounds the items shown at once; the list scrolls.
const pickerRows = 10

// choose runs the picker for spec on t (t.mu held) and returns the index
// of the chosen item. Esc, or Enter with nothing highlighted, is
// errCancelled; Ctrl+D io.EOF; Ctrl+C errInterrupted.
func (t *terminal) choose(spec pickSpec) (int, error) {
	if len(spec.items) == 0 {
		return 0, errCancelled
	}
	var keys chan []byte
	if t.line != nil && t.filter != nil {
		// Before the question shows: a key typed once it is up is its
		// answer, never the in-run editor's.
		keys = make(chan []byte, 16)
		t.filter.divertTo(keys)
		defer t.filter.divertTo(nil)
	}
	if spec.title != "" {
		first, rest, _ := strings.Cut(spec.title, "\n")
		fmt.Fprintln(t.stdout, t.paint(ansiBold, oneLine(first)))
		if rest != "" {
			fmt.Fprintln(t.stdout, t.dialogDetail(rest)) // a diff coloured as the tool result's
		}
	}
	if keys == nil {
		return t.chooseOnLine(spec)
	}
	if t.filter.ended.Load() {
		return 0, io.EOF
	}
	fd := int(t.in.Fd())
	if st, err := term.MakeRaw(fd); err == nil {
		defer term.Restore(fd, st)
	}
	p := &picker{t: t, spec: spec, sel: spec.initial}
	p.refilter()
	p.sel = spec.initial
	p.draw()
	defer p.finish()
	for {
		select {
		case chunk, ok := <-keys:
			if !ok {
				return 0, io.EOF
			}
			// A key's sequence split across reads (an arrow's ESC
			// alone): its rest follows at once, as a lone Esc's does not.
			for cutSequence(chunk) {
				select {
				case more, ok := <-keys:
					if !ok {
						return 0, io.EOF
					}
					chunk = append(chunk, more...)
					continue
				case <-time.After(escWait):
				}
				break
			}
			if idx, err, done := p.keys(chunk); done {
				return idx, err
			}
			p.draw()
		case <-t.stopped:
			return 0, io.EOF
		}
	}
}

// divertTo sends the keyboard's bytes, unfiltered, to ch (nil: back to
// the prompts). The picker reads keys itself; keys typed before it opened
// stay held for the next prompt.
func (f *inputFilter) divertTo(ch chan []byte) {
	f.holdMu.Lock()
	f.divert = ch
	f.holdMu.Unlock()
}

// diverted is the channel keys are diverted to, if any.
func (f *inputFilter) diverted() chan []byte {
	f.holdMu.Lock()
	defer f.holdMu.Unlock()
	return f.divert
}

// escWait is how long an ESC alone waits for the rest of a key's
// sequence before it counts as the Esc key (as terminals' line editors
// wait).
const escWait = 50 * time.Millisecond

// cutSequence reports whether b ends inside an escape sequence: an ESC,
// or ESC [ / ESC O and parameters without the final byte.
func cutSequence(b []byte) bool {
	i := bytes.LastIndexByte(b, 0x1b)
	if i < 0 {
		return false
	}
	rest := b[i+1:]
	switch {
	case len(rest) == 0:
		return true
	case rest[0] != '[' && rest[0] != 'O':
		return false
	}
	for _, c := range rest[1:] {
		if c >= 0x40 && c <= 0x7e {
			return false
		}
	}
	return true
}

// picker is the state of one choice on a terminal.
type picker struct {
	t     *terminal
	spec  pickSpec
	query []rune
	shown []int // indexes of spec.items that match the query, best first
	sel   int   // the highlighted item (an index of spec.items), -1: none
	drawn int   // lines drawn by the last draw
	warn  string
}

// keys applies one read of keys; done with the result when the choice is
// made or abandoned.
func (p *picker) keys(b []byte) (int, error, bool) {
	s := strings.NewReplacer(pasteStart, "", pasteEnd, "").Replace(string(b))
	for len(s) > 0 {
		switch {
		case strings.HasPrefix(s, "\x1b[A"), strings.HasPrefix(s, "\x1bOA"):
			p.move(-1)
			s = s[3:]
			continue
		case strings.HasPrefix(s, "\x1b[B"), strings.HasPrefix(s, "\x1bOB"):
			p.move(1)
			s = s[3:]
			continue
		case strings.HasPrefix(s, "\x1b["), strings.HasPrefix(s, "\x1bO"):
			// Another key's sequence (Home, a function key): skip it.
			i := 2
			for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) {
				i++
			}
			s = s[min(i+1, len(s)):]
			continue
		}
		c := s[0]
		switch c {
		case '\r', '\n':
			switch {
			case p.sel >= 0:
				return p.sel, nil, true
			case len(p.query) == 0:
				return 0, errCancelled, true
			}
			// Nothing matches what was typed: say so and start again.
			p.warn = fmt.Sprintf("please answer with a number from 1 to %d or the start of an answer", len(p.spec.items))
			p.query = nil
			p.refilter()
		case 0x1b: // Esc
			return 0, errCancelled, true
		case 3: // Ctrl+C
			return 0, errInterrupted, true
		case 4: // Ctrl+D
			return 0, io.EOF, true
		case 0x10: // Ctrl+P
			p.move(-1)
		case 0x0e: // Ctrl+N
			p.move(1)
		case 0x7f, 0x08: // Backspace
			if len(p.query) > 0 {
				p.query = p.query[:len(p.query)-1]
				p.refilter()
			}
		case 0x15: // Ctrl+U
			p.query = nil
			p.refilter()
		default:
			r, n := utf8.DecodeRuneInString(s)
			if r >= 0x20 && r != 0x7f && r != utf8.RuneError {
				p.query = append(p.query, r)
				p.refilter()
			}
			s = s[n:]
			continue
		}
		s = s[1:]
	}
	return 0, nil, false
}

// refilter lists the items matching the query and highlights the best.
func (p *picker) refilter() {
	q := string(p.query)
	p.shown = matchItems(q, p.spec.items, p.spec.numbered)
	switch {
	case len(p.shown) == 0:
		p.sel = -1
	case strings.TrimSpace(q) == "":
		p.sel = p.spec.initial
	default:
		p.sel = p.shown[0]
	}
}

// move moves the highlight by d among the shown items.
func (p *picker) move(d int) {
	if len(p.shown) == 0 {
		return
	}
	at := -1
	for i, idx := range p.shown {
		if idx == p.sel {
			at = i
		}
	}
	switch {
	case at < 0 && d > 0:
		at = 0
	case at < 0:
		at = len(p.shown) - 1
	default:
		at = (at + d + len(p.shown)) % len(p.shown)
	}
	p.sel = p.shown[at]
}

// draw draws the query line and the visible part of the list over what
// the last draw drew. The terminal is raw: lines end in \r\n and none is
// wider than the terminal, so the count of lines to go back is exact.
func (p *picker) draw() {
	t := p.t
	var b strings.Builder
	if p.drawn > 0 {
		b.WriteString("\r")
		if p.drawn > 1 {
			fmt.Fprintf(&b, "\x1b[%dA", p.drawn-1)
		}
		b.WriteString("\x1b[J")
	}
	width := t.columns() - 1
	lines := 0
	at := 0
	for i, idx := range p.shown {
		if idx == p.sel {
			at = i
		}
	}
	start := max(0, min(at-pickerRows/2, len(p.shown)-pickerRows))
	end := min(len(p.shown), start+pickerRows)
	if start > 0 {
		fmt.Fprintf(&b, "%s\r\n", t.paint(ansiDim, fmt.Sprintf("  ↑ %d more", start)))
		lines++
	}
	for _, idx := range p.shown[start:end] {
		label := itemLine(p.spec.items[idx])
		if p.spec.numbered {
			label = fmt.Sprintf("%*d) %s", len(strconv.Itoa(len(p.spec.items))), idx+1, label)
		}
		label = truncateRunes(label, width-2)
		if idx == p.sel {
			b.WriteString(t.paint(ansiCyan, "› "+label))
		} else {
			b.WriteString("  " + label)
		}
		b.WriteString("\r\n")
		lines++
	}
	if rest := len(p.shown) - end; rest > 0 {
		fmt.Fprintf(&b, "%s\r\n", t.paint(ansiDim, fmt.Sprintf("  ↓ %d more", rest)))
		lines++
	}
	if len(p.shown) == 0 {
		b.WriteString(t.paint(ansiDim, "  (no match)") + "\r\n")
		lines++
	}
	if p.warn != "" {
		fmt.Fprintf(&b, "%s\r\n", t.paint(ansiYellow, truncateRunes(p.warn, width)))
		lines++
	}
	b.WriteString(truncateRunes(p.hint(), width) + oneLine(string(p.query)))
	lines++
	io.WriteString(t.stdout, b.String())
	p.drawn = lines
}

// hint is the line that says how to choose, before what was typed.
func (p *picker) hint() string {
	n := len(p.spec.items)
	var how string
	if p.spec.numbered {
		how = fmt.Sprintf("choose 1-%d or type its first letters, ↑↓ and Enter", n)
	} else {
		how = "type to filter, ↑↓ and Enter to choose"
	}
	switch {
	case p.spec.initial < 0 && p.spec.numbered:
		return how + "; empty answers no: "
	case p.spec.initial < 0:
		return how + "; Esc or empty cancels: "
	}
	return how + ", Esc cancels: "
}

// finish ends the picker's last line.
func (p *picker) finish() { io.WriteString(p.t.stdout, "\r\n") }

// matchItems lists the indexes of items that match query, best first: a
// number picks that item (when numbered); then items equal to the query,
// then those starting with it, then those containing every word of it
// (case ignored). An empty query lists every item in order.
func matchItems(query string, items []string, numbered bool) []int {
	q := strings.ToLower(strings.TrimSpace(query))
	out := make([]int, 0, len(items))
	if q == "" {
		for i := range items {
			out = append(out, i)
		}
		return out
	}
	if n, err := strconv.Atoi(q); err == nil && numbered {
		if n >= 1 && n <= len(items) {
			out = append(out, n-1)
		}
		return out
	}
	words := strings.Fields(q)
	var exact, prefix, contains []int
	for i, it := range items {
		l := strings.ToLower(strings.Join(strings.Fields(it), " "))
		switch {
		case l == q:
			exact = append(exact, i)
		case strings.HasPrefix(l, q):
			prefix = append(prefix, i)
		default:
			all := true
			for _, w := range words {
				if !strings.Contains(l, w) {
					all = false
					break
				}
			}
			if all {
				contains = append(contains, i)
			}
		}
	}
	out = append(out, exact...)
	out = append(out, prefix...)
	return append(out, contains...)
}

// chooseOnLine is the picker without line editing: the items numbered,
// the answer a number, or words that pick the best match.
func (t *terminal) chooseOnLine(spec pickSpec) (int, error) {
	width := t.columns() - 6
	for i, o := range spec.items {
		fmt.Fprintf(t.stdout, "  %s %s\n", t.paint(ansiCyan, fmt.Sprintf("%2d)", i+1)), truncateRunes(itemLine(o), width))
	}
	prompt := fmt.Sprintf("choose 1-%d or type its first letters (empty answers no): ", len(spec.items))
	if spec.initial >= 0 {
		prompt = fmt.Sprintf("choose 1-%d or type its first letters (empty keeps %d): ", len(spec.items), spec.initial+1)
	}
	for {
		line, err := t.readLineLocked(prompt, "")
		if err != nil {
			return 0, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			if spec.initial >= 0 {
				return spec.initial, nil
			}
			return 0, errCancelled
		}
		if m := matchItems(line, spec.items, true); len(m) > 0 {
			return m[0], nil
		}
		fmt.Fprintln(t.stdout, t.paint(ansiYellow, fmt.Sprintf("please answer with a number from 1 to %d or the start of an answer", len(spec.items))))
	}
}

// choose runs the picker as a dialog (see replUI.dialog); ok is false
// when nothing was chosen.
func (u *replUI) choose(spec pickSpec) (index int, ok bool) {
	u.dialog(func(t *terminal) error {
		var err error
		index, err = t.choose(spec)
		ok = err == nil
		return err
	})
	return index, ok
}

// pickModel is /model without an argument on a terminal: the models to
// choose from, the current one highlighted.
func (r *repl) pickModel(ctx context.Context) error {
	models := r.modelChoices()
	cur := modelSpec(r.a.agentRuntime.Model())
	width := 0
	for _, m := range models {
		width = max(width, len(modelSpec(m)))
	}
	items := make([]string, len(models))
	initial := 0
	for i, m := range models {
		mark := "  "
		if modelSpec(m) == cur {
			mark, initial = "* ", i
		}
		items[i] = fmt.Sprintf("%s%-*s  %s", mark, width, modelSpec(m), modelInfo(m))
	}
	i, ok := r.ui.choose(pickSpec{title: "Switch model (/model provider/id also works)", items: items, initial: initial})
	if !ok || modelSpec(models[i]) == cur {
		return nil
	}
	return r.cmdModel(ctx, modelSpec(models[i]))
}

// pickEntry lets the user choose an entry of the session, newest first,
// as /tree shows them; it returns its id.
func (r *repl) pickEntry(title string) (string, bool) {
	entries := r.a.agentRuntime.Session().Entries()
	var ids, items []string
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.Type == session.TypeSessionInfo || e.Type == session.TypeLabel {
			continue
		}
		item := e.ID + "  " + entryPreview(e)
		if l := r.a.agentRuntime.Session().Label(e.ID); l != "" {
			item += "  [" + l + "]"
		}
		if e.ID == r.a.agentRuntime.Session().LeafID() {
			item += "  (here)"
		}
		ids, items = append(ids, e.ID), append(items, item)
	}
	if len(ids) == 0 {
		r.printf("the session has no entries yet\n")
		return "", false
	}
	i, ok := r.ui.choose(pickSpec{title: title, items: items, initial: -1})
	if !ok {
		return "", false
	}
	return ids[i], true
}

// itemLine is an item on one line, sanitised, its spacing kept (columns
// stay aligned): line breaks and tabs become spaces.
func itemLine(s string) string {
	return strings.TrimRight(strings.NewReplacer("\n", " ", "\t", " ").Replace(ansi.Sanitize(s)), " ")
}

// modelInfo is what the model lists say of a model besides its name: its
// context window, whether it reasons and whether it takes images.
func modelInfo(m agent.Model) string {
	var parts []string
	if m.ContextWindow > 0 {
		parts = append(parts, shortTokens(m.ContextWindow)+" context")
	}
	if m.Reasoning {
		parts = append(parts, "reasons")
	}
	if m.TakesImages() {
		parts = append(parts, "images")
	}
	return strings.Join(parts, ", ")
}
