// Package lua is lunar's hook runtime: it loads Lua hook scripts into
// private sandboxed states, dispatches the events of the agent loop and of
// the application to them, and exposes what they register (commands, tools,
// renderers).
//
// Runtime implements agent.Hooks for the loop and has typed methods for the
// application's events (SessionStart, BeforeCompact, ...). Everything
// app-specific the hooks reach goes through a Host.
package lua

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/agent"
)

// DefaultTimeout is the hook timeout without hook_timeout_ms.
const DefaultTimeout = 30 * time.Second

// Options configure a Runtime.
type Options struct {
	// Host is the application (nil: NopHost).
	Host Host
	// Timeout bounds each handler call of ordinary events, tools and
	// renderers (0: DefaultTimeout). session.before_compact and command
	// handlers have none; the caller's context cancels any.
	Timeout time.Duration
	// MaxTimeouts is how many calls of a hook in a row may time out before
	// the hook is disabled for the session (0: DefaultMaxTimeouts,
	// negative: never).
	MaxTimeouts int
	// MemoryLimit caps, in bytes, what one hook call may allocate (0:
	// DefaultMemoryLimit, negative: no cap). A call over it is stopped
	// and its hook disabled for the session.
	MemoryLimit int64
	// DataDir is lunar's data folder: hooks may write under it, and each
	// gets its own ctx.data_dir = DataDir/hooks/<name> ("" = none).
	DataDir string
	// ConfigDir is lunar's configuration folder (config.json, hooks.d/):
	// ctx.config_dir ("" = none: nil) and lunar.paths().config.
	ConfigDir string
	// Report receives every load error, load warning and handler failure,
	// one line each, e.g. "hook 20-bad.lua: context: 20-bad.lua:7: boom"
	// (nil: printed to stderr).
	Report func(msg string)
	// Debug, when set, gets one line per handler call: hook, event,
	// duration and outcome.
	Debug io.Writer
	// Log receives lunar.log and print output (nil: stderr; "debug" lines
	// only when Debug is set).
	Log func(hook, level, msg string)
	// HTTPClient serves the http module (nil: http.DefaultClient).
	HTTPClient *http.Client
	// Config holds the hooks' settings by hook name (the file name without
	// .lua): the JSON lunar.config() returns to that hook.
	Config map[string]json.RawMessage
	// ChunkCache keeps the compiled main chunks for Load (nil: every
	// hook is compiled). PrepareCached takes it instead.
	ChunkCache *ChunkCache
	// ProjectTrusted is whether the user trusted the working folder's
	// .lunar/ (or passed --trust), for lunar.paths(): hooks that read
	// files from a project's .lunar/ (skills, prompt templates) take them
	// only from a trusted one.
	ProjectTrusted bool
	// Builtins are the application's own command names: a hook that
	// registers one of them is warned and its command ignored. The
	// application passes its command table so the two cannot drift.
	Builtins []string
}

// Runtime is a set of loaded hooks. Its methods are safe for concurrent
// use; each hook's state runs one call at a time.
type Runtime struct {
	opts  Options
	host  Host
	hooks []*hook

	regMu sync.Mutex // guards the hooks' registrations and snapshot rebuilds
	snap  atomic.Pointer[snapshot]

	turnIndex atomic.Int64
}

// snapshot is the immutable view dispatch reads: handlers per event in
// load order, commands, tools and renderers.
type snapshot struct {
	handlers  [numEvents][]handler
	commands  map[string]*command
	cmdOrder  []*command
	tools     []*hookTool
	renderers map[string]*renderer
	guards    []*hook // every guard, loaded or not, in load order
}

// Load loads the sources in order into a new Runtime. A hook that fails to
// load is reported (Options.Report) and listed with its error in Report;
// the others load regardless. Call Close when done.
//
// The hooks' states are created and their sources compiled first (see
// Prepare: it does that in the background), then the main chunks run one
// after another in load order.
func Load(sources []Source, opts Options) *Runtime {
	p := newPrepared(sources, opts.ChunkCache)
	p.openSet()
	return LoadAll(opts, p)
}

