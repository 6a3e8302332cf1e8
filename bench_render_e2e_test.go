//go:build unix

// The cost of rendering answers as they stream (issue #22): the CPU the
// lunar process uses for a 2,000-chunk markdown answer on a terminal,
// rendered and with --raw, per chunk.
//
//	go test -run '^$' -bench RenderedAnswerCPU -benchtime 5x .
package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

const benchChunks = 2000

func BenchmarkRenderedAnswerCPU(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("session", "export", "ansi", "testdata", "all.md"))
	if err != nil {
		b.Fatal(err)
	}
	md := strings.Repeat(string(src)+"\n", 80000/len(src)) // ~80 KB: 40 bytes a chunk
	for _, mode := range []struct {
		name string
		args []string
	}{{"rendered", nil}, {"raw", []string{"--raw"}}} {
		b.Run(mode.name, func(b *testing.B) {
			be := newBenchEnv(b)
			var cpu time.Duration
			for b.Loop() {
				be.srv.Reply(llmtest.Text(md).Split(benchChunks))
				cmd := be.command(be.srv.URL(), append(mode.args, "--no-session", "-p", "show me")...)
				cmd.Env = append(cmd.Env, "TERM=xterm-256color", "NO_COLOR=")
				tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 100})
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, tty) // ends with EIO once lunar has exited
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
				tty.Close()
				ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
				cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			}
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N)/benchChunks, "cpu-µs/chunk")
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/answer")
		})
	}
}
