package lua

// This file finds the hooks to load, in order: the bundled hooks.d/ (in
// the binary), the global hooks.d, the project's .lunar/hooks.d (only when
// the user trusts it) and each --hook file; within a folder by file name.
// A folder's entry that is not a readable regular file of at most
// MaxSourceSize (a link to /dev/zero, a dangling link, a FIFO) is skipped
// with a warning: a cloned repository must not be able to stop lunar from
// starting, or make it read forever.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	hooksd "github.com/lunar-cli/lunar/hooks.d"
	"github.com/lunar-cli/lunar/stdlib"
)

// Hook origins, in load order.
const (
	OriginBundled = "bundled"
	OriginGlobal  = "global"
	OriginProject = "project"
	OriginCLI     = "cli"
)

// ProjectHooksDir is where a project keeps its hooks, relative to the
// project folder.
const ProjectHooksDir = ".lunar/hooks.d"

// MaxSourceSize is the largest hook file (or lib/ module) lunar loads.
const MaxSourceSize = 4 << 20

// Source is one hook script to load.
type Source struct {
	Name   string // file name, e.g. "10-memory.lua"
	Path   string // where it comes from: "hooks.d/stack.lua" (bundled) or a file path
	Origin string // OriginBundled, OriginGlobal, OriginProject or OriginCLI
	Code   []byte
	// Guard makes the hook a guard before its first instruction runs (as
	// lunar.guard() does when called; see guard.go). Discover sets it for
	// the bundled guards (hooksd.Guards).
	Guard bool

	dir  string   // folder on disk holding the file (and lib/); "" when bundled or read with its folder
	fsys fs.FS    // bundled: the embedded folder
	snap *HookDir // a project hook: the folder as hashed for trust (lib/ too)
}

// FileSource reads a hook from disk (a --hook FILE, or `lunar hooks check`).
func FileSource(file, origin string) (Source, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return Source{}, fmt.Errorf("hook %s: %w", file, err)
	}
	code, err := stdlib.ReadRegular(abs, MaxSourceSize)
	if err != nil {
		return Source{}, fmt.Errorf("hook %s: %w", file, unwrapPath(err))
	}
	return Source{Name: filepath.Base(abs), Path: abs, Origin: origin, Code: code, dir: filepath.Dir(abs)}, nil
}

// DiscoverOptions say where to look for hooks.
type DiscoverOptions struct {
	// Bundled holds the bundled hooks (nil: the ones built into lunar).
	Bundled fs.FS
	// GlobalDir is $XDG_CONFIG_HOME/lunar/hooks.d ("" to skip).
	GlobalDir string
	// ProjectDir is the project folder; its hooks are in ProjectHooksDir
	// ("" to skip).
	ProjectDir string
	// Project, when set, is the project's hooks folder as already read
	// and hashed (the trust question was about these bytes): the project
	// hooks load from it, not from the disk.
	Project *HookDir
	// Files are the --hook files, loaded last in the order given; they
	// load even with NoHooks and are never disabled by name.
	Files []string
	// Disabled lists hook file names (with or without .lua) not to load.
	Disabled []string
	// NoHooks skips the bundled, global and project hooks.
	NoHooks bool
	// Trust loads the project hooks without asking (--trust); nothing is
	// remembered.
	Trust bool
	// TrustStore remembers trusted project folders (nil: nothing is).
	TrustStore *TrustStore
	// Ask asks the user whether to trust the project hooks in dir (the
	// files are relative to dir); nil means there is no one to ask.
	Ask func(dir string, files []string) bool
}

// Discover lists the hooks to load. Warnings say what was skipped and why
// (untrusted project hooks, a trust record that could not be saved); an
// error means a --hook file or a hooks folder could not be read.
//
// It is DiscoverBundled then DiscoverUser: the bundled hooks are built
// into lunar, and a caller can start preparing them (Prepare) while it
// reads the others.
func Discover(opts DiscoverOptions) (sources []Source, warnings []string, err error) {
	if sources, err = DiscoverBundled(opts); err != nil {
		return nil, nil, err
	}
	user, warnings, err := DiscoverUser(opts)
	if err != nil {
		return nil, nil, err
	}
	return append(sources, user...), warnings, nil
}

// keepFunc says which hook file names opts does not disable.
func (opts DiscoverOptions) keepFunc() func(string) bool {
	disabled := map[string]bool{}
	for _, d := range opts.Disabled {
		disabled[strings.TrimSuffix(d, ".lua")] = true
	}
	return func(name string) bool { return !disabled[strings.TrimSuffix(name, ".lua")] }
}

