// End-to-end tests of a first run without any key: lunar falls back to
// Ollama on this machine and, when nothing listens there, says what it
// looked for and how to pick a provider, at once and without a session file.
package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// firstRunEnv is a LUNAR_HOME whose config points the built-in ollama
// provider at a local port where nothing listens (the real default is
// localhost:11434, which a developer's machine may serve).
func firstRunEnv(t *testing.T) (home, cwd, port string) {
	t.Helper()
	home, cwd = t.TempDir(), t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	require.NoError(t, os.MkdirAll(filepath.Join(home, "config"), 0o755))
	cfg := `{"providers": {"ollama": {"base_url": "http://` + addr + `/v1"}}}`
	require.NoError(t, os.WriteFile(filepath.Join(home, "config", "config.json"), []byte(cfg), 0o644))
	_, port, _ = net.SplitHostPort(addr)
	return home, cwd, port
}

// noKeysEnv is the environment without any provider key.
func noKeysEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasSuffix(name, "_API_KEY") || name == "LUNAR_MAX_RETRIES" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LUNAR_HOME="+home, "NO_COLOR=1")
}

func TestFirstRunWithoutKeyExplainsAndSavesNothing(t *testing.T) {
	t.Parallel()
	home, cwd, port := firstRunEnv(t)
	cmd := exec.Command(lunarBin, "-p", "hello")
	cmd.Dir, cmd.Env = cwd, noKeysEnv(home)
	e := &e2e{t: t}
	start := time.Now()
	r := e.exec(cmd)
	elapsed := time.Since(start)

	assert.Equal(t, 1, r.code)
	assert.Empty(t, r.stdout)
	for _, want := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "Ollama", "127.0.0.1:" + port,
		"connection refused", "--model provider/id", "--list-models", filepath.Join(home, "config", "config.json")} {
		assert.Contains(t, r.stderr, want)
	}
	assert.Equal(t, 1, strings.Count(r.stderr, "lunar:"), "one message: %s", r.stderr)
	assert.NotContains(t, r.stderr, "attempts")
	// LUNAR_MAX_RETRIES is unset: the default 3 retries would wait 0.5+1+2 s.
	assert.Less(t, elapsed, 2*time.Second, "no retries on a refused local connection")
	files, _ := filepath.Glob(filepath.Join(home, "data", "sessions", "*", "*.jsonl"))
	assert.Empty(t, files, "no session file for a run whose only reply is a transport error")

	// A model the user chose gets the plain error, not the first-run help.
	cmd = exec.Command(lunarBin, "--model", "ollama/qwen3", "-p", "hello")
	cmd.Dir, cmd.Env = cwd, noKeysEnv(home)
	r = e.exec(cmd)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "connection refused")
	assert.NotContains(t, r.stderr, "ANTHROPIC_API_KEY")
	files, _ = filepath.Glob(filepath.Join(home, "data", "sessions", "*", "*.jsonl"))
	assert.Empty(t, files)
}

func TestFirstRunWithoutKeyREPL(t *testing.T) {
	t.Parallel()
	home, cwd, port := firstRunEnv(t)
	e := &e2e{t: t, home: home, cwd: cwd}
	p := e.startBare(append(noKeysEnv(home), "TERM=xterm-256color"))
	p.expect("/help for commands")
	p.line("hello")
	p.expect("no model to talk to")
	p.expect("127.0.0.1:" + port)
	p.expect("Pick a provider")
	p.quit()
	assert.Empty(t, e.sessionFiles(), "nothing was saved")
}
