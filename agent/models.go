package agent

// This file holds the model registry: built-in providers and their API-key
// variables, a table of common models with context windows and prices,
// custom providers from config, lookups, and the choice of provider client.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lunar-cli/lunar/session"
)

// Defaults of models the table does not know.
const (
	DefaultContextWindow = 128000
	DefaultMaxTokens     = 16384
)

// ProviderConfig describes a provider: a built-in one, or a custom one from
// the config's "providers" (usually an OpenAI-compatible endpoint). A
// custom provider named like a built-in one overrides the fields it sets
// and adds or replaces models.
type ProviderConfig struct {
	Name    string            `json:"name"`
	API     string            `json:"api"` // APIOpenAICompletions (default) or APIAnthropicMessages
	BaseURL string            `json:"base_url"`
	Headers map[string]string `json:"headers,omitempty"`
	// APIKeyEnv names the environment variable holding the key; APIKey is a
	// literal key and wins. With neither the provider needs no key (a local
	// server such as Ollama).
	APIKeyEnv string `json:"api_key_env,omitempty"`
	APIKey    string `json:"api_key,omitempty"`
	// Models are the provider's known models; Provider, API, BaseURL and
	// Headers are filled in from the provider when empty.
	Models []Model `json:"models,omitempty"`
	// Secondary providers (those only a project's config defines) come
	// after all the others when a bare model id or a part of one is
	// resolved: a name the user types means the user's or lunar's model
	// first.
	Secondary bool `json:"-"`
}

// Validate reports a config mistake, naming the provider.
func (pc ProviderConfig) Validate() error {
	if pc.Name == "" {
		return errors.New("provider: name is empty")
	}
	if strings.ContainsAny(pc.Name, "/ ") {
		return fmt.Errorf("provider %q: name may not contain '/' or spaces", pc.Name)
	}
	switch pc.API {
	case "", APIOpenAICompletions, APIAnthropicMessages:
	default:
		return fmt.Errorf("provider %q: api: unknown api %q (want %q or %q)", pc.Name, pc.API, APIOpenAICompletions, APIAnthropicMessages)
	}
	for i, m := range pc.Models {
		if m.ID == "" {
			return fmt.Errorf("provider %q: models[%d]: id is empty", pc.Name, i)
		}
	}
	return nil
}

