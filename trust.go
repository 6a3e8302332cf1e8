// Project folder trust: a cloned repository's .lunar/ (config.json and
// hooks.d/) changes where requests go and what runs, so nothing in it takes
// effect until the user has trusted the folder with exactly its current
// content (asked once in the REPL, remembered with a hash; skipped with a
// warning in one-shot mode unless --trust).
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/lunar-cli/lunar/lua"
)

// maxProjectConfig bounds what is read of a project's config.json: a
// hostile repository must not make lunar read /dev/zero.
const maxProjectConfig = 1 << 20

// projectFiles is what a project's .lunar/ holds that needs trust.
type projectFiles struct {
	root      string // the project folder (absolute)
	config    string // .lunar/config.json, "" when there is none
	configRaw []byte
	hooksDir  string   // .lunar/hooks.d, "" when it has no hooks
	hooks     []string // files under hooksDir, relative to it
	hash      string
	hashErr   error // the hooks could not be hashed: nothing is trusted
}

// empty reports whether there is nothing to trust.
func (p *projectFiles) empty() bool { return p.config == "" && p.hooksDir == "" }

// scanProject finds the project's config and hooks. withHooks false
// leaves the hooks out (--no-hooks: they would not load anyway).
func scanProject(cwd string, withHooks bool) (*projectFiles, error) {
	root, err := filepath.Abs(cwd)
	if err != nil {
		return nil, fmt.Errorf("project folder %s: %w", cwd, err)
	}
	p := &projectFiles{root: root}
	cfg := filepath.Join(root, ".lunar", "config.json")
	if fi, err := os.Stat(cfg); err == nil {
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("config %s: not a regular file", cfg)
		}
		f, err := os.Open(cfg)
		if err != nil {
			return nil, fmt.Errorf("config %s: %w", cfg, err)
		}
		p.configRaw, err = io.ReadAll(io.LimitReader(f, maxProjectConfig+1))
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("config %s: %w", cfg, err)
		}
		if len(p.configRaw) > maxProjectConfig {
			return nil, fmt.Errorf("config %s: larger than %d bytes", cfg, maxProjectConfig)
		}
		p.config = cfg
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("config %s: %w", cfg, err)
	}
	hooksHash := ""
	if withHooks {
		dir := filepath.Join(root, filepath.FromSlash(lua.ProjectHooksDir))
		if lua, _ := filepath.Glob(filepath.Join(dir, "*.lua")); len(lua) > 0 {
			hash, files, err := hashHooks(dir)
			if err != nil {
				// A folder that cannot be hashed (unreadable, too large) is
				// never trusted; lunar still starts.
				p.hashErr = err
			}
			p.hooksDir, p.hooks, hooksHash = dir, files, hash
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
	return p, nil
}

// hashHooks hashes the project's hooks folder.
var hashHooks = lua.HashHookDir

// trustProject decides whether the project's .lunar/ may take effect and
// remembers the decision in a.projectTrusted. ask is nil when there is no
// one to ask (one-shot mode and subcommands).
func (a *app) trustProject(ask func(dir string, files []string) bool) error {
	p, err := scanProject(a.cwd, !a.opts.NoHooks)
	if err != nil {
		return err
	}
	a.project = p
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
		for _, f := range p.hooks {
			files = append(files, filepath.Join(filepath.FromSlash(lua.ProjectHooksDir), filepath.FromSlash(f)))
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
