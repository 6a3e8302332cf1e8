package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/compaction"
	"github.com/lunar-cli/lunar/agent/llmtest"
	"github.com/lunar-cli/lunar/session"
)

// queueRuntime is a test runtime with a tool "act" that runs fn (inside
// the run, as a user typing while a tool works) and records the queue
// updates.
func queueRuntime(t testing.TB, fn func(rt *Runtime, n int)) (*Runtime, *llmtest.Server, *queueLog) {
	t.Helper()
	var rt *Runtime
	n := 0
	rt, srv, _ := newTestRuntime(t, func(o *RuntimeOptions) {
		o.Tools = []*Tool{{Name: "act", Parameters: json.RawMessage(`{"type":"object"}`),
			Execute: func(context.Context, string, json.RawMessage, func(ToolResult)) (ToolResult, error) {
				n++
				fn(rt, n)
				return TextResult("acted", false), nil
			}}}
	})
	log := &queueLog{}
	rt.Subscribe(func(ev RuntimeEvent) {
		if ev.Queue != nil {
			log.add(*ev.Queue)
		}
	})
	return rt, srv, log
}

type queueLog struct {
	mu      sync.Mutex
	updates []QueueUpdate
}

func (l *queueLog) add(u QueueUpdate) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.updates = append(l.updates, u)
}

func (l *queueLog) all() []QueueUpdate {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]QueueUpdate(nil), l.updates...)
}

type reqMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// reqMessages are a request's messages (OpenAI's shape).
func reqMessages(t *testing.T, r llmtest.Request) []reqMessage {
	t.Helper()
	var body struct {
		Messages []reqMessage `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &body))
	return body.Messages
}

// userTexts are the texts of a request's user messages, in order.
func userTexts(t *testing.T, r llmtest.Request) []string {
	t.Helper()
	texts, err := r.UserTexts()
	require.NoError(t, err)
	return texts
}

func TestSteerWaitsForTheTurnsToolCalls(t *testing.T) {
	rt, srv, log := queueRuntime(t, func(rt *Runtime, n int) {
		if n == 1 {
			rt.Steer("stop and look", nil)
		}
	})
	srv.Reply(llmtest.ToolCall("act", `{}`), llmtest.ToolCall("act", `{}`))
	srv.Reply(llmtest.Text("looked"))
	require.NoError(t, rt.Prompt(context.Background(), "go", nil))
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	// Both calls of the turn ran and say so; the steer follows their results.
	var roles []string
	for _, m := range reqMessages(t, reqs[1]) {
		roles = append(roles, m.Role)
	}
	assert.Equal(t, []string{"user", "assistant", "tool", "tool", "user"}, roles)
	assert.Equal(t, []string{"go", "stop and look"}, userTexts(t, reqs[1]))
	assert.Equal(t, []QueueUpdate{
		{Steering: []string{"stop and look"}, FollowUp: []string{}},
		{Steering: []string{}, FollowUp: []string{}, Delivered: []string{"stop and look"}},
	}, log.all())
	s, f := rt.Queued()
	assert.Empty(t, s)
	assert.Empty(t, f)
}

func TestFollowUpWaitsUntilTheAgentWouldStop(t *testing.T) {
	rt, srv, _ := queueRuntime(t, func(rt *Runtime, n int) {
		if n == 1 {
			rt.FollowUp("then this", nil)
			rt.Steer("first this", nil)
		}
	})
	var runs int
	rt.SubscribeLoop(func(ev Event) {
		if ev.Type == EventAgentStart {
			runs++
		}
	})
	srv.Reply(llmtest.ToolCall("act", `{}`))
	srv.Reply(llmtest.Text("steered"))
	srv.Reply(llmtest.Text("followed"))
	require.NoError(t, rt.Prompt(context.Background(), "go", nil))
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, []string{"go", "first this"}, userTexts(t, reqs[1]))
	assert.Equal(t, []string{"go", "first this", "then this"}, userTexts(t, reqs[2]))
	assert.Equal(t, 1, runs, "a follow-up goes on in the same run, as pi's")
	assert.False(t, rt.HasPending())
}

func TestQueueModes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		mode     QueueMode
		requests int
		second   []string // user texts of the second request
	}{
		{"one at a time", QueueOneAtATime, 5, []string{"go", "a"}},
		{"all", QueueAll, 3, []string{"go", "a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt, srv, _ := queueRuntime(t, func(rt *Runtime, n int) {
				if n == 1 {
					rt.Steer("a", nil)
					rt.Steer("b", nil)
					rt.FollowUp("c", nil)
					rt.FollowUp("d", nil)
				}
			})
			rt.SetSteeringMode(tc.mode)
			rt.SetFollowUpMode(tc.mode)
			assert.Equal(t, tc.mode, rt.SteeringMode())
			assert.Equal(t, tc.mode, rt.FollowUpMode())
			srv.Reply(llmtest.ToolCall("act", `{}`))
			srv.SetDefault(llmtest.Text("ok"))
			require.NoError(t, rt.Prompt(context.Background(), "go", nil))
			reqs := srv.Requests()
			require.Equal(t, tc.requests, len(reqs))
			assert.Equal(t, tc.second, userTexts(t, reqs[1]))
			assert.Equal(t, []string{"go", "a", "b", "c", "d"}, userTexts(t, reqs[len(reqs)-1]))
		})
	}
}

func TestTakeBackAndClearQueue(t *testing.T) {
	var took []string
	var cleared [2][]string
	rt, srv, log := queueRuntime(t, func(rt *Runtime, n int) {
		if n != 1 {
			return
		}
		rt.Steer("s1", nil)
		rt.FollowUp("f1", nil)
		rt.Steer("s2", nil)
		s, f := rt.Queued()
		assert.Equal(t, []string{"s1", "s2"}, s)
		assert.Equal(t, []string{"f1"}, f)
		text, ok := rt.TakeBackLast()
		require.True(t, ok)
		took = append(took, text)
		text, ok = rt.TakeBackLast()
		require.True(t, ok)
		took = append(took, text)
		rt.FollowUp("f2", nil)
		rt.Steer("s3", nil)
		cleared[0], cleared[1] = rt.ClearQueue()
		_, ok = rt.TakeBackLast()
		assert.False(t, ok, "nothing left")
	})
	srv.Reply(llmtest.ToolCall("act", `{}`))
	srv.Reply(llmtest.Text("done"))
	require.NoError(t, rt.Prompt(context.Background(), "go", nil))
	assert.Equal(t, []string{"s2", "f1"}, took, "newest first, whichever queue")
	assert.Equal(t, [2][]string{{"s1", "s3"}, {"f2"}}, cleared)
	assert.Len(t, srv.Requests(), 2, "nothing delivered")
	ups := log.all()
	require.Len(t, ups, 8, "3 queued, 2 taken back, 2 queued, 1 cleared")
	assert.Equal(t, QueueUpdate{Steering: []string{}, FollowUp: []string{}}, ups[7])
	for _, u := range ups {
		assert.Empty(t, u.Delivered, "taken back or cleared, never delivered")
	}
}

func TestQueueBetweenRunsGoesToTheFrontEnd(t *testing.T) {
	rt, srv, log := queueRuntime(t, func(*Runtime, int) {})
	rt.FollowUp("later", nil)
	rt.Steer("sooner", nil)
	assert.Empty(t, log.all(), "nothing queued in the loop")
	p := rt.TakePending()
	require.Len(t, p, 2)
	assert.Equal(t, "later", p[0].Text)
	_ = srv
}

func TestSendMessageDuringARunJoinsTheLoop(t *testing.T) {
	rt, srv, _ := queueRuntime(t, func(rt *Runtime, n int) {
		if n == 1 {
			require.NoError(t, rt.SendMessage(CustomMessage{CustomType: "note", Content: []session.ContentBlock{{Type: session.BlockText, Text: "fyi"}}, Display: true}, false))
		}
	})
	srv.Reply(llmtest.ToolCall("act", `{}`))
	srv.Reply(llmtest.Text("done"))
	require.NoError(t, rt.Prompt(context.Background(), "go", nil))
	reqs := srv.Requests()
	require.Len(t, reqs, 2, "a message that asks for no turn makes none")
	assert.Equal(t, []string{"go", "fyi"}, userTexts(t, reqs[1]), "delivered before the next call")
	path := rt.Session().Path("")
	var custom int
	for _, e := range path {
		if e.Type == session.TypeCustomMessage {
			custom++
		}
	}
	assert.Equal(t, 1, custom)
}

// BenchmarkSteerDelivery is the latency from the end of a tool call to
// the next model request when a prompt was steered in during the tool
// (the queue's cost), beside the same turn without a steer: a run over
// the fake server through the OpenAI SDK, as the binary makes it.
func BenchmarkSteerDelivery(b *testing.B) {
	for _, steer := range []bool{true, false} {
		name := "steered"
		if !steer {
			name = "plain"
		}
		b.Run(name, func(b *testing.B) {
			rt, srv, _ := queueRuntime(b, func(rt *Runtime, _ int) {
				if steer {
					rt.Steer("look at this too", nil)
				}
			})
			var toolEnd, delivered time.Time
			rt.SubscribeLoop(func(ev Event) {
				switch {
				case ev.Type == EventToolExecutionEnd:
					toolEnd = time.Now()
				case ev.Type == EventMessageStart && ev.Message.Role == session.RoleUser && delivered.Before(toolEnd):
					delivered = time.Now()
				}
			})
			var total, queue time.Duration
			n := 0
			for b.Loop() {
				before := len(srv.Requests())
				srv.Reply(llmtest.ToolCall("act", `{}`))
				srv.Reply(llmtest.Text("ok"))
				if err := rt.Prompt(context.Background(), "go", nil); err != nil {
					b.Fatal(err)
				}
				reqs := srv.Requests()
				if len(reqs) != before+2 {
					b.Fatalf("%d requests, want 2", len(reqs)-before)
				}
				if steer && !strings.Contains(string(reqs[before+1].Body), "look at this too") {
					b.Fatal("the steer was not delivered with the next request")
				}
				total += reqs[before+1].Received.Sub(toolEnd)
				if steer {
					queue += delivered.Sub(toolEnd)
				}
				n++
			}
			b.ReportMetric(float64(total.Microseconds())/float64(n), "µs-tool-end-to-request")
			if steer {
				b.ReportMetric(float64(queue.Microseconds())/float64(n), "µs-tool-end-to-delivery")
			}
		})
	}
}

// A front end steers from its own goroutine (the REPL's input reader)
// while a tool runs; the queue's events arrive in the order of the
// changes.
func TestSteerFromAnotherGoroutine(t *testing.T) {
	inTool, steered := make(chan struct{}), make(chan struct{})
	rt, srv, log := queueRuntime(t, func(rt *Runtime, n int) {
		if n == 1 {
			close(inTool)
			<-steered
		}
	})
	srv.Reply(llmtest.ToolCall("act", `{}`))
	srv.Reply(llmtest.Text("ok"))
	go func() {
		<-inTool
		for i := range 5 {
			rt.Steer(fmt.Sprintf("s%d", i), nil)
		}
		rt.FollowUp("later", nil)
		rt.TakeBackLast()
		close(steered)
	}()
	rt.SetSteeringMode(QueueAll)
	require.NoError(t, rt.Prompt(context.Background(), "go", nil))
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"go", "s0", "s1", "s2", "s3", "s4"}, userTexts(t, reqs[1]))
	ups := log.all()
	require.Len(t, ups, 8)
	assert.Equal(t, []string{"s0", "s1", "s2", "s3", "s4"}, ups[5].Steering)
	assert.Equal(t, []string{"later"}, ups[5].FollowUp)
	assert.Empty(t, ups[6].FollowUp, "taken back")
	assert.Empty(t, ups[6].Delivered, "taken back, not delivered")
	assert.Equal(t, QueueUpdate{Steering: []string{}, FollowUp: []string{}, Delivered: []string{"s0", "s1", "s2", "s3", "s4"}}, ups[7],
		"all steers delivered at once, in order")
}

// compactOnTurnEnd asks for a compaction from every turn.end, as a
// memory hook past its token ratio does.
type compactOnTurnEnd struct {
	NopHooks
	rt    *Runtime
	asked []bool
}

func (h *compactOnTurnEnd) Notify(_ context.Context, ev Event) {
	if ev.Type == EventTurnEnd {
		h.asked = append(h.asked, h.rt.RequestCompact("keep it short"))
	}
}

// A compaction asked for in the run's last turn runs right after it; one
// asked for between turns runs before the next call, which sends the
// compacted context.
func TestRequestCompactAtTheTurnBoundary(t *testing.T) {
	rt, srv, rec := newTestRuntime(t, func(o *RuntimeOptions) {
		o.Tools = []*Tool{{Name: "act", Parameters: json.RawMessage(`{"type":"object"}`),
			Execute: func(context.Context, string, json.RawMessage, func(ToolResult)) (ToolResult, error) {
				return TextResult("acted", false), nil
			}}}
		o.Compaction = compaction.DefaultSettings()
		o.Compaction.KeepRecentTokens = 10
		o.Warn = func(msg string) { t.Error("warning: " + msg) }
	})
	rec.compact = CompactDecision{Summary: "summary from the hook"}
	s := rt.Session()
	long := strings.Repeat("words ", 40)
	appendAll(t, s, userMsg("old question "+long), assistantMsg("old answer"))
	h := &compactOnTurnEnd{rt: rt}
	rt.SetHooks(h, rec)
	srv.Reply(llmtest.ToolCall("act", `{}`))
	srv.Reply(llmtest.Text("done " + long))
	require.NoError(t, rt.Prompt(context.Background(), "new question "+long, nil))
	assert.Equal(t, []bool{true, true}, h.asked, "both asked during the run")
	var compactions []string
	for _, e := range s.Entries() {
		if e.Type == session.TypeCompaction {
			compactions = append(compactions, e.Summary())
		}
	}
	assert.Equal(t, []string{"summary from the hook", "summary from the hook"}, compactions[:min(2, len(compactions))])
	reqs := srv.Requests()
	require.Len(t, reqs, 2, "the hook supplied the summaries: no model call for them")
	assert.NotContains(t, string(reqs[1].Body), "old question", "the second call sends the compacted context")
	assert.Contains(t, string(reqs[1].Body), "summary from the hook")
	last := s.Path("")[len(s.Path(""))-1]
	assert.Equal(t, session.TypeCompaction, last.Type, "the last turn's request ran after the run")
	assert.Equal(t, "keep it short", rec.compactEvents[0].Instructions)
	rt.WaitHooks()
}

// TestQueuedForTheNextRun: SteerNext and FollowUpNext between runs wait
// in the queues (Queued lists them) for the next prompt's run, as pi's
// steer and followUp: the steering message after the prompt, before the
// first model call; the follow-up when the run would stop, reported
// after its turn's turn_start, as pi reports it.
func TestQueuedForTheNextRun(t *testing.T) {
	rt, srv, _ := newTestRuntime(t, nil)
	var seq []string
	rt.Subscribe(func(ev RuntimeEvent) {
		switch {
		case ev.Queue != nil:
			seq = append(seq, fmt.Sprintf("queue %v %v", ev.Queue.Steering, ev.Queue.FollowUp))
		case ev.Loop != nil && (ev.Loop.Type == EventTurnStart || ev.Loop.Type == EventAgentEnd):
			seq = append(seq, ev.Loop.Type)
		case ev.Loop != nil && ev.Loop.Type == EventMessageStart && ev.Loop.Message.Role == session.RoleUser:
			seq = append(seq, "user "+ev.Loop.Message.Text())
		}
	})
	rt.SteerNext("early steer", nil)
	rt.FollowUpNext("early follow-up", nil)
	steering, followUp := rt.Queued()
	assert.Equal(t, []string{"early steer"}, steering)
	assert.Equal(t, []string{"early follow-up"}, followUp)
	assert.Empty(t, srv.Requests(), "nothing runs")
	srv.Reply(llmtest.Text("one"))
	srv.Reply(llmtest.Text("two"))
	require.NoError(t, rt.Prompt(context.Background(), "go", nil))
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"go", "early steer"}, userTexts(t, reqs[0]))
	assert.Equal(t, []string{"go", "early steer", "early follow-up"}, userTexts(t, reqs[1]))
	assert.Equal(t, []string{
		"queue [early steer] []", "queue [early steer] [early follow-up]",
		"turn_start", "user go", "queue [] [early follow-up]", "user early steer",
		"turn_start", "queue [] []", "user early follow-up", "agent_end",
	}, seq)
}

// Accepting turns false when the run's final reply ends, decided with
// the queue: a prompt TrySteer queued while that reply streamed makes
// the run go on (delivered in it), one tried after it ended is refused
// (the front end's next prompt), and the next turn accepts again.
func TestAcceptingEndsWithTheFinalReply(t *testing.T) {
	var during []bool
	rt, srv, _ := queueRuntime(t, func(rt *Runtime, n int) {
		during = append(during, rt.Accepting())
	})
	srv.Reply(llmtest.ToolCall("act", `{}`))
	srv.Reply(llmtest.Text("first answer"))
	srv.Reply(llmtest.Text("second answer"))
	type seen struct {
		text      string
		accepting bool
		tried     bool
	}
	var ends []seen
	steered := false
	rt.Subscribe(func(ev RuntimeEvent) {
		if ev.Loop == nil || ev.Loop.Message == nil || ev.Loop.Message.Role != session.RoleAssistant {
			return
		}
		switch ev.Loop.Type {
		case EventMessageUpdate:
			if !steered && strings.Contains(ev.Loop.Message.Text(), "first") {
				steered = true
				assert.True(t, rt.TrySteer(SourceInteractive, "while it streamed", nil), "the reply streams: input joins the run")
			}
		case EventMessageEnd:
			s := seen{text: ev.Loop.Message.Text(), accepting: rt.Accepting()}
			if s.text == "second answer" {
				s.tried = rt.TrySteer(SourceInteractive, "after the end", nil)
			}
			ends = append(ends, s)
		}
	})
	assert.False(t, rt.Accepting(), "no run")
	require.NoError(t, rt.Prompt(context.Background(), "go", nil))
	assert.Equal(t, []bool{true}, during, "a tool runs: the model will be called again")
	assert.Equal(t, []seen{
		{text: "", accepting: true},
		{text: "first answer", accepting: true},
		{text: "second answer", accepting: false, tried: false},
	}, ends, "the reply after the steer was the final one")
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, []string{"go", "while it streamed"}, userTexts(t, reqs[2]))
	assert.False(t, rt.Accepting())
	assert.Empty(t, rt.TakePending(), "the refused prompt was not queued anywhere")
	assert.False(t, rt.TrySteer(SourceInteractive, "between runs", nil))
	assert.False(t, rt.TryFollowUp(SourceInteractive, "between runs", nil))
}

// SteerNext and FollowUpNext after the run's final reply has ended hold
// the message for the next run, as pi's loop, which has stopped polling
// its queues by then: the ending run does not go on with it, its end
// does not hand it to the front end, and the next run delivers it.
func TestQueuedAfterTheFinalReplyWaitsForTheNextRun(t *testing.T) {
	rt, srv, _ := newTestRuntime(t, nil)
	ql := &queueLog{}
	rt.Subscribe(func(ev RuntimeEvent) {
		if ev.Queue != nil {
			ql.add(*ev.Queue)
		}
		if ev.Loop != nil && ev.Loop.Type == EventMessageEnd && ev.Loop.Message.Text() == "one" {
			rt.SteerNext("late steer", nil)
			rt.FollowUpNext("late follow-up", nil)
		}
	})
	srv.Reply(llmtest.Text("one"))
	require.NoError(t, rt.Prompt(context.Background(), "go", nil))
	require.Len(t, srv.Requests(), 1, "the ending run made no more calls")
	assert.Empty(t, rt.TakePending(), "nothing handed to the front end")
	steering, followUp := rt.Queued()
	assert.Equal(t, []string{"late steer"}, steering)
	assert.Equal(t, []string{"late follow-up"}, followUp)

	srv.Reply(llmtest.Text("two"))
	srv.Reply(llmtest.Text("three"))
	require.NoError(t, rt.Prompt(context.Background(), "next", nil))
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, []string{"go", "next", "late steer"}, userTexts(t, reqs[1]))
	assert.Equal(t, []string{"go", "next", "late steer", "late follow-up"}, userTexts(t, reqs[2]))
	ups := ql.all()
	require.NotEmpty(t, ups)
	assert.Equal(t, QueueUpdate{Steering: []string{}, FollowUp: []string{}, Delivered: []string{"late follow-up"}}, ups[len(ups)-1])
}

// A new session (another file) starts with empty queues, as pi's
// replaced session drops its own; queue_update reports it.
func TestNewSessionEmptiesTheQueue(t *testing.T) {
	rt, _, _ := newTestRuntime(t, nil)
	ql := &queueLog{}
	rt.Subscribe(func(ev RuntimeEvent) {
		if ev.Queue != nil {
			ql.add(*ev.Queue)
		}
	})
	rt.SteerNext("steer", nil)
	rt.FollowUpNext("follow-up", nil)
	require.NoError(t, rt.NewSession(context.Background(), false))
	steering, followUp := rt.Queued()
	assert.Empty(t, steering)
	assert.Empty(t, followUp)
	ups := ql.all()
	require.Len(t, ups, 3)
	assert.Equal(t, QueueUpdate{Steering: []string{}, FollowUp: []string{}}, ups[2])
	require.NoError(t, rt.NewSession(context.Background(), false))
	assert.Len(t, ql.all(), 3, "nothing to report when nothing waited")
}
