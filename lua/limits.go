package lua

// This file bounds what one hook call may take: the memory watchdog that
// turns a call's heap growth past Options.MemoryLimit into a stopped call,
// the wait that gives up on a call stuck in Go code once it should have
// stopped, and disabling a hook for the session (after a memory overrun,
// MaxTimeouts timeouts in a row or an internal error). The overruns never
// disable a guard (guard.go): its call fails, and the next one asks it
// again.
//
// gopher-lua has no allocator hook, so memory is measured, not counted:
// the watchdog samples the process heap every memCheckInterval while a
// call runs and compares it with the lowest value seen since the call
// began. Past the cap it has the garbage collected (in the background:
// the call goes on meanwhile) and stops the call if the heap is still
// over; past twice the cap it stops the call at once, as garbage cannot
// explain that much. Once the call holds half its cap, the call's own
// goroutine also samples the heap after any VM instruction that took a
// millisecond or more (the VM asks its context before each instruction:
// callCtx), so that a loop of s = s .. s is stopped after the step that
// crossed the cap rather than several doublings later. Everything
// allocated meanwhile by the rest of lunar counts too, and one step of
// the VM can still overshoot, which is why the library functions that
// build large values check the cap before building (stdlib.Limits).

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/lunar-cli/lunar/stdlib"
)

// DefaultMemoryLimit is the memory a hook call may take without
// Options.MemoryLimit.
const DefaultMemoryLimit = 256 << 20

// DefaultMaxTimeouts is how many calls of a hook in a row may time out
// before it is disabled for the session, without Options.MaxTimeouts.
const DefaultMaxTimeouts = 3

// abandonGrace is how long a stopped call (timed out, over its memory
// cap, cancelled) may take to return: longer means it is stuck in Go code
// that does not check its context, and the caller stops waiting.
const abandonGrace = 80 * time.Millisecond

// busyWait bounds how long a call waits for its hook's previous call,
// stopped but not yet returned, before it fails with "hook busy": on a
// loaded machine a stopped Lua loop can take longer than abandonGrace to
// be scheduled and return, and the next call should not fail for that;
// a call stuck in Go code costs each later call at most this much.
const busyWait = time.Second

// setStuck marks whether a call that was given up on still runs.
func (h *hook) setStuck(v bool) {
	h.stuckMu.Lock()
	defer h.stuckMu.Unlock()
	switch {
	case v && !h.stuck.Load():
		h.unstuck = make(chan struct{})
	case !v && h.stuck.Load():
		close(h.unstuck)
	}
	h.stuck.Store(v)
}

// waitUnstuck waits for a stopped call of the hook to return: at most
// busyWait, or until ctx ends.
func (h *hook) waitUnstuck(ctx context.Context) {
	if !h.stuck.Load() {
		return
	}
	h.stuckMu.Lock()
	ch := h.unstuck
	h.stuckMu.Unlock()
	if ch == nil {
		return
	}
	t := time.NewTimer(busyWait)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	case <-ctx.Done():
	}
}

// memCheckInterval is how often the watchdog samples the heap.
const memCheckInterval = 10 * time.Millisecond

func (r *Runtime) memoryLimit() int64 {
	switch {
	case r.opts.MemoryLimit < 0:
		return 0
	case r.opts.MemoryLimit == 0:
		return DefaultMemoryLimit
	}
	return r.opts.MemoryLimit
}

func (r *Runtime) maxTimeouts() int {
	if r.opts.MaxTimeouts == 0 {
		return DefaultMaxTimeouts
	}
	return r.opts.MaxTimeouts
}

// heapBytes is the heap the process holds now, live and not yet swept.
func heapBytes() int64 {
	s := [1]metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s[:])
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// memWatch measures one call's memory and stops the call past its cap.
type memWatch struct {
	limit    int64
	base     atomic.Int64 // the lowest heap seen since the call began
	exceeded atomic.Bool
	held     atomic.Int64 // what the call held when it was stopped
	stopped  atomic.Bool
	gc       atomic.Bool  // a collection asked for by the watchdog is running
	near     atomic.Bool  // the call holds half its cap: callCtx samples too
	polled   atomic.Int64 // when callCtx last sampled (Unix ns)
	cancel   context.CancelFunc
	limits   stdlib.Limits

	mu    sync.Mutex // guards timer, which tick may read before AfterFunc returns
	timer *time.Timer
}

// watchMemory starts the watchdog of a call; cancel stops the call. Nil
// when there is no cap.
func (r *Runtime) watchMemory(cancel context.CancelFunc) *memWatch {
	limit := r.memoryLimit()
	if limit <= 0 {
		return nil
	}
	w := &memWatch{limit: limit, cancel: cancel}
	w.base.Store(heapBytes())
	w.limits = stdlib.Limits{MaxBytes: limit, Used: w.used, Live: w.live}
	w.mu.Lock()
	w.timer = time.AfterFunc(memCheckInterval, w.tick)
	w.mu.Unlock()
	return w
}

// used is the heap growth since the call began.
func (w *memWatch) used() int64 {
	cur := heapBytes()
	for {
		b := w.base.Load()
		if cur >= b {
			return cur - b
		}
		if w.base.CompareAndSwap(b, cur) {
			return 0
		}
	}
}

// live is what the call holds once garbage is collected (slow).
func (w *memWatch) live() int64 {
	runtime.GC()
	return w.used()
}

// exceed stops the call for holding used bytes.
func (w *memWatch) exceed(used int64) {
	if w.stopped.Load() || !w.exceeded.CompareAndSwap(false, true) {
		return
	}
	w.held.Store(used)
	w.cancel()
}

func (w *memWatch) tick() {
	if w.stopped.Load() || !w.check() {
		return
	}
	w.mu.Lock()
	if !w.stopped.Load() {
		w.timer.Reset(memCheckInterval)
	}
	w.mu.Unlock()
}

