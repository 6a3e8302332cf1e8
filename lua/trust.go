package lua

// This file remembers which project hook folders the user trusted. Project
// hooks are code from whatever repository was cloned: they load only when
// the folder is trusted with exactly the files it holds now. A record keeps
// a sha256 over the names and contents of every file under
// .lunar/hooks.d (and the targets of its symlinks); any change makes the
// folder untrusted again.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/lunar-cli/lunar/stdlib"
)

// TrustFile is the name of the trust records in the state folder.
const TrustFile = "trust.json"

// TrustStore is the persisted set of trusted project hook folders.
type TrustStore struct {
	path string

	mu      sync.Mutex
	records map[string]trustRecord
}

type trustRecord struct {
	Hash      string `json:"hash"`
	TrustedAt string `json:"trusted_at"`
}

type trustFileJSON struct {
	Version  int                    `json:"version"`
	Projects map[string]trustRecord `json:"projects"`
}

// OpenTrustStore reads stateDir/trust.json (a missing file is an empty
// store). Changes are written back by Trust and Revoke.
func OpenTrustStore(stateDir string) (*TrustStore, error) {
	t := &TrustStore{path: filepath.Join(stateDir, TrustFile), records: map[string]trustRecord{}}
	data, err := os.ReadFile(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trust records: %w", err)
	}
	var f trustFileJSON
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("trust records %s: %w", t.path, err)
	}
	if f.Projects != nil {
		t.records = f.Projects
	}
	return t, nil
}

// Path is the file the store is kept in.
func (t *TrustStore) Path() string { return t.path }

// Trusted reports whether dir was trusted with exactly this hash.
func (t *TrustStore) Trusted(dir, hash string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, ok := t.records[dir]
	return ok && r.Hash == hash
}

// Trust records dir as trusted with hash and saves the store.
func (t *TrustStore) Trust(dir, hash string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.records[dir] = trustRecord{Hash: hash, TrustedAt: time.Now().UTC().Format(time.RFC3339)}
	return t.save()
}

// Revoke forgets dir and saves the store.
func (t *TrustStore) Revoke(dir string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.records, dir)
	return t.save()
}

func (t *TrustStore) save() error {
	data, err := json.MarshalIndent(trustFileJSON{Version: 1, Projects: t.records}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		return fmt.Errorf("trust records: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(t.path), ".trust-*.json")
	if err != nil {
		return fmt.Errorf("trust records: %w", err)
	}
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), t.path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("trust records %s: %w", t.path, err)
	}
	return nil
}

// Bounds of what HashHookDir reads: a folder past them cannot be trusted.
const (
	maxHashFiles = 10000
	maxHashBytes = 64 << 20
)

// HookDir is a hooks folder as read once: the hash a trust record keeps
// and exactly the bytes that hash covers. Project hooks load from it, never
// from the disk again, so a file swapped while the trust question is open
// (or after it) does not run: what was hashed is what loads.
type HookDir struct {
	// Dir is the folder as given.
	Dir string
	// Hash is the sha256 over every entry's name and content.
	Hash string
	// Names are the entries, sorted, a symlink as "name -> target".
	Names []string

	files map[string]hookFile // by slash-separated name under Dir
}

// hookFile is one entry of a HookDir.
type hookFile struct {
	data []byte
	err  error  // why it has no content (not a readable regular file)
	real string // the name of what it resolves to under Dir ("" outside)
}

// HashHookDir hashes what a hooks folder holds (see ReadHookDir).
func HashHookDir(dir string) (string, []string, error) {
	d, err := ReadHookDir(dir)
	if err != nil {
		return "", nil, err
	}
	return d.Hash, d.Names, nil
}

