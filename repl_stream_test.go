// The REPL's output model through the binary in a pseudo-terminal
// (issue #22): answers rendered a line at a time at several widths and
// across resizes, held tables, NO_COLOR, the live area (a running bash
// command's last lines, a stalled stream), the status line.
package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/creack/pty"
	"github.com/mattn/go-runewidth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// resize sets the terminal's size (the kernel sends lunar SIGWINCH) and
// returns where in the output it happened.
func (p *ptyREPL) resize(cols int) int {
	p.t.Helper()
	p.mu.Lock()
	at := p.out.Len()
	p.mu.Unlock()
	require.NoError(p.t, pty.Setsize(p.tty, &pty.Winsize{Rows: 40, Cols: uint16(cols)}))
	return at
}

// since is the output after byte at.
func (p *ptyREPL) since(at int) string { return p.output()[at:] }

// vt plays terminal output as xterm would on a screen whose width
// changes at given offsets: printable runes, CR, LF, and the CSI
// sequences lunar and liner use (cursor up, column, erase). It counts
// the lines the terminal had to wrap itself (a rendered line wider than
// the screen) and keeps the rows as text.
type vt struct {
	width    int
	rows     [][]rune
	soft     []bool // the row continues the one above (the terminal wrapped it)
	row, col int
}

var csiRe = regexp.MustCompile(`^\x1b\[([0-9;?]*)([A-Za-z])`)

func playVT(out string, width int, widths map[int]int) *vt {
	v := &vt{width: width, rows: [][]rune{nil}, soft: []bool{false}}
	for i := 0; i < len(out); {
		if w, ok := widths[i]; ok {
			v.width = w
			delete(widths, i)
		}
		if m := csiRe.FindStringSubmatch(out[i:]); m != nil {
			n := 1
			fmt.Sscanf(m[1], "%d", &n)
			switch m[2] {
			case "A":
				v.row = max(v.row-n, 0)
			case "G":
				v.col = max(n-1, 0)
			case "J":
				v.rows, v.soft = v.rows[:v.row+1], v.soft[:v.row+1]
				v.rows[v.row] = v.rows[v.row][:min(v.col, len(v.rows[v.row]))]
				if v.col == 0 {
					v.soft[v.row] = false
				}
			case "K":
				v.rows[v.row] = v.rows[v.row][:min(v.col, len(v.rows[v.row]))]
			}
			i += len(m[0])
			continue
		}
		r, size := rune(out[i]), 1
		if out[i] >= 0x80 {
			r, size = []rune(out[i:min(i+4, len(out))])[0], len(string([]rune(out[i:min(i+4, len(out))])[0]))
		}
		i += size
		switch r {
		case '\r':
			v.col = 0
		case '\n':
			v.row++
			for len(v.rows) <= v.row {
				v.rows, v.soft = append(v.rows, nil), append(v.soft, false)
			}
		case 0x1b, 0x07:
		default:
			if v.col+runewidth.RuneWidth(r) > v.width {
				v.row++
				v.col = 0
				for len(v.rows) <= v.row {
					v.rows, v.soft = append(v.rows, nil), append(v.soft, false)
				}
				v.soft[v.row] = true
			}
			line := v.rows[v.row]
			for len(line) < v.col {
				line = append(line, ' ')
			}
			if v.col < len(line) {
				line[v.col] = r
			} else {
				line = append(line, r)
			}
			v.rows[v.row] = line
			v.col += runewidth.RuneWidth(r)
		}
	}
	return v
}

// wraps are the rows still on the screen that the terminal had to wrap
// (a rendered line wider than the screen); a live line wrapped and then
// erased does not count.
func (v *vt) wraps() []string {
	var out []string
	for i, soft := range v.soft {
		if soft {
			out = append(out, string(v.rows[i-1]))
		}
	}
	return out
}

