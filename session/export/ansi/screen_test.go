package ansi

import (
	"strconv"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
	"github.com/stretchr/testify/require"
)

// screen plays terminal output on a screen width columns wide, as xterm
// does: printable runes with auto-wrap (deferred at the last column),
// CR, LF (as CR LF, the tty's default), and the CSI sequences cursor up,
// down, forward, back, erase in line and erase below; SGR sequences are
// ignored. It returns the lines, trailing blanks trimmed, and counts the
// erase-below sequences (one per redrawn block).
type screen struct {
	t        *testing.T
	width    int
	lines    [][]rune
	row, col int
	redraws  int
}

func newScreen(t *testing.T, width int) *screen {
	return &screen{t: t, width: width, lines: [][]rune{nil}}
}

func (s *screen) grow() {
	for len(s.lines) <= s.row {
		s.lines = append(s.lines, nil)
	}
}

func (s *screen) put(r rune) {
	w := runewidth.RuneWidth(r)
	if s.col+w > s.width {
		s.row, s.col = s.row+1, 0
	}
	s.grow()
	for len(s.lines[s.row]) < s.col+w {
		s.lines[s.row] = append(s.lines[s.row], ' ')
	}
	s.lines[s.row][s.col] = r
	if w == 2 {
		s.lines[s.row][s.col+1] = 0
	}
	s.col += w
}

func (s *screen) write(out string) {
	s.t.Helper()
	rs := []rune(out)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; r {
		case '\r':
			s.col = 0
		case '\n':
			s.row, s.col = s.row+1, 0
			s.grow()
		case 0x1b:
			require.Less(s.t, i+1, len(rs), "truncated escape in %q", out)
			require.Equal(s.t, '[', rs[i+1], "escape %q", string(rs[i:min(i+4, len(rs))]))
			j := i + 2
			for j < len(rs) && (rs[j] >= '0' && rs[j] <= '9' || rs[j] == ';') {
				j++
			}
			require.Less(s.t, j, len(rs), "truncated escape in %q", out)
			n, err := strconv.Atoi(string(rs[i+2 : j]))
			if err != nil {
				n = 0
			}
			s.col = min(s.col, s.width-1) // a move clears a pending wrap
			switch rs[j] {
			case 'A':
				s.row = max(s.row-max(n, 1), 0)
			case 'B':
				s.row += max(n, 1)
				s.grow()
			case 'C':
				s.col = min(s.col+max(n, 1), s.width-1)
			case 'D':
				s.col = max(s.col-max(n, 1), 0)
			case 'K':
				if s.col < len(s.lines[s.row]) {
					s.lines[s.row] = s.lines[s.row][:s.col]
				}
			case 'J':
				if s.col < len(s.lines[s.row]) {
					s.lines[s.row] = s.lines[s.row][:s.col]
				}
				s.lines = s.lines[:s.row+1]
				s.redraws++
			case 'm':
			default:
				s.t.Fatalf("unexpected escape %q", string(rs[i:j+1]))
			}
			i = j
		default:
			s.put(r)
		}
	}
}

// text is what the screen shows.
func (s *screen) text() string {
	var b strings.Builder
	for i, l := range s.lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.TrimRight(strings.ReplaceAll(string(l), "\x00", ""), " "))
	}
	return strings.TrimRight(b.String(), "\n")
}
