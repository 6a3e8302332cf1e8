package stdlib

// The time module: the clock, and sleeping that the hook timeout and
// Ctrl+C interrupt.

import (
	"context"
	"time"

	glua "github.com/yuin/gopher-lua"
)

func timeModule() *Module {
	return &Module{
		Name: "time",
		Doc:  "Clock and sleeping.",
		Funcs: []Func{
			{Name: "now_ms", Fn: timeNowMs, Returns: "integer",
				Doc: "Returns the current time in Unix milliseconds."},
			{Name: "sleep_ms", Fn: timeSleepMs,
				Params: []Param{{Name: "ms", Type: "integer"}},
				Doc:    "Sleeps; the hook timeout and Ctrl+C interrupt it (the handler then stops with an error)."},
		},
	}
}

func timeNowMs(L *glua.LState) int {
	L.Push(glua.LNumber(time.Now().UnixMilli()))
	return 1
}

func timeSleepMs(L *glua.LState) int {
	ms := L.CheckNumber(1)
	ctx := L.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	t := time.NewTimer(time.Duration(float64(ms) * float64(time.Millisecond)))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		L.RaiseError("time.sleep_ms: %s", ctx.Err().Error())
	}
	return 0
}
