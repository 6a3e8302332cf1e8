package main

// The configuration file: $XDG_CONFIG_HOME/lunar/config.json overlaid by
// the project's .lunar/config.json. Errors name the file, line and key.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/agent/compaction"
	"github.com/lunar-cli/lunar/stdlib"
)

// config is the merged configuration. Pointer fields distinguish "unset"
// from zero so the project file can overlay the global one key by key.
type config struct {
	Model         string `json:"model,omitempty"`
	Thinking      string `json:"thinking,omitempty"`
	HookTimeoutMs *int   `json:"hook_timeout_ms,omitempty"`
	// HookMemoryLimitMB caps what one hook call may hold (default 256, 0:
	// no cap); HookMaxTimeouts disables a hook after that many timeouts in
	// a row (default 3, 0: never).
	HookMemoryLimitMB *int                      `json:"hook_memory_limit_mb,omitempty"`
	HookMaxTimeouts   *int                      `json:"hook_max_timeouts,omitempty"`
	Compaction        *compactionConfig         `json:"compaction,omitempty"`
	Providers         map[string]providerConfig `json:"providers,omitempty"`
	Models            []string                  `json:"models,omitempty"`
	DisabledHooks     []string                  `json:"disabled_hooks,omitempty"`
	// StreamIdleTimeout and ConnectTimeout bound a silent provider: a Go
	// duration ("2m"), seconds ("90") or "off".
	StreamIdleTimeout string `json:"stream_idle_timeout,omitempty"`
	ConnectTimeout    string `json:"connect_timeout,omitempty"`
	// SteeringMode and FollowUpMode: how many queued messages the running
	// agent takes at once, "one-at-a-time" (default) or "all" (pi's
	// steeringMode and followUpMode).
	SteeringMode string `json:"steering_mode,omitempty"`
	FollowUpMode string `json:"follow_up_mode,omitempty"`
	// BashKeepAPIKeys passes the provider key variables to the commands the
	// model runs (removed by default). Only the user's own config may set it.
	BashKeepAPIKeys *bool `json:"bash_keep_api_keys,omitempty"`
	// Permissions are the permission policy's settings and Hooks each
	// hook's own section (see config_hooks.go).
	Permissions *permissionsConfig         `json:"permissions,omitempty"`
	Hooks       map[string]json.RawMessage `json:"hooks,omitempty"`

	files []string // the files that were read, in order
	// projectProviders are the providers only the project config defines.
	projectProviders map[string]bool
}

type compactionConfig struct {
	Enabled          *bool `json:"enabled,omitempty"`
	ReserveTokens    *int  `json:"reserve_tokens,omitempty"`
	KeepRecentTokens *int  `json:"keep_recent_tokens,omitempty"`
}

// providerConfig is a custom (or overridden) provider.
type providerConfig struct {
	API       string            `json:"api,omitempty"` // openai-completions (default) or anthropic-messages
	BaseURL   string            `json:"base_url,omitempty"`
	APIKeyEnv string            `json:"api_key_env,omitempty"`
	APIKey    string            `json:"api_key,omitempty"`
	Headers   map[string]string `json:"headers,omitempty"`
	Models    []modelConfig     `json:"models,omitempty"`
}

type modelConfig struct {
	ID            string  `json:"id"`
	ContextWindow int     `json:"context_window,omitempty"`
	MaxTokens     int     `json:"max_tokens,omitempty"`
	Reasoning     bool    `json:"reasoning,omitempty"`
	CostInput     float64 `json:"cost_input,omitempty"`
	CostOutput    float64 `json:"cost_output,omitempty"`
	// Input are the kinds of input the model takes, "text" and "image";
	// absent, text only (pi's default for its custom models).
	Input []string `json:"input,omitempty"`
}

// hookTimeoutMs returns the configured hook timeout (default 30 s).
func (c *config) hookTimeoutMs() int {
	if c.HookTimeoutMs == nil {
		return 30000
	}
	return *c.HookTimeoutMs
}