func (v *vt) text() string {
	var b strings.Builder
	for _, r := range v.rows {
		b.WriteString(strings.TrimRight(string(r), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// wordsAnswer is a paragraph of n numbered words on one source line.
func wordsAnswer(from, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = fmt.Sprintf("word%d", from+i)
	}
	return strings.Join(w, " ")
}

// TestREPLLongCodeBlockAtWidths: a code block taller than the screen is
// highlighted line by line under a header at 100, 80 and 60 columns;
// no raw fence is left, nothing is redrawn, no line is wider than the
// screen.
func TestREPLLongCodeBlockAtWidths(t *testing.T) {
	t.Parallel()
	var code strings.Builder
	code.WriteString("Here is the code:\n\n```go\n")
	for i := range 60 {
		fmt.Fprintf(&code, "func f%d() int { return %d } // the function number %d of the file\n", i, i, i)
	}
	code.WriteString("```\n\nThat is all.\n")
	for _, cols := range []int{100, 80, 60} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			e := newE2E(t)
			e.env = append(e.env, "NO_COLOR=")
			e.srv.Reply(llmtest.Text(code.String()))
			p := e.start()
			at := p.resize(cols)
			p.line("code please")
			p.expect("\x1b[2m╭─ go\x1b[0m\r\n  \x1b[35mfunc\x1b[0m \x1b[34mf0\x1b[0m() \x1b[36mint\x1b[0m")
			p.expect("\x1b[34mf59\x1b[0m")
			p.expect("\x1b[2m╰─\x1b[0m\r\n")
			p.expect("That is all.")
			p.expect("> ")
			p.quit()
			out := p.since(at)
			assert.NotContains(t, out, "```")
			assert.NotRegexp(t, `\x1b\[[0-9]*A`, out, "nothing is redrawn")
			v := playVT(out, cols, nil)
			assert.Empty(t, v.wraps(), "lines wider than %d columns", cols)
			assert.Contains(t, v.text(), "  func f59() int { return 59 }")
		})
	}
}

// TestREPLResizeDuringAnswer: a long paragraph streams while the
// terminal goes from 100 to 60 to 80 columns: each screen line is laid
// out at the width it has when it is complete, no word is split, none
// is lost or repeated.
func TestREPLResizeDuringAnswer(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.env = append(e.env, "NO_COLOR=")
	e.srv.Reply(llmtest.Text(wordsAnswer(0, 60)+" "), llmtest.Pause(), llmtest.Text(wordsAnswer(60, 60)+" "), llmtest.Pause(),
		llmtest.Text(wordsAnswer(120, 60)+"\n\nThe end.\n"))
	p := e.start()
	start := p.resize(100)
	p.line("talk")
	p.expect("word59") // in the live line: the first part is all in, the stream paused
	to60 := p.resize(60)
	e.srv.Resume()
	p.expect("word119")
	to80 := p.resize(80)
	e.srv.Resume()
	p.expect("The end.")
	p.expect("> ")
	p.quit()

	out := p.output()
	v := playVT(out[start:], 100, map[int]int{to60 - start: 60, to80 - start: 80})
	assert.Empty(t, v.wraps(), "the terminal wrapped rendered lines")
	screen := v.text()
	i, j := strings.Index(screen, "word0 "), strings.Index(screen, "The end.")
	require.True(t, i >= 0 && j > i, screen)
	assert.Equal(t, wordsAnswer(0, 180), strings.Join(strings.Fields(screen[i:j]), " "), "every word whole, once, in order")
	var widths []int
	for _, l := range strings.Split(screen[i:j], "\n") {
		widths = append(widths, runewidth.StringWidth(l))
	}
	assert.Greater(t, slicesMax(widths[:3]), 80, "lines at 100 columns at first: %v", widths)
	assert.LessOrEqual(t, slicesMax(widths), 100)
	late := widths[len(widths)-4 : len(widths)-2]
	assert.Greater(t, slicesMax(late), 60, "lines at 80 columns at the end: %v", widths)
	assert.LessOrEqual(t, slicesMax(late), 80)
}

func slicesMax(s []int) int {
	m := 0
	for _, x := range s {
		m = max(m, x)
	}
	return m
}

// TestREPLWideTable: a table held while it streams ("…" in the live
// area), drawn as a grid when it fits and as records when it does not,
// never wider than the screen.
func TestREPLWideTable(t *testing.T) {
	t.Parallel()
	table := "| name | docs | owner |\n|---|---|---|\n| lunar | https://example.com/lunar/docs/the-manual-of-the-agent.htm | the team |\n| pi | https://example.com/pi/docs/the-coding-agent-reference.html | mario |\n"
	for _, cols := range []int{100, 60} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			e := newE2E(t)
			e.env = append(e.env, "NO_COLOR=")
			e.srv.Reply(llmtest.Text("Tools:\n\n"+table), llmtest.Pause(), llmtest.Text("\nDone.\n"))
			p := e.start()
			at := p.resize(cols)
			p.line("compare")
			p.expect("Tools:")
			p.expect("\x1b[2m⠋ … ") // held, and shown to be
			e.srv.Resume()
			p.expect("Done.")
			p.expect("> ")
			p.quit()
			v := playVT(p.since(at), cols, nil)
			assert.Empty(t, v.wraps())
			screen := v.text()
			if cols == 100 {
				assert.Contains(t, screen, "lunar │ https://example.com/lunar/docs/the-manual-of-the-agent.htm  │ the team\n")
			} else {
				// The columns cannot fit without cutting a word: one
				// record a block.
				assert.Contains(t, screen, "name: lunar\ndocs:\n  https://example.com/lunar/docs/the-manual-of-the-agent.htm\nowner: the team\n\nname: pi\n")
			}
		})
	}
}

