package session

// Session discovery: the per-cwd folder, listing, the most recent
// session, and finding a session by id prefix.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unsafe"
)

// ErrNotFound is wrapped when no session matches an id.
var ErrNotFound = errors.New("no such session")

// Dir returns the session folder for cwd under root, named as pi names
// it: "--" + cwd without its leading / or \, with / \ : turned into -,
// + "--".
func Dir(root, cwd string) string {
	s := cwd
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, `\`) {
		s = s[1:]
	}
	s = strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(s)
	return filepath.Join(root, "--"+s+"--")
}

// Info describes a session file for listings.
type Info struct {
	Path          string
	ID            string
	Cwd           string
	Name          string // from the latest session_info entry
	FirstMessage  string // text of the first user message, or "!command" of a first !cmd ("" if none)
	Modified      time.Time
	MessageCount  int // message entries, all roles
	ParentSession string
}

// List lists the sessions of cwd, newest first (by modification time).
func List(root, cwd string) ([]Info, error) {
	return ListDir(Dir(root, cwd))
}

// ListDir lists the sessions in one folder, newest first. A missing
// folder has none. Files that are not sessions are skipped.
func ListDir(dir string) ([]Info, error) {
	infos, err := listDir(dir)
	sortInfos(infos)
	return infos, err
}

func listDir(dir string) ([]Info, error) {
	names, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var infos []Info
	for _, de := range names {
		if de.IsDir() || !strings.HasSuffix(de.Name(), ".jsonl") {
			continue
		}
		if in, ok := scanInfo(filepath.Join(dir, de.Name())); ok {
			infos = append(infos, in)
		}
	}
	return infos, nil
}

// ListAll lists the sessions of every folder under root, newest first.
func ListAll(root string) ([]Info, error) {
	dirs, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var all []Info
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		infos, err := listDir(filepath.Join(root, d.Name()))
		if err != nil {
			return nil, err
		}
		all = append(all, infos...)
	}
	sortInfos(all)
	return all, nil
}

func sortInfos(infos []Info) {
	sort.SliceStable(infos, func(i, j int) bool { return infos[i].Modified.After(infos[j].Modified) })
}

// Describe describes one session file as List does; ok is false when it
// is not a session.
func Describe(path string) (Info, bool) {
	return scanInfo(path)
}

// scanInfo reads a session file for its listing. Files without a valid
// header are not sessions (ok false).
func scanInfo(path string) (Info, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Info{}, false
	}
	fi, err := os.Stat(path)
	if err != nil {
		return Info{}, false
	}
	in := Info{Path: path, Modified: fi.ModTime()}
	view := ""
	if len(data) > 0 {
		view = unsafe.String(unsafe.SliceData(data), len(data))
	}
	it := lineIter{data: data}
	header := false
	for {
		line, start, _, ok := it.next()
		if !ok {
			break
		}
		if isBlank(line) {
			continue
		}
		// Strings decoded here share data; the few kept are cloned.
		d := decoder{scanner: scanner{data: data[:start+len(line)], pos: start, view: view}, lenient: true}
		if !header {
			var h Header
			valid, err := d.header(&h)
			if err != nil || d.end() != nil {
				continue
			}
			if !valid {
				return Info{}, false
			}
			header = true
			in.ID, in.Cwd, in.ParentSession = strings.Clone(h.ID), strings.Clone(h.Cwd), strings.Clone(h.ParentSession)
			continue
		}
		// Most lines need no decoding (a large folder lists fast): pi and
		// lunar write "type" first, so a message is counted by its first
		// bytes, and only the lines that may give the first user message
		// or the name are decoded.
		if typ, ok := lineType(line); ok {
			if typ != TypeMessage && typ != TypeSessionInfo {
				continue
			}
			if typ == TypeMessage && in.FirstMessage != "" {
				in.MessageCount++
				continue
			}
		}
		var e Entry
		if _, err := d.entry(&e); err != nil || d.end() != nil {
			continue
		}
		switch e.Type {
		case TypeSessionInfo:
			in.Name = strings.Clone(strings.TrimSpace(e.Name()))
		case TypeMessage:
			in.MessageCount++
			if in.FirstMessage != "" || e.Message == nil {
				break
			}
			switch e.Message.Role {
			case RoleUser:
				in.FirstMessage = strings.Clone(messageText(e.Message))
			case RoleBashExecution:
				// A session begun with the REPL's !cmd is titled by it.
				in.FirstMessage = "!" + strings.Clone(e.Message.Command())
			}
		}
	}
	return in, header
}

// typePrefix starts every entry line pi and lunar write.
var typePrefix = []byte(`{"type":"`)

// lineType returns the type of an entry line from its first bytes; ok is
// false when the line does not start with the type or looks cut short
// (a torn last line): decode it to know.
func lineType(line []byte) (string, bool) {
	line = bytes.TrimRight(line, " \t\r")
	if !bytes.HasPrefix(line, typePrefix) || !bytes.HasSuffix(line, []byte("}")) {
		return "", false
	}
	rest := line[len(typePrefix):]
	i := bytes.IndexByte(rest, '"')
	if i < 0 || bytes.IndexByte(rest[:i], '\\') >= 0 {
		return "", false
	}
	return unsafe.String(unsafe.SliceData(rest), i), true
}

// messageText joins a message's text blocks with spaces, as pi's session
// list does.
func messageText(m *Message) string {
	if m.ContentIsString {
		return m.Text()
	}
	var parts []string
	for _, b := range m.Content {
		if b.Type == BlockText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, " ")
}

// MostRecent returns the most recently modified session file of cwd, or
// "" when there is none.
func MostRecent(root, cwd string) (string, error) {
	return MostRecentDir(Dir(root, cwd))
}

// MostRecentDir returns the most recently modified session file in dir,
// or "" when there is none.
func MostRecentDir(dir string) (string, error) {
	names, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("find recent session: %w", err)
	}
	var best string
	var bestTime time.Time
	for _, de := range names {
		if de.IsDir() || !strings.HasSuffix(de.Name(), ".jsonl") {
			continue
		}
		path := filepath.Join(dir, de.Name())
		fi, err := de.Info()
		if err != nil {
			continue
		}
		if best != "" && !fi.ModTime().After(bestTime) {
			continue
		}
		if _, ok := readHeader(path); ok {
			best, bestTime = path, fi.ModTime()
		}
	}
	return best, nil
}

// readHeader reads the header of a session file (its first line that
// parses) without reading the rest.
func readHeader(path string) (Header, bool) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, false
	}
	defer f.Close()
	r := bufio.NewReaderSize(io.LimitReader(f, 4<<20), 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var h Header
			d := decoder{scanner: scanner{data: line}, lenient: true}
			valid, perr := d.header(&h)
			if perr == nil && d.end() == nil {
				return h, valid
			}
		}
		if err != nil {
			return Header{}, false
		}
	}
}

