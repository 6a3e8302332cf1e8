package agent

// Tests of the runtime operations pi's RPC commands need: fork before a
// user message, new sessions with a given parent, cycling the thinking
// level and switching automatic compaction.

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/session"
)

func TestForkBefore(t *testing.T) {
	t.Run("user message", func(t *testing.T) {
		rt, _, h := newTestRuntime(t, nil)
		ids := appendAll(t, rt.Session(), userMsg("q1"), assistantMsg("a1"), userMsg("q2"), assistantMsg("a2"))
		require.NoError(t, rt.Session().Sync())
		oldFile := rt.Session().File()
		text, err := rt.ForkBefore(context.Background(), ids[2])
		require.NoError(t, err)
		assert.Equal(t, "q2", text)
		assert.NotEqual(t, oldFile, rt.Session().File())
		var texts []string
		for _, m := range rt.Session().BuildContext().Messages {
			texts = append(texts, m.Message.Text())
		}
		assert.Equal(t, []string{"q1", "a1"}, texts, "the path before the message")
		assert.Equal(t, []hookCall{{"before_fork", []string{ids[2]}}, {"fork", []string{ids[2]}}}, h.calls)
	})
	t.Run("not a user message", func(t *testing.T) {
		rt, _, h := newTestRuntime(t, nil)
		ids := appendAll(t, rt.Session(), userMsg("q1"), assistantMsg("a1"))
		file := rt.Session().File()
		_, err := rt.ForkBefore(context.Background(), ids[1])
		assert.EqualError(t, err, "fork: entry "+ids[1]+" is not a user message")
		assert.Equal(t, file, rt.Session().File())
		assert.Empty(t, h.calls)
		_, err = rt.ForkBefore(context.Background(), "nope")
		assert.ErrorContains(t, err, `no entry "nope"`)
	})
	t.Run("first entry", func(t *testing.T) {
		cwd := t.TempDir()
		s, err := session.Create(t.TempDir(), cwd)
		require.NoError(t, err)
		rt, err := NewRuntime(RuntimeOptions{Cwd: cwd, SessionDir: t.TempDir(), Model: Model{Provider: "openai", ID: "gpt-4.1"}}, s, true)
		require.NoError(t, err)
		defer rt.Close()
		ids := appendAll(t, rt.Session(), userMsg("only"))
		require.NoError(t, rt.Session().Sync())
		old := rt.Session().File()
		text, err := rt.ForkBefore(context.Background(), ids[0])
		require.NoError(t, err)
		assert.Equal(t, "only", text)
		assert.Empty(t, rt.Session().BuildContext().Messages)
		assert.Equal(t, old, rt.Session().Header().ParentSession)
	})
}

func TestNewSessionFrom(t *testing.T) {
	rt, _, h := newTestRuntime(t, nil)
	old := rt.Session().ID()
	require.NoError(t, rt.NewSessionFrom(context.Background(), "/some/where.jsonl"))
	assert.NotEqual(t, old, rt.Session().ID())
	assert.Equal(t, "/some/where.jsonl", rt.Session().Header().ParentSession)
	assert.Equal(t, []string{"before_clear", "clear"}, h.names())

	h.cancel["clear"] = "busy"
	err := rt.NewSessionFrom(context.Background(), "")
	var ce *CancelledError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "new session cancelled by a hook: busy", err.Error())
}

func TestCycleThinkingLevel(t *testing.T) {
	rt, _, _ := newTestRuntime(t, nil)
	require.False(t, rt.Model().Reasoning, "gpt-4.1 does not reason")
	_, ok, err := rt.CycleThinkingLevel(context.Background())
	require.NoError(t, err)
	assert.False(t, ok, "nothing to cycle")
	assert.Equal(t, ThinkingOff, rt.ThinkingLevel())

	require.NoError(t, rt.SetModel(context.Background(), "openai/o3"))
	require.True(t, rt.Model().Reasoning)
	var got []ThinkingLevel
	for range ThinkingLevels {
		l, ok, err := rt.CycleThinkingLevel(context.Background())
		require.NoError(t, err)
		require.True(t, ok)
		got = append(got, l)
	}
	assert.Equal(t, []ThinkingLevel{ThinkingMinimal, ThinkingLow, ThinkingMedium, ThinkingHigh, ThinkingOff}, got)
	assert.Equal(t, "off", rt.Session().BuildContext().ThinkingLevel)
}

func TestSetAutoCompaction(t *testing.T) {
	rt, _, _ := newTestRuntime(t, nil)
	assert.True(t, rt.CompactionSettings().Enabled, "on by default")
	rt.SetAutoCompaction(false)
	assert.False(t, rt.CompactionSettings().Enabled)
	assert.False(t, rt.Compacting())
}
