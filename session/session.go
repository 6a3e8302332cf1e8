package session

// The Session type: an append-only entry tree kept in memory and mirrored
// line by line to its JSONL file.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// ErrClosed is returned by writes to a closed session.
var ErrClosed = errors.New("session is closed")

// ErrReadOnly is returned by writes to a session opened with Load.
var ErrReadOnly = errors.New("session was loaded read-only")

// Session is one conversation tree. Its methods may be called from several
// goroutines: an internal mutex serialises them.
//
// Persistence is lazy like pi's: a new session writes nothing until its
// first assistant message is appended (or Persist is called); then the
// header and every buffered entry are written, and each later entry is
// appended as one line with one write call. Sync makes the writes durable.
type Session struct {
	mu sync.Mutex

	header   Header
	file     string // target file; "" in memory
	persist  bool
	readOnly bool

	entries []*Entry
	index   map[string]int32 // id → position in entries (a later duplicate wins, as in pi)
	parent  []int32          // position of each entry's parent, -1 for none
	leaf    int32            // -1: before the first entry

	labels       map[string]labelState
	labelSeq     int
	name         string
	hasAssistant bool

	f            *os.File
	lock         *fileLock
	headerOnDisk bool
	written      int  // entries already on disk
	force        bool // Persist was called
	needNewline  bool // the file does not end with a newline
	closed       bool
	wbuf         []byte

	// dirty: lines were written since the file was last fsynced;
	// dirPending: the file was created by this process and its folder
	// entry is not fsynced yet. Sync does both (and only what is due), so
	// creating the file, which the agent does as the request goes out,
	// waits for no disk.
	dirty, dirPending bool

	warnings []string
}

// labelState is the current label of one target, with JavaScript Map
// ordering (seq) for re-creating labels in forks the way pi does.
type labelState struct {
	label     string
	timestamp string
	seq       int
}

func newSession(h Header) *Session {
	return &Session{header: h, index: map[string]int32{}, labels: map[string]labelState{}, leaf: -1}
}

func newHeader(cwd, parent string) Header {
	now := nowFunc()
	return Header{Type: TypeSession, Version: CurrentVersion, ID: newUUIDv7(now), Timestamp: formatISO(now), Cwd: cwd, ParentSession: parent}
}

// Create starts a new session whose file will be in dir (already the
// per-cwd folder, see Dir). Nothing is written before the first assistant
// message or a call to Persist.
func Create(dir, cwd string) (*Session, error) {
	return CreateChild(dir, cwd, "")
}

// CreateChild is Create with the header's parentSession set to parent
// (the session file this one continues from, pi's handoff).
func CreateChild(dir, cwd, parent string) (*Session, error) {
	if dir == "" {
		return nil, errors.New("create session: no session folder given")
	}
	s := newSession(newHeader(cwd, parent))
	s.file = filepath.Join(dir, fileName(s.header.Timestamp, s.header.ID))
	s.persist = true
	return s, nil
}

// CreateInMemory starts a session that never touches the disk
// (--no-session).
func CreateInMemory(cwd string) *Session {
	return newSession(newHeader(cwd, ""))
}

// CreateChildInMemory is CreateInMemory with a parentSession.
func CreateChildInMemory(cwd, parent string) *Session {
	return newSession(newHeader(cwd, parent))
}

// Open loads a session file (migrating it if it is old) and locks it for
// appending. A file whose first line is not a session header is refused
// with an error wrapping ErrNoHeader and left exactly as it is: unlike pi,
// which resets such a file, lunar never writes into what may be a file of
// the user's given by mistake (--session notes.txt). An empty file becomes
// a new session. A migrated file keeps its original as "<file>.v<N>.bak".
// A session locked by another process gives a *LockError.
func Open(path string) (*Session, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", path, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	// Refuse a file that is no session before making a lock file beside it.
	if _, ok := readHeader(abs); !ok && !blankFile(abs) {
		return nil, notSessionError(abs)
	}
	lk, err := acquireLock(abs)
	if err != nil {
		return nil, err
	}
	s, err := openLocked(abs)
	if err != nil {
		lk.release()
		return nil, err
	}
	s.lock = lk
	return s, nil
}