// Find returns the session file whose id starts with idOrPrefix, looking
// in cwd's folder first and then in every folder under root. A prefix
// matching several sessions in the same search is an error listing them.
func Find(root, cwd, idOrPrefix string) (string, error) {
	if idOrPrefix == "" {
		return "", errors.New("find session: empty id")
	}
	own := Dir(root, cwd)
	matches, err := findIn([]string{own}, idOrPrefix)
	if err != nil || len(matches) == 1 {
		return pick(matches, idOrPrefix, err)
	}
	if len(matches) > 1 {
		return pick(matches, idOrPrefix, nil)
	}
	dirs, err := os.ReadDir(root)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("find session: %w", err)
	}
	var others []string
	for _, d := range dirs {
		if p := filepath.Join(root, d.Name()); d.IsDir() && p != own {
			others = append(others, p)
		}
	}
	matches, err = findIn(others, idOrPrefix)
	return pick(matches, idOrPrefix, err)
}

type match struct{ id, path string }

func findIn(dirs []string, prefix string) ([]match, error) {
	var out []match
	for _, dir := range dirs {
		names, err := os.ReadDir(dir)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("find session: %w", err)
		}
		for _, de := range names {
			if de.IsDir() || !strings.HasSuffix(de.Name(), ".jsonl") {
				continue
			}
			path := filepath.Join(dir, de.Name())
			if h, ok := readHeader(path); ok && strings.HasPrefix(h.ID, prefix) {
				out = append(out, match{h.ID, path})
			}
		}
	}
	return out, nil
}

func pick(matches []match, prefix string, err error) (string, error) {
	if err != nil {
		return "", err
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("find session %q: %w", prefix, ErrNotFound)
	case 1:
		return matches[0].path, nil
	}
	for _, m := range matches {
		if m.id == prefix {
			return m.path, nil
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "session id %q is ambiguous; it matches:", prefix)
	for _, m := range matches {
		fmt.Fprintf(&b, "\n  %s  %s", m.id, m.path)
	}
	return "", errors.New(b.String())
}