// Prepared is hooks whose states are created and sources compiled in the
// background (Prepare).
//
// Each hook is prepared once, by whichever goroutine claims it first: the
// background one, or Load's caller, which prepares the hooks nobody has
// claimed yet while it runs the main chunks in order. On two cores the
// caller's set-up (session, tools) is shorter than preparing a few
// hooks: waiting for the background alone left a core idle.
type Prepared struct {
	hooks  []*hook
	chunks []chunk
	cache  *ChunkCache
	set    *chunkSet
	opened chan struct{}   // set is read
	ready  []chan struct{} // closed when the hook of the same index is prepared
	next   atomic.Int32    // the index of the next hook to claim
	left   atomic.Int32    // how many hooks are not prepared yet
	done   chan struct{}   // every hook is prepared
	used   bool
}

// Prepare starts creating the sources' states and compiling them, as Load
// does, and returns at once: none of it depends on the Options, so the
// caller can set up the rest (session, tools, terminal) meanwhile. Load
// then runs the main chunks; Close releases hooks never loaded.
func Prepare(sources []Source) *Prepared { return PrepareCached(sources, nil) }

// PrepareCached is Prepare with the compiled main chunks read from and
// written to cache (nil: none).
func PrepareCached(sources []Source, cache *ChunkCache) *Prepared {
	p := newPrepared(sources, cache)
	go func() {
		p.openSet()
		for p.prepareNext() {
		}
	}()
	return p
}

func newPrepared(sources []Source, cache *ChunkCache) *Prepared {
	p := &Prepared{hooks: make([]*hook, len(sources)), chunks: make([]chunk, len(sources)), cache: cache,
		opened: make(chan struct{}), ready: make([]chan struct{}, len(sources)), done: make(chan struct{})}
	for i, src := range sources {
		p.hooks[i] = &hook{index: i, src: src}
		p.ready[i] = make(chan struct{})
	}
	p.left.Store(int32(len(sources)))
	if len(sources) == 0 {
		close(p.done)
	}
	return p
}

// openSet reads the cache's set file of the sources.
func (p *Prepared) openSet() {
	srcs := make([]Source, len(p.hooks))
	for i, h := range p.hooks {
		srcs[i] = h.src
	}
	p.set = p.cache.openSet(srcs)
	close(p.opened)
}

// prepareNext prepares the next hook nobody has claimed; false when every
// hook is claimed. Whoever prepares the last one writes the cache's set
// file if needed.
func (p *Prepared) prepareNext() bool {
	i := int(p.next.Add(1)) - 1
	if i >= len(p.hooks) {
		return false
	}
	p.chunks[i] = p.hooks[i].prepare(p.set, i)
	// The set file is written before the last hook is ready: once Load
	// has every hook, the cache holds what it will.
	last := p.left.Add(-1) == 0
	if last {
		p.set.save()
	}
	close(p.ready[i])
	if last {
		close(p.done)
		p.cache.prune() // only after a miss, once per process
	}
	return true
}

// Load loads the hooks into a new Runtime, as Load does, preparing those
// nobody has claimed yet. It may be called once.
func (p *Prepared) Load(opts Options) *Runtime {
	return LoadAll(opts, p)
}

// LoadAll loads the hooks of parts, one part after the other, into a new
// Runtime, as Prepared.Load does: a caller can start preparing the hooks
// it found first (the bundled ones) while it looks for the others. Each
// part may be loaded once.
func LoadAll(opts Options, parts ...*Prepared) *Runtime {
	r := newRuntime(opts)
	for _, p := range parts {
		if p.used {
			panic("lua: Prepared loaded twice")
		}
		p.used = true
		r.hooks = append(r.hooks, p.hooks...)
	}
	index := 0
	for _, p := range parts {
		<-p.opened
		for i, h := range p.hooks {
			for !closed(p.ready[i]) {
				if !p.prepareNext() {
					<-p.ready[i] // being prepared in the background
				}
			}
			h.rt = r
			h.index = index
			index++
			r.runMain(h, p.chunks[i])
		}
	}
	r.rebuild()
	return r
}

