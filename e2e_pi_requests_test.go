package main

// The differential test of requests against pi itself (the `pi` on PATH,
// @mariozechner/pi-coding-agent 0.73.1): session files written by pi's own
// SessionManager (testdata/pi_sessions.mjs: blank and several text
// blocks, string and array contents, images in user messages and tool
// results (e2e_pi_images_test.go sends them to a text-only model), other
// models' thinking and tool-call ids, signatures, lone surrogates,
// synthesised messages) are resumed by both agents with one more prompt
// against the same fake server, through an OpenAI-compatible and an
// Anthropic provider. The conversations must be equal, message by message
// and field by field; so must every other request field except the ones
// piAccepted lists, each with the reason lunar differs. Both agents must
// append the same entries to the file. Skipped when pi is not installed.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// The Anthropic provider of the test; the OpenAI-compatible one is
// piDiffProvider/piDiffModel.
const (
	piAntProvider = "llmtest-ant"
	piAntModel    = "llmtest-ant-model"
)

// piAccepted are the request fields besides messages where lunar differs
// from pi on purpose, by API, with the reason.
var piAccepted = map[string]map[string]string{
	llmtest.APIOpenAI: {
		"store": "sent to OpenAI only: chat completions do not store by default, and some compatible services " +
			"reject the field (pi sends it to every service it does not know as non-standard)",
		"max_tokens": "compatible services get max_tokens (Mistral, older llama.cpp and vLLM know no other); " +
			"OpenAI itself gets max_completion_tokens, as from pi",
		"max_completion_tokens": "see max_tokens",
		"tools":                 "tool definitions are lunar's own",
	},
	llmtest.APIAnthropic: {
		"max_tokens": "the model's max_tokens (pi: min(max_tokens, 32000)): the loop asks for the model's " +
			"limit; hooks may lower it",
		"system": "system prompts are lunar's own (both cache it)",
		"tools":  "tool definitions are lunar's own (both put the last tool's cache breakpoint)",
	},
}

// piDist returns the dist folder of the pi on PATH.
func piDist(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("pi")
	require.NoError(t, err)
	real, err := filepath.EvalSymlinks(bin)
	require.NoError(t, err)
	dist := filepath.Dir(real)
	_, err = os.Stat(filepath.Join(dist, "index.js"))
	require.NoError(t, err, "pi's dist folder next to its cli")
	return dist
}

// piSessionFiles writes the sessions of testdata/pi_sessions.mjs with
// pi's SessionManager into a temporary folder.
func piSessionFiles(t *testing.T, cwd string) []string {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("testdata", "pi_sessions.mjs"))
	require.NoError(t, err)
	dir := t.TempDir()
	out, err := exec.Command("node", script, piDist(t), dir, cwd).Output()
	require.NoError(t, err, "node %s", script)
	var files []string
	require.NoError(t, json.Unmarshal(out, &files), "%s", out)
	require.NotEmpty(t, files)
	return files
}

// newPiRequests is newPiDiff with both providers: the OpenAI-compatible
// one and an Anthropic one, both taking images.
func newPiRequests(t *testing.T) *piDiff {
	return newPiRequestsInput(t, `["text", "image"]`)
}

// newPiRequestsInput is newPiRequests with models taking input (a JSON
// array), or, when input is "", what both agents take by default for a
// custom model (text only).
func newPiRequestsInput(t *testing.T, input string) *piDiff {
	h := newPiDiff(t)
	srv := h.e.srv
	lunarIn, piIn := "", ""
	if input != "" {
		lunarIn, piIn = `, "input": `+input, `, "input": `+input
	}
	h.e.hkConfig(fmt.Sprintf(`{"providers": {
 %q: {"base_url": %q, "api_key": "sk-test", "models": [{"id": %q, "context_window": 128000%s}]},
 %q: {"api": "anthropic-messages", "base_url": %q, "api_key": "sk-test", "models": [{"id": %q, "context_window": 128000%s}]}}}`,
		piDiffProvider, srv.URL(), piDiffModel, lunarIn, piAntProvider, srv.RootURL(), piAntModel, lunarIn))
	writeFile(t, filepath.Join(h.dir, "models.json"), fmt.Sprintf(`{"providers": {
 %q: {"baseUrl": %q, "api": "openai-completions", "apiKey": "sk-test", "models": [{"id": %q, "contextWindow": 128000%s}]},
 %q: {"baseUrl": %q, "api": "anthropic-messages", "apiKey": "sk-test", "models": [{"id": %q, "contextWindow": 128000%s}]}}}`,
		piDiffProvider, srv.URL(), piDiffModel, piIn, piAntProvider, srv.RootURL(), piAntModel, piIn))
	return h
}

// TestPiSameRequests resumes each of pi's session files with both agents
// and compares the two requests.
func TestPiSameRequests(t *testing.T) {
	t.Parallel()
	h := newPiRequests(t)
	for _, file := range piSessionFiles(t, h.e.cwd) {
		name := strings.TrimSuffix(filepath.Base(file), ".jsonl")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// A server and homes of its own, in the folder the sessions name.
			sub := newPiRequests(t)
			sub.e.cwd = h.e.cwd
			sub.compareRequests(file)
		})
	}
}

