package main

// Compaction through the binary: manual (/compact in one-shot), automatic
// after a turn past the threshold, on a context overflow (compact, retry
// once), hooks that cancel, supply the summary or change the
// instructions, JSON events, and a long tool-heavy session that compacts
// again and again while every request fits the window.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

const compactedPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"

// reqMessages decodes an OpenAI request's messages.
func reqMessages(t *testing.T, r llmtest.Request) []struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
} {
	t.Helper()
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &body))
	return body.Messages
}

// contentText is the text of a message's content (a string or parts).
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// compactions are the compaction entries of a session, in file order.
func compactions(s *session.Session) []*session.Entry {
	var out []*session.Entry
	for _, e := range s.Entries() {
		if e.Type == session.TypeCompaction {
			out = append(out, e)
		}
	}
	return out
}

// question is the long question i (~63 tokens): with answers of 2 tokens
// and keep_recent_tokens 50, cuts fall on questions.
func question(i int) string { return fmt.Sprintf("question %d %s", i, strings.Repeat("words ", 40)) }

// threeTurns makes a session of three turns: long questions, short
// answers, each reporting 110 tokens of context.
func (e *e2e) threeTurns() {
	e.t.Helper()
	for i := 1; i <= 3; i++ {
		e.srv.Reply(llmtest.Text(fmt.Sprintf("answer %d", i)), llmtest.Usage(100, 10, 0, 0))
		args := []string{"-p", question(i)}
		if i > 1 {
			args = append([]string{"-c"}, args...)
		}
		r := e.run("", args...)
		require.Equal(e.t, 0, r.code, r.stderr)
	}
}

func TestCompactManualOneShot(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.hkConfig(`{"compaction": {"keep_recent_tokens": 50}}`)
	e.threeTurns()
	before := len(e.srv.Requests())

	e.srv.Reply(llmtest.Text("## Goal\nAnswer three questions."))
	r := e.run("", "-c", "-p", "/compact keep the numbers")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stdout, "stdout carries only answers")
	assert.Contains(t, r.stderr, "compacting the context (manual)")
	assert.Regexp(t, `compacted: [0-9,]+ → [0-9,]+ tokens`, r.stderr)

	reqs := e.srv.Requests()
	require.Len(t, reqs, before+1)
	sum := reqs[before]
	assert.Contains(t, systemPrompt(t, sum), "Do NOT continue the conversation")
	prompt := lastUserText(t, sum)
	assert.True(t, strings.HasPrefix(prompt, "<conversation>\n[User]: "+question(1)+"\n\n[Assistant]: answer 1\n\n[User]: "+question(2)+
		"\n\n[Assistant]: answer 2\n</conversation>\n\n"), prompt)
	assert.Contains(t, prompt, "</conversation>\n\n")
	assert.Contains(t, prompt, "## Goal")
	assert.True(t, strings.HasSuffix(prompt, "\n\nAdditional focus: keep the numbers"), prompt)
	assert.Nil(t, sum.Field("tools"))

	s := e.onlySession()
	cs := compactions(s)
	require.Len(t, cs, 1)
	c := cs[0]
	assert.Equal(t, "## Goal\nAnswer three questions.", c.Summary())
	assert.False(t, c.FromHook())
	assert.Greater(t, c.TokensBefore(), 0)
	kept := s.Get(c.FirstKeptEntryID())
	require.NotNil(t, kept)
	assert.Equal(t, question(3), kept.Message.Text(), "the last turn is kept")

	// The next request starts with the summary, then exactly the kept entries.
	e.srv.Reply(llmtest.Text("four"))
	r = e.run("", "-c", "-p", "question 4")
	require.Equal(t, 0, r.code, r.stderr)
	msgs := reqMessages(t, e.srv.Requests()[before+1])
	require.Len(t, msgs, 5, "system, summary, question 3, answer 3, question 4")
	assert.Equal(t, compactedPrefix+"## Goal\nAnswer three questions.\n</summary>", contentText(msgs[1].Content))
	assert.Equal(t, question(3), contentText(msgs[2].Content))
	assert.Equal(t, "answer 3", contentText(msgs[3].Content))
	assert.Equal(t, "question 4", contentText(msgs[4].Content))

	// Compacting again right away: nothing new to summarise.
	r = e.run("", "-c", "-p", "/compact")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "nothing to compact")
	e.srv.Reply(llmtest.Text("five"))
	e.srv.Reply(llmtest.Text("## Goal\nUpdated."))
	r = e.run("", "-c", "-p", "question 5 "+strings.Repeat("long ", 60))
	require.Equal(t, 0, r.code, r.stderr)
	r = e.run("", "-c", "-p", "/compact")
	require.Equal(t, 0, r.code, r.stderr)
	upd := e.srv.Requests()[len(e.srv.Requests())-1]
	prompt = lastUserText(t, upd)
	assert.Contains(t, prompt, "<previous-summary>\n## Goal\nAnswer three questions.\n</previous-summary>", "a later compaction updates the previous summary")
	assert.Contains(t, prompt, "[User]: "+question(3), "from the previous kept part on")
	require.Len(t, compactions(e.onlySession()), 2)
}

