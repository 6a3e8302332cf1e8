//go:build !linux

// This file stands in for sandbox_linux.go where lunar has no kernel
// sandbox: commands run unconfined, as they always did.

package tools

func sandboxInfo() SandboxInfo {
	return SandboxInfo{Reason: "no kernel sandbox on this system (Landlock is Linux only)"}
}
