package session

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func TestLazyStart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions", "--w--")
	s, err := Create(dir, "/w")
	require.NoError(t, err)
	_, err = s.AppendModelChange("anthropic", "claude-sonnet-4-5")
	require.NoError(t, err)
	_, err = s.AppendThinkingLevel("off")
	require.NoError(t, err)
	mustAppend(t, s, userMsg("hello"))
	require.NoError(t, s.Sync())
	assert.False(t, exists(dir), "nothing on disk before the first assistant message, not even the folder")

	mustAppend(t, s, assistantMsg("hi"))
	require.True(t, exists(s.File()))
	h := s.Header()
	want := []string{string(appendHeader(nil, &h))}
	for _, e := range s.Entries() {
		want = append(want, string(e.Raw))
	}
	assert.Equal(t, want, fileLines(t, s.File()), "the header and every buffered entry, in order")

	// Later entries are on disk as soon as they are appended.
	id := mustAppend(t, s, userMsg("more"))
	lines := fileLines(t, s.File())
	assert.Equal(t, string(s.Get(id).Raw), lines[len(lines)-1])
	assert.True(t, exists(s.File()+".lock"))
	require.NoError(t, s.Close())
	assert.False(t, exists(s.File()+".lock"), "the lock file goes on close")

	info, err := os.Stat(s.File())
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
}

// countFsyncs records the paths fsynced while the test runs.
func countFsyncs(t *testing.T) *[]string {
	t.Helper()
	var synced []string
	orig := fsyncFile
	fsyncFile = func(f *os.File) error {
		synced = append(synced, f.Name())
		return orig(f)
	}
	t.Cleanup(func() { fsyncFile = orig })
	return &synced
}

// The file is created as the request goes out (Persist, or the first
// assistant message) without waiting for the disk; Sync fsyncs the file
// and, once, its folder, and only what changed since the last Sync.
func TestSyncFsyncsWhatChanged(t *testing.T) {
	synced := countFsyncs(t)
	dir := filepath.Join(t.TempDir(), "sessions")
	s, err := Create(dir, "/w")
	require.NoError(t, err)
	mustAppend(t, s, userMsg("hello"))
	require.NoError(t, s.Persist())
	mustAppend(t, s, assistantMsg("hi"))
	require.True(t, exists(s.File()))
	assert.Empty(t, *synced, "creating and writing the file fsyncs nothing")

	require.NoError(t, s.Sync())
	assert.Equal(t, []string{s.File(), dir}, *synced, "the file, then the folder that holds its new entry")
	require.NoError(t, s.Sync())
	assert.Len(t, *synced, 2, "nothing written since: no fsync")

	mustAppend(t, s, userMsg("more"))
	require.NoError(t, s.Close())
	assert.Equal(t, []string{s.File(), dir, s.File()}, *synced, "the folder once")

	// A session opened from its file fsyncs only the file.
	*synced = nil
	o, err := Open(s.File())
	require.NoError(t, err)
	require.NoError(t, o.Sync())
	mustAppend(t, o, assistantMsg("again"))
	require.NoError(t, o.Close())
	assert.Equal(t, []string{s.File()}, *synced)

	// A fork is durable when Fork returns: its file and folder.
	*synced = nil
	l, err := Load(s.File())
	require.NoError(t, err)
	fk, err := l.Fork(l.LeafID(), dir)
	require.NoError(t, err)
	assert.Equal(t, []string{fk.File(), dir}, *synced)
	require.NoError(t, fk.Close())
}

func TestSessionWithoutAssistantLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	s, err := Create(dir, "/w")
	require.NoError(t, err)
	mustAppend(t, s, userMsg("hello"))
	require.NoError(t, s.Close())
	assert.Equal(t, []string(nil), dirNames(t, dir))

	_, err = Create("", "/w")
	assert.Error(t, err)
}

func TestPersistWritesAtOnce(t *testing.T) {
	dir := t.TempDir()
	s, err := Create(dir, "/w")
	require.NoError(t, err)
	require.NoError(t, s.Persist())
	h := s.Header()
	assert.Equal(t, []string{string(appendHeader(nil, &h))}, fileLines(t, s.File()))
	id := mustAppend(t, s, userMsg("hello"))
	assert.Equal(t, string(s.Get(id).Raw), fileLines(t, s.File())[1])
	require.NoError(t, s.Close())
}

