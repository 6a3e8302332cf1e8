package lua

// This file holds one loaded hook: its private, sandboxed *lua.LState and
// the single entry point for running Lua in it (run), which serialises
// access, applies the timeout, the memory cap and the caller's
// cancellation, and turns every failure into an error naming the hook, the
// event and the Lua line.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
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
	codecV *stdlib.Codec // see codec()
	// suspended counts the calls waiting for the user with mu released
	// (waitForUser); the state is not closed under them. Used under mu.
	suspended int

	// status is whether the hook can be called (see hookState); stuck is
	// set while a call that was given up on still runs. Both are read
	// without mu, so that no call waits behind a stuck one longer than
	// busyWait; unstuck is closed when that call returns.
	status   atomic.Pointer[hookStatus]
	stuck    atomic.Bool
	stuckMu  sync.Mutex
	unstuck  chan struct{}
	timeouts atomic.Int32 // consecutive timed-out calls

	// guard is set by lunar.guard() (guard.go); refusing once the user has
	// been told that this guard, out of order, refuses every tool call.
	guard    atomic.Bool
	refusing atomic.Bool

	// The libraries, built on first use (libs.go); lunarT is the lunar
	// module.
	lazyMeta  *glua.LTable
	globals   lazyTable
	pkgLoaded lazyTable // package.loaded
	libs      [numLibs]*glua.LTable
	lunarT    *glua.LTable
	lunar     lazyTable
	lazyFns   *lazyFieldFns // the metamethods of lazy event payloads (lazy_fields.go)

	ctx       *glua.LTable                    // the ctx passed to event handlers (nil until ctxTable builds it)
	cmdCtx    *glua.LTable                    // the ctx passed to command handlers (adds set_model, ...)
	ctxMeta   *glua.LTable                    // their metatable (ctx.go)
	ctxSubs   [len(ctxSubtables)]*glua.LTable // ctx.ui, ctx.session, ctx.models, ctx.sessions once built
	ctxFilled [2]*glua.LTable                 // the ctx tables holding them

	// Registrations, in order. Guarded by rt.regMu (written from Lua under
	// mu, read by snapshot rebuilds).
	handlers  []handler
	commands  []*command
	tools     []*hookTool
	renderers []*renderer

	// ctxCache holds the context event's tables of stored messages from
	// the last call (see context.go); used under mu.
	ctxCache map[ctxKey]ctxCached

	loadTime time.Duration
	errs     []string
	warnings []string
	toolErrs []string // lunar.tool calls that failed (HookReport.ToolErrors)

	dataOnce sync.Once
	dataDir  string
	dataErr  error
}

// hookState is where a hook is in its life, which says whether it can be
// called. The transitions, each made at most once:
//
//	loading → loaded                   the main chunk finished (runMain)
//	loading → failed                   the main chunk did not compile or raised an error (loadFailed)
//	loading, loaded → disabled         a memory overrun, MaxTimeouts timeouts in a row or an internal error (disable)
//	loading, loaded → closed           Runtime.Close or Prepared.Close (close)
//
// Calls run in loading (the main chunk and what it calls) and loaded;
// the registrations are live (in the snapshot) only in loaded. failed,
// disabled and closed are final: a call fails at once ("hook disabled:
// …"), and the Lua state is released (at once, or for disabled when the
// call holding it ends). A call given up on that still runs (stuck) is
// not a state: it may happen in any of them, and it passes.
type hookState int32

const (
	hookLoading hookState = iota
	hookLoaded
	hookFailed
	hookDisabled
	hookClosed
)

// hookStatus is a hook's state with why it is out (failed, disabled):
// swapped whole, never changed in place.
type hookStatus struct {
	state hookState
	why   string
}

// state is the hook's state and why it is out ("" unless failed or
// disabled).
func (h *hook) state() (hookState, string) {
	if s := h.status.Load(); s != nil {
		return s.state, s.why
	}
	return hookLoading, ""
}

// loaded reports whether the main chunk finished and the hook is not out:
// its registrations are live.
func (h *hook) loaded() bool {
	st, _ := h.state()
	return st == hookLoaded
}

// setState makes a transition of hookState's list; it reports false, and
// changes nothing, when the hook's state has none to "to" (a final state
// is never left: the first of two disablers wins).
func (h *hook) setState(to hookState, why string) bool {
	next := &hookStatus{state: to, why: why}
	for {
		cur := h.status.Load()
		from := hookLoading
		if cur != nil {
			from = cur.state
		}
		switch {
		case from >= hookFailed, to == hookLoading:
			return false // a final state, or back to the start
		case (to == hookLoaded || to == hookFailed) && from != hookLoading:
			return false // only a loading hook ends its load
		}
		if h.status.CompareAndSwap(cur, next) {
			return true
		}
	}
}

