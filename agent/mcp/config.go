// Package mcp connects lunar to Model Context Protocol servers through the
// official Go SDK (github.com/modelcontextprotocol/go-sdk): stdio servers
// it starts itself and streamable-HTTP servers it reaches by URL. Their
// tools become *agent.Tool values named mcp__<server>__<tool> (Claude
// Code's naming), their prompts slash commands. Servers start in parallel
// on first use; one that fails, hangs or exits takes its tools with it
// and nothing else.
//
// This file holds a server's configuration: Claude Code's .mcp.json entry
// with ${VAR} and ${VAR:-default} expanded.
package mcp

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
)

// Server is one configured server: Command (stdio) or URL (streamable
// HTTP), never both.
type Server struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string // added to lunar's environment
	URL     string
	Headers map[string]string
	// Origin is the file that configured it, for messages.
	Origin string
}

// Transport is "stdio" or "http".
func (s Server) Transport() string {
	if s.URL != "" {
		return "http"
	}
	return "stdio"
}

// varRef is ${VAR} or ${VAR:-default}, compiled on first use: lunar
// without MCP servers never pays for it.
var varRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)
})

// ValidName reports whether name may name a server: 1 to 64 letters,
// digits, _ and -, as Claude Code requires, so tool names stay valid for
// every provider.
func ValidName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Expand replaces ${VAR} and ${VAR:-default} in s with values from
// lookup (os.LookupEnv when nil), as Claude Code does in .mcp.json. A
// variable that is unset and has no default is an error naming it.
func Expand(s string, lookup func(string) (string, bool)) (string, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var missing []string
	re := varRef()
	out := re.ReplaceAllStringFunc(s, func(m string) string {
		sub := re.FindStringSubmatch(m)
		if v, ok := lookup(sub[1]); ok && v != "" {
			return v
		}
		if sub[2] != "" {
			return sub[3]
		}
		missing = append(missing, sub[1])
		return ""
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("environment variable %s is not set", strings.Join(missing, ", "))
	}
	return out, nil
}

// ExpandAll expands the variables of every field that Claude Code
// expands: command, args, env, url and headers.
func (s Server) ExpandAll(lookup func(string) (string, bool)) (Server, error) {
	out := s
	var err error
	one := func(field string, v string) string {
		if err != nil {
			return ""
		}
		r, e := Expand(v, lookup)
		if e != nil {
			err = fmt.Errorf("%s: %w", field, e)
		}
		return r
	}
	out.Command = one("command", s.Command)
	out.URL = one("url", s.URL)
	out.Args = make([]string, len(s.Args))
	for i, a := range s.Args {
		out.Args[i] = one(fmt.Sprintf("args[%d]", i), a)
	}
	out.Env = expandMap("env", s.Env, one)
	out.Headers = expandMap("headers", s.Headers, one)
	return out, err
}

func expandMap(field string, m map[string]string, one func(string, string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = one(field+"."+k, v)
	}
	return out
}
