// This file implements the bash tool and RunBash, which the REPL's !cmd
// shares: run a command as a process tree lunar can stop as a whole (a
// process group on Unix, a job object on Windows: bash_unix.go,
// bash_windows.go), stream its combined output, keep the tail, spill the
// full output to a temp file when large.

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/lunar-cli/lunar/agent"
)

// killGrace is how long a process group has between SIGTERM and SIGKILL.
const killGrace = 2 * time.Second

// drainGrace is how long RunBash keeps reading output after the shell
// exited: a background job (`server &`) keeps the pipe open forever, and
// must not keep the call open with it.
const drainGrace = 200 * time.Millisecond

// keepBytes is how much of the output's tail RunBash holds in memory:
// twice what is returned, so the tail is always complete.
const keepBytes = 2 * DefaultMaxBytes

var bashSchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"command": {"type": "string", "description": "Bash command to execute"},
		"timeout": {"type": "number", "exclusiveMinimum": 0, "description": "Timeout in seconds (optional, no default timeout)"}
	},
	"required": ["command"]
}`)

type bashArgs struct {
	Command string   `json:"command"`
	Timeout *float64 `json:"timeout"`
}

// bashDetails is the bash tool's result details (pi's BashToolDetails).
type bashDetails struct {
	Truncation     *Truncation `json:"truncation,omitempty"`
	FullOutputPath string      `json:"fullOutputPath,omitempty"`
}

// BashResult is the outcome of RunBash, shaped like pi's bashExecution
// message.
type BashResult struct {
	// Output is stdout and stderr interleaved as written, keeping only the
	// last DefaultMaxLines lines / DefaultMaxBytes bytes when longer.
	Output string
	// ExitCode is nil when the command was killed (cancelled, timed out,
	// or died from a signal).
	ExitCode  *int
	Cancelled bool // ctx was cancelled
	TimedOut  bool // the timeout expired
	Truncated bool // Output is the tail of a longer output
	// Truncation details how Output was cut from the whole output.
	Truncation Truncation
	// FullOutputPath is a temp file holding the whole output when it was
	// truncated ("" if that file could not be written).
	FullOutputPath string
}

func bashTool(cwd string, opts BashOptions) *agent.Tool {
	return &agent.Tool{
		Name: "bash",
		Description: fmt.Sprintf("Execute a bash command in the current working directory. Returns stdout and stderr combined. "+
			"Output is truncated to the last %d lines or %dKB, whichever comes first; when truncated, the full output is saved to a temp file whose path is given. "+
			"Optionally provide a timeout in seconds. Use it for listing and searching files (ls, rg, find), running builds and tests, git, and other commands.",
			DefaultMaxLines, DefaultMaxBytes/1024),
		Parameters: bashSchema,
		Execute: func(ctx context.Context, _ string, raw json.RawMessage, onUpdate func(agent.ToolResult)) (agent.ToolResult, error) {
			var args bashArgs
			if err := decodeArgs("bash", raw, &args); err != nil {
				return agent.ToolResult{}, err
			}
			var timeout time.Duration
			if args.Timeout != nil && *args.Timeout > 0 {
				timeout = time.Duration(*args.Timeout * float64(time.Second))
			}
			var onOutput func(string)
			if onUpdate != nil {
				p := newPartialOutput(onUpdate)
				onOutput = p.add
			}
			j := &jail{sandbox: agent.SandboxFrom(ctx), cwd: cwd}
			res, err := runBash(ctx, cwd, args.Command, timeout, opts.environ(), j, onOutput)
			if err != nil {
				return errorResult("%v", err), nil
			}
			return bashToolResult(res, args.Timeout), nil
		},
	}
}

// bashToolResult phrases a BashResult for the model as pi does.
func bashToolResult(res BashResult, timeout *float64) agent.ToolResult {
	text := res.Output
	var details any
	if res.Truncated {
		tr := res.Truncation
		details = bashDetails{Truncation: &tr, FullOutputPath: res.FullOutputPath}
		full := "Full output: " + res.FullOutputPath
		if res.FullOutputPath == "" {
			full = "Full output could not be saved"
		}
		first, last := tr.TotalLines-tr.OutputLines+1, tr.TotalLines
		switch {
		case tr.LastLinePartial:
			text += fmt.Sprintf("\n\n[Showing last %s of line %d (line is longer). %s]", FormatSize(len(res.Output)), last, full)
		case tr.TruncatedBy == "lines":
			text += fmt.Sprintf("\n\n[Showing lines %d-%d of %d. %s]", first, last, tr.TotalLines, full)
		default:
			text += fmt.Sprintf("\n\n[Showing lines %d-%d of %d (%s limit). %s]", first, last, tr.TotalLines, FormatSize(DefaultMaxBytes), full)
		}
	}
	var r agent.ToolResult
	switch {
	case res.Cancelled:
		r = agent.TextResult(appendNote(text, "Command aborted"), true)
	case res.TimedOut:
		secs := "the timeout"
		if timeout != nil {
			secs = strconv.FormatFloat(*timeout, 'f', -1, 64) + " seconds"
		}
		r = agent.TextResult(appendNote(text, "Command timed out after "+secs), true)
	case res.ExitCode == nil:
		r = agent.TextResult(appendNote(orNoOutput(text), "Command was killed by a signal"), true)
	case *res.ExitCode != 0:
		r = agent.TextResult(appendNote(orNoOutput(text), fmt.Sprintf("Command exited with code %d", *res.ExitCode)), true)
	default:
		r = agent.TextResult(orNoOutput(text), false)
	}
	if details != nil {
		r = withDetails(r, details)
	}
	return r
}

func orNoOutput(s string) string {
	if s == "" {
		return "(no output)"
	}
	return s
}

func appendNote(output, note string) string {
	if output == "" {
		return note
	}
	return output + "\n\n" + note
}

// RunBash runs command with bash -c (see shellPath for the shell chosen)
// in cwd, with stdin from /dev/null and lunar's environment, as a process
// tree that dies with lunar while it runs, however lunar ends (a process
// group watched by a guard, and the parent-death signal on Linux; a job
// object on Windows). onOutput (may be nil) receives the combined output
// as it arrives, in order, from one goroutine, never after RunBash
// returns; chunks never split a UTF-8 sequence. timeout 0 means none. On
// ctx cancellation or timeout the whole tree is asked to stop (SIGTERM),
// then killed after a grace period. A command that fails or is killed is
// not an error: err is only for a command that could not start.
//
// Background jobs still running when the shell exits are left running,
// as a shell leaves them.
func RunBash(ctx context.Context, cwd, command string, timeout time.Duration, onOutput func(chunk string)) (BashResult, error) {
	return runBash(ctx, cwd, command, timeout, nil, nil, onOutput)
}

// runBash is RunBash with the command's environment (nil: lunar's) and,
// for a command the model asked for, its confinement (nil: none).
func runBash(ctx context.Context, cwd, command string, timeout time.Duration, env []string, j *jail, onOutput func(chunk string)) (BashResult, error) {
	if info, err := os.Stat(cwd); err != nil || !info.IsDir() {
		return BashResult{}, fmt.Errorf("working directory %s does not exist; cannot run commands", cwd)
	}
	if ctx.Err() != nil {
		return BashResult{Cancelled: true}, nil
	}
	shell, err := shellPath()
	if err != nil {
		return BashResult{}, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return BashResult{}, fmt.Errorf("bash: %w", err)
	}
	cmd := exec.Command(shell, "-c", command)
	cmd.Dir = cwd
	cmd.Env = env
	cmd.Stdout = w // one pipe for both keeps stdout and stderr in order
	cmd.Stderr = w
	tree, err := startTree(cmd, j)
	if err != nil {
		r.Close()
		w.Close()
		return BashResult{}, fmt.Errorf("bash: start %s: %w", shell, err)
	}
	w.Close() // the children hold the write end now

	out := &outputCollector{onOutput: onOutput}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		out.readFrom(r)
	}()

	waitDone := make(chan error, 1)
	go func() { waitDone <- cmd.Wait() }()

	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	var res BashResult
	var waitErr error
	select {
	case waitErr = <-waitDone:
	case <-ctx.Done():
		res.Cancelled = true
		waitErr = stopTree(tree, waitDone)
	case <-timer:
		res.TimedOut = true
		waitErr = stopTree(tree, waitDone)
	}
	if res.Cancelled || res.TimedOut {
		// Children that survived their shell die with the call.
		tree.kill()
	}
	tree.release()

	select {
	case <-readDone:
	case <-time.After(drainGrace):
		// Something in the background holds the pipe: keep draining it so
		// it never blocks on a full pipe, but stop reporting.
	}
	res.Output, res.Truncation, res.FullOutputPath = out.finish()
	res.Truncated = res.Truncation.Truncated

	if !res.Cancelled && !res.TimedOut {
		var exitErr *exec.ExitError
		switch {
		case waitErr == nil:
			code := 0
			res.ExitCode = &code
		case errors.As(waitErr, &exitErr):
			if code := exitErr.ExitCode(); code >= 0 {
				res.ExitCode = &code
			}
		default:
			return res, fmt.Errorf("bash: %w", waitErr)
		}
	}
	return res, nil
}

// stopTree asks the process tree to stop, kills it if the shell has not
// exited after killGrace, and returns the shell's wait error.
func stopTree(tree *procTree, waitDone <-chan error) error {
	tree.terminate()
	t := time.NewTimer(killGrace)
	defer t.Stop()
	select {
	case err := <-waitDone:
		return err
	case <-t.C:
		tree.kill()
		return <-waitDone
	}
}

// outputCollector keeps the tail of a command's output in memory, spills
// the whole output to a temp file once it exceeds the limits, and forwards
// chunks to onOutput until finish is called.
type outputCollector struct {
	mu       sync.Mutex
	onOutput func(string)
	finished bool
	pending  []byte // an incomplete UTF-8 sequence held back from onOutput
	tail     []byte // the last keepBytes or more of the output
	total    int
	newlines int
	file     *os.File
	fileErr  bool
}

func (c *outputCollector) readFrom(r io.ReadCloser) {
	defer r.Close()
	buf := make([]byte, 32*1024)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			c.add(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

func (c *outputCollector) add(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finished {
		return
	}
	c.total += len(p)
	c.newlines += countNewlines(p)
	c.tail = append(c.tail, p...)
	if c.file == nil && !c.fileErr && (c.total > DefaultMaxBytes || c.newlines >= DefaultMaxLines) {
		// Until now the tail held everything: it starts the file.
		f, err := os.CreateTemp("", "lunar-bash-*.log")
		if err != nil {
			c.fileErr = true
		} else {
			c.file = f
			c.write(c.tail)
		}
	} else if c.file != nil {
		c.write(p)
	}
	if len(c.tail) > 2*keepBytes {
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-keepBytes:]...)
	}
	if c.onOutput != nil {
		chunk := append(c.pending, p...)
		cut := completeUTF8(chunk)
		c.pending = append([]byte(nil), chunk[cut:]...)
		if cut > 0 {
			c.onOutput(string(chunk[:cut]))
		}
	}
}

func (c *outputCollector) write(p []byte) {
	if _, err := c.file.Write(p); err != nil {
		c.file.Close()
		os.Remove(c.file.Name())
		c.file, c.fileErr = nil, true
	}
}

// finish stops reporting and returns the truncated output, how it was
// truncated and the full-output file ("" if none).
func (c *outputCollector) finish() (string, Truncation, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.finished = true
	if c.onOutput != nil && len(c.pending) > 0 {
		c.onOutput(string(c.pending))
	}
	text := strings.ToValidUTF8(string(c.tail), "\uFFFD")
	out, tr := TruncateTail(text, DefaultMaxLines, DefaultMaxBytes)
	// The tail may have dropped the start of the output: count over all of it.
	tr.TotalLines, tr.TotalBytes = c.newlines+1, c.total
	tr.Truncated = tr.Truncated || c.total > len(c.tail)
	path := ""
	if c.file != nil {
		path = c.file.Name()
		if err := c.file.Close(); err != nil {
			os.Remove(path)
			path = ""
		}
		c.file = nil
	}
	if !tr.Truncated && path != "" {
		os.Remove(path)
		path = ""
	}
	return out, tr, path
}

func countNewlines(p []byte) int {
	n := 0
	for _, b := range p {
		if b == '\n' {
			n++
		}
	}
	return n
}

// completeUTF8 returns the length of the longest prefix of p that does not
// end inside a UTF-8 sequence.
func completeUTF8(p []byte) int {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if utf8.FullRune(p[i:]) {
				return len(p)
			}
			return i
		}
	}
	return len(p)
}

// partialOutput turns output chunks into the bash tool's partial results:
// the tail of the output so far, as pi reports it.
type partialOutput struct {
	onUpdate func(agent.ToolResult)
	buf      []byte
}

func newPartialOutput(onUpdate func(agent.ToolResult)) *partialOutput {
	return &partialOutput{onUpdate: onUpdate}
}

func (p *partialOutput) add(chunk string) {
	p.buf = append(p.buf, chunk...)
	if len(p.buf) > 2*keepBytes {
		p.buf = append(p.buf[:0], p.buf[len(p.buf)-keepBytes:]...)
	}
	text, _ := TruncateTail(string(p.buf), DefaultMaxLines, DefaultMaxBytes)
	p.onUpdate(agent.TextResult(text, false))
}
