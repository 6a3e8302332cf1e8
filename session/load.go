package session

// Reading session files: tolerant line parsing (torn last line, malformed
// lines, entries without ids), header validation and the version check
// that sends old files through migration.

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

// ErrNoHeader means a file's first JSON line is not a session header.
var ErrNoHeader = errors.New("not a session file: first line is not a session header")

// parsed is the result of reading a session file's bytes.
type parsed struct {
	header   Header
	entries  []*Entry
	warnings []string
	// needNewline is set when the data does not end with a newline: the
	// next line written must start on a fresh line.
	needNewline bool
	// migrated holds the rewritten file when the data was migrated (nil:
	// no migration), migratedFrom the version it was migrated from (a
	// hand-edited header may say 0 or less).
	migrated     []byte
	migratedFrom int
}

// isBlank reports whether a line has nothing but whitespace (pi skips
// such lines).
func isBlank(line []byte) bool {
	return len(bytes.TrimSpace(line)) == 0
}

// lineIter walks data line by line.
type lineIter struct {
	data []byte
	pos  int
	num  int
}

// next returns the next line (without its newline), its start offset and
// whether it was terminated by a newline.
func (it *lineIter) next() (line []byte, start int, terminated, ok bool) {
	if it.pos >= len(it.data) {
		return nil, 0, false, false
	}
	it.num++
	start = it.pos
	i := bytes.IndexByte(it.data[start:], '\n')
	if i < 0 {
		it.pos = len(it.data)
		return it.data[start:], start, false, true
	}
	it.pos = start + i + 1
	return it.data[start : start+i], start, true, true
}

// parseData reads a whole session file. data is written to (long escaped
// strings are decoded in place) and must not be modified afterwards:
// decoded strings and Raw slices share its memory. name is used in
// warnings and errors.
func parseData(name string, data []byte) (*parsed, error) {
	p := &parsed{needNewline: len(data) > 0 && data[len(data)-1] != '\n'}
	it := lineIter{data: data}
	// Find the header: the first line that parses.
	for {
		line, _, terminated, ok := it.next()
		if !ok {
			return nil, fmt.Errorf("load %s: %w", name, ErrNoHeader)
		}
		if isBlank(line) {
			continue
		}
		d := decoder{scanner: scanner{data: line}, lenient: true}
		valid, err := d.header(&p.header)
		if err == nil {
			err = d.end()
		}
		if err != nil {
			p.warnBadLine(name, it.num, terminated, err)
			continue
		}
		if !valid {
			return nil, fmt.Errorf("load %s line %d: %w", name, it.num, ErrNoHeader)
		}
		p.header.Raw = line[:len(line):len(line)]
		break
	}
	if p.header.Version < CurrentVersion {
		return migrate(name, data, p)
	}
	if p.header.Version > CurrentVersion {
		p.warnings = append(p.warnings, fmt.Sprintf("%s: session format version %d is newer than %d; unknown parts are kept as they are",
			name, p.header.Version, CurrentVersion))
	}
	p.decodeEntries(name, data, it)
	return p, nil
}

// warnBadLine records a line that is not valid JSON.
func (p *parsed) warnBadLine(name string, num int, terminated bool, err error) {
	if !terminated {
		p.warnings = append(p.warnings, fmt.Sprintf("%s line %d: incomplete last line skipped (the write was interrupted); new entries start on a fresh line", name, num))
		return
	}
	p.warnings = append(p.warnings, fmt.Sprintf("%s line %d: malformed line skipped: %v", name, num, err))
}

// knownTypes are the entry types lunar understands.
var knownTypes = map[string]bool{
	TypeMessage: true, TypeModelChange: true, TypeThinkingLevelChange: true, TypeCompaction: true,
	TypeBranchSummary: true, TypeCustom: true, TypeCustomMessage: true, TypeLabel: true, TypeSessionInfo: true,
}

