//go:build unix

package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent"
)

func TestBash(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		command string
		want    string
		isError bool
	}{
		{"success", "echo hello", "hello\n", false},
		{"no output", "true", "(no output)", false},
		{"runs in cwd", "pwd", dir + "\n", false},
		{"stderr interleaved in order", "echo one; echo two >&2; echo three", "one\ntwo\nthree\n", false},
		{"bash features", "a=(x y z); echo ${#a[@]} ${a[1]}", "3 y\n", false},
		{"exit code", "echo partial; exit 3", "partial\n\n\nCommand exited with code 3", true},
		{"exit code without output", "exit 1", "(no output)\n\nCommand exited with code 1", true},
		{"stderr only failure", "ls /definitely/not/here", "", true},
		{"stdin is empty", "cat; echo done", "done\n", false},
	}
	bash := builtin(t, "bash", dir)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, bash, args(t, map[string]any{"command": tc.command}))
			assert.Equal(t, tc.isError, res.IsError, text(res))
			if tc.want != "" {
				assert.Equal(t, tc.want, text(res))
			} else {
				assert.Contains(t, text(res), "No such file or directory")
				assert.Regexp(t, `Command exited with code \d+$`, text(res))
			}
			assert.Nil(t, res.Details)
		})
	}
}

func TestBashTimeout(t *testing.T) {
	bash := builtin(t, "bash", t.TempDir())
	start := time.Now()
	res := call(t, bash, `{"command":"echo started; sleep 5; echo never","timeout":1}`)
	assert.Less(t, time.Since(start), 3*time.Second)
	assert.True(t, res.IsError)
	assert.Equal(t, "started\n\n\nCommand timed out after 1 seconds", text(res))

	res = call(t, bash, `{"command":"sleep 5","timeout":0.2}`)
	assert.Equal(t, "Command timed out after 0.2 seconds", text(res))
}

// TestBashCancelKillsProcessGroup cancels a command whose child runs in
// the background and checks the child is gone too.
func TestBashCancelKillsProcessGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pids := make(chan int, 1)
	var once sync.Once
	onUpdate := func(r agent.ToolResult) {
		line, _, _ := strings.Cut(text(r), "\n")
		if pid, err := strconv.Atoi(line); err == nil {
			once.Do(func() { pids <- pid; cancel() })
		}
	}
	bash := builtin(t, "bash", t.TempDir())
	start := time.Now()
	res := callCtx(ctx, t, bash, `{"command":"sleep 30 & echo $!; wait"}`, onUpdate)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.True(t, res.IsError)
	pid := <-pids
	assert.Equal(t, fmt.Sprintf("%d\n\n\nCommand aborted", pid), text(res))
	assert.Eventually(t, func() bool { return processGone(pid) }, 5*time.Second, 10*time.Millisecond,
		"background sleep %d still running", pid)
}

// TestBashTermIgnoredGetsKilled: a group that ignores SIGTERM is killed
// with SIGKILL after the grace period.
func TestBashTermIgnoredGetsKilled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	start := time.Now()
	res, err := RunBash(ctx, t.TempDir(), `trap '' TERM; echo ready; while :; do sleep 0.05; done`, 0, func(chunk string) {
		if strings.Contains(chunk, "ready") {
			once.Do(cancel)
		}
	})
	require.NoError(t, err)
	assert.True(t, res.Cancelled)
	assert.Nil(t, res.ExitCode)
	assert.Less(t, time.Since(start), killGrace+3*time.Second)
}

// processGone reports whether pid no longer runs (exited, or a zombie
// waiting for its reaper).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, after, _ := strings.Cut(string(stat), ") ")
	return strings.HasPrefix(after, "Z")
}

func TestBashTruncatedByLines(t *testing.T) {
	bash := builtin(t, "bash", t.TempDir())
	res := call(t, bash, `{"command":"seq 1 100000"}`)
	require.False(t, res.IsError)
	got := text(res)
	var d bashDetails
	require.NoError(t, json.Unmarshal(res.Details, &d))
	require.NotNil(t, d.Truncation)
	require.NotEmpty(t, d.FullOutputPath)
	t.Cleanup(func() { os.Remove(d.FullOutputPath) })

	// seq ends with a newline: the last "line" is empty, as pi counts.
	assert.True(t, strings.HasPrefix(got, "98002\n"), "%.40q", got)
	assert.True(t, strings.HasSuffix(got, "\n100000\n\n\n[Showing lines 98002-100001 of 100001. Full output: "+d.FullOutputPath+"]"), "…%q", got[len(got)-120:])
	assert.Equal(t, Truncation{Truncated: true, TruncatedBy: "lines", TotalLines: 100001, TotalBytes: 588895,
		OutputLines: 2000, OutputBytes: 11995, MaxLines: DefaultMaxLines, MaxBytes: DefaultMaxBytes}, *d.Truncation)

	full, err := os.ReadFile(d.FullOutputPath)
	require.NoError(t, err)
	var want strings.Builder
	for i := 1; i <= 100000; i++ {
		fmt.Fprintln(&want, i)
	}
	assert.Equal(t, want.String(), string(full))
}

