// This file holds what the bash tool knows of its sandbox on every
// system: whether the kernel can confine a command here, and the confined
// start of a model's command (jail). The confinement itself is
// sandbox_linux.go (Landlock); elsewhere commands run as they always did.

package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/lunar-cli/lunar/agent"
)

// SandboxInfo says whether the bash tool can confine commands here.
type SandboxInfo struct {
	Available bool
	// Name is the kernel feature ("landlock"), with its ABI version.
	Name    string
	Version int
	// Reason says why it is not available.
	Reason string
}

// Sandbox reports whether commands can be confined on this system (the
// kernel is asked once).
var Sandbox = sync.OnceValue(sandboxInfo)

// jail is how a command the model asked for starts: with the call's
// sandbox (nil: none) in the working folder cwd. Such commands also never
// get CAP_SYS_PTRACE when lunar runs as root (see dropPtrace), so that
// they cannot read lunar's memory or environment.
type jail struct {
	sandbox *agent.Sandbox
	cwd     string
}

// pinned returns the real path a write or edit of abs opens, checked
// against the call's sandbox (none: abs as it is). The policy pins the
// real path it judged (Sandbox.Write); a link swapped in while the user
// was asked would now lead elsewhere, and the call fails rather than
// write there. Opening the real path leaves only the microseconds
// between this check and the open.
func pinned(ctx context.Context, cwd, abs string) (string, error) {
	sb := agent.SandboxFrom(ctx)
	if sb == nil {
		return abs, nil
	}
	real := RealPath(abs)
	for _, w := range sb.Write {
		if filepath.Clean(expandHome(filepath.FromSlash(w))) == real {
			return real, nil
		}
	}
	if sb.Workdir {
		for _, dir := range []string{cwd, os.TempDir()} {
			if root := RealPath(dir); real == root || strings.HasPrefix(real, root+string(filepath.Separator)) {
				return real, nil
			}
		}
	}
	return "", fmt.Errorf("Not changed: %s now leads to %s, not to the file that was approved (a link changed since)", abs, real)
}

// expandHome expands a leading ~/.
func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}
