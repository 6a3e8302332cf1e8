package agent

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/session"
)

// llmRegistry is a registry reading keys from env only.
func llmRegistry(custom []ProviderConfig, env map[string]string) *Registry {
	r := NewRegistry(custom)
	r.Getenv = func(k string) string { return env[k] }
	return r
}

func TestBuiltinProviders(t *testing.T) {
	r := llmRegistry(nil, nil)
	tests := []struct{ name, api, base, env string }{
		{"openai", APIOpenAICompletions, "https://api.openai.com/v1", "OPENAI_API_KEY"},
		{"anthropic", APIAnthropicMessages, "https://api.anthropic.com", "ANTHROPIC_API_KEY"},
		{"ollama", APIOpenAICompletions, "http://localhost:11434/v1", ""},
		{"openrouter", APIOpenAICompletions, "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"},
		{"groq", APIOpenAICompletions, "https://api.groq.com/openai/v1", "GROQ_API_KEY"},
		{"google", APIOpenAICompletions, "https://generativelanguage.googleapis.com/v1beta/openai", "GEMINI_API_KEY"},
		{"xai", APIOpenAICompletions, "https://api.x.ai/v1", "XAI_API_KEY"},
		{"deepseek", APIOpenAICompletions, "https://api.deepseek.com", "DEEPSEEK_API_KEY"},
		{"mistral", APIOpenAICompletions, "https://api.mistral.ai/v1", "MISTRAL_API_KEY"},
		{"cerebras", APIOpenAICompletions, "https://api.cerebras.ai/v1", "CEREBRAS_API_KEY"},
		{"huggingface", APIOpenAICompletions, "https://router.huggingface.co/v1", "HF_TOKEN"},
		{"moonshotai", APIOpenAICompletions, "https://api.moonshot.ai/v1", "MOONSHOT_API_KEY"},
		{"moonshotai-cn", APIOpenAICompletions, "https://api.moonshot.cn/v1", "MOONSHOT_API_KEY"},
		{"zai", APIOpenAICompletions, "https://api.z.ai/api/coding/paas/v4", "ZAI_API_KEY"},
		{"opencode-go", APIOpenAICompletions, "https://opencode.ai/zen/go/v1", "OPENCODE_API_KEY"},
		{"fireworks", APIAnthropicMessages, "https://api.fireworks.ai/inference", "FIREWORKS_API_KEY"},
		{"kimi-coding", APIAnthropicMessages, "https://api.kimi.com/coding", "KIMI_API_KEY"},
		{"minimax", APIAnthropicMessages, "https://api.minimax.io/anthropic", "MINIMAX_API_KEY"},
		{"minimax-cn", APIAnthropicMessages, "https://api.minimaxi.com/anthropic", "MINIMAX_CN_API_KEY"},
		{"vercel-ai-gateway", APIAnthropicMessages, "https://ai-gateway.vercel.sh", "AI_GATEWAY_API_KEY"},
		{"xiaomi", APIAnthropicMessages, "https://api.xiaomimimo.com/anthropic", "XIAOMI_API_KEY"},
		{"xiaomi-token-plan-cn", APIAnthropicMessages, "https://token-plan-cn.xiaomimimo.com/anthropic", "XIAOMI_TOKEN_PLAN_CN_API_KEY"},
		{"xiaomi-token-plan-ams", APIAnthropicMessages, "https://token-plan-ams.xiaomimimo.com/anthropic", "XIAOMI_TOKEN_PLAN_AMS_API_KEY"},
		{"xiaomi-token-plan-sgp", APIAnthropicMessages, "https://token-plan-sgp.xiaomimimo.com/anthropic", "XIAOMI_TOKEN_PLAN_SGP_API_KEY"},
	}
	require.Len(t, r.Providers(), len(tests))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := r.provider(tc.name)
			require.True(t, ok)
			assert.Equal(t, tc.api, p.API)
			assert.Equal(t, tc.base, p.BaseURL)
			assert.Equal(t, tc.env, p.APIKeyEnv)
			require.NotEmpty(t, p.Models, "every provider has models in the table")
			for _, m := range p.Models {
				assert.Equal(t, tc.name, m.Provider)
				assert.Equal(t, tc.api, m.API)
				assert.Equal(t, tc.base, m.BaseURL)
				assert.Positive(t, m.ContextWindow)
				assert.Positive(t, m.MaxTokens)
			}
		})
	}
	for _, id := range []string{"openai/gpt-4o", "openai/gpt-4.1", "openai/gpt-4.1-mini", "openai/o3", "openai/o4-mini", "openai/gpt-5",
		"openai/gpt-5-mini", "anthropic/claude-sonnet-4-5", "anthropic/claude-opus-4-1", "anthropic/claude-haiku-4-5",
		"ollama/llama3.1", "google/gemini-2.5-pro", "google/gemini-2.5-flash", "deepseek/deepseek-chat"} {
		prov, mid, _ := strings.Cut(id, "/")
		m, ok := r.Find(prov, mid)
		if assert.True(t, ok, id) && prov != "ollama" {
			assert.Positive(t, m.Cost.Input, id)
			assert.Positive(t, m.Cost.Output, id)
		}
	}
	m, _ := r.Find("anthropic", "claude-sonnet-4-5")
	assert.Equal(t, ModelCost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}, m.Cost)
	assert.True(t, m.Reasoning)
	assert.Equal(t, 200000, m.ContextWindow)
}

