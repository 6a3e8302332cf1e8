package main

// Project folder trust: a cloned repository's .lunar/ (config.json,
// hooks.d/) and its prompt and skill folders change where requests go,
// what runs and what the model is told, so nothing in them takes
// effect until the user has trusted the folder with exactly its current
// content (asked once in the REPL, remembered with a hash; skipped with a
// warning in one-shot mode unless --trust).

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lunar-cli/lunar/lua"
)

// maxProjectConfig bounds what is read of a project's config.json: a
// hostile repository must not make lunar read /dev/zero.
const maxProjectConfig = 1 << 20

// projectFiles is what a project's .lunar/ holds that needs trust. Each
// file is read once: the bytes hashed for the trust record are the bytes
// that take effect (a file swapped while the question is open changes
// nothing).
type projectFiles struct {
	root      string // the project folder (absolute)
	config    string // .lunar/config.json, "" when there is none
	configRaw []byte
	hooksDir  string       // .lunar/hooks.d, "" when it has no hooks
	hooks     *lua.HookDir // its content as hashed; what loads
	dirs      []projectDir // prompt and skill folders, those that exist and are read
	mcp       []*mcpFile   // .mcp.json, .lunar/mcp.json: the MCP servers it starts
	hash      string
	hashErr   error    // the hooks could not be hashed: nothing is trusted
	warnings  []string // what was skipped (a config.json that is not a file)
}

// empty reports whether there is nothing to trust.
func (p *projectFiles) empty() bool {
	return p.config == "" && p.hooksDir == "" && len(p.dirs) == 0 && len(p.mcp) == 0
}

// projectTextDirs are where a project keeps text the model is given once
// the project is trusted, lunar's and pi's: prompt templates (read by the
// bundled templates hook) and skills (the skills hook). Each is asked
// about and hashed like hooks.d, so a changed template or skill asks again.
var projectTextDirs = []struct{ rel, kind, hook string }{
	{".lunar/prompts", "prompts", "templates"},
	{".pi/prompts", "prompts", "templates"},
	{".lunar/skills", "skills", "skills"},
	{".pi/skills", "skills", "skills"},
}

// projectDir is a folder of project files the trust question covers.
type projectDir struct {
	rel     string // relative to the project, slash-separated
	kind    string // "prompts" or "skills"
	path    string
	content *lua.HookDir // as hashed
}

// scanProject reads the project's config, hooks, prompt templates and
// skills. withHooks false leaves the hooks out (--no-hooks: they would not
// load anyway); withDir reports whether the bundled hook that reads a
// folder kind ("templates", "skills") runs (nil: none does). A
// config.json that is not a regular file of at most 1 MiB (a folder, a
// FIFO, a link to /dev/zero) is skipped with a warning: a cloned
// repository must not stop lunar from starting.
func scanProject(cwd string, withHooks bool, withDir func(hook string) bool) (*projectFiles, error) {
	root, err := filepath.Abs(cwd)
	if err != nil {
		return nil, fmt.Errorf("project folder %s: %w", cwd, err)
	}
	p := &projectFiles{root: root}
	cfg := filepath.Join(root, ".lunar", "config.json")
	switch data, err := readConfigFile(cfg, maxProjectConfig); {
	case err == nil:
		p.config, p.configRaw = cfg, data
	case !errors.Is(err, fs.ErrNotExist):
		p.warnings = append(p.warnings, fmt.Sprintf("project config %v: skipped", err))
	}
	hooksHash := ""
	if withHooks {
		dir := filepath.Join(root, filepath.FromSlash(lua.ProjectHooksDir))
		if lua, _ := filepath.Glob(filepath.Join(dir, "*.lua")); len(lua) > 0 {
			p.hooksDir = dir
			p.hooks, err = readHooks(dir)
			if err != nil {
				// A folder that cannot be hashed (unreadable, too large) is
				// never trusted; lunar still starts.
				p.hashErr = err
			} else {
				hooksHash = p.hooks.Hash
			}
		}
	}
	switch {
	case p.config == "":
		// The hash of the hooks alone, as trust records have always held.
		p.hash = hooksHash
	default:
		h := sha256.New()
		fmt.Fprintf(h, "config.json\x00%d\x00", len(p.configRaw))
		h.Write(p.configRaw)
		fmt.Fprintf(h, "\x00hooks.d\x00%s", hooksHash)
		p.hash = "sha256:" + hex.EncodeToString(h.Sum(nil))
	}
	// Prompt templates and skills are text the model is given: the
	// question covers them too (a project without any keeps its old hash).
	for _, d := range projectTextDirs {
		dir := filepath.Join(root, filepath.FromSlash(d.rel))
		if withDir == nil || !withDir(d.hook) {
			continue
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		content, err := readHooks(dir)
		if err != nil {
			p.hashErr = err
			continue
		}
		p.dirs = append(p.dirs, projectDir{rel: d.rel, kind: d.kind, path: dir, content: content})
		h := sha256.New()
		fmt.Fprintf(h, "%s\x00%s\x00%s", p.hash, d.rel, content.Hash)
		p.hash = "sha256:" + hex.EncodeToString(h.Sum(nil))
	}
	// MCP servers are programs the project has lunar start: the question
	// covers them too (a project without any keeps its old hash).
	for _, rel := range projectMCPFiles {
		f, err := readMCPFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			p.warnings = append(p.warnings, fmt.Sprintf("project MCP config %v: skipped", err))
			continue
		}
		if f == nil {
			continue
		}
		p.mcp = append(p.mcp, f)
		h := sha256.New()
		fmt.Fprintf(h, "%s\x00%s\x00%d\x00", p.hash, rel, len(f.raw))
		h.Write(f.raw)
		p.hash = "sha256:" + hex.EncodeToString(h.Sum(nil))
	}
	return p, nil
}

