package session

// Reading session files: tolerant line parsing (torn last line, malformed
// lines, entries without ids), header validation and the version check
// that sends old files through migration.

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
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

// decodeEntries decodes every line after the header. Strings share data's
// memory and escaped strings go to one arena; structs come from a slab.
func (p *parsed) decodeEntries(name string, data []byte, it lineIter) {
	view := ""
	if len(data) > 0 {
		view = unsafe.String(unsafe.SliceData(data), len(data))
	}
	ip := &inPlace{}
	d := decoder{
		scanner: scanner{data: data, view: view, arena: &arena{}, inPlace: ip},
		lenient: true,
		slab:    &slab{},
	}
	p.entries = make([]*Entry, 0, bytes.Count(data[it.pos:], []byte{'\n'})+1)
	var unknown []string
	seenUnknown := map[string]bool{}
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
				p.warnings = append(p.warnings, fmt.Sprintf("%s line %d: not a JSON object, skipped", name, it.num))
			} else {
				p.warnBadLine(name, it.num, terminated, errSyntax)
			}
			*e = Entry{}
			continue
		}
		hasID, err := d.entry(e)
		if err == nil {
			err = d.end()
		}
		if err != nil {
			p.warnBadLine(name, it.num, terminated, err)
			*e = Entry{}
			continue
		}
		if !hasID {
			p.warnings = append(p.warnings, fmt.Sprintf("%s line %d: %q entry without an id ignored", name, it.num, e.Type))
			*e = Entry{}
			continue
		}
		if e.inPlace = ip.take(line[:len(line):len(line)], d.slab); e.inPlace == nil {
			e.Raw = line[:len(line):len(line)]
		}
		if !knownTypes[e.Type] && !seenUnknown[e.Type] {
			seenUnknown[e.Type] = true
			unknown = append(unknown, fmt.Sprintf("%q", e.Type))
		}
		p.entries = append(p.entries, e)
	}
	if len(unknown) > 0 {
		p.warnings = append(p.warnings, fmt.Sprintf("session has entries of unknown types: %s (kept in the file, skipped in the context)", strings.Join(unknown, ", ")))
	}
}