func TestCompactNothingToDo(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("hi"))
	r := e.run("", "-p", "hello")
	require.Equal(t, 0, r.code, r.stderr)
	r = e.run("", "-c", "-p", "/compact")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "nothing to compact")
	assert.Len(t, e.srv.Requests(), 1)
}

func TestCompactAutoAfterTurn(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	// gpt-4.1's window is 1,047,576: compact above 576 tokens.
	e.hkConfig(`{"compaction": {"reserve_tokens": 1047000, "keep_recent_tokens": 50}}`)
	e.threeTurns()
	n := len(e.srv.Requests())
	assert.Empty(t, compactions(e.onlySession()), "small turns stay under the threshold")

	e.srv.Reply(llmtest.Text("big answer"), llmtest.Usage(900, 10, 0, 0))
	e.srv.Reply(llmtest.Text("## Goal\nauto summary"))
	r := e.run("", "-c", "--mode", "json", "-p", "question 4")
	require.Equal(t, 0, r.code, r.stderr)
	require.Len(t, e.srv.Requests(), n+2)
	assert.Contains(t, lastUserText(t, e.srv.Requests()[n+1]), "<conversation>")
	cs := compactions(e.onlySession())
	require.Len(t, cs, 1)
	assert.Equal(t, "## Goal\nauto summary", cs[0].Summary())

	var types []string
	var end map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &ev), line)
		types = append(types, ev["type"].(string))
		if ev["type"] == "compaction_end" {
			end = ev
		}
		if ev["type"] == "compaction_start" {
			assert.Equal(t, "threshold", ev["reason"])
		}
	}
	assert.Equal(t, "compaction_end", types[len(types)-1])
	assert.Equal(t, "compaction_start", types[len(types)-2])
	assert.Equal(t, "agent_end", types[len(types)-3])
	require.NotNil(t, end)
	assert.Equal(t, false, end["aborted"])
	assert.Equal(t, false, end["willRetry"])
	res := end["result"].(map[string]any)
	assert.Equal(t, "## Goal\nauto summary", res["summary"])
	assert.Equal(t, cs[0].FirstKeptEntryID(), res["firstKeptEntryId"])

	// Disabled: no compaction.
	e.hkConfig(`{"compaction": {"enabled": false, "reserve_tokens": 1047000, "keep_recent_tokens": 50}}`)
	e.srv.Reply(llmtest.Text("again big"), llmtest.Usage(900, 10, 0, 0))
	r = e.run("", "-c", "-p", "question 5")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, compactions(e.onlySession()), 1)
}

func TestCompactOnOverflowRetriesOnce(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.hkConfig(`{"compaction": {"keep_recent_tokens": 50}}`)
	e.threeTurns()
	n := len(e.srv.Requests())

	e.srv.Reply(llmtest.ContextOverflow(1100000, 1047576))
	e.srv.Reply(llmtest.Text("## Goal\noverflow summary"))
	e.srv.Reply(llmtest.Text("answer after compaction"))
	r := e.run("", "-c", "-p", "question 4")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "answer after compaction\n", r.stdout)
	assert.Contains(t, r.stderr, "compacting the context (overflow)")
	reqs := e.srv.Requests()
	require.Len(t, reqs, n+3)
	retry := reqMessages(t, reqs[n+2])
	assert.Equal(t, compactedPrefix+"## Goal\noverflow summary\n</summary>", contentText(retry[1].Content))
	assert.Equal(t, "question 4", contentText(retry[len(retry)-1].Content))

	// A second overflow after compacting is an error (one retry per prompt).
	e.srv.Reply(llmtest.ContextOverflow(1100000, 1047576))
	e.srv.Reply(llmtest.Text("## Goal\nsecond"))
	e.srv.Reply(llmtest.ContextOverflow(1100000, 1047576))
	r = e.run("", "-c", "-p", question(5))
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "context overflow")
	assert.Len(t, e.srv.Requests(), n+6)
}

