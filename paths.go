package main

// Where lunar keeps its files: config, data (sessions) and state (history,
// trust records), following the XDG base directories. LUNAR_HOME overrides
// all three roots at once (tests use it).

import (
	"os"
	"path/filepath"
)

// paths are lunar's three roots.
type paths struct {
	Config string // config.json, hooks.d/, AGENTS.md
	Data   string // sessions/, hook data
	State  string // history, trust records
}

func resolvePaths() paths {
	if home := os.Getenv("LUNAR_HOME"); home != "" {
		return paths{
			Config: filepath.Join(home, "config"),
			Data:   filepath.Join(home, "data"),
			State:  filepath.Join(home, "state"),
		}
	}
	home, _ := os.UserHomeDir()
	xdg := func(env, def string) string {
		if v := os.Getenv(env); v != "" && filepath.IsAbs(v) {
			return filepath.Join(v, "lunar")
		}
		return filepath.Join(home, def, "lunar")
	}
	return paths{
		Config: xdg("XDG_CONFIG_HOME", ".config"),
		Data:   xdg("XDG_DATA_HOME", filepath.Join(".local", "share")),
		State:  xdg("XDG_STATE_HOME", filepath.Join(".local", "state")),
	}
}

// Sessions is the root of the per-cwd session folders.
func (p paths) Sessions() string { return filepath.Join(p.Data, "sessions") }

// HookData is the root of the per-hook writable folders.
func (p paths) HookData() string { return filepath.Join(p.Data, "hooks") }
