//go:build unix

// Whole-process benchmarks of what hooks cost through their event
// payloads (issue #27 item 2), in paired rounds: each iteration runs every
// variant once, in a rotating order, so that a busy machine slows all of
// them alike; reported are each variant's median wall and CPU time (user
// + system) and the median of its per-round ratios to the first variant
// (the floor it is compared with).
//
//   - Hooks30: a one-shot run (-p, no session) with 30 trivial global
//     hooks whose turn.end handler takes (ev, ctx) and reads neither, and
//     with the same hooks whose handler takes no argument (so that no
//     payload is built: what remains is loading them), against the same
//     run without hooks.
//
//   - Compact: /compact of a stored session (-compact-entries, pi's
//     format, as BenchmarkResumeLarge's) with the bundled hooks, and with
//     --no-hooks, against its floor: reading the file and sending the
//     summary request lunar sent, once (testdata/bench/rawpost).
//
//     go test -run '^$' -bench 'BenchmarkPayloads' -benchtime 21x .
//
// With LUNAR_BASE=/path/to/lunar an older build runs in the same rounds
// (variants base-…): before/after figures on the same machine state.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

var compactEntries = flag.Int("compact-entries", 10_000, "entries of the session BenchmarkPayloadsCompact compacts")

// pairedVariant is one command of a paired benchmark.
type pairedVariant struct {
	name  string
	cmd   func() *exec.Cmd // a fresh command for each run
	setup func()           // run before each run, untimed (nil: none)
	check func(stdout, stderr string) error

	wall, cpu []time.Duration
}

// runPaired runs one round per b.Loop iteration and reports the medians.
func runPaired(b *testing.B, vs []*pairedVariant) {
	b.Helper()
	round := 0
	for b.Loop() {
		for i := range vs {
			v := vs[(i+round)%len(vs)]
			if v.setup != nil {
				b.StopTimer()
				v.setup()
				b.StartTimer()
			}
			cmd := v.cmd()
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			wall := time.Since(start)
			if err == nil && v.check != nil {
				err = v.check(stdout.String(), stderr.String())
			}
			if err != nil {
				b.Fatalf("%s: %v: %v\n%s%s", v.name, cmd.Args, err, stdout.String(), stderr.String())
			}
			v.wall = append(v.wall, wall)
			v.cpu = append(v.cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		}
		round++
	}
	median := func(ds []float64) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[len(s)/2]
	}
	ms := func(ds []time.Duration) []float64 {
		out := make([]float64, len(ds))
		for i, d := range ds {
			out[i] = float64(d.Microseconds()) / 1000
		}
		return out
	}
	floor := vs[0]
	for _, v := range vs {
		w, c := ms(v.wall), ms(v.cpu)
		b.ReportMetric(median(w), v.name+"-wall-ms")
		b.ReportMetric(median(c), v.name+"-cpu-ms")
		if v == floor {
			continue
		}
		fw, fc := ms(floor.wall), ms(floor.cpu)
		rw, rc := make([]float64, len(w)), make([]float64, len(c))
		for i := range w {
			rw[i], rc[i] = w[i]/fw[i], c[i]/max(fc[i], 0.001)
		}
		b.ReportMetric(median(rw), v.name+"-wall-x")
		b.ReportMetric(median(rc), v.name+"-cpu-x")
	}
}

// baseBinary is a copy of LUNAR_BASE, an older build timed in the same
// rounds ("": none).
func baseBinary(b *testing.B) string {
	bin := os.Getenv("LUNAR_BASE")
	if bin == "" {
		return ""
	}
	return timedCopy(b, bin)
}

// timedCopy copies a binary to be timed into a folder of its own. Every
// binary a paired benchmark compares runs from such a copy, never from
// where Go's linker wrote it: the page cache holds a file the linker
// wrote (through a memory mapping) differently from one written with
// write(2), and exec maps it slower (lunar --version took 16 % longer,
// a one-shot run 9-11 %), which would favour a copied LUNAR_BASE.
func timedCopy(b *testing.B, bin string) string {
	b.Helper()
	data, err := os.ReadFile(bin)
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), filepath.Base(bin))
	if err := os.WriteFile(out, data, 0o755); err != nil {
		b.Fatal(err)
	}
	return out
}

