package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parseMCP reads Claude Code's .mcp.json shape; bad files name file, line
// and key; servers lunar cannot use are skipped with a warning.
func TestParseMCP(t *testing.T) {
	t.Setenv("MCP_TEST_TOKEN", "tok")
	cases := []struct {
		name, data string
		servers    []string
		warn, err  string
	}{
		{"stdio and http", `{"mcpServers": {
  "b": {"command": "srv", "args": ["--dir", "${HOME_NOT_SET:-/tmp}"], "env": {"K": "${MCP_TEST_TOKEN}"}},
  "a": {"type": "http", "url": "https://x/mcp", "headers": {"Authorization": "Bearer ${MCP_TEST_TOKEN}"}}}}`, []string{"b", "a"}, "", ""},
		{"empty file", ``, nil, "", ""},
		{"no servers", `{}`, nil, "", ""},
		{"sse skipped", `{"mcpServers": {"s": {"type": "sse", "url": "https://x"}}}`, nil, `type "sse" is not supported`, ""},
		{"missing variable skipped", `{"mcpServers": {"s": {"command": "srv", "env": {"K": "${MCP_TEST_NOPE}"}}}}`, nil, "env.K: environment variable MCP_TEST_NOPE is not set: skipped", ""},
		{"syntax", "{\"mcpServers\": {\n  \"s\": {\"command\": }}}", nil, "", "mcp config m.json:2: invalid character '}'"},
		{"unknown key", "{\"mcpServers\": {\n  \"s\": {\"comand\": \"x\"}}}", nil, "", "mcp config m.json:2: mcpServers.s.comand: unknown key"},
		{"wrong type", "{\"mcpServers\": {\n  \"s\": {\"command\": \"x\", \"args\": \"-v\"}}}", nil, "", "mcp config m.json:2: mcpServers.s.args: expected []string, got string"},
		{"no command", `{"mcpServers": {"s": {"args": ["x"]}}}`, nil, "", `mcpServers.s: "command" is required`},
		{"http without url", `{"mcpServers": {"s": {"type": "http"}}}`, nil, "", `mcpServers.s.type: "url" is required`},
		{"stdio with url", `{"mcpServers": {"s": {"command": "x", "url": "https://x"}}}`, nil, "", "a stdio server has no url or headers"},
		{"bad name", `{"mcpServers": {"my server": {"command": "x"}}}`, nil, "", "a server name is letters, digits, _ and -"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			servers, warnings, err := parseMCP("m.json", []byte(c.data))
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			var names []string
			for _, s := range servers {
				names = append(names, s.Name)
			}
			assert.Equal(t, c.servers, names)
			if c.warn != "" {
				require.Len(t, warnings, 1)
				assert.Contains(t, warnings[0], c.warn)
			} else {
				assert.Empty(t, warnings)
			}
		})
	}
	servers, _, err := parseMCP("m.json", []byte(`{"mcpServers": {"s": {"command": "srv", "args": ["${MCP_TEST_TOKEN}"], "env": {"K": "${MCP_TEST_TOKEN}"}}, "h": {"type": "http", "url": "https://x/${MCP_TEST_TOKEN}", "headers": {"A": "Bearer ${MCP_TEST_TOKEN}"}}}}`))
	require.NoError(t, err)
	require.Len(t, servers, 2)
	assert.Equal(t, []string{"tok"}, servers[0].Args)
	assert.Equal(t, "tok", servers[0].Env["K"])
	assert.Equal(t, "https://x/tok", servers[1].URL)
	assert.Equal(t, "Bearer tok", servers[1].Headers["A"])
	assert.Equal(t, "m.json", servers[1].Origin)
}
