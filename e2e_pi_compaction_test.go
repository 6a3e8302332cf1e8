package main

// The differential end-to-end test against pi itself (the `pi` on PATH,
// @mariozechner/pi-coding-agent 0.73.1): a session that holds two
// compactions (the first cuts inside a turn, at an assistant message; the
// second updates the first and cuts at a user message), built once by
// lunar through its binary and once by pi in RPC mode, is resumed by both
// with one more prompt against the same fake LLM server, and the two
// requests must carry the same conversation; the summary requests of the
// two builds must serialise the same conversation too. System prompts,
// tools, the prompts' wording and the other request fields may differ:
// they are logged, not checked. Skipped when pi is not installed (CI has
// no npm).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// Both agents talk to the fake server as this custom provider and model.
const (
	piDiffProvider = "llmtest"
	piDiffModel    = "llmtest-model"
	piDiffKeep     = 300 // keep_recent_tokens on both sides
)

// piDiffStep is one step of the scripted session: a turn in which the
// model runs each bash command (one reply per call) and then answers, or,
// when summary is set, a manual compaction whose summary calls all get
// summary.
type piDiffStep struct {
	prompt  string
	bash    []string
	answer  string
	summary string
}

// piDiffScript is the session both agents build. Token estimates
// (chars/4) with keepRecentTokens 300: the first compaction reaches the
// budget at the output of `seq 1 400` (373 tokens) and cuts at the next
// assistant message, the `echo hi` call (a split turn); the second reaches
// it at t4's long prompt and cuts there.
var piDiffScript = []piDiffStep{
	{prompt: "t1: count to 100", bash: []string{"seq 1 100"}, answer: "t1 done"},
	{prompt: "t2: count to 200", bash: []string{"seq 1 200"}, answer: "t2 done"},
	{prompt: "t3: count to 400, then say hi", bash: []string{"seq 1 400", "echo hi"}, answer: "t3 done"},
	{summary: "## Goal\nCount for the user.\n\n## Progress\n- [x] counted to 200"},
	{prompt: "t4: " + strings.Repeat("a long request with many words ", 30), answer: "t4 done"},
	{prompt: "t5: count to 150", bash: []string{"seq 1 150"}, answer: "t5 done"},
	{summary: "## Goal\nCount for the user, updated.\n\n## Progress\n- [x] counted to 400 and said hi"},
	{prompt: "t6: what is next?", answer: "t6 done"},
	{prompt: "t7: print a marker", bash: []string{"echo t7-marker"}, answer: "t7 done"},
}

// piDiff is one test's pair of installations, lunar's and pi's, sharing a
// working folder and the fake server.
type piDiff struct {
	t   *testing.T
	e   *e2e
	dir string // pi's $PI_CODING_AGENT_DIR
	env []string
	// reported is set once the differences the files do not decide
	// (system prompt, tools, request fields) have been logged.
	reported *bool
	copies   string // where copyFile copies to; "": a temporary folder of h.t
}

// newPiDiff sets up lunar and pi against one fake server as the custom
// provider piDiffProvider, both keeping piDiffKeep tokens when they
// compact; it skips the test when pi is not installed.
func newPiDiff(t *testing.T) *piDiff {
	t.Helper()
	if _, err := exec.LookPath("pi"); err != nil {
		t.Skip("pi is not on PATH (npm i -g @mariozechner/pi-coding-agent@0.73.1)")
	}
	e := newE2E(t)
	h := &piDiff{t: t, e: e, dir: t.TempDir(), reported: new(bool)}
	e.hkConfig(fmt.Sprintf(`{"compaction": {"keep_recent_tokens": %d},
 "providers": {%q: {"base_url": %q, "api_key": "sk-test", "models": [{"id": %q, "context_window": 128000}]}}}`,
		piDiffKeep, piDiffProvider, e.srv.URL(), piDiffModel))
	writeFile(t, filepath.Join(h.dir, "models.json"), fmt.Sprintf(`{"providers": {%q: {"baseUrl": %q, "api": "openai-completions", "apiKey": "sk-test",
 "models": [{"id": %q, "contextWindow": 128000}]}}}`, piDiffProvider, e.srv.URL(), piDiffModel))
	writeFile(t, filepath.Join(h.dir, "settings.json"), fmt.Sprintf(`{"compaction": {"keepRecentTokens": %d}}`, piDiffKeep))
	// A home of its own keeps the user's ~/.pi out; offline, pi checks no
	// versions and sends no telemetry.
	h.env = append(os.Environ(), "PI_CODING_AGENT_DIR="+h.dir, "HOME="+t.TempDir(),
		"PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0", "NO_COLOR=1")
	return h
}

