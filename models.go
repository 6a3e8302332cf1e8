package main

// Model selection: flags, config and the resumed session choose the model,
// its thinking level and its API key.

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/lunar-cli/lunar/agent"
)

func (a *app) setupModels() error {
	var custom []agent.ProviderConfig
	names := make([]string, 0, len(a.cfg.Providers))
	for name := range a.cfg.Providers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := a.cfg.Providers[name]
		pc := agent.ProviderConfig{Name: name, API: p.API, BaseURL: p.BaseURL, APIKeyEnv: p.APIKeyEnv, APIKey: p.APIKey, Headers: p.Headers,
			Secondary: a.cfg.projectProviders[name]}
		for _, m := range p.Models {
			pc.Models = append(pc.Models, agent.Model{ID: m.ID, ContextWindow: m.ContextWindow, MaxTokens: m.MaxTokens,
				Reasoning: m.Reasoning, Cost: agent.ModelCost{Input: m.CostInput, Output: m.CostOutput}, Input: m.Input})
		}
		custom = append(custom, pc)
	}
	a.registry = agent.NewRegistry(custom)
	// Validated when the config was read.
	if v := a.cfg.StreamIdleTimeout; v != "" {
		a.registry.IdleTimeout, _ = agent.ParseTimeout(v)
	}
	if v := a.cfg.ConnectTimeout; v != "" {
		a.registry.ConnectTimeout, _ = agent.ParseTimeout(v)
	}
	if v := os.Getenv("LUNAR_MAX_RETRIES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("LUNAR_MAX_RETRIES=%q: want a whole number >= 0", v)
		}
		a.registry.MaxRetries = n
	}

	spec := a.opts.Model
	if spec == "" && a.opts.Provider == "" {
		spec = a.cfg.Model
	}
	var m agent.Model
	level := "" // from a ":level" suffix
	switch {
	case a.opts.Provider != "" && spec == "":
		m = a.lookup(a.opts.Provider, "")
	case spec != "":
		var err error
		if m, level, err = a.registry.Match(a.opts.Provider, spec); err != nil {
			if a.opts.Model == "" {
				return fmt.Errorf("config: key \"model\": %v", err)
			}
			return &usageError{fmt.Sprintf("--model: %v", err)}
		}
	default:
		m = a.registry.DefaultModel()
		a.modelDefaulted = true
	}
	a.model = a.withFlags(m)
	// Each was checked (flags, config, the pattern's ":level").
	a.thinking = agent.ThinkingLevel(a.opts.Thinking)
	if a.thinking == "" && level != "" && a.opts.Model != "" {
		a.thinking = agent.ThinkingLevel(level)
		a.thinkingFromModel = true
	}
	if a.thinking == "" {
		a.thinking = agent.ThinkingLevel(level) // "model": "sonnet:high" in config.json
	}
	if a.thinking == "" {
		a.thinking = agent.ThinkingLevel(a.cfg.Thinking)
	}
	if a.thinking == "" {
		a.thinking = agent.ThinkingOff
	}
	return nil
}

// lookup finds provider/id, falling back to defaults for unknown ids.
func (a *app) lookup(provider, id string) agent.Model {
	if id == "" {
		if all := a.registry.All(); len(all) > 0 {
			for _, m := range all {
				if m.Provider == provider {
					return m
				}
			}
		}
	}
	if m, ok := a.registry.Find(provider, id); ok {
		return m
	}
	m, _ := a.registry.Resolve(provider + "/" + id)
	return m
}

// withFlags applies --base-url and --max-tokens to a model.
func (a *app) withFlags(m agent.Model) agent.Model {
	if a.opts.BaseURL != "" {
		m.BaseURL = a.opts.BaseURL
	}
	if a.opts.MaxTokens > 0 {
		m.MaxTokens = a.opts.MaxTokens
	}
	return m
}

// apiKey resolves the key for a model: --api-key, then the registry.
// --api-key never goes to a provider only the project config defines
// unless the command line named that provider (--provider P or --model
// P/id): a bare id that only the project's provider knows, a model the
// project's config chose or a later /model is no choice of it.
func (a *app) apiKey(m agent.Model) (string, error) {
	if a.opts.APIKey != "" && (!a.cfg.projectProviders[m.Provider] || a.namedProvider(m.Provider)) {
		return a.opts.APIKey, nil
	}
	key, _, err := a.registry.APIKey(m.Provider)
	return key, err
}

// namedProvider reports whether the command line named the provider.
func (a *app) namedProvider(name string) bool {
	if a.opts.Provider != "" {
		return strings.EqualFold(a.opts.Provider, name)
	}
	p, _, ok := strings.Cut(a.opts.Model, "/")
	return ok && strings.EqualFold(p, name)
}

// listModels prints the known models, those matching search (every word
// of it, fuzzily, in "provider id") when one is given, as pi's
// --list-models [search].
func (a *app) listModels(search string) int {
	models := a.registry.All()
	if strings.TrimSpace(search) != "" {
		models = filterModels(models, search)
		if len(models) == 0 {
			fmt.Fprintf(a.stderr, "lunar: no models match %q\n", search)
			return exitError
		}
	}
	fmt.Fprintf(a.stdout, "%-12s %-32s %9s %10s %10s %8s %6s\n", "provider", "model", "context", "$in/M", "$out/M", "thinking", "images")
	yesNo := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	for _, m := range models {
		fmt.Fprintf(a.stdout, "%-12s %-32s %9d %10.2f %10.2f %8s %6s\n", m.Provider, m.ID, m.ContextWindow, m.Cost.Input, m.Cost.Output,
			yesNo(m.Reasoning), yesNo(m.TakesImages()))
	}
	return exitOK
}

// filterModels keeps the models whose "provider id" contains every word
// of search; when none does, those that match it fuzzily, as pi's
// --list-models search (its letters in order). The table keeps its order.
func filterModels(models []agent.Model, search string) []agent.Model {
	words := strings.Fields(strings.ToLower(search))
	substr := slices.DeleteFunc(slices.Clone(models), func(m agent.Model) bool {
		text := strings.ToLower(m.Provider + " " + m.ID)
		for _, w := range words {
			if !strings.Contains(text, w) {
				return true
			}
		}
		return false
	})
	if len(substr) > 0 {
		return substr
	}
	return slices.DeleteFunc(models, func(m agent.Model) bool {
		_, ok := fuzzyMatches(search, m.Provider+" "+m.ID)
		return !ok
	})
}
