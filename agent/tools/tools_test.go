package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/session"
)

// builtin returns the built-in tool called name, rooted at cwd.
func builtin(t testing.TB, name, cwd string) *agent.Tool {
	t.Helper()
	tools, err := ByName([]string{name}, Builtins(cwd))
	require.NoError(t, err)
	return tools[0]
}

// validate checks args against the tool's schema as the loop does.
func validate(t testing.TB, tl *agent.Tool, args string) error {
	t.Helper()
	v, err := agent.CompileSchema(tl.Name, tl.Parameters)
	require.NoError(t, err)
	return v.Validate(json.RawMessage(args))
}

// call validates args (which must be valid) and executes the tool.
func call(t testing.TB, tl *agent.Tool, args string) agent.ToolResult {
	t.Helper()
	return callCtx(context.Background(), t, tl, args, nil)
}

func callCtx(ctx context.Context, t testing.TB, tl *agent.Tool, args string, onUpdate func(agent.ToolResult)) agent.ToolResult {
	t.Helper()
	require.NoError(t, validate(t, tl, args), "arguments must pass the schema")
	res, err := tl.Execute(ctx, "call-1", json.RawMessage(args), onUpdate)
	require.NoError(t, err)
	return res
}

// text is the concatenated text of a result.
func text(r agent.ToolResult) string {
	var s string
	for _, b := range r.Content {
		if b.Type == session.BlockText {
			s += b.Text
		}
	}
	return s
}

// args marshals a map into JSON arguments.
func args(t testing.TB, m map[string]any) string {
	t.Helper()
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return string(b)
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func TestBuiltins(t *testing.T) {
	tools := Builtins(t.TempDir())
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
		assert.NotEmpty(t, tl.Description, tl.Name)
		assert.NotNil(t, tl.Execute, tl.Name)
		_, err := agent.CompileSchema(tl.Name, tl.Parameters)
		assert.NoError(t, err, tl.Name)

		// Providers reject combinators at the top of a tool schema.
		var top map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(tl.Parameters, &top))
		assert.JSONEq(t, `"object"`, string(top["type"]), tl.Name)
		for _, k := range []string{"oneOf", "anyOf", "allOf", "not", "enum", "const"} {
			assert.NotContains(t, top, k, tl.Name)
		}
	}
	assert.Equal(t, []string{"read", "bash", "edit", "write"}, names)
}