// handler is one lunar.on registration.
type handler struct {
	h  *hook
	ev eventID
	fn *glua.LFunction
	// piShape, for a handler registered under pi's name for the event,
	// turns a result in pi's shape into lunar's (nil: same shape).
	piShape piShapeFunc
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
	paused   atomic.Int32 // waiting for the user (a dialog): never given up on
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
	var all []*owner
	for o := ctxOwner(ctx); o != nil; o = o.parent {
		o.paused.Add(1)
		all = append(all, o)
		if o.timer != nil && o.timer.Stop() {
			ps = append(ps, paused{o, time.Until(o.deadline)})
		}
	}
	return func() {
		for _, p := range ps {
			p.o.deadline = time.Now().Add(p.left)
			p.o.timer.Reset(p.left)
		}
		for _, o := range all {
			o.paused.Add(-1)
		}
	}
}

// waitForUser runs wait — a dialog waiting for the user, from a Go
// function the current call of h's state made — with the timeouts of the
// calls on L's context paused and h's state released, so that the hook's
// other calls (its tool.execute.before while its command asks, a guard's
// too) run meanwhile instead of waiting for the user: a state runs one
// call at a time, and a call suspended here is one more frame under
// them, as a nested call's caller is. Each of them leaves the stack, the
// context and the command's ctx.args as it found them (call.end; args
// and the running coroutine are restored here), and the state is taken
// back before wait's caller touches it again. A call that does not own
// h (none should) waits holding the state, as before.
func (h *hook) waitForUser(L *glua.LState, wait func()) {
	defer pauseTimeout(L.Context())()
	if !owns(L.Context(), h) {
		wait()
		return
	}
	var args glua.LValue = glua.LNil
	if h.cmdCtx != nil {
		args = h.cmdCtx.RawGetString("args")
	}
	thread := L.G.CurrentThread
	h.suspended++
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.suspended--
		L.G.CurrentThread = thread
		if h.cmdCtx != nil {
			h.cmdCtx.RawSetString("args", args)
		}
	}()
	wait()
}

// stateOptions are those of every state lunar creates: a small data stack
// (128 values, 2 KB) and call stack that grow on demand. Most hooks are
// small, and lunar may load dozens of them; fresh memory is paid for in
// page faults. Not less: gopher-lua replaces a data stack under 128
// values with its default, 5,120 (80 KB).
var stateOptions = glua.Options{SkipOpenLibs: true, MinimizeStackMemory: true,
	RegistrySize: 128, RegistryGrowStep: 256, RegistryMaxSize: 256 * 1024}

// newState creates the sandboxed state: base (without dofile, loadfile),
// package (require limited to the stdlib and the hook's lib/), string,
// table, math, coroutine and a reduced os, each built on first use
// (libs.go), and the lunar module.
func (h *hook) newState() {
	L := glua.NewState(stateOptions)
	h.L = L
	h.installLibs(L)
}

// codec returns the state's JSON codec, created on first use.
func (h *hook) codec() *stdlib.Codec {
	if h.codecV == nil {
		h.codecV = stdlib.NewCodec(h.L)
	}
	return h.codecV
}

// ctxTable returns the ctx passed to event handlers (cmd: the one passed
// to command handlers), built on first use: a hook whose handlers never
// run never builds them, and their function tables wait for their first
// read (ctx.go). Called with the hook's state held.
func (h *hook) ctxTable(cmd bool) *glua.LTable {
	if cmd {
		if h.cmdCtx == nil {
			h.cmdCtx = h.newCtxTable(true)
		}
		return h.cmdCtx
	}
	if h.ctx == nil {
		h.ctx = h.newCtxTable(false)
	}
	return h.ctx
}

// stdlibNames are the names of the stdlib modules.
var stdlibNames = sync.OnceValue(func() []string {
	var names []string
	for _, m := range stdlib.Modules(nil) {
		names = append(names, m.Name)
	}
	return names
})