// builtinProviders are the providers lunar knows, in listing order.
var builtinProviders = []ProviderConfig{
	{Name: "anthropic", API: APIAnthropicMessages, BaseURL: "https://api.anthropic.com", APIKeyEnv: "ANTHROPIC_API_KEY"},
	{Name: "openai", API: APIOpenAICompletions, BaseURL: "https://api.openai.com/v1", APIKeyEnv: "OPENAI_API_KEY"},
	{Name: "google", API: APIOpenAICompletions, BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", APIKeyEnv: "GEMINI_API_KEY"},
	{Name: "openrouter", API: APIOpenAICompletions, BaseURL: "https://openrouter.ai/api/v1", APIKeyEnv: "OPENROUTER_API_KEY"},
	{Name: "groq", API: APIOpenAICompletions, BaseURL: "https://api.groq.com/openai/v1", APIKeyEnv: "GROQ_API_KEY"},
	{Name: "xai", API: APIOpenAICompletions, BaseURL: "https://api.x.ai/v1", APIKeyEnv: "XAI_API_KEY"},
	{Name: "deepseek", API: APIOpenAICompletions, BaseURL: "https://api.deepseek.com", APIKeyEnv: "DEEPSEEK_API_KEY"},
	{Name: "mistral", API: APIOpenAICompletions, BaseURL: "https://api.mistral.ai/v1", APIKeyEnv: "MISTRAL_API_KEY"},
	// pi's other providers that speak one of lunar's two APIs (the same
	// base URLs and key variables as pi 0.73.1).
	{Name: "cerebras", API: APIOpenAICompletions, BaseURL: "https://api.cerebras.ai/v1", APIKeyEnv: "CEREBRAS_API_KEY"},
	{Name: "huggingface", API: APIOpenAICompletions, BaseURL: "https://router.huggingface.co/v1", APIKeyEnv: "HF_TOKEN"},
	{Name: "moonshotai", API: APIOpenAICompletions, BaseURL: "https://api.moonshot.ai/v1", APIKeyEnv: "MOONSHOT_API_KEY"},
	{Name: "moonshotai-cn", API: APIOpenAICompletions, BaseURL: "https://api.moonshot.cn/v1", APIKeyEnv: "MOONSHOT_API_KEY"},
	{Name: "zai", API: APIOpenAICompletions, BaseURL: "https://api.z.ai/api/coding/paas/v4", APIKeyEnv: "ZAI_API_KEY"},
	{Name: "opencode-go", API: APIOpenAICompletions, BaseURL: "https://opencode.ai/zen/go/v1", APIKeyEnv: "OPENCODE_API_KEY"},
	{Name: "fireworks", API: APIAnthropicMessages, BaseURL: "https://api.fireworks.ai/inference", APIKeyEnv: "FIREWORKS_API_KEY"},
	{Name: "kimi-coding", API: APIAnthropicMessages, BaseURL: "https://api.kimi.com/coding", APIKeyEnv: "KIMI_API_KEY"},
	{Name: "minimax", API: APIAnthropicMessages, BaseURL: "https://api.minimax.io/anthropic", APIKeyEnv: "MINIMAX_API_KEY"},
	{Name: "minimax-cn", API: APIAnthropicMessages, BaseURL: "https://api.minimaxi.com/anthropic", APIKeyEnv: "MINIMAX_CN_API_KEY"},
	{Name: "vercel-ai-gateway", API: APIAnthropicMessages, BaseURL: "https://ai-gateway.vercel.sh", APIKeyEnv: "AI_GATEWAY_API_KEY"},
	{Name: "xiaomi", API: APIAnthropicMessages, BaseURL: "https://api.xiaomimimo.com/anthropic", APIKeyEnv: "XIAOMI_API_KEY"},
	{Name: "xiaomi-token-plan-cn", API: APIAnthropicMessages, BaseURL: "https://token-plan-cn.xiaomimimo.com/anthropic", APIKeyEnv: "XIAOMI_TOKEN_PLAN_CN_API_KEY"},
	{Name: "xiaomi-token-plan-ams", API: APIAnthropicMessages, BaseURL: "https://token-plan-ams.xiaomimimo.com/anthropic", APIKeyEnv: "XIAOMI_TOKEN_PLAN_AMS_API_KEY"},
	{Name: "xiaomi-token-plan-sgp", API: APIAnthropicMessages, BaseURL: "https://token-plan-sgp.xiaomimimo.com/anthropic", APIKeyEnv: "XIAOMI_TOKEN_PLAN_SGP_API_KEY"},
	{Name: "ollama", API: APIOpenAICompletions, BaseURL: "http://localhost:11434/v1"},
}

// tableModel is shorthand for a table entry: the inputs it takes (textOnly
// or textImage), window, max output, reasoning, and dollars per million
// tokens in / out / cache read / cache write.
func tableModel(provider, id string, input []string, window, maxOut int, reasoning bool, in, out, cacheRead, cacheWrite float64) Model {
	return Model{Provider: provider, ID: id, Input: input, ContextWindow: window, MaxTokens: maxOut, Reasoning: reasoning,
		Cost: ModelCost{Input: in, Output: out, CacheRead: cacheRead, CacheWrite: cacheWrite}}
}

// The inputs of table models (shared: never modified).
var (
	textOnly  = []string{InputText}
	textImage = []string{InputText, InputImage}
)

// builtinModels are the models lunar knows: pi's (models_pi.go, generated
// from pi's registry), then those pi lacks.
var builtinModels = append(slices.Clip(piModels), extraModels...)

// extraModels are models of lunar's providers that pi's registry does not
// list (list prices). Their inputs are their vendors': Claude 3.7 Sonnet
// takes images (Anthropic's vision docs); DeepSeek's API takes text only;
// Ollama's llama3.1, qwen3, qwen2.5-coder and gpt-oss are text models (the
// library's vision models are others: llama3.2-vision, qwen2.5vl, ...).
//
//go:generate go test -run TestModelsMatchPi . -args -update
var extraModels = []Model{
	tableModel("anthropic", "claude-3-7-sonnet-latest", textImage, 200000, 64000, true, 3, 15, 0.30, 3.75),
	tableModel("deepseek", "deepseek-chat", textOnly, 128000, 8192, false, 0.56, 1.68, 0.07, 0),
	tableModel("deepseek", "deepseek-reasoner", textOnly, 128000, 65536, true, 0.56, 1.68, 0.07, 0),
	tableModel("ollama", "llama3.1", textOnly, 128000, 16384, false, 0, 0, 0, 0),
	tableModel("ollama", "qwen3", textOnly, 40960, 16384, true, 0, 0, 0, 0),
	tableModel("ollama", "qwen2.5-coder", textOnly, 32768, 8192, false, 0, 0, 0, 0),
	tableModel("ollama", "gpt-oss:20b", textOnly, 131072, 32768, true, 0, 0, 0, 0),
}

// Registry knows providers and models, the API keys to use, and which
// client speaks to a model. Build it with NewRegistry.
type Registry struct {
	// MaxRetries is given to the providers NewProvider returns.
	MaxRetries int
	// HTTPClient, when set, is used by the providers NewProvider returns.
	HTTPClient *http.Client
	// IdleTimeout is how long a provider may send nothing before a request
	// is given up on (see OpenAIProvider.IdleTimeout): 0 means
	// IdleTimeoutEnv or DefaultIdleTimeout, negative no limit.
	IdleTimeout time.Duration
	// ConnectTimeout bounds making a connection to a provider: 0 means
	// DefaultConnectTimeout, negative no limit.
	ConnectTimeout time.Duration
	// Getenv reads API-key variables; nil means os.Getenv.
	Getenv func(string) string

	providers []ProviderConfig // built-in then custom, each with its models filled in
}

// NewRegistry returns the built-in providers and models plus custom ones
// (from config), which override built-in providers of the same name.
// Invalid custom entries are kept as given; check them first with
// ProviderConfig.Validate to report config mistakes.
func NewRegistry(custom []ProviderConfig) *Registry {
	r := &Registry{MaxRetries: DefaultMaxRetries}
	builtin := builtinFilled()
	r.providers = make([]ProviderConfig, 0, len(builtin)+len(custom))
	for _, pc := range builtin {
		pc.Models = slices.Clone(pc.Models)
		r.providers = append(r.providers, pc)
	}
	for _, pc := range custom {
		r.Add(pc)
	}
	return r
}

// builtinFilled are the built-in providers with their models filled in,
// grouped once per process: the table has hundreds of models.
var builtinFilled = sync.OnceValue(func() []ProviderConfig {
	out := slices.Clone(builtinProviders)
	at := make(map[string]int, len(out))
	for i := range out {
		at[out[i].Name] = i
		out[i].Models = nil
	}
	for _, bm := range builtinModels {
		if i, ok := at[bm.Provider]; ok {
			out[i].Models = append(out[i].Models, bm)
		}
	}
	for i := range out {
		out[i] = fillProvider(out[i])
	}
	return out
})

// Add registers a provider, or overrides the fields an existing provider
// of the same name sets and adds or replaces its models.
func (r *Registry) Add(pc ProviderConfig) {
	i := slices.IndexFunc(r.providers, func(p ProviderConfig) bool { return p.Name == pc.Name })
	if i < 0 {
		if pc.API == "" {
			pc.API = APIOpenAICompletions
		}
		r.providers = append(r.providers, fillProvider(pc))
		return
	}
	old := r.providers[i]
	if pc.API != "" && pc.API != old.API {
		old.Models = nil // the built-in models are for the other API
		old.API = pc.API
	}
	if pc.BaseURL != "" {
		old.BaseURL = pc.BaseURL
	}
	if pc.APIKeyEnv != "" {
		old.APIKeyEnv = pc.APIKeyEnv
	}
	if pc.APIKey != "" {
		old.APIKey = pc.APIKey
	}
	if len(pc.Headers) > 0 {
		h := make(map[string]string, len(old.Headers)+len(pc.Headers))
		for k, v := range old.Headers {
			h[k] = v
		}
		for k, v := range pc.Headers {
			h[k] = v
		}
		old.Headers = h
	}
	models := make([]Model, 0, len(old.Models)+len(pc.Models))
	for _, om := range old.Models {
		if !slices.ContainsFunc(pc.Models, func(nm Model) bool { return nm.ID == om.ID }) {
			om.BaseURL, om.API, om.Headers = "", "", nil // refilled from the provider below
			models = append(models, om)
		}
	}
	old.Models = append(models, pc.Models...)
	r.providers[i] = fillProvider(old)
}

// fillProvider completes each model of pc from the provider.
func fillProvider(pc ProviderConfig) ProviderConfig {
	models := make([]Model, len(pc.Models))
	for i, md := range pc.Models {
		models[i] = modelOf(pc, md)
	}
	pc.Models = models
	return pc
}

// modelOf completes md from its provider: provider, API, base URL,
// headers, and default window, max tokens and input (text only, pi's
// default for the models of its models.json).
func modelOf(pc ProviderConfig, md Model) Model {
	md.Provider = pc.Name
	if md.Input == nil {
		md.Input = textOnly
	}
	if md.API == "" {
		md.API = pc.API
	}
	if md.BaseURL == "" {
		md.BaseURL = pc.BaseURL
	}
	if len(pc.Headers) > 0 {
		h := make(map[string]string, len(pc.Headers)+len(md.Headers))
		for k, v := range pc.Headers {
			h[k] = v
		}
		for k, v := range md.Headers {
			h[k] = v
		}
		md.Headers = h
	}
	if md.ContextWindow <= 0 {
		md.ContextWindow = DefaultContextWindow
	}
	if md.MaxTokens <= 0 {
		md.MaxTokens = DefaultMaxTokens
	}
	return md
}

// provider returns the named provider.
func (r *Registry) provider(name string) (ProviderConfig, bool) {
	for _, p := range r.providers {
		if p.Name == name {
			return p, true
		}
	}
	return ProviderConfig{}, false
}

// Providers returns the providers in listing order (built-in first).
func (r *Registry) Providers() []ProviderConfig {
	return slices.Clone(r.providers)
}

// Find returns the known model provider/id.
func (r *Registry) Find(provider, id string) (Model, bool) {
	p, ok := r.provider(provider)
	if !ok {
		return Model{}, false
	}
	for _, md := range p.Models {
		if md.ID == id {
			return md, true
		}
	}
	return Model{}, false
}

// Resolve turns a --model value into a model: "provider/id" (an id the
// table does not know gets the provider's API and defaults: 128k window,
// and the inputs of the provider's first model),
// or a bare id looked up in the table, providers with a key first.
func (r *Registry) Resolve(spec string) (Model, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return Model{}, errors.New("empty model name")
	}
	if name, id, ok := strings.Cut(spec, "/"); ok {
		if p, known := r.provider(name); known {
			if id == "" {
				return Model{}, fmt.Errorf("model %q: missing model id after %q", spec, name+"/")
			}
			if md, found := r.Find(name, id); found {
				return md, nil
			}
			// Like pi's fallback for an id it does not know, the model
			// takes what the provider's first model takes.
			var input []string
			if len(p.Models) > 0 {
				input = p.Models[0].Input
			}
			return modelOf(p, Model{ID: id, Input: input}), nil
		}
	}
	var fallback *Model
	for _, p := range r.ordered() {
		for _, md := range p.Models {
			if md.ID != spec {
				continue
			}
			if _, _, err := r.APIKey(p.Name); err == nil {
				return md, nil
			}
			if fallback == nil {
				fallback = &md
			}
		}
	}
	if fallback != nil {
		return *fallback, nil
	}
	if name, _, ok := strings.Cut(spec, "/"); ok {
		return Model{}, fmt.Errorf("unknown provider %q in model %q (providers: %s)", name, spec, strings.Join(r.names(), ", "))
	}
	return Model{}, fmt.Errorf("unknown model %q: give it as provider/id (providers: %s)", spec, strings.Join(r.names(), ", "))
}