// piCmd is pi run with args in the shared working folder.
func (h *piDiff) piCmd(args ...string) *exec.Cmd {
	cmd := exec.Command("pi", args...)
	cmd.Dir = h.e.cwd
	cmd.Env = h.env
	return cmd
}

// pi runs pi to the end.
func (h *piDiff) pi(args ...string) result {
	h.t.Helper()
	h.t.Logf("$ pi %s", strings.Join(args, " "))
	return h.e.exec(h.piCmd(args...))
}

// lunar runs lunar with exactly args: no model flags, so a resumed session
// keeps the model it names.
func (h *piDiff) lunar(args ...string) result {
	h.t.Helper()
	return h.e.runBare(nil, append([]string{"--yes"}, args...)...) // the script runs bash
}

// queueTurn queues the model's replies of one turn.
func (h *piDiff) queueTurn(st piDiffStep) {
	for _, c := range st.bash {
		args, err := json.Marshal(map[string]string{"command": c})
		require.NoError(h.t, err)
		h.e.srv.Reply(llmtest.ToolCall("bash", string(args)))
	}
	h.e.srv.Reply(llmtest.Text(st.answer))
}

// compacting serves summary to every request made while do runs (two for
// a split turn, in either order) and returns those requests.
func (h *piDiff) compacting(summary string, do func()) []llmtest.Request {
	h.t.Helper()
	require.Zero(h.t, h.e.srv.Pending(), "no turn reply left queued")
	n := len(h.e.srv.Requests())
	h.e.srv.SetDefault(llmtest.Text(summary))
	do()
	h.e.srv.SetDefault()
	return h.e.srv.Requests()[n:]
}

// copyFile copies a session file into a fresh temporary folder as name.
func (h *piDiff) copyFile(from, name string) string {
	h.t.Helper()
	data, err := os.ReadFile(from)
	require.NoError(h.t, err)
	dir := h.copies
	if dir == "" {
		dir = h.t.TempDir()
	}
	to := filepath.Join(dir, name)
	require.NoError(h.t, os.WriteFile(to, data, 0o644))
	return to
}

// piDiffBuild is what building the script left: the session file, a copy
// taken right after the first compaction, and the summary requests of each
// compaction.
type piDiffBuild struct {
	file, afterFirst string
	summaries        [][]llmtest.Request
}

// buildWithLunar runs the script through the lunar binary.
func (h *piDiff) buildWithLunar() (b piDiffBuild) {
	t := h.t
	for i, st := range piDiffScript {
		if st.summary != "" {
			b.summaries = append(b.summaries, h.compacting(st.summary, func() {
				r := h.lunar("-c", "-p", "/compact")
				require.Equal(t, 0, r.code, r.stderr)
				assert.Contains(t, r.stderr, "compacted:")
			}))
			if b.afterFirst == "" {
				b.afterFirst = h.copyFile(h.e.onlySession().File(), "lunar-after-first.jsonl")
			}
			continue
		}
		h.queueTurn(st)
		args := []string{"-c", "-p", st.prompt}
		if i == 0 {
			args = []string{"--model", piDiffProvider + "/" + piDiffModel, "-p", st.prompt}
		}
		r := h.lunar(args...)
		require.Equal(t, 0, r.code, r.stderr)
		require.Equal(t, st.answer+"\n", r.stdout)
	}
	b.file = h.e.onlySession().File()
	return b
}