// closed reports whether ch is closed (it is never sent on).
func closed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// Close releases the states of hooks prepared and not loaded.
func (p *Prepared) Close() {
	<-p.done
	if !p.used {
		p.used = true
		for _, h := range p.hooks {
			h.close()
		}
	}
}

func newRuntime(opts Options) *Runtime {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	r := &Runtime{opts: opts, host: opts.Host}
	if r.host == nil {
		r.host = NopHost{}
	}
	r.snap.Store(&snapshot{})
	return r
}

func (r *Runtime) cwd() string {
	if c := r.host.Cwd(); c != "" {
		return c
	}
	c, _ := os.Getwd()
	return c
}

// loadHook creates the hook's state and runs its main chunk.
func (r *Runtime) loadHook(src Source) *hook {
	h := r.addHook(src)
	r.runMain(h, h.prepare(nil, 0))
	return h
}

// addHook appends a hook for src, not loaded yet.
func (r *Runtime) addHook(src Source) *hook {
	h := &hook{rt: r, index: len(r.hooks), src: src}
	r.hooks = append(r.hooks, h)
	return h
}

// chunk is a hook's compiled main chunk (or why it did not compile) and
// what preparing it took.
type chunk struct {
	fn   *glua.LFunction
	err  error
	took time.Duration
}

// prepare creates the hook's state and compiles its source, or reads it
// compiled from set (nil: none), where it is the ith source. It touches
// nothing outside the hook and its cache files: hooks are prepared in the
// background.
func (h *hook) prepare(set *chunkSet, i int) chunk {
	start := time.Now()
	h.newState()
	if p := set.get(i); p != nil {
		noArgTable(p)
		// What L.Load does with the proto it compiles.
		return chunk{fn: h.L.NewFunctionFromProto(p), took: time.Since(start)}
	}
	fn, err := h.L.Load(bytes.NewReader(h.src.Code), h.src.Name)
	if err == nil {
		trimProto(fn.Proto)
		set.put(i, fn.Proto) // as compiled
		noArgTable(fn.Proto)
	}
	return chunk{fn: fn, err: err, took: time.Since(start)}
}

// noArgTable spares a main chunk (a hook's, a lib/ module's) the Lua 5.0
// `arg` table gopher-lua builds on every call of a vararg function that
// does not use `...` (CompatVarArg): a main chunk has no local named arg
// (`arg` there is a global), so the table, a 2 KB map, is never
// reachable. Nested functions keep theirs: for them `arg` is a local.
func noArgTable(p *glua.FunctionProto) {
	p.IsVarArg &^= glua.VarArgNeedsArg
}

// trimProto copies a compiled function's slices (and its nested
// functions') to their length. gopher-lua's compiler leaves them in the
// buffers it compiled into, 1,024 instructions and as many line numbers
// (12 KB) and more per function, which a hook would keep for the session:
// 30 trivial hooks held 2 MB.
func trimProto(p *glua.FunctionProto) {
	p.Code = slices.Clone(p.Code)
	p.Constants = slices.Clone(p.Constants)
	p.FunctionPrototypes = slices.Clone(p.FunctionPrototypes)
	p.DbgSourcePositions = slices.Clone(p.DbgSourcePositions)
	p.DbgLocals = slices.Clone(p.DbgLocals)
	p.DbgCalls = slices.Clone(p.DbgCalls)
	p.DbgUpvalues = slices.Clone(p.DbgUpvalues)
	for _, f := range p.FunctionPrototypes {
		trimProto(f)
	}
}

// runMain runs a prepared hook's main chunk.
func (r *Runtime) runMain(h *hook, c chunk) {
	start := time.Now().Add(-c.took)
	defer func() { h.loadTime = time.Since(start) }()
	if c.err != nil {
		msg := syntaxMessage(h.src.Name, h.src.Code, c.err)
		r.trace(h, "load", start, errors.New(msg))
		h.loadFailed(msg)
		return
	}
	err := h.run(context.Background(), r.opts.Timeout, c.fn, nil, nil)
	r.trace(h, "load", start, err)
	if err != nil {
		h.loadFailed(err.Error())
		return
	}
	r.regMu.Lock()
	h.setState(hookLoaded, "")
	r.regMu.Unlock()
}

