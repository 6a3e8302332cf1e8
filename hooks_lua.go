package main

// Wiring of the Lua hook runtime into the app: discovery (with the project
// trust question), loading, the lua.Host the hooks reach through ctx and
// the lunar module, and the adapter from the front ends' appHooks to the
// runtime's events.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/session/export/ansi"
)

// hookPrep is the hooks found and being prepared in the background
// (prepareHooks), for loadHooks: the bundled ones, then the others.
type hookPrep struct {
	parts    []*lua.Prepared
	warnings []string
	err      error
}

// close releases the hooks prepared and not loaded.
func (p *hookPrep) close() {
	for _, part := range p.parts {
		part.Close()
	}
	p.parts = nil
}

// discoverOptions say where the hooks to load are; the project's only
// when trustProject trusted the folder.
func (a *app) discoverOptions() lua.DiscoverOptions {
	// Only the hooks the trust question covered, as read then: a folder
	// filled in since (or a file swapped) loads nothing new.
	project := ""
	var snap *lua.HookDir
	if a.projectTrusted && a.project != nil && a.project.hooks != nil {
		project, snap = a.cwd, a.project.hooks
	}
	return lua.DiscoverOptions{
		GlobalDir:  filepath.Join(a.paths.Config, "hooks.d"),
		ProjectDir: project,
		Project:    snap,
		Files:      a.opts.Hooks,
		Disabled:   a.cfg.DisabledHooks,
		NoHooks:    a.opts.NoHooks,
		Trust:      true, // trustProject decided
	}
}

// prepareHooks finds the hooks and starts creating their states and
// compiling them (lua.Prepare) in the background: that work overlaps the
// rest of the set-up (session, tools, terminal) instead of following it,
// and the bundled hooks' overlaps reading the user's hook files. loadHooks
// then runs their main chunks (and prepares those the background has not
// reached). Finding them is done here, before the set-up: the rest waits
// for them anyway, and a goroutine woken when they were found took longer
// to run again (0.1 ms on a small VM) than the set-up it overlapped. Call
// it once the project's trust is decided: what it reads does not change
// after that.
func (a *app) prepareHooks() {
	p := &hookPrep{}
	a.hookPrep = p
	opts := a.discoverOptions()
	cache := a.chunkCache()
	var bundled, user []lua.Source
	if bundled, p.err = lua.DiscoverBundled(opts); p.err != nil {
		return
	}
	p.parts = append(p.parts, lua.PrepareCached(bundled, cache))
	if user, p.warnings, p.err = lua.DiscoverUser(opts); p.err != nil {
		return
	}
	p.parts = append(p.parts, lua.PrepareCached(user, cache))
}

// chunkCache is where the hooks' compiled chunks are kept: the state
// folder's chunks/ (see lua.ChunkCache; a folder that cannot be written
// only means every run compiles).
func (a *app) chunkCache() *lua.ChunkCache {
	return lua.OpenChunkCache(filepath.Join(a.paths.State, "chunks"))
}

// loadHooks loads the hooks (those prepareHooks prepared, if it ran).
// Hook problems (load errors and warnings, later handler failures) go to
// report; they never stop lunar.
func (a *app) loadHooks(report func(msg string)) (*lua.Runtime, error) {
	prep := a.hookPrep
	a.hookPrep = nil
	var sources []lua.Source
	if prep == nil {
		prep = &hookPrep{}
		sources, prep.warnings, prep.err = lua.Discover(a.discoverOptions())
	}
	if prep.err != nil {
		prep.close()
		return nil, prep.err
	}
	for _, w := range prep.warnings {
		a.warnf("%s", w)
	}
	opts := lua.Options{
		Host:      &luaHost{a: a},
		Timeout:   time.Duration(a.cfg.hookTimeoutMs()) * time.Millisecond,
		DataDir:   a.paths.Data,
		ConfigDir: a.paths.Config,
		Report:    report,
		Config:    a.cfg.hookSections(a.opts.Yes),

		ChunkCache: a.chunkCache(),

		ProjectTrusted: a.projectTrusted,
		Builtins:       builtinNames(),
	}
	opts.MemoryLimit, opts.MaxTimeouts = a.cfg.hookLimits()
	debug := a.opts.Debug || os.Getenv("LUNAR_DEBUG") != ""
	if debug {
		opts.Debug = a.stderr
	}
	opts.Log = func(hook, level, msg string) {
		if level == "debug" && !debug {
			return
		}
		if u, ok := a.ui.(*replUI); ok {
			u.Notify(hook+": "+msg, level)
			return
		}
		fmt.Fprintf(a.stderr, "[%s] %s: %s\n", level, hook, ansi.Sanitize(msg))
	}
	if prep.parts != nil {
		return lua.LoadAll(opts, prep.parts...), nil
	}
	return lua.Load(sources, opts), nil
}