// buildWithPi runs the script through one pi process in RPC mode (pi has
// /compact in interactive mode only).
func (h *piDiff) buildWithPi() (b piDiffBuild) {
	t := h.t
	rpc := h.startRPC("--mode", "rpc", "--model", piDiffProvider+"/"+piDiffModel)
	for _, st := range piDiffScript {
		if st.summary != "" {
			b.summaries = append(b.summaries, h.compacting(st.summary, func() {
				res := rpc.call(map[string]any{"type": "compact"})
				require.Equal(t, true, res["success"], "compact: %v", res["error"])
			}))
			if b.afterFirst == "" {
				b.afterFirst = h.copyFile(rpc.sessionFile(), "pi-after-first.jsonl")
			}
			continue
		}
		h.queueTurn(st)
		rpc.prompt(st.prompt)
		require.Zero(t, h.e.srv.Pending(), "pi used every reply of the turn")
	}
	b.file = rpc.sessionFile()
	rpc.close()
	return b
}

// checkBuild checks the session has the two compactions the script aims
// at: the first splits t3 (its first kept entry is the assistant message
// calling `echo hi`; two summary calls, merged as pi merges them), the
// second updates the first summary and keeps from t4's prompt on.
func (h *piDiff) checkBuild(t *testing.T, b piDiffBuild) {
	s, err := session.Load(b.file)
	require.NoError(t, err)
	assert.Empty(t, s.Warnings(), "lunar loads %s without warnings", filepath.Base(b.file))
	cs := compactions(s)
	require.Len(t, cs, 2)
	require.Len(t, b.summaries, 2)

	first := s.Get(cs[0].FirstKeptEntryID())
	require.NotNil(t, first)
	require.NotNil(t, first.Message)
	assert.Equal(t, session.RoleAssistant, first.Message.Role, "the first compaction splits a turn")
	require.NotEmpty(t, first.Message.Content)
	assert.Equal(t, `{"command":"echo hi"}`, string(first.Message.Content[0].Arguments))
	sum := piDiffScript[3].summary
	assert.Equal(t, sum+"\n\n---\n\n**Turn Context (split turn):**\n\n"+sum, cs[0].Summary())
	assert.Len(t, b.summaries[0], 2, "history and turn prefix are summarised apart")
	assert.False(t, cs[0].FromHook())

	second := s.Get(cs[1].FirstKeptEntryID())
	require.NotNil(t, second)
	require.NotNil(t, second.Message)
	assert.Equal(t, session.RoleUser, second.Message.Role)
	assert.True(t, strings.HasPrefix(second.Message.Text(), "t4: "), second.Message.Text())
	assert.Equal(t, piDiffScript[6].summary, cs[1].Summary())
	require.Len(t, b.summaries[1], 1)
	assert.Contains(t, lastUserText(t, b.summaries[1][0]), "<previous-summary>\n"+cs[0].Summary()+"\n</previous-summary>",
		"the second compaction updates the first summary")
}

