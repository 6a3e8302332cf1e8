// Package gfm holds the GitHub extensions to goldmark's CommonMark that
// lunar renders (tables, strikethrough, task lists and bare links),
// adapted from goldmark's extension package (v1.8.7, MIT licence, see
// LICENSE in this folder) so that their regular expressions are compiled
// on first use instead of at package initialisation.
//
// goldmark/extension compiles its linkify patterns at init, whose
// {1,256} repetitions alone cost 2,000 allocations and a few
// milliseconds of every lunar process, including `lunar --version` and
// one-shot runs that never render markdown. Go runs every linked
// package's init, so importing that package at all pays it; this one
// imports only goldmark's parser, renderer and the extension node types
// (goldmark/extension/ast), whose inits are cheap.
//
// The parsing and rendering are goldmark's own, with the options lunar
// does not use left out: Linkify allows http, https and ftp links, www.
// links and e-mail addresses (goldmark's defaults), and table cells are
// aligned with a style attribute (an align attribute in XHTML mode).
package gfm

import (
	"regexp"
	"sync"

	"github.com/yuin/goldmark"
)

// Extensions, to pass to goldmark.WithExtensions.
var (
	// Table adds GitHub's pipe tables.
	Table goldmark.Extender = table{}
	// Strikethrough adds ~~struck~~ text.
	Strikethrough goldmark.Extender = strikethrough{}
	// TaskList adds "- [ ]" and "- [x]" list items.
	TaskList goldmark.Extender = taskList{}
	// Linkify turns bare URLs, www. links and e-mail addresses into
	// links.
	Linkify goldmark.Extender = linkify{}
)

// lazyRegexp is a regular expression compiled when first used.
type lazyRegexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}
