// This file holds the bash tool's process tree on Windows: the shell is
// Git Bash (or another bash or sh on PATH), and the command runs in a job
// object that kills every process in it when its last handle closes —
// which happens when lunar exits, however it exits.

package tools

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// errNoShell is the error of a bash call on a machine without a shell.
var errNoShell = errors.New("bash: no shell found: install Git for Windows (it brings Git Bash) or put bash.exe or sh.exe on PATH")

// procTree is a running command and the job object holding its processes
// (0 if none could be made: then only the shell itself can be stopped).
type procTree struct {
	proc *os.Process
	job  windows.Handle
}

// shellPath picks the shell: Git Bash where Git for Windows installs it,
// else bash.exe from PATH (not System32's, which starts WSL), else sh.exe
// from PATH.
func shellPath() (string, error) {
	var candidates []string
	for _, env := range []string{"ProgramFiles", "ProgramW6432", "ProgramFiles(x86)"} {
		if dir := os.Getenv(env); dir != "" {
			candidates = append(candidates, filepath.Join(dir, "Git", "bin", "bash.exe"))
		}
	}
	if dir := os.Getenv("LOCALAPPDATA"); dir != "" {
		candidates = append(candidates, filepath.Join(dir, "Programs", "Git", "bin", "bash.exe"))
	}
	for _, c := range candidates {
		if info, err := os.Stat(c); err == nil && !info.IsDir() {
			return c, nil
		}
	}
	if p, err := exec.LookPath("bash"); err == nil && !isSystemDir(filepath.Dir(p)) {
		return p, nil
	}
	if p, err := exec.LookPath("sh"); err == nil {
		return p, nil
	}
	return "", errNoShell
}

// isSystemDir reports whether dir is Windows' System32 (or SysWOW64).
func isSystemDir(dir string) bool {
	root := os.Getenv("SystemRoot")
	if root == "" {
		return false
	}
	for _, sys := range []string{"System32", "SysWOW64", "Sysnative"} {
		if strings.EqualFold(filepath.Clean(dir), filepath.Join(root, sys)) {
			return true
		}
	}
	return false
}

// startTree starts cmd in a new process group (a Ctrl+C at the console is
// lunar's to handle) inside a job object that dies with lunar. j, the
// confinement of a model's command, has nothing to apply on Windows.
func startTree(cmd *exec.Cmd, _ *jail) (*procTree, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
	job := newKillOnCloseJob()
	if err := cmd.Start(); err != nil {
		if job != 0 {
			windows.CloseHandle(job)
		}
		return nil, err
	}
	t := &procTree{proc: cmd.Process, job: job}
	if job != 0 {
		// A child the shell starts before this line escapes the job; the
		// shell's own start-up leaves it little chance to.
		h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
		if err == nil {
			err = windows.AssignProcessToJobObject(job, h)
			windows.CloseHandle(h)
		}
		if err != nil {
			windows.CloseHandle(job)
			t.job = 0
		}
	}
	return t, nil
}

// newKillOnCloseJob makes a job object whose processes are killed when
// its last handle closes, or returns 0.
func newKillOnCloseJob() windows.Handle {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0
	}
	if setJobLimits(job, windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE) != nil {
		windows.CloseHandle(job)
		return 0
	}
	return job
}

func setJobLimits(job windows.Handle, flags uint32) error {
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: flags},
	}
	_, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	return err
}

// terminate stops the tree: Windows has no polite signal for a console
// program that lunar could send, so it is the same as kill.
func (t *procTree) terminate() { t.kill() }

// kill ends every process of the job (or the shell, without a job).
func (t *procTree) kill() {
	if t.job != 0 {
		_ = windows.TerminateJobObject(t.job, 1)
		return
	}
	_ = t.proc.Kill()
}

// release lets go of the job once the shell has exited: background jobs
// it leaves behind keep running, as on Unix.
func (t *procTree) release() {
	if t.job != 0 {
		_ = setJobLimits(t.job, 0)
		windows.CloseHandle(t.job)
		t.job = 0
	}
}
