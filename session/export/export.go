// Package export writes a session as one self-contained HTML page: the
// conversation of the leaf, a sidebar with the whole tree that shows the
// path to any entry, and the session's facts. The page makes no network
// requests (its CSS and script are inline, images are data URLs, and a
// Content-Security-Policy forbids anything else), shows any HTML found in
// messages as text, and reads without JavaScript: the leaf's conversation
// is plain HTML. The script adds the tree and builds only the articles in
// view, so a page of 100,000 entries is as quick to open as its file is
// to read.
//
// This file holds the API and assembles the page.
package export

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/lunar-cli/lunar/session"
)

// Options tune an export. The zero value is ready to use.
type Options struct {
	// RenderCustom renders a custom message as its hook renders it in the
	// terminal (text that may hold ANSI colours); ok false means the hook
	// has no renderer, and the page shows the message's own text. It is
	// called from one goroutine, before anything else is rendered.
	RenderCustom func(m *session.Message) (text string, ok bool)
	// Generator names the program in the page footer, e.g. "lunar 0.4.0".
	Generator string
}

//go:embed assets/page.css
var pageCSS string

//go:embed assets/page.js
var pageJS string

// scriptHash is the CSP hash of the page script: the only script the page
// may run, so markup that slipped into a message could not run one.
// Computed on first export, not at start: most runs never export.
var scriptHash = sync.OnceValue(func() string {
	sum := sha256.Sum256([]byte(pageJS))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
})

// csp allows the inline style and the page script, images from data URLs,
// and nothing else: no request can leave the page, even on a click on a
// link (navigation is not a fetch), which opens in the browser as usual.
func csp() string {
	return "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src '" + scriptHash() + "'; base-uri 'none'; form-action 'none'"
}

// DefaultFileName is the name an export of s gets when the user names
// none: lunar-session-<session file name>.html, or the session id for a
// session that has no file.
func DefaultFileName(s *session.Session) string {
	base := strings.TrimSuffix(filepath.Base(s.File()), ".jsonl")
	if s.File() == "" || base == "" || base == "." {
		base = s.ID()
	}
	return "lunar-session-" + base + ".html"
}

// WriteFile exports s to path. The page is written to a temporary file
// beside path and renamed over it, so path never holds half a page.
func WriteFile(path string, s *session.Session, opts Options) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = HTML(f, s, opts); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// HTML writes the page for s to w.
func HTML(w io.Writer, s *session.Session, opts Options) error {
	p := newPage(s, opts)
	bw := bufio.NewWriterSize(w, 256<<10)
	p.write(bw)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// write assembles the document: head, header facts, the articles, the
// tree data and the script. The articles are inside <noscript>, which a
// browser that runs scripts reads as one piece of text rather than as
// elements: the leaf's path where the conversation is (plain HTML without
// JavaScript), and every other entry's in a hidden element after the
// page. The script splits each text after every "</article>\n", which no
// article holds inside (its text is escaped, as is any "</noscript"), and
// builds only the articles in view: the page is ready about as soon as
// the file is read, however long the session.
func (p *page) write(w *bufio.Writer) {
	title := p.title()

	w.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	w.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	w.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"" + csp() + "\">\n")
	w.WriteString("<meta name=\"color-scheme\" content=\"light dark\">\n")
	if p.opts.Generator != "" {
		w.WriteString("<meta name=\"generator\" content=\"" + escape(p.opts.Generator) + "\">\n")
	}
	w.WriteString("<title>" + escape(title) + "</title>\n<style>\n")
	w.WriteString(pageCSS)
	w.WriteString("</style>\n<noscript><style>.long>pre{max-height:none}.more,.js-only{display:none}</style></noscript>\n</head>\n<body>\n")

	w.WriteString(`<aside id="sidebar" class="js-only" aria-label="Session tree">` +
		`<div class="side-head"><input id="search" type="search" placeholder="Search entries" aria-label="Search entries" autocomplete="off">` +
		`<button type="button" id="side-close" class="icon" title="Close the tree" aria-label="Close the tree">✕</button></div>` +
		`<div class="filters" role="group" aria-label="Show in the tree">` +
		`<button type="button" data-filter="all" aria-pressed="true">All</button>` +
		`<button type="button" data-filter="messages" aria-pressed="false">Messages</button>` +
		`<button type="button" data-filter="user" aria-pressed="false">User</button>` +
		`<button type="button" data-filter="labelled" aria-pressed="false">Labelled</button></div>` +
		`<div id="tree" tabindex="0" role="listbox" aria-label="Entries"><div id="tree-inner"></div></div>` +
		`<div id="tree-status" aria-live="polite"></div></aside>` + "\n")
	w.WriteString(`<div id="scrim" class="js-only"></div>` + "\n")
	w.WriteString("<div id=\"page\">\n")
	w.WriteString(`<nav id="toolbar" class="js-only">` +
		`<button type="button" id="side-toggle" title="Show or hide the tree (\)" aria-controls="sidebar">☰ Tree</button>` +
		`<span id="where"></span>` +
		`<button type="button" id="to-leaf" title="Back to the leaf (L)">⤓ Leaf</button>` +
		`<button type="button" id="toggle-thinking" title="Open or close all thinking (T)">Thinking</button>` +
		`<button type="button" id="toggle-tools" title="Expand or collapse all long outputs (O)">Outputs</button>` +
		"</nav>\n<main>\n")
	p.writeHeader(w, title)
	w.WriteString("<div id=\"conv\"><noscript>")
	p.writeArticles(w, p.path)
	w.WriteString("</noscript></div>\n")
	if p.leaf < 0 {
		w.WriteString(`<p class="empty">This session has no entries yet.</p>` + "\n")
	}
	w.WriteString("</main>\n<footer>Exported")
	if p.opts.Generator != "" {
		w.WriteString(" by " + escape(p.opts.Generator))
	}
	w.WriteString(" from session " + escape(p.header.ID) + ".</footer>\n</div>\n")
	w.WriteString("<div id=\"branches\" hidden><noscript>")
	p.writeArticles(w, p.others)
	w.WriteString("</noscript></div>\n")
	w.WriteString(`<script type="application/json" id="tree-data">`)
	w.Write(p.treeJSON())
	w.WriteString("</script>\n<script>")
	w.WriteString(pageJS)
	w.WriteString("</script>\n</body>\n</html>\n")
}

