// The end-to-end harness: the lunar binary built once, one isolated
// installation per test (e2e) driven through pipes or a pseudo-terminal
// (ptyREPL), and the waits the tests share.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// lunarBin is the binary TestMain builds for every end-to-end test.
var lunarBin string

func TestMain(m *testing.M) {
	// The end-to-end tests (t.Parallel) mostly wait on the processes they
	// start: unless -parallel says otherwise, twice as many run at once as
	// go test's default of one a CPU.
	flag.Parse()
	parallel := false
	flag.Visit(func(f *flag.Flag) { parallel = parallel || f.Name == "test.parallel" })
	if !parallel {
		_ = flag.Set("test.parallel", strconv.Itoa(2*runtime.GOMAXPROCS(0)))
	}
	dir, err := os.MkdirTemp("", "lunar-e2e")
	if err != nil {
		panic(err)
	}
	lunarBin = filepath.Join(dir, "lunar")
	out, err := exec.Command("go", "build", "-o", lunarBin, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build lunar: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// e2e is one isolated lunar installation: its own LUNAR_HOME, working
// folder and fake LLM server. Nothing in it is shared, so a test that
// only uses its own e2e can run in parallel (t.Parallel).
type e2e struct {
	t    *testing.T
	home string
	cwd  string
	srv  *llmtest.Server
	api  string   // "openai" or "anthropic"
	env  []string // extra environment (later values win)
	// ask leaves out --yes, so that the permission policy asks before
	// write, edit and bash (and refuses them, without a terminal). The
	// other tests are scripts that run tools unattended, as a user's
	// script does with --yes.
	ask bool
}

func newE2E(t *testing.T) *e2e {
	t.Helper()
	e := &e2e{t: t, home: t.TempDir(), cwd: t.TempDir(), srv: llmtest.New(t), api: "openai"}
	// Resolve symlinks so paths in session headers match os.Getwd in the child.
	e.cwd, _ = filepath.EvalSymlinks(e.cwd)
	return e
}

func (e *e2e) modelArgs() []string {
	if e.api == "anthropic" {
		return []string{"--model", "anthropic/claude-sonnet-4-5", "--base-url", e.srv.RootURL(), "--api-key", "sk-test"}
	}
	return []string{"--model", "openai/gpt-4.1", "--base-url", e.srv.URL(), "--api-key", "sk-test"}
}

// flags are the model flags, and --yes unless the test asks.
func (e *e2e) flags(args []string) []string {
	base := e.modelArgs()
	if !e.ask {
		base = append(base, "--yes")
	}
	return append(base, args...)
}

// cmd is lunar with the model flags and args, stdin as its input.
func (e *e2e) cmd(stdin string, args ...string) *exec.Cmd {
	cmd := exec.Command(lunarBin, e.flags(args)...)
	cmd.Dir = e.cwd
	cmd.Env = append(os.Environ(), "LUNAR_HOME="+e.home, "NO_COLOR=1", "LUNAR_MAX_RETRIES=2")
	cmd.Env = append(cmd.Env, e.env...)
	cmd.Stdin = strings.NewReader(stdin)
	return cmd
}

type result struct {
	stdout, stderr string
	code           int
}

func (e *e2e) run(stdin string, args ...string) result {
	e.t.Helper()
	return e.exec(e.cmd(stdin, args...))
}

// exec runs cmd and returns its output and exit code.
func (e *e2e) exec(cmd *exec.Cmd) result {
	e.t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(e.t, err)
	}
	return result{out.String(), errb.String(), code}
}

// sessionFiles lists the session files written under LUNAR_HOME.
func (e *e2e) sessionFiles() []string {
	files, _ := filepath.Glob(filepath.Join(e.home, "data", "sessions", "*", "*.jsonl"))
	return files
}

func (e *e2e) load(path string) *session.Session {
	e.t.Helper()
	s, err := session.Load(path)
	require.NoError(e.t, err)
	return s
}

// onlySession loads the only session file of the installation.
func (e *e2e) onlySession() *session.Session {
	e.t.Helper()
	files := e.sessionFiles()
	require.Len(e.t, files, 1)
	return e.load(files[0])
}

// ---- lunar in a pseudo-terminal ----

// ptyTimeout bounds every wait on a lunar in a pseudo-terminal.
const ptyTimeout = 15 * time.Second

// ptyREPL is a running lunar in a pseudo-terminal.
type ptyREPL struct {
	t    *testing.T
	cmd  *exec.Cmd
	tty  *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	mark int // expect searches from here
	more chan struct{}
	done chan struct{}
}

// start runs lunar in a 120x40 terminal and waits for its banner.
func (e *e2e) start(args ...string) *ptyREPL {
	e.t.Helper()
	p := e.startRaw(args...)
	p.expect("/help for commands")
	return p
}

// startRaw runs lunar in a 120x40 terminal.
func (e *e2e) startRaw(args ...string) *ptyREPL {
	e.t.Helper()
	env := append(os.Environ(), "LUNAR_HOME="+e.home, "NO_COLOR=1", "TERM=xterm-256color", "LUNAR_MAX_RETRIES=0")
	return e.startBare(append(env, e.env...), e.flags(args)...)
}

// startBare runs lunar in a 120x40 terminal with exactly these arguments
// and environment (no model flags, no --yes).
func (e *e2e) startBare(env []string, args ...string) *ptyREPL {
	e.t.Helper()
	cmd := exec.Command(lunarBin, args...)
	cmd.Dir = e.cwd
	cmd.Env = env
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	require.NoError(e.t, err)
	return watchPTY(e.t, cmd, tty)
}

// watchPTY collects what cmd, started on the terminal whose other end is
// tty, writes there; the test's end kills cmd if it still runs.
func watchPTY(t *testing.T, cmd *exec.Cmd, tty *os.File) *ptyREPL {
	p := &ptyREPL{t: t, cmd: cmd, tty: tty, more: make(chan struct{}, 1), done: make(chan struct{})}
	go p.read()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			<-p.done
			_ = p.cmd.Wait()
		}
		tty.Close()
	})
	return p
}

