package lua

// This file holds the typed entry points for the application's events:
// startup, the session lifecycle, compaction, model changes and exit.

import (
	"context"
	"encoding/json"
	"fmt"

	glua "github.com/yuin/gopher-lua"

	"github.com/lunar-cli/lunar/agent"
	"github.com/lunar-cli/lunar/session"
)

// AppStart fires app.start once the hooks are loaded; mode is "repl",
// "oneshot" or "json".
func (r *Runtime) AppStart(ctx context.Context, version, mode string) {
	if len(r.listeners(evAppStart)) == 0 {
		return
	}
	r.notify(ctx, evAppStart, setStr("version", version, "mode", mode))
}

// SessionStart fires session.start with its reason (startup, resume,
// new, clear, fork) whenever a session becomes the open one; a session
// resumed at launch fires session.resume too (after it), as before
// session.start had a reason.
func (r *Runtime) SessionStart(ctx context.Context, id, file, reason string) {
	if len(r.listeners(evSessionStart)) > 0 {
		r.notify(ctx, evSessionStart, setStr("session_id", id, "session_file", file, "reason", reason))
	}
	if reason == agent.SessionStartResume && len(r.listeners(evSessionResume)) > 0 {
		r.notify(ctx, evSessionResume, setStr("session_id", id, "session_file", file))
	}
}

// BeforeClear fires session.before_clear (/clear); a handler may cancel.
func (r *Runtime) BeforeClear(ctx context.Context, id string) (cancel bool, reason string) {
	if len(r.listeners(evSessionBeforeClear)) == 0 {
		return false, ""
	}
	return r.cancelable(ctx, evSessionBeforeClear, setStr("session_id", id))
}

// Clear fires session.clear with the new session's id.
func (r *Runtime) Clear(ctx context.Context, newID string) {
	if len(r.listeners(evSessionClear)) == 0 {
		return
	}
	r.notify(ctx, evSessionClear, setStr("session_id", newID))
}

// BeforeSwitch fires session.before_switch (/resume, a /sessions pick); a
// handler may cancel.
func (r *Runtime) BeforeSwitch(ctx context.Context, target string) (cancel bool, reason string) {
	if len(r.listeners(evSessionBeforeSwitch)) == 0 {
		return false, ""
	}
	return r.cancelable(ctx, evSessionBeforeSwitch, setStr("target_session_file", target))
}

// Switch fires session.switch after switching sessions.
func (r *Runtime) Switch(ctx context.Context, previous string) {
	if len(r.listeners(evSessionSwitch)) == 0 {
		return
	}
	r.notify(ctx, evSessionSwitch, setStr("previous_session_file", previous))
}

// BeforeBranch fires session.before_branch (/branch, ctx.session.branch):
// the first cancel stops; otherwise the last summary given wins (use it
// instead of asking the model for a branch summary).
func (r *Runtime) BeforeBranch(ctx context.Context, targetID, fromID string) (cancel bool, summary string) {
	if len(r.listeners(evSessionBeforeBranch)) == 0 {
		return false, ""
	}
	return r.beforeBranch(ctx, targetID, fromID)
}

func (r *Runtime) beforeBranch(ctx context.Context, targetID, fromID string) (cancel bool, summary string) {
	for _, hd := range r.listeners(evSessionBeforeBranch) {
		var c bool
		var s string
		var set bool
		err := r.invoke(ctx, hd, setStr("target_id", targetID, "from_id", fromID), func(rr *resultReader) error {
			c, _ = rr.boolean("cancel")
			rr.str("reason")
			s, set = rr.str("summary")
			return nil
		})
		if err != nil {
			continue
		}
		if c {
			return true, ""
		}
		if set {
			summary = s
		}
	}
	return false, summary
}

// Branch fires session.branch after the leaf moved.
func (r *Runtime) Branch(ctx context.Context, targetID, fromID string) {
	if len(r.listeners(evSessionBranch)) == 0 {
		return
	}
	r.notify(ctx, evSessionBranch, setStr("target_id", targetID, "from_id", fromID))
}

// BeforeFork fires session.before_fork (/fork); a handler may cancel.
func (r *Runtime) BeforeFork(ctx context.Context, entryID string) (cancel bool, reason string) {
	if len(r.listeners(evSessionBeforeFork)) == 0 {
		return false, ""
	}
	return r.cancelable(ctx, evSessionBeforeFork, setStr("entry_id", entryID))
}

// Fork fires session.fork in the new session.
func (r *Runtime) Fork(ctx context.Context, entryID, previousFile string) {
	if len(r.listeners(evSessionFork)) == 0 {
		return
	}
	r.notify(ctx, evSessionFork, setStr("entry_id", entryID, "previous_session_file", previousFile))
}

// Compaction reasons and event types are agent's (the runtime fires them).
const (
	CompactManual   = agent.CompactManual
	CompactAuto     = agent.CompactAuto
	CompactOverflow = agent.CompactOverflow
	CompactHook     = agent.CompactHook
)

// CompactEvent describes a compaction about to happen.
type CompactEvent = agent.CompactEvent

// CompactPreparation is what the compaction would do.
type CompactPreparation = agent.CompactPreparation

// CompactResult is what the session.before_compact handlers decided.
type CompactResult = agent.CompactDecision