// compareRequests sends "next" on copies of file with lunar and with pi
// and compares what they sent and what they appended.
func (h *piDiff) compareRequests(file string) {
	t := h.t
	orig, err := os.ReadFile(file)
	require.NoError(t, err)
	lunarFile := h.copyFile(file, "lunar.jsonl")
	piFile := h.copyFile(file, "pi.jsonl")
	srv := h.e.srv

	n := len(srv.Requests())
	srv.Reply(llmtest.Text("the reply"))
	r := h.lunar("--session", lunarFile, "-p", "next")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "the reply\n", r.stdout)
	assert.Empty(t, r.stderr, "lunar opens the file without a word")
	require.Len(t, srv.Requests(), n+1, "lunar makes one request")
	lreq := srv.Requests()[n]

	srv.Reply(llmtest.Text("the reply"))
	r = h.pi("--session", piFile, "-p", "next")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "the reply\n", r.stdout)
	require.Len(t, srv.Requests(), n+2, "pi makes one request")
	preq := srv.Requests()[n+1]
	require.Equal(t, preq.API, lreq.API, "the same API")

	// The conversation: every message, every field.
	lsys, lmsgs := piWireMessages(t, lreq)
	psys, pmsgs := piWireMessages(t, preq)
	require.Equal(t, len(pmsgs), len(lmsgs), "as many messages as pi\nlunar %s\npi    %s", lreq.Body, preq.Body)
	for i := range pmsgs {
		assert.Equal(t, pmsgs[i], lmsgs[i], "message %d: pi's (expected) and lunar's (actual)", i)
	}
	if lsys != psys {
		t.Logf("system prompts differ (accepted: lunar's own): lunar %d chars, pi %d", len(lsys), len(psys))
	}
	// The other fields.
	accepted := piAccepted[lreq.API]
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range piDiffUnion(lreq.JSON, preq.JSON) {
			if !yield(k) {
				return
			}
		}
	}) {
		if k == "messages" {
			continue
		}
		lv, _ := json.Marshal(lreq.JSON[k])
		pv, _ := json.Marshal(preq.JSON[k])
		if bytes.Equal(lv, pv) {
			continue
		}
		if why, ok := accepted[k]; ok {
			t.Logf("accepted: %s: lunar %.200s, pi %.200s (%s)", k, lv, pv, why)
			continue
		}
		assert.Fail(t, "a request field differs from pi's", "%s: lunar %s, pi %s", k, lv, pv)
	}
	// The bodies are valid for the API: the SDKs' own types decode them.
	piCheckSDKDecodes(t, lreq)

	// Both only appended, and the same kinds of entry: the thinking level
	// the path lacked, the prompt, the reply.
	var appended [2][]string
	for i, f := range []string{lunarFile, piFile} {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		require.True(t, bytes.HasPrefix(data, orig), "%s: the file is only appended to", filepath.Base(f))
		s, err := session.Load(f)
		require.NoError(t, err)
		for _, e := range s.Entries()[len(s.Entries())-3:] {
			kind := e.Type
			switch {
			case e.Type == session.TypeThinkingLevelChange:
				kind += ":" + e.ThinkingLevel()
			case e.Message != nil:
				kind += ":" + e.Message.Role
			}
			appended[i] = append(appended[i], kind)
		}
	}
	assert.Equal(t, []string{"thinking_level_change:off", "message:user", "message:assistant"}, appended[1], "pi appends")
	assert.Equal(t, appended[1], appended[0], "lunar appends what pi appends")
}

// piWireMessages decodes a request's conversation: its system prompt and
// its other messages as generic JSON values, compared whole.
func piWireMessages(t *testing.T, r llmtest.Request) (system string, msgs []any) {
	t.Helper()
	var body struct {
		Messages []any            `json:"messages"`
		System   []map[string]any `json:"system"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &body))
	msgs = body.Messages
	if r.API == llmtest.APIOpenAI && len(msgs) > 0 {
		if m, _ := msgs[0].(map[string]any); m["role"] == "system" || m["role"] == "developer" {
			system, _ = m["content"].(string)
			msgs = msgs[1:]
		}
	}
	for _, b := range body.System {
		s, _ := b["text"].(string)
		system += s
	}
	return system, msgs
}

// piCheckSDKDecodes checks a request body lunar sent is what the SDK's
// own request type of its API reads: it decodes, and encoding it again
// keeps every message with its role and number of content parts (the
// converter tests in agent/body_test.go compare the fields one by one).
func piCheckSDKDecodes(t *testing.T, r llmtest.Request) {
	t.Helper()
	var again []byte
	var err error
	if r.API == llmtest.APIAnthropic {
		var p anthropic.MessageNewParams
		require.NoError(t, json.Unmarshal(r.Body, &p), "anthropic.MessageNewParams decodes lunar's body")
		again, err = json.Marshal(p)
	} else {
		var p openai.ChatCompletionNewParams
		require.NoError(t, json.Unmarshal(r.Body, &p), "openai.ChatCompletionNewParams decodes lunar's body")
		again, err = json.Marshal(p)
	}
	require.NoError(t, err)
	shape := func(body []byte) []string {
		var v struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		require.NoError(t, json.Unmarshal(body, &v))
		var out []string
		for _, m := range v.Messages {
			var parts []any
			n := 1
			if json.Unmarshal(m.Content, &parts) == nil {
				n = len(parts)
			} else if len(m.Content) == 0 || string(m.Content) == "null" {
				n = 0
			}
			out = append(out, fmt.Sprintf("%s/%d", m.Role, n))
		}
		return out
	}
	assert.Equal(t, shape(r.Body), shape(again), "the SDK's types keep every message")
}
