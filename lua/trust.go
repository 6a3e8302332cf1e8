package lua

// This file remembers which project hook folders the user trusted. Project
// hooks are code from whatever repository was cloned: they load only when
// the folder is trusted with exactly the files it holds now. A record keeps
// a sha256 over the names and contents of every file under
// .lunar/hooks.d; any change makes the folder untrusted again.

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
	"sync"
	"time"
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

// HashHookDir hashes every regular file under dir (names relative to dir,
// and contents) and returns the hash and the sorted names.
func HashHookDir(dir string) (string, []string, error) {
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0 {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return "", nil, fmt.Errorf("hash %s: %w", dir, err)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return "", nil, fmt.Errorf("hash %s: %w", dir, err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(data))
		h.Write(data)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), names, nil
}

// Known reports whether dir was ever trusted (with any hash).
func (t *TrustStore) Known(dir string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.records[dir]
	return ok
}