// BeforeCompact fires session.before_compact, without a timeout (handlers
// may call a model); ctx cancels. The first cancel stops; summary,
// details and prompt: the last handler giving them wins; instructions
// chain; context lines add up.
func (r *Runtime) BeforeCompact(ctx context.Context, ev CompactEvent) CompactResult {
	if len(r.listeners(evSessionBeforeCompact)) == 0 {
		return CompactResult{Instructions: ev.Instructions}
	}
	return r.beforeCompact(ctx, ev)
}

func (r *Runtime) beforeCompact(ctx context.Context, ev CompactEvent) CompactResult {
	res := CompactResult{Instructions: ev.Instructions}
	// What can be large is built when a handler reads it, from JSON
	// encoded once for every handler.
	msgs := newSharedMessages(ev.Preparation.Messages)
	prev := newSharedEntries(func() []*session.Entry { return ev.PreviousCompactions })
	for _, hd := range r.listeners(evSessionBeforeCompact) {
		var cancel bool
		var reason, summary, instr, prompt string
		var setSummary, setInstr bool
		var details json.RawMessage
		var lines []string
		err := r.invoke(ctx, hd, func(h *hook, L *glua.LState, t *glua.LTable) error {
			t.RawSetString("reason", glua.LString(ev.Reason))
			t.RawSetString("instructions", glua.LString(res.Instructions))
			prep := L.CreateTable(0, 3)
			prep.RawSetString("first_kept_entry_id", glua.LString(ev.Preparation.FirstKeptEntryID))
			prep.RawSetString("tokens_before", glua.LNumber(ev.Preparation.TokensBefore))
			h.setLazy(L, prep, h.lazyArray("messages", msgs.get))
			t.RawSetString("preparation", prep)
			h.setLazy(L, t, h.lazyArray("previous_compactions", prev.get),
				lazyValue("model", func() glua.LValue { return modelLua(L, ev.Model) }))
			return nil
		}, func(rr *resultReader) error {
			cancel, _ = rr.boolean("cancel")
			reason, _ = rr.str("reason")
			summary, setSummary = rr.str("summary")
			instr, setInstr = rr.str("instructions")
			prompt, _ = rr.str("prompt")
			switch c := rr.t.RawGetString("context").(type) {
			case *glua.LNilType:
			case glua.LString:
				lines = []string{string(c)}
			case *glua.LTable:
				for i := 1; i <= c.Len(); i++ {
					s, ok := c.RawGetInt(i).(glua.LString)
					if !ok {
						return fmt.Errorf("context: a list of strings expected")
					}
					lines = append(lines, string(s))
				}
			default:
				return fmt.Errorf("context: a list of strings expected, got %s", c.Type())
			}
			if d := rr.t.RawGetString("details"); d != glua.LNil && !rr.h.codec().IsNull(d) {
				var err error
				if details, err = rr.h.luaJSON(d); err != nil {
					return fmt.Errorf("details: %w", err)
				}
			}
			return nil
		})
		if err != nil {
			continue
		}
		if cancel {
			return CompactResult{Cancel: true, Reason: reason, Instructions: res.Instructions}
		}
		if setInstr {
			res.Instructions = instr
		}
		if prompt != "" {
			res.Prompt = prompt
		}
		res.Context = append(res.Context, lines...)
		if setSummary && summary != "" {
			res.Summary, res.Details = summary, details
		}
	}
	return res
}

// CompactInfo describes a finished compaction.
type CompactInfo = agent.CompactInfo

// Compact fires session.compact after a compaction.
func (r *Runtime) Compact(ctx context.Context, info CompactInfo) {
	if len(r.listeners(evSessionCompact)) == 0 {
		return
	}
	r.compact(ctx, info)
}

func (r *Runtime) compact(ctx context.Context, info CompactInfo) {
	r.notify(ctx, evSessionCompact, func(_ *hook, _ *glua.LState, t *glua.LTable) error {
		t.RawSetString("summary", glua.LString(info.Summary))
		t.RawSetString("from_hook", glua.LBool(info.FromHook))
		t.RawSetString("tokens_before", glua.LNumber(info.TokensBefore))
		t.RawSetString("first_kept_entry_id", glua.LString(info.FirstKeptEntryID))
		t.RawSetString("entry_id", glua.LString(info.EntryID))
		return nil
	})
}

// Shutdown fires session.shutdown on exit.
func (r *Runtime) Shutdown(ctx context.Context, id string) {
	if len(r.listeners(evSessionShutdown)) == 0 {
		return
	}
	r.notify(ctx, evSessionShutdown, setStr("session_id", id))
}

// ModelChange fires model.change (/model, cycling, ctx.set_model, a
// session's model restored); source is "set", "cycle" or "restore".
func (r *Runtime) ModelChange(ctx context.Context, prevProvider, prevID, newProvider, newID, thinking, source string) {
	if len(r.listeners(evModelChange)) == 0 {
		return
	}
	r.notify(ctx, evModelChange, setStr("previous_provider", prevProvider, "previous_model_id", prevID,
		"new_provider", newProvider, "new_model_id", newID, "thinking_level", thinking, "source", source))
}

var _ agent.SessionHooks = (*Runtime)(nil)
