package main

// MCP server configuration: Claude Code's .mcp.json shape, read from the
// user's config folder (mcp.json beside config.json) and, once the
// project is trusted (trust.go hashes them), from the project's
// .mcp.json and .lunar/mcp.json (later files win by server name).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lunar-cli/lunar/agent/mcp"
	"github.com/lunar-cli/lunar/session/export/ansi"
)

// projectMCPFiles are where a project configures MCP servers, relative to
// it, in the order they are applied.
var projectMCPFiles = []string{".mcp.json", ".lunar/mcp.json"}

// mcpFile is one mcp.json as read (and, for a project's, hashed).
type mcpFile struct {
	path string
	raw  []byte
}

// mcpEntry is one server of an mcp.json.
type mcpEntry struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// parseMCP reads the servers of one mcp.json. A file that is not JSON of
// that shape is an error naming file, line and key; a server lunar
// cannot use (a missing ${VAR}, an unsupported type) is left out with a
// warning.
func parseMCP(path string, data []byte) (servers []mcp.Server, warnings []string, err error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, nil
	}
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return nil, nil, fmt.Errorf("mcp config %s:%d: %v", path, lineAt(data, syn.Offset), syn)
		case errors.As(err, &typ):
			return nil, nil, fmt.Errorf("mcp config %s:%d: key %q: expected %s, got %s", path, lineAt(data, typ.Offset), typ.Field, typ.Type, typ.Value)
		}
		return nil, nil, fmt.Errorf("mcp config %s: %v", path, err)
	}
	// In file order, so that /mcp lists them as written.
	names := mcpServerNames(data, len(doc.MCPServers))
	for _, name := range names {
		at := func(key ...string) string {
			return fmt.Sprintf("mcp config %s:%d: mcpServers.%s", path, lineOfKey(data, append([]string{"mcpServers", name}, key...)...), strings.Join(append([]string{name}, key...), "."))
		}
		var e mcpEntry
		dec := json.NewDecoder(bytes.NewReader(doc.MCPServers[name]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			var typ *json.UnmarshalTypeError
			switch {
			case errors.As(err, &typ):
				return nil, nil, fmt.Errorf("%s: expected %s, got %s", at(typ.Field), typ.Type, typ.Value)
			case strings.HasPrefix(err.Error(), "json: unknown field "):
				key := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
				return nil, nil, fmt.Errorf("%s: unknown key (known: type, command, args, env, url, headers)", at(key))
			}
			return nil, nil, fmt.Errorf("%s: %v", at(), err)
		}
		if !mcp.ValidName(name) {
			return nil, nil, fmt.Errorf("%s: a server name is letters, digits, _ and - (at most 64)", at())
		}
		s := mcp.Server{Name: name, Command: e.Command, Args: e.Args, Env: e.Env, URL: e.URL, Headers: e.Headers, Origin: path}
		switch e.Type {
		case "", "stdio":
			if e.Command == "" {
				return nil, nil, fmt.Errorf("%s: \"command\" is required (or \"type\": \"http\" with \"url\")", at())
			}
			if e.URL != "" || e.Headers != nil {
				return nil, nil, fmt.Errorf("%s: a stdio server has no url or headers", at())
			}
		case "http", "streamable-http":
			if e.URL == "" {
				return nil, nil, fmt.Errorf("%s: \"url\" is required", at("type"))
			}
			if e.Command != "" || e.Args != nil || e.Env != nil {
				return nil, nil, fmt.Errorf("%s: an http server has no command, args or env", at())
			}
		default:
			warnings = append(warnings, fmt.Sprintf("%s: type %q is not supported (stdio or http): skipped", at("type"), e.Type))
			continue
		}
		x, err := s.ExpandAll(nil)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %v: skipped", at(), err))
			continue
		}
		servers = append(servers, x)
	}
	return servers, warnings, nil
}

// mcpServerNames lists the keys of data's "mcpServers" object in file
// order, each once (data is valid JSON of that shape).
func mcpServerNames(data []byte, n int) []string {
	var raw struct {
		MCPServers json.RawMessage `json:"mcpServers"`
	}
	if json.Unmarshal(data, &raw) != nil || len(raw.MCPServers) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw.MCPServers))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil // null
	}
	names := make([]string, 0, n)
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
		if name, ok := t.(string); ok && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// readMCPFile reads an mcp.json; nil when there is none.
func readMCPFile(path string) (*mcpFile, error) {
	data, err := readConfigFile(path, maxProjectConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &mcpFile{path: path, raw: data}, nil
}

// mcpServers gathers the servers of the user's mcp.json and, when the
// project is trusted, the project's files; a later server of the same
// name replaces an earlier one.
func (a *app) mcpServers() ([]mcp.Server, error) {
	files := []*mcpFile{}
	user, err := readMCPFile(filepath.Join(a.paths.Config, "mcp.json"))
	if err != nil {
		return nil, err
	}
	files = append(files, user)
	if a.projectTrusted && a.project != nil {
		files = append(files, a.project.mcp...)
	}
	var out []mcp.Server
	for _, f := range files {
		if f == nil {
			continue
		}
		servers, warnings, err := parseMCP(f.path, f.raw)
		if err != nil {
			return nil, err
		}
		for _, w := range warnings {
			a.warnf("%s", w)
		}
		for _, s := range servers {
			if i := slices.IndexFunc(out, func(o mcp.Server) bool { return o.Name == s.Name }); i >= 0 {
				out = slices.Delete(out, i, i+1)
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// setupMCP makes the manager of the configured servers (none start yet);
// a.mcp stays nil without servers, and with --no-tools.
func (a *app) setupMCP() error {
	if a.opts.NoTools {
		return nil
	}
	servers, err := a.mcpServers()
	if err != nil || len(servers) == 0 {
		return err
	}
	a.mcp = mcp.New(mcp.Options{
		Servers:      servers,
		Cwd:          a.cwd,
		LogDir:       filepath.Join(a.paths.State, "mcp"),
		StartTimeout: mcpStartTimeout(),
		Version:      version,
		Warn:         func(msg string) { a.warnf("%s", msg) },
	})
	return nil
}

// mcpStartTimeout is MCP_TIMEOUT (milliseconds, as Claude Code reads it)
// or the default.
func mcpStartTimeout() time.Duration {
	if ms, err := strconv.Atoi(os.Getenv("MCP_TIMEOUT")); err == nil && ms > 0 {
		return time.Duration(ms) * time.Millisecond
	}
	return mcp.DefaultStartTimeout
}

// mcpSummary names the servers of a file and what each runs, for the
// trust question.
func mcpSummary(f *mcpFile) string {
	var doc struct {
		MCPServers map[string]mcpEntry `json:"mcpServers"`
	}
	if json.Unmarshal(f.raw, &doc) != nil {
		return "unreadable"
	}
	var parts []string
	for name, e := range doc.MCPServers {
		what := e.URL
		if what == "" {
			what = strings.TrimSpace(e.Command + " " + strings.Join(e.Args, " "))
		}
		parts = append(parts, ansi.Sanitize(name+": "+what))
	}
	slices.Sort(parts)
	return strings.Join(parts, "; ")
}