// ReadHookDir reads and hashes what a hooks folder holds: every regular
// file under dir (its name relative to dir and its content) and every
// symlink (its target as written, and the content of the regular file it
// leads to, if any). It reads nothing but regular files of at most
// MaxSourceSize and never follows a link to a folder, so links to
// /dev/zero, dangling links or lib -> / neither fail nor hang it; an entry
// it cannot read is hashed as such. The error is for a folder that cannot
// be read at all or holds more than 10000 files or 64 MiB.
func ReadHookDir(dir string) (*HookDir, error) {
	// Hash what the folder really holds when it is itself a link.
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("hash %s: %w", dir, err)
	}
	type entry struct {
		name, display string
		file          hookFile
		note          string // what else identifies the entry (hashed)
	}
	var ents []entry
	var others []string
	total := 0
	read := func(p string, e *entry) string {
		data, err := stdlib.ReadRegular(p, MaxSourceSize)
		if err != nil {
			e.file.err = unwrapPath(err)
			return "unreadable"
		}
		total += len(data)
		e.file.data = data
		return ""
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		name := filepath.ToSlash(rel)
		if err != nil {
			if p == root {
				return err
			}
			ents = append(ents, entry{name: name, display: name + " (unreadable)", note: "unreadable", file: hookFile{err: unwrapPath(err)}})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if len(ents) >= maxHashFiles || total > maxHashBytes {
			return fmt.Errorf("more than %d files or %s", maxHashFiles, stdlib.FormatBytes(maxHashBytes))
		}
		switch {
		case d.Type().IsRegular():
			e := entry{name: name, display: name, file: hookFile{real: name}}
			e.note = read(p, &e)
			ents = append(ents, e)
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			e := entry{name: name, display: name + " -> " + target, note: "symlink\x00" + target}
			if real, err := filepath.EvalSymlinks(p); err == nil {
				if r, err := filepath.Rel(root, real); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
					e.file.real = filepath.ToSlash(r)
				}
			}
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				e.note += read(p, &e)
			} else if err != nil {
				e.file.err = unwrapPath(err)
			} else {
				e.file.err = errNotRegular(fi)
			}
			ents = append(ents, e)
		case !d.IsDir():
			// A FIFO, a socket, a device: nothing to hash or load, but
			// sources names it as skipped.
			others = append(others, name)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("hash %s: %w", dir, err)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].name < ents[j].name })
	h := sha256.New()
	out := &HookDir{Dir: dir, Names: make([]string, len(ents)), files: make(map[string]hookFile, len(ents))}
	for i, e := range ents {
		out.Names[i] = e.display
		out.files[e.name] = e.file
		// Regular files hash as they always have, so trust records stay valid.
		fmt.Fprintf(h, "%s\x00%d\x00", e.name, len(e.file.data))
		h.Write(e.file.data)
		if e.note != "" {
			fmt.Fprintf(h, "\x00%s\x00", e.note)
		}
	}
	out.Hash = "sha256:" + hex.EncodeToString(h.Sum(nil))
	for _, name := range others {
		out.files[name] = hookFile{err: errors.New("not a regular file")}
	}
	return out, nil
}

// errNotRegular says why a link's target has no content.
func errNotRegular(fi fs.FileInfo) error {
	if fi.IsDir() {
		return errors.New("is a folder")
	}
	return errors.New("not a regular file")
}

// sources are the hooks of the folder (its *.lua entries, by name) with
// the content read when it was hashed; an entry without content is
// skipped with a warning.
func (d *HookDir) sources(origin string, keep func(string) bool) ([]Source, []string) {
	var names []string
	for name := range d.files {
		if !strings.Contains(name, "/") && strings.HasSuffix(name, ".lua") && keep(name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var out []Source
	var warnings []string
	for _, name := range names {
		f := d.files[name]
		path := filepath.Join(d.Dir, name)
		if f.err != nil {
			warnings = append(warnings, fmt.Sprintf("hook %s: %v: skipped", path, f.err))
			continue
		}
		out = append(out, Source{Name: name, Path: path, Origin: origin, Code: f.data, snap: d})
	}
	return out, warnings
}

// lib returns a lib/ module as it was hashed: one that is (or leads to) a
// file under lib/ in the folder, never anything read later.
func (d *HookDir) lib(rel string) ([]byte, string, error) {
	display := filepath.Join(d.Dir, filepath.FromSlash(rel))
	f, ok := d.files[rel]
	switch {
	case !ok:
		return nil, display, fmt.Errorf("no file %s", display)
	case !strings.HasPrefix(f.real, "lib/"):
		return nil, display, fmt.Errorf("%s: leads outside %s", display, filepath.Join(d.Dir, "lib"))
	case f.err != nil:
		return nil, display, fmt.Errorf("%s: %w", display, f.err)
	}
	return f.data, display, nil
}

// Known reports whether dir was ever trusted (with any hash).
func (t *TrustStore) Known(dir string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.records[dir]
	return ok
}
