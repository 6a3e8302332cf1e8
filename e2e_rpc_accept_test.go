package main

// --mode rpc after the run's final reply has ended: pi's isStreaming is
// false by the time a client reads the last message_end (its loop has
// stopped), so what the client sends then is for the next run. And the
// queue for the next run goes with the session, as pi's.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

// holdHook holds each run open after its turns until the file go<n> (n:
// the run's number) exists in the working folder, so that the client's
// commands arrive after the last message_end and before agent_end.
const holdHook = `
local runs = 0
lunar.on("agent.start", function() runs = runs + 1 end)
lunar.on("turn.end", function(ev, ctx)
  lunar.exec("sh", { "-c", "while [ ! -e go" .. runs .. " ]; do sleep 0.05; done" })
end)`

// sendAll writes the commands in one write, so that lunar reads them
// together: once the first one's answer is out, the worker goes on to
// the next at once, well before the test releases the run. It returns
// their ids.
func (r *rpcProc) sendAll(cmds ...map[string]any) []string {
	r.t.Helper()
	var b strings.Builder
	var ids []string
	for _, c := range cmds {
		r.ids++
		id := fmt.Sprintf("r%d", r.ids)
		c["id"] = id
		line, err := json.Marshal(c)
		require.NoError(r.t, err)
		b.Write(line)
		b.WriteByte('\n')
		ids = append(ids, id)
	}
	r.sendLine(strings.TrimSuffix(b.String(), "\n"))
	return ids
}

// untilFinalReply waits for the message_end of the reply text.
func (r *rpcProc) untilFinalReply(text string) []map[string]any {
	r.t.Helper()
	return r.until("the reply "+text, func(ev map[string]any) bool {
		if ev["type"] != "message_end" {
			return false
		}
		m := rpcData(ev["message"])
		if m["role"] != "assistant" {
			return false
		}
		b, _ := json.Marshal(m["content"])
		return strings.Contains(string(b), text)
	})
}

// TestRPCAfterTheLastReply: a steer, a hook command, a prompt with a
// streamingBehavior and the built-in /compact sent after the run's last
// message_end but before its agent_end (a turn.end hook holds the run)
// are handled as if the run had ended, as pi handles them: get_state
// says the agent does not stream, the steering message waits for the
// next prompt (not making the dying run go on), the hook command runs
// idle after agent_end, the prompt starts a new run instead of being
// queued into the old one or refused, and /compact compacts.
func TestRPCAfterTheLastReply(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.hkGlobal("rpc_ui.lua")
	writeHook(t, filepath.Join(e.home, "config", "hooks.d", "hold.lua"), holdHook)
	e.hkConfig(`{"compaction": {"keep_recent_tokens": 20}}`)
	e.srv.Reply(llmtest.Text("the answer"))
	e.srv.Reply(llmtest.Text("the probe's answer"))
	e.srv.Reply(llmtest.Text("the next answer"))
	e.srv.Reply(llmtest.Text("## Goal\nthe summary"))
	r := e.startRPC()
	release := func(n int) { require.NoError(t, os.WriteFile(filepath.Join(e.cwd, "go"+strconv.Itoa(n)), nil, 0o644)) }
	isType := func(typ string) func(map[string]any) bool {
		return func(ev map[string]any) bool { return ev["type"] == typ }
	}

	// Run 1: a steering message and a hook command after its last reply.
	r.send(map[string]any{"type": "prompt", "message": "work"})
	r.untilFinalReply("the answer")
	ids := r.sendAll(
		map[string]any{"type": "steer", "message": "held steer"},
		map[string]any{"type": "get_state"},
		map[string]any{"type": "prompt", "message": "/probe"},
	)
	seen := r.until("get_state's response", isResponse(ids[1]))
	assert.NotContains(t, rpcTypes(seen), "agent_end", "the run is held open")
	assert.NotContains(t, rpcTypes(seen), "turn_start", "the steering message did not make the run go on")
	st := rpcData(seen[len(seen)-1]["data"])
	assert.Equal(t, false, st["isStreaming"], "the final reply has ended")
	assert.Equal(t, float64(1), st["pendingMessageCount"], "the steering message waits")
	release(1)
	seen = r.until("/probe's response", isResponse(ids[2]))
	types := rpcTypes(seen)
	require.Contains(t, types, "agent_end")
	var notes []any
	for _, ev := range seen {
		if ev["type"] == "extension_ui_request" && ev["method"] == "notify" {
			notes = append(notes, ev["message"])
		}
	}
	assert.Equal(t, []any{"probe: idle=true"}, notes, "the command ran after the run, idle")
	assert.Equal(t, true, seen[len(seen)-1]["success"], "%v", seen[len(seen)-1])
	assert.Equal(t, []string{"agent_end", "extension_ui_request", "response"}, types[len(types)-3:], "after run 1's end")
	for _, ev := range seen[:len(seen)-1] {
		if ev["type"] == "agent_end" {
			msgs, _ := ev["messages"].([]any)
			assert.Len(t, msgs, 2, "run 1: the prompt and the answer, nothing steered into it")
		}
	}

	assert.Equal(t, "agent_start", r.next("run 2")["type"], "its prompt started run 2, answered then")
	r.untilFinalReply("the probe's answer")
	// Run 2 (the probe's prompt, the steering message after it): a
	// prompt with a streamingBehavior after its last reply.
	ids = r.sendAll(
		map[string]any{"type": "get_state"},
		map[string]any{"type": "prompt", "message": "next", "streamingBehavior": "followUp"},
	)
	seen = r.until("get_state's response", isResponse(ids[0]))
	assert.Equal(t, false, rpcData(seen[len(seen)-1]["data"])["isStreaming"])
	assert.Equal(t, float64(0), rpcData(seen[len(seen)-1]["data"])["pendingMessageCount"])
	release(2)
	seen = r.until("next's response", isResponse(ids[1]))
	assert.Equal(t, true, seen[len(seen)-1]["success"], "%v", seen[len(seen)-1])
	types = rpcTypes(seen)
	assert.NotContains(t, types, "queue_update", "not queued")
	assert.Equal(t, []string{"agent_end", "response"}, types[len(types)-2:], "a new prompt once run 2 has ended")
	assert.Equal(t, "agent_start", r.next("run 3")["type"])

	// Run 3 (next): the built-in /compact after its last reply.
	r.untilFinalReply("the next answer")
	ids = r.sendAll(
		map[string]any{"type": "get_state"},
		map[string]any{"type": "prompt", "message": "/compact"},
	)
	seen = r.until("get_state's response", isResponse(ids[0]))
	assert.Equal(t, false, rpcData(seen[len(seen)-1]["data"])["isStreaming"])
	release(3)
	seen = r.until("/compact's response", isResponse(ids[1]))
	assert.Equal(t, true, seen[len(seen)-1]["success"], "%v", seen[len(seen)-1])
	types = rpcTypes(seen)
	assert.Equal(t, []string{"agent_end", "response"}, types[len(types)-2:])
	end := r.until("compaction_end", isType("compaction_end"))
	assert.Equal(t, []string{"compaction_start", "compaction_end"}, rpcTypes(end))
	assert.Contains(t, rpcData(end[len(end)-1]["result"])["summary"], "the summary", "%v", end[len(end)-1])

	reqs := e.srv.Requests()
	require.Len(t, reqs, 4)
	assert.Equal(t, []string{"work", "from the probe", "held steer"}, hkUserTexts(reqs[1]), "run 2: the probe's prompt, then the steering message")
	assert.Equal(t, "next", lastUser(t, reqs[2]))
	r.close()
}

