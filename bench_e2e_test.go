//go:build unix

// Whole-process benchmarks of the lunar binary (built once by TestMain):
// startup (--version), a one-shot answer against the in-repo fake server,
// a one-shot tool loop, and the time from process start to the first byte
// of the model request. Each reports the child's peak RSS as well.
//
//	go test -run '^$' -bench . -benchtime 20x .
package main

import (
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// benchEnv is an isolated installation for benchmarks.
type benchEnv struct {
	home, cwd string
	srv       *llmtest.Server
}

func newBenchEnv(b *testing.B) *benchEnv {
	b.Helper()
	return &benchEnv{home: b.TempDir(), cwd: b.TempDir(), srv: llmtest.New(b)}
}

func (be *benchEnv) command(baseURL string, args ...string) *exec.Cmd {
	cmd := exec.Command(lunarBin, append([]string{"--model", "openai/gpt-4.1", "--base-url", baseURL, "--api-key", "sk-bench"}, args...)...)
	cmd.Dir = be.cwd
	cmd.Env = append(os.Environ(), "LUNAR_HOME="+be.home, "LUNAR_MAX_RETRIES=0")
	return cmd
}

// runProcess runs cmd to completion and returns its peak RSS in KiB.
func runProcess(b *testing.B, cmd *exec.Cmd) int64 {
	b.Helper()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}

// reportRSS reports the largest peak RSS seen, in MiB.
func reportRSS(b *testing.B, maxKiB int64) {
	b.ReportMetric(float64(maxKiB)/1024, "peak-MiB")
}

func BenchmarkStartupVersion(b *testing.B) {
	be := newBenchEnv(b)
	var peak int64
	b.ResetTimer()
	for b.Loop() {
		peak = max(peak, runProcess(b, be.command(be.srv.URL(), "--version")))
	}
	reportRSS(b, peak)
}

func BenchmarkOneShotAnswer(b *testing.B) {
	be := newBenchEnv(b)
	be.srv.SetDefault(llmtest.Text("Hello there, this is a short answer."), llmtest.Usage(1200, 12, 0, 0))
	var peak int64
	b.ResetTimer()
	for b.Loop() {
		peak = max(peak, runProcess(b, be.command(be.srv.URL(), "-p", "say hello")))
	}
	reportRSS(b, peak)
}

func BenchmarkOneShotAnswerNoSessionNoHooks(b *testing.B) {
	be := newBenchEnv(b)
	be.srv.SetDefault(llmtest.Text("Hello there, this is a short answer."), llmtest.Usage(1200, 12, 0, 0))
	var peak int64
	b.ResetTimer()
	for b.Loop() {
		peak = max(peak, runProcess(b, be.command(be.srv.URL(), "--no-session", "--no-hooks", "-p", "say hello")))
	}
	reportRSS(b, peak)
}

func BenchmarkOneShotToolLoop(b *testing.B) {
	be := newBenchEnv(b)
	var peak int64
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		be.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo hi"}`))
		be.srv.Reply(llmtest.Text("It printed hi."))
		b.StartTimer()
		peak = max(peak, runProcess(b, be.command(be.srv.URL(), "-p", "run it")))
	}
	reportRSS(b, peak)
}

// firstByteProxy forwards connections to a server and records when the
// first byte of the first connection arrived.
type firstByteProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	first  time.Time
}

func newFirstByteProxy(b *testing.B, target string) *firstByteProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	p := &firstByteProxy{ln: ln, target: target}
	b.Cleanup(func() { ln.Close() })
	go p.serve()
	return p
}

func (p *firstByteProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

func (p *firstByteProxy) forward(c net.Conn) {
	defer c.Close()
	buf := make([]byte, 32<<10)
	n, err := c.Read(buf)
	if n > 0 {
		p.mu.Lock()
		if p.first.IsZero() {
			p.first = time.Now()
		}
		p.mu.Unlock()
	}
	if err != nil {
		return
	}
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer up.Close()
	if _, err := up.Write(buf[:n]); err != nil {
		return
	}
	go func() { _, _ = io.Copy(up, c) }()
	_, _ = io.Copy(c, up)
}

func (p *firstByteProxy) reset() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.first
	p.first = time.Time{}
	return t
}

// BenchmarkTimeToFirstRequestByte measures process start → first byte of
// the model request at the server (ms-to-first-byte); ns/op is the whole
// run, through a forwarding proxy.
func BenchmarkTimeToFirstRequestByte(b *testing.B) {
	for _, bc := range []struct {
		name  string
		flags []string
	}{{"default", nil}, {"no-hooks", []string{"--no-hooks"}}} {
		b.Run(bc.name, func(b *testing.B) {
			be := newBenchEnv(b)
			be.srv.SetDefault(llmtest.Text("ok"))
			host := be.srv.URL()[len("http://"):]
			host = host[:len(host)-len("/v1")]
			p := newFirstByteProxy(b, host)
			url := "http://" + p.ln.Addr().String() + "/v1"
			var total time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cmd := be.command(url, append(bc.flags, "-p", "hi")...)
				start := time.Now()
				runProcess(b, cmd)
				first := p.reset()
				if first.IsZero() {
					b.Fatal("no request reached the server")
				}
				total += first.Sub(start)
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms-to-first-byte")
		})
	}
}