func openLocked(path string) (*Session, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	p, err := parseData(path, data)
	switch {
	case errors.Is(err, ErrNoHeader) && isBlank(data):
		if p, err = startInFile(path); err != nil {
			return nil, err
		}
	case errors.Is(err, ErrNoHeader):
		return nil, notSessionError(path)
	case err != nil:
		return nil, err
	case p.migrated != nil:
		backup, err := backupFile(path, fmt.Sprintf(".v%d.bak", p.migratedFrom))
		if err != nil {
			return nil, fmt.Errorf("migrate %s: %w", path, err)
		}
		if err := writeAtomic(path, p.migrated); err != nil {
			return nil, fmt.Errorf("migrate %s: %w", path, err)
		}
		p.warnings = append(p.warnings, fmt.Sprintf("%s: the original is kept as %s", path, backup))
		p.needNewline = false
		p.migrated = nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	s := fromParsed(p)
	s.file = path
	s.persist = true
	s.f = f
	s.headerOnDisk = true
	s.written = len(s.entries)
	s.needNewline = p.needNewline
	return s, nil
}

// notSessionError is Open's error for a file that is not a session.
func notSessionError(path string) error {
	return fmt.Errorf("open session %s: %w (the file is left as it is)", path, ErrNoHeader)
}

// blankFile reports whether the file at path holds nothing but whitespace
// (an unreadable file is not blank).
func blankFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		n, err := f.Read(buf)
		if !isBlank(buf[:n]) {
			return false
		}
		if err != nil {
			return err == io.EOF
		}
	}
}

// startInFile starts a new session in an empty file: its header is
// written at once, as the file exists already.
func startInFile(path string) (*parsed, error) {
	cwd, err := os.Getwd()
	if err != nil {
		cwd = filepath.Dir(path)
	}
	h := newHeader(cwd, "")
	line := appendHeader(nil, &h)
	if err := writeAtomic(path, append(line, '\n')); err != nil {
		return nil, fmt.Errorf("open session %s: %w", path, err)
	}
	h.Raw = line
	return &parsed{header: h}, nil
}

// Load reads a session file without locking it or writing to it, for
// listing and export. An old file is migrated in memory only. Appending to
// the result fails with ErrReadOnly; Branch and Fork work.
func Load(path string) (*Session, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", path, err)
	}
	data, err := readFile(abs)
	if err != nil {
		return nil, fmt.Errorf("load session: %w", err)
	}
	p, err := parseData(abs, data)
	if err != nil {
		return nil, err
	}
	s := fromParsed(p)
	s.file = abs
	s.persist = true
	s.readOnly = true
	return s, nil
}

// fromParsed builds the in-memory tree of a loaded file.
func fromParsed(p *parsed) *Session {
	s := newSession(p.header)
	s.warnings = p.warnings
	s.entries = p.entries
	s.index = make(map[string]int32, len(p.entries))
	dups := false
	for i, e := range s.entries {
		if j, dup := s.index[e.ID]; dup {
			dups = true
			s.warnings = append(s.warnings, fmt.Sprintf("duplicate entry id %q (entries %d and %d); lookups find the later one", e.ID, j+1, i+1))
		}
		s.index[e.ID] = int32(i)
		s.noteEntry(e)
	}
	s.parent = make([]int32, len(s.entries))
	for i, e := range s.entries {
		// Most entries follow their parent: without duplicate ids, the
		// entry before is the one the index would find.
		if i > 0 && !dups && e.ParentID != "" && e.ParentID == s.entries[i-1].ID && e.ParentID != e.ID {
			s.parent[i] = int32(i - 1)
			continue
		}
		s.parent[i] = s.parentOf(e)
	}
	s.leaf = int32(len(s.entries)) - 1
	return s
}

// parentOf resolves an entry's parent position (-1: a root).
func (s *Session) parentOf(e *Entry) int32 {
	if e.ParentID == "" || e.ParentID == e.ID {
		return -1
	}
	if j, ok := s.index[e.ParentID]; ok {
		return j
	}
	return -1
}

// noteEntry updates the derived state (labels, name, assistant seen).
func (s *Session) noteEntry(e *Entry) {
	switch e.Type {
	case TypeLabel:
		if e.Label() != "" {
			st, ok := s.labels[e.TargetID()]
			if !ok {
				s.labelSeq++
				st.seq = s.labelSeq
			}
			st.label, st.timestamp = e.Label(), e.Timestamp
			s.labels[e.TargetID()] = st
		} else {
			delete(s.labels, e.TargetID())
		}
	case TypeSessionInfo:
		s.name = strings.TrimSpace(e.Name())
	case TypeMessage:
		if e.Message != nil && e.Message.Role == RoleAssistant {
			s.hasAssistant = true
		}
	}
}

// add puts a new entry into the tree and makes it the leaf.
func (s *Session) add(e *Entry) {
	i := int32(len(s.entries))
	s.entries = append(s.entries, e)
	s.index[e.ID] = i
	s.parent = append(s.parent, s.parentOf(e))
	s.leaf = i
	s.noteEntry(e)
}

