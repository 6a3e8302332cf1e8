package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestLeaveIfStuck(t *testing.T) {
	run := func(signal, finish bool) bool {
		stopping, finished := make(chan struct{}), make(chan struct{})
		left := make(chan bool, 2)
		go func() {
			leaveIfStuck(stopping, finished, 20*time.Millisecond, func() { left <- true })
			left <- false
		}()
		if finish {
			close(finished)
		}
		if signal {
			close(stopping)
		}
		return <-left
	}
	assert.False(t, run(false, true), "a run that ended without a signal")
	assert.False(t, run(true, true), "a run that ended")
	assert.True(t, run(true, false), "a run still going after the grace")
}