// loadFailed records a load error and drops whatever the hook registered.
func (h *hook) loadFailed(msg string) {
	msg = capMessage(msg)
	h.rt.regMu.Lock()
	h.setState(hookFailed, msg)
	h.handlers, h.commands, h.tools, h.renderers = nil, nil, nil, nil
	h.errs = append(h.errs, msg)
	h.rt.regMu.Unlock()
	h.rt.report("hook " + h.src.Name + ": " + msg)
	h.close()
}

// syntaxMessage turns gopher-lua's compile error into "file:line: message".
// gopher-lua gives no line for an error at the end of the file (a missing
// `end`): it is the file's last line.
func syntaxMessage(name string, code []byte, err error) string {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, name+" at EOF:"); ok {
		last := bytes.Count(code, []byte("\n"))
		if len(code) > 0 && code[len(code)-1] != '\n' {
			last++
		}
		rest = strings.Join(strings.Fields(rest), " ")
		if rest == "syntax error" {
			rest = "syntax error: unexpected end of file (a missing 'end', ')' or '}'?)"
		} else {
			rest += " at the end of the file"
		}
		return fmt.Sprintf("%s:%d: %s", name, last, rest)
	}
	// gopher-lua: "<name> line:7(column:3) near 'x':   syntax error\n"
	if i := strings.Index(msg, " line:"); i >= 0 && strings.HasPrefix(msg, name) {
		rest := msg[i+len(" line:"):]
		line := rest
		if j := strings.IndexAny(rest, "(: "); j >= 0 {
			line = rest[:j]
			rest = rest[j:]
		}
		if k := strings.Index(rest, ") "); k >= 0 && strings.HasPrefix(rest, "(") {
			rest = rest[k+2:]
		}
		rest = strings.Join(strings.Fields(rest), " ")
		return name + ":" + line + ": " + rest
	}
	return strings.TrimSpace(msg)
}

// checkLocks, set by the package's tests, makes mustHold check the locks
// that functions say their callers hold.
var checkLocks bool

// mustHold panics, with checkLocks set, when mu is not locked (by anyone:
// a sync.Mutex knows no owner).
func mustHold(mu *sync.Mutex) {
	if checkLocks && mu.TryLock() {
		mu.Unlock()
		panic("lua: the caller must hold the lock")
	}
}

// rebuild publishes a new snapshot of every live registration.
func (r *Runtime) rebuild() {
	r.regMu.Lock()
	defer r.regMu.Unlock()
	s := &snapshot{commands: map[string]*command{}, renderers: map[string]*renderer{}}
	for _, h := range r.hooks {
		if h.isGuard() {
			s.guards = append(s.guards, h)
		}
		if !h.loaded() {
			continue
		}
		for _, hd := range h.handlers {
			s.handlers[hd.ev] = append(s.handlers[hd.ev], hd)
		}
		for _, c := range h.commands {
			if _, dup := s.commands[c.name]; !dup {
				s.commands[c.name] = c
				s.cmdOrder = append(s.cmdOrder, c)
			}
		}
		s.tools = append(s.tools, h.tools...)
		for _, rd := range h.renderers {
			if _, dup := s.renderers[rd.customType]; !dup {
				s.renderers[rd.customType] = rd
			}
		}
	}
	// Guards judge a tool call last, so that the arguments they judge (and
	// show in a dialog) are the ones that run: no later handler can rewrite
	// them, and a later sandbox does not replace theirs.
	before := s.handlers[evToolBefore]
	sort.SliceStable(before, func(i, j int) bool { return !before[i].h.isGuard() && before[j].h.isGuard() })
	r.snap.Store(s)
}

