package agent

// The session-level hook events a Runtime fires (the Lua runtime implements
// them), with the types they carry.

import (
	"context"
	"encoding/json"

	"github.com/lunar-cli/lunar/session"
)

// SessionHooks are the hook events of the session's life: start, clear,
// switch, branch, fork, compaction, model changes and exit. The before_*
// events may cancel (with a reason) or, for branches and compactions,
// supply the summary.
type SessionHooks interface {
	// SessionStart fires when a session becomes the open one; reason is
	// one of the SessionStart* constants.
	SessionStart(ctx context.Context, id, file, reason string)
	BeforeClear(ctx context.Context, id string) (cancel bool, reason string)
	// Clear fires after /clear with the new session's id.
	Clear(ctx context.Context, newID string)
	BeforeSwitch(ctx context.Context, target string) (cancel bool, reason string)
	Switch(ctx context.Context, previous string)
	BeforeBranch(ctx context.Context, targetID, fromID string) (cancel bool, summary string)
	Branch(ctx context.Context, targetID, fromID string)
	BeforeFork(ctx context.Context, entryID string) (cancel bool, reason string)
	// Fork fires after a fork; previousFile is the session forked from.
	Fork(ctx context.Context, entryID, previousFile string)
	BeforeCompact(ctx context.Context, ev CompactEvent) CompactDecision
	Compact(ctx context.Context, info CompactInfo)
	// ModelChange fires after the model changed; source is "set" (/model,
	// ctx.set_model), "cycle" (/model next, Ctrl+P) or "restore" (a session
	// switched to brought its model back), as pi's model_select.
	ModelChange(ctx context.Context, prevProvider, prevID, newProvider, newID, thinking, source string)
	Shutdown(ctx context.Context, id string)
}

// NopSessionHooks is a SessionHooks that changes nothing.
type NopSessionHooks struct{}

var _ SessionHooks = NopSessionHooks{}

// SessionStart implements SessionHooks.
func (NopSessionHooks) SessionStart(context.Context, string, string, string) {}

// BeforeClear implements SessionHooks.
func (NopSessionHooks) BeforeClear(context.Context, string) (bool, string) { return false, "" }

// Clear implements SessionHooks.
func (NopSessionHooks) Clear(context.Context, string) {}

// BeforeSwitch implements SessionHooks.
func (NopSessionHooks) BeforeSwitch(context.Context, string) (bool, string) { return false, "" }

// Switch implements SessionHooks.
func (NopSessionHooks) Switch(context.Context, string) {}

// BeforeBranch implements SessionHooks.
func (NopSessionHooks) BeforeBranch(context.Context, string, string) (bool, string) {
	return false, ""
}

// Branch implements SessionHooks.
func (NopSessionHooks) Branch(context.Context, string, string) {}

// BeforeFork implements SessionHooks.
func (NopSessionHooks) BeforeFork(context.Context, string) (bool, string) { return false, "" }

// Fork implements SessionHooks.
func (NopSessionHooks) Fork(context.Context, string, string) {}

// BeforeCompact implements SessionHooks.
func (NopSessionHooks) BeforeCompact(_ context.Context, ev CompactEvent) CompactDecision {
	return CompactDecision{Instructions: ev.Instructions}
}

// Compact implements SessionHooks.
func (NopSessionHooks) Compact(context.Context, CompactInfo) {}

// ModelChange implements SessionHooks.
func (NopSessionHooks) ModelChange(context.Context, string, string, string, string, string, string) {}

// Shutdown implements SessionHooks.
func (NopSessionHooks) Shutdown(context.Context, string) {}

// Why a session became the open one (session.start's reason, as pi's).
const (
	SessionStartStartup = "startup" // a new session at launch
	SessionStartResume  = "resume"  // an existing one: at launch (-c, --session) or /resume
	SessionStartNew     = "new"     // a hook started a new session
	SessionStartClear   = "clear"   // /clear
	SessionStartFork    = "fork"    // /fork or --fork
)

// Compaction reasons, as hooks see them.
const (
	CompactManual   = "manual"   // /compact, or -p "/compact"
	CompactAuto     = "auto"     // the context passed the threshold after a turn
	CompactOverflow = "overflow" // the provider said the context is too long
	CompactHook     = "hook"     // ctx.session.compact
)

// CompactEvent describes a compaction about to happen.
type CompactEvent struct {
	Reason       string // CompactManual, CompactAuto, CompactOverflow or CompactHook
	Instructions string // custom instructions, "" for none
	Preparation  CompactPreparation
	// PreviousCompactions are the compaction entries on the path, newest first.
	PreviousCompactions []*session.Entry
	Model               Model // the model that would summarise
}

// CompactPreparation is what the compaction would do.
type CompactPreparation struct {
	Messages         []session.Message // to summarise (with a split turn's prefix)
	FirstKeptEntryID string
	TokensBefore     int
	PreviousSummary  string
	IsSplitTurn      bool
}

// CompactDecision is what the session.before_compact handlers decided.
type CompactDecision struct {
	Cancel       bool
	Reason       string
	Summary      string          // non-empty: use it, skip the model call (fromHook)
	Details      json.RawMessage // stored with a hook summary
	Instructions string          // the instructions after every handler (chained)
	Prompt       string          // replaces the summary prompt ("": lunar's); the last one wins
	Context      []string        // lines added to the summary prompt, every handler's in order
}

// CompactInfo describes a finished compaction.
type CompactInfo struct {
	Summary          string
	FromHook         bool
	TokensBefore     int
	FirstKeptEntryID string
	EntryID          string // the compaction entry
}
