package lua

// This file implements lunar.exec: run a program without a shell, bounded
// by its own timeout and the handler's context; on either, the program's
// whole process group is killed so no grandchild outlives it.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
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
	var env []string // nil: lunar's own environment
	var stdin *string
	if opts, ok := L.Get(3).(*glua.LTable); ok {
		env = execEnv(L, opts)
		switch v := opts.RawGetString("stdin").(type) {
		case *glua.LNilType:
		case glua.LString:
			s := string(v)
			stdin = &s
		default:
			L.ArgError(3, "stdin must be a string")
		}
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
	cmd.Env = env
	if stdin != nil {
		cmd.Stdin = strings.NewReader(*stdin)
	}
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

// execEnv is the environment of opts.env: lunar's own with each name set
// to its string value, or removed for false; nil without opts.env (the
// program inherits lunar's environment unchanged).
func execEnv(L *glua.LState, opts *glua.LTable) []string {
	t, ok := opts.RawGetString("env").(*glua.LTable)
	if !ok {
		if opts.RawGetString("env") != glua.LNil {
			L.ArgError(3, "env must be a table of name = string|false")
		}
		return nil
	}
	set := map[string]*string{}
	t.ForEach(func(k, v glua.LValue) {
		name, ok := k.(glua.LString)
		if !ok || name == "" || strings.ContainsAny(string(name), "=\x00") {
			L.ArgError(3, fmt.Sprintf("env: %s is not a variable name", k))
		}
		switch v := v.(type) {
		case glua.LString, glua.LNumber:
			s := v.String()
			if strings.ContainsRune(s, 0) {
				L.ArgError(3, fmt.Sprintf("env.%s contains a NUL byte", name))
			}
			set[string(name)] = &s
		case glua.LBool:
			if v {
				L.ArgError(3, fmt.Sprintf("env.%s: string or false expected, got true", name))
			}
			set[string(name)] = nil
		default:
			L.ArgError(3, fmt.Sprintf("env.%s: string or false expected, got %s", name, v.Type()))
		}
	})
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		if runtime.GOOS == "windows" { // names are case-insensitive there
			for n := range set {
				if strings.EqualFold(n, name) {
					return true
				}
			}
			return false
		}
		_, listed := set[name]
		return listed
	})
	names := make([]string, 0, len(set))
	for name := range set {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if v := set[name]; v != nil {
			env = append(env, name+"="+*v)
		}
	}
	return env
}