// compactionSettings are the configured compaction settings over pi's
// defaults.
func (c *config) compactionSettings() compaction.Settings {
	st := compaction.DefaultSettings()
	if c.Compaction == nil {
		return st
	}
	if c.Compaction.Enabled != nil {
		st.Enabled = *c.Compaction.Enabled
	}
	if c.Compaction.ReserveTokens != nil {
		st.ReserveTokens = *c.Compaction.ReserveTokens
	}
	if c.Compaction.KeepRecentTokens != nil {
		st.KeepRecentTokens = *c.Compaction.KeepRecentTokens
	}
	return st
}

// hookLimits are the lua.Options memory cap (bytes) and timeouts in a row
// for the configured values: 0 keeps lua's defaults, negative turns off.
func (c *config) hookLimits() (memory int64, timeouts int) {
	if v := c.HookMemoryLimitMB; v != nil {
		memory = -1
		if *v > 0 {
			memory = int64(*v) << 20
		}
	}
	if v := c.HookMaxTimeouts; v != nil {
		timeouts = -1
		if *v > 0 {
			timeouts = *v
		}
	}
	return memory, timeouts
}

// loadConfig reads the global config; a missing file is fine. The
// project's .lunar/config.json is applied later, once the folder is
// trusted (applyProject).
func loadConfig(globalDir string) (*config, error) {
	c := &config{}
	path := filepath.Join(globalDir, "config.json")
	data, err := readConfigFile(path, maxUserConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config %w", err)
	}
	if err := decodeConfig(path, data, c); err != nil {
		return nil, err
	}
	c.files = append(c.files, path)
	return c, nil
}

// maxUserConfig bounds what is read of the user's own config.json.
const maxUserConfig = 4 << 20

// readConfigFile reads a config file: a regular file of at most limit
// bytes, opened without blocking (a FIFO or a link to /dev/zero is refused
// at once, never read). The error names the path; a missing file is
// fs.ErrNotExist.
func readConfigFile(path string, limit int64) ([]byte, error) {
	data, err := stdlib.ReadRegular(path, limit)
	if err == nil {
		return data, nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return nil, fmt.Errorf("%s: %w", path, pe.Err)
	}
	return nil, err // stdlib names the path
}

// applyProject overlays a trusted project config (data read from path).
// Even trusted, a project may not touch the providers lunar or the user
// define beyond adding models (see overlayProjectProviders); it cannot
// disable the user's global hooks (globalHooks, by name without .lua) nor
// the permission policy, nor reconfigure the user's hooks; it may tighten
// the policy but not loosen it. What is refused is dropped with a
// warning.
func (c *config) applyProject(path string, data []byte, globalHooks map[string]bool) (warnings []string, err error) {
	var layer config
	if err := decodeConfig(path, data, &layer); err != nil {
		return nil, err
	}
	warnings = c.overlayProjectProviders(&layer, path, data)
	var disabled []string
	for _, d := range layer.DisabledHooks {
		if strings.TrimSuffix(d, ".lua") == permissionsHook {
			warnings = append(warnings, fmt.Sprintf("config %s:%d: disabled_hooks: %q ignored: a project may not turn off the permission policy",
				path, lineOfKey(data, "disabled_hooks"), d))
			continue
		}
		if globalHooks[strings.TrimSuffix(d, ".lua")] {
			warnings = append(warnings, fmt.Sprintf("config %s:%d: disabled_hooks: %q ignored: a project may not disable your own hooks",
				path, lineOfKey(data, "disabled_hooks"), d))
			continue
		}
		disabled = append(disabled, d)
	}
	layer.DisabledHooks = disabled
	if layer.BashKeepAPIKeys != nil {
		warnings = append(warnings, fmt.Sprintf("config %s:%d: bash_keep_api_keys ignored: only your own config may hand your keys to commands",
			path, lineOfKey(data, "bash_keep_api_keys")))
		layer.BashKeepAPIKeys = nil
	}
	if layer.Permissions != nil {
		warnings = append(warnings, c.tightenPermissions(layer.Permissions, path, data)...)
		layer.Permissions = nil
	}
	if layer.Hooks != nil {
		warnings = append(warnings, c.overlayHookSections(layer.Hooks, path, data, globalHooks)...)
		layer.Hooks = nil
	}
	c.overlay(&layer)
	c.files = append(c.files, path)
	return warnings, nil
}

