package lua

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHookStateTransitions: only hookState's listed transitions are
// made; a final state is never left, and the first of two disablers
// keeps its reason.
func TestHookStateTransitions(t *testing.T) {
	states := []hookState{hookLoading, hookLoaded, hookFailed, hookDisabled, hookClosed}
	allowed := map[[2]hookState]bool{
		{hookLoading, hookLoaded}:   true,
		{hookLoading, hookFailed}:   true,
		{hookLoading, hookDisabled}: true,
		{hookLoading, hookClosed}:   true,
		{hookLoaded, hookDisabled}:  true,
		{hookLoaded, hookClosed}:    true,
	}
	for _, from := range states {
		for _, to := range states {
			h := &hook{}
			if from != hookLoading {
				h.status.Store(&hookStatus{state: from, why: "before"})
			}
			ok := h.setState(to, "after")
			st, why := h.state()
			if allowed[[2]hookState{from, to}] {
				assert.True(t, ok, "%d → %d", from, to)
				assert.Equal(t, to, st)
				assert.Equal(t, "after", why)
			} else {
				assert.False(t, ok, "%d → %d", from, to)
				assert.Equal(t, from, st)
			}
		}
	}
}

// TestAnOutHookIsUnavailable: failed, disabled and closed hooks refuse
// calls with the error a call to them always gave.
func TestAnOutHookIsUnavailable(t *testing.T) {
	for _, c := range []struct {
		st   hookState
		want string
	}{
		{hookLoading, ""},
		{hookLoaded, ""},
		{hookFailed, "hook disabled: closed"},
		{hookDisabled, "hook disabled: why"},
		{hookClosed, "hook disabled: closed"},
	} {
		h := &hook{}
		h.status.Store(&hookStatus{state: c.st, why: "why"})
		err := h.unavailable()
		if c.want == "" {
			assert.NoError(t, err, c.st)
			continue
		}
		assert.EqualError(t, err, c.want, c.st)
	}
}

// TestCommandOwnerWantsTheRegistrationLock: commandOwner says its caller
// holds r.regMu; called without it, the check fails.
func TestCommandOwnerWantsTheRegistrationLock(t *testing.T) {
	r := newRuntime(Options{})
	assert.PanicsWithValue(t, "lua: the caller must hold the lock", func() { r.commandOwner("x") })
	r.regMu.Lock()
	assert.NotPanics(t, func() { r.commandOwner("x") })
	r.regMu.Unlock()
}