// check samples the heap and stops the call when it is over its cap; it
// reports whether the call goes on.
func (w *memWatch) check() bool {
	used := w.used()
	w.near.Store(used > w.limit/2)
	switch {
	case used > 2*w.limit:
		w.exceed(used)
		return false
	case used > w.limit && w.gc.CompareAndSwap(false, true):
		// Count only what is still reachable: garbage is not the call's.
		// Not here: a collection takes long while the call allocates fast.
		go func() {
			defer w.gc.Store(false)
			if used := w.live(); used > w.limit {
				w.exceed(used)
			}
		}()
	}
	return true
}

// poll is check from the call's goroutine, at most once a millisecond,
// while the call is near its cap.
func (w *memWatch) poll() {
	now := time.Now().UnixNano()
	if last := w.polled.Load(); now-last < int64(time.Millisecond) || !w.polled.CompareAndSwap(last, now) {
		return
	}
	w.check()
}

// callCtx is the context a call's LState runs under. The VM calls Done
// before every instruction; near the cap, that is where the heap is
// sampled right after a long instruction.
type callCtx struct {
	context.Context
	w *memWatch
}

func (c *callCtx) Done() <-chan struct{} {
	if c.w.near.Load() {
		c.w.poll()
	}
	return c.Context.Done()
}

func (w *memWatch) stop() {
	if w != nil {
		w.stopped.Store(true)
		w.mu.Lock()
		w.timer.Stop()
		w.mu.Unlock()
	}
}

// over reports whether the watchdog stopped the call.
func (w *memWatch) over() bool { return w != nil && w.exceeded.Load() }

// message describes the overrun.
func (w *memWatch) message() string {
	return fmt.Sprintf("%s (the call held %s; the cap is %s)", stdlib.MemoryLimitError,
		stdlib.FormatBytes(w.held.Load()), stdlib.FormatBytes(w.limit))
}

// overran disables the hook after a memory overrun, unless it is a guard;
// it returns what ends the call's error.
func (h *hook) overran() string {
	if !h.isGuard() && h.disable(stdlib.MemoryLimitError) {
		return disabledNote
	}
	return ""
}

// disable takes the hook out of the session: its handlers, commands,
// tools and renderers are dropped, calls already holding them fail at
// once, and its state is released when its last call ends. why is kept
// for `lunar hooks`; it reports whether this call disabled the hook (the
// caller then says so in its error, the one report).
func (h *hook) disable(why string) bool {
	h.rt.regMu.Lock()
	if !h.setState(hookDisabled, why) {
		h.rt.regMu.Unlock()
		return false
	}
	h.errs = append(h.errs, "disabled for this session: "+why)
	h.rt.regMu.Unlock()
	h.rt.rebuild()
	return true
}

// maxErrorMessage is how much of a hook's error message lunar keeps. A
// hook's error() may carry any string (120 MiB took a one-shot run to a
// peak near 1 GB as it was copied into the report, the trace, the tool
// result and the session); what is past this is cut.
const maxErrorMessage = 8 << 10

// capMessage keeps the first maxErrorMessage bytes of msg (at a character
// boundary) and says how much was cut. The result never shares memory
// with a longer msg, which can then be freed.
func capMessage(msg string) string {
	return clip(msg, maxErrorMessage)
}

// clip is capMessage with max bytes kept.
func clip(msg string, max int) string {
	if len(msg) <= max {
		return msg
	}
	n := max
	for n > 0 && !utf8.RuneStart(msg[n]) {
		n--
	}
	return msg[:n] + "… (" + stdlib.FormatBytes(int64(len(msg)-n)) + " more cut)"
}

// disabledNote ends the error of the call that disabled its hook.
const disabledNote = "; hook disabled for this session"

// unavailable is the error of a call to a hook that is out (failed,
// disabled, closed) or stuck, nil when it may run.
func (h *hook) unavailable() error {
	switch st, why := h.state(); st {
	case hookDisabled:
		return &callError{msg: "hook disabled: " + why}
	case hookFailed, hookClosed:
		return &callError{msg: "hook disabled: closed"}
	}
	if h.stuck.Load() {
		return &callError{msg: "hook busy: its previous call was stopped and has not returned yet"}
	}
	return nil
}

// closeDisabledAndUnlock ends an outermost call: a disabled hook's state
// is closed (with it whatever the hook held), unless a call waiting for
// the user will return into it (the last call to end closes it), then
// the next call may run.
func (h *hook) closeDisabledAndUnlock() {
	if st, _ := h.state(); st == hookDisabled && h.L != nil && h.suspended == 0 {
		h.L.Close()
		h.L, h.ctx, h.cmdCtx, h.ctxCache = nil, nil, nil, nil
		h.rt.regMu.Lock()
		h.handlers, h.commands, h.tools, h.renderers = nil, nil, nil, nil
		h.rt.regMu.Unlock()
	}
	h.mu.Unlock()
}

// countTimeout counts consecutive timeouts and disables the hook at
// MaxTimeouts (a guard never); any other outcome but a cancellation
// resets the count.
func (h *hook) countTimeout(err error) {
	ce, _ := err.(*callError)
	switch {
	case ce != nil && ce.timeout:
		n := h.timeouts.Add(1)
		why := fmt.Sprintf("timed out %d times in a row", n)
		if n == 1 {
			why = "the first timeout disables it: hook_max_timeouts is 1"
		}
		if limit := h.rt.maxTimeouts(); limit > 0 && int(n) >= limit && !h.isGuard() && h.disable(why) {
			ce.msg += " (" + why + ")" + disabledNote
		}
	case ce != nil && ce.cause != nil:
	default:
		h.timeouts.Store(0)
	}
}
