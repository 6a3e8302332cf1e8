package agent

// Compaction through the Runtime: prepare (agent/compaction), let the
// session.before_compact hooks cancel, supply the summary or change the
// instructions, summarise, append the compaction entry, fire
// session.compact in the background. Cancelling ctx leaves the session
// untouched.

import (
	"context"
	"errors"

	"github.com/lunar-cli/lunar/agent/compaction"
	"github.com/lunar-cli/lunar/session"
)

// Compact compacts the open session now. reason is CompactManual (the
// user's /compact) or CompactHook (ctx.session.compact); instructions
// focus the summary. It fails with compaction.ErrAlreadyCompacted or
// compaction.ErrNothingToCompact when there is nothing to do, with a
// *CancelledError when a hook cancelled it, and with ErrAborted when ctx
// was cancelled.
func (rt *Runtime) Compact(ctx context.Context, reason, instructions string) (*CompactionResult, error) {
	if reason == "" {
		reason = CompactManual
	}
	return rt.compact(ctx, reason, instructions, false)
}

// eventReason is the compaction event's reason, in pi's names.
func eventReason(reason string) string {
	switch reason {
	case CompactAuto:
		return CompactionThreshold
	case CompactOverflow:
		return CompactionOverflow
	}
	return CompactionManual
}

func (rt *Runtime) compact(ctx context.Context, reason, instructions string, willRetry bool) (res *CompactionResult, err error) {
	s := rt.Session()
	path := s.Path("")
	prep, err := compaction.Prepare(path, rt.opts.Compaction)
	if err != nil {
		return nil, err
	}
	evReason := eventReason(reason)
	rt.emit(RuntimeEvent{Compaction: &CompactionEvent{Type: CompactionStart, Reason: evReason}})
	var after *CompactInfo
	defer func() {
		end := &CompactionEvent{Type: CompactionEnd, Reason: evReason, Result: res, WillRetry: willRetry && err == nil}
		if err != nil {
			end.Aborted = errors.Is(err, ErrAborted)
			end.ErrorMessage = err.Error()
		}
		rt.emit(RuntimeEvent{Compaction: end})
		if after != nil {
			// session.compact runs once the result is shown and does not
			// hold up the caller (seed 003 fires compact.after without
			// awaiting it); Shutdown waits for it.
			hooks, info, ctx := rt.sessionHooks(), *after, context.WithoutCancel(ctx)
			rt.bg.Go(func() { hooks.Compact(ctx, info) })
		}
	}()

	var previous []*session.Entry
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Type == session.TypeCompaction {
			previous = append(previous, path[i])
		}
	}
	msgs := make([]session.Message, 0, len(prep.MessagesToSummarize)+len(prep.TurnPrefixMessages))
	msgs = append(append(msgs, prep.MessagesToSummarize...), prep.TurnPrefixMessages...)
	model := rt.Model()
	dec := rt.sessionHooks().BeforeCompact(ctx, CompactEvent{
		Reason:       reason,
		Instructions: instructions,
		Preparation: CompactPreparation{Messages: msgs, FirstKeptEntryID: prep.FirstKeptEntryID, TokensBefore: prep.TokensBefore,
			PreviousSummary: prep.PreviousSummary, IsSplitTurn: prep.IsSplitTurn},
		PreviousCompactions: previous,
		Model:               model,
	})
	if ctx.Err() != nil {
		return nil, ErrAborted
	}
	if dec.Cancel {
		return nil, &CancelledError{Op: "compaction", Reason: dec.Reason}
	}

	result := &compaction.Result{FirstKeptEntryID: prep.FirstKeptEntryID, TokensBefore: prep.TokensBefore}
	fromHook := dec.Summary != ""
	if fromHook {
		result.Summary, result.Details = dec.Summary, dec.Details
	} else {
		result, err = compaction.CompactWith(ctx, prep, compaction.Prompting{Instructions: dec.Instructions, Prompt: dec.Prompt, Context: dec.Context}, rt.completer(nil))
		if ctx.Err() != nil {
			return nil, ErrAborted
		}
		if err != nil {
			return nil, err
		}
	}
	id, err := s.AppendCompaction(result.Summary, result.FirstKeptEntryID, result.TokensBefore, result.Details, fromHook)
	if err != nil {
		return nil, err
	}
	if err := s.Persist(); err != nil {
		rt.warn("saving the compaction: %v", err)
	}
	res = &CompactionResult{EntryID: id, Summary: result.Summary, FirstKeptEntryID: result.FirstKeptEntryID,
		TokensBefore: result.TokensBefore, TokensAfter: rt.ContextTokens(), FromHook: fromHook}
	after = &CompactInfo{Summary: result.Summary, FromHook: fromHook,
		TokensBefore: result.TokensBefore, FirstKeptEntryID: result.FirstKeptEntryID, EntryID: id}
	return res, nil
}

// compactRequest is a compaction asked for during a run.
type compactRequest struct{ instructions string }

// RequestCompact asks for a compaction (reason CompactHook) at the next
// turn boundary of the run in progress: before the next model call,
// which then works on the compacted context, or after the run when it
// makes none. It reports false when no run is in progress (call Compact
// then). A second request before the first ran replaces it. The outcome
// is reported as any compaction's: compaction_start/compaction_end
// events, the session.compact hooks, and a warning when it failed.
func (rt *Runtime) RequestCompact(instructions string) bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if !rt.running.Load() {
		return false
	}
	rt.compactReq = &compactRequest{instructions: instructions}
	return true
}

// TurnBoundary implements SteerQueue: it runs the compaction a hook
// asked for during the run.
func (rt *Runtime) TurnBoundary(ctx context.Context) {
	rt.mu.Lock()
	req := rt.compactReq
	rt.compactReq = nil
	rt.mu.Unlock()
	if req == nil || ctx.Err() != nil {
		return
	}
	if _, err := rt.compact(ctx, CompactHook, req.instructions, false); err != nil && ctx.Err() == nil {
		rt.warn("compaction a hook asked for: %v", err)
	}
}
