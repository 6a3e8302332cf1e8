package session

// Tree operations: lookup, paths, the leaf, branching, the tree view and
// forking a path into a new session file.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// TreeNode is an entry in the tree view with its children (oldest first)
// and its current label.
type TreeNode struct {
	Entry    *Entry
	Children []*TreeNode
	Label    string
}

// LeafID returns the id of the leaf entry; "" when the leaf is before the
// first entry (an empty session, or after Branch("")).
func (s *Session) LeafID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.leafID()
}

// Get returns the entry with the given id, or nil.
func (s *Session) Get(id string) *Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i, ok := s.index[id]; ok {
		return s.entries[i]
	}
	return nil
}

// Entries returns every entry in file order (the header excluded). The
// slice is a copy; the entries themselves must not be modified.
func (s *Session) Entries() []*Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.entries)
}

// Path returns the entries from the root to id ("" means the leaf). It is
// empty when id is unknown or the leaf is before the first entry.
func (s *Session) Path(id string) []*Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.path(id)
}

func (s *Session) path(id string) []*Entry {
	start := s.leaf
	if id != "" {
		i, ok := s.index[id]
		if !ok {
			return nil
		}
		start = i
	}
	if start < 0 {
		return nil
	}
	n := 0
	// Walk up once to size the result; the step limit guards against
	// parent cycles in hand-edited files.
	for i := start; i >= 0 && n <= len(s.entries); i = s.parent[i] {
		n++
	}
	if n > len(s.entries) {
		n = len(s.entries)
	}
	path := make([]*Entry, n)
	for i, k := start, n-1; i >= 0 && k >= 0; i, k = s.parent[i], k-1 {
		path[k] = s.entries[i]
	}
	return path
}

// Branch moves the leaf to id, so the next entry starts a new branch
// there. "" moves it before the first entry (an empty context). Nothing
// is written: after a reload the leaf is the last entry again.
func (s *Session) Branch(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == "" {
		s.leaf = -1
		return nil
	}
	i, ok := s.index[id]
	if !ok {
		return fmt.Errorf("branch: entry %q not found", id)
	}
	s.leaf = i
	return nil
}

// BranchWithSummary moves the leaf to id ("" = before the first entry)
// and appends a branch_summary entry there carrying a summary of the
// branch being left. Its fromId is id, or "root".
func (s *Session) BranchWithSummary(id, summary string, details json.RawMessage, fromHook bool) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", ErrClosed
	}
	if s.readOnly {
		return "", ErrReadOnly
	}
	leaf := int32(-1)
	fromID := "root"
	if id != "" {
		i, ok := s.index[id]
		if !ok {
			return "", fmt.Errorf("branch: entry %q not found", id)
		}
		leaf, fromID = i, id
	}
	old := s.leaf
	s.leaf = leaf
	newID, err := s.appendLocked(&Entry{Type: TypeBranchSummary, Fields: &EntryFields{FromID: fromID, Summary: summary, Details: details, FromHook: fromHook}})
	if err != nil && newID == "" {
		s.leaf = old
	}
	return newID, err
}

// Tree returns the whole session as a forest: roots are entries whose
// parent is null, themselves, or missing. Children are sorted by
// timestamp, oldest first.
func (s *Session) Tree() []*TreeNode {
	s.mu.Lock()
	defer s.mu.Unlock()
	nodes := make([]TreeNode, len(s.entries))
	millis := make([]int64, len(s.entries))
	for i, e := range s.entries {
		nodes[i] = TreeNode{Entry: e, Label: s.labels[e.ID].label}
		millis[i] = isoMillis(e.Timestamp)
	}
	var roots []*TreeNode
	for i := range s.entries {
		if p := s.parent[i]; p >= 0 {
			nodes[p].Children = append(nodes[p].Children, &nodes[i])
		} else {
			roots = append(roots, &nodes[i])
		}
	}
	pos := make(map[*TreeNode]int, len(nodes))
	for i := range nodes {
		pos[&nodes[i]] = i
	}
	for i := range nodes {
		if c := nodes[i].Children; len(c) > 1 {
			sort.SliceStable(c, func(a, b int) bool { return millis[pos[c[a]]] < millis[pos[c[b]]] })
		}
	}
	return roots
}

// BuildContext builds the model context over the current leaf.
func (s *Session) BuildContext() Context {
	s.mu.Lock()
	path := s.path("")
	s.mu.Unlock()
	return BuildContext(path)
}

// PathSettings returns the settings of the path to the current leaf
// (see PathSettingsOf).
func (s *Session) PathSettings() PathSettings {
	s.mu.Lock()
	path := s.path("")
	s.mu.Unlock()
	return PathSettingsOf(path)
}

