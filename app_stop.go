// What lunar does when a signal asked it to stop and the run does not:
// it leaves anyway, with the session saved and unlocked.

package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// stopGrace is how long lunar waits, after SIGTERM (or a one-shot
// Ctrl+C), for the running step to stop. Every tool stops within it (bash
// kills its process group after 2 s; read, write and edit never wait on
// a FIFO or a device); it is the last resort for one that does not (a
// file system that hangs), so that a signal always ends lunar with its
// session saved and unlocked rather than a stale lock.
const stopGrace = 5 * time.Second

// interruptible returns a context that the first SIGINT or SIGTERM
// cancels, and its stop. The signals' default action (ending the process)
// is back before the context is cancelled, so that once the run has begun
// to stop, a second Ctrl+C ends lunar at once.
func interruptible() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-sigs:
		case <-ctx.Done():
		}
		signal.Stop(sigs)
		cancel()
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel()
	}
}

// leaveIfStuck waits until stopping is closed (a signal asked lunar to
// stop), then until finished is closed (the run returned); if that takes
// longer than grace, it calls leave. finished must be closed before
// stopping when the run ends without a signal.
func leaveIfStuck(stopping, finished <-chan struct{}, grace time.Duration, leave func()) {
	select {
	case <-stopping:
	case <-finished:
		return
	}
	select {
	case <-finished:
	case <-time.After(grace):
		leave()
	}
}

// watchStop makes lunar leave when the run is still going stopGrace after
// stopping was closed: the session is saved and closed (unlocked), the
// terminal restored, and the process ends with exitInterrupted.
func (a *app) watchStop(stopping, finished <-chan struct{}) {
	go leaveIfStuck(stopping, finished, stopGrace, func() {
		fmt.Fprintf(a.stderr, "lunar: the running step did not stop within %v of the signal; leaving without it (the session is saved)\n", stopGrace)
		a.closeTerminal()
		if err := a.agentRuntime.Close(); err != nil {
			fmt.Fprintf(a.stderr, "lunar: closing session: %v\n", err)
		}
		os.Exit(exitInterrupted)
	})
}
