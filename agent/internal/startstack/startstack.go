// Package startstack grows the main goroutine's stack to 128 KB at once,
// early in package initialisation, while the stack is still shallow.
//
// Go starts a goroutine with a small stack and doubles it, by copying,
// each time it runs out; every copy walks and adjusts every frame on the
// stack. Some of lunar's dependencies compile regular expressions in
// their package initialisation (goldmark's util and parser, yaml), and
// the compiler recurses deeply on bounded repetitions such as {0,61}:
// the main goroutine's stack used to grow from 2 KB to 128 KB in six
// copies in the middle of that recursion, about 6% of the CPU time of
// `lunar --version`. One frame of 64 KB here, before those packages are
// initialised, makes it one copy of a near-empty stack; the recursion
// then uses the pages this zeroes.
//
// Go initialises packages in dependency order, choosing among the ready
// ones by import path; this package imports nothing, so it is ready
// first and comes before github.com/yuin/... and go.yaml.in/... (the
// e2e test TestPackageInit checks the order). agent imports it for that
// side effect only.
package startstack

func init() { grow() }

// frame is the size of grow's frame: the stack then needs 64 KB plus
// what is in use, so it doubles straight to 128 KB, the most package
// initialisation needs.
const frame = 64 << 10

//go:noinline
func grow() {
	var b [frame]byte
	touch(&b)
}

// touch keeps b, so that the compiler keeps grow's frame.
//
//go:noinline
func touch(b *[frame]byte) { b[0] = 1 }
