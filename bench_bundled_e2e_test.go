//go:build unix

// What the bundled stack.lua and prune.lua cost a whole run: the time from
// process start to the first byte of the model request and the CPU time
// of the run (user + system, steadier than wall time on a busy machine),
// with them and without them (disabled_hooks), on a new session and on a
// resumed one of 1,000 entries (where an idle context handler that
// converted the context would show).
//
//	go test -run '^$' -bench BundledHooks -benchtime 20x -count 5 .
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// longStoredSession writes a session of n turns (user, tool call, tool
// result, answer) for cwd under home.
func longStoredSession(b *testing.B, home, cwd string, n int) {
	b.Helper()
	s, err := session.Create(session.Dir(filepath.Join(home, "data", "sessions"), cwd), cwd)
	if err != nil {
		b.Fatal(err)
	}
	add := func(m session.Message) {
		m.Timestamp = time.Now().UnixMilli()
		if _, err := s.AppendMessage(&m); err != nil {
			b.Fatal(err)
		}
	}
	text := func(s string) []session.ContentBlock {
		return []session.ContentBlock{{Type: session.BlockText, Text: s}}
	}
	for i := range n {
		id := fmt.Sprintf("call_%d", i)
		add(session.Message{Role: session.RoleUser, Content: text(fmt.Sprintf("look at file %d", i))})
		add(session.Message{Role: session.RoleAssistant, API: "openai-completions", Provider: "openai", Model: "gpt-4.1", StopReason: session.StopToolUse,
			Usage:   &session.Usage{Input: 1000, Output: 10, TotalTokens: 1010},
			Content: []session.ContentBlock{{Type: session.BlockToolCall, ID: id, Name: "read", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"f%d.go"}`, i))}}})
		add(session.Message{Role: session.RoleToolResult, ToolCallID: id, ToolName: "read", Content: text("package main\n\nfunc main() {}\n")})
		add(session.Message{Role: session.RoleAssistant, API: "openai-completions", Provider: "openai", Model: "gpt-4.1", StopReason: session.StopStop,
			Usage: &session.Usage{Input: 1000, Output: 10, TotalTokens: 1010}, Content: text("It is empty.")})
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkBundledHooksFirstByte(b *testing.B) {
	for _, sc := range []struct {
		name  string
		turns int
	}{{"new", 0}, {"resumed-1000", 250}} {
		for _, hc := range []struct{ name, config string }{
			{"bundled", `{}`},
			{"without-stack-prune", `{"disabled_hooks": ["stack", "prune"]}`},
		} {
			b.Run(sc.name+"/"+hc.name, func(b *testing.B) {
				be := newBenchEnv(b)
				be.srv.SetDefault(llmtest.Text("ok"))
				if err := os.MkdirAll(filepath.Join(be.home, "config"), 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(be.home, "config", "config.json"), []byte(hc.config), 0o644); err != nil {
					b.Fatal(err)
				}
				cwd, _ := filepath.EvalSymlinks(be.cwd)
				be.cwd = cwd
				args := []string{"--no-session", "-p", "hi"}
				if sc.turns > 0 {
					longStoredSession(b, be.home, cwd, sc.turns)
					args = []string{"-c", "-p", "hi"}
				}
				host := be.srv.URL()[len("http://"):]
				p := newFirstByteProxy(b, host[:len(host)-len("/v1")])
				url := "http://" + p.ln.Addr().String() + "/v1"
				var total, cpu time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					cmd := be.command(url, args...)
					start := time.Now()
					runProcess(b, cmd)
					first := p.reset()
					if first.IsZero() {
						b.Fatal("no request reached the server")
					}
					total += first.Sub(start)
					if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
						cpu += time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
					}
				}
				b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms-to-first-byte")
				b.ReportMetric(float64(cpu.Microseconds())/float64(b.N)/1000, "cpu-ms")
			})
		}
	}
}