// decodeEntries decodes every line after the header. Strings share
// data's memory and escaped strings go to one arena; structs come from a
// slab. A large file is cut at line ends into one part per CPU, decoded
// at the same time, each with its own slab and arena; the results are
// joined in file order, so warnings and entries are exactly those of one
// pass.
func (p *parsed) decodeEntries(name string, data []byte, it lineIter) {
	view := ""
	if len(data) > 0 {
		view = unsafe.String(unsafe.SliceData(data), len(data))
	}
	parts := splitLines(data, it.pos, decodeWorkers())
	results := make([]decodedPart, len(parts))
	var wg sync.WaitGroup
	for i, pt := range parts {
		// Line numbers (for warnings) count from the part's start; the
		// parts' line counts turn them into the file's below.
		it := lineIter{data: data[:pt[1]], pos: pt[0]}
		if len(parts) == 1 {
			results[i] = decodePart(data, view, it)
			break
		}
		wg.Go(func() { results[i] = decodePart(data, view, it) })
	}
	wg.Wait()
	num := it.num
	for i := range results {
		for _, w := range results[i].warnings {
			p.warnings = append(p.warnings, w.text(name, num+w.line))
		}
		num += results[i].lines
	}
	n := 0
	for _, r := range results {
		n += len(r.entries)
	}
	p.entries = make([]*Entry, 0, n)
	var unknown []string
	seenUnknown := map[string]bool{}
	for _, r := range results {
		p.entries = append(p.entries, r.entries...)
		for _, t := range r.unknown {
			if !seenUnknown[t] {
				seenUnknown[t] = true
				unknown = append(unknown, fmt.Sprintf("%q", t))
			}
		}
	}
	if len(unknown) > 0 {
		p.warnings = append(p.warnings, fmt.Sprintf("session has entries of unknown types: %s (kept in the file, skipped in the context)", strings.Join(unknown, ", ")))
	}
}

// parallelMin is the size from which a file's lines are decoded in
// parts, and about the smallest part; decodeWorkers is how many parts at
// most. (Variables for tests.)
var (
	parallelMin   = 4 << 20
	decodeWorkers = func() int { return runtime.GOMAXPROCS(0) }
)

// splitLines cuts data[from:] into at most n parts of whole lines, as
// [start, end) offsets; one part when it is small.
func splitLines(data []byte, from, n int) [][2]int {
	size := len(data) - from
	if n > size/parallelMin {
		n = size / parallelMin
	}
	if n < 1 {
		n = 1
	}
	parts := make([][2]int, 0, n)
	start := from
	for i := 1; i < n; i++ {
		cut := from + size*i/n
		if cut < start {
			continue
		}
		nl := bytes.IndexByte(data[cut:], '\n')
		if nl < 0 {
			break
		}
		parts = append(parts, [2]int{start, cut + nl + 1})
		start = cut + nl + 1
	}
	return append(parts, [2]int{start, len(data)})
}

// decodedPart is what decoding one part of a file gave.
type decodedPart struct {
	entries  []*Entry
	warnings []partWarning
	unknown  []string // entry types lunar does not know, in order of first appearance
	lines    int      // the part's lines
}

// partWarning is a warning about line line of a part.
type partWarning struct {
	line int
	text func(name string, num int) string
}

// warn records a warning about the current line.
func (r *decodedPart) warn(num int, text func(name string, num int) string) {
	r.warnings = append(r.warnings, partWarning{num, text})
}

// decodePart decodes the lines it walks with a decoder of its own.
func decodePart(data []byte, view string, it lineIter) decodedPart {
	var r decodedPart
	ip := &inPlace{}
	d := decoder{
		scanner: scanner{data: data, view: view, arena: &arena{}, inPlace: ip},
		lenient: true,
		slab:    &slab{},
	}
	seen := map[string]bool{}
	for {
		line, start, terminated, ok := it.next()
		if !ok {
			break
		}
		if isBlank(line) {
			continue
		}
		// Decode in place: positions stay offsets into data so that
		// zero-copy strings are substrings of the whole-file view.
		d.data = data[:start+len(line)]
		d.pos = start
		ip.startLine(start)
		e := d.slab.entry()
		if d.peek() != '{' {
			if err := d.skip(0); err == nil && d.end() == nil {
				r.warn(it.num, func(name string, num int) string {
					return fmt.Sprintf("%s line %d: not a JSON object, skipped", name, num)
				})
			} else {
				r.warnBadLine(it.num, terminated, errSyntax)
			}
			*e = Entry{}
			continue
		}
		hasID, err := d.entry(e)
		if err == nil {
			err = d.end()
		}
		if err != nil {
			r.warnBadLine(it.num, terminated, err)
			*e = Entry{}
			continue
		}
		if !hasID {
			typ := e.Type
			r.warn(it.num, func(name string, num int) string {
				return fmt.Sprintf("%s line %d: %q entry without an id ignored", name, num, typ)
			})
			*e = Entry{}
			continue
		}
		if e.inPlace = ip.take(line[:len(line):len(line)], d.slab); e.inPlace == nil {
			e.Raw = line[:len(line):len(line)]
		}
		if !knownTypes[e.Type] && !seen[e.Type] {
			seen[e.Type] = true
			r.unknown = append(r.unknown, e.Type)
		}
		r.entries = append(r.entries, e)
	}
	r.lines = it.num
	return r
}

// warnBadLine records a line that is not valid JSON (as
// parsed.warnBadLine words it).
func (r *decodedPart) warnBadLine(num int, terminated bool, err error) {
	r.warn(num, func(name string, num int) string {
		var p parsed
		p.warnBadLine(name, num, terminated, err)
		return p.warnings[0]
	})
}