// TestPiCompactions builds the script with lunar and with pi, each
// against its own fake server: lunar's file opens in pi without a word on
// stderr and pi's in lunar without warnings, and on either file both send
// the same conversation; both ask for the same summaries.
func TestPiCompactions(t *testing.T) {
	t.Parallel()
	lh, ph := newPiDiff(t), newPiDiff(t)
	var lb, pb piDiffBuild
	// The two builds (a server each) run side by side; their copies
	// outlive them.
	keep := t.TempDir()
	if !t.Run("build", func(t *testing.T) {
		t.Run("lunar", func(t *testing.T) {
			t.Parallel()
			h := lh.in(t)
			h.copies = keep
			lb = h.buildWithLunar()
		})
		t.Run("pi", func(t *testing.T) {
			t.Parallel()
			h := ph.in(t)
			h.copies = keep
			pb = h.buildWithPi()
		})
	}) {
		t.FailNow()
	}

	// Each file is checked on the server of its build, side by side.
	t.Run("lunar writes", func(t *testing.T) {
		t.Parallel()
		lh.checkBuild(t, lb)
		t.Run("split turn kept", func(t *testing.T) { lh.in(t).compareNext(lb.afterFirst) })
		t.Run("after two compactions", func(t *testing.T) { lh.in(t).compareNext(lb.file) })
	})
	t.Run("pi writes", func(t *testing.T) {
		t.Parallel()
		ph.checkBuild(t, pb)
		t.Run("split turn kept", func(t *testing.T) { ph.in(t).compareNext(pb.afterFirst) })
		t.Run("after two compactions", func(t *testing.T) { ph.in(t).compareNext(pb.file) })
	})
	// The two builds made the same requests in the same order, so even the
	// tool call ids agree. The prompts' wording is lunar's own
	// (agent/compaction/prompts.go), their headings are pi's.
	t.Run("summary requests", func(t *testing.T) {
		require.Len(t, lb.summaries, len(pb.summaries))
		for i := range lb.summaries {
			l, p := piDiffSummaryCalls(t, lb.summaries[i]), piDiffSummaryCalls(t, pb.summaries[i])
			assert.Equal(t, p, l, "compaction %d: pi's summary requests (expected) and lunar's (actual)", i+1)
		}
		lsys, _, _ := piDiffWire(t, lb.summaries[0][0])
		psys, _, _ := piDiffWire(t, pb.summaries[0][0])
		t.Logf("summary system prompt:\n  lunar %q\n  pi    %q", lsys, psys)
	})
}

// piDiffSummary is what a summary request must share with pi's: the
// serialised conversation, the previous summary, the headings the prompt
// asks for and the output budget (max_tokens or max_completion_tokens).
type piDiffSummary struct {
	Conversation string
	Previous     string
	Headings     []string
	MaxTokens    any
}

// piDiffSummaryCalls reduces summary requests (one user message each) to
// what they share with pi's, sorted: the two calls of a split turn run in
// parallel.
func piDiffSummaryCalls(t *testing.T, reqs []llmtest.Request) []piDiffSummary {
	var out []piDiffSummary
	for _, r := range reqs {
		_, msgs, _ := piDiffWire(t, r)
		require.Len(t, msgs, 1)
		require.Equal(t, "user", msgs[0].Role)
		text := strings.Join(msgs[0].Texts, "")
		sum := piDiffSummary{MaxTokens: r.JSON["max_tokens"]}
		if sum.MaxTokens == nil {
			sum.MaxTokens = r.JSON["max_completion_tokens"]
		}
		var ok bool
		sum.Conversation, text, ok = piDiffCut(text, "<conversation>\n", "\n</conversation>\n\n")
		require.True(t, ok, "a <conversation> block: %s", text)
		sum.Previous, text, _ = piDiffCut(text, "<previous-summary>\n", "\n</previous-summary>\n\n")
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "#") {
				sum.Headings = append(sum.Headings, line)
			}
		}
		out = append(out, sum)
	}
	slices.SortFunc(out, func(a, b piDiffSummary) int { return strings.Compare(a.Conversation, b.Conversation) })
	return out
}

// piDiffCut returns what lies between open and close at the start of s,
// and the rest of s after close.
func piDiffCut(s, open, close string) (inside, rest string, ok bool) {
	after, found := strings.CutPrefix(s, open)
	if !found {
		return "", s, false
	}
	inside, rest, ok = strings.Cut(after, close)
	if !ok {
		return "", s, false
	}
	return inside, rest, true
}

// in returns h for the subtest t (same installations and server).
func (h *piDiff) in(t *testing.T) *piDiff {
	e := *h.e
	e.t = t
	c := *h
	c.t, c.e = t, &e
	return &c
}

