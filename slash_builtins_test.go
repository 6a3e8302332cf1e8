package main

// The built-in command table is the one list of names hooks may not
// shadow: the hook runtime gets it from the REPL (issue 28).

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/lua"
)

// TestHookRuntimeRefusesEveryBuiltin registers a hook command under every
// name of the REPL's table: each is refused with the shadowing warning, so
// the runtime's list and the REPL's agree, aliases included.
func TestHookRuntimeRefusesEveryBuiltin(t *testing.T) {
	var script strings.Builder
	for _, c := range builtinCommands {
		fmt.Fprintf(&script, "lunar.command(%q, {handler = function() end})\n", c.name)
	}
	file := filepath.Join(t.TempDir(), "shadow.lua")
	require.NoError(t, os.WriteFile(file, []byte(script.String()), 0o600))
	src, err := lua.FileSource(file, lua.OriginGlobal)
	require.NoError(t, err)
	var reps []string
	rt := lua.Load([]lua.Source{src}, lua.Options{Builtins: builtinNames(), Report: func(m string) { reps = append(reps, m) }})
	defer rt.Close()
	assert.Empty(t, rt.Commands())
	require.Len(t, reps, len(builtinCommands), strings.Join(reps, "\n"))
	for i, c := range builtinCommands {
		assert.Contains(t, reps[i], fmt.Sprintf("command /%s would shadow the built-in command: ignored", c.name))
	}
}

// TestHookShadowingExpandWarns is the drift the shared table fixes: the
// runtime's own list lacked /expand and /exit, so a hook's /expand loaded
// without a word and was then hidden by the built-in.
func TestHookShadowingExpandWarns(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("ok"))
	file := filepath.Join(t.TempDir(), "expand.lua")
	require.NoError(t, os.WriteFile(file, []byte(`lunar.command("expand", {handler = function() end})
lunar.command("exit", {handler = function() end})
`), 0o600))
	r := e.run("", "--hook", file, "-p", "hi")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "lunar: warning: expand.lua:1: command /expand would shadow the built-in command: ignored")
	assert.Contains(t, r.stderr, "lunar: warning: expand.lua:2: command /exit would shadow the built-in command: ignored")

	r = e.run("", "hooks", "check", file)
	assert.Contains(t, r.stdout+r.stderr, "command /expand would shadow the built-in command")
}
