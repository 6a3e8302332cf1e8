package main

// What a trusted project's config may do to providers. A provider's name
// decides where a key goes, so a project's "providers" may add providers
// of its own and models to any provider, and nothing else: it cannot
// shadow a provider lunar or the user's config defines (names compare
// ignoring case: "Local" is the user's "local"), nor change such a
// provider's api, base_url, key or headers, nor give a provider of its
// own a key from the user's environment. What is refused is dropped with
// a warning naming the file, line and key.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lunar-cli/lunar/agent"
)

// overlayProjectProviders filters the project layer's providers (in
// place) to what a project may set; the overlay then applies them.
func (c *config) overlayProjectProviders(layer *config, path string, data []byte) (warnings []string) {
	if len(layer.Providers) == 0 {
		return nil
	}
	// Who defines each name, by its lower case.
	type owner struct{ name, who string }
	known := map[string]owner{}
	for _, p := range agent.NewRegistry(nil).Providers() {
		known[strings.ToLower(p.Name)] = owner{p.Name, "lunar"}
	}
	for name := range c.Providers {
		if _, ok := known[strings.ToLower(name)]; !ok {
			known[strings.ToLower(name)] = owner{name, "your config"}
		}
	}
	names := make([]string, 0, len(layer.Providers))
	for name := range layer.Providers {
		names = append(names, name)
	}
	sort.Strings(names)
	at := func(key ...string) string {
		return fmt.Sprintf("config %s:%d: ", path, lineOfKey(data, append([]string{"providers"}, key...)...))
	}
	seen := map[string]string{}
	for _, name := range names {
		p := layer.Providers[name]
		low := strings.ToLower(name)
		own, isKnown := known[low]
		if prev, dup := seen[low]; dup || isKnown && own.name != name {
			other, who := prev, "this config"
			if !dup {
				other, who = own.name, own.who
			}
			warnings = append(warnings, fmt.Sprintf("%sproviders.%s ignored: %q is already defined (by %s) and provider names ignore case; a project may not shadow a provider",
				at(name), name, other, who))
			delete(layer.Providers, name)
			continue
		}
		seen[low] = name
		if !isKnown {
			if p.APIKeyEnv != "" {
				warnings = append(warnings, fmt.Sprintf("%sproviders.%s.api_key_env ignored: a provider a project defines never gets a key from your environment; define it in your own config",
					at(name, "api_key_env"), name))
				p.APIKeyEnv = ""
			}
			layer.Providers[name] = p
			if c.projectProviders == nil {
				c.projectProviders = map[string]bool{}
			}
			c.projectProviders[name] = true
			continue
		}
		// A provider of lunar's or the user's: models only.
		refuse := func(key, why string) {
			warnings = append(warnings, fmt.Sprintf("%sproviders.%s.%s ignored: %s; set it in your own config", at(name, key), name, key, why))
		}
		if p.API != "" {
			refuse("api", "a project may not change how a provider you or lunar define is spoken to")
		}
		if p.BaseURL != "" && strings.TrimRight(p.BaseURL, "/") != strings.TrimRight(c.baseURL(name), "/") {
			refuse("base_url", fmt.Sprintf("a project may not send your %s requests (and key) to another host", name))
		}
		if p.APIKeyEnv != "" {
			refuse("api_key_env", "a project may not choose which of your keys a provider gets")
		}
		if p.APIKey != "" {
			refuse("api_key", fmt.Sprintf("a project may not replace the key of %s (your requests would go to its account)", name))
		}
		if len(p.Headers) > 0 {
			refuse("headers", fmt.Sprintf("a project may not set the headers %s sends (they can carry a key or an account)", name))
		}
		merged := c.Providers[name] // the user's entry, if any, as it was
		merged.Models = append(append([]modelConfig(nil), merged.Models...), p.Models...)
		layer.Providers[name] = merged
	}
	return warnings
}

// baseURL is where the named provider (lunar's or the user's) sends
// requests.
func (c *config) baseURL(name string) string {
	if p, ok := c.Providers[name]; ok && p.BaseURL != "" {
		return p.BaseURL
	}
	for _, p := range agent.NewRegistry(nil).Providers() {
		if p.Name == name {
			return p.BaseURL
		}
	}
	return ""
}
