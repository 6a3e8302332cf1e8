package main

// The application: wires config, model registry, session, tools, hooks and
// the agent loop together for both the one-shot mode and the REPL.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/agent/mcp"
	"github.com/lunar-cli/lunar/agent/tools"
	"github.com/lunar-cli/lunar/lua"
	"github.com/lunar-cli/lunar/session"
	"github.com/lunar-cli/lunar/session/export/ansi"
)

// app is one lunar process.
type app struct {
	opts   *options
	paths  paths
	cfg    *config
	cwd    string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer

	registry  *agent.Registry
	model     agent.Model // chosen by flags and config (setupModels)
	thinking  agent.ThinkingLevel
	allTools  []*agent.Tool
	toolAllow []string // --tools' names (nil without the flag): hook tools too
	hooks     appHooks
	ui        hookUI
	rpc       *rpcServer // --mode rpc
	// luaRuntime runs the hooks (nil until they are loaded); agentRuntime,
	// the session runtime, is the open session and everything done with it.
	luaRuntime   *lua.Runtime
	agentRuntime *agent.Runtime
	mcp          *mcp.Manager // the MCP servers; nil without any (config_mcp.go)

	project        *projectFiles // what the project's .lunar/ holds
	projectTrusted bool          // the user trusted it (trustProject)
	hookPrep       *hookPrep     // hooks being prepared (prepareHooks), until loadHooks
	modelDefaulted bool          // nothing chose the model (DefaultModel's fallback)
	// thinkingFromModel: --model's ":level" suffix chose the thinking level.
	thinkingFromModel bool
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	stdout, stderr = guardOutput(stdout, stderr)
	opts, fs, err := parseFlags(args)
	if err != nil {
		fmt.Fprintf(stderr, "lunar: %v\nRun 'lunar --help' for usage.\n", err)
		return exitUsage
	}
	if opts.Help {
		printUsage(stdout, fs)
		return exitOK
	}
	if opts.Version {
		fmt.Fprintf(stdout, "lunar %s\n", version)
		return exitOK
	}
	a := &app{opts: opts, paths: resolvePaths(), stdin: stdin, stdout: stdout, stderr: stderr}
	if a.cwd, err = os.Getwd(); err != nil {
		fmt.Fprintf(stderr, "lunar: %v\n", err)
		return exitError
	}
	if a.cfg, err = loadConfig(a.paths.Config); err != nil {
		fmt.Fprintf(stderr, "lunar: %v\n", err)
		return exitError
	}
	sub := isSubcommand(opts.Args)
	switch {
	case (opts.All || opts.JSON) && (!sub || opts.Args[0] != "sessions"):
		return a.fail(&usageError{"--all and --json go with lunar sessions"})
	case opts.ListModels:
		// The positional arguments are its search.
	case !sub:
		if s, ok := subcommandTypo(opts.Args); ok && !opts.PromptSet {
			return a.fail(&usageError{fmt.Sprintf("%q is no command: did you mean `lunar %s`? (to send it as a prompt: lunar -p %s)", opts.Args[0], s, opts.Args[0])})
		}
		splitArgs(opts)
	}
	// A prompt given as an argument opens the REPL with it, unless -p asks
	// for one-shot or the answer goes to a file or a pipe.
	interactive := !sub && !opts.PromptSet && isTerminal(stdin) && opts.Mode == "text" &&
		(len(opts.Messages) == 0 && len(opts.Files) == 0 || isTTY(stdout))
	var ask func(string, []string) bool
	if interactive && !opts.ListModels && opts.Export == "" {
		ask = a.askTrust
	}
	if err := a.setupProject(ask); err != nil {
		return a.fail(err)
	}
	if code, handled := a.subcommand(); handled {
		return code
	}
	if opts.Export != "" {
		return a.exportCommand()
	}
	if err := a.setupModels(); err != nil {
		return a.fail(err)
	}
	if opts.ListModels {
		return a.listModels(strings.Join(opts.Args, " "))
	}

	if opts.Resume && !interactive {
		return a.fail(&usageError{"--resume picks a session interactively; in one-shot mode use --session ID or --continue"})
	}
	a.prepareHooks()
	var prompts []initialPrompt
	switch {
	case opts.Mode == "rpc":
		// The prompts come as commands on stdin.
		if len(opts.prompts()) > 0 || len(opts.Files) > 0 {
			return a.fail(&usageError{"--mode rpc takes its prompts as commands on stdin, not as arguments or -p"})
		}
		a.prepareRPC()
	case interactive:
		prompts, err = a.argPrompts(opts.prompts())
	default:
		prompts, err = a.readPrompts()
	}
	if err != nil {
		return a.fail(err)
	}

	if err := a.setup(interactive); err != nil {
		if interactive {
			a.closeTerminal()
		}
		a.close()
		return a.fail(err)
	}
	defer a.close()

	a.luaRuntime.AppStart(context.Background(), version, a.mode(interactive))
	startReason := ""
	if opts.Fork != "" {
		startReason = agent.SessionStartFork
	}
	a.agentRuntime.Start(context.Background(), startReason)
	if interactive {
		return a.runREPL(prompts)
	}
	if a.rpc != nil {
		return a.runRPC()
	}
	// A reader that stops early (`lunar -p … | head`) must not kill lunar
	// mid-reply: writes to stdout then fail quietly, the reply is still
	// saved and the session unlocked.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := interruptible() // after the first Ctrl+C, a second one ends the process at once
	defer stop()
	finished := make(chan struct{})
	defer close(finished) // before stop: a run that ended is not stuck
	a.watchStop(ctx.Done(), finished)
	return a.runOneShot(ctx, prompts)
}

