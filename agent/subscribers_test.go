package agent

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

func TestSubscribersUnsubscribeRemoves(t *testing.T) {
	var s subscribers[int]
	var got []string
	unA := s.add(func(v int) { got = append(got, "a") })
	var unB func()
	unB = s.add(func(v int) { got = append(got, "b"); unB() }) // removes itself while emitting
	s.add(func(v int) { got = append(got, "c") })
	s.emit(1)
	s.emit(2)
	assert.Equal(t, []string{"a", "b", "c", "a", "c"}, got)
	assert.Equal(t, 2, s.len())
	unA()
	unA() // twice: nothing more
	unB()
	assert.Equal(t, 1, s.len())
}

// A front end that subscribes for each prompt (the REPL) leaves the
// lists as they were.
func TestRuntimeSubscribersDoNotGrow(t *testing.T) {
	rt, srv, _ := newTestRuntime(t, nil)
	srv.SetDefault(llmtest.Text("ok"))
	baseRT, baseAgent := rt.subscribers.len(), rt.agent.subscribers.len()
	deltas := 0
	for range 20 {
		unsub := rt.SubscribeLoop(func(ev Event) {
			if ev.Type == EventMessageUpdate {
				deltas++
			}
		})
		require.NoError(t, rt.Prompt(context.Background(), "hi", nil))
		unsub()
	}
	assert.Equal(t, baseRT, rt.subscribers.len())
	assert.Equal(t, baseAgent, rt.agent.subscribers.len())
	assert.Positive(t, deltas)
	before := deltas
	require.NoError(t, rt.Prompt(context.Background(), "hi", nil))
	assert.Equal(t, before, deltas, "an unsubscribed handler gets nothing")
}
