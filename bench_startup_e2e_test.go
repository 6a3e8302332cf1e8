//go:build unix

// Whole-process start-up benchmarks with 30 trivial global hooks: the
// one-shot round trip with and without them, and the time from process
// start to the REPL's first prompt in a pseudo-terminal. The paired,
// ratio-based view of the same figures is testdata/bench/startup.sh.
//
//	go test -run '^$' -bench 'Startup30|REPLFirstPrompt' -benchtime 20x .
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// trivialHook counts turns and offers a command: the per-hook cost of
// loading, with nothing that runs during a one-shot answer.
const trivialHook = `-- a trivial hook: counts turns, offers a command
local turns = 0
lunar.on("turn.end", function() turns = turns + 1 end)
lunar.command("turns%02d", { description = "turns so far", handler = function() return nil end })
`

// writeTrivialHooks puts n trivial hooks in home's global hooks folder.
func writeTrivialHooks(b testing.TB, home string, n int) {
	b.Helper()
	dir := filepath.Join(home, "config", "hooks.d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%02d-trivial.lua", i)), fmt.Appendf(nil, trivialHook, i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStartup30Hooks is a one-shot answer (session written) with 0
// and 30 trivial global hooks; peak-MiB is the child's peak RSS.
func BenchmarkStartup30Hooks(b *testing.B) {
	for _, n := range []int{0, 30} {
		b.Run(fmt.Sprintf("hooks-%d", n), func(b *testing.B) {
			be := newBenchEnv(b)
			be.srv.SetDefault(llmtest.Text("Hello there, this is a short answer."))
			writeTrivialHooks(b, be.home, n)
			var peak int64
			b.ResetTimer()
			for b.Loop() {
				peak = max(peak, runProcess(b, be.command(be.srv.URL(), "-p", "say hello")))
			}
			reportRSS(b, peak)
		})
	}
}

// BenchmarkREPLFirstPrompt measures process start → the REPL's first
// prompt ("> ") in a pseudo-terminal, with 30 trivial global hooks
// (ms-to-prompt); the process is then ended with Ctrl+D.
func BenchmarkREPLFirstPrompt(b *testing.B) {
	be := newBenchEnv(b)
	writeTrivialHooks(b, be.home, 30)
	var total time.Duration
	b.ResetTimer()
	for b.Loop() {
		cmd := be.command(be.srv.URL(), "--yes")
		cmd.Env = append(cmd.Env, "TERM=xterm-256color", "NO_COLOR=1")
		start := time.Now()
		tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
		if err != nil {
			b.Fatal(err)
		}
		if err := readUntil(tty, "\n> "); err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			tty.Close()
			b.Fatal(err)
		}
		total += time.Since(start)
		tty.Write([]byte{4}) // Ctrl+D quits
		if err := cmd.Wait(); err != nil {
			b.Fatalf("lunar after Ctrl+D: %v", err)
		}
		tty.Close()
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms-to-prompt")
}

// readUntil reads the terminal until s appears.
func readUntil(tty *os.File, s string) error {
	var out bytes.Buffer
	buf := make([]byte, 4096)
	if err := tty.SetReadDeadline(time.Now().Add(15 * time.Second)); err != nil {
		return err
	}
	for !strings.Contains(out.String(), s) {
		n, err := tty.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			return fmt.Errorf("waiting for %q: %v; output:\n%s", s, err, out.String())
		}
	}
	return nil
}
