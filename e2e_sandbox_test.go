//go:build linux

// The kernel sandbox of bash commands, the policy on real paths and
// lunar's own process through the binary (issue #20: items 5 and 7, and
// Landlock): a command an allow rule covers still cannot write outside
// the folder, read-only runs commands that cannot write, links and
// /proc/self/root do not lead around path rules, and a command cannot
// read lunar's environment from /proc.
package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/agent/tools"
)

func requireSandbox(t *testing.T) {
	t.Helper()
	if info := tools.Sandbox(); !info.Available {
		t.Skip("no kernel sandbox here: " + info.Reason)
	}
}

// sandboxE2E is an e2e whose commands get their own temp folder, so that
// a folder from t.TempDir is outside everything they may write.
func sandboxE2E(t *testing.T) (e *e2e, outside string) {
	e = newE2E(t)
	outside, tmp := t.TempDir(), t.TempDir()
	e.env = append(e.env, "TMPDIR="+tmp)
	return e, outside
}

func TestSandboxAllowedCommandCannotWriteOutside(t *testing.T) {
	t.Parallel()
	requireSandbox(t)
	for _, mode := range []string{"ask", "auto"} {
		t.Run(mode, func(t *testing.T) {
			e, outside := sandboxE2E(t)
			e.ask = true
			e.hkConfig(`{"permissions": {"mode": "` + mode + `", "allow": ["bash: touch *"]}}`)
			e.srv.Reply(llmtest.ToolCall("bash", `{"command":"touch inside.txt"}`))
			e.srv.Reply(llmtest.ToolCall("bash", `{"command":"touch `+filepath.Join(outside, "pwned.txt")+`"}`))
			e.srv.Reply(llmtest.Text("done"))
			r := e.run("", "-p", "go")
			require.Equal(t, 0, r.code, r.stderr)
			assert.FileExists(t, filepath.Join(e.cwd, "inside.txt"))
			assert.NoFileExists(t, filepath.Join(outside, "pwned.txt"))
			results := toolResults(t, e.onlySession())
			require.Len(t, results, 2)
			assert.Equal(t, "false (no output)", results[0])
			assert.Contains(t, results[1], "true touch: cannot touch")
			assert.Contains(t, results[1], "Permission denied")
		})
	}
}

func TestSandboxOff(t *testing.T) {
	t.Parallel()
	e, outside := sandboxE2E(t)
	e.hkConfig(`{"permissions": {"sandbox": false}}`)
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"touch `+filepath.Join(outside, "made.txt")+`"}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.FileExists(t, filepath.Join(outside, "made.txt"))
}

