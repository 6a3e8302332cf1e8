// End-to-end tests of the running agent's input queue (issue #21): hook
// sends, messages and compactions during a run, seen through the binary
// in JSON and one-shot modes.
package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// queueHook, after the run's first tool call, queues a follow-up and a
// steering prompt, reports the queue, and asks for a compaction.
const queueHook = `
local n = 0
lunar.on("tool.execute.after", function(ev, ctx)
  n = n + 1
  if n > 1 then return end
  lunar.send("then wrap up")
  lunar.send("mind the exit code", {deliver = "steer"})
  lunar.send_message({custom_type = "note", content = "a note for the model", display = false})
  local q = ctx.queued()
  ctx.ui.notify("queued steering=" .. table.concat(q.steering, "|") .. " follow_up=" .. table.concat(q.follow_up, "|") ..
    " idle=" .. tostring(ctx.is_idle()))
  local ok, err = ctx.session.compact("keep the exit code")
  ctx.ui.notify("compact " .. tostring(ok) .. " " .. tostring(err))
end)
lunar.on("session.compact", function(ev, ctx)
  ctx.ui.notify("compacted from " .. ev.first_kept_entry_id)
end)
`

func TestQueueHookSteerFollowUpAndCompactDuringARun(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.hkConfig(`{"compaction": {"keep_recent_tokens": 50}}`)
	e.threeTurns()
	before := len(e.srv.Requests())
	hook := filepath.Join(e.cwd, "queue.lua")
	writeHook(t, hook, queueHook)

	e.srv.Reply(llmtest.ToolCall("bash", `{"command":"echo hi"}`))
	e.srv.Reply(llmtest.Text("## Goal\nAnswer questions."))
	e.srv.Reply(llmtest.Text("exit code 0"))
	e.srv.Reply(llmtest.Text("wrapped up"))
	r := e.run("", "-c", "-e", hook, "--mode", "json", "-p", question(4))
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "queued steering=mind the exit code follow_up=then wrap up idle=false")
	assert.Contains(t, r.stderr, "compact true nil", "scheduled: true at once")
	assert.Contains(t, r.stderr, "compacted from ", "session.compact reports the outcome")

	reqs := e.srv.Requests()[before:]
	require.Len(t, reqs, 4, "tool call, summary, steered turn, follow-up turn")
	assert.Contains(t, lastUserText(t, reqs[1]), "Additional focus: keep the exit code")
	// The run goes on on the compacted context: summary first, then the
	// kept turn, the tool result, the steering prompt and the note queued
	// after it (a message that asks for no turn rides along).
	msgs := reqMessages(t, reqs[2])
	require.NotEmpty(t, msgs)
	var texts []string
	for _, m := range msgs {
		texts = append(texts, m.Role+":"+contentText(m.Content))
	}
	require.Len(t, texts, 7, texts)
	assert.True(t, strings.HasPrefix(texts[1], "user:"+compactedPrefix+"## Goal"), texts[1])
	assert.Equal(t, []string{"user:" + question(4), "assistant:", "tool:hi\n", "user:mind the exit code", "user:a note for the model"}, texts[2:])
	assert.Equal(t, "then wrap up", lastUserText(t, reqs[3]))

	evs := jsonLines(t, r.stdout)
	var seq []string
	var queues [][2][]any
	for _, ev := range evs {
		switch ev["type"] {
		case "agent_start", "agent_end", "compaction_start", "compaction_end", "turn_start":
			seq = append(seq, ev["type"].(string))
		case "queue_update":
			seq = append(seq, "queue_update")
			queues = append(queues, [2][]any{ev["steering"].([]any), ev["followUp"].([]any)})
		}
	}
	assert.Equal(t, []string{"agent_start", "turn_start", "queue_update", "queue_update",
		"compaction_start", "compaction_end", "turn_start", "queue_update", "turn_start", "queue_update", "agent_end"}, seq,
		"one run: the compaction between its turns; the follow-up, taken when the agent would stop, inside it (reported after its turn's turn_start, as pi's)")
	assert.Equal(t, [][2][]any{
		{{}, {"then wrap up"}},
		{{"mind the exit code"}, {"then wrap up"}},
		{{}, {"then wrap up"}},
		{{}, {}},
	}, queues)
}