// TestREPLNoColorKeepsAttributes: NO_COLOR drops the colours of an
// answer, not its bold, italic, underline and strikethrough.
func TestREPLNoColorKeepsAttributes(t *testing.T) {
	t.Parallel()
	e := newE2E(t) // NO_COLOR=1
	e.srv.Reply(llmtest.Text("**bold** *italic* ~~gone~~ [link](https://example.com) `code`\n"))
	p := e.start()
	p.line("style")
	p.expect("\x1b[1mbold\x1b[0m \x1b[3mitalic\x1b[0m \x1b[9mgone\x1b[0m \x1b[4mlink\x1b[0m")
	p.expect("> ")
	p.quit()
	assert.NotRegexp(t, `\x1b\[[0-9;]*(3[0-7]|9[0-7])m`, p.output(), "no colour")
}

// TestREPLBashTailLive: a running bash command shows its last output
// lines above the spinner while it runs; they go when it ends.
func TestREPLBashTailLive(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"for i in 1 2 3 4 5 6 7; do echo line$i; done; while [ ! -e go ]; do sleep 0.05; done; echo finished"}`))
	e.srv.Reply(llmtest.Text("ran it"))
	p := e.start()
	p.line("run")
	p.expect("→ bash")
	p.expect("  line6\r\n  line7\r\n⠋ bash") // live, the five last lines above the spinner
	writeFile(t, e.cwd+"/go", "")
	p.expect("ran it")
	p.expect("> ")
	p.quit()
	out := p.output()
	live := out[strings.Index(out, "→ bash"):strings.Index(out, "ran it")]
	assert.Contains(t, live, "  line3\r\n  line4\r\n  line5\r\n  line6\r\n  line7\r\n")
	assert.NotRegexp(t, `(  line\d\r\n){6}`, live, "five lines at most")
	assert.Regexp(t, `\r\x1b\[5A\x1b\[J`, live, "the live lines are erased before the result")
}

// TestREPLStalledStream: a stream that stops after its text began says
// that it is waiting; the text goes on below when it resumes.
func TestREPLStalledStream(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("First line.\n"), llmtest.Pause(), llmtest.Text("Second line.\n"))
	p := e.start()
	p.line("wait")
	p.expect("First line.\r\n")
	p.expect("waiting for the model")
	e.srv.Resume()
	p.expect("Second line.")
	p.expect("> ")
	p.quit()
}

// TestREPLStatusAfterInterrupt: after Ctrl+C the status line shows what
// the interrupted reply used (estimated from what it streamed).
func TestREPLStatusAfterInterrupt(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text(strings.Repeat("streamed text ", 20)+"end.\n"), llmtest.Hang())
	p := e.start()
	p.line("go on")
	p.expect("end.") // all of it streamed: 285 bytes
	p.send("\x03")
	p.expect("(interrupted)")
	p.expect(" · out ~72 (interrupted) · context ")
	p.expect("> ")
	p.quit()
	assert.Regexp(t, `in ~[0-9]+ · out ~72`, p.output(), "the request's size, estimated as the context")
}

// TestREPLStatusOverWindow: a context past the model's window is never
// shown as a normal figure above 100 %.
func TestREPLStatusOverWindow(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	writeFile(t, e.home+"/config/config.json", `{"compaction": {"enabled": false}}`)
	e.srv.Reply(llmtest.Text("huge"), llmtest.Usage(1500000, 20, 0, 0))
	p := e.start()
	p.line("one")
	p.expect("huge")
	p.expect("context 1.5M/1.05M (full) · over the context window: /compact or /clear")
	p.expect("> ")
	p.quit()
	assert.NotRegexp(t, `\(1[0-9][0-9]%\)`, p.output())
}

// TestREPLPermissionDiffColoured: the permission dialog's diff is
// coloured as the edit's result is.
func TestREPLPermissionDiffColoured(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.ask = true
	e.env = append(e.env, "NO_COLOR=")
	writeFile(t, e.cwd+"/notes.txt", "one\ntwo\nthree\n")
	e.srv.Reply(llmtest.ToolCall("edit", `{"path":"notes.txt","oldText":"two","newText":"TWO"}`))
	e.srv.Reply(llmtest.Text("edited"))
	p := e.start()
	p.line("edit it")
	p.expect("Allow this edit of notes.txt?")
	p.expect("\x1b[2m  @@ line 2 @@\x1b[0m\r\n\x1b[31m  -two\x1b[0m\r\n\x1b[32m  +TWO\x1b[0m")
	p.expect("choose 1-3")
	p.line("1")
	p.expect("\x1b[31m-2 two\x1b[0m") // the result's diff, in the same colours
	p.expect("\x1b[32m+2 TWO\x1b[0m")
	p.expect("edited")
	p.quit()
}