// readHooks reads and hashes the project's hooks folder.
var readHooks = lua.ReadHookDir

// trustProject decides whether the project's .lunar/ may take effect and
// remembers the decision in a.projectTrusted. ask is nil when there is no
// one to ask (one-shot mode and subcommands).
func (a *app) trustProject(ask func(dir string, files []string) bool) error {
	// Prompts and skills only matter to the bundled hook that reads them.
	runs := func(hook string) bool {
		return !a.opts.NoHooks && !slices.ContainsFunc(a.cfg.DisabledHooks, func(n string) bool {
			return strings.TrimSuffix(n, ".lua") == hook
		})
	}
	p, err := scanProject(a.cwd, !a.opts.NoHooks, runs)
	if err != nil {
		return err
	}
	a.project = p
	for _, w := range p.warnings {
		a.warnf("%s", w)
	}
	if p.empty() {
		return nil
	}
	store, err := lua.OpenTrustStore(a.paths.State)
	if err != nil {
		a.warnf("%v", err)
		store = nil
	}
	switch {
	case p.hashErr != nil:
		a.warnf("project files in %s cannot be checked (%v): skipped", filepath.Join(p.root, ".lunar"), p.hashErr)
		return nil
	case a.opts.Trust:
		a.projectTrusted = true
		return nil
	case store != nil && store.Trusted(p.root, p.hash):
		a.projectTrusted = true
		return nil
	case ask != nil:
		var files []string
		if p.config != "" {
			files = append(files, filepath.Join(".lunar", "config.json"))
		}
		var names []string
		if p.hooks != nil {
			names = p.hooks.Names
		}
		for _, f := range names {
			files = append(files, filepath.Join(filepath.FromSlash(lua.ProjectHooksDir), filepath.FromSlash(f)))
		}
		for _, d := range p.dirs {
			for _, f := range d.content.Names {
				files = append(files, filepath.Join(filepath.FromSlash(d.rel), filepath.FromSlash(f)))
			}
		}
		for _, f := range p.mcp {
			rel, _ := filepath.Rel(p.root, f.path)
			files = append(files, rel+" (MCP servers: "+mcpSummary(f)+")")
		}
		if !ask(p.root, files) {
			a.warnf("%s", p.untrusted("not trusted: skipped", false))
			return nil
		}
		a.projectTrusted = true
		if store != nil {
			if err := store.Trust(p.root, p.hash); err != nil {
				a.warnf("trusting %s: %v (you will be asked again)", p.root, err)
			}
		}
		return nil
	}
	what := "are not trusted"
	if store != nil && store.Known(p.root) {
		what = "changed since you trusted them"
	}
	a.warnf("%s", p.untrusted(what, true))
	return nil
}

// untrusted says what was skipped: what is "…" (are not trusted, …),
// for one file "is"/"it" instead of "are"/"them".
func (p *projectFiles) untrusted(what string, hint bool) string {
	var parts []string
	if p.config != "" {
		parts = append(parts, "project config "+p.config)
	}
	if p.hooksDir != "" {
		parts = append(parts, "project hooks in "+p.hooksDir)
	}
	for _, d := range p.dirs {
		parts = append(parts, "project "+d.kind+" in "+d.path)
	}
	for _, f := range p.mcp {
		parts = append(parts, "project MCP servers in "+f.path)
	}
	them := "them"
	if len(parts) == 1 && p.config != "" {
		them = "it"
		what = strings.NewReplacer("are not", "is not", "trusted them", "trusted it").Replace(what)
	}
	msg := strings.Join(parts, " and ") + " " + what
	if !strings.HasSuffix(what, "skipped") {
		msg += ": skipped"
	}
	if hint {
		msg += " (run lunar in a terminal to review and trust " + them + ", or pass --trust)"
	}
	return msg
}

// setupProject decides the project's trust and applies its config when
// trusted.
func (a *app) setupProject(ask func(dir string, files []string) bool) error {
	if err := a.trustProject(ask); err != nil {
		return err
	}
	if !a.projectTrusted || a.project.config == "" {
		return nil
	}
	global := map[string]bool{}
	if !a.opts.NoHooks {
		names, _ := filepath.Glob(filepath.Join(a.paths.Config, "hooks.d", "*.lua"))
		for _, n := range names {
			global[strings.TrimSuffix(filepath.Base(n), ".lua")] = true
		}
	}
	warnings, err := a.cfg.applyProject(a.project.config, a.project.configRaw, global)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		a.warnf("%s", w)
	}
	return nil
}
