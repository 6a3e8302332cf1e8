//go:build unix

package main

// Whole-process benchmark of resuming a large session (issue 9, "large
// sessions resume fast"): a 100,000-entry session of about 1.4 KB an entry
// (one long path, no compaction, pi's format) is resumed with one prompt,
// through the OpenAI-compatible and the Anthropic API. Two fake servers:
// "llmtest", the in-repo fake (it decodes every request into a map, which
// costs it seconds on a 130 MB body), and "sink", which only reads the
// body and answers, so that the figures are lunar's own. Reported besides
// the wall time (ns/op): peak RSS, peak RSS over the file size, and the
// child's CPU time. "hooks=off" runs lunar with --no-hooks; "hooks=on"
// with its bundled hooks, whose context handlers listen to every model
// call (and leave a context without their entries alone).
//
//	go test -run '^$' -bench BenchmarkResumeLarge -benchtime 3x .
//
// -resume-entries changes the session's size.

import (
	"bytes"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session/sessiontest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var resumeEntries = flag.Int("resume-entries", 100_000, "entries of the session BenchmarkResumeLarge resumes")

// TestResumeLargeSessionRequest resumes a session large enough for its
// request body to be streamed (over 8 MB) with either API and checks that
// every message goes out with its text: the tool results' code (escaped
// in the file, decoded in place when loaded), the replies' prose (no
// escapes: read where it lies in the file), and the new prompt last.
func TestResumeLargeSessionRequest(t *testing.T) {
	const n = 10_000 // entries, about 13 MB: a body of about 10 MB, over streamBodyMin
	for _, api := range []string{llmtest.APIOpenAI, llmtest.APIAnthropic} {
		t.Run(api, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Reply(llmtest.Text("ok"))
			home, cwd := t.TempDir(), t.TempDir()
			apiField, url := "", srv.URL()
			if api == llmtest.APIAnthropic {
				apiField, url = `"api": "anthropic-messages", `, srv.RootURL()
			}
			// A window the session fits in, so that it is sent as it is.
			cfg := fmt.Sprintf(`{"compaction": {"enabled": false}, "providers": {"big": {%s"base_url": %q, "api_key": "sk-test", "models": [{"id": "big-model", "context_window": 1000000000}]}}}`,
				apiField, url)
			require.NoError(t, os.MkdirAll(filepath.Join(home, "config"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(home, "config", "config.json"), []byte(cfg), 0o644))
			file := filepath.Join(t.TempDir(), "large.jsonl")
			size := writeLargeSession(t, file, cwd, n, api, "big", "big-model")
			require.Greater(t, size, int64(8<<20), "large enough to be streamed")

			cmd := exec.Command(lunarBin, "--session", file, "-p", "next")
			cmd.Dir = cwd
			cmd.Env = append(os.Environ(), "LUNAR_HOME="+home, "NO_COLOR=1", "LUNAR_MAX_RETRIES=0")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Run(), stderr.String())
			assert.Equal(t, "ok\n", stdout.String())

			reqs := srv.Requests()
			require.Equal(t, 1, len(reqs), "one request")
			body := reqs[0].Body
			results, replies := 0, 0
			for i := 1; i < n; i++ {
				switch i % 4 {
				case 3:
					results++
				case 0, 2:
					replies++
				}
			}
			assert.Equal(t, results, bytes.Count(body, []byte(sessiontest.LargeCode)), "every tool result's code, escaped as in the file")
			assert.Equal(t, replies, bytes.Count(body, []byte(sessiontest.LargeProse)), "every reply's prose")
			msgs, _ := reqs[0].JSON["messages"].([]any)
			want := n // the n-1 messages of the file and the prompt
			if api == llmtest.APIOpenAI {
				want++ // the system prompt
			}
			require.Equal(t, want, len(msgs), "messages")
			last, _ := msgs[len(msgs)-1].(map[string]any)
			assert.Equal(t, "user", last["role"])
			assert.Contains(t, fmt.Sprint(last["content"]), "next")
		})
	}
}

// writeLargeSession writes sessiontest.WriteLarge's session of n
// entries to path and returns its size.
func writeLargeSession(tb testing.TB, path, cwd string, n int, api, provider, model string) int64 {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := sessiontest.WriteLarge(f, cwd, n, api, provider, model); err != nil {
		tb.Fatal(err)
	}
	fi, err := f.Stat()
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}

// sinkServer is an llmtest.Sink, closed at the test's end.
func sinkServer(tb testing.TB) *httptest.Server {
	srv := httptest.NewServer(llmtest.Sink())
	tb.Cleanup(srv.Close)
	return srv
}

