package stdlib

import (
	"net/http"
	"time"
)

// Env is what the modules of one hook may use: where it may write and how
// it reaches the network. Each hook state gets its own Env.
type Env struct {
	// Cwd is the folder relative paths are resolved against.
	Cwd string
	// WriteRoots returns the folders fs.write and fs.mkdir may write under
	// (a function so that a lazily created data folder can be included).
	// Nil or empty: writes are refused.
	WriteRoots func() []string
	// HTTPClient makes http.request calls (nil: a default client).
	HTTPClient *http.Client
	// HTTPTimeout is the default timeout of http.request (0: 30 s).
	HTTPTimeout time.Duration
}

// DefaultHTTPTimeout is the timeout of http.request without timeout_ms.
const DefaultHTTPTimeout = 30 * time.Second

// Modules returns lunar's standard Lua modules bound to env, in the order
// they are documented: json, fs, http, text, re, path, utf8, time, tokens, shell.
func Modules(env *Env) []*Module {
	if env == nil {
		env = &Env{}
	}
	return []*Module{
		jsonModule(),
		fsModule(env),
		httpModule(env),
		textModule(),
		reModule(),
		pathModule(env),
		utf8Module(),
		timeModule(),
		tokensModule(),
		shellModule(),
	}
}
