// This file holds the environment commands the model runs get: lunar's
// own, without the variables that hold provider API keys, so a command a
// prompt injection talks the model into cannot read or send them.

package tools

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/lunar-cli/lunar/agent"
)

// BashOptions configure the bash tool.
type BashOptions struct {
	// KeepAPIKeys passes the provider API-key variables to commands. By
	// default they are removed from the commands' environment.
	KeepAPIKeys bool
	// SecretEnv names more variables to remove, such as the api_key_env of
	// configured providers (agent.Registry.APIKeyEnvs lists them all).
	// KeepAPIKeys keeps these too.
	SecretEnv []string
	// Environ returns the environment to filter; nil means os.Environ.
	Environ func() []string
}

// builtinKeyEnvs are the key variables of lunar's built-in providers
// (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, ...).
var builtinKeyEnvs = sync.OnceValue(func() []string { return agent.NewRegistry(nil).APIKeyEnvs() })

// secretEnv returns the variables commands must not see (none with
// KeepAPIKeys).
func (o BashOptions) secretEnv() []string {
	if o.KeepAPIKeys {
		return nil
	}
	return append(slices.Clone(builtinKeyEnvs()), o.SecretEnv...)
}

// environ returns the environment of a command: lunar's without the
// secret variables.
func (o BashOptions) environ() []string {
	env := os.Environ()
	if o.Environ != nil {
		env = o.Environ()
	}
	return withoutVars(env, o.secretEnv())
}

// withoutVars returns env without the named variables. On Windows names
// are case-insensitive, and so is the match there.
func withoutVars(env, names []string) []string {
	if len(names) == 0 {
		return env
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name == "" { // Windows' "=C:=C:\dir" entries
			out = append(out, kv)
			continue
		}
		if !slices.ContainsFunc(names, func(n string) bool { return sameVar(n, name) }) {
			out = append(out, kv)
		}
	}
	return out
}

// sameVar reports whether two variable names are the same variable.
func sameVar(a, b string) bool {
	if runtime.GOOS == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}