func TestSandboxReadOnlyRunsCommandsThatCannotWrite(t *testing.T) {
	t.Parallel()
	requireSandbox(t)
	e, _ := sandboxE2E(t)
	e.ask = true
	e.hkConfig(`{"permissions": {"mode": "read-only"}}`)
	writeFile(t, filepath.Join(e.cwd, "listed.txt"), "x\n")
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"ls"}`))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"touch new.txt"}`))
	e.srv.Reply(llmtest.ToolCall("write", `{"path":"new.txt","content":"x"}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "-p", "look")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NoFileExists(t, filepath.Join(e.cwd, "new.txt"))
	results := toolResults(t, e.onlySession())
	require.Len(t, results, 3)
	assert.Equal(t, "false listed.txt", results[0])
	assert.Contains(t, results[1], "Permission denied")
	assert.Contains(t, results[2], "true Permission denied: lunar is in read-only mode")
}

// A repository can carry a link out of the folder: "allow write: *" must
// not cover a write through it (refused here: no one to ask).
func TestPermissionsWriteThroughLinkOutOfFolder(t *testing.T) {
	t.Parallel()
	e, outside := sandboxE2E(t)
	e.ask = true
	e.hkConfig(`{"permissions": {"allow": ["write: *", "edit: *"]}}`)
	require.NoError(t, os.Symlink(outside, filepath.Join(e.cwd, "vendor")))
	writeFile(t, filepath.Join(outside, "lib.sh"), "old\n")
	e.srv.Reply(llmtest.ToolCall("write", `{"path":"vendor/pwned.txt","content":"x"}`))
	e.srv.Reply(llmtest.ToolCall("edit", `{"path":"vendor/lib.sh","oldText":"old","newText":"evil"}`))
	e.srv.Reply(llmtest.ToolCall("write", `{"path":"fine.txt","content":"x"}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "-p", "go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NoFileExists(t, filepath.Join(outside, "pwned.txt"))
	assert.Equal(t, "old\n", readFileString(t, filepath.Join(outside, "lib.sh")))
	assert.Equal(t, "x", e.file("fine.txt"))
	results := toolResults(t, e.onlySession())
	require.Len(t, results, 3)
	assert.Contains(t, results[0], "true Permission denied: write needs the user's approval")
	assert.Contains(t, results[1], "true Permission denied: edit needs the user's approval")
	assert.Equal(t, "false", results[2][:5])
}

// Deny rules hold whatever name the file is reached by: a link alias,
// a link to its folder, /proc/self/root.
func TestPermissionsDenyByRealPath(t *testing.T) {
	t.Parallel()
	e, outside := sandboxE2E(t)
	writeFile(t, filepath.Join(e.cwd, ".env"), "KEY=1\n")
	writeFile(t, filepath.Join(outside, "id_ed25519"), "private\n")
	require.NoError(t, os.Symlink(".env", filepath.Join(e.cwd, "alias")))
	require.NoError(t, os.Symlink(outside, filepath.Join(e.cwd, "keys")))
	e.hkConfig(`{"permissions": {"deny": ["write: .env", "read: ` + outside + `/*"]}}`)
	calls := []string{
		`{"path":"alias","content":"KEY=stolen\n"}`,
		`{"path":"/proc/self/root` + e.cwd + `/.env","content":"KEY=stolen\n"}`,
	}
	for _, c := range calls {
		e.srv.Reply(llmtest.ToolCall("write", c))
	}
	e.srv.Reply(llmtest.ToolCall("read", `{"path":"keys/id_ed25519"}`))
	e.srv.Reply(llmtest.ToolCall("read", `{"path":"/proc/self/root`+outside+`/id_ed25519"}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "-p", "go") // --yes: only deny rules stop a call
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "KEY=1\n", e.file(".env"))
	results := toolResults(t, e.onlySession())
	require.Len(t, results, 4)
	for i, res := range results {
		assert.Contains(t, res, "true Permission denied: this", "call %d", i)
		assert.NotContains(t, res, "private")
	}
}

// The provider key is in lunar's environment; a command must not read it
// from /proc/$PPID/environ: lunar is non-dumpable. (As root this does not
// hold on every kernel: here a root command without CAP_SYS_PTRACE still
// reads it. So the test runs lunar as nobody when it runs as root.)
func TestBashCannotReadLunarsEnvironment(t *testing.T) {
	t.Parallel()
	for _, sandbox := range []string{"true", "false"} {
		t.Run("sandbox "+sandbox, func(t *testing.T) {
			e, _ := sandboxE2E(t)
			e.env = append(e.env, "OPENAI_API_KEY=sk-environ-secret-20")
			e.hkConfig(`{"permissions": {"sandbox": ` + sandbox + `}}`)
			e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo parent $(cat /proc/$PPID/comm); cat /proc/$PPID/environ; echo; printenv OPENAI_API_KEY; true"}`))
			e.srv.Reply(llmtest.Text("done"))
			cmd := e.cmd("", "-p", "go")
			if os.Geteuid() == 0 {
				asNobody(t, cmd, e)
			}
			r := e.exec(cmd)
			require.Equal(t, 0, r.code, r.stderr)
			results := toolResults(t, e.onlySession())
			require.Len(t, results, 1)
			assert.Contains(t, results[0], "parent lunar", "the command's parent is lunar")
			assert.Contains(t, results[0], "Permission denied")
			for i, req := range e.srv.Requests() {
				assert.False(t, strings.Contains(string(req.Body), "sk-environ-secret-20"), "request %d carries the key", i)
			}
		})
	}
}

// asNobody makes cmd run lunar as uid and gid 65534, with its folders
// (and the binary, copied) reachable by that user.
func asNobody(t *testing.T, cmd *exec.Cmd, e *e2e) {
	t.Helper()
	const nobody = 65534
	bin := filepath.Join(t.TempDir(), "lunar")
	// cp writes the copy, not this process: a child another test forks
	// meanwhile would inherit a descriptor open for writing, and running
	// the copy would fail with "text file busy" until that child execs.
	out, err := exec.Command("cp", lunarBin, bin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	cmd.Path, cmd.Args[0] = bin, bin
	for _, dir := range append([]string{filepath.Dir(bin), e.home, e.cwd}, tmpDirs(cmd.Env)...) {
		require.NoError(t, os.Chmod(filepath.Dir(dir), 0o755))
		require.NoError(t, filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, nobody, nobody)
		}))
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
}

// tmpDirs returns TMPDIR from env.
func tmpDirs(env []string) []string {
	var out []string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok {
			out = append(out, v)
		}
	}
	return out
}