// compareNext sends "next" on copies of file with lunar and with pi and
// compares the two requests. What may differ (content forms, system
// prompts, tools, other request fields) is logged.
func (h *piDiff) compareNext(file string) {
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
	assert.Empty(t, r.stderr, "lunar opens the file without warnings")
	require.Len(t, srv.Requests(), n+1, "lunar makes one request")
	lreq := srv.Requests()[n]

	srv.Reply(llmtest.Text("the reply"))
	r = h.pi("--session", piFile, "-p", "next")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "the reply\n", r.stdout)
	assert.Empty(t, r.stderr, "pi opens the file without warnings")
	require.Len(t, srv.Requests(), n+2, "pi makes one request")
	preq := srv.Requests()[n+1]

	for _, f := range []string{lunarFile, piFile} {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.True(t, bytes.HasPrefix(data, orig), "%s: the file is only appended to", filepath.Base(f))
	}

	lsys, lmsgs, lforms := piDiffWire(t, lreq)
	psys, pmsgs, pforms := piDiffWire(t, preq)
	assert.Equal(t, pmsgs, lmsgs, "the conversation pi sends (expected) and lunar's (actual)")

	// The conversation is the latest summary, the kept entries from
	// firstKeptEntryId on and everything after the compaction, then "next".
	s, err := session.Load(file)
	require.NoError(t, err)
	cs := compactions(s)
	require.NotEmpty(t, cs)
	last := cs[len(cs)-1]
	var kept []*session.Message
	on := false
	for _, e := range s.Entries() {
		on = on || e.ID == last.FirstKeptEntryID()
		if on && e.Type == session.TypeMessage {
			kept = append(kept, e.Message)
		}
	}
	require.Len(t, lmsgs, 1+len(kept)+1)
	assert.Equal(t, piDiffWireMsg{Role: "user", Texts: []string{compactedPrefix + last.Summary() + "\n</summary>"}}, lmsgs[0])
	for i, m := range kept {
		want := map[string]string{session.RoleUser: "user", session.RoleAssistant: "assistant", session.RoleToolResult: "tool"}[m.Role]
		assert.Equal(t, want, lmsgs[1+i].Role, "message %d", 1+i)
	}
	assert.Equal(t, piDiffWireMsg{Role: "user", Texts: []string{"next"}}, lmsgs[len(lmsgs)-1])

	// Reported, not checked: the content's form, the system prompt, the
	// tools and the other request fields.
	if !slices.Equal(lforms, pforms) {
		t.Logf("content forms differ:\n  lunar %v\n  pi    %v", lforms, pforms)
	}
	if *h.reported {
		return
	}
	*h.reported = true
	if lsys == psys {
		t.Logf("system prompts are identical")
	} else {
		t.Logf("system prompts differ (lunar %d chars, pi %d):\n%s", len(lsys), len(psys), piDiffLines(lsys, psys))
	}
	t.Log(piDiffTools(lreq, preq))
	t.Log(piDiffFields(lreq, preq))
}

// piDiffWireMsg is one message of an OpenAI chat request, reduced to what
// both agents must agree on.
type piDiffWireMsg struct {
	Role       string   `json:"role"`
	Texts      []string `json:"texts,omitempty"`     // the text of each content part
	ToolCalls  []string `json:"toolCalls,omitempty"` // "id name arguments"
	ToolCallID string   `json:"toolCallId,omitempty"`
}

// piDiffWire decodes a request: the system prompt, the other messages and
// each message's content form ("string", "parts", "null" or "absent").
func piDiffWire(t *testing.T, r llmtest.Request) (system string, msgs []piDiffWireMsg, forms []string) {
	t.Helper()
	var body struct {
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &body))
	require.NotEmpty(t, body.Messages)
	for i, m := range body.Messages {
		w := piDiffWireMsg{Role: m.Role, ToolCallID: m.ToolCallID}
		var s string
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		form := "absent"
		switch {
		case len(m.Content) == 0:
		case string(m.Content) == "null":
			form = "null"
		case json.Unmarshal(m.Content, &s) == nil:
			form, w.Texts = "string", []string{s}
		default:
			require.NoError(t, json.Unmarshal(m.Content, &parts), string(m.Content))
			form = "parts"
			for _, p := range parts {
				if p.Type != "text" {
					p.Text = "<" + p.Type + ">"
				}
				w.Texts = append(w.Texts, p.Text)
			}
		}
		for _, c := range m.ToolCalls {
			w.ToolCalls = append(w.ToolCalls, c.ID+" "+c.Function.Name+" "+c.Function.Arguments)
		}
		if i == 0 && (m.Role == "system" || m.Role == "developer") {
			system = s
			continue
		}
		msgs = append(msgs, w)
		forms = append(forms, m.Role+":"+form)
	}
	return system, msgs, forms
}