// listeners returns the handlers of an event; it never allocates.
func (r *Runtime) listeners(ev eventID) []handler {
	return r.snap.Load().handlers[ev]
}

// Listening reports whether any hook listens to the event (canonical name
// or alias). Hosts use it to skip preparing costly payloads.
func (r *Runtime) Listening(event string) bool {
	for _, id := range lookupEvent(event) {
		if len(r.listeners(id)) > 0 {
			return true
		}
	}
	return false
}

// Close releases every hook state.
func (r *Runtime) Close() {
	for _, h := range r.hooks {
		h.close()
	}
}

func (r *Runtime) report(msg string) {
	if r.opts.Report != nil {
		r.opts.Report(msg)
		return
	}
	fmt.Fprintln(os.Stderr, "lunar: "+msg)
}

func (r *Runtime) log(h *hook, level, msg string) {
	if r.opts.Log != nil {
		r.opts.Log(h.src.Name, level, msg)
		return
	}
	if level == "debug" && r.opts.Debug == nil {
		return
	}
	fmt.Fprintf(os.Stderr, "[%s] %s: %s\n", level, h.src.Name, msg)
}

// warn records and reports a load warning of h.
func (h *hook) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	h.rt.regMu.Lock()
	h.warnings = append(h.warnings, msg)
	h.rt.regMu.Unlock()
	h.reportWarning(msg)
}

// reportWarning reports a load warning (or a tool that did not register).
func (h *hook) reportWarning(msg string) {
	// Most warnings start with where they are (the hook's file and
	// line): the hook is not named twice.
	if !strings.HasPrefix(msg, h.src.Name+":") {
		msg = "hook " + h.src.Name + ": " + msg
	}
	h.rt.report("warning: " + msg)
}

// HookReport describes one hook for `lunar hooks`.
type HookReport struct {
	Name      string
	Path      string
	Origin    string
	Guard     bool // fails closed (guard.go)
	LoadTime  time.Duration
	Events    []string // canonical names, in registration order
	Commands  []string
	Tools     []string
	Renderers []string
	Errors    []string // load errors (the hook is not active)
	Warnings  []string
	// Replaces names the built-in tools this hook's tools replace.
	Replaces []string
	// ToolErrors are tools that failed to register (bad name or schema):
	// the hook is active without them.
	ToolErrors []string
}

// Report describes every hook, in load order.
func (r *Runtime) Report() []HookReport {
	reg := r.registry()
	r.regMu.Lock()
	defer r.regMu.Unlock()
	out := make([]HookReport, 0, len(r.hooks))
	for _, h := range r.hooks {
		rep := HookReport{Name: h.src.Name, Path: h.src.Path, Origin: h.src.Origin, Guard: h.isGuard(), LoadTime: h.loadTime,
			Errors: slices.Clone(h.errs), Warnings: slices.Clone(h.warnings), ToolErrors: slices.Clone(h.toolErrs)}
		for _, hd := range h.handlers {
			if name := events[hd.ev].Name; !slices.Contains(rep.Events, name) {
				rep.Events = append(rep.Events, name)
			}
		}
		for _, c := range h.commands {
			rep.Commands = append(rep.Commands, c.name)
		}
		for _, t := range h.tools {
			rep.Tools = append(rep.Tools, t.tool.Name)
			if reg.BuiltinTool(t.tool.Name) != nil {
				rep.Replaces = append(rep.Replaces, t.tool.Name)
			}
		}
		for _, rd := range h.renderers {
			rep.Renderers = append(rep.Renderers, rd.customType)
		}
		out = append(out, rep)
	}
	return out
}

// Tools returns the tools the hooks registered, in load order. Their
// Execute runs the Lua function under the hook timeout.
func (r *Runtime) Tools() []*agent.Tool {
	s := r.snap.Load()
	out := make([]*agent.Tool, len(s.tools))
	for i, t := range s.tools {
		out[i] = t.tool
	}
	return out
}

// errString gives a Lua-facing message for a host error.
func errString(err error) glua.LString { return glua.LString(err.Error()) }