func TestResolve(t *testing.T) {
	r := llmRegistry(nil, map[string]string{"OPENAI_API_KEY": "sk"})
	tests := []struct {
		spec, provider, id, api string
		window                  int
		err                     string
	}{
		{spec: "openai/gpt-4o", provider: "openai", id: "gpt-4o", api: APIOpenAICompletions, window: 128000},
		{spec: " anthropic/claude-haiku-4-5 ", provider: "anthropic", id: "claude-haiku-4-5", api: APIAnthropicMessages, window: 200000},
		{spec: "openai/brand-new", provider: "openai", id: "brand-new", api: APIOpenAICompletions, window: DefaultContextWindow},
		{spec: "ollama/qwen3:8b", provider: "ollama", id: "qwen3:8b", api: APIOpenAICompletions, window: DefaultContextWindow},
		{spec: "openrouter/anthropic/claude-sonnet-4.5", provider: "openrouter", id: "anthropic/claude-sonnet-4.5", api: APIOpenAICompletions, window: 1000000},
		{spec: "openrouter/meta/llama", provider: "openrouter", id: "meta/llama", api: APIOpenAICompletions, window: DefaultContextWindow},
		{spec: "gpt-4.1", provider: "openai", id: "gpt-4.1", api: APIOpenAICompletions, window: 1047576},
		{spec: "claude-sonnet-4-5", provider: "anthropic", id: "claude-sonnet-4-5", api: APIAnthropicMessages, window: 200000},
		{spec: "qwen/qwen3-coder", provider: "openrouter", id: "qwen/qwen3-coder", api: APIOpenAICompletions, window: 262144},
		{spec: "", err: "empty model name"},
		{spec: "openai/", err: `missing model id after "openai/"`},
		{spec: "nope", err: `unknown model "nope": give it as provider/id (providers: anthropic, openai, google,`},
		{spec: "acme/x", err: `unknown provider "acme" in model "acme/x"`},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			m, err := r.Resolve(tc.spec)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.provider, m.Provider)
			assert.Equal(t, tc.id, m.ID)
			assert.Equal(t, tc.api, m.API)
			assert.Equal(t, tc.window, m.ContextWindow)
			assert.NotEmpty(t, m.BaseURL)
			assert.Positive(t, m.MaxTokens)
		})
	}
}