// piDiffLines lists the lines only in a (-) or only in b (+).
func piDiffLines(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out strings.Builder
	for _, l := range al {
		if !slices.Contains(bl, l) {
			fmt.Fprintf(&out, "  - lunar | %s\n", l)
		}
	}
	for _, l := range bl {
		if !slices.Contains(al, l) {
			fmt.Fprintf(&out, "  + pi    | %s\n", l)
		}
	}
	return out.String()
}

// piDiffTools reports how the two requests' tool lists differ.
func piDiffTools(lreq, preq llmtest.Request) string {
	tools := func(r llmtest.Request) map[string]any {
		m := map[string]any{}
		list, _ := r.JSON["tools"].([]any)
		for _, t := range list {
			fn, _ := t.(map[string]any)["function"].(map[string]any)
			name, _ := fn["name"].(string)
			m[name] = fn
		}
		return m
	}
	lt, pt := tools(lreq), tools(preq)
	ln, pn := slices.Sorted(maps.Keys(lt)), slices.Sorted(maps.Keys(pt))
	var out strings.Builder
	fmt.Fprintf(&out, "tools: lunar %v, pi %v\n", ln, pn)
	for _, name := range ln {
		p, ok := pt[name]
		if !ok {
			continue
		}
		l := lt[name].(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(piDiffUnion(l, p.(map[string]any)))) {
			lv, _ := json.Marshal(l[k])
			pv, _ := json.Marshal(p.(map[string]any)[k])
			if !bytes.Equal(lv, pv) {
				fmt.Fprintf(&out, "  %s.%s:\n    lunar %s\n    pi    %s\n", name, k, lv, pv)
			}
		}
	}
	return out.String()
}

// piDiffFields reports the top-level request fields (besides messages and
// tools) that differ.
func piDiffFields(lreq, preq llmtest.Request) string {
	var out strings.Builder
	out.WriteString("request fields:\n")
	for _, k := range slices.Sorted(maps.Keys(piDiffUnion(lreq.JSON, preq.JSON))) {
		if k == "messages" || k == "tools" {
			continue
		}
		lv, _ := json.Marshal(lreq.JSON[k])
		pv, _ := json.Marshal(preq.JSON[k])
		mark := "same"
		if !bytes.Equal(lv, pv) {
			mark = "DIFF"
		}
		fmt.Fprintf(&out, "  %s %s: lunar %s, pi %s\n", mark, k, lv, pv)
	}
	return out.String()
}

// piDiffUnion is the set of keys of a and b.
func piDiffUnion(a, b map[string]any) map[string]any {
	u := maps.Clone(a)
	if u == nil {
		u = map[string]any{}
	}
	maps.Copy(u, b)
	return u
}

// piRPC is a pi process in RPC mode: commands go to its stdin as JSON
// lines, responses and events come back on stdout.
type piRPC struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	events chan map[string]any
	stderr *bytes.Buffer // read only once the process has exited
	ids    int
	done   bool
}

// startRPC starts pi with args; the process is killed when the test ends.
func (h *piDiff) startRPC(args ...string) *piRPC {
	t := h.t
	t.Logf("$ pi %s", strings.Join(args, " "))
	r := &piRPC{t: t, cmd: h.piCmd(args...), events: make(chan map[string]any, 1024), stderr: new(bytes.Buffer)}
	var err error
	r.stdin, err = r.cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := r.cmd.StdoutPipe()
	require.NoError(t, err)
	r.cmd.Stderr = r.stderr
	require.NoError(t, r.cmd.Start())
	go func() {
		defer close(r.events)
		// Records end at \n only, as pi's RPC framing requires.
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				r.events <- ev
			}
		}
	}()
	t.Cleanup(func() {
		if !r.done {
			_ = r.cmd.Process.Kill()
			_ = r.cmd.Wait()
		}
	})
	return r
}

