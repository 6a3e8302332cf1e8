package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// stream_idle_timeout in config gives up on a provider that went silent.
func TestConfigStreamIdleTimeout(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.hkConfig(`{"stream_idle_timeout": "0.3"}`)
	e.srv.Reply(llmtest.Text("so far"), llmtest.Hang())
	start := time.Now()
	r := e.run("", "-p", "hi")
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "sent nothing for")
	assert.Equal(t, "so far\n", r.stdout)

	e.hkConfig(`{"stream_idle_timeout": "soon"}`)
	r = e.run("", "-p", "hi")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `"stream_idle_timeout"`)
}

// bash_keep_api_keys in the user's config hands the key variables to
// commands; a project config cannot.
func TestConfigBashKeepAPIKeys(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.env = []string{"OPENAI_API_KEY=sk-visible-or-not"}
	call := func() string {
		e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo key=${OPENAI_API_KEY:-none}"}`))
		e.srv.Reply(llmtest.Text("ok"))
		r := e.run("", "--no-session", "--trust", "-p", "show")
		require.Equal(t, 0, r.code, r.stderr)
		reqs := e.srv.Requests()
		return string(reqs[len(reqs)-1].Body)
	}
	assert.Contains(t, call(), "key=none")

	writeFile(t, e.cwd+"/.lunar/config.json", `{"bash_keep_api_keys": true}`)
	assert.Contains(t, call(), "key=none", "a project config cannot hand out keys")

	e.hkConfig(`{"bash_keep_api_keys": true}`)
	body := call()
	assert.True(t, strings.Contains(body, "key=sk-visible-or-not"), body)
}

// hook_max_timeouts and hook_memory_limit_mb reach the hook runtime.
func TestConfigHookLimits(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	hook := t.TempDir() + "/loop.lua"
	writeFile(t, hook, `lunar.on("chat.system.transform", function() while true do end end)
lunar.on("chat.params", function() local t = {} for i = 1, 1e8 do t[i] = ("x"):rep(64) .. i end end)`)
	e.hkConfig(`{"hook_timeout_ms": 200, "hook_max_timeouts": 1, "hook_memory_limit_mb": 32}`)
	e.srv.Reply(llmtest.Text("ok"))
	r := e.run("", "--no-session", "--hook", hook, "-p", "hi")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "hook disabled for this session")
	assert.Equal(t, 1, strings.Count(r.stderr, "timed out after"), r.stderr)

	e.hkConfig(`{"hook_timeout_ms": 20000, "hook_memory_limit_mb": 32}`)
	writeFile(t, hook, `lunar.on("chat.params", function() local t = {} for i = 1, 1e8 do t[i] = ("x"):rep(64) .. i end end)`)
	e.srv.Reply(llmtest.Text("ok"))
	start := time.Now()
	r = e.run("", "--no-session", "--hook", hook, "-p", "hi")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "memory limit exceeded")
	assert.Contains(t, r.stderr, "the cap is 32 MiB")
	assert.Less(t, time.Since(start), 15*time.Second)

	e.hkConfig(`{"hook_max_timeouts": -2}`)
	r = e.run("", "--no-session", "-p", "hi")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `"hook_max_timeouts": must not be negative`)
}

// TestSecretHeadersNeverShown: the values of secret custom headers from
// the user's config (any name like *key*, *token*, *secret*, Cookie, not
// only Authorization) are masked in errors and never reach the session
// file, even when the service echoes them (issue 20, item 11).
func TestSecretHeadersNeverShown(t *testing.T) {
	t.Parallel()
	const apiKey, cookie = "hdr-secret-key-123", "hdr-secret-cookie-456"
	for _, tc := range []struct {
		name  string
		reply llmtest.Part
	}{
		{"http error", llmtest.Status(400).Message("bad X-Api-Key " + apiKey + " with cookie " + cookie)},
		{"stream error", llmtest.StreamError("invalid_request_error", "bad X-Api-Key "+apiKey+" with cookie "+cookie)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newE2E(t)
			e.hkConfig(`{"providers": {"work": {"base_url": "` + e.srv.URL() + `",
  "headers": {"X-Api-Key": "` + apiKey + `", "Cookie": "` + cookie + `", "X-Title": "lunar"},
  "models": [{"id": "w1"}]}}}`)
			e.srv.Reply(tc.reply)
			r := e.runBare(nil, "--model", "work/w1", "-p", "hi")
			assert.Equal(t, 1, r.code, r.stderr)
			require.Len(t, e.srv.Requests(), 1)
			assert.Equal(t, apiKey, e.srv.Requests()[0].Header.Get("X-Api-Key"), "the header was sent")
			assert.Contains(t, r.stderr, "bad X-Api-Key *** with cookie ***")
			files := e.sessionFiles()
			require.Len(t, files, 1)
			raw, err := os.ReadFile(files[0])
			require.NoError(t, err)
			assert.Contains(t, string(raw), "bad X-Api-Key ***", "the error is in the session, masked")
			for _, secret := range []string{apiKey, cookie} {
				assert.NotContains(t, r.stderr, secret)
				assert.NotContains(t, string(raw), secret)
			}
		})
	}
}