func TestResolveBareIDPrefersUsableProvider(t *testing.T) {
	proxy := ProviderConfig{Name: "proxy", BaseURL: "http://proxy/v1", APIKeyEnv: "PROXY_KEY", Models: []Model{{ID: "gpt-4o"}}}
	r := llmRegistry([]ProviderConfig{proxy}, map[string]string{"PROXY_KEY": "k"})
	m, err := r.Resolve("gpt-4o")
	require.NoError(t, err)
	assert.Equal(t, "proxy", m.Provider, "openai has no key here")

	r = llmRegistry([]ProviderConfig{proxy}, nil)
	m, err = r.Resolve("gpt-4o")
	require.NoError(t, err)
	assert.Equal(t, "openai", m.Provider, "no provider usable: the first one")
}

func TestAPIKey(t *testing.T) {
	custom := []ProviderConfig{{Name: "corp", BaseURL: "http://corp/v1", APIKey: "literal-key"}, {Name: "local", BaseURL: "http://localhost:1234/v1"}}
	r := llmRegistry(custom, map[string]string{"ANTHROPIC_API_KEY": " sk-ant \n"})
	tests := []struct {
		provider, key, env, err string
	}{
		{"anthropic", "sk-ant", "ANTHROPIC_API_KEY", ""},
		{"openai", "", "OPENAI_API_KEY", `no API key for provider "openai": set OPENAI_API_KEY`},
		{"google", "", "GEMINI_API_KEY", "set GEMINI_API_KEY"},
		{"ollama", "", "", ""},
		{"corp", "literal-key", "", ""},
		{"local", "", "", ""},
		{"nope", "", "", `unknown provider "nope"`},
	}
	for _, tc := range tests {
		t.Run(tc.provider, func(t *testing.T) {
			key, env, err := r.APIKey(tc.provider)
			assert.Equal(t, tc.key, key)
			assert.Equal(t, tc.env, env)
			if tc.err == "" {
				assert.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
			}
		})
	}
}

func TestAvailable(t *testing.T) {
	r := llmRegistry(nil, map[string]string{"ANTHROPIC_API_KEY": "k"})
	providers := map[string]bool{}
	for _, m := range r.Available() {
		providers[m.Provider] = true
	}
	assert.Equal(t, map[string]bool{"anthropic": true, "ollama": true}, providers)
	assert.Greater(t, len(r.All()), len(r.Available()))
}

func TestDefaultModel(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"}, "anthropic/claude-sonnet-4-5"},
		{map[string]string{"OPENAI_API_KEY": "o"}, "openai/gpt-4.1"},
		{map[string]string{"GROQ_API_KEY": "g"}, "ollama/llama3.1"},
		{nil, "ollama/llama3.1"},
	}
	for _, tc := range tests {
		m := llmRegistry(nil, tc.env).DefaultModel()
		assert.Equal(t, tc.want, m.Provider+"/"+m.ID)
	}
}

