package main

// The differential test of --mode rpc against pi itself: one script
// (testdata/rpc_client.mjs) drives lunar and `pi --mode rpc` through pi's
// own RpcClient against the same fake server, and the two transcripts
// (each command's response, the events of each prompt, the answers to
// bad input) must be equal after normalisation, except for the
// differences rpcAccepted lists with their reasons. Skipped when pi is
// not installed.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// rpcTranscript is what rpc_client.mjs prints.
type rpcTranscript struct {
	Steps []struct {
		Name     string         `json:"name"`
		Response map[string]any `json:"response"`
	} `json:"steps"`
	Events [][]map[string]any `json:"events"`
	Stray  []map[string]any   `json:"stray"`
}

// runRPCClient runs rpc_client.mjs with cliPath.
func (h *piDiff) runRPCClient(dist, cliPath string, env []string, args ...string) rpcTranscript {
	t := h.t
	h.e.srv.Reply(llmtest.ToolCall("bash", `{"command": "echo from-the-tool"}`), llmtest.Usage(100, 10, 0, 0))
	h.e.srv.Reply(llmtest.Text("first answer"), llmtest.Usage(120, 5, 0, 0))
	h.e.srv.Reply(llmtest.Text("second answer"), llmtest.Usage(130, 5, 0, 0))
	h.e.srv.Reply(llmtest.ToolCall("bash", `{"command": "while [ ! -e gate ]; do sleep 0.02; done; rm gate; echo through"}`), llmtest.Usage(140, 10, 0, 0))
	h.e.srv.Reply(llmtest.Text("after the steer"), llmtest.Usage(150, 5, 0, 0))
	h.e.srv.Reply(llmtest.Text("after the follow-up"), llmtest.Usage(160, 5, 0, 0))
	h.e.srv.Reply(llmtest.Text("after the early steer"), llmtest.Usage(170, 5, 0, 0))
	h.e.srv.Reply(llmtest.Text("after the early follow-up"), llmtest.Usage(180, 5, 0, 0))
	script, err := filepath.Abs(filepath.Join("testdata", "rpc_client.mjs"))
	require.NoError(t, err)
	cmd := exec.Command("node", append([]string{script, dist, cliPath, h.e.cwd, piDiffProvider, piDiffModel}, args...)...)
	cmd.Dir = h.e.cwd
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "node %s %s\n%s", script, cliPath, stderr.String())
	var tr rpcTranscript
	require.NoError(t, json.Unmarshal(out, &tr), "%s", out)
	return tr
}

func TestPiRPCSameProtocol(t *testing.T) {
	t.Parallel()
	dist := filepath.Join(llmtest.PiDir(t), "dist")
	h := newPiDiff(t)
	shim, err := filepath.Abs(filepath.Join("testdata", "rpc_shim.mjs"))
	require.NoError(t, err)
	// A prompt template, for a follow-up queued expanded.
	writeFile(t, filepath.Join(h.e.home, "config", "prompts", "greet.md"), "Say hello to $@")
	writeFile(t, filepath.Join(h.dir, "prompts", "greet.md"), "Say hello to $@")
	lunarEnv := append(os.Environ(), "LUNAR_HOME="+h.e.home, "NO_COLOR=1", "LUNAR_BIN="+lunarBin)
	lunar := h.runRPCClient(dist, shim, lunarEnv, "--yes")
	pi := h.runRPCClient(dist, filepath.Join(dist, "cli.js"), h.env)

	require.Len(t, lunar.Steps, len(pi.Steps))
	for i := range pi.Steps {
		name := pi.Steps[i].Name
		require.Equal(t, name, lunar.Steps[i].Name)
		l, p := rpcNormal(lunar.Steps[i].Response), rpcNormal(pi.Steps[i].Response)
		if why, ok := rpcAccepted[name]; ok {
			t.Logf("%s differs on purpose: %s\n  lunar: %s\n  pi:    %s", name, why, rpcJSON(l), rpcJSON(p))
			assert.Equal(t, false, lunar.Steps[i].Response["success"], "%s: lunar answers with pi's error shape", name)
			assert.NotEmpty(t, lunar.Steps[i].Response["error"], name)
			continue
		}
		assert.Equal(t, rpcJSON(p), rpcJSON(l), "step %s", name)
	}
	require.Len(t, lunar.Events, len(pi.Events))
	for i := range pi.Events {
		assert.Equal(t, rpcTypes(pi.Events[i]), rpcTypes(lunar.Events[i]), "the events of prompt %d", i+1)
		assert.Equal(t, rpcJSON(rpcNormalEvents(pi.Events[i])), rpcJSON(rpcNormalEvents(lunar.Events[i])), "the events of prompt %d", i+1)
	}
	// The answers to bad input: pi's parse error quotes its own parser,
	// and pi answers an unknown command without the command's id (so that
	// its RpcClient would never see the answer); lunar keeps the id.
	require.Len(t, lunar.Stray, 2)
	require.Len(t, pi.Stray, 2)
	for _, tr := range []rpcTranscript{lunar, pi} {
		assert.True(t, strings.HasPrefix(tr.Stray[0]["error"].(string), "Failed to parse command: "), "%v", tr.Stray[0])
		tr.Stray[0]["error"] = "Failed to parse command: …"
		delete(tr.Stray[1], "id")
	}
	assert.Equal(t, rpcJSON(pi.Stray), rpcJSON(lunar.Stray), "the answers to bad input")
}

// rpcAccepted are the steps where lunar answers differently from pi on
// purpose, with the reason (docs/rpc.md lists them too).
var rpcAccepted = map[string]string{
	"set_auto_retry": "lunar has no auto-retry setting: its provider clients retry a failed request themselves " +
		"(LUNAR_MAX_RETRIES); pi's error shape says so",
	"abort_retry": "see set_auto_retry: abort stops a retrying request",
}

func rpcJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", " ")
	return string(b)
}

// rpcNormalEvents normalises events: a message_update keeps its stream
// event's type, index and text (pi's partial message carries the state
// of its own stream parser: partialArgs, streamIndex);
// tool_execution_update events are left out (how often a tool reports
// partial output is its own, and timing decides the chunks).
func rpcNormalEvents(evs []map[string]any) any {
	var out []any
	for _, ev := range evs {
		if ev["type"] == "tool_execution_update" {
			continue
		}
		if ev["type"] == "message_update" {
			se, _ := ev["assistantMessageEvent"].(map[string]any)
			small := map[string]any{}
			for _, k := range []string{"type", "contentIndex", "delta", "content"} {
				if v, ok := se[k]; ok {
					small[k] = v
				}
			}
			ev = map[string]any{"type": "message_update", "assistantMessageEvent": small}
		}
		out = append(out, rpcNormal(ev))
	}
	return out
}

// rpcNormal drops what differs from run to run: ids, times, paths.
func rpcNormal(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			switch k {
			case "timestamp", "sessionId", "sessionFile", "entryId", "id", "toolCallId", "responseId", "path", "fullOutputPath":
				out[k] = "…"
			default:
				out[k] = rpcNormal(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = rpcNormal(e)
		}
		return out
	}
	return v
}