// warnf prints a warning on stderr (through the REPL when it is up).
func (a *app) warnf(format string, args ...any) {
	a.hookReport("warning: " + fmt.Sprintf(format, args...))
}

// notice shows news that is no problem (a hook tool replacing a
// built-in): an information notification in the REPL, "lunar: …" on
// stderr otherwise.
func (a *app) notice(msg string) {
	if u, ok := a.ui.(*replUI); ok {
		u.Notify(msg, "info")
		return
	}
	fmt.Fprintf(a.stderr, "lunar: %s\n", ansi.Sanitize(msg))
}

// hookReport shows a hook problem: a notification in the REPL, a line on
// stderr otherwise.
func (a *app) hookReport(msg string) {
	if u, ok := a.ui.(*replUI); ok {
		u.Notify(strings.TrimPrefix(msg, "warning: "), "warning") // Notify says "warning: "
		return
	}
	fmt.Fprintf(a.stderr, "lunar: %s\n", ansi.Sanitize(msg))
}

// setupHooks loads the hooks and wires them into the app: the agent's
// hooks, the hook tools, and the front ends' events.
func (a *app) setupHooks(interactive bool) error {
	if interactive {
		a.interactiveUI()
	}
	rt, err := a.loadHooks(a.hookReport)
	if err != nil {
		return err
	}
	if a.opts.NoHooks {
		a.warnf("--no-hooks: the permission policy is off: every tool call runs without asking")
	}
	a.luaRuntime = rt
	a.hooks = &luaHooks{rt: rt}
	a.agentRuntime.SetHooks(rt, rt)
	a.agentRuntime.CheckHookTools() // warns now about hook tools that clash with built-in ones
	return nil
}

// mode is the app.start mode name.
func (a *app) mode(interactive bool) string {
	switch {
	case interactive:
		return "repl"
	case a.opts.Mode == "json", a.opts.Mode == "rpc":
		return a.opts.Mode
	}
	return "oneshot"
}

// luaHost is what the hooks reach through ctx and the lunar module.
type luaHost struct{ a *app }

var _ lua.Host = (*luaHost)(nil)
var _ lua.SessionStore = (*luaHost)(nil)

func (h *luaHost) Cwd() string { return h.a.cwd }

func (h *luaHost) Session() lua.Session {
	if h.a.agentRuntime == nil {
		return nil
	}
	return luaSession{h.a.agentRuntime.Session(), h.a.agentRuntime}
}

// luaSession is the open session as hooks see it: naming it goes through
// the runtime, so that every front end hears of it (session_info_changed).
type luaSession struct {
	*session.Session
	rt *agent.Runtime
}

func (s luaSession) SetName(name string) (string, error) { return s.rt.NameSession(name) }

func (h *luaHost) Model() agent.Model    { return h.a.agentRuntime.Model() }
func (h *luaHost) ThinkingLevel() string { return string(h.a.agentRuntime.ThinkingLevel()) }

func (h *luaHost) UI() lua.UI {
	if h.a.ui == nil {
		return noUI{stderr: h.a.stderr}
	}
	return h.a.ui
}

// Send queues text as the user's next message: during a run as a
// follow-up (the run goes on with it when the agent would stop), else it
// is sent when the current step (a command, a handler) ends.
func (h *luaHost) Send(_ context.Context, text string, attachments []lua.Attachment) error {
	text, images, err := h.attach(text, attachments)
	if err != nil {
		return err
	}
	h.a.agentRuntime.FollowUp(text, images)
	return nil
}

// SendCommand queues a command line to run as typed.
func (h *luaHost) SendCommand(_ context.Context, line string) error {
	h.a.agentRuntime.SendCommand(line)
	return nil
}

// Steer queues text into the running turn (Send when none is running).
func (h *luaHost) Steer(_ context.Context, text string, attachments []lua.Attachment) error {
	text, images, err := h.attach(text, attachments)
	if err != nil {
		return err
	}
	h.a.agentRuntime.Steer(text, images)
	return nil
}