func TestCustomProviders(t *testing.T) {
	custom := []ProviderConfig{
		{Name: "lmstudio", BaseURL: "http://localhost:1234/v1", Headers: map[string]string{"X-P": "p", "X-Both": "provider"},
			Models: []Model{{ID: "qwen-local", ContextWindow: 32768, Headers: map[string]string{"X-Both": "model"}}, {ID: "tiny"}}},
		{Name: "ollama", BaseURL: "http://gpu-box:11434/v1", Models: []Model{{ID: "llama3.1", ContextWindow: 8192}, {ID: "phi4"}}},
		{Name: "openai", API: APIAnthropicMessages, BaseURL: "http://gateway"},
		{Name: "groq", APIKey: "gsk-literal"},
	}
	r := llmRegistry(custom, nil)

	m, ok := r.Find("lmstudio", "qwen-local")
	require.True(t, ok)
	assert.Equal(t, Model{Provider: "lmstudio", ID: "qwen-local", API: APIOpenAICompletions, BaseURL: "http://localhost:1234/v1",
		ContextWindow: 32768, MaxTokens: DefaultMaxTokens, Headers: map[string]string{"X-P": "p", "X-Both": "model"}, Input: []string{"text"}}, m)
	assert.False(t, m.TakesImages(), "a custom model takes text only unless it says otherwise, as in pi")

	// An id the table does not know takes what the provider's first model
	// takes, as pi's fallback model is a copy of one of the provider's.
	m, err := r.Resolve("anthropic/claude-next")
	require.NoError(t, err)
	assert.True(t, m.TakesImages())
	m, err = r.Resolve("deepseek/deepseek-next")
	require.NoError(t, err)
	assert.False(t, m.TakesImages())
	m, err = r.Resolve("lmstudio/unlisted")
	require.NoError(t, err)
	assert.Equal(t, []string{"text"}, m.Input)
	m, _ = r.Find("lmstudio", "tiny")
	assert.Equal(t, DefaultContextWindow, m.ContextWindow)

	m, ok = r.Find("ollama", "llama3.1")
	require.True(t, ok)
	assert.Equal(t, 8192, m.ContextWindow, "a config model replaces the built-in one")
	assert.Equal(t, "http://gpu-box:11434/v1", m.BaseURL)
	m, ok = r.Find("ollama", "qwen3")
	require.True(t, ok, "other built-in models stay")
	assert.Equal(t, "http://gpu-box:11434/v1", m.BaseURL, "and follow the new base URL")
	_, ok = r.Find("ollama", "phi4")
	assert.True(t, ok)

	_, ok = r.Find("openai", "gpt-4o")
	assert.False(t, ok, "a provider switched to another API drops the built-in models")
	m, err = r.Resolve("openai/whatever")
	require.NoError(t, err)
	assert.Equal(t, APIAnthropicMessages, m.API)
	assert.Equal(t, "http://gateway", m.BaseURL)

	key, _, err := r.APIKey("groq")
	require.NoError(t, err)
	assert.Equal(t, "gsk-literal", key)
	assert.Equal(t, "lmstudio", r.Providers()[len(r.Providers())-1].Name)
}

func TestProviderConfigValidate(t *testing.T) {
	tests := []struct {
		pc  ProviderConfig
		err string
	}{
		{ProviderConfig{Name: "ok", BaseURL: "http://x", Models: []Model{{ID: "m"}}}, ""},
		{ProviderConfig{Name: "ok", API: APIAnthropicMessages}, ""},
		{ProviderConfig{}, "provider: name is empty"},
		{ProviderConfig{Name: "a/b"}, `provider "a/b": name may not contain '/'`},
		{ProviderConfig{Name: "x", API: "grpc"}, `provider "x": api: unknown api "grpc"`},
		{ProviderConfig{Name: "x", Models: []Model{{ID: "a"}, {}}}, `provider "x": models[1]: id is empty`},
	}
	for _, tc := range tests {
		err := tc.pc.Validate()
		if tc.err == "" {
			assert.NoError(t, err)
		} else {
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		}
	}
}

func TestNewProvider(t *testing.T) {
	r := NewRegistry(nil)
	r.MaxRetries = 5
	p := r.NewProvider(Model{API: APIOpenAICompletions})
	require.IsType(t, &OpenAIProvider{}, p)
	assert.Equal(t, 5, p.(*OpenAIProvider).MaxRetries)
	p = r.NewProvider(Model{API: APIAnthropicMessages})
	require.IsType(t, &AnthropicProvider{}, p)
	assert.Equal(t, 5, p.(*AnthropicProvider).MaxRetries)
	assert.Equal(t, DefaultMaxRetries, NewRegistry(nil).MaxRetries)
}

func TestCostOf(t *testing.T) {
	m := Model{Cost: ModelCost{Input: 2, Output: 8, CacheRead: 0.5, CacheWrite: 2.5}}
	c := CostOf(m, session.Usage{Input: 1_000_000, Output: 500_000, CacheRead: 2_000_000, CacheWrite: 100_000})
	assert.Equal(t, session.Cost{Input: 2, Output: 4, CacheRead: 1, CacheWrite: 0.25, Total: 7.25}, c)
	assert.Equal(t, session.Cost{}, CostOf(Model{}, session.Usage{Input: 5}))
}