// fail stops pi and fails the test with its stderr.
func (r *piRPC) fail(format string, args ...any) {
	r.t.Helper()
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
	r.done = true
	r.t.Fatalf("pi rpc: %s\nstderr:\n%s", fmt.Sprintf(format, args...), r.stderr)
}

// until consumes events until match returns true.
func (r *piRPC) until(what string, match func(ev map[string]any) bool) {
	r.t.Helper()
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case ev, ok := <-r.events:
			if !ok {
				r.fail("pi exited while waiting for %s", what)
			}
			if match(ev) {
				return
			}
		case <-timeout:
			r.fail("no %s after 2 minutes", what)
		}
	}
}

// send writes one command.
func (r *piRPC) send(cmd map[string]any) {
	r.t.Helper()
	line, err := json.Marshal(cmd)
	require.NoError(r.t, err)
	_, err = r.stdin.Write(append(line, '\n'))
	require.NoError(r.t, err)
}

// call sends a command and returns its response.
func (r *piRPC) call(cmd map[string]any) map[string]any {
	r.t.Helper()
	r.ids++
	id := fmt.Sprintf("c%d", r.ids)
	cmd["id"] = id
	r.send(cmd)
	var res map[string]any
	r.until(fmt.Sprintf("the response to %v", cmd["type"]), func(ev map[string]any) bool {
		if ev["type"] == "response" && ev["id"] == id {
			res = ev
			return true
		}
		return false
	})
	return res
}

// prompt sends a prompt and waits until the agent has finished and pi is
// idle again.
func (r *piRPC) prompt(text string) {
	r.t.Helper()
	r.ids++
	id := fmt.Sprintf("c%d", r.ids)
	r.send(map[string]any{"id": id, "type": "prompt", "message": text})
	accepted, ended := false, false
	r.until("the end of the prompt "+text, func(ev map[string]any) bool {
		switch {
		case ev["type"] == "response" && ev["id"] == id:
			if ev["success"] != true {
				r.fail("prompt refused: %v", ev["error"])
			}
			accepted = true
		case ev["type"] == "agent_end":
			msgs, _ := ev["messages"].([]any)
			if len(msgs) > 0 {
				if last, _ := msgs[len(msgs)-1].(map[string]any); last["stopReason"] == "error" {
					r.fail("the turn failed: %v", last["errorMessage"])
				}
			}
			ended = true
		}
		return accepted && ended
	})
	// agent_end comes before pi's own end-of-run work; the next command
	// must find it idle.
	for range 1000 {
		st := r.call(map[string]any{"type": "get_state"})
		data, _ := st["data"].(map[string]any)
		if data["isStreaming"] == false && data["isCompacting"] == false {
			return
		}
	}
	r.fail("pi stays busy after the prompt %q", text)
}

// sessionFile asks pi for its session file.
func (r *piRPC) sessionFile() string {
	r.t.Helper()
	st := r.call(map[string]any{"type": "get_state"})
	data, _ := st["data"].(map[string]any)
	file, _ := data["sessionFile"].(string)
	require.NotEmpty(r.t, file, "get_state: %v", st)
	return file
}

// close ends pi by closing its stdin, as an RPC client does, and checks
// it exits cleanly without a word on stderr.
func (r *piRPC) close() {
	r.t.Helper()
	require.NoError(r.t, r.stdin.Close())
	timeout := time.After(2 * time.Minute)
	for open := true; open; {
		select {
		case _, open = <-r.events:
		case <-timeout:
			r.fail("pi does not exit after its stdin closed")
		}
	}
	err := r.cmd.Wait()
	r.done = true
	require.NoError(r.t, err, r.stderr.String())
	assert.Empty(r.t, r.stderr.String(), "pi's stderr in RPC mode")
}