func (p *ptyREPL) read() {
	buf := make([]byte, 4096)
	for {
		n, err := p.tty.Read(buf)
		p.mu.Lock()
		p.out.Write(buf[:n])
		p.mu.Unlock()
		select {
		case p.more <- struct{}{}:
		default:
		}
		if err != nil {
			close(p.done)
			return
		}
	}
}

// expect waits until s appears in the output after the last match and
// moves the mark past it.
func (p *ptyREPL) expect(s string) {
	p.t.Helper()
	deadline := time.After(ptyTimeout)
	for {
		p.mu.Lock()
		all := p.out.String()
		i := strings.Index(all[p.mark:], s)
		if i >= 0 {
			p.mark += i + len(s)
		}
		p.mu.Unlock()
		if i >= 0 {
			return
		}
		select {
		case <-p.more:
		case <-p.done:
			if strings.Contains(p.output()[p.mark:], s) {
				continue
			}
			p.t.Fatalf("lunar exited before %q appeared; output:\n%s", s, p.output())
		case <-deadline:
			p.t.Fatalf("timed out waiting for %q; output since last match:\n%q", s, all[p.mark:])
		}
	}
}

// send types s.
func (p *ptyREPL) send(s string) {
	p.t.Helper()
	_, err := p.tty.Write([]byte(s))
	require.NoError(p.t, err)
}

// line types s and Enter.
func (p *ptyREPL) line(s string) {
	p.t.Helper()
	p.send(s)
	p.send("\r")
}

// wait waits for lunar to exit and returns its exit code.
func (p *ptyREPL) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(ptyTimeout):
		p.t.Fatalf("lunar did not exit; output:\n%s", p.output())
	}
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	require.NoError(p.t, err)
	return 0
}

func (p *ptyREPL) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// quit presses Ctrl+D and checks the exit code.
func (p *ptyREPL) quit() {
	p.t.Helper()
	p.send("\x04")
	assert.Equal(p.t, 0, p.wait(), p.output())
}

// ---- waiting for a process ----

// waitTimeout bounds waitFor: long enough for a loaded machine.
const waitTimeout = 15 * time.Second

// waitFor waits until cond holds, checking it every 10 ms for up to
// waitTimeout; if it never does, the test stops with what() (called
// then, so that it can show the output so far).
func waitFor(t testing.TB, cond func() bool, what func() string) {
	t.Helper()
	if !assert.Eventually(t, cond, waitTimeout, 10*time.Millisecond) {
		t.Fatal(what())
	}
}

// startCmd starts cmd and returns what its Wait returns; the test's end
// kills it if it still runs.
func (e *e2e) startCmd(cmd *exec.Cmd) <-chan error {
	e.t.Helper()
	require.NoError(e.t, cmd.Start())
	done := make(chan error, 1)
	exited := make(chan struct{})
	go func() {
		done <- cmd.Wait()
		close(exited)
	}()
	e.t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	return done
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return signalPID(pid, true) == nil // no /proc (macOS, BSD)
	}
	s := string(data)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// assertDies checks that pid is gone (or a zombie) within d.
func assertDies(t testing.TB, pid int, d time.Duration, msgAndArgs ...any) bool {
	t.Helper()
	return assert.Eventually(t, func() bool { return !alive(pid) }, d, 20*time.Millisecond, msgAndArgs...)
}

// syncBuffer is a bytes.Buffer safe to read while a process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
