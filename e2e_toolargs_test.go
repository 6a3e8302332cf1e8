// End-to-end tests of how tool-call arguments are decoded: the permission
// policy judges exactly the value the tool runs with. A key twice, or in
// another case ("Command" beside "command": the policy read one, the
// tool, through encoding/json, the other) is an error result for the
// model, and nothing runs.
package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// TestToolArgsOneReadingOneShot: under allow rules that cover only the
// value the policy reads, a second spelling of the key never runs.
func TestToolArgsOneReadingOneShot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, tool, args string
		wantErr          string
	}{
		{"bash Command", "bash", `{"command":"git status","Command":"echo pwned > pwned.txt"}`,
			`invalid arguments for tool "bash": keys "command" and "Command" differ only by case`},
		{"bash command twice", "bash", `{"command":"git status","command":"echo pwned > pwned.txt"}`,
			`invalid arguments for tool "bash": key "command" appears twice in one object`},
		{"bash Command alone", "bash", `{"Command":"echo pwned > pwned.txt","command":"git status"}`,
			`differ only by case`},
		{"write Path", "write", `{"path":"docs/ok.txt","content":"pwned","Path":"pwned.txt"}`,
			`invalid arguments for tool "write": keys "path" and "Path" differ only by case`},
		{"write PATH alone", "write", `{"PATH":"pwned.txt","content":"pwned"}`,
			`unknown property "PATH" (property names are case-sensitive: "path")`},
		{"read Path", "read", `{"path":"public.txt","Path":"secret.txt"}`,
			`invalid arguments for tool "read": keys "path" and "Path" differ only by case`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newE2E(t)
			e.ask = true
			e.hkConfig(`{"permissions": {"allow": ["bash: git status *", "write: docs/*"], "deny": ["read: secret*"]}}`)
			writeFile(t, filepath.Join(e.cwd, "public.txt"), "public\n")
			writeFile(t, filepath.Join(e.cwd, "secret.txt"), "the secret\n")
			e.srv.Reply(llmtest.ToolCall(tc.tool, tc.args))
			e.srv.Reply(llmtest.Text("done"))
			r := e.run("", "-p", "go")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, "<missing>", e.file("pwned.txt"), "the second spelling never ran")
			assert.Equal(t, "<missing>", e.file("docs/ok.txt"), "nor the first")
			results := toolResults(t, e.onlySession())
			require.Len(t, results, 1)
			assert.True(t, strings.HasPrefix(results[0], "true "), results[0])
			assert.Contains(t, results[0], tc.wantErr)
			assert.NotContains(t, results[0], "the secret")
			assert.NotContains(t, results[0], "Permission denied", "refused before the policy is asked")
		})
	}
}

// TestREPLDialogShowsWhatRuns: in the REPL, a call with a second
// spelling of "command" gets no dialog (it showed the first and ran the
// second); the next call's dialog shows the command that runs.
func TestREPLDialogShowsWhatRuns(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.ask = true
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo shown","Command":"touch pwned.txt"}`))
	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"touch second.txt"}`))
	e.srv.Reply(llmtest.Text("all done"))
	p := e.start()
	p.line("go")
	p.expect(`keys "command" and "Command" differ only by case`)
	p.expect("Allow this bash command?")
	p.expect("  $ touch second.txt")
	p.expect("choose 1-3")
	p.line("1")
	p.expect("all done")
	p.quit()

	assert.NotContains(t, p.output(), "$ echo shown", "no dialog for the refused call")
	assert.NoFileExists(t, filepath.Join(e.cwd, "pwned.txt"))
	assert.FileExists(t, filepath.Join(e.cwd, "second.txt"))
}