// measuredCommand runs name with args so that its peak RSS and CPU time
// can be read afterwards with stats. The rusage os/exec reports is not
// enough: Linux keeps, in the child's maximum RSS, the high-water mark of
// the address space the child shared with this (large) test process until
// it exec'd; GNU time, when installed, forks lunar from a small process.
func measuredCommand(name string, args ...string) (*exec.Cmd, func(*exec.Cmd, string) (int64, time.Duration)) {
	if gnuTime, err := exec.LookPath("time"); err == nil && exec.Command(gnuTime, "-f", "%M", "true").Run() == nil {
		cmd := exec.Command(gnuTime, append([]string{"-f", "lunar-stats %M %U %S", name}, args...)...)
		return cmd, func(_ *exec.Cmd, stderr string) (int64, time.Duration) {
			i := strings.LastIndex(stderr, "lunar-stats ")
			if i < 0 {
				return 0, 0
			}
			var kib int64
			var user, sys float64
			_, _ = fmt.Sscanf(stderr[i:], "lunar-stats %d %f %f", &kib, &user, &sys)
			return kib, time.Duration((user + sys) * float64(time.Second))
		}
	}
	return exec.Command(name, args...), func(cmd *exec.Cmd, _ string) (int64, time.Duration) {
		var kib int64
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			kib = int64(ru.Maxrss) // an upper bound (see above)
		}
		return kib, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
}

func BenchmarkResumeLarge(b *testing.B) {
	for _, api := range []string{llmtest.APIOpenAI, llmtest.APIAnthropic} {
		for _, run := range []struct{ server, hooks string }{{"sink", "off"}, {"sink", "on"}, {"llmtest", "off"}} {
			server := run.server
			b.Run(api+"/"+server+"/hooks="+run.hooks, func(b *testing.B) {
				home, cwd := b.TempDir(), b.TempDir()
				var base string
				if server == "sink" {
					base = sinkServer(b).URL
				} else {
					srv := llmtest.New(b)
					srv.SetDefault(llmtest.Text("ok"))
					base = srv.RootURL()
				}
				provider, model, apiField, url := "big", "big-model", "", base+"/v1"
				if api == llmtest.APIAnthropic {
					apiField, url = `"api": "anthropic-messages", `, base
				}
				cfg := fmt.Sprintf(`{"compaction": {"enabled": false}, "providers": {%q: {%s"base_url": %q, "api_key": "sk-bench", "models": [{"id": %q, "context_window": 1000000000}]}}}`,
					provider, apiField, url, model)
				if err := os.MkdirAll(filepath.Join(home, "config"), 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(home, "config", "config.json"), []byte(cfg), 0o644); err != nil {
					b.Fatal(err)
				}
				orig := filepath.Join(b.TempDir(), "large.jsonl")
				size := writeLargeSession(b, orig, cwd, *resumeEntries, api, provider, model)
				file := filepath.Join(b.TempDir(), "resume.jsonl")

				var peak int64
				var cpu, wall time.Duration
				b.ResetTimer()
				for b.Loop() {
					b.StopTimer()
					data, err := os.ReadFile(orig)
					if err == nil {
						err = os.WriteFile(file, data, 0o600)
					}
					if err != nil {
						b.Fatal(err)
					}
					args := []string{"--session", file, "-p", "next"}
					if run.hooks == "off" {
						args = append([]string{"--no-hooks"}, args...)
					}
					cmd, stats := measuredCommand(lunarBin, args...)
					cmd.Dir = cwd
					cmd.Env = append(os.Environ(), "LUNAR_HOME="+home, "LUNAR_MAX_RETRIES=0")
					var stdout, stderr strings.Builder
					cmd.Stdout, cmd.Stderr = &stdout, &stderr
					b.StartTimer()
					start := time.Now()
					err = cmd.Run()
					wall += time.Since(start)
					if err != nil || stdout.String() != "ok\n" {
						b.Fatalf("%v: %v\n%s%s", cmd.Args, err, stdout.String(), stderr.String())
					}
					kib, c := stats(cmd, stderr.String())
					peak = max(peak, kib)
					cpu += c
				}
				b.ReportMetric(float64(peak)/1024, "peak-MiB")
				b.ReportMetric(float64(peak*1024)/float64(size), "peak/file")
				b.ReportMetric(float64(size)/(1<<20), "file-MiB")
				b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
				b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s/op")
			})
		}
	}
}
