// This file holds what the bash tool knows of its sandbox on every
// system: whether the kernel can confine a command here, and the confined
// start of a model's command (jail). The confinement itself is
// sandbox_linux.go (Landlock); elsewhere commands run as they always did.

package tools

import (
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
