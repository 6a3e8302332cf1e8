package mcp_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/agent/mcp"
	"github.com/lunar-cli/lunar/agent/mcp/mcptest"
	"github.com/lunar-cli/lunar/session"
)

// The test binary is also the stdio test server (mcptest.Main).
func init() {
	if mcptest.Main() {
		os.Exit(0)
	}
}

// warnings collects a manager's warnings.
type warnings struct {
	mu    sync.Mutex
	lines []string
}

func (w *warnings) add(s string) { w.mu.Lock(); w.lines = append(w.lines, s); w.mu.Unlock() }
func (w *warnings) all() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.lines, "\n")
}

func stdioServer(name, mode string, env ...string) mcp.Server {
	e := map[string]string{mcptest.EnvMode: mode}
	for i := 0; i+1 < len(env); i += 2 {
		e[env[i]] = env[i+1]
	}
	return mcp.Server{Name: name, Command: os.Args[0], Env: e, Origin: "test"}
}

func newManager(t *testing.T, w *warnings, servers ...mcp.Server) *mcp.Manager {
	t.Helper()
	m := mcp.New(mcp.Options{Servers: servers, Cwd: t.TempDir(), LogDir: t.TempDir(), StartTimeout: 20 * time.Second, Warn: w.add})
	t.Cleanup(m.Close)
	return m
}

func tool(t *testing.T, tools []*agent.Tool, name string) *agent.Tool {
	t.Helper()
	for _, tl := range tools {
		if tl.Name == name {
			return tl
		}
	}
	require.Failf(t, "no such tool", "%s", name)
	return nil
}

func call(t *testing.T, tl *agent.Tool, args string) (agent.ToolResult, error) {
	t.Helper()
	return tl.Execute(context.Background(), "c1", json.RawMessage(args), nil)
}

func TestStdioServerTools(t *testing.T) {
	w := &warnings{}
	m := newManager(t, w, stdioServer("t", "serve"))
	tools := m.Tools()
	names := []string{}
	for _, tl := range tools {
		names = append(names, tl.Name)
		assert.Equal(t, "mcp:t", tl.Source)
	}
	assert.ElementsMatch(t, []string{"mcp__t__echo", "mcp__t__fail", "mcp__t__huge", "mcp__t__image", "mcp__t__structured", "mcp__t__slow", "mcp__t__crash"}, names)
	assert.Contains(t, w.all(), `mcp: server "t": tool "bad_schema" left out`)

	echo := tool(t, tools, "mcp__t__echo")
	assert.True(t, echo.ReadOnly)
	assert.False(t, tool(t, tools, "mcp__t__fail").ReadOnly)
	assert.JSONEq(t, `{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`, string(echo.Parameters))

	cases := []struct {
		name, tool, args string
		check            func(t *testing.T, r agent.ToolResult)
	}{
		{"text", "mcp__t__echo", `{"message":"hi"}`, func(t *testing.T, r agent.ToolResult) {
			assert.False(t, r.IsError)
			assert.Equal(t, "echo: hi", r.Content[0].Text)
		}},
		{"isError", "mcp__t__fail", `{}`, func(t *testing.T, r agent.ToolResult) {
			assert.True(t, r.IsError)
			assert.Equal(t, "the database is on fire", r.Content[0].Text)
		}},
		{"huge is truncated", "mcp__t__huge", `{"lines":5000}`, func(t *testing.T, r agent.ToolResult) {
			require.Len(t, r.Content, 1)
			assert.Less(t, len(r.Content[0].Text), 60*1024)
			assert.Contains(t, r.Content[0].Text, "line 1 of the huge result\n")
			assert.NotContains(t, r.Content[0].Text, "line 5000 ")
			assert.Contains(t, r.Content[0].Text, "[output truncated: ")
		}},
		{"image", "mcp__t__image", `{}`, func(t *testing.T, r agent.ToolResult) {
			require.Len(t, r.Content, 2)
			assert.Equal(t, "a pixel:", r.Content[0].Text)
			assert.Equal(t, session.BlockImage, r.Content[1].Type)
			assert.Equal(t, "image/png", r.Content[1].Extra.MimeType)
		}},
		{"structured", "mcp__t__structured", `{}`, func(t *testing.T, r agent.ToolResult) {
			assert.JSONEq(t, `{"temperature":21.5,"unit":"C"}`, r.Content[0].Text)
			assert.JSONEq(t, `{"temperature":21.5,"unit":"C"}`, string(r.Details))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := call(t, tool(t, tools, c.tool), c.args)
			require.NoError(t, err)
			c.check(t, r)
		})
	}

	st := m.Status()
	require.Len(t, st, 1)
	assert.Equal(t, mcp.StateReady, st[0].State)
	assert.Equal(t, []string{"mcp__t__greet"}, st[0].Prompts)
	text, handled, err := m.RunPrompt(context.Background(), "mcp__t__greet", "Ada warmly and at length")
	require.NoError(t, err)
	assert.True(t, handled)
	assert.Equal(t, "Greet Ada warmly and at length.", text)
	_, handled, err = m.RunPrompt(context.Background(), "mcp__t__greet", "")
	assert.True(t, handled)
	assert.ErrorContains(t, err, "missing argument name: usage: /mcp__t__greet <name> [style]")
	_, handled, _ = m.RunPrompt(context.Background(), "mcp__t__nope", "")
	assert.False(t, handled)
}