func TestCompactHooks(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.hkConfig(`{"compaction": {"keep_recent_tokens": 50}}`)
	e.threeTurns()
	hook := filepath.Join(t.TempDir(), "compact.lua")
	writeFile(t, hook, `
local mode = os.getenv("COMPACT_MODE")
lunar.on("session.before_compact", function(ev)
  if mode == "cancel" then return { cancel = true, reason = "not now" } end
  if mode == "supply" then
    return { summary = "hook summary of " .. #ev.preparation.messages .. " messages", details = { by = "hook" } }
  end
  if mode == "instruct" then return { instructions = ev.instructions .. " and the colours" } end
end)
lunar.on("session.compact", function(ev)
  lunar.log("info", "compacted from_hook=" .. tostring(ev.from_hook) .. " kept=" .. ev.first_kept_entry_id)
end)
`)
	n := len(e.srv.Requests())

	e.env = []string{"COMPACT_MODE=cancel"}
	r := e.run("", "-c", "-e", hook, "-p", "/compact")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "compaction cancelled by a hook: not now")
	assert.Len(t, e.srv.Requests(), n)
	assert.Empty(t, compactions(e.onlySession()))

	e.env = []string{"COMPACT_MODE=instruct"}
	e.srv.Reply(llmtest.Text("## Goal\ninstructed"))
	r = e.run("", "-c", "-e", hook, "-p", "/compact the numbers")
	require.Equal(t, 0, r.code, r.stderr)
	require.Len(t, e.srv.Requests(), n+1)
	assert.True(t, strings.HasSuffix(lastUserText(t, e.srv.Requests()[n]), "Additional focus: the numbers and the colours"))
	assert.Contains(t, r.stderr, "compacted from_hook=false kept=")

	e.env = []string{"COMPACT_MODE=supply"}
	e.srv.Reply(llmtest.Text("more"))
	r = e.run("", "-c", "-e", hook, "-p", question(4))
	require.Equal(t, 0, r.code, r.stderr)
	n = len(e.srv.Requests())
	r = e.run("", "-c", "-e", hook, "-p", "/compact")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, e.srv.Requests(), n, "a hook's summary needs no model call")
	cs := compactions(e.onlySession())
	require.Len(t, cs, 2)
	assert.Regexp(t, `^hook summary of \d+ messages$`, cs[1].Summary())
	assert.True(t, cs[1].FromHook())
	assert.JSONEq(t, `{"by":"hook"}`, string(cs[1].Details()))
	assert.Contains(t, r.stderr, "compacted from_hook=true")
}

// A long tool-heavy session in a small window compacts again and again;
// every request (turns and summaries) stays inside the window.
func TestCompactRepeatedlyInSmallWindow(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	const window = 7000
	e.hkConfig(`{"compaction": {"reserve_tokens": 2000, "keep_recent_tokens": 1200},
 "providers": {"local": {"base_url": "` + e.srv.URL() + `", "models": [{"id": "tiny", "context_window": 7000}]}}}`)
	big := strings.Repeat("log line with some words in it\n", 70) // ~550 tokens
	require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "big.txt"), []byte(big), 0o644))
	// Answers and summaries come from the default reply; each prompt's first
	// reply is a tool call.
	e.srv.SetDefault(llmtest.Text("## Goal\nread the logs\n\n## Progress\n- [x] read big.txt"))
	run := func(args ...string) {
		t.Helper()
		cmd := e.cmd("", args...)
		cmd.Args = append([]string{lunarBin, "--model", "local/tiny", "--yes"}, args...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
	}
	for i := 0; i < 24; i++ {
		e.srv.Reply(llmtest.ToolCall("bash", `{"command":"cat big.txt"}`))
		args := []string{"-p", fmt.Sprintf("step %d: read big.txt again", i)}
		if i > 0 {
			args = append([]string{"-c"}, args...)
		}
		run(args...)
	}
	s := e.onlySession()
	cs := compactions(s)
	assert.GreaterOrEqual(t, len(cs), 5, "compacted again and again")
	for i, r := range e.srv.Requests() {
		assert.Less(t, (len(r.Body)+3)/4, window, "request %d fits the window", i)
	}
	// Each compaction after the first updates the previous summary.
	updates := 0
	for _, r := range e.srv.Requests() {
		if strings.Contains(lastUserText(t, r), "<previous-summary>") {
			updates++
		}
	}
	assert.GreaterOrEqual(t, updates, len(cs)-1)
	// The last context starts with the latest summary.
	last := reqMessages(t, e.srv.Requests()[len(e.srv.Requests())-1])
	assert.True(t, strings.HasPrefix(contentText(last[1].Content), compactedPrefix) || strings.Contains(lastUserText(t, e.srv.Requests()[len(e.srv.Requests())-1]), "<conversation>"))
}
