package agent

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// closedLocalURL returns a base URL on this machine where nothing listens.
func closedLocalURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return "http://" + addr + "/v1"
}

// A server on this machine that refuses the connection is not running:
// the call fails at once, without the SDK's backoff (0.5 s, 1 s, 2 s).
func TestLocalRefusalIsNotRetried(t *testing.T) {
	for _, api := range []string{APIOpenAICompletions, APIAnthropicMessages} {
		t.Run(api, func(t *testing.T) {
			r := NewRegistry(nil)
			r.MaxRetries = 3
			m := Model{Provider: "ollama", ID: "llama3.1", API: api, BaseURL: closedLocalURL(t), ContextWindow: 1000, MaxTokens: 100}
			start := time.Now()
			msg, err := r.NewProvider(m).Stream(context.Background(), &Request{Model: m, Messages: []session.Message{{Role: session.RoleUser, Content: []session.ContentBlock{{Type: session.BlockText, Text: "hi"}}}}}, func(StreamEvent) {})
			elapsed := time.Since(start)
			require.Error(t, err)
			assert.True(t, IsConnectionRefused(err), "%v", err)
			assert.True(t, IsDialError(err), "%v", err)
			assert.Less(t, elapsed, 400*time.Millisecond, "no retry: the first backoff alone is 500 ms")
			assert.Equal(t, session.StopError, msg.StopReason, "a refusal is an error, not an abort")
			assert.Contains(t, msg.ErrorMessage(), "connection refused")
			assert.NotContains(t, msg.ErrorMessage(), "attempts")
		})
	}
}

// A session whose only reply would be "could not connect" writes no file;
// once the provider answers, the file holds both prompts.
func TestDialErrorWritesNoSessionFile(t *testing.T) {
	dir := t.TempDir()
	s, err := session.Create(dir, dir)
	require.NoError(t, err)
	defer s.Close()
	r := NewRegistry(nil)
	m := Model{Provider: "ollama", ID: "llama3.1", API: APIOpenAICompletions, BaseURL: closedLocalURL(t), ContextWindow: 1000, MaxTokens: 100}
	a := &agent{Session: s, Model: m, NewProvider: func(m Model) (Provider, error) { return r.NewProvider(m), nil }}
	var ends []string
	a.subscribe(func(ev Event) {
		if ev.Type == EventMessageEnd && ev.Message.Role == session.RoleAssistant {
			ends = append(ends, ev.Message.StopReason)
		}
	})
	err = a.prompt(context.Background(), "first", nil)
	require.Error(t, err)
	assert.True(t, IsConnectionRefused(err))
	assert.Equal(t, []string{session.StopError}, ends, "the error reply is still shown")
	require.NoError(t, s.Sync())
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	assert.Empty(t, files, "no file for a run that never reached the provider")

	srv := llmtest.New(t)
	srv.Reply(llmtest.Text("hello"))
	a.Model.BaseURL = srv.URL()
	require.NoError(t, a.prompt(context.Background(), "second", nil))
	require.NoError(t, s.Sync())
	files, _ = filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.Len(t, files, 1)
	loaded, err := session.Load(files[0])
	require.NoError(t, err)
	assert.Equal(t, []string{"user", "user", "assistant"}, roles(plain(loaded.BuildContext().Messages)))
	_, err = os.Stat(files[0])
	require.NoError(t, err)
}