// A call that is cancelled (Ctrl+C) returns at once, the server keeps
// serving.
func TestCallCancelled(t *testing.T) {
	m := newManager(t, &warnings{}, stdioServer("t", "serve"))
	tools := m.Tools()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := tool(t, tools, "mcp__t__slow").Execute(ctx, "c", json.RawMessage(`{"ms":60000}`), nil)
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled call did not return")
	}
	r, err := call(t, tool(t, tools, "mcp__t__echo"), `{"message":"still here"}`)
	require.NoError(t, err)
	assert.Equal(t, "echo: still here", r.Content[0].Text)
}

// A server that exits takes its tools away with one warning; a call to a
// tool fetched before is an error, never a panic.
func TestServerExits(t *testing.T) {
	w := &warnings{}
	m := newManager(t, w, stdioServer("t", "serve"), stdioServer("u", "serve"))
	tools := m.Tools()
	_, err := call(t, tool(t, tools, "mcp__t__crash"), `{}`)
	require.Error(t, err)
	require.Eventually(t, func() bool { return strings.Contains(w.all(), `mcp: server "t" stopped`) }, 10*time.Second, 10*time.Millisecond)
	for _, tl := range m.Tools() {
		assert.NotEqual(t, "mcp:t", tl.Source)
	}
	assert.NotEmpty(t, m.Tools(), "the other server's tools stay")
	_, err = call(t, tool(t, tools, "mcp__t__echo"), `{"message":"x"}`)
	assert.ErrorContains(t, err, `MCP server "t" is not available`)
	assert.Equal(t, 1, strings.Count(w.all(), "stopped"))
	st := m.Status()
	assert.Equal(t, mcp.StateFailed, st[0].State)
	assert.Equal(t, mcp.StateReady, st[1].State)
}

// A server that never answers initialize fails after the start-up
// timeout and is killed; the others start.
func TestServerNeverAnswers(t *testing.T) {
	w := &warnings{}
	pidFile := filepath.Join(t.TempDir(), "pid")
	m := mcp.New(mcp.Options{Servers: []mcp.Server{stdioServer("hang", "hang", mcptest.EnvPIDFile, pidFile), stdioServer("t", "serve")},
		Cwd: t.TempDir(), StartTimeout: 3 * time.Second, Warn: w.add})
	defer m.Close()
	start := time.Now()
	tools := m.Tools()
	assert.Less(t, time.Since(start), 15*time.Second)
	assert.NotEmpty(t, tools)
	assert.Contains(t, w.all(), `mcp: server "hang" did not start: no answer within 3s`)
	data, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(string(data))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return !alive(pid) }, 10*time.Second, 20*time.Millisecond, "the hung server is killed")
}

// Streamable HTTP with headers; a server that refuses them fails to start.
func TestHTTPServer(t *testing.T) {
	srv := httptest.NewServer(mcptest.Handler("s3cret"))
	defer srv.Close()
	w := &warnings{}
	good, err := mcp.Server{Name: "web", URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}}.ExpandAll(func(k string) (string, bool) {
		return map[string]string{"TOKEN": "s3cret"}[k], k == "TOKEN"
	})
	require.NoError(t, err)
	bad := mcp.Server{Name: "nokey", URL: srv.URL}
	m := newManager(t, w, good, bad)
	r, err := call(t, tool(t, m.Tools(), "mcp__web__echo"), `{"message":"over http"}`)
	require.NoError(t, err)
	assert.Equal(t, "echo: over http", r.Content[0].Text)
	assert.Contains(t, w.all(), `mcp: server "nokey" did not start`)
}

func TestExpand(t *testing.T) {
	env := map[string]string{"A": "1", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cases := []struct{ in, want, err string }{
		{"plain", "plain", ""},
		{"${A}/x", "1/x", ""},
		{"${B:-dflt}", "dflt", ""},
		{"${EMPTY:-dflt}", "dflt", ""},
		{"$A stays", "$A stays", ""},
		{"${B}", "", "environment variable B is not set"},
	}
	for _, c := range cases {
		got, err := mcp.Expand(c.in, lookup)
		if c.err != "" {
			assert.EqualError(t, err, c.err, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, got, c.in)
	}
	_, err := mcp.Server{Name: "x", Command: "srv", Env: map[string]string{"KEY": "${NOPE}"}}.ExpandAll(lookup)
	assert.EqualError(t, err, "env.KEY: environment variable NOPE is not set")
}

func TestToolName(t *testing.T) {
	assert.Equal(t, "mcp__github__get_issue", mcp.ToolName("github", "get_issue"))
	assert.Equal(t, "mcp__fs__read_file_v2", mcp.ToolName("fs", "read.file/v2"))
}

// BenchmarkCall is the cost of one tool call through the client to a
// stdio server (the per-call overhead of an MCP tool).
func BenchmarkCall(b *testing.B) {
	m := mcp.New(mcp.Options{Servers: []mcp.Server{stdioServer("t", "serve")}, Cwd: b.TempDir()})
	defer m.Close()
	var echo *agent.Tool
	for _, tl := range m.Tools() {
		if tl.Name == "mcp__t__echo" {
			echo = tl
		}
	}
	require.NotNil(b, echo)
	args := json.RawMessage(`{"message":"hi"}`)
	b.ResetTimer()
	for b.Loop() {
		if _, err := echo.Execute(context.Background(), "c", args, nil); err != nil {
			b.Fatal(err)
		}
	}
}