// DiscoverBundled lists the bundled hooks to load (Discover's first part).
func DiscoverBundled(opts DiscoverOptions) ([]Source, error) {
	if opts.NoHooks {
		return nil, nil
	}
	keep := opts.keepFunc()
	bundled := opts.Bundled
	if bundled == nil {
		bundled = hooksd.FS
	}
	names, err := fs.Glob(bundled, "*.lua")
	if err != nil {
		return nil, fmt.Errorf("bundled hooks: %w", err)
	}
	slices.Sort(names)
	var sources []Source
	for _, n := range names {
		if !keep(n) {
			continue
		}
		code, err := fs.ReadFile(bundled, n)
		if err != nil {
			return nil, fmt.Errorf("bundled hook %s: %w", n, err)
		}
		sources = append(sources, Source{Name: n, Path: "hooks.d/" + n, Origin: OriginBundled, Code: code, fsys: bundled,
			Guard: slices.Contains(hooksd.Guards, n)})
	}
	return sources, nil
}

// DiscoverUser lists the global, project and --hook hooks to load, in
// that order (Discover's second part).
func DiscoverUser(opts DiscoverOptions) (sources []Source, warnings []string, err error) {
	keep := opts.keepFunc()
	if !opts.NoHooks {
		if opts.GlobalDir != "" {
			found, warn, err := dirSources(opts.GlobalDir, OriginGlobal, keep)
			if err != nil {
				return nil, nil, err
			}
			sources = append(sources, found...)
			warnings = append(warnings, warn...)
		}
		if opts.ProjectDir != "" {
			found, warn := projectSources(opts, keep)
			sources = append(sources, found...)
			warnings = append(warnings, warn...)
		}
	}
	for _, f := range opts.Files {
		s, err := FileSource(f, OriginCLI)
		if err != nil {
			return nil, nil, err
		}
		sources = append(sources, s)
	}
	return sources, warnings, nil
}

// dirSources reads the *.lua files of a hooks folder (missing is fine).
// A file that cannot be read is skipped with a warning.
func dirSources(dir, origin string, keep func(string) bool) ([]Source, []string, error) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("hooks folder %s: %w", dir, err)
	}
	var names []string
	for _, e := range ents { // ReadDir sorts by name
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".lua") && keep(e.Name()) {
			names = append(names, e.Name())
		}
	}
	found := make([]Source, len(names))
	errs := make([]error, len(names))
	read := func(from, to int) {
		for i := from; i < to; i++ {
			found[i], errs[i] = FileSource(filepath.Join(dir, names[i]), origin)
		}
	}
	// Reading a file is a few system calls (10 µs on a small VM): many
	// are read on two goroutines, since Load waits for them all.
	if half := len(names) / 2; half >= parallelReads {
		var wg sync.WaitGroup
		wg.Go(func() { read(half, len(names)) })
		read(0, half)
		wg.Wait()
	} else {
		read(0, len(names))
	}
	var out []Source
	var warnings []string
	for i, s := range found {
		if errs[i] != nil {
			warnings = append(warnings, errs[i].Error()+": skipped")
			continue
		}
		out = append(out, s)
	}
	return out, warnings, nil
}

// parallelReads is how many files each of the two goroutines reading a
// hooks folder reads at least.
const parallelReads = 4

// unwrapPath drops the path an *fs.PathError repeats (the caller names
// the file itself).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// projectSources loads the project's hooks if the folder is trusted with
// its current content, asking the user when it is not. The folder is read
// once (ReadHookDir): the bytes hashed for the trust record are the bytes
// that load, whatever the folder holds by then. Whatever the project
// folder holds, it never fails: problems are warnings and skip the
// project's hooks (or the files concerned).
func projectSources(opts DiscoverOptions, keep func(string) bool) ([]Source, []string) {
	project, err := filepath.Abs(opts.ProjectDir)
	if err != nil {
		return nil, []string{fmt.Sprintf("project folder %s: %v: its hooks are skipped", opts.ProjectDir, err)}
	}
	dir := filepath.Join(project, filepath.FromSlash(ProjectHooksDir))
	snap := opts.Project
	if snap == nil {
		if _, err := os.Lstat(dir); os.IsNotExist(err) {
			return nil, nil
		}
		if snap, err = ReadHookDir(dir); err != nil {
			return nil, []string{err.Error() + ": project hooks skipped"}
		}
	}
	found, warnings := snap.sources(OriginProject, keep)
	if len(found) == 0 {
		return nil, warnings
	}
	hash, files := snap.Hash, snap.Names
	switch {
	case opts.Trust:
		return found, warnings
	case opts.TrustStore != nil && opts.TrustStore.Trusted(project, hash):
		return found, warnings
	case opts.Ask != nil:
		if !opts.Ask(project, files) {
			return nil, append(warnings, fmt.Sprintf("project hooks in %s not trusted: skipped", dir))
		}
		if opts.TrustStore != nil {
			if err := opts.TrustStore.Trust(project, hash); err != nil {
				return found, append(warnings, fmt.Sprintf("trusting %s: %v (you will be asked again)", dir, err))
			}
		}
		return found, warnings
	}
	what := "are not trusted"
	if opts.TrustStore != nil && opts.TrustStore.known(project) {
		what = "changed since you trusted them"
	}
	return nil, append(warnings, fmt.Sprintf("project hooks in %s %s: skipped (run lunar in a terminal to review and trust them, or pass --trust)", dir, what))
}

func (t *TrustStore) known(dir string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.records[dir]
	return ok
}
