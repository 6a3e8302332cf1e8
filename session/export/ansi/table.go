// Tables: columns as wide as their content when the table fits the
// width; otherwise the widest columns give up space and their cells wrap
// between words; a table that does not fit even so (a column would cut
// its words) is shown one record a block, as "column: value" lines.

package ansi

import (
	"strings"

	east "github.com/yuin/goldmark/extension/ast"
)

// minColumn is the narrowest a column is made to fit a table in.
const minColumn = 6

// cell is a table cell's runs.
type cell struct {
	runs  []run
	width int // on one line
}

func (r *renderer) table(t *east.Table, w int) []string {
	var rows [][]cell
	header := 0 // rows that are the header
	cols := len(t.Alignments)
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []cell
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			st := style{}
			if _, ok := row.(*east.TableHeader); ok {
				st.bold = true
			}
			runs := r.inline(c, st)
			cw := 0
			for _, x := range runs {
				cw += width(x.text)
			}
			cells = append(cells, cell{runs, cw})
		}
		if _, ok := row.(*east.TableHeader); ok {
			header++
		}
		cols = max(cols, len(cells))
		rows = append(rows, cells)
	}
	if cols == 0 {
		return nil
	}
	widths, floors := make([]int, cols), make([]int, cols)
	for _, cells := range rows {
		for i, c := range cells {
			widths[i] = max(widths[i], c.width)
			for _, wd := range words(c.runs) {
				floors[i] = max(floors[i], wd.width)
			}
		}
	}
	if !fitColumns(widths, floors, w-3*(cols-1)) {
		return r.records(rows, header, cols, w)
	}

	sep, lastSep := r.paint(" │ ", tableStyle), r.paint(" │", tableStyle)
	var out []string
	for ri, cells := range rows {
		// Each cell wrapped in its column; the row is as tall as its
		// tallest cell.
		wrapped := make([][]string, cols)
		height := 1
		for i := range cols {
			var runs []run
			if i < len(cells) {
				runs = cells[i].runs
			}
			wrapped[i] = wrap(runs, widths[i], r.color, r.nocolor, true)
			height = max(height, len(wrapped[i]))
		}
		for line := range height {
			var b strings.Builder
			for i := range cols {
				text := ""
				if line < len(wrapped[i]) {
					text = wrapped[i][line]
				}
				if i > 0 {
					if i == cols-1 && text == "" {
						b.WriteString(lastSep)
					} else {
						b.WriteString(sep)
					}
				}
				pad := max(widths[i]-visibleWidth(text), 0)
				align := east.AlignNone
				if i < len(t.Alignments) {
					align = t.Alignments[i]
				}
				switch align {
				case east.AlignRight:
					b.WriteString(strings.Repeat(" ", pad) + text)
				case east.AlignCenter:
					b.WriteString(strings.Repeat(" ", pad/2) + text + strings.Repeat(" ", pad-pad/2))
				default:
					if i == cols-1 {
						b.WriteString(text) // no trailing spaces
					} else {
						b.WriteString(text + strings.Repeat(" ", pad))
					}
				}
			}
			out = append(out, strings.TrimRight(b.String(), " "))
		}
		if ri == header-1 {
			var b strings.Builder
			for i, cw := range widths {
				if i > 0 {
					b.WriteString("─┼─")
				}
				b.WriteString(strings.Repeat("─", cw))
			}
			out = append(out, r.paint(b.String(), tableStyle))
		}
	}
	return out
}

// fitColumns narrows the widest columns until their sum is at most
// total, each down to its longest word (floors) or minColumn, whichever
// is wider. It reports whether the table fits so.
func fitColumns(widths, floors []int, total int) bool {
	sum := 0
	for _, w := range widths {
		sum += w
	}
	for sum > total {
		wi := -1
		for i, w := range widths {
			if w > max(floors[i], minColumn) && (wi < 0 || w > widths[wi]) {
				wi = i
			}
		}
		if wi < 0 {
			return false
		}
		widths[wi]--
		sum--
	}
	return true
}

// records lays out a table too wide for w one body row a block: a line
// "column: value" a cell (the value wrapped under itself), a blank line
// between rows.
func (r *renderer) records(rows [][]cell, header, cols, w int) []string {
	var names [][]run
	if header > 0 {
		for _, c := range rows[header-1] {
			names = append(names, c.runs)
		}
	}
	var out []string
	for ri, cells := range rows[header:] {
		if ri > 0 {
			out = append(out, "")
		}
		for i := range cols {
			var runs []run
			if i < len(names) {
				runs = append(runs, names[i]...)
			}
			if len(runs) == 0 {
				runs = append(runs, run{"(" + itoa(i+1) + ")", style{bold: true}})
			}
			runs = append(runs, run{":", style{bold: true}}, run{" ", style{}})
			if i < len(cells) {
				runs = append(runs, cells[i].runs...)
			}
			l := &lineWrap{size: func() int { return max(w, 10) }, color: r.color, nocolor: r.nocolor, cont: "  "}
			l.add(runs)
			out = append(out, l.finish()...)
		}
	}
	return out
}

// visibleWidth is the width of text without its escape sequences.
func visibleWidth(s string) int {
	if !strings.Contains(s, "\x1b") {
		return width(s)
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return width(b.String())
}
