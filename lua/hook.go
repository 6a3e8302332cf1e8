package lua

// This file holds one loaded hook: its private, sandboxed *lua.LState and
// the single entry point for running Lua in it (call), which serialises
// access, applies the timeout and the caller's cancellation, and turns
// every failure into an error naming the hook, the event and the Lua line.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	glua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"github.com/lunar-cli/lunar/stdlib"
)

// hook is one script and its state.
type hook struct {
	rt    *Runtime
	index int // load order
	src   Source

	mu     sync.Mutex // held by whoever runs Lua in L
	L      *glua.LState
	codec  *stdlib.Codec
	broken string // non-empty: the state is unusable, and why

	ctx    *glua.LTable // the ctx passed to event handlers
	cmdCtx *glua.LTable // the ctx passed to command handlers (adds set_model, ...)

	// Registrations, in order. Guarded by rt.regMu (written from Lua under
	// mu, read by snapshot rebuilds).
	handlers  []handler
	commands  []*command
	tools     []*hookTool
	renderers []*renderer
	loaded    bool // the main chunk finished; registrations are live

	// ctxCache holds the context event's tables of stored messages from
	// the last call (see context.go); used under mu.
	ctxCache map[ctxKey]ctxCached

	loadTime time.Duration
	errs     []string
	warnings []string

	dataOnce sync.Once
	dataDir  string
	dataErr  error
}

// handler is one lunar.on registration.
type handler struct {
	h  *hook
	ev eventID
	fn *glua.LFunction
}

// ownerKey marks, in a context, the hooks whose state the current
// goroutine is running; a nested call into one of them (a host callback
// that fires an event while the handler waits) runs without re-locking.
type ownerKey struct{}

// owner is one running call: its hook and its timeout, which can be paused
// while the handler waits for the user.
type owner struct {
	h      *hook
	parent *owner

	timer    *time.Timer // nil: no timeout
	deadline time.Time
	timedOut atomic.Bool
}

func owns(ctx context.Context, h *hook) bool {
	for o := ctxOwner(ctx); o != nil; o = o.parent {
		if o.h == h {
			return true
		}
	}
	return false
}

func ctxOwner(ctx context.Context) *owner {
	o, _ := ctx.Value(ownerKey{}).(*owner)
	return o
}

// pauseTimeout stops the timeouts of every call running on ctx (a handler
// waiting for the user, or for a compaction, is not running away) and
// returns the function that restarts them with the time they had left.
func pauseTimeout(ctx context.Context) (resume func()) {
	type paused struct {
		o    *owner
		left time.Duration
	}
	var ps []paused
	for o := ctxOwner(ctx); o != nil; o = o.parent {
		if o.timer != nil && o.timer.Stop() {
			ps = append(ps, paused{o, time.Until(o.deadline)})
		}
	}
	return func() {
		for _, p := range ps {
			p.o.deadline = time.Now().Add(p.left)
			p.o.timer.Reset(p.left)
		}
	}
}