// decodeConfig decodes strictly, turning decoder errors into messages that
// name the file, line and key.
func decodeConfig(path string, data []byte, into *config) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(into)
	if err == nil {
		if dec.More() {
			return fmt.Errorf("config %s:%d: unexpected data after the JSON object", path, lineAt(data, dec.InputOffset()))
		}
		return into.validate(path, data)
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var key *configKeyError
	switch {
	case errors.As(err, &key):
		return fmt.Errorf("config %s:%d: %v", path, lineOfKey(data, key.lineKey), key)
	case errors.As(err, &syn):
		return fmt.Errorf("config %s:%d: %v", path, lineAt(data, syn.Offset), syn)
	case errors.As(err, &typ):
		return fmt.Errorf("config %s:%d: key %q: expected %s, got %s", path, lineAt(data, typ.Offset), typ.Field, typ.Type, typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		key := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		if best, ok := nearestName(key, knownKeys()); ok {
			return fmt.Errorf("config %s:%d: unknown key %q (did you mean %q?)", path, lineOfKey(data, key), key, best)
		}
		return fmt.Errorf("config %s:%d: unknown key %q (known: %s)", path, lineOfKey(data, key), key, strings.Join(knownKeys(), ", "))
	default:
		return fmt.Errorf("config %s:%d: %v", path, lineAt(data, dec.InputOffset()), err)
	}
}

func knownKeys() []string {
	keys := []string{"model", "thinking", "hook_timeout_ms", "hook_memory_limit_mb", "hook_max_timeouts", "compaction", "providers", "models", "disabled_hooks",
		"stream_idle_timeout", "connect_timeout", "bash_keep_api_keys", "permissions", "hooks", "steering_mode", "follow_up_mode"}
	sort.Strings(keys)
	return keys
}

func (c *config) validate(path string, data []byte) error {
	if _, err := agent.ParseThinkingLevel(c.Thinking); c.Thinking != "" && err != nil {
		return fmt.Errorf("config %s:%d: key \"thinking\": %v", path, lineOfKey(data, "thinking"), err)
	}
	// Fixed orders, not maps: of two bad keys, the same one is reported
	// every time.
	for _, t := range []struct{ key, v string }{{"stream_idle_timeout", c.StreamIdleTimeout}, {"connect_timeout", c.ConnectTimeout}} {
		if t.v == "" {
			continue
		}
		if _, err := agent.ParseTimeout(t.v); err != nil {
			return fmt.Errorf("config %s:%d: key %q: %v", path, lineOfKey(data, t.key), t.key, err)
		}
	}
	for _, m := range []struct{ key, v string }{{"steering_mode", c.SteeringMode}, {"follow_up_mode", c.FollowUpMode}} {
		if _, err := agent.ParseQueueMode(m.v); err != nil {
			return fmt.Errorf("config %s:%d: key %q: %v", path, lineOfKey(data, m.key), m.key, err)
		}
	}
	for _, n := range []struct {
		key string
		v   *int
	}{{"hook_memory_limit_mb", c.HookMemoryLimitMB}, {"hook_max_timeouts", c.HookMaxTimeouts}} {
		if n.v != nil && *n.v < 0 {
			return fmt.Errorf("config %s:%d: key %q: must not be negative", path, lineOfKey(data, n.key), n.key)
		}
	}
	if c.HookTimeoutMs != nil && *c.HookTimeoutMs < 0 {
		return fmt.Errorf("config %s:%d: key \"hook_timeout_ms\": must not be negative", path, lineOfKey(data, "hook_timeout_ms"))
	}
	if err := validatePermissions(c.Permissions, path, data); err != nil {
		return err
	}
	if err := validateHookSections(c.Hooks, path, data); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(c.Providers)) {
		p := c.Providers[name]
		if p.API != "" && p.API != agent.APIOpenAICompletions && p.API != agent.APIAnthropicMessages {
			return fmt.Errorf("config %s:%d: key \"providers.%s.api\": %q is not %s or %s", path, lineOfKey(data, "providers", name, "api"), name, p.API, agent.APIOpenAICompletions, agent.APIAnthropicMessages)
		}
		for i, m := range p.Models {
			if m.ID == "" {
				return fmt.Errorf("config %s:%d: key \"providers.%s.models[%d].id\" is missing", path, lineOfKey(data, "providers", name, "models"), name, i)
			}
			if err := agent.ParseInput(m.Input); err != nil {
				return fmt.Errorf("config %s:%d: key \"providers.%s.models[%d].input\": %v (a model that takes images: [\"text\", \"image\"])",
					path, lineOfKey(data, "providers", name, "models", strconv.Itoa(i), "input"), name, i, err)
			}
		}
	}
	return nil
}

