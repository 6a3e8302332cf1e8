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

// diffOp is one line of an edit script; a and b index the old and new
// lines (only the side the kind uses is meaningful).
type diffOp struct {
	kind diffKind
	a, b int
}

// lineDiff returns the rendered diff from oldText to newText and the
// 1-based line of the first change in newText (0 when they are equal).
func lineDiff(oldText, newText string) (string, int) {
	a, b := strings.Split(oldText, "\n"), strings.Split(newText, "\n")
	ops := diffLines(a, b)
	return renderDiff(ops, a, b)
}

// diffLines computes an edit script turning a into b: the common prefix
// and suffix are matched directly, the rest by Myers' algorithm.
func diffLines(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]diffOp, 0, len(a)+len(b)-pre-suf)
	for i := range pre {
		ops = append(ops, diffOp{diffEqual, i, i})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	mid, ok := myers(ma, mb)
	if !ok {
		mid = mid[:0]
		for i := range ma {
			mid = append(mid, diffOp{diffDelete, i, 0})
		}
		for j := range mb {
			mid = append(mid, diffOp{diffInsert, len(ma), j})
		}
	}
	for _, op := range mid {
		ops = append(ops, diffOp{op.kind, op.a + pre, op.b + pre})
	}
	for i := range suf {
		ops = append(ops, diffOp{diffEqual, len(a) - suf + i, len(b) - suf + i})
	}
	return ops
}

// myers is Myers' O(ND) shortest edit script. It gives up (false) when
// more than diffMaxD lines differ.
func myers(a, b []string) ([]diffOp, bool) {
	n, m := len(a), len(b)
	if n == 0 && m == 0 {
		return nil, true
	}
	total := n + m
	off := total + 1
	v := make([]int, 2*total+3)
	var trace [][]int // trace[d][k+d] = furthest x on diagonal k after d edits
	for d := 0; d <= min(total, diffMaxD); d++ {
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

func backtrack(trace [][]int, n, m int) []diffOp {
	var rev []diffOp
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d-1]
		at := func(k int) int { return prev[k+d-1] }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, diffOp{diffEqual, x, y})
		}
		if x == px {
			y--
			rev = append(rev, diffOp{diffInsert, x, y})
		} else {
			x--
			rev = append(rev, diffOp{diffDelete, x, y})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, diffOp{diffEqual, x, y})
	}
	slices.Reverse(rev)
	return rev
}

// renderDiff prints the changes of ops with diffContextLines of context.
func renderDiff(ops []diffOp, a, b []string) (string, int) {
	visible := make([]bool, len(ops))
	first := 0
	for i, op := range ops {
		if op.kind == diffEqual {
			continue
		}
		if first == 0 {
			first = op.b + 1
		}
		for j := max(0, i-diffContextLines); j <= min(len(ops)-1, i+diffContextLines); j++ {
			visible[j] = true
		}
	}
	if first == 0 {
		return "", 0
	}
	width := len(fmt.Sprint(max(len(a), len(b))))
	var sb strings.Builder
	skipping := false
	for i, op := range ops {
		if !visible[i] {
			if !skipping {
				fmt.Fprintf(&sb, " %*s ...\n", width, "")
				skipping = true
			}
			continue
		}
		skipping = false
		switch op.kind {
		case diffInsert:
			fmt.Fprintf(&sb, "+%*d %s\n", width, op.b+1, b[op.b])
		case diffDelete:
			fmt.Fprintf(&sb, "-%*d %s\n", width, op.a+1, a[op.a])
		default:
			fmt.Fprintf(&sb, " %*d %s\n", width, op.a+1, a[op.a])
		}
	}
	return strings.TrimSuffix(sb.String(), "\n"), first
}
