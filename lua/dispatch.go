package lua

// This file dispatches events to handlers: the generic call of one handler
// (payload table, result validation, reporting, tracing) and the three
// chaining disciplines: notifications run every handler, transforms feed
// each result to the next handler in load order, cancel events stop at the
// first cancel. Every entry point checks for listeners before building
// anything, so an event nobody listens to costs no allocation.

import (
	"context"
	"fmt"
	"strings"
	"time"

	glua "github.com/yuin/gopher-lua"
)

// fillFunc adds an event's payload fields to its table.
type fillFunc func(h *hook, L *glua.LState, ev *glua.LTable) error

// useFunc reads a handler's result table. It must only record what it
// reads: the caller applies it when the whole result proved well-formed.
type useFunc func(rr *resultReader) error

// shapeError is a result that does not have the documented shape.
type shapeError struct{ msg string }

// badResult is the shapeError of err, its message cut to maxErrorMessage
// (it may quote what the hook returned).
func badResult(err error) *shapeError { return &shapeError{capMessage(err.Error())} }

func (e *shapeError) Error() string { return "bad result: " + e.msg }

// resultKeys are the keys each event's result may have.
var resultKeys = func() (keys [numEvents][]string) {
	for id := range keys {
		for _, f := range events[id].Result {
			keys[id] = append(keys[id], f.Name)
		}
	}
	return keys
}()

// runSessionEvents are the events whose payload carries the open
// session's id (fRunSession), set by invoke.
var runSessionEvents = func() (out [numEvents]bool) {
	for id := range numEvents {
		for _, f := range events[id].Payload {
			if f == fRunSession {
				out[id] = true
			}
		}
	}
	return out
}()

// sessionID is the open session's id ("" without one).
func (r *Runtime) sessionID() string {
	if s := r.host.Session(); s != nil {
		return s.ID()
	}
	return ""
}

// invoke runs one handler with (ev, ctx) and hands a result table to use.
// Failures are reported ("hook <file>: <event>: <message>") and returned;
// a handler stopped by ctx is not reported.
func (r *Runtime) invoke(ctx context.Context, hd handler, fill fillFunc, use useFunc) error {
	spec := &events[hd.ev]
	h := hd.h
	timeout := r.opts.Timeout
	if spec.NoTimeout {
		timeout = 0
	}
	start := time.Now()
	nargs := params(hd.fn, 2)
	err := h.run(ctx, timeout, hd.fn, func(L *glua.LState) ([]glua.LValue, error) {
		if nargs == 0 {
			return nil, nil
		}
		ev := L.CreateTable(0, len(spec.Payload)+1)
		ev.RawSetString("type", glua.LString(spec.Name))
		if runSessionEvents[hd.ev] {
			ev.RawSetString("session_id", glua.LString(r.sessionID()))
		}
		if fill != nil {
			if err := fill(h, L, ev); err != nil {
				return nil, fmt.Errorf("building the event: %w", err)
			}
		}
		if nargs == 1 {
			return []glua.LValue{ev}, nil
		}
		return []glua.LValue{ev, h.ctxTable(false)}, nil
	}, func(ret glua.LValue) error {
		if spec.Result == nil || use == nil || ret == glua.LNil {
			return nil
		}
		t, ok := ret.(*glua.LTable)
		if !ok {
			return &shapeError{fmt.Sprintf("a table or nil expected, got %s", ret.Type())}
		}
		if hd.piShape != nil {
			var err error
			if t, err = hd.piShape(h.L, t); err != nil {
				return badResult(err)
			}
		}
		rr := &resultReader{h: h, t: t, known: resultKeys[hd.ev]}
		if err := rr.checkKeys(); err != nil {
			return badResult(err)
		}
		if err := use(rr); err != nil {
			return badResult(err)
		}
		if rr.err != nil {
			return badResult(rr.err)
		}
		return nil
	})
	r.trace(h, spec.Name, start, err)
	// A handler the caller stopped (Ctrl+C, even at a question the hook
	// asked) did not fail: only --debug's trace says so.
	if err != nil && ctx.Err() == nil {
		r.report(fmt.Sprintf("hook %s: %s: %v", h.src.Name, spec.Name, err))
	}
	return err
}

// params is how many of n arguments fn can see: a Lua function that
// declares fewer parameters (and no ...) cannot reach the others, which
// are then not built (a handler without parameters costs no event table,
// one without ctx no ctx).
func params(fn *glua.LFunction, n int) int {
	if fn.IsG || fn.Proto == nil || fn.Proto.IsVarArg != 0 {
		return n
	}
	return min(int(fn.Proto.NumParameters), n)
}

// trace writes one Debug line for a handler call.
func (r *Runtime) trace(h *hook, what string, start time.Time, err error) {
	if r.opts.Debug == nil {
		return
	}
	outcome := "ok"
	if err != nil {
		outcome = "error: " + strings.ReplaceAll(err.Error(), "\n", " ")
	}
	fmt.Fprintf(r.opts.Debug, "hook %s: %s: %s %s\n", h.src.Name, what, time.Since(start).Round(time.Microsecond), outcome)
}

// notify runs every handler of a notification event.
func (r *Runtime) notify(ctx context.Context, id eventID, fill fillFunc) {
	for _, hd := range r.listeners(id) {
		r.invoke(ctx, hd, fill, nil)
	}
}

// cancelable runs the handlers of a cancel event until one cancels.
func (r *Runtime) cancelable(ctx context.Context, id eventID, fill fillFunc) (cancel bool, reason string) {
	for _, hd := range r.listeners(id) {
		var c bool
		var why string
		err := r.invoke(ctx, hd, fill, func(rr *resultReader) error {
			c, _ = rr.boolean("cancel")
			why, _ = rr.str("reason")
			return nil
		})
		if err == nil && c {
			return true, why
		}
	}
	return false, ""
}

// setStr returns a fill that sets string fields (pairs of key, value).
func setStr(kv ...string) fillFunc {
	return func(_ *hook, _ *glua.LState, ev *glua.LTable) error {
		for i := 0; i+1 < len(kv); i += 2 {
			ev.RawSetString(kv[i], glua.LString(kv[i+1]))
		}
		return nil
	}
}