// Built-ins in one-shot mode: those that make sense without a terminal
// run (output on stdout; on stderr in JSON mode), the rest are refused
// with one line and exit 2 before anything runs.
func TestOneShotBuiltins(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.srv.Reply(llmtest.Text("first answer"))
	r := e.run("", "-p", "first question")
	require.Equal(t, 0, r.code, r.stderr)
	s := e.onlySession()
	var userID string
	for _, en := range s.Entries() {
		if en.Message != nil && en.Message.Role == "user" {
			userID = en.ID
		}
	}
	require.NotEmpty(t, userID)

	r = e.run("", "-c", "-p", "/tree")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, userID+"  you: first question")
	assert.Contains(t, r.stdout, "← leaf")

	r = e.run("", "-c", "-p", "/label "+userID+" start")
	require.Equal(t, 0, r.code, r.stderr)
	r = e.run("", "-c", "-p", "/name my work")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "name: my work\n", r.stdout)
	r = e.run("", "-c", "--mode", "json", "-p", "/session")
	require.Equal(t, 0, r.code, r.stderr)
	evs := jsonLines(t, r.stdout)
	require.Len(t, evs, 1, "JSON mode: stdout is events only (the header)")
	assert.Equal(t, "session", evs[0]["type"])
	assert.Contains(t, r.stderr, "name      my work")
	s = e.onlySession()
	assert.Equal(t, "start", s.Label(userID))

	// /branch, then a prompt: the prompt continues from the branch point.
	e.srv.Reply(llmtest.Text("second answer"))
	r = e.run("", "-c", "-p", "/branch start", "another question")
	require.Equal(t, 0, r.code, r.stderr)
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	msgs := reqMessages(t, reqs[1])
	assert.Equal(t, "another question", contentText(msgs[len(msgs)-1].Content))
	assert.NotContains(t, string(reqs[1].Body), "first question", "before the user message: it is left out")
	assert.Contains(t, r.stdout, "its text was: first question", "no prompt to fill in one-shot: the text is shown")
	assert.NotContains(t, r.stdout, "in the prompt to edit")

	for _, line := range []string{"/clear", "/sessions", "/resume x", "/expand", "/quit"} {
		r = e.run("", "-c", "-p", "hello", line)
		assert.Equal(t, 2, r.code, line)
		assert.Empty(t, r.stdout, line)
		assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
		assert.Contains(t, r.stderr, "needs the interactive REPL", line)
	}
	assert.Len(t, e.srv.Requests(), 2, "a refused line stops the run before its prompts")
}

// steering_mode in config.json: two steers in one call or one a call.
func TestQueueSteeringModeFromConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		config string
		calls  int
	}{{`{}`, 3}, {`{"steering_mode": "all"}`, 2}} {
		t.Run(tc.config, func(t *testing.T) {
			e := newE2E(t)
			e.hkConfig(tc.config)
			hook := filepath.Join(e.cwd, "steer.lua")
			writeHook(t, hook, `lunar.on("tool.execute.after", function()
  lunar.send("one", {deliver = "steer"})
  lunar.send("two", {deliver = "steer"})
end)`)
			e.srv.Reply(llmtest.ToolCall("bash", `{"command":"true"}`))
			e.srv.SetDefault(llmtest.Text("ok"))
			r := e.run("", "-e", hook, "-p", "go")
			require.Equal(t, 0, r.code, r.stderr)
			reqs := e.srv.Requests()
			require.Len(t, reqs, tc.calls)
			msgs := reqMessages(t, reqs[len(reqs)-1])
			var users []string
			for _, m := range msgs {
				if m.Role == "user" {
					users = append(users, contentText(m.Content))
				}
			}
			assert.Equal(t, []string{"go", "one", "two"}, users)
		})
	}
}

// lunar.send_message during a run: a follow-up with trigger_turn makes
// one more call when the agent would stop; without it, the message is
// appended after the run and no call is made for it.
func TestQueueSendMessageFollowUp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		trigger bool
		calls   int
	}{{true, 3}, {false, 2}} {
		t.Run(fmt.Sprint("trigger_turn=", tc.trigger), func(t *testing.T) {
			e := newE2E(t)
			hook := filepath.Join(e.cwd, "note.lua")
			writeHook(t, hook, fmt.Sprintf(`lunar.on("tool.execute.after", function()
  lunar.send_message({custom_type = "note", content = "late note"}, {deliver = "follow_up", trigger_turn = %v})
end)`, tc.trigger))
			e.srv.Reply(llmtest.ToolCall("bash", `{"command":"true"}`))
			e.srv.SetDefault(llmtest.Text("ok"))
			r := e.run("", "-e", hook, "-p", "go")
			require.Equal(t, 0, r.code, r.stderr)
			reqs := e.srv.Requests()
			require.Len(t, reqs, tc.calls)
			assert.NotContains(t, string(reqs[1].Body), "late note", "not a steering message")
			if tc.trigger {
				assert.Equal(t, "late note", lastUserText(t, reqs[2]))
			}
			path := e.onlySession().Path("")
			last := path[len(path)-1]
			if tc.trigger {
				last = path[len(path)-2]
			}
			assert.Equal(t, session.TypeCustomMessage, last.Type)
		})
	}
}