func BenchmarkPayloadsHooks30(b *testing.B) {
	be := newBenchEnv(b)
	be.srv.SetDefault(llmtest.Text("ok"))
	// hooks30 writes 30 trivial hooks whose turn.end handler has params.
	hooks30 := func(params string) string {
		home := b.TempDir()
		dir := filepath.Join(home, "config", "hooks.d")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for i := range 30 {
			code := fmt.Sprintf(`-- a trivial hook: counts turns, offers a command
local turns = 0
lunar.on("turn.end", function(%s) turns = turns + 1 end)
lunar.command("turns%02d", { description = "turns so far", handler = function() return nil end })
`, params, i)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%02d-trivial.lua", i)), []byte(code), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		return home
	}
	home30, home30noargs := hooks30("ev, ctx"), hooks30("")
	url := be.srv.URL()
	bin := timedCopy(b, lunarBin)
	variant := func(name, bin, home string) *pairedVariant {
		return &pairedVariant{name: name, cmd: func() *exec.Cmd {
			cmd := exec.Command(bin, "--model", "openai/gpt-4.1", "--base-url", url, "--api-key", "sk-bench", "--no-session", "-p", "hi")
			cmd.Dir = be.cwd
			cmd.Env = append(os.Environ(), "LUNAR_HOME="+home, "LUNAR_MAX_RETRIES=0")
			return cmd
		}, check: wantOutput("ok\n")}
	}
	vs := []*pairedVariant{variant("nohooks", bin, be.home), variant("30hooks", bin, home30),
		variant("30hooks-noargs", bin, home30noargs)}
	if base := baseBinary(b); base != "" {
		// its own home: no chunk cache shared with the build timed
		vs = append(vs, variant("base-30hooks", base, hooks30("ev, ctx")))
	}
	runPaired(b, vs)
}

func BenchmarkPayloadsCompact(b *testing.B) {
	cwd := b.TempDir()
	cwd, _ = filepath.EvalSymlinks(cwd)
	var mu sync.Mutex
	var lastPath string
	var lastBody []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		lastPath, lastBody = r.URL.Path, body
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"The summary."},"finish_reason":null}]}`+"\n\n")
		fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	b.Cleanup(srv.Close)
	provider, model := "big", "big-model"
	cfg := fmt.Sprintf(`{"compaction": {"enabled": false}, "providers": {%q: {"base_url": %q, "api_key": "sk-bench", "models": [{"id": %q, "context_window": 1000000000}]}}}`,
		provider, srv.URL+"/v1", model)
	// newHome makes a home with that configuration: the base binary has
	// its own, sharing no chunk cache with the build timed.
	newHome := func() string {
		home := b.TempDir()
		if err := os.MkdirAll(filepath.Join(home, "config"), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, "config", "config.json"), []byte(cfg), 0o644); err != nil {
			b.Fatal(err)
		}
		return home
	}
	home := newHome()
	orig := filepath.Join(b.TempDir(), "large.jsonl")
	writeLargeSession(b, orig, cwd, *compactEntries, "openai-completions", provider, model)
	data, err := os.ReadFile(orig)
	if err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(b.TempDir(), "compact.jsonl")
	fresh := func() {
		if err := os.WriteFile(file, data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	lunarAt := func(home, bin string, extra ...string) func() *exec.Cmd {
		return func() *exec.Cmd {
			cmd := exec.Command(bin, append(extra, "--session", file, "-p", "/compact")...)
			cmd.Dir = cwd
			cmd.Env = append(os.Environ(), "LUNAR_HOME="+home, "LUNAR_MAX_RETRIES=0")
			return cmd
		}
	}
	bin := timedCopy(b, lunarBin)
	lunar := func(extra ...string) func() *exec.Cmd { return lunarAt(home, bin, extra...) }

	// The summary request lunar sends, for the floor to send the same.
	fresh()
	if out, err := lunar("--no-hooks")().CombinedOutput(); err != nil {
		b.Fatalf("compact: %v\n%s", err, out)
	}
	mu.Lock()
	rec, err := json.Marshal(map[string]any{"path": lastPath, "body": json.RawMessage(lastBody)})
	mu.Unlock()
	if err != nil || !strings.HasSuffix(lastPath, "/chat/completions") {
		b.Fatalf("no summary request recorded (%q): %v", lastPath, err)
	}
	record := filepath.Join(b.TempDir(), "request.jsonl")
	if err := os.WriteFile(record, append(rec, '\n'), 0o644); err != nil {
		b.Fatal(err)
	}
	rawpost := filepath.Join(b.TempDir(), "rawpost")
	if out, err := exec.Command("go", "build", "-o", rawpost, "./testdata/bench/rawpost").CombinedOutput(); err != nil {
		b.Fatalf("build rawpost: %v\n%s", err, out)
	}
	rawpost = timedCopy(b, rawpost)
	b.ReportMetric(float64(len(data))/(1<<20), "file-MiB")
	b.ReportMetric(float64(len(lastBody))/(1<<20), "request-MiB")

	compacted := func(_, stderr string) error {
		if !strings.Contains(stderr, "compacted: ") {
			return fmt.Errorf("no compaction reported")
		}
		return nil
	}
	vs := []*pairedVariant{
		{name: "floor", setup: fresh, cmd: func() *exec.Cmd {
			// read the session file, then the one POST
			return exec.Command("sh", "-c", `cat "$1" >/dev/null && exec "$2" "$3" "$4"`, "floor", file, rawpost, srv.URL+"/v1", record)
		}},
		{name: "nohooks", setup: fresh, cmd: lunar("--no-hooks"), check: compacted},
		{name: "bundled", setup: fresh, cmd: lunar(), check: compacted},
	}
	if base := baseBinary(b); base != "" {
		vs = append(vs, &pairedVariant{name: "base-bundled", setup: fresh, cmd: lunarAt(newHome(), base), check: compacted})
	}
	runPaired(b, vs)
}

// wantOutput checks a run's stdout.
func wantOutput(want string) func(string, string) error {
	return func(got, _ string) error {
		if got != want {
			return fmt.Errorf("stdout %q, want %q", got, want)
		}
		return nil
	}
}