// TestRPCSessionChangeEmptiesTheQueue: steering messages and follow-ups
// sent while idle wait for the next run of their session: as pi's, they
// go with it when new_session, switch_session, clone or fork replaces
// it, and queue_update reports the emptied queue before the response. A
// new session a hook cancels keeps them.
func TestRPCSessionChangeEmptiesTheQueue(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.hkGlobal("rpc_ui.lua") // session.before_clear asks the client
	e.srv.Reply(llmtest.Text("first answer"))
	r := e.startRPC()
	r.promptAndWait("first")
	first := rpcData(r.ok(map[string]any{"type": "get_state"}))["sessionFile"]
	queue := func(what string) {
		t.Helper()
		r.ok(map[string]any{"type": "steer", "message": "steer before " + what})
		r.ok(map[string]any{"type": "follow_up", "message": "follow-up before " + what})
		require.Equal(t, float64(2), rpcData(r.ok(map[string]any{"type": "get_state"}))["pendingMessageCount"])
	}

	queue("a cancelled new session")
	id := r.send(map[string]any{"type": "new_session"})
	r.answerUI("confirm", map[string]any{"confirmed": false})
	seen := r.until("new_session's response", isResponse(id))
	assert.Equal(t, map[string]any{"cancelled": true}, seen[len(seen)-1]["data"])
	assert.NotContains(t, rpcTypes(seen), "queue_update")
	assert.Equal(t, float64(2), rpcData(r.ok(map[string]any{"type": "get_state"}))["pendingMessageCount"], "kept")

	for _, cmd := range []map[string]any{
		{"type": "new_session"},
		{"type": "switch_session", "sessionPath": first},
		{"type": "clone"},
		{"type": "fork"},
	} {
		typ := cmd["type"].(string)
		if typ != "new_session" {
			queue(typ)
		}
		if typ == "fork" {
			msgs := rpcData(r.ok(map[string]any{"type": "get_fork_messages"}))["messages"].([]any)
			require.NotEmpty(t, msgs)
			cmd["entryId"] = rpcData(msgs[0])["entryId"]
		}
		id := r.send(cmd)
		if typ == "new_session" {
			r.answerUI("confirm", map[string]any{"confirmed": true})
		}
		seen := r.until(typ+"'s response", isResponse(id))
		res := seen[len(seen)-1]
		require.Equal(t, true, res["success"], "%v", res)
		assert.Equal(t, false, rpcData(res["data"])["cancelled"], typ)
		var ups []map[string]any
		for _, ev := range seen {
			if ev["type"] == "queue_update" {
				ups = append(ups, ev)
			}
		}
		assert.Equal(t, []map[string]any{{"type": "queue_update", "steering": []any{}, "followUp": []any{}}}, ups, typ)
		assert.Equal(t, float64(0), rpcData(r.ok(map[string]any{"type": "get_state"}))["pendingMessageCount"], typ)
	}

	e.srv.Reply(llmtest.Text("fresh answer"))
	r.promptAndWait("fresh")
	reqs := e.srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"fresh"}, hkUserTexts(reqs[1]), "nothing queued before the changes was delivered")
	r.close()
}