// ordered returns the providers with the secondary ones last.
func (r *Registry) ordered() []ProviderConfig {
	out := make([]ProviderConfig, 0, len(r.providers))
	for _, second := range []bool{false, true} {
		for _, p := range r.providers {
			if p.Secondary == second {
				out = append(out, p)
			}
		}
	}
	return out
}

// tiers returns every model in groups to search in order: those of the
// primary providers, then (if any) those of the secondary ones.
func (r *Registry) tiers() [][]Model {
	var primary, secondary []Model
	for _, p := range r.providers {
		if p.Secondary {
			secondary = append(secondary, p.Models...)
		} else {
			primary = append(primary, p.Models...)
		}
	}
	if len(secondary) == 0 {
		return [][]Model{primary}
	}
	return [][]Model{primary, secondary}
}

func (r *Registry) names() []string {
	names := make([]string, len(r.providers))
	for i, p := range r.providers {
		names[i] = p.Name
	}
	return names
}

// All returns every known model, provider by provider.
func (r *Registry) All() []Model {
	n := 0
	for _, p := range r.providers {
		n += len(p.Models)
	}
	all := make([]Model, 0, n)
	for _, p := range r.providers {
		all = append(all, p.Models...)
	}
	return all
}

// Available returns the models of providers that can be used now: those
// whose key is set, and those that need none (Ollama).
func (r *Registry) Available() []Model {
	var out []Model
	for _, p := range r.providers {
		if _, _, err := r.APIKey(p.Name); err == nil {
			out = append(out, p.Models...)
		}
	}
	return out
}