// preloadStdlib lets require find the stdlib modules (package.preload).
// They are described (stdlib.Modules) on the first require of any of them:
// most hooks require few or none.
func (h *hook) preloadStdlib(L *glua.LState, preload *glua.LTable) {
	var mods []*stdlib.Module
	for _, name := range stdlibNames() {
		preload.RawSetString(name, L.NewFunction(func(L *glua.LState) int {
			if mods == nil {
				mods = stdlib.Modules(h.stdlibEnv())
			}
			for _, m := range mods {
				if m.Name == name {
					return m.Loader()(L)
				}
			}
			L.RaiseError("module %s not found", name)
			return 0
		}))
	}
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

// coroutineWrapSrc redefines coroutine.wrap, in the coroutine library it
// is given, on top of the (context-aware) coroutine.resume.
const coroutineWrapSrc = `local coroutine = ...
local create, resume = coroutine.create, coroutine.resume
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

// libLoader is require's second searcher: <hook folder>/lib/<name>.lua,
// dots as folder separators, never outside lib/.
func (h *hook) libLoader(L *glua.LState) int {
	name := L.CheckString(1)
	if !validLibName(name) {
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
	trimProto(fn.Proto)
	noArgTable(fn.Proto)
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

// call is one run of Lua code in a hook's state: what it changed in the
// state, to restore, and what bounds it.
type call struct {
	h       *hook
	L       *glua.LState
	parent  context.Context // the caller's context
	ctx     context.Context // the call's: parent plus timeout and memory cap
	cancel  context.CancelFunc
	ow      *owner
	mem     *memWatch
	timeout time.Duration
	prev    context.Context // L's context before the call
	top     int
}

// begin sets up a call in h's state (held by the caller).
func (h *hook) begin(parent context.Context, timeout time.Duration) *call {
	c := &call{h: h, L: h.L, parent: parent, timeout: timeout, ow: &owner{h: h, parent: ctxOwner(parent)}}
	ctx, cancel := context.WithCancel(parent)
	c.cancel = cancel
	if timeout > 0 {
		c.ow.deadline = time.Now().Add(timeout)
		c.ow.timer = time.AfterFunc(timeout, func() {
			c.ow.timedOut.Store(true)
			cancel()
		})
	}
	c.mem = h.rt.watchMemory(cancel)
	ctx = context.WithValue(ctx, ownerKey{}, c.ow)
	if c.mem != nil {
		ctx = &callCtx{Context: stdlib.WithLimits(ctx, &c.mem.limits), w: c.mem}
	}
	c.ctx = ctx
	c.prev = c.L.Context()
	c.L.SetContext(ctx)
	c.top = c.L.GetTop()
	return c
}

// end restores the state and stops the call's timers.
func (c *call) end() {
	if c.ow.timer != nil {
		c.ow.timer.Stop()
	}
	c.mem.stop()
	c.cancel()
	if c.prev != nil {
		c.L.SetContext(c.prev)
	} else {
		c.L.RemoveContext()
	}
	c.L.SetTop(c.top)
}

// run calls fn in the hook's state. build (under the lock) returns the
// arguments; use (under the lock) consumes the first result. It holds the
// hook's lock unless ctx shows this goroutine already runs the state (a
// host callback firing an event while a handler waits), and runs under ctx
// plus timeout (0: none) and the memory cap. Errors name the Lua position.
//
// An outermost call runs on its own goroutine: once it has been stopped
// (timeout, memory cap, cancellation), run waits abandonGrace for it to
// return and then returns without it; a later call waits up to busyWait
// for it and is refused if it still has not returned ("hook busy"), and
// the state stays consistent, since the stuck function
// returns into a state whose context is done.
func (h *hook) run(ctx context.Context, timeout time.Duration, fn glua.LValue,
	build func(L *glua.LState) ([]glua.LValue, error), use func(ret glua.LValue) error) error {
	nested := owns(ctx, h)
	if !nested {
		h.waitUnstuck(ctx)
		if err := h.unavailable(); err != nil {
			return err
		}
		h.mu.Lock()
	}
	release := !nested // whether this call unlocks when it returns
	defer func() {
		if release {
			h.closeDisabledAndUnlock()
		}
	}()
	if err := h.unavailable(); err != nil {
		return err
	}
	L := h.L
	var args []glua.LValue
	if build != nil {
		var err error
		if args, err = build(L); err != nil {
			return err
		}
	}
	c := h.begin(ctx, timeout)
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	var perr error
	if nested {
		perr = L.PCall(len(args), 1, nil)
	} else {
		var abandoned bool
		if abandoned, perr = c.await(len(args)); abandoned {
			release = false // the call's goroutine unlocks when it returns
			return c.abandoned()
		}
	}
	defer c.end()
	if perr != nil {
		err := h.callErr(perr, c)
		h.countTimeout(err)
		return err
	}
	h.countTimeout(nil)
	if use == nil {
		return nil
	}
	return use(L.Get(-1))
}

// await runs the pushed call on its own goroutine and waits for it; past
// abandonGrace after the call was stopped (and not waiting for the user),
// it gives up: abandoned is true and the goroutine ends the call and
// unlocks the hook when the call returns.
func (c *call) await(nargs int) (abandoned bool, err error) {
	const (
		running = iota
		finished
		givenUp
	)
	var state atomic.Int32
	done := make(chan error, 1)
	runOnWorker(func() {
		err := c.L.PCall(nargs, 1, nil)
		if state.CompareAndSwap(running, finished) {
			done <- err
			return
		}
		c.end()
		c.h.setStuck(false)
		c.h.closeDisabledAndUnlock()
	})
	select {
	case err := <-done:
		return false, err
	case <-c.ctx.Done():
	}
	grace := time.NewTimer(abandonGrace)
	defer grace.Stop()
	for {
		select {
		case err := <-done:
			return false, err
		case <-grace.C:
			if c.ow.paused.Load() > 0 {
				grace.Reset(abandonGrace)
				continue
			}
			c.h.setStuck(true)
			if state.CompareAndSwap(running, givenUp) {
				return true, nil
			}
			c.h.setStuck(false)
			return false, <-done
		}
	}
}

// callWork hands a call to a goroutine that ran one before and now waits
// for the next. A goroutine started per call began with a 2 KB stack that
// the VM grew, by copying, on each call (30 hooks: 39 copies in a one-shot
// run, each walking the frames' stack maps); a worker's stack stays
// grown. A worker whose call was abandoned comes back when the call
// returns; idle workers wait for the life of the process (as many as
// calls ever ran at once: a few).
var callWork = make(chan func())

// runOnWorker runs f on an idle worker, or on a new one.
func runOnWorker(f func()) {
	select {
	case callWork <- f:
	default:
		go callWorker(f)
	}
}

func callWorker(f func()) {
	for {
		f()
		f = <-callWork
	}
}

// abandoned is the error of a call given up on: it did not return after
// it was stopped (a Go function that does not check its context, a long
// step of the VM or of the garbage collector).
func (c *call) abandoned() error {
	stuck := fmt.Sprintf(" (the call did not stop within %v; lunar stopped waiting for it)", abandonGrace)
	var err *callError
	switch {
	case c.mem.over():
		err = &callError{msg: c.mem.message() + stuck + c.h.overran()}
	case c.ow.timedOut.Load():
		err = &callError{msg: "timed out after " + c.timeout.String() + stuck, timeout: true}
	default:
		err = &callError{msg: "cancelled" + stuck, cause: c.parent.Err()}
	}
	c.h.countTimeout(err)
	return err
}

// callErr turns a PCall error into a message with the Lua position, cut
// to maxErrorMessage (before any copy of the whole: ApiError.Error()
// formats one).
func (h *hook) callErr(err error, c *call) error {
	var api *glua.ApiError
	var msg string
	if errors.As(err, &api) && api.Object != nil {
		msg = capMessage(api.Object.String())
	} else {
		msg = capMessage(err.Error())
	}
	if api != nil {
		if api.Type == glua.ApiErrorPanic {
			// A Go panic inside the state: it cannot be trusted any more.
			h.disable("internal error: " + msg)
			return &callError{msg: "internal error: " + msg + disabledNote}
		}
	}
	// What stopped the call: the VM (and the library functions) raise the
	// call context's error, which says "context canceled" either way.
	replace := func(with string) string {
		if canceled := context.Canceled.Error(); strings.Contains(msg, canceled) {
			return strings.Replace(msg, canceled, with, 1)
		}
		return with + ": " + msg
	}
	switch {
	case c.mem.over():
		return &callError{msg: replace(c.mem.message()) + h.overran()}
	case c.ow.timedOut.Load():
		return &callError{msg: replace("timed out after " + c.timeout.String()), timeout: true}
	case c.parent.Err() != nil:
		return &callError{msg: strings.Replace(msg, c.parent.Err().Error(), "cancelled", 1), cause: c.parent.Err()}
	}
	return &callError{msg: msg}
}

// close moves the hook to closed (unless it is out already) and
// releases the state. A call given up on still owns it, and a call
// waiting for the user (waitForUser) returns into it; the state is then
// left to the garbage collector.
func (h *hook) close() {
	h.setState(hookClosed, "")
	if h.stuck.Load() {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.suspended > 0 {
		// A call waits for the user and will return into the state:
		// the next calls are refused (closed), and the state is left
		// to the collector.
		return
	}
	if h.L != nil {
		h.L.Close()
		h.L = nil
	}
}

// readLib reads a lib/ module of the hook's source, refusing symlinks that
// lead outside lib/.
func (s *Source) readLib(rel string) ([]byte, string, error) {
	if s.snap != nil {
		return s.snap.lib(rel)
	}
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
		if s.Origin == OriginProject {
			// Only what the trust hash covers: a lib/ that is a link to
			// another folder could change without asking again.
			dirReal, err := filepath.EvalSymlinks(s.dir)
			if err != nil || !strings.HasPrefix(real, dirReal+string(filepath.Separator)) {
				return nil, display, fmt.Errorf("%s: leads outside %s", p, s.dir)
			}
		}
		code, err := stdlib.ReadRegular(real, MaxSourceSize)
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
