package agent

// Resuming a session whose path has no thinking level: like pi, the
// runtime continues at the configured level and records it in a
// thinking_level_change entry before anything else.

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lunar-cli/lunar/session"
)

// resumeFile writes a session with the given entries (messages, or
// thinking levels as "level:X") and returns its path.
func resumeFile(t *testing.T, dir string, items ...any) string {
	t.Helper()
	s, err := session.Create(dir, dir)
	require.NoError(t, err)
	for _, it := range items {
		switch v := it.(type) {
		case *session.Message:
			_, err = s.AppendMessage(v)
		case ThinkingLevel:
			_, err = s.AppendThinkingLevel(string(v))
		}
		require.NoError(t, err)
	}
	require.NoError(t, s.Persist())
	require.NoError(t, s.Close())
	return s.File()
}

func TestResumeRecordsThinkingLevel(t *testing.T) {
	tests := []struct {
		name       string
		items      []any
		keep       bool
		wantLevel  ThinkingLevel
		wantRecord bool
	}{
		{"no level on the path: the configured one, recorded", []any{userMsg("q"), assistantMsg("a")}, false, ThinkingHigh, true},
		{"a level on the path wins and nothing is recorded", []any{ThinkingLow, userMsg("q"), assistantMsg("a")}, false, ThinkingLow, false},
		{"the flag wins over the path's level", []any{ThinkingLow, userMsg("q"), assistantMsg("a")}, true, ThinkingHigh, false},
		{"no messages: nothing to continue, nothing recorded", []any{}, false, ThinkingHigh, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := resumeFile(t, dir, tc.items...)
			s, err := session.Open(path)
			require.NoError(t, err)
			before := len(s.Entries())
			rt, err := NewRuntime(RuntimeOptions{Model: Model{Provider: "p", ID: "m", API: APIOpenAICompletions},
				ThinkingLevel: ThinkingHigh, KeepThinking: tc.keep, SessionDir: dir}, s, true)
			require.NoError(t, err)
			defer rt.Close()
			assert.Equal(t, tc.wantLevel, rt.ThinkingLevel())
			entries := s.Entries()
			if !tc.wantRecord {
				assert.Len(t, entries, before)
				return
			}
			require.Len(t, entries, before+1)
			last := entries[len(entries)-1]
			assert.Equal(t, session.TypeThinkingLevelChange, last.Type)
			assert.Equal(t, string(ThinkingHigh), last.ThinkingLevel())
			assert.Equal(t, entries[before-1].ID, last.ParentID, "appended at the leaf")
			assert.True(t, s.PathSettings().ThinkingLevelSet)
		})
	}
}

func TestSwitchRecordsThinkingLevel(t *testing.T) {
	rt, _, _ := newTestRuntime(t, func(o *RuntimeOptions) { o.ThinkingLevel = ThinkingMedium })
	require.NoError(t, rt.SetThinkingLevel(t.Context(), string(ThinkingLow)))
	other := resumeFile(t, filepath.Join(t.TempDir(), "s"), userMsg("q"), assistantMsg("a"))
	require.NoError(t, rt.Switch(t.Context(), other))
	assert.Equal(t, ThinkingMedium, rt.ThinkingLevel(), "the configured level, not the previous session's")
	entries := rt.Session().Entries()
	last := entries[len(entries)-1]
	assert.Equal(t, session.TypeThinkingLevelChange, last.Type)
	assert.Equal(t, string(ThinkingMedium), last.ThinkingLevel())
}