// writeArticles writes the articles of the entries at the positions, in
// order. Chunks of entries are rendered on every CPU and written in order
// as they are done; a bounded number of chunks is in flight, so memory
// stays small however long the session.
func (p *page) writeArticles(w io.Writer, positions []int) {
	const chunk = 128
	n := len(positions)
	chunks := (n + chunk - 1) / chunk
	workers := max(1, min(runtime.GOMAXPROCS(0), chunks))
	done := make([]chan *bytes.Buffer, chunks)
	for k := range done {
		done[k] = make(chan *bytes.Buffer, 1)
	}
	tokens := make(chan struct{}, 2*workers) // chunks taken but not yet written
	var next atomic.Int64
	var pool sync.Pool
	for range workers {
		go func() {
			r := newRenderer(p)
			for {
				tokens <- struct{}{}
				k := int(next.Add(1) - 1)
				if k >= chunks {
					<-tokens
					return
				}
				out, _ := pool.Get().(*bytes.Buffer)
				if out == nil {
					out = new(bytes.Buffer)
				}
				out.Reset()
				for i := k * chunk; i < min(n, (k+1)*chunk); i++ {
					r.buf.Reset()
					r.entry(positions[i])
					out.Write(r.buf.Bytes())
				}
				done[k] <- out
			}
		}()
	}
	for k := range chunks {
		out := <-done[k]
		w.Write(out.Bytes())
		pool.Put(out)
		<-tokens
	}
}

// treeData is what the script needs to draw the tree: parallel arrays in
// tree order (parents before children, siblings oldest first).
type treeData struct {
	IDs    []string          `json:"ids"`
	Parent []int             `json:"parent"` // -1 for a root
	Kind   []string          `json:"kind"`
	Text   []string          `json:"text"`
	Labels map[string]string `json:"labels"` // position → label
	Cut    map[string]int    `json:"cut"`    // compaction position → position of its first kept entry
	Leaf   int               `json:"leaf"`   // -1: before the first entry
}

// treeJSON encodes the tree data for a <script type="application/json">:
// encoding/json escapes <, > and &, and U+2028/U+2029, so no string can
// close the element or break a JavaScript parser.
func (p *page) treeJSON() []byte {
	n := len(p.order)
	d := treeData{IDs: make([]string, n), Parent: p.parent, Kind: make([]string, n), Text: make([]string, n),
		Labels: map[string]string{}, Cut: map[string]int{}, Leaf: p.leaf}
	for i, e := range p.order {
		d.IDs[i] = e.ID
		d.Kind[i], d.Text[i] = kindOf(e), p.preview(i)
		if l := p.labels[i]; l != "" {
			d.Labels[fmt.Sprint(i)] = l
		}
		if e.Type == session.TypeCompaction {
			d.Cut[fmt.Sprint(i)] = p.firstKept(i)
		}
	}
	b, err := json.Marshal(d)
	if err != nil { // cannot happen: plain strings and numbers
		panic(err)
	}
	return b
}