func (h *luaHost) Idle() bool { return h.a.agentRuntime.Idle() }

func (h *luaHost) Queued() (steering, followUp []string) { return h.a.agentRuntime.Queued() }

func (h *luaHost) SystemPrompt(ctx context.Context) (string, error) {
	return h.a.agentRuntime.SystemPrompt(ctx), nil
}

// attach adds the attachments to a prompt: files as text (images as
// parts), image parts as they are.
func (h *luaHost) attach(text string, attachments []lua.Attachment) (string, []session.ContentBlock, error) {
	var images []session.ContentBlock
	var files strings.Builder
	for _, at := range attachments {
		switch {
		case at.Image != nil:
			images = append(images, *at.Image)
		case at.Path != "":
			path, ok := attachmentPath(at.Path, h.a.cwd)
			if !ok {
				return "", nil, fmt.Errorf("attachment %s: no such file", at.Path)
			}
			word := "@" + path
			expanded, imgs, notes := expandAttachments(word, h.a.cwd)
			if len(notes) > 0 {
				return "", nil, fmt.Errorf("attachment %s", strings.TrimPrefix(notes[0], "@"))
			}
			files.WriteString(strings.TrimPrefix(strings.TrimPrefix(expanded, word), "\n\n"))
			files.WriteString("\n")
			images = append(images, imgs...)
		}
	}
	if files.Len() > 0 {
		text += "\n\n" + strings.TrimRight(files.String(), "\n")
	}
	return text, images, nil
}

// SendMessage appends a custom message now when lunar is idle, or when the
// current reply ends; with triggerTurn the agent then answers it.
func (h *luaHost) SendMessage(_ context.Context, msg agent.CustomMessage, triggerTurn, followUp bool) error {
	deliver := agent.DeliverSteer
	if followUp {
		deliver = agent.DeliverFollowUp
	}
	return h.a.agentRuntime.SendMessageAs(msg, triggerTurn, deliver)
}

func (h *luaHost) Complete(ctx context.Context, req lua.CompleteRequest) (string, error) {
	msgs := req.Messages
	if req.Prompt != "" {
		msgs = []session.Message{{Role: session.RoleUser, Content: []session.ContentBlock{{Type: session.BlockText, Text: req.Prompt}},
			Timestamp: time.Now().UnixMilli()}}
	}
	cr := agent.CompleteRequest{Messages: msgs, System: req.System, MaxTokens: req.MaxTokens, ThinkingLevel: agent.ThinkingLevel(req.ThinkingLevel)}
	m := h.a.agentRuntime.Model()
	if req.Model != "" {
		var err error
		if m, err = h.a.agentRuntime.ResolveModel(req.Model); err != nil {
			return "", err
		}
		cr.Model = &m
	}
	// A model outside the table is taken for one that cannot reason: its
	// thinking level would be dropped without a word.
	if lvl := req.ThinkingLevel; lvl != "" && lvl != string(agent.ThinkingOff) && !m.Reasoning && req.Warn != nil {
		if _, known := h.a.registry.Find(m.Provider, m.ID); !known {
			req.Warn(fmt.Sprintf("model %s/%s is not in lunar's model table (lunar --list-models), so lunar takes it for one that cannot reason: thinking %q is not sent. Declare it in config.json's \"providers\" with \"reasoning\": true to send it", m.Provider, m.ID, lvl))
		}
	}
	return h.a.agentRuntime.Complete(ctx, cr)
}

// CheckExec lets lunar.exec run: hooks are trusted code (project hooks
// only after the user said so).
func (h *luaHost) CheckExec(string, []string, string) error { return nil }

// FindModel looks a model up in the registry; the model in use is found
// too when it is not there (--model with an id outside the model table).
func (h *luaHost) FindModel(provider, id string) (agent.Model, bool) {
	if m, ok := h.a.registry.Find(provider, id); ok {
		return m, true
	}
	if h.a.agentRuntime != nil {
		if m := h.a.agentRuntime.Model(); m.Provider == provider && m.ID == id {
			return m, true
		}
	}
	return agent.Model{}, false
}

func (h *luaHost) AvailableModels() []agent.Model { return h.a.registry.Available() }

func (h *luaHost) ResolveAPIKey(m agent.Model) (string, error) { return h.a.agentRuntime.APIKey(m) }

