// This file renders the line diff the edit tool reports: pi's compact
// format, one line per changed or context line with its line number,
// "..." where unchanged lines are skipped.

package tools

import (
	"fmt"
	"slices"
	"strings"
)

// diffContextLines is how many unchanged lines surround each change.
const diffContextLines = 4

// diffMaxD bounds the Myers search (the number of differing lines it will
// reconcile). Past it, the changed region is shown as removed then added:
// still correct, only less minimal, and memory stays bounded.
const diffMaxD = 1000

type diffKind byte

const (
	diffEqual  diffKind = ' '
	diffDelete diffKind = '-'
	diffInsert diffKind = '+'
)

// diffRun is a run of n lines of one kind in an edit script, starting at
// line a of the old text and line b of the new one.
type diffRun struct {
	kind    diffKind
	a, b, n int
}

// lineDiff returns the rendered diff from oldText to newText and the
// 1-based line of the first change in newText (0 when they are equal).
func lineDiff(oldText, newText string) (string, int) {
	a, b := strings.Split(oldText, "\n"), strings.Split(newText, "\n")
	return renderDiff(diffLines(a, b), a, b)
}

// diffLines computes an edit script turning a into b: the common prefix
// and suffix are matched directly, the rest by Myers' algorithm.
func diffLines(a, b []string) []diffRun {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	mid, ok := myers(ma, mb)
	if !ok {
		mid = []diffRun{{diffDelete, 0, 0, len(ma)}, {diffInsert, len(ma), 0, len(mb)}}
	}
	runs := []diffRun{{diffEqual, 0, 0, pre}}
	for _, r := range mid {
		runs = append(runs, diffRun{r.kind, r.a + pre, r.b + pre, r.n})
	}
	runs = append(runs, diffRun{diffEqual, len(a) - suf, len(b) - suf, suf})
	// Drop empty runs and merge neighbours of the same kind.
	out := runs[:0]
	for _, r := range runs {
		switch {
		case r.n == 0:
		case len(out) > 0 && out[len(out)-1].kind == r.kind:
			out[len(out)-1].n += r.n
		default:
			out = append(out, r)
		}
	}
	return out
}

// myers is Myers' O(ND) shortest edit script. It gives up (false) when
// more than diffMaxD lines differ.
func myers(a, b []string) ([]diffRun, bool) {
	n, m := len(a), len(b)
	if n == 0 && m == 0 {
		return nil, true
	}
	maxD := min(n+m, diffMaxD)
	off := maxD + 1
	v := make([]int, 2*maxD+3) // diagonals -maxD-1 … maxD+1
	var trace [][]int          // trace[d][k+d] = furthest x on diagonal k after d edits
	for d := 0; d <= maxD; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				trace = append(trace, slices.Clone(v[off-d:off+d+1]))
				return backtrack(trace, n, m), true
			}
		}
		trace = append(trace, slices.Clone(v[off-d:off+d+1]))
	}
	return nil, false
}

// backtrack walks the trace from (n, m) back to (0, 0), collecting each
// step's edit and the snake of equal lines after it.
func backtrack(trace [][]int, n, m int) []diffRun {
	var rev []diffRun
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d-1]
		at := func(k int) int { return prev[k+d-1] }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1 // reached by an insertion
		} else {
			pk = k - 1 // reached by a deletion
		}
		px := at(pk)
		py := px - pk
		edit := diffRun{diffInsert, px, py, 1}
		if pk == k-1 {
			edit.kind = diffDelete
		}
		snakeX := px
		if edit.kind == diffDelete {
			snakeX++
		}
		if l := x - snakeX; l > 0 {
			rev = append(rev, diffRun{diffEqual, x - l, y - l, l})
		}
		rev = append(rev, edit)
		x, y = px, py
	}
	if x > 0 {
		rev = append(rev, diffRun{diffEqual, 0, 0, x})
	}
	slices.Reverse(rev)
	return rev
}

// renderDiff prints the changes of runs with diffContextLines of context
// around each, and "..." for the unchanged lines it skips.
func renderDiff(runs []diffRun, a, b []string) (string, int) {
	first := 0
	for _, r := range runs {
		if r.kind != diffEqual {
			first = r.b + 1
			break
		}
	}
	if first == 0 {
		return "", 0
	}
	width := len(fmt.Sprint(max(len(a), len(b))))
	var sb strings.Builder
	line := func(kind diffKind, num int, text string) {
		fmt.Fprintf(&sb, "%c%*d %s\n", kind, width, num, text)
	}
	for i, r := range runs {
		switch r.kind {
		case diffDelete:
			for j := range r.n {
				line(diffDelete, r.a+j+1, a[r.a+j])
			}
			continue
		case diffInsert:
			for j := range r.n {
				line(diffInsert, r.b+j+1, b[r.b+j])
			}
			continue
		}
		head, tail := 0, 0
		if i > 0 {
			head = min(diffContextLines, r.n)
		}
		if i < len(runs)-1 {
			tail = min(diffContextLines, r.n-head)
		}
		for j := range head {
			line(diffEqual, r.a+j+1, a[r.a+j])
		}
		if head+tail < r.n {
			fmt.Fprintf(&sb, " %*s ...\n", width, "")
		}
		for j := r.n - tail; j < r.n; j++ {
			line(diffEqual, r.a+j+1, a[r.a+j])
		}
	}
	return strings.TrimSuffix(sb.String(), "\n"), first
}
