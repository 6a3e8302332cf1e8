package agent

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The package's tests check the locks functions say their callers hold
// (mustHold): every test that reaches restore through NewRuntime or
// Switch checks that rt.mu is held there.
func init() { checkLocks = true }

// TestRestoreWantsTheRuntimeLock: restore says its caller holds rt.mu;
// called without it, the check fails.
func TestRestoreWantsTheRuntimeLock(t *testing.T) {
	rt, _, _ := newTestRuntime(t, nil)
	assert.PanicsWithValue(t, "agent: the caller must hold the lock", func() { rt.restore() })
	rt.mu.Lock()
	assert.NotPanics(t, func() { rt.restore() })
	rt.mu.Unlock()
}