// SetModel and SetThinkingLevel refuse while a run is in progress (a
// command typed during it): the run reads both between its calls.
func (h *luaHost) SetModel(ctx context.Context, provider, id string) error {
	if h.a.agentRuntime.Running() {
		return errors.New("cannot change the model while the agent is running")
	}
	return h.a.agentRuntime.SetModel(ctx, provider+"/"+id)
}

func (h *luaHost) SetThinkingLevel(ctx context.Context, level string) error {
	if h.a.agentRuntime.Running() {
		return errors.New("cannot change the thinking level while the agent is running")
	}
	return h.a.agentRuntime.SetThinkingLevel(ctx, level)
}

func (h *luaHost) Abort() { h.a.agentRuntime.Abort() }

func (h *luaHost) NewSession(ctx context.Context, withParent bool) error {
	if h.a.agentRuntime.Running() {
		return errors.New("cannot start a new session while the agent is running")
	}
	return h.a.agentRuntime.NewSession(ctx, withParent)
}

func (h *luaHost) Branch(ctx context.Context, targetID, summary string) error {
	if h.a.agentRuntime.Running() {
		return errors.New("cannot branch while the agent is running")
	}
	text, err := h.a.agentRuntime.Branch(ctx, targetID, agent.BranchOptions{Summary: summary})
	if err == nil && text != "" && h.a.ui != nil {
		h.a.ui.SetEditorText(text)
	}
	return err
}

// Compact compacts now when idle; during a run it asks for the
// compaction at the next turn boundary (the run goes on on the compacted
// context) and reports success at once.
func (h *luaHost) Compact(ctx context.Context, instructions string) error {
	if h.a.agentRuntime.RequestCompact(instructions) {
		return nil
	}
	_, err := h.a.agentRuntime.Compact(ctx, agent.CompactHook, instructions)
	return err
}

func (h *luaHost) RebuildContext(ctx context.Context) (int, int, error) {
	return h.a.agentRuntime.RebuildContext(ctx)
}

func (h *luaHost) TokenUsage() (agent.TokenStats, bool) { return h.a.agentRuntime.TokenUsage() }

func (h *luaHost) ContextLimit() int { return h.a.agentRuntime.Model().ContextWindow }

func (h *luaHost) ToolRegistry() lua.ToolRegistry {
	if h.a.agentRuntime == nil {
		return nil
	}
	return h.a.agentRuntime
}

// luaHooks adapts the runtime to the front ends' appHooks.
type luaHooks struct{ rt *lua.Runtime }

var _ appHooks = (*luaHooks)(nil)

func (h *luaHooks) Commands() []commandInfo {
	cmds := h.rt.Commands()
	out := make([]commandInfo, len(cmds))
	for i, c := range cmds {
		out[i] = commandInfo{Name: c.Name, Description: c.Description, Source: c.Hook}
	}
	return out
}

func (h *luaHooks) RunCommand(ctx context.Context, name, args string) (string, bool, error) {
	return h.rt.RunCommand(ctx, name, args)
}

func (h *luaHooks) Render(m *session.Message, expanded bool) (string, bool) {
	return h.rt.Render(m, expanded)
}

// Describe is the /hooks listing.
// Tools a hook disabled are listed after the hooks.
func (h *luaHooks) Describe() string {
	s := describeHooks(h.rt.Report(), false)
	var off []string
	for _, t := range h.rt.ToolList() {
		if !t.Enabled {
			off = append(off, t.Name)
		}
	}
	if len(off) > 0 {
		s += "\ndisabled tools: " + strings.Join(off, ", ") + " (not offered to the model)"
	}
	return s
}