func TestBashTruncatedByBytes(t *testing.T) {
	res, err := RunBash(context.Background(), t.TempDir(), `for i in $(seq 1 3000); do printf '%0100d\n' $i; done`, 0, nil)
	require.NoError(t, err)
	t.Cleanup(func() { os.Remove(res.FullOutputPath) })
	assert.True(t, res.Truncated)
	assert.Equal(t, "bytes", res.Truncation.TruncatedBy)
	assert.LessOrEqual(t, len(res.Output), DefaultMaxBytes)
	assert.True(t, strings.HasSuffix(res.Output, fmt.Sprintf("%0100d\n", 3000)))
	assert.Equal(t, 3001, res.Truncation.TotalLines)
	assert.Equal(t, 3000*101, res.Truncation.TotalBytes)

	r := bashToolResult(res, nil)
	assert.Contains(t, text(r), fmt.Sprintf("\n\n[Showing lines %d-3001 of 3001 (50.0KB limit). Full output: %s]", 3002-res.Truncation.OutputLines, res.FullOutputPath))
	info, err := os.Stat(res.FullOutputPath)
	require.NoError(t, err)
	assert.Equal(t, int64(3000*101), info.Size())
}

// TestBashTimeoutKeepsTruncationNote: a command killed after much output
// still says where its full output is.
func TestBashTimeoutKeepsTruncationNote(t *testing.T) {
	res := call(t, builtin(t, "bash", t.TempDir()), `{"command":"seq 1 5000; sleep 5","timeout":0.5}`)
	assert.True(t, res.IsError)
	var d bashDetails
	require.NoError(t, json.Unmarshal(res.Details, &d))
	require.NotEmpty(t, d.FullOutputPath)
	t.Cleanup(func() { os.Remove(d.FullOutputPath) })
	assert.True(t, strings.HasSuffix(text(res), "\n\n[Showing lines 3002-5001 of 5001. Full output: "+d.FullOutputPath+"]\n\nCommand timed out after 0.5 seconds"), text(res)[len(text(res))-150:])
}

func TestBashLongLastLine(t *testing.T) {
	res, err := RunBash(context.Background(), t.TempDir(), `head -c 200000 /dev/zero | tr '\0' 'x'`, 0, nil)
	require.NoError(t, err)
	t.Cleanup(func() { os.Remove(res.FullOutputPath) })
	assert.True(t, res.Truncation.LastLinePartial)
	assert.Equal(t, strings.Repeat("x", DefaultMaxBytes), res.Output)
	assert.Contains(t, text(bashToolResult(res, nil)), "[Showing last 50.0KB of line 1 (line is longer). Full output: "+res.FullOutputPath+"]")
}

func TestRunBash(t *testing.T) {
	dir := t.TempDir()
	t.Run("exit code and output", func(t *testing.T) {
		res, err := RunBash(context.Background(), dir, "echo out; echo err >&2; exit 7", 0, nil)
		require.NoError(t, err)
		require.NotNil(t, res.ExitCode)
		assert.Equal(t, 7, *res.ExitCode)
		assert.Equal(t, "out\nerr\n", res.Output)
		assert.False(t, res.Truncated)
		assert.Empty(t, res.FullOutputPath)
	})
	t.Run("streams output in order", func(t *testing.T) {
		var chunks []string
		res, err := RunBash(context.Background(), dir, "for i in 1 2 3; do echo $i; done", 0, func(c string) { chunks = append(chunks, c) })
		require.NoError(t, err)
		assert.Equal(t, "1\n2\n3\n", strings.Join(chunks, ""))
		assert.Equal(t, "1\n2\n3\n", res.Output)
	})
	t.Run("missing cwd", func(t *testing.T) {
		_, err := RunBash(context.Background(), dir+"/nope", "true", 0, nil)
		assert.ErrorContains(t, err, "does not exist")
	})
	t.Run("already cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err := RunBash(ctx, dir, "touch ran", 0, nil)
		require.NoError(t, err)
		assert.True(t, res.Cancelled)
		assert.Nil(t, res.ExitCode)
		assert.NoFileExists(t, dir+"/ran")
	})
	t.Run("background job does not hold the call", func(t *testing.T) {
		start := time.Now()
		res, err := RunBash(context.Background(), dir, "sleep 30 & echo $!", 0, nil)
		require.NoError(t, err)
		assert.Less(t, time.Since(start), 5*time.Second)
		require.NotNil(t, res.ExitCode)
		assert.Equal(t, 0, *res.ExitCode)
		pid, err := strconv.Atoi(strings.TrimSpace(res.Output))
		require.NoError(t, err)
		assert.False(t, processGone(pid), "a background job outlives a command that finished")
		_ = syscall.Kill(pid, syscall.SIGKILL)
	})
	t.Run("signal exit", func(t *testing.T) {
		res, err := RunBash(context.Background(), dir, "kill -9 $$", 0, nil)
		require.NoError(t, err)
		assert.Nil(t, res.ExitCode)
		assert.False(t, res.Cancelled)
		assert.Equal(t, "(no output)\n\nCommand was killed by a signal", text(bashToolResult(res, nil)))
	})
}

func TestBashPartialUpdates(t *testing.T) {
	var updates []string
	res := callCtx(context.Background(), t, builtin(t, "bash", t.TempDir()), `{"command":"echo first; echo second"}`,
		func(r agent.ToolResult) { updates = append(updates, text(r)) })
	assert.Equal(t, "first\nsecond\n", text(res))
	require.NotEmpty(t, updates)
	assert.Equal(t, "first\nsecond\n", updates[len(updates)-1])
}

func TestCompleteUTF8(t *testing.T) {
	euro := []byte("€") // 3 bytes
	tests := []struct {
		in   []byte
		want int
	}{
		{[]byte("abc"), 3},
		{append([]byte("ab"), euro...), 5},
		{append([]byte("ab"), euro[:1]...), 2},
		{append([]byte("ab"), euro[:2]...), 2},
		{[]byte{}, 0},
		{[]byte{0xff, 0xfe}, 2}, // invalid bytes pass through
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, completeUTF8(tc.in), "%q", tc.in)
	}
}