func (c *config) overlay(o *config) {
	if o.Model != "" {
		c.Model = o.Model
	}
	if o.Thinking != "" {
		c.Thinking = o.Thinking
	}
	if o.SteeringMode != "" {
		c.SteeringMode = o.SteeringMode
	}
	if o.FollowUpMode != "" {
		c.FollowUpMode = o.FollowUpMode
	}
	if o.HookMemoryLimitMB != nil {
		c.HookMemoryLimitMB = o.HookMemoryLimitMB
	}
	if o.HookMaxTimeouts != nil {
		c.HookMaxTimeouts = o.HookMaxTimeouts
	}
	if o.HookTimeoutMs != nil {
		c.HookTimeoutMs = o.HookTimeoutMs
	}
	if o.Compaction != nil {
		if c.Compaction == nil {
			c.Compaction = &compactionConfig{}
		}
		if o.Compaction.Enabled != nil {
			c.Compaction.Enabled = o.Compaction.Enabled
		}
		if o.Compaction.ReserveTokens != nil {
			c.Compaction.ReserveTokens = o.Compaction.ReserveTokens
		}
		if o.Compaction.KeepRecentTokens != nil {
			c.Compaction.KeepRecentTokens = o.Compaction.KeepRecentTokens
		}
	}
	for name, p := range o.Providers {
		if c.Providers == nil {
			c.Providers = map[string]providerConfig{}
		}
		c.Providers[name] = p
	}
	if o.Models != nil {
		c.Models = o.Models
	}
	if o.DisabledHooks != nil {
		c.DisabledHooks = append(c.DisabledHooks, o.DisabledHooks...)
	}
	if o.StreamIdleTimeout != "" {
		c.StreamIdleTimeout = o.StreamIdleTimeout
	}
	if o.ConnectTimeout != "" {
		c.ConnectTimeout = o.ConnectTimeout
	}
	if o.BashKeepAPIKeys != nil {
		c.BashKeepAPIKeys = o.BashKeepAPIKeys
	}
}

// lineAt converts a byte offset into a 1-based line number.
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// lineOfKey finds the line of the key at path, one object key or array
// index (decimal) a level ("providers", "p", "api": that provider's, not
// the first "api" in the file; "providers", "p", "models", "1", "input":
// that of its second model). Where the path is not in data (or data is no JSON) it falls back
// to the first occurrence of the last key anywhere, else line 1: best
// effort, for messages.
func lineOfKey(data []byte, path ...string) int {
	if off, ok := offsetOfPath(data, path); ok {
		return lineAt(data, off)
	}
	i := bytes.Index(data, []byte(`"`+path[len(path)-1]+`"`))
	if i < 0 {
		return 1
	}
	return lineAt(data, int64(i))
}

// offsetOfPath returns the offset just past the key at path in the JSON
// data: it walks the tokens, descending only into the objects and arrays
// on the path.
func offsetOfPath(data []byte, path []string) (int64, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	// value reads one value; on the path (depth keys of it matched so
	// far) it looks for path[depth] among an object's keys.
	var value func(depth int, onPath bool) (int64, bool, error)
	value = func(depth int, onPath bool) (int64, bool, error) {
		tok, err := dec.Token()
		if err != nil {
			return 0, false, err
		}
		d, ok := tok.(json.Delim)
		if !ok || d == '}' || d == ']' {
			return 0, false, nil
		}
		for i := 0; dec.More(); i++ {
			match := false
			if d == '{' {
				k, err := dec.Token()
				if err != nil {
					return 0, false, err
				}
				match = onPath && k == path[depth]
				if match && depth+1 == len(path) {
					return dec.InputOffset(), true, nil
				}
			} else {
				match = onPath && depth+1 < len(path) && path[depth] == strconv.Itoa(i)
			}
			if off, found, err := value(depth+1, match); found || err != nil {
				return off, found, err
			}
		}
		_, err = dec.Token() // the closing delimiter
		return 0, false, err
	}
	off, found, _ := value(0, len(path) > 0)
	return off, found
}