// APIKey returns the key of a provider and the variable it came from ("" for
// a literal key from config, or for providers that need none). A missing
// key is an error naming the variable to set.
func (r *Registry) APIKey(provider string) (key, envVar string, err error) {
	p, ok := r.provider(provider)
	if !ok {
		return "", "", fmt.Errorf("unknown provider %q (providers: %s)", provider, strings.Join(r.names(), ", "))
	}
	if p.APIKey != "" {
		return p.APIKey, "", nil
	}
	if p.APIKeyEnv == "" {
		return "", "", nil
	}
	getenv := r.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if v := strings.TrimSpace(getenv(p.APIKeyEnv)); v != "" {
		return v, p.APIKeyEnv, nil
	}
	return "", p.APIKeyEnv, fmt.Errorf("no API key for provider %q: set %s", provider, p.APIKeyEnv)
}

// APIKeyEnvs returns the names of the variables the providers read their
// keys from (built-in and configured ones), each once, in listing order:
// the variables a command run for the model must not see.
func (r *Registry) APIKeyEnvs() []string {
	var names []string
	for _, p := range r.providers {
		if p.APIKeyEnv != "" && !slices.Contains(names, p.APIKeyEnv) {
			names = append(names, p.APIKeyEnv)
		}
	}
	return names
}

