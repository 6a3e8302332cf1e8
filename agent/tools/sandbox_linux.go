// This file confines a command on Linux with Landlock: on the thread
// that forks the shell (locked to its goroutine, and ended with it, so
// that no other goroutine ever runs restricted), the file system becomes
// read-only except where the call's sandbox allows writing; the shell
// and everything it starts inherit that. Nothing is re-executed, so the
// confinement costs a ruleset of a few paths (tens of microseconds).

package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/lunar-cli/lunar/agent"
)

// sandboxAccess is every file-system right Landlock knows: all of them
// handled means whatever a rule does not grant is denied. Best effort
// drops the ones an older kernel lacks.
const sandboxAccess = landlock.AccessFSSet(1<<17 - 1)

// devices are writable even in a read-only sandbox: commands write to
// /dev/null all the time, and the others change nothing.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}

func sandboxInfo() SandboxInfo {
	v, err := ll.LandlockGetABIVersion()
	switch {
	case err != nil && (errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP)):
		return SandboxInfo{Reason: "the kernel has no Landlock (Linux 5.13 or later, enabled at boot)"}
	case err != nil:
		return SandboxInfo{Reason: "Landlock: " + err.Error()}
	case v < 1:
		return SandboxInfo{Reason: fmt.Sprintf("Landlock ABI %d", v)}
	}
	return SandboxInfo{Available: true, Name: "landlock", Version: v}
}

// confineThread restricts the calling thread (which must be locked to
// its goroutine and end with it) to what sb allows writing, and reads
// and execution everywhere. Without Landlock it does nothing.
func confineThread(sb *agent.Sandbox, cwd string) error {
	if !Sandbox().Available {
		return nil
	}
	rules := []landlock.Rule{
		// Reading, running programs, device ioctls and Unix sockets stay
		// as they were: the sandbox is about what a command can change.
		landlock.RODirs("/").WithIoctlDev().WithResolveUnix(),
		landlock.RWFiles(devices...).WithIoctlDev().IgnoreIfMissing(),
	}
	var dirs, files []string
	add := func(p string) {
		p = expandHome(p)
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		info, err := os.Stat(p)
		switch {
		case err != nil: // a missing path has nothing to write to
		case info.IsDir():
			dirs = append(dirs, p)
		default:
			files = append(files, p)
		}
	}
	if sb.Workdir {
		add(cwd)
		add(os.TempDir())
	}
	for _, p := range sb.Write {
		add(p)
	}
	if len(dirs) > 0 {
		rules = append(rules, landlock.RWDirs(dirs...).WithRefer().WithIoctlDev().WithResolveUnix().IgnoreIfMissing())
	}
	if len(files) > 0 {
		rules = append(rules, landlock.RWFiles(files...).IgnoreIfMissing())
	}
	cfg := landlock.Config{HandledAccessFS: sandboxAccess}.BestEffort()
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if fd < 0 {
		return nil // nothing this kernel can restrict
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: no_new_privs: %w", err)
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("sandbox: landlock_restrict_self: %w", err)
	}
	return nil
}

// dropPtrace takes CAP_SYS_PTRACE out of the calling thread's bounding
// set when lunar runs as root, so that the programs it starts cannot
// have it: without it, lunar's non-dumpable process (main's
// hardenProcess) keeps /proc/<lunar>/environ and mem from them. Best
// effort: without CAP_SETPCAP there is nothing to drop.
func dropPtrace() {
	if os.Geteuid() == 0 {
		_ = unix.Prctl(unix.PR_CAPBSET_DROP, unix.CAP_SYS_PTRACE, 0, 0, 0)
	}
}
