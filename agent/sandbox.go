// This file holds the sandbox a policy hook gives one tool call: what the
// processes the call starts may write. The loop hands it to the tool in
// the call's context; the bash tool has the kernel enforce it where it can
// (agent/tools/sandbox_linux.go).

package agent

import "context"

// Sandbox is the file-system confinement of one tool call: the processes
// the bash tool starts may write only where it says (the rest of the file
// system is read-only to them), and the write and edit tools change only
// a file it names or one under its folders, resolved again just before
// they open it. A nil *Sandbox means no confinement.
type Sandbox struct {
	// Workdir makes the working folder and the temp folder writable.
	Workdir bool
	// Write lists more folders (with everything beneath them) and files
	// that are writable.
	Write []string
}

type sandboxKey struct{}

// WithSandbox returns ctx carrying s for the tool call it is given to.
func WithSandbox(ctx context.Context, s *Sandbox) context.Context {
	return context.WithValue(ctx, sandboxKey{}, s)
}

// SandboxFrom returns the sandbox of the tool call ctx belongs to, or nil.
func SandboxFrom(ctx context.Context) *Sandbox {
	s, _ := ctx.Value(sandboxKey{}).(*Sandbox)
	return s
}