// Warnings returns what loading reported: skipped lines, unknown entry
// types, migration, header repair.
func (s *Session) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.warnings...)
}

// Header returns the session header.
func (s *Session) Header() Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.header
}

// ID returns the session id (a UUID).
func (s *Session) ID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.header.ID
}

// File returns the session file path, even before it exists on disk; ""
// for an in-memory session.
func (s *Session) File() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.file
}

// Cwd returns the working directory recorded in the header.
func (s *Session) Cwd() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.header.Cwd
}

// writableRoles are the message roles stored in message entries.
var writableRoles = map[string]bool{RoleUser: true, RoleAssistant: true, RoleToolResult: true, RoleBashExecution: true, RoleCustom: true}

// Append adds e as a child of the leaf and makes it the leaf. It fills
// ID (a new 8-hex id), ParentID (the leaf) and Timestamp (now, unless
// set) and sets Raw to the encoded line. If writing fails the entry stays
// in the session and is written by the next successful Append or Sync.
func (s *Session) Append(e *Entry) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.appendLocked(e)
}

func (s *Session) appendLocked(e *Entry) (string, error) {
	if s.closed {
		return "", ErrClosed
	}
	if s.readOnly {
		return "", ErrReadOnly
	}
	switch {
	case !knownTypes[e.Type]:
		return "", fmt.Errorf("append: unknown entry type %q", e.Type)
	case e.Type == TypeMessage && e.Message == nil:
		return "", errors.New("append: message entry without a message")
	case e.Type == TypeMessage && !writableRoles[e.Message.Role]:
		return "", fmt.Errorf("append: messages with role %q are not stored (summaries are compaction and branch_summary entries)", e.Message.Role)
	case e.Type == TypeLabel && !s.hasID(e.TargetID()):
		return "", fmt.Errorf("append label: entry %q not found", e.TargetID())
	}
	e.ID = NewEntryID(s.hasID)
	e.ParentID = s.leafID()
	if e.Timestamp == "" {
		e.Timestamp = formatISO(nowFunc())
	}
	line, err := appendEntry(make([]byte, 0, 256), e)
	if err != nil {
		return "", fmt.Errorf("append %s entry: %w", e.Type, err)
	}
	e.Raw = line[:len(line):len(line)]
	s.add(e)
	return e.ID, s.persistPending()
}

func (s *Session) hasID(id string) bool {
	_, ok := s.index[id]
	return ok
}

func (s *Session) leafID() string {
	if s.leaf < 0 {
		return ""
	}
	return s.entries[s.leaf].ID
}

// AppendMessage appends a message entry (user, assistant, toolResult,
// bashExecution or custom). The message is copied.
func (s *Session) AppendMessage(m *Message) (string, error) {
	if m == nil {
		return "", errors.New("append: nil message")
	}
	mc := *m
	return s.Append(&Entry{Type: TypeMessage, Message: &mc})
}

// AppendModelChange appends a model_change entry.
func (s *Session) AppendModelChange(provider, modelID string) (string, error) {
	return s.Append(&Entry{Type: TypeModelChange, Fields: &EntryFields{Provider: provider, ModelID: modelID}})
}

// AppendThinkingLevel appends a thinking_level_change entry.
func (s *Session) AppendThinkingLevel(level string) (string, error) {
	return s.Append(&Entry{Type: TypeThinkingLevelChange, Fields: &EntryFields{ThinkingLevel: level}})
}

// AppendCustom appends a custom entry (hook state, never sent to the
// model). data may be nil (no data key).
func (s *Session) AppendCustom(customType string, data json.RawMessage) (string, error) {
	return s.Append(&Entry{Type: TypeCustom, Fields: &EntryFields{CustomType: customType, Data: data}})
}

// AppendCustomMessage appends a custom_message entry, which context
// building turns into a custom (user-role) message. details may be nil.
func (s *Session) AppendCustomMessage(customType string, content []ContentBlock, display bool, details json.RawMessage) (string, error) {
	return s.Append(&Entry{Type: TypeCustomMessage, Fields: &EntryFields{CustomType: customType, Content: content, Display: display, Details: details}})
}

// AppendCompaction appends a compaction entry: context building replaces
// everything on the path before firstKeptEntryID with summary. fromHook
// marks summaries supplied by a hook.
func (s *Session) AppendCompaction(summary, firstKeptEntryID string, tokensBefore int, details json.RawMessage, fromHook bool) (string, error) {
	return s.Append(&Entry{Type: TypeCompaction,
		Fields: &EntryFields{Summary: summary, FirstKeptEntryID: firstKeptEntryID, TokensBefore: tokensBefore, Details: details, FromHook: fromHook}})
}