// DefaultModel is anthropic/claude-sonnet-4-5 when ANTHROPIC_API_KEY is
// set, else openai/gpt-4.1 when OPENAI_API_KEY is, else ollama/llama3.1.
func (r *Registry) DefaultModel() Model {
	for _, c := range [][2]string{{"anthropic", "claude-sonnet-4-5"}, {"openai", "gpt-4.1"}} {
		if p, ok := r.provider(c[0]); ok && p.APIKeyEnv != "" {
			if _, _, err := r.APIKey(c[0]); err == nil {
				if md, ok := r.Find(c[0], c[1]); ok {
					return md
				}
			}
		}
	}
	if md, ok := r.Find("ollama", "llama3.1"); ok {
		return md
	}
	md, _ := r.Resolve("ollama/llama3.1")
	return md
}

// transport is the registry's retry and HTTP settings, as both providers
// take them.
func (r *Registry) transport() Transport {
	return Transport{MaxRetries: r.MaxRetries, HTTPClient: r.HTTPClient, IdleTimeout: r.IdleTimeout, ConnectTimeout: r.ConnectTimeout}
}

// NewProvider returns the client that speaks m's API, with the registry's
// retry and HTTP settings. A model with an unknown API gets a provider
// whose every call fails saying so.
func (r *Registry) NewProvider(m Model) Provider {
	switch m.API {
	case APIOpenAICompletions, "":
		return &OpenAIProvider{Transport: r.transport()}
	case APIAnthropicMessages:
		return &AnthropicProvider{Transport: r.transport()}
	}
	return unsupportedProvider{}
}

// unsupportedProvider answers every call with an error.
type unsupportedProvider struct{}

func (unsupportedProvider) Stream(_ context.Context, req *Request, _ func(StreamEvent)) (*session.Message, error) {
	msg := newAssistantMessage(req.Model)
	err := fmt.Errorf("%s: unsupported api %q (want %q or %q)", providerName(req.Model, "lunar"), req.Model.API,
		APIOpenAICompletions, APIAnthropicMessages)
	msg.StopReason = session.StopError
	msg.SetErrorMessage(err.Error())
	return msg, err
}

// CostOf prices a usage at a model's rates (dollars per million tokens).
func CostOf(m Model, u session.Usage) session.Cost {
	c := session.Cost{
		Input:      float64(u.Input) * m.Cost.Input / 1e6,
		Output:     float64(u.Output) * m.Cost.Output / 1e6,
		CacheRead:  float64(u.CacheRead) * m.Cost.CacheRead / 1e6,
		CacheWrite: float64(u.CacheWrite) * m.Cost.CacheWrite / 1e6,
	}
	c.Total = c.Input + c.Output + c.CacheRead + c.CacheWrite
	return c
}