// Fork copies the path from the root to id ("" = the leaf) into a new
// session in dir whose header names this session as parentSession, as
// pi's createBranchedSession does: label entries are left out of the path
// (entries after them are re-chained) and the labels of path entries are
// re-created after it with their original timestamps. The new file is
// written and locked at once. An empty dir gives an in-memory fork.
func (s *Session) Fork(id, dir string) (*Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := s.path(id)
	if len(path) == 0 {
		if id == "" {
			return nil, errors.New("fork: the session has no entries")
		}
		return nil, fmt.Errorf("fork: entry %q not found", id)
	}
	parent := ""
	if s.persist {
		parent = s.file
	}
	ns := newSession(newHeader(s.header.Cwd, parent))
	if dir != "" {
		ns.persist = true
		ns.force = true
		ns.file = filepath.Join(dir, fileName(ns.header.Timestamp, ns.header.ID))
	}
	prev := ""
	for _, e := range path {
		if e.Type == TypeLabel {
			continue
		}
		c := e
		if e.ParentID != prev {
			c = new(Entry)
			*c = *e
			c.ParentID = prev
			c.inPlace = nil
			raw, err := reparent(e, prev)
			if err != nil {
				return nil, fmt.Errorf("fork: entry %s: %w", e.ID, err)
			}
			c.Raw = raw
		}
		ns.add(c)
		prev = c.ID
	}
	type pending struct {
		target string
		st     labelState
	}
	var labels []pending
	for target, st := range s.labels {
		if _, ok := ns.index[target]; ok {
			labels = append(labels, pending{target, st})
		}
	}
	sort.Slice(labels, func(a, b int) bool { return labels[a].st.seq < labels[b].st.seq })
	for _, l := range labels {
		e := &Entry{Type: TypeLabel, ID: NewEntryID(ns.hasID), ParentID: prev, Timestamp: l.st.timestamp, Fields: &EntryFields{TargetID: l.target, Label: l.st.label}}
		line, err := appendEntry(nil, e)
		if err != nil {
			return nil, fmt.Errorf("fork: %w", err)
		}
		e.Raw = line
		ns.add(e)
		prev = e.ID
	}
	if err := ns.persistPending(); err != nil {
		ns.discard()
		return nil, fmt.Errorf("fork: %w", err)
	}
	if err := ns.syncLocked(); err != nil {
		ns.discard()
		return nil, fmt.Errorf("fork: %w", err)
	}
	return ns, nil
}

// ForkFile copies every entry of the session file at path, in file
// order, into a new session in dir whose header has cwd as its working
// folder and path as its parentSession: pi's --fork
// (SessionManager.forkFrom). Other branches, labels and entries of
// unknown types come along; the leaf is the last entry, as when the file
// is loaded. (Fork copies one path, as pi's /clone and /fork do.) An old
// file is copied migrated; lines Load skips are left out, as pi leaves
// out lines it cannot parse, and its warnings are the fork's. The new
// file is written and locked at once; an empty dir gives an in-memory
// fork.
func ForkFile(path, dir, cwd string) (*Session, error) {
	src, err := Load(path)
	if err != nil {
		return nil, fmt.Errorf("fork: %w", err)
	}
	if len(src.entries) == 0 {
		return nil, fmt.Errorf("fork %s: the session has no entries", src.file)
	}
	ns := newSession(newHeader(cwd, src.file))
	ns.warnings = src.warnings
	if dir != "" {
		ns.persist = true
		ns.force = true
		ns.file = filepath.Join(dir, fileName(ns.header.Timestamp, ns.header.ID))
	}
	ns.entries = make([]*Entry, 0, len(src.entries))
	ns.parent = make([]int32, 0, len(src.entries))
	ns.index = make(map[string]int32, len(src.entries))
	var buf []byte
	for _, e := range src.entries {
		// pi writes JSON.stringify(JSON.parse(line)): the line as lunar
		// or pi wrote it; a line written otherwise (spaces, number
		// forms, escapes) is normalised.
		if line := e.line(); line != nil {
			if v, err := parseJS(line); err == nil {
				if buf = appendJS(buf[:0], v); !bytes.Equal(buf, line) {
					c := new(Entry)
					*c = *e
					c.inPlace, c.Raw = nil, bytes.Clone(buf)
					e = c
				}
			}
		}
		ns.add(e)
	}
	if err := ns.persistPending(); err != nil {
		ns.discard()
		return nil, fmt.Errorf("fork: %w", err)
	}
	if err := ns.syncLocked(); err != nil {
		ns.discard()
		return nil, fmt.Errorf("fork: %w", err)
	}
	return ns, nil
}

// discard abandons a half-written fork.
func (s *Session) discard() {
	if s.f != nil {
		s.f.Close()
		os.Remove(s.file)
	}
	if s.lock != nil {
		s.lock.release()
	}
	s.closed = true
}

// reparent returns e's line with parentId replaced, as pi's
// {...entry, parentId} re-serialised by JSON.stringify (every other key
// and value kept, in place).
func reparent(e *Entry, parentID string) ([]byte, error) {
	line := e.line()
	if line == nil {
		c := *e
		c.ParentID = parentID
		return appendEntry(nil, &c)
	}
	v, err := parseJS(line)
	if err != nil {
		return nil, err
	}
	p := jsValue{}
	if parentID != "" {
		p = jsStr(parentID)
	}
	v.obj.set("parentId", p)
	return appendJS(nil, v), nil
}
