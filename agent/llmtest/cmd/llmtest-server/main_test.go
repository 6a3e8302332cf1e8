package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunServesScriptAndRecords(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "script.json")
	record := filepath.Join(dir, "requests.jsonl")
	require.NoError(t, os.WriteFile(script, []byte(`[{"parts":[{"type":"text","text":"hello"}]}]`), 0o644))

	pr, pw := io.Pipe()
	done := make(chan struct{})
	errc := make(chan error, 1)
	go func() { errc <- run([]string{"--script", script, "--record", record, "--models", "x,y"}, pw, done) }()

	url, err := bufio.NewReader(pr).ReadString('\n')
	require.NoError(t, err)
	url = strings.TrimSpace(url)
	assert.True(t, strings.HasPrefix(url, "http://127.0.0.1:"), url)
	assert.True(t, strings.HasSuffix(url, "/v1"), url)

	res, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true}`))
	require.NoError(t, err)
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	require.NoError(t, err)
	assert.Contains(t, string(body), `"content":"hello"`)
	assert.Contains(t, string(body), "data: [DONE]")

	res, err = http.Get(url + "/models")
	require.NoError(t, err)
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	assert.Contains(t, string(body), `"id":"y"`)

	close(done)
	require.NoError(t, <-errc)

	data, err := os.ReadFile(record)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	require.Len(t, lines, 2)
	var first llmtest.Request
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	assert.Equal(t, "/v1/chat/completions", first.Path)
	assert.Equal(t, "m", first.Field("model"))
}

func TestRunRejectsBadArguments(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`[{"parts":[{"type":"nope"}]}]`), 0o644))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no script", nil, "--script is required"},
		{"unknown flag", []string{"--nope"}, "unknown flag"},
		{"missing file", []string{"--script", filepath.Join(dir, "missing.json")}, "no such file"},
		{"bad script", []string{"--script", bad}, `unknown part type "nope"`},
		{"bad record path", []string{"--script", filepath.Join("..", "..", "testdata", "llm_script.json"), "--record", filepath.Join(dir, "no", "such", "dir")}, "--record"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := run(tc.args, io.Discard, nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