func TestByName(t *testing.T) {
	all := Builtins(t.TempDir())
	tests := []struct {
		name    string
		names   []string
		want    []string
		wantErr string
	}{
		{"subset in given order", []string{"bash", "read"}, []string{"bash", "read"}, ""},
		{"duplicates once", []string{"read", "read"}, []string{"read"}, ""},
		{"none", nil, nil, ""},
		{"unknown", []string{"read", "grep"}, nil, `unknown tool "grep" (known: read, bash, edit, write)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ByName(tc.names, all)
			if tc.wantErr != "" {
				assert.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			var names []string
			for _, tl := range got {
				names = append(names, tl.Name)
			}
			assert.Equal(t, tc.want, names)
		})
	}
}

func TestResolvePath(t *testing.T) {
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	tests := []struct{ in, want string }{
		{"a.txt", "/work/dir/a.txt"},
		{"./sub/../b.txt", "/work/dir/b.txt"},
		{"/etc/hosts", "/etc/hosts"},
		{"@src/main.go", "/work/dir/src/main.go"},
		{"~", home},
		{"~/notes.md", filepath.Join(home, "notes.md")},
		{"~user/x", "/work/dir/~user/x"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			assert.Equal(t, tc.want, resolvePath("/work/dir", tc.in))
		})
	}
}

// TestSchemas checks each tool's arguments schema through the validator
// the loop uses: required properties, types, and extra properties (every
// tool rejects them: pi's read, write and bash ignore them, but a key the
// policy reads one way and the tool another must not run; see
// agent/args.go), case variants and duplicates included.
func TestSchemas(t *testing.T) {
	tests := []struct {
		tool, args, wantErr string
	}{
		{"read", `{"path":"a"}`, ""},
		{"read", `{"path":"a","offset":10,"limit":5}`, ""},
		{"read", `{"path":"a","junk":true}`, `invalid arguments for tool "read": unknown property "junk"`},
		{"read", `{"Path":"/etc/passwd"}`, `unknown property "Path" (property names are case-sensitive: "path")`},
		{"read", `{"path":"a","PATH":"b"}`, `invalid arguments for tool "read": keys "path" and "PATH" differ only by case`},
		{"read", `{}`, `invalid arguments for tool "read": missing property "path"`},
		{"read", `{"path":["a"]}`, `invalid arguments for tool "read": /path: expected string, got array`},
		{"read", `{"path":"a","offset":"10"}`, `invalid arguments for tool "read": /offset: expected integer, got string`},
		{"read", `{"path":"a","limit":1.5}`, `invalid arguments for tool "read": /limit: expected integer, got number`},
		{"read", `{"path":"a","offset":0}`, `invalid arguments for tool "read": /offset: must be >= 1, got 0`},

		{"write", `{"path":"a","content":""}`, ""},
		{"write", `{"path":"a"}`, `invalid arguments for tool "write": missing property "content"`},
		{"write", `{"content":"x"}`, `invalid arguments for tool "write": missing property "path"`},
		{"write", `{"path":"a","content":42}`, `invalid arguments for tool "write": /content: expected string, got number`},
		{"write", `{"path":"a","content":"x","mode":"0644"}`, `invalid arguments for tool "write": unknown property "mode"`},
		{"write", `{"path":"a","content":"x","path":"b"}`, `invalid arguments for tool "write": key "path" appears twice in one object`},

		{"edit", `{"path":"a","edits":[{"oldText":"x","newText":"y"}]}`, ""},
		{"edit", `{"path":"a","oldText":"x","newText":"y"}`, ""},
		{"edit", `{"path":"a","edits":[{"oldText":"x","newText":"y"}],"oldText":"p","newText":"q"}`, ""},
		{"edit", `{"edits":[{"oldText":"x","newText":"y"}]}`, `invalid arguments for tool "edit": missing property "path"`},
		{"edit", `{"path":"a","edits":[{"oldText":"x"}]}`, `invalid arguments for tool "edit": /edits/0: missing property "newText"`},
		{"edit", `{"path":"a","edits":[]}`, `invalid arguments for tool "edit": /edits: must have at least 1 item(s), got 0`},
		{"edit", `{"path":"a","edits":"[{\"oldText\":\"x\",\"newText\":\"y\"}]"}`, `invalid arguments for tool "edit": /edits: expected array, got string`},
		{"edit", `{"path":"a","edits":[{"oldText":"x","newText":"y","replaceAll":true}]}`, `invalid arguments for tool "edit": /edits/0: unknown property "replaceAll"`},
		{"edit", `{"path":"a","edits":[{"oldText":"x","newText":"y"}],"dryRun":true}`, `invalid arguments for tool "edit": unknown property "dryRun"`},
		{"edit", `{"path":"a","editſ":[{"oldText":"x","newText":"y"}]}`, `invalid arguments for tool "edit": unknown property "editſ" (property names are case-sensitive: "edits")`},
		{"edit", `{"path":"a","edits":[{"oldText":"x","newText":"y","OldText":"z"}]}`, `differ only by case`},
		{"edit", `{"path":"a","oldText":1,"newText":"y"}`, `invalid arguments for tool "edit": /oldText: expected string, got number`},

		{"bash", `{"command":"ls"}`, ""},
		{"bash", `{"command":"ls","timeout":0.5}`, ""},
		{"bash", `{"command":"ls","description":"list"}`, `invalid arguments for tool "bash": unknown property "description"`},
		{"bash", `{"command":"git status","Command":"touch pwned"}`, `invalid arguments for tool "bash": keys "command" and "Command" differ only by case`},
		{"bash", `{"command":"ls","\u212aey":1,"key":2}`, `differ only by case`},
		{"bash", `{}`, `invalid arguments for tool "bash": missing property "command"`},
		{"bash", `{"command":["ls","-l"]}`, `invalid arguments for tool "bash": /command: expected string, got array`},
		{"bash", `{"command":"ls","timeout":"10"}`, `invalid arguments for tool "bash": /timeout: expected number, got string`},
		{"bash", `{"command":"ls","timeout":0}`, `invalid arguments for tool "bash": /timeout: must be > 0, got 0`},
		{"bash", `{"command":"ls"`, `invalid arguments for tool "bash": not valid JSON`},
	}
	cwd := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			err := validate(t, builtin(t, tc.tool, cwd), tc.args)
			if tc.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}