func TestInMemoryNeverWrites(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	before := dirNames(t, wd)
	s := CreateInMemory("/w")
	assert.Equal(t, "", s.File())
	mustAppend(t, s, userMsg("a"))
	mustAppend(t, s, assistantMsg("b"))
	require.NoError(t, s.Persist())
	require.NoError(t, s.Sync())
	require.NoError(t, s.Close())
	assert.Equal(t, before, dirNames(t, wd))
}

func TestOpenLocks(t *testing.T) {
	dir := t.TempDir()
	s, err := Create(dir, "/w")
	require.NoError(t, err)
	mustAppend(t, s, userMsg("a"))
	mustAppend(t, s, assistantMsg("b"))

	// The creator holds the lock once the file exists.
	_, err = Open(s.File())
	var le *LockError
	require.ErrorAs(t, err, &le)
	assert.True(t, errors.Is(err, ErrLocked))
	assert.Equal(t, os.Getpid(), le.PID)
	assert.Equal(t, s.File(), le.Path)
	assert.Equal(t, fmt.Sprintf("session %s is in use by another lunar process (pid %d); finish it there, or continue in a copy with --fork", s.File(), os.Getpid()), err.Error())

	// Reading is still possible.
	l, err := Load(s.File())
	require.NoError(t, err)
	assert.Len(t, l.Entries(), 2)
	require.NoError(t, s.Close())

	o, err := Open(s.File())
	require.NoError(t, err)
	_, err = Open(s.File())
	require.ErrorIs(t, err, ErrLocked)
	require.NoError(t, o.Close())
	o2, err := Open(s.File())
	require.NoError(t, err)
	require.NoError(t, o2.Close())

	assert.Equal(t, "session x is in use by another lunar process; finish it there, or continue in a copy with --fork", (&LockError{Path: "x"}).Error())
}

// TestLockHelperProcess is not a test: TestLockAcrossProcesses runs the
// test binary with it to hold a session open in another process.
func TestLockHelperProcess(t *testing.T) {
	path := os.Getenv("LUNAR_SESSION_LOCK_HELPER")
	if path == "" {
		t.Skip("helper process only")
	}
	s, err := Open(path)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("locked")
	_, _ = io.Copy(io.Discard, os.Stdin)
	if _, err := s.AppendMessage(userMsg("from the helper")); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	if err := s.Close(); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// startHolder starts a process that opens path and holds it until its
// stdin is closed.
func startHolder(t *testing.T, path string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelperProcess$")
	cmd.Env = append(os.Environ(), "LUNAR_SESSION_LOCK_HELPER="+path)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "locked\n", line)
	return cmd, stdin
}

func TestLockAcrossProcesses(t *testing.T) {
	path := writeLines(t, testHeader, userLine("a0000001", "", "2025-06-01T10:00:01.000Z", "one"))

	cmd, stdin := startHolder(t, path)
	_, err := Open(path)
	var le *LockError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, cmd.Process.Pid, le.PID, "the error names the holder's pid")
	assert.Contains(t, err.Error(), "(pid "+strconv.Itoa(cmd.Process.Pid)+")")
	require.NoError(t, stdin.Close())
	require.NoError(t, cmd.Wait())

	s, err := Open(path)
	require.NoError(t, err)
	assert.Equal(t, "from the helper", s.Get(s.LeafID()).Message.Text())
	require.NoError(t, s.Close())

	// A killed holder does not leave the session locked.
	cmd, _ = startHolder(t, path)
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	s, err = Open(path)
	require.NoError(t, err)
	require.NoError(t, s.Close())
}

func TestConcurrentAppends(t *testing.T) {
	dir := t.TempDir()
	s, err := Create(dir, "/w")
	require.NoError(t, err)
	require.NoError(t, s.Persist())
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				if _, err := s.AppendMessage(userMsg(strings.Repeat("x", 100*g+i))); err != nil {
					t.Error(err)
					return
				}
				s.BuildContext()
			}
		}()
	}
	wg.Wait()
	require.NoError(t, s.Close())
	l, err := Load(s.File())
	require.NoError(t, err)
	assert.Empty(t, l.Warnings())
	assert.Len(t, l.Entries(), 400)
	assert.Len(t, l.Path(""), 400, "one linear chain")
}
