package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func TestConfigOverlay(t *testing.T) {
	global, project := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(global, "config.json"), `{"model":"openai/gpt-4.1","thinking":"low","hook_timeout_ms":5000,
 "disabled_hooks":["a.lua"],"compaction":{"enabled":true,"reserve_tokens":100}}`)
	writeFile(t, filepath.Join(project, ".lunar", "config.json"), `{"model":"ollama/llama3.1","compaction":{"reserve_tokens":7},
 "providers":{"local":{"base_url":"http://x/v1","models":[{"id":"m1","context_window":4096}]}}}`)
	c, err := loadConfig(global, project)
	require.NoError(t, err)
	assert.Equal(t, "ollama/llama3.1", c.Model, "project overrides global")
	assert.Equal(t, "low", c.Thinking, "global kept where project is silent")
	assert.Equal(t, 5000, c.hookTimeoutMs())
	assert.Equal(t, 7, *c.Compaction.ReserveTokens)
	assert.True(t, *c.Compaction.Enabled)
	assert.Equal(t, "m1", c.Providers["local"].Models[0].ID)
	assert.Equal(t, []string{"a.lua"}, c.DisabledHooks)
	assert.Len(t, c.files, 2)
}

func TestConfigDefaults(t *testing.T) {
	c, err := loadConfig(t.TempDir(), t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, 30000, c.hookTimeoutMs())
	assert.Empty(t, c.files)
}

func TestConfigErrorsNameFileLineAndKey(t *testing.T) {
	tests := []struct {
		name, content string
		want          []string
	}{
		{"syntax", "{\n  \"model\": \"x\",\n  \"thinking\": \n}", []string{"config.json:4", "invalid character"}},
		{"type", "{\n\"model\": \"x\",\n\"hook_timeout_ms\": \"fast\"\n}", []string{"config.json:3", `"hook_timeout_ms"`}},
		{"unknown key", "{\n\"model\": \"x\",\n\n\"modle\": 1\n}", []string{"config.json:4", `unknown key "modle"`}},
		{"bad thinking", "{\"thinking\": \"max\"}", []string{"config.json:1", `"thinking"`, "off|minimal"}},
		{"bad api", "{\"providers\": {\"p\": {\n\"api\": \"grpc\"}}}", []string{"config.json:2", "providers.p.api"}},
		{"negative timeout", "{\"hook_timeout_ms\": -1}", []string{"hook_timeout_ms", "negative"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "config.json"), tt.content)
			_, err := loadConfig(dir, t.TempDir())
			require.Error(t, err)
			assert.Contains(t, err.Error(), filepath.Join(dir, "config.json"))
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}