// SetLabel labels the entry targetID (an empty label clears it) by
// appending a label entry; the latest label entry for a target wins.
func (s *Session) SetLabel(targetID, label string) (string, error) {
	return s.Append(&Entry{Type: TypeLabel, Fields: &EntryFields{TargetID: targetID, Label: label}})
}

// Label returns the current label of an entry ("" if none).
func (s *Session) Label(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.labels[id].label
}

// SetName names the session by appending a session_info entry. Line
// breaks become spaces and the name is trimmed; an empty name clears it.
func (s *Session) SetName(name string) (string, error) {
	name = strings.TrimSpace(strings.Join(strings.FieldsFunc(name, func(r rune) bool { return r == '\n' || r == '\r' }), " "))
	return s.Append(&Entry{Type: TypeSessionInfo, Fields: &EntryFields{Name: name}})
}

// Name returns the session name from the latest session_info entry.
func (s *Session) Name() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.name
}

// Persist makes the session write to disk now instead of waiting for its
// first assistant message (the header and any buffered entries are
// written). It does nothing for in-memory sessions.
func (s *Session) Persist() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if s.readOnly || !s.persist {
		return nil
	}
	s.force = true
	return s.persistPending()
}

// OnDisk reports whether the session file has been created (by this
// process or, for a session opened from a file, before). An in-memory
// session is never on disk.
func (s *Session) OnDisk() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f != nil || s.headerOnDisk
}

// Sync writes anything still pending and fsyncs the file. The agent calls
// it at the end of every turn.
func (s *Session) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	return s.syncLocked()
}

func (s *Session) syncLocked() error {
	if err := s.persistPending(); err != nil {
		return err
	}
	if s.f == nil {
		return nil
	}
	if s.dirty {
		if err := fsyncFile(s.f); err != nil {
			return fmt.Errorf("sync %s: %w", s.file, err)
		}
		s.dirty = false
	}
	if s.dirPending {
		if err := syncDir(filepath.Dir(s.file)); err != nil {
			return fmt.Errorf("sync %s: %w", s.file, err)
		}
		s.dirPending = false
	}
	return nil
}

// Close syncs the file and releases the lock. Closing twice is harmless.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	err := s.syncLocked()
	s.closed = true
	if s.f != nil {
		if cerr := s.f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("close %s: %w", s.file, cerr)
		}
		s.f = nil
	}
	if s.lock != nil {
		if lerr := s.lock.release(); err == nil && lerr != nil {
			err = fmt.Errorf("unlock %s: %w", s.file, lerr)
		}
		s.lock = nil
	}
	return err
}

// persistPending writes what is not on disk yet, creating the file once
// the session has an assistant message (or Persist was called).
func (s *Session) persistPending() error {
	if !s.persist || s.readOnly {
		return nil
	}
	if s.f == nil {
		if !s.hasAssistant && !s.force {
			return nil
		}
		if err := s.createFile(); err != nil {
			return err
		}
	}
	if !s.headerOnDisk {
		if err := s.writeLine(appendHeader(nil, &s.header)); err != nil {
			return err
		}
		s.headerOnDisk = true
	}
	for s.written < len(s.entries) {
		if err := s.writeLine(s.entries[s.written].line()); err != nil {
			return err
		}
		s.written++
	}
	return nil
}

// createFile creates and locks the session file.
func (s *Session) createFile() error {
	dir := filepath.Dir(s.file)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create session folder: %w", err)
	}
	lk, err := acquireLock(s.file)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(s.file, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		lk.release()
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create session %s: the file already exists", s.file)
		}
		return fmt.Errorf("create session: %w", err)
	}
	s.f, s.lock = f, lk
	s.dirPending = true // fsynced with the file's first lines, by Sync
	return nil
}

// writeLine appends one line with a single write call. If the file does
// not end with a newline (a torn line), the line starts on a fresh one.
func (s *Session) writeLine(line []byte) error {
	b := s.wbuf[:0]
	if s.needNewline {
		b = append(b, '\n')
	}
	b = append(b, line...)
	b = append(b, '\n')
	n, err := s.f.Write(b)
	s.dirty = s.dirty || n > 0
	if cap(b) <= 1<<20 {
		s.wbuf = b[:0]
	} else {
		s.wbuf = nil
	}
	if err != nil {
		if n > 0 {
			s.needNewline = true
		}
		return fmt.Errorf("write %s: %w", s.file, err)
	}
	s.needNewline = false
	return nil
}