// fail reports a setup error; usage errors exit 2, the rest 1.
func (a *app) fail(err error) int {
	fmt.Fprintf(a.stderr, "lunar: %v\n", err)
	var ue *usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitError
}

// readPrompts builds the one-shot prompts: -p's and the positional ones,
// piped stdin appended to the first (or the only prompt), @file arguments
// attached to it.
func (a *app) readPrompts() ([]initialPrompt, error) {
	texts := a.opts.prompts()
	if !isTerminal(a.stdin) {
		data, err := io.ReadAll(a.stdin)
		if err != nil {
			return nil, fmt.Errorf("read stdin: %w", err)
		}
		if in := strings.TrimRight(string(data), "\n"); strings.TrimSpace(in) != "" {
			if len(texts) > 0 {
				texts[0] += "\n\n" + in
			} else {
				texts = []string{in}
			}
		}
	}
	if len(texts) == 0 && len(a.opts.Files) == 0 {
		return nil, &usageError{"no prompt: pass -p \"…\", give it as an argument or pipe one through stdin"}
	}
	return a.argPrompts(texts)
}

// argPrompts attaches the @file arguments to the first prompt.
func (a *app) argPrompts(texts []string) ([]initialPrompt, error) {
	if len(texts) == 0 && len(a.opts.Files) == 0 {
		return nil, nil
	}
	if len(texts) == 0 {
		texts = []string{""}
	}
	first, images, err := attachFiles(texts[0], a.opts.Files, a.cwd)
	if err != nil {
		return nil, err
	}
	out := []initialPrompt{{text: first, images: images}}
	for _, t := range texts[1:] {
		out = append(out, initialPrompt{text: t})
	}
	return out, nil
}

// isTerminal reports whether r is a terminal: a character device that
// answers the terminal ioctls (/dev/null is a character device and no
// terminal, so `lunar "prompt" </dev/null` is one-shot).
func isTerminal(r io.Reader) bool {
	return isTTY(r)
}

