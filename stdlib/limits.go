package stdlib

// This file bounds what one hook call can do through the library
// functions. The lua package puts a Limits in the context of every call
// (WithLimits); functions that build large values (string.rep,
// table.concat, string.format, string.gsub, fs.read, http bodies) reserve
// their size before building it, and the ones that can run long (pattern
// matching, sorting, building large strings) check the context as they go,
// so that a timed-out or cancelled call stops inside them too.

import (
	"context"
	"fmt"

	glua "github.com/yuin/gopher-lua"
)

// Limits are the bounds of one hook call.
type Limits struct {
	// MaxBytes caps the memory the call may take (0: no cap).
	MaxBytes int64
	// Used estimates the memory the call holds now, garbage included
	// (nil: unknown). It is consulted for reservations of a megabyte or
	// more.
	Used func() int64
	// Live is what the call holds once garbage is collected (slow; nil:
	// Used), asked before refusing a reservation.
	Live func() int64
}

// MemoryLimitError starts the message of every memory-cap failure.
const MemoryLimitError = "memory limit exceeded"

// reserveCheckMin is the reservation from which Limits.Used is consulted:
// smaller ones are left to the caller's watchdog.
const reserveCheckMin = 256 << 10

// chunkSize is how much a long-running builder writes between two checks
// of the context.
const chunkSize = 1 << 20

type limitsKey struct{}

// WithLimits returns ctx carrying l, for the LState of a hook call.
func WithLimits(ctx context.Context, l *Limits) context.Context {
	return context.WithValue(ctx, limitsKey{}, l)
}

// limitsOf returns the limits of L's current call (nil: none).
func limitsOf(L *glua.LState) *Limits {
	if ctx := L.Context(); ctx != nil {
		l, _ := ctx.Value(limitsKey{}).(*Limits)
		return l
	}
	return nil
}

// reserve raises a Lua error when building n more bytes would take the
// call over its memory cap; what names the operation for the message.
func reserve(L *glua.LState, what string, n int64) {
	lim := limitsOf(L)
	if lim == nil || lim.MaxBytes <= 0 {
		return
	}
	over := n > lim.MaxBytes
	if !over && n >= reserveCheckMin && lim.Used != nil && lim.Used()+n > lim.MaxBytes {
		over = lim.Live == nil || lim.Live()+n > lim.MaxBytes
	}
	if over {
		L.RaiseError("%s: %s would take %s (the cap is %s)", MemoryLimitError, what, FormatBytes(n), FormatBytes(lim.MaxBytes))
	}
}

// holding raises a Lua error when a value being built, already n bytes,
// is over the cap, or the call as a whole is.
func holding(L *glua.LState, what string, n int64) {
	lim := limitsOf(L)
	if lim == nil || lim.MaxBytes <= 0 {
		return
	}
	if n > lim.MaxBytes || (lim.Used != nil && lim.Used() > lim.MaxBytes && (lim.Live == nil || lim.Live() > lim.MaxBytes)) {
		L.RaiseError("%s: %s reached %s (the cap is %s)", MemoryLimitError, what, FormatBytes(n), FormatBytes(lim.MaxBytes))
	}
}

// checkStop raises the context's error, as the Lua VM does between two
// instructions, when the call was stopped (timeout, Ctrl+C, memory cap).
func checkStop(L *glua.LState) {
	if err := stopped(L); err != nil {
		L.RaiseError("%s", err.Error())
	}
}

// stopped returns the context's error once the call was stopped.
func stopped(L *glua.LState) error {
	ctx := L.Context()
	if ctx == nil {
		return nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	default:
		return nil
	}
}

// FormatBytes renders a size for messages: "512 B", "64 KiB", "1.5 GiB".
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	suffix := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}[exp]
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d %s", int64(v), suffix)
	}
	return fmt.Sprintf("%.1f %s", v, suffix)
}