// newState creates the sandboxed state: base (without dofile, loadfile),
// package (require limited to the stdlib and the hook's lib/), string,
// table, math, coroutine and a reduced os.
func (h *hook) newState() {
	// A small data stack that grows on demand: most hooks are small, and
	// lunar may load dozens of them.
	L := glua.NewState(glua.Options{SkipOpenLibs: true, MinimizeStackMemory: true,
		RegistrySize: 1024, RegistryGrowStep: 1024, RegistryMaxSize: 256 * 1024})
	for _, lib := range []struct {
		name string
		fn   glua.LGFunction
	}{
		{glua.LoadLibName, glua.OpenPackage},
		{glua.BaseLibName, glua.OpenBase},
		{glua.TabLibName, glua.OpenTable},
		{glua.StringLibName, glua.OpenString},
		{glua.MathLibName, glua.OpenMath},
		{glua.CoroutineLibName, glua.OpenCoroutine},
		{glua.OsLibName, glua.OpenOs},
	} {
		L.Push(L.NewFunction(lib.fn))
		L.Push(glua.LString(lib.name))
		L.Call(1, 0)
	}
	h.L = L
	h.codec = stdlib.NewCodec(L)

	g := L.G.Global
	for _, name := range []string{"dofile", "loadfile", "_printregs"} {
		g.RawSetString(name, glua.LNil)
	}
	g.RawSetString("print", L.NewFunction(h.luaPrint))

	osT := g.RawGetString("os").(*glua.LTable)
	keep := map[string]bool{"time": true, "clock": true, "date": true, "difftime": true, "getenv": true}
	var drop []string
	osT.ForEach(func(k, _ glua.LValue) {
		if !keep[k.String()] {
			drop = append(drop, k.String())
		}
	})
	for _, k := range drop {
		osT.RawSetString(k, glua.LNil)
	}

	pkg := g.RawGetString("package").(*glua.LTable)
	pkg.RawSetString("loadlib", glua.LNil)
	pkg.RawSetString("path", glua.LString(""))
	pkg.RawSetString("cpath", glua.LString(""))
	loaders := pkg.RawGetString("loaders").(*glua.LTable)
	loaders.RawSetInt(2, L.NewFunction(h.libLoader))

	co := g.RawGetString("coroutine").(*glua.LTable)
	if resume, ok := co.RawGetString("resume").(*glua.LFunction); ok && resume.IsG {
		orig := resume.GFunction
		// A coroutine keeps the context of the call that created it; resume
		// it under the current call's context instead, so that one kept
		// across handler calls neither fails at once nor escapes the timeout.
		co.RawSetString("resume", L.NewFunction(func(L *glua.LState) int {
			if th, ok := L.Get(1).(*glua.LState); ok && L.Context() != nil {
				th.SetContext(L.Context())
			}
			return orig(L)
		}))
		L.Push(L.NewFunctionFromProto(coroutineWrap()))
		L.Call(0, 0)
	}

	stdlib.Preload(L, stdlib.Modules(h.stdlibEnv()))
	lunarT := lunarModule(h).Table(L)
	g.RawSetString("lunar", lunarT)
	L.GetField(pkg, "loaded").(*glua.LTable).RawSetString("lunar", lunarT)
	h.ctx, h.cmdCtx = h.newCtxTables()
}

func (h *hook) stdlibEnv() *stdlib.Env {
	return &stdlib.Env{
		Cwd:         h.rt.cwd(),
		HTTPClient:  h.rt.opts.HTTPClient,
		HTTPTimeout: 0,
		// ctx.data_dir lies under DataDir
		WriteRoots: func() []string { return []string{h.rt.cwd(), h.rt.opts.DataDir} },
	}
}

// dataDirPath returns the hook's data folder, creating it on first use.
func (h *hook) dataDirPath() (string, error) {
	h.dataOnce.Do(func() {
		if h.rt.opts.DataDir == "" {
			h.dataErr = errors.New("no data folder configured")
			return
		}
		h.dataDir = filepath.Join(h.rt.opts.DataDir, "hooks", strings.TrimSuffix(h.src.Name, ".lua"))
		h.dataErr = os.MkdirAll(h.dataDir, 0o755)
	})
	return h.dataDir, h.dataErr
}

func (h *hook) luaPrint(L *glua.LState) int {
	parts := make([]string, L.GetTop())
	for i := range parts {
		parts[i] = L.ToStringMeta(L.Get(i + 1)).String()
	}
	h.rt.log(h, "print", strings.Join(parts, "\t"))
	return 0
}

// coroutineWrapSrc redefines coroutine.wrap on top of the (context-aware)
// coroutine.resume.
const coroutineWrapSrc = `local create, resume = coroutine.create, coroutine.resume
local function pass(ok, ...)
  if not ok then error((...), 0) end
  return ...
end
coroutine.wrap = function(f)
  local co = create(f)
  return function(...) return pass(resume(co, ...)) end
end`

// coroutineWrap is coroutineWrapSrc compiled once for every state.
var coroutineWrap = sync.OnceValue(func() *glua.FunctionProto {
	chunk, err := parse.Parse(strings.NewReader(coroutineWrapSrc), "coroutine.wrap")
	if err != nil {
		panic(err) // a bug in the source above
	}
	proto, err := glua.Compile(chunk, "coroutine.wrap")
	if err != nil {
		panic(err)
	}
	return proto
})

var libNameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_-]*(\.[A-Za-z0-9_][A-Za-z0-9_-]*)*$`)

// libLoader is require's second searcher: <hook folder>/lib/<name>.lua,
// dots as folder separators, never outside lib/.
func (h *hook) libLoader(L *glua.LState) int {
	name := L.CheckString(1)
	if !libNameRE.MatchString(name) {
		L.Push(glua.LString(fmt.Sprintf("\n\tinvalid module name %q (only lib/ modules and the standard modules can be required)", name)))
		return 1
	}
	rel := path.Join("lib", strings.ReplaceAll(name, ".", "/")+".lua")
	code, display, err := h.src.readLib(rel)
	if err != nil {
		L.Push(glua.LString("\n\t" + err.Error()))
		return 1
	}
	fn, err := L.Load(bytes.NewReader(code), display)
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	L.Push(fn)
	return 1
}

// callError is a failed handler call.
type callError struct {
	msg     string
	timeout bool
	cause   error // the caller's context error when it was cancelled (Ctrl+C)
}

func (e *callError) Error() string { return e.msg }

// Unwrap lets callers recognise a cancelled call (errors.Is(err,
// context.Canceled)), e.g. to exit with "interrupted".
func (e *callError) Unwrap() error { return e.cause }

// run calls fn in the hook's state. build (under the lock) returns the
// arguments; use (under the lock) consumes the first result. It holds the
// hook's lock unless ctx shows this goroutine already runs the state (a
// host callback firing an event while a handler waits), and runs under ctx
// plus timeout (0: none). Errors name the Lua position.
func (h *hook) run(ctx context.Context, timeout time.Duration, fn glua.LValue,
	build func(L *glua.LState) ([]glua.LValue, error), use func(ret glua.LValue) error) error {
	if !owns(ctx, h) {
		h.mu.Lock()
		defer h.mu.Unlock()
	}
	if h.broken != "" {
		return &callError{msg: "hook disabled: " + h.broken}
	}
	L := h.L
	var args []glua.LValue
	if build != nil {
		var err error
		if args, err = build(L); err != nil {
			return err
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ow := &owner{h: h, parent: ctxOwner(ctx)}
	if timeout > 0 {
		ow.deadline = time.Now().Add(timeout)
		ow.timer = time.AfterFunc(timeout, func() {
			ow.timedOut.Store(true)
			cancel()
		})
		defer ow.timer.Stop()
	}
	cctx = context.WithValue(cctx, ownerKey{}, ow)
	prev := L.Context()
	L.SetContext(cctx)
	defer func() {
		if prev != nil {
			L.SetContext(prev)
		} else {
			L.RemoveContext()
		}
	}()
	top := L.GetTop()
	defer L.SetTop(top)
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	if err := L.PCall(len(args), 1, nil); err != nil {
		return h.callErr(err, ctx, ow, timeout)
	}
	if use == nil {
		return nil
	}
	return use(L.Get(-1))
}

// callErr turns a PCall error into a message with the Lua position.
func (h *hook) callErr(err error, parent context.Context, ow *owner, timeout time.Duration) error {
	var api *glua.ApiError
	msg := err.Error()
	if errors.As(err, &api) {
		if api.Object != nil {
			msg = api.Object.String()
		}
		if api.Type == glua.ApiErrorPanic {
			// A Go panic inside the state: it cannot be trusted any more.
			h.broken = "internal error: " + msg
			return &callError{msg: "internal error (hook disabled): " + msg}
		}
	}
	canceled := context.Canceled.Error()
	switch {
	case ow.timedOut.Load():
		if strings.Contains(msg, canceled) {
			msg = strings.Replace(msg, canceled, "timed out after "+timeout.String(), 1)
		} else {
			msg = "timed out after " + timeout.String() + ": " + msg
		}
		return &callError{msg: msg, timeout: true}
	case parent.Err() != nil:
		return &callError{msg: strings.Replace(msg, parent.Err().Error(), "cancelled", 1), cause: parent.Err()}
	}
	return &callError{msg: msg}
}

// close releases the state.
func (h *hook) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.L != nil {
		h.L.Close()
		h.L = nil
		h.broken = "closed"
	}
}

// readLib reads a lib/ module of the hook's source, refusing symlinks that
// lead outside lib/.
func (s *Source) readLib(rel string) ([]byte, string, error) {
	display := rel
	if s.dir != "" {
		p := filepath.Join(s.dir, filepath.FromSlash(rel))
		display = p
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil, display, fmt.Errorf("no file %s", p)
		}
		libReal, err := filepath.EvalSymlinks(filepath.Join(s.dir, "lib"))
		if err != nil || !strings.HasPrefix(real, libReal+string(filepath.Separator)) {
			return nil, display, fmt.Errorf("%s: leads outside %s", p, filepath.Join(s.dir, "lib"))
		}
		code, err := os.ReadFile(real)
		if err != nil {
			return nil, display, err
		}
		return code, display, nil
	}
	if s.fsys == nil {
		return nil, display, fmt.Errorf("no file %s", rel)
	}
	code, err := fs.ReadFile(s.fsys, rel)
	if err != nil {
		return nil, display, fmt.Errorf("no file %s in the bundled hooks", rel)
	}
	return code, "hooks.d/" + rel, nil
}
