package lua

// This file holds guards: hooks whose tool.execute.before answer a tool
// call needs (the permission policy). A guard fails closed. When it cannot
// answer a call (an error, a timeout, its memory cap, busy with a call
// lunar gave up on) that call is refused; when it is out of order (broken
// at load, disabled after an internal error) every tool call is refused.
// The overrun rules (memory cap, hook_max_timeouts) never disable a
// guard: the call that overran is refused and the next call asks it again.
// Every other hook is a feature and fails open: a feature that fails is
// reported and, after an overrun, disabled, and lunar goes on without it.
//
// A hook becomes a guard by calling lunar.guard(), which counts from that
// moment on (so it belongs on the file's first line); a bundled guard
// (hooksd.Guards) is one before its first instruction runs, so that even
// a load stopped before lunar.guard() leaves it out of order rather than
// absent. Only the user's own "disabled_hooks" (or --no-hooks) switches a
// guard off: a hook that is not loaded guards nothing.

import (
	"fmt"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/agent"
)

// isGuard reports whether the hook is a guard.
func (h *hook) isGuard() bool { return h.src.Guard || h.guard.Load() }

// luaGuard is lunar.guard(): the calling hook is a guard from now on.
func (h *hook) luaGuard(L *glua.LState) int {
	if h.guard.Swap(true) || h.src.Guard {
		return 0
	}
	h.rt.regMu.Lock()
	live := h.loaded()
	h.rt.regMu.Unlock()
	if live {
		h.rt.rebuild()
	}
	return 0
}

// outOfOrder says why a guard cannot answer any call ("" when it can).
func (h *hook) outOfOrder() string {
	switch st, why := h.state(); st {
	case hookLoaded:
		return ""
	case hookDisabled:
		return "it was disabled: " + why
	case hookFailed:
		return "it failed to load: " + why
	case hookClosed:
		return "it was closed"
	}
	return "it has not loaded"
}

// guardsAnswer refuses a tool call when a guard is out of order (the
// first, in load order). The user is told once per guard; the model on
// every call.
func (r *Runtime) guardsAnswer(guards []*hook) (agent.ToolCallDecision, bool) {
	for _, g := range guards {
		why := g.outOfOrder()
		if why == "" {
			continue
		}
		if !g.refusing.Swap(true) {
			r.report(fmt.Sprintf("guard %s is out of order (%s): every tool call is refused until it is fixed, or switched off with \"disabled_hooks\" in your config.json", g.src.Name, why))
		}
		return agent.ToolCallDecision{Block: true, Reason: fmt.Sprintf("Refused: the guard %s is not working (%s), so lunar refuses every tool call. "+
			"Do not retry; tell the user. They can fix it, or switch it off with \"disabled_hooks\" in their own config.json.", g.src.Name, why)}, true
	}
	return agent.ToolCallDecision{}, false
}

// guardFailed is the refusal of a call a guard's handler could not decide.
func guardFailed(h *hook, err error) agent.ToolCallDecision {
	return agent.ToolCallDecision{Block: true, Reason: fmt.Sprintf("Refused: the guard %s could not decide on this call (%v). "+
		"Do not retry it; tell the user.", h.src.Name, err)}
}
