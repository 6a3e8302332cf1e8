package compaction

// The cut point: where a compaction starts keeping entries verbatim
// (pi's findCutPoint, findValidCutPoints, findTurnStartIndex).

import "github.com/lunar-cli/lunar/session"

// CutPoint is where a compaction cuts a path.
type CutPoint struct {
	// FirstKeptIndex is the index of the first entry kept verbatim.
	FirstKeptIndex int
	// TurnStartIndex is the index of the entry that starts the turn the cut
	// falls in (a user or bashExecution message, a branch_summary or a
	// custom_message entry), or -1 when the cut is at a user message or no
	// turn start was found.
	TurnStartIndex int
	// IsSplitTurn is set when the cut falls inside a turn: the turn's
	// beginning is summarised separately from the history before it.
	IsSplitTurn bool
}

// isCutPoint reports whether a compaction may keep entries from e on:
// messages of every role but toolResult (a result must stay with its
// call), and branch_summary and custom_message entries.
func isCutPoint(e *session.Entry) bool {
	switch e.Type {
	case session.TypeMessage:
		if e.Message == nil {
			return false
		}
		switch e.Message.Role {
		case session.RoleUser, session.RoleAssistant, session.RoleBashExecution, session.RoleCustom,
			session.RoleBranchSummary, session.RoleCompactionSummary:
			return true
		}
	case session.TypeBranchSummary, session.TypeCustomMessage:
		return true
	}
	return false
}

// isTurnStart reports whether e begins a turn: input from the user's side.
func isTurnStart(e *session.Entry) bool {
	switch e.Type {
	case session.TypeBranchSummary, session.TypeCustomMessage:
		return true
	case session.TypeMessage:
		return e.Message != nil && (e.Message.Role == session.RoleUser || e.Message.Role == session.RoleBashExecution)
	}
	return false
}

// FindCutPoint finds where to cut path[start:end] so that about
// keepRecentTokens of its newest messages are kept, as pi's findCutPoint
// does. Walking back from end it adds up the estimates of message entries
// only; at the entry where the sum reaches keepRecentTokens it cuts at the
// first valid cut point at or after it (never at a toolResult), or at the
// first valid cut point in the range when the sum never gets there. The cut
// then moves back over non-message entries (model and thinking changes,
// labels, custom entries…) up to a message or a compaction. With no valid
// cut point at all it is start.
func FindCutPoint(path []*session.Entry, start, end, keepRecentTokens int) CutPoint {
	first := -1
	for i := start; i < end; i++ {
		if isCutPoint(path[i]) {
			first = i
			break
		}
	}
	if first < 0 {
		return CutPoint{FirstKeptIndex: start, TurnStartIndex: -1}
	}

	cut := first
	acc := 0
	for i := end - 1; i >= start; i-- {
		e := path[i]
		if e.Type != session.TypeMessage {
			continue
		}
		if e.Message != nil {
			acc += session.EstimateTokens(e.Message)
		}
		if acc >= keepRecentTokens {
			// The first valid cut point at or after i; none means pi keeps
			// its default, the first one in the range.
			for c := max(i, first); c < end; c++ {
				if isCutPoint(path[c]) {
					cut = c
					break
				}
			}
			break
		}
	}

	for cut > start {
		prev := path[cut-1]
		if prev.Type == session.TypeCompaction || prev.Type == session.TypeMessage {
			break
		}
		cut--
	}

	e := path[cut]
	if e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == session.RoleUser {
		return CutPoint{FirstKeptIndex: cut, TurnStartIndex: -1}
	}
	turn := -1
	for i := cut; i >= start; i-- {
		if isTurnStart(path[i]) {
			turn = i
			break
		}
	}
	return CutPoint{FirstKeptIndex: cut, TurnStartIndex: turn, IsSplitTurn: turn >= 0}
}
