package main

// Command lines that arrive while the agent runs (the REPL's typing
// during a reply, RPC's prompt with a /command while streaming): hook
// commands run at once (their ctx.is_idle() is false); built-ins that
// only read run at once too; those that change the session but not what
// the run stands on wait until it ends; those that would pull the
// session from under it are refused with one line; /compact compacts at
// the next turn boundary and the run goes on on the compacted context.

import (
	"context"
	"fmt"
	"strings"

	"github.com/lunar-cli/lunar/agent"
)

// busyAction is what a command line does while the agent runs.
type busyAction int

const (
	busyNow     busyAction = iota // run it now, as when idle
	busyQueue                     // run it as typed once the run has ended
	busyRefuse                    // refuse it with one line
	busyCompact                   // compact at the next turn boundary
)

// builtinWhileRunning decides for a built-in (name without the slash,
// its arguments trimmed); why is the line shown when it is not run now.
func builtinWhileRunning(name, args string) (act busyAction, why string) {
	switch name {
	case "help", "tree", "session", "hooks", "tools", "expand", "quit", "exit":
		return busyNow, ""
	case "model", "thinking", "name":
		if args == "" { // showing, not setting
			return busyNow, ""
		}
		return busyQueue, fmt.Sprintf("/%s runs when the reply ends", name)
	case "label", "export":
		return busyQueue, fmt.Sprintf("/%s runs when the reply ends", name)
	case "compact":
		return busyCompact, "compacting before the next model call; the reply goes on"
	case "clear", "branch", "fork", "resume", "sessions":
		return busyRefuse, fmt.Sprintf("/%s changes the session under the running reply: wait for it to end, or stop it with Ctrl+C", name)
	}
	return busyNow, ""
}

// commandDuringRun handles a command line that arrived while the agent
// runs. run is true when the front end should run it now as it would
// when idle (a hook command, a built-in that only reads); otherwise it
// was queued, scheduled or refused and note is the one line to show
// (refused: err is set, a usage error).
func (a *app) commandDuringRun(line string) (run bool, note string, err error) {
	name, args, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "/"), " ")
	if i := strings.IndexByte(name, '\n'); i >= 0 {
		name, args = name[:i], name[i+1:]+" "+args
	}
	args = strings.TrimSpace(args)
	if findBuiltin(name) == nil {
		return true, "", nil // a hook command (or an unknown one: the front end says so)
	}
	act, why := builtinWhileRunning(name, args)
	switch act {
	case busyQueue:
		a.agentRuntime.SendCommand(strings.TrimSpace(line))
	case busyCompact:
		if !a.agentRuntime.RequestCompact(args) {
			return true, "", nil // the run ended meanwhile
		}
	case busyRefuse:
		return false, "", &usageError{why}
	default:
		return true, "", nil
	}
	return false, why, nil
}

// replOnlyCommand reports whether a command line typed during a run acts
// on the REPL itself (/quit, /exit, /expand): the REPL types it ahead,
// for the prompt after the run, instead of handling it at once.
func replOnlyCommand(line string) bool {
	name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "/"), " ")
	switch name {
	case "quit", "exit", "expand":
		return findBuiltin(name) != nil
	}
	return false
}

// commandWhileRunning handles a command line entered in the REPL while
// the run accepts input (the in-run editor's Enter, see
// repl_typeahead.go): a hook command or a built-in that only reads runs
// now, its output between the reply's lines; the rest is queued,
// scheduled or refused with one line (commandDuringRun). /model without
// arguments is the picker in the REPL, which sets the model: it waits
// for the end. A prompt a hook command returns follows up the run.
func (r *repl) commandWhileRunning(line string) {
	name, args, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	args = strings.TrimSpace(args)
	if name == "model" && args == "" && r.term.line != nil && findBuiltin(name) != nil {
		r.a.agentRuntime.SendCommand(line)
		r.printf("%s\n", r.term.paint(ansiDim, "/model runs when the reply ends"))
		return
	}
	run, note, err := r.a.commandDuringRun(line)
	switch {
	case err != nil:
		r.report(err)
		return
	case !run:
		r.printf("%s\n", r.term.paint(ansiDim, note))
		return
	}
	ctx := context.Background()
	if c := findBuiltin(name); c != nil {
		r.report(c.run(r, ctx, args))
		return
	}
	prompt, handled, err := r.a.appHookSet().RunCommand(ctx, name, args)
	switch {
	case err != nil:
		r.report(fmt.Errorf("/%s: %w", name, err))
	case !handled:
		r.errorf("unknown command /%s, see /help", name)
	case strings.TrimSpace(prompt) == "":
	case !r.a.agentRuntime.TryFollowUp(agent.SourceExtension, prompt, nil):
		r.a.agentRuntime.Send(prompt, nil) // the run ended meanwhile: the next step sends it
	}
}

// hookCommandWhileRunning runs line now if it is a hook's command
// ("/name args"), as RPC does for a prompt that arrives while the agent
// streams (pi runs extension commands at once); a prompt it returns
// follows the run up. handled false: line is no hook command.
func (a *app) hookCommandWhileRunning(line string) (handled bool, err error) {
	t := strings.TrimSpace(line)
	if !isCommand(t) {
		return false, nil
	}
	name, args, _ := strings.Cut(strings.TrimPrefix(t, "/"), " ")
	prompt, handled, err := a.appHookSet().RunCommand(context.Background(), name, strings.TrimSpace(args))
	if err != nil || !handled {
		return handled, err
	}
	if strings.TrimSpace(prompt) != "" && !a.agentRuntime.TryFollowUp(agent.SourceExtension, prompt, nil) {
		a.agentRuntime.Send(prompt, nil) // the run's final reply has ended: the next step sends it
	}
	return true, nil
}