// setup opens the session, builds the runtime over it and loads the
// hooks.
func (a *app) setup(interactive bool) error {
	sess, resumed, err := a.openSession()
	if err != nil {
		return err
	}
	if err := a.setupTools(); err != nil {
		sess.Close()
		return err
	}
	if err := a.setupMCP(); err != nil {
		sess.Close()
		return err
	}
	var moreTools agent.ToolProvider
	if a.mcp != nil {
		moreTools = a.mcp
	}
	a.agentRuntime, err = agent.NewRuntime(agent.RuntimeOptions{
		Registry:      a.registry,
		Cwd:           a.cwd,
		SessionDir:    a.sessionDir(),
		InMemory:      a.opts.NoSession,
		Model:         a.model,
		ThinkingLevel: a.thinking,
		KeepModel:     a.opts.Model != "" || a.opts.Provider != "",
		KeepThinking:  a.opts.Thinking != "" || a.thinkingFromModel,
		Temperature:   a.temperature(),
		Tools:         a.allTools,
		ToolAllow:     a.toolAllow,
		MoreTools:     moreTools,
		APIKey:        a.apiKey,
		AdjustModel:   a.withFlags,
		ModelCycle:    a.cfg.Models,
		Compaction:    a.cfg.compactionSettings(),
		Warn:          func(msg string) { a.warnf("%s", msg) },
		Notice:        a.notice,
	}, sess, resumed)
	if err != nil {
		sess.Close()
		return err
	}
	// Checked when the config was read.
	steer, _ := agent.ParseQueueMode(a.cfg.SteeringMode)
	follow, _ := agent.ParseQueueMode(a.cfg.FollowUpMode)
	a.agentRuntime.SetSteeringMode(steer)
	a.agentRuntime.SetFollowUpMode(follow)
	if !interactive && a.ui == nil {
		a.ui = noUI{stderr: a.stderr}
	}
	if err := a.setupHooks(interactive); err != nil {
		return err
	}
	if err := a.checkToolNames(); err != nil {
		return err
	}
	a.agentRuntime.SetPromptBuilder(a.systemPrompt())
	return nil
}

// temperature is --temperature, nil when not given.
func (a *app) temperature() *float64 {
	if !a.opts.TemperatureSet {
		return nil
	}
	t := a.opts.Temperature
	return &t
}

func (a *app) close() {
	if a.agentRuntime != nil {
		a.agentRuntime.WaitHooks() // before the hooks close under them
	}
	if a.hookPrep != nil {
		a.hookPrep.close() // set-up failed before loading them
		a.hookPrep = nil
	}
	if a.luaRuntime != nil {
		a.luaRuntime.Close()
		a.luaRuntime = nil
	}
	if a.agentRuntime != nil {
		if err := a.agentRuntime.Close(); err != nil {
			fmt.Fprintf(a.stderr, "lunar: closing session: %v\n", err)
		}
	}
	if a.mcp != nil {
		a.mcp.Close()
	}
}

func (a *app) setupTools() error {
	keep := a.cfg.BashKeepAPIKeys != nil && *a.cfg.BashKeepAPIKeys
	all := tools.BuiltinsWith(a.cwd, tools.Options{Bash: tools.BashOptions{KeepAPIKeys: keep, SecretEnv: a.registry.APIKeyEnvs()}})
	switch {
	case a.opts.NoTools:
		a.allTools = nil
	case a.opts.Tools != "":
		// The names that are not built-ins may be hook tools: checked
		// once the hooks are loaded (checkToolNames).
		a.toolAllow = splitList(a.opts.Tools)
		var builtin []string
		for _, n := range a.toolAllow {
			if slices.ContainsFunc(all, func(t *agent.Tool) bool { return t.Name == n }) {
				builtin = append(builtin, n)
			}
		}
		sel, err := tools.ByName(builtin, all)
		if err != nil {
			return &usageError{"--tools: " + err.Error()}
		}
		a.allTools = sel
	default:
		a.allTools = all
	}
	return nil
}

// checkToolNames fails when --tools names a tool that is neither a
// built-in nor a tool the hooks registered while loading.
func (a *app) checkToolNames() error {
	if len(a.toolAllow) == 0 {
		return nil
	}
	var names []string
	for _, t := range a.agentRuntime.ToolList() {
		names = append(names, t.Name)
	}
	for _, n := range a.toolAllow {
		if !slices.Contains(names, n) {
			var builtins []string
			for _, t := range tools.BuiltinsWith(a.cwd, tools.Options{}) {
				builtins = append(builtins, t.Name)
			}
			return &usageError{fmt.Sprintf("--tools: unknown tool %q (neither a built-in: %s; nor a hook's)", n, strings.Join(builtins, ", "))}
		}
	}
	return nil
}

