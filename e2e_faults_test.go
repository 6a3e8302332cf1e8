// End-to-end tests of faults from outside: a provider that stalls (after
// its headers, or before them), lunar killed with SIGKILL while a command
// runs, a command looking for API keys, and --session given a file that is
// no session.
package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// faultIdle is the stream idle timeout the stall tests give lunar.
const faultIdle = "500ms"

func TestFaultStalledStreamEndsTheReply(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			e := newE2E(t)
			e.api = api
			e.env = append(e.env, "LUNAR_STREAM_IDLE_TIMEOUT="+faultIdle)
			e.srv.Reply(llmtest.Text("partial answer"), llmtest.Hang())
			start := time.Now()
			r := e.run("", "-p", "hi")
			elapsed := time.Since(start)
			assert.Equal(t, 1, r.code, r.stderr)
			host := hostPort(t, e.srv.RootURL())
			assert.Contains(t, r.stderr, "stream interrupted: "+host+" sent nothing for 500 ms")
			assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
			assert.Equal(t, "partial answer\n", r.stdout, "what streamed stays")
			assert.Less(t, elapsed, 10*time.Second)
			assert.Len(t, e.srv.Requests(), 1, "a stream is not resumed or sent again")
			t.Logf("gave up on the stalled stream after %v (idle timeout %s)", elapsed.Round(time.Millisecond), faultIdle)

			msgs := e.onlySession().BuildContext().Messages
			require.Len(t, msgs, 2)
			assert.Equal(t, session.StopError, msgs[1].Message.StopReason)
			assert.Equal(t, "partial answer", msgs[1].Message.Text(), "the partial reply is kept")
			assert.Contains(t, msgs[1].Message.ErrorMessage(), "sent nothing for 500 ms")
		})
	}
}

func TestFaultNoHeadersIsRetriedThenGivenUp(t *testing.T) {
	t.Parallel()
	var requests atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		select { // the fault: read the request, never answer
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			requests.Store(0)
			e := newE2E(t)
			e.api = api
			e.env = append(e.env, "LUNAR_STREAM_IDLE_TIMEOUT="+faultIdle)
			base := srv.URL + "/v1"
			if api == "anthropic" {
				base = srv.URL
			}
			start := time.Now()
			r := e.run("", "--base-url", base, "-p", "hi") // the later --base-url wins
			elapsed := time.Since(start)
			assert.Equal(t, 1, r.code, r.stderr)
			assert.Contains(t, r.stderr, "request failed: "+hostPort(t, srv.URL)+" sent nothing for 500 ms (3 attempts)")
			assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
			assert.Empty(t, r.stdout)
			assert.Equal(t, int32(3), requests.Load(), "LUNAR_MAX_RETRIES=2: three attempts")
			assert.Less(t, elapsed, 15*time.Second)
			t.Logf("gave up on a provider that never answered after %v (3 attempts, idle timeout %s)", elapsed.Round(time.Millisecond), faultIdle)
		})
	}
}

// TestFaultBashChildrenDieWithLunar kills lunar with SIGKILL while the
// model's command runs: the shell and its background child must go too.
func TestFaultBashChildrenDieWithLunar(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	args, _ := json.Marshal(map[string]string{"command": `echo $$ > shell.pid; sleep 300 & echo $! > child.pid; wait`})
	e.srv.Reply(llmtest.ToolCall("bash", string(args)))
	pidOf := func(name string) int {
		b, err := os.ReadFile(filepath.Join(e.cwd, name))
		if err != nil || !strings.HasSuffix(string(b), "\n") {
			return 0
		}
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return n
	}
	t.Cleanup(func() {
		for _, name := range []string{"shell.pid", "child.pid"} {
			if pid := pidOf(name); pid > 0 {
				_ = signalPID(pid, false)
			}
		}
	})
	cmd := e.cmd("", "-p", "run it")
	done := e.startCmd(cmd)
	waitFor(t, func() bool { return pidOf("shell.pid") > 0 && pidOf("child.pid") > 0 }, func() string { return "the command never started" })
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	<-done
	start := time.Now()
	for _, name := range []string{"shell.pid", "child.pid"} {
		pid := pidOf(name)
		assertDies(t, pid, 5*time.Second, "%s (pid %d) died with lunar", name, pid)
	}
	t.Logf("the command's processes were gone %v after lunar was killed", time.Since(start).Round(time.Millisecond))
}

// TestFaultBashHidesAPIKeys: a command the model runs does not see the
// provider keys of lunar's environment.
func TestFaultBashHidesAPIKeys(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.env = append(e.env, "OPENAI_API_KEY=sk-env-secret-1234", "ANTHROPIC_API_KEY=sk-ant-secret-5678", "LUNAR_FAULT_VISIBLE=yes")
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo \"[${OPENAI_API_KEY-unset}] [${ANTHROPIC_API_KEY-unset}] [$LUNAR_FAULT_VISIBLE]\""}`))
	e.srv.Reply(llmtest.Text("done"))
	r := e.run("", "-p", "show the keys")
	require.Equal(t, 0, r.code, r.stderr)
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	body := string(reqs[1].Body)
	assert.Contains(t, body, `[unset] [unset] [yes]`)
	assert.NotContains(t, body, "secret")
}

// TestFaultSessionFlagRefusesANonSessionFile: --session given the user's
// own file fails clearly and leaves the file as it was.
func TestFaultSessionFlagRefusesANonSessionFile(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"notes.jsonl": "{\"event\":\"deploy\",\"ok\":true}\n{\"event\":\"rollback\"}\n",
		"notes.txt":   "# Shopping\n\n- milk\n- bread\n",
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			e := newE2E(t)
			path := filepath.Join(e.cwd, name)
			require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
			before, err := os.Stat(path)
			require.NoError(t, err)

			r := e.run("", "--session", "./"+name, "-p", "hi")
			assert.NotEqual(t, 0, r.code)
			assert.Contains(t, r.stderr, name)
			assert.Contains(t, r.stderr, "not a session file")
			assert.Empty(t, r.stdout)
			assert.Empty(t, e.srv.Requests(), "nothing was sent")

			data, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, content, string(data), "the file is untouched")
			after, err := os.Stat(path)
			require.NoError(t, err)
			assert.True(t, os.SameFile(before, after) && before.ModTime().Equal(after.ModTime()), "the file is not rewritten")
			names, err := os.ReadDir(e.cwd)
			require.NoError(t, err)
			assert.Len(t, names, 1, "no backup or lock file beside it")
		})
	}
}

// hostPort returns the host:port of a URL.
func hostPort(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u.Host
}
