package main

// The first run without a key: no --model, no configured model and no key
// in the environment make lunar try Ollama on this machine. When nothing
// listens there, the user gets one message saying what lunar looked for
// and how to pick a provider, instead of a transport error.

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lunar-cli/lunar/agent"
)

// defaultKeyEnvs are the variables DefaultModel looks at, in its order.
var defaultKeyEnvs = []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY"}

// firstRunHelp returns the message for err when the model was lunar's
// fallback (nothing chose one) and its server could not be reached; ""
// otherwise.
func (a *app) firstRunHelp(err error) string {
	if !a.modelDefaulted || err == nil || !agent.IsDialError(err) {
		return ""
	}
	m := a.model
	if a.agentRuntime != nil {
		m = a.agentRuntime.Model()
	}
	if m.Provider != "ollama" {
		return ""
	}
	host := "localhost:11434"
	if u, perr := url.Parse(m.BaseURL); perr == nil && u.Host != "" {
		host = u.Host
	}
	why := "it could not connect"
	if agent.IsConnectionRefused(err) {
		why = "nothing listens (connection refused)"
	}
	var others []string
	for _, env := range a.registry.APIKeyEnvs() {
		if !slices.Contains(defaultKeyEnvs, env) {
			others = append(others, env)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "no model to talk to: neither %s is set, so lunar tried Ollama (%s) at %s, where %s.\n",
		strings.Join(defaultKeyEnvs, " nor "), modelSpec(m), host, why)
	row := func(left, right string) { fmt.Fprintf(&b, "  %-30s %s\n", left, right) }
	b.WriteString("Pick a provider:\n")
	row("export ANTHROPIC_API_KEY=…", "or OPENAI_API_KEY=…")
	if len(others) > 6 { // the first providers; README lists every variable
		others = append(others[:6:6], "…")
	}
	if len(others) > 0 {
		row("", "(or "+strings.Join(others, ", ")+", with --model)")
	}
	row("lunar --model provider/id", "e.g. anthropic/claude-sonnet-4-5; lunar --list-models shows them")
	row(`"model": "provider/id"`, "in "+filepath.Join(a.paths.Config, "config.json"))
	row("ollama serve", "then `ollama pull llama3.1`, to run models on this machine")
	return b.String()
}