// systemPrompt builds the base system prompt for the tools a run starts
// with (they change when hooks register, replace or disable tools).
func (a *app) systemPrompt() *agent.PromptBuilder {
	return agent.NewPromptBuilder(agent.SystemPromptOptions{
		Cwd:          a.cwd,
		Custom:       a.opts.SystemPrompt,
		Append:       a.opts.AppendSystemPrompt,
		GlobalDir:    a.paths.Config,
		ContextFiles: true,
	})
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// sessionDir is the folder sessions of this cwd live in.
func (a *app) sessionDir() string {
	if a.opts.SessionDir != "" {
		return a.opts.SessionDir
	}
	return session.Dir(a.paths.Sessions(), a.cwd)
}

// findSession resolves a --session/--fork argument: a path, an id (or a
// part of one), a name or words of the first message (resolveSession).
func (a *app) findSession(arg string) (string, error) {
	return a.resolveSession(arg)
}

// openSession opens the session the flags ask for; resumed says it
// existed before (or is a fork of one).
func (a *app) openSession() (*session.Session, bool, error) {
	o := a.opts
	switch {
	case o.NoSession:
		return session.CreateInMemory(a.cwd), false, nil
	case o.Continue:
		path, err := a.mostRecent()
		if err != nil {
			return nil, false, err
		}
		if path == "" {
			s, err := session.Create(a.sessionDir(), a.cwd)
			return s, false, err
		}
		return a.resume(path)
	case o.Session != "":
		path, err := a.findSession(o.Session)
		if err != nil {
			return nil, false, err
		}
		return a.resume(path)
	case o.Fork != "":
		path, err := a.findSession(o.Fork)
		if err != nil {
			return nil, false, err
		}
		// Every entry, as pi's --fork; the REPL's /fork copies one path.
		s, err := session.ForkFile(path, a.sessionDir(), a.cwd)
		return s, err == nil, err
	default:
		s, err := session.Create(a.sessionDir(), a.cwd)
		return s, false, err
	}
}

func (a *app) mostRecent() (string, error) {
	if a.opts.SessionDir != "" { // only session files: a newer .jsonl of the user's is left alone
		return session.MostRecentDir(a.opts.SessionDir)
	}
	return session.MostRecent(a.paths.Sessions(), a.cwd)
}

func (a *app) resume(path string) (*session.Session, bool, error) {
	s, err := session.Open(path)
	if err != nil {
		return nil, false, err
	}
	for _, w := range s.Warnings() {
		fmt.Fprintf(a.stderr, "lunar: warning: %s\n", w)
	}
	return s, true, nil
}

// submit runs the one-shot prompt: /compact [instructions], another
// built-in command (oneshot_commands.go), a hook command when it starts
// with /name and a hook registered that command, otherwise a prompt.
func (a *app) submit(ctx context.Context, text string, images []session.ContentBlock) error {
	trimmed := strings.TrimSpace(text)
	if isCommand(trimmed) {
		name, args, _ := strings.Cut(strings.TrimPrefix(trimmed, "/"), " ")
		if i := strings.IndexByte(name, '\n'); i >= 0 {
			name, args = name[:i], name[i+1:]+" "+args
		}
		if name == "compact" {
			_, err := a.agentRuntime.Compact(ctx, agent.CompactManual, strings.TrimSpace(args))
			return err
		}
		// RPC clients have commands of their own, and a built-in's output
		// has no place in the protocol: as in pi, the line is for the
		// hooks' commands or the model.
		if a.rpc == nil {
			if ok, err := a.runBuiltinOneShot(ctx, trimmed); ok {
				return err
			}
		}
		prompt, handled, err := a.appHookSet().RunCommand(ctx, name, strings.TrimSpace(args))
		if handled || err != nil {
			if err != nil {
				return err // already "hook <file>: /<name>: <message>"
			}
			if strings.TrimSpace(prompt) == "" {
				return nil
			}
			return a.agentRuntime.Prompt(ctx, prompt, nil)
		}
	}
	if n := a.imageNotice(images); n != "" && a.rpc == nil {
		fmt.Fprintf(a.stderr, "lunar: %s\n", n)
	}
	return a.agentRuntime.Prompt(ctx, text, images)
}

// imageNotice is the line that says the current model takes no images,
// when a prompt attaches some ("" otherwise): they reach the model as
// placeholder texts. Images already in the session get no notice.
func (a *app) imageNotice(images []session.ContentBlock) string {
	if len(images) == 0 {
		return ""
	}
	m := a.agentRuntime.Model()
	if m.TakesImages() {
		return ""
	}
	what := "the image is"
	if len(images) > 1 {
		what = fmt.Sprintf("the %d images are", len(images))
	}
	return ansi.Sanitize(fmt.Sprintf("%s/%s does not take images; %s sent as a placeholder (set \"input\" in the model's config)",
		m.Provider, m.ID, what))
}
