package agent

import (
	"encoding/json"
	"os/exec"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRegistryMatch(t *testing.T) {
	env := map[string]string{}
	r := NewRegistry(nil)
	r.Getenv = func(k string) string { return env[k] }
	tests := []struct {
		name, provider, pattern string
		keys                    []string
		want, level             string
		err                     string
	}{
		{name: "provider/id", pattern: "anthropic/claude-sonnet-4-5", want: "anthropic/claude-sonnet-4-5"},
		{name: "case", pattern: "OpenAI/GPT-4.1", want: "openai/gpt-4.1"},
		{name: "bare id", pattern: "gpt-4.1", want: "openai/gpt-4.1"},
		{name: "fuzzy picks the newest alias", pattern: "sonnet", want: "anthropic/claude-sonnet-4-6"},
		{name: "fuzzy prefers a provider with a key", pattern: "sonnet", keys: []string{"OPENROUTER_API_KEY"}, want: "openrouter/anthropic/claude-sonnet-4.6"},
		{name: "thinking suffix", pattern: "anthropic/claude-sonnet-4-5:high", want: "anthropic/claude-sonnet-4-5", level: "high"},
		{name: "fuzzy with thinking", pattern: "opus:low", want: "anthropic/claude-opus-4-7", level: "low"},
		{name: "colon in the id", pattern: "ollama/gpt-oss:20b", want: "ollama/gpt-oss:20b"},
		{name: "colon id with thinking", pattern: "ollama/gpt-oss:20b:medium", want: "ollama/gpt-oss:20b", level: "medium"},
		{name: "slash id of openrouter", pattern: "qwen/qwen3-coder", want: "openrouter/qwen/qwen3-coder"},
		{name: "unknown id of a known provider", pattern: "ollama/mistral-nemo:high", want: "ollama/mistral-nemo", level: "high"},
		{name: "--provider limits", provider: "groq", pattern: "gpt-oss-1", want: "groq/openai/gpt-oss-120b"},
		{name: "--provider with prefix", provider: "openai", pattern: "openai/gpt-5", want: "openai/gpt-5"},
		{name: "invalid level is part of the id", pattern: "sonnet:max", err: "no model matches"},
		{name: "nothing", pattern: "zzzz", err: "no model matches"},
		{name: "unknown provider", provider: "nope", pattern: "x", err: "unknown provider"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clear(env)
			for _, k := range tt.keys {
				env[k] = "k"
			}
			m, level, err := r.Match(tt.provider, tt.pattern)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, m.Provider+"/"+m.ID)
			assert.Equal(t, tt.level, level)
		})
	}
}

// TestRegistryMatchSecondaryLast: a secondary provider (one only a
// project defines) never wins a bare id, a part of one or a name by case
// over the primary ones; named exactly, it is found.
func TestRegistryMatchSecondaryLast(t *testing.T) {
	r := NewRegistry([]ProviderConfig{
		{Name: "aaa", APIKey: "project", Models: []Model{{ID: "m1"}, {ID: "only-project"}}, Secondary: true},
		{Name: "Local", Models: []Model{{ID: "m1"}}, Secondary: true},
		{Name: "local", Models: []Model{{ID: "m1"}}},
	})
	r.Getenv = func(string) string { return "" }
	for pattern, want := range map[string]string{
		"m1":           "local/m1",
		"M1":           "local/m1",
		"local/m1":     "local/m1",
		"LOCAL/m1":     "local/m1",
		"Local/m1":     "Local/m1",
		"only-project": "aaa/only-project",
		"only":         "aaa/only-project",
	} {
		m, _, err := r.Match("", pattern)
		require.NoError(t, err, pattern)
		assert.Equal(t, want, ModelSpec(m), pattern)
	}
	m, err := r.Resolve("m1")
	require.NoError(t, err)
	assert.Equal(t, "local/m1", ModelSpec(m))
}

// localeCompare sorts as JavaScript's localeCompare (pi sorts model ids
// with it): checked against node when it is installed.
func TestLocaleCompareMatchesJavaScript(t *testing.T) {
	ids := []string{"~anthropic/claude-sonnet-latest", "claude-sonnet-4-6", "anthropic/claude-sonnet-4.6", "claude-sonnet-4-5",
		"a_b", "a-b", "a.b", "a:b", "a/b", "a1", "aB", "ab", "openai/gpt-oss-120b", "openai/gpt-oss-safeguard-20b", "gpt-4o", "gpt-4.1", "o3"}
	got := slices.Clone(ids)
	slices.SortStableFunc(got, func(a, b string) int { return localeCompare(b, a) })
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	list, _ := json.Marshal(ids)
	out, err := exec.Command("node", "-e", `console.log(JSON.stringify(JSON.parse(process.argv[1]).sort((x, y) => y.localeCompare(x))))`, string(list)).Output()
	require.NoError(t, err)
	var want []string
	require.NoError(t, json.Unmarshal(out, &want))
	assert.Equal(t, want, got)
}
