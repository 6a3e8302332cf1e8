package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/session"
)

// hookTools is a ToolProvider whose tools a test changes at will.
type hookTools struct {
	NopHooks
	tools []*Tool
}

func (h *hookTools) Tools() []*Tool { return h.tools }

func namedTool(name, source string) *Tool {
	return &Tool{Name: name, Description: name + " from " + source, Source: source,
		Parameters: json.RawMessage(`{"type":"object","properties":{}}`),
		Execute: func(context.Context, string, json.RawMessage, func(ToolResult)) (ToolResult, error) {
			return TextResult(name+"@"+source, false), nil
		}}
}

func toolNames(ts []*Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name+"@"+t.Source)
	}
	return out
}

func TestToolSetOverridesAndEnabling(t *testing.T) {
	var warnings []string
	rt, err := NewRuntime(RuntimeOptions{Model: Model{Provider: "p", ID: "m", API: APIOpenAICompletions},
		Tools: []*Tool{namedTool("read", ""), namedTool("bash", "")},
		Warn:  func(m string) { warnings = append(warnings, m) }}, session.CreateInMemory(t.TempDir()), false)
	require.NoError(t, err)
	h := &hookTools{}
	rt.SetHooks(h, nil)
	assert.Equal(t, []string{"read@", "bash@"}, toolNames(rt.Tools()))

	// a hook tool named like a built-in takes its place, once announced
	h.tools = []*Tool{namedTool("bash", "gate.lua"), namedTool("echo", "gate.lua"), namedTool("echo", "late.lua")}
	assert.Equal(t, []string{"read@", "bash@gate.lua", "echo@gate.lua"}, toolNames(rt.Tools()))
	rt.Tools()
	assert.Equal(t, []string{
		`hook tool "bash" (gate.lua) replaces the built-in tool`,
		`hook tool "echo" (late.lua) ignored: gate.lua registered a tool of that name first`,
	}, warnings)
	assert.Equal(t, "bash@", toolNames([]*Tool{rt.BuiltinTool("bash")})[0], "the built-in stays reachable")
	assert.Nil(t, rt.BuiltinTool("edit"))

	// disabling and enabling by name, for the next call
	require.NoError(t, rt.SetToolEnabled("bash", false))
	assert.Equal(t, []string{"read@", "echo@gate.lua"}, toolNames(rt.Tools()))
	list := rt.ToolList()
	require.Len(t, list, 3)
	assert.Equal(t, ToolInfo{Name: "bash", Description: "bash from gate.lua", Parameters: list[1].Parameters,
		Source: "gate.lua", Enabled: false, Replaces: true}, list[1])
	assert.Equal(t, SourceBuiltin, list[0].Source)
	require.NoError(t, rt.SetToolEnabled("bash", true))
	assert.Equal(t, []string{"read@", "bash@gate.lua", "echo@gate.lua"}, toolNames(rt.Tools()))

	require.NoError(t, rt.SetActiveTools([]string{"echo"}))
	assert.Equal(t, []string{"echo@gate.lua"}, toolNames(rt.Tools()))
	require.NoError(t, rt.SetActiveTools([]string{"read", "bash"}))
	assert.Equal(t, []string{"read@", "bash@gate.lua"}, toolNames(rt.Tools()))

	err = rt.SetToolEnabled("nope", false)
	assert.EqualError(t, err, `unknown tool "nope" (known: read, bash, echo)`)
	assert.Error(t, rt.SetActiveTools([]string{"read", "nope"}))
	assert.Equal(t, []string{"read@", "bash@gate.lua"}, toolNames(rt.Tools()), "a failed call changes nothing")

	// the override going away brings the built-in back
	h.tools = nil
	assert.Equal(t, []string{"read@", "bash@"}, toolNames(rt.Tools()))
}
