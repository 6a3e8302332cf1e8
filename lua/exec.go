package lua

// This file implements lunar.exec: run a program without a shell, bounded
// by its own timeout and the handler's context; on either, the program's
// whole process group is killed so no grandchild outlives it.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"time"

	glua "github.com/yuin/gopher-lua"
)

// maxExecOutput bounds what lunar.exec keeps of each stream.
const maxExecOutput = 16 << 20

// cappedBuffer keeps the first max bytes written to it.
type cappedBuffer struct {
	bytes.Buffer
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		if len(p) > room {
			b.Buffer.Write(p[:room])
		} else {
			b.Buffer.Write(p)
		}
	}
	return len(p), nil
}

func (h *hook) luaExec(L *glua.LState) int {
	name := L.CheckString(1)
	var args []string
	if t, ok := L.Get(2).(*glua.LTable); ok {
		for i := 1; i <= t.Len(); i++ {
			v := t.RawGetInt(i)
			if v.Type() != glua.LTString && v.Type() != glua.LTNumber {
				L.ArgError(2, fmt.Sprintf("args[%d]: string expected, got %s", i, v.Type()))
			}
			args = append(args, v.String())
		}
	} else if L.Get(2) != glua.LNil {
		L.ArgError(2, "args must be a table of strings")
	}
	dir := h.rt.cwd()
	var timeout time.Duration
	if opts, ok := L.Get(3).(*glua.LTable); ok {
		if d := luaOptString(L, opts, "cwd", 3); d != "" {
			if !filepath.IsAbs(d) {
				d = filepath.Join(dir, d)
			}
			dir = d
		}
		switch v := opts.RawGetString("timeout_ms").(type) {
		case *glua.LNilType:
		case glua.LNumber:
			if v <= 0 {
				L.ArgError(3, "timeout_ms must be positive")
			}
			timeout = time.Duration(float64(v) * float64(time.Millisecond))
		default:
			L.ArgError(3, "timeout_ms must be a number")
		}
	}
	if err := h.rt.host.CheckExec(name, args, dir); err != nil {
		return pushResult(L, err)
	}
	parent := L.Context()
	if parent == nil {
		parent = context.Background()
	}
	ctx := parent
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(parent, timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var stdout, stderr cappedBuffer
	stdout.max, stderr.max = maxExecOutput, maxExecOutput
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	setProcessGroup(cmd)
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	killed := ctx.Err() != nil
	code := 0
	var exitErr *exec.ExitError
	switch {
	case killed:
		code = -1
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil:
		return pushResult(L, err)
	}
	t := L.CreateTable(0, 4)
	t.RawSetString("code", glua.LNumber(code))
	t.RawSetString("stdout", glua.LString(stdout.String()))
	t.RawSetString("stderr", glua.LString(stderr.String()))
	t.RawSetString("killed", glua.LBool(killed))
	L.Push(t)
	return 1
}