// describeHooks formats hook reports for `lunar hooks` and /hooks.
func describeHooks(reports []lua.HookReport, withPath bool) string {
	if len(reports) == 0 {
		return "no hooks loaded"
	}
	var b strings.Builder
	for _, r := range reports {
		status := fmt.Sprintf("loaded in %s", r.LoadTime.Round(10*time.Microsecond))
		if len(r.Errors) > 0 {
			status = "NOT LOADED"
		}
		fmt.Fprintf(&b, "%s  (%s, %s)\n", r.Name, r.Origin, status)
		if withPath && r.Path != "" {
			fmt.Fprintf(&b, "  file:      %s\n", r.Path)
		}
		if r.Guard {
			fmt.Fprintf(&b, "  guard:     a tool call it cannot decide is refused\n")
		}
		list := func(label string, items []string, prefix string) {
			if len(items) == 0 {
				return
			}
			parts := make([]string, len(items))
			for i, it := range items {
				parts[i] = prefix + it
			}
			fmt.Fprintf(&b, "  %-10s %s\n", label+":", strings.Join(parts, ", "))
		}
		list("events", r.Events, "")
		list("commands", r.Commands, "/")
		list("tools", r.Tools, "")
		for _, name := range r.Replaces {
			fmt.Fprintf(&b, "  replaces:  built-in tool %s\n", name)
		}
		list("renderers", r.Renderers, "")
		for _, e := range r.Errors {
			fmt.Fprintf(&b, "  error:     %s\n", e)
		}
		for _, e := range r.ToolErrors {
			fmt.Fprintf(&b, "  error:     %s\n", e)
		}
		for _, w := range r.Warnings {
			fmt.Fprintf(&b, "  warning:   %s\n", w)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// subcommandHooks is `lunar hooks`, `lunar hooks check FILE...` and
// `lunar hooks types`.
func (a *app) subcommandHooks(args []string) int {
	if len(args) == 0 {
		if err := a.setupModels(); err != nil {
			return a.fail(err)
		}
		// The listing shows every load error and warning: not on stderr too.
		rt, err := a.loadHooks(func(string) {})
		if err != nil {
			return a.fail(err)
		}
		defer rt.Close()
		fmt.Fprintln(a.stdout, ansi.Sanitize(describeHooks(rt.Report(), true)))
		return exitOK
	}
	switch args[0] {
	case "types":
		if len(args) > 1 {
			return a.fail(&usageError{"usage: lunar hooks types"})
		}
		fmt.Fprint(a.stdout, lua.TypesMeta())
		return exitOK
	case "check":
		if len(args) < 2 {
			return a.fail(&usageError{"usage: lunar hooks check FILE..."})
		}
		code := exitOK
		for _, file := range args[1:] {
			rep, err := lua.Check(file, builtinNames())
			if err != nil {
				fmt.Fprintf(a.stderr, "lunar: %v\n", err)
				code = exitError
				continue
			}
			fmt.Fprintln(a.stdout, ansi.Sanitize(describeHooks([]lua.HookReport{rep}, false)))
			switch {
			case len(rep.Errors) > 0, len(rep.ToolErrors) > 0:
				code = exitError
			case len(rep.Warnings) == 0:
				fmt.Fprintf(a.stdout, "  ok\n")
			}
		}
		return code
	}
	return a.fail(&usageError{fmt.Sprintf("unknown hooks command %q (use: lunar hooks, lunar hooks check FILE, lunar hooks types)", args[0])})
}

// ListSessions lists this folder's sessions (the --session-dir folder when
// one is given), or with all every folder's under the data folder as
// well, newest first.
func (h *luaHost) ListSessions(all bool) ([]session.Info, error) {
	own, err := session.ListDir(h.a.sessionDir())
	if err != nil || !all {
		return own, err
	}
	every, err := session.ListAll(h.a.paths.Sessions())
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(every))
	for _, in := range every {
		seen[in.Path] = true
	}
	for _, in := range own { // a --session-dir outside the data folder
		if !seen[in.Path] {
			every = append(every, in)
		}
	}
	slices.SortStableFunc(every, func(a, b session.Info) int { return b.Modified.Compare(a.Modified) })
	return every, nil
}

// ReadSession loads a session read-only: a file path, or an id or the
// start of one (this folder's sessions first, then every folder's).
func (h *luaHost) ReadSession(ref string) (*session.Session, error) {
	path := ref
	if !strings.HasSuffix(ref, ".jsonl") {
		var err error
		if path, err = session.Find(h.a.paths.Sessions(), h.a.cwd, ref); err != nil && h.a.opts.SessionDir != "" {
			path, err = findSessionIn(h.a.opts.SessionDir, ref)
		}
		if err != nil {
			return nil, err
		}
	} else if !filepath.IsAbs(path) {
		path = filepath.Join(h.a.cwd, path)
	}
	return session.Load(path)
}

// findSessionIn finds a session of dir by id or the start of one.
func findSessionIn(dir, ref string) (string, error) {
	infos, err := session.ListDir(dir)
	if err != nil {
		return "", err
	}
	var found []string
	for _, in := range infos {
		if strings.HasPrefix(in.ID, ref) {
			found = append(found, in.Path)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("%w: %q", session.ErrNotFound, ref)
	}
	return "", fmt.Errorf("%d sessions start with %q", len(found), ref)
}
