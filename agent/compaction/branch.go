package compaction

// Summaries of a branch the user leaves (pi's branch-summarization.ts).

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/lunar-cli/lunar/session"
)

// BranchEntries are the entries from oldLeaf back to (not including) the
// deepest entry it shares with target's path, oldest first: what leaving
// oldLeaf for target abandons. Compactions on the way are included. nil
// when oldLeaf is "".
func BranchEntries(s *session.Session, oldLeaf, target string) []*session.Entry {
	if oldLeaf == "" {
		return nil
	}
	onOld := map[string]bool{}
	for _, e := range s.Path(oldLeaf) {
		onOld[e.ID] = true
	}
	common := ""
	tp := s.Path(target)
	for i := len(tp) - 1; i >= 0; i-- {
		if onOld[tp[i].ID] {
			common = tp[i].ID
			break
		}
	}
	var out []*session.Entry
	for id := oldLeaf; id != "" && id != common; {
		e := s.Get(id)
		if e == nil {
			break
		}
		out = append(out, e)
		id = e.ParentID
	}
	slices.Reverse(out)
	return out
}

// PrepareBranch picks the messages of entries (oldest first) to summarise:
// newest first while they fit in budget tokens (0: no limit), tool results
// left out (the calls say enough); a compaction or branch summary that
// does not fit is still taken while under 90 % of the budget. The file
// operations come from all the entries' tool calls and from the details of
// earlier branch summaries lunar or pi made, including those that did not
// fit.
func PrepareBranch(entries []*session.Entry, budget int) ([]session.Message, FileOps) {
	ops := NewFileOps()
	for _, e := range entries {
		if e.Type == session.TypeBranchSummary && !e.FromHook() {
			ops.AddDetails(e.Details())
		}
	}
	var rev []session.Message
	total := 0
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if !branchContributes(e) {
			continue
		}
		m := entryMessage(e)
		ops.AddToolCalls(&m)
		tok := session.EstimateTokens(&m)
		if budget > 0 && total+tok > budget {
			isSummary := e.Type == session.TypeCompaction || e.Type == session.TypeBranchSummary
			if isSummary && float64(total) < float64(budget)*0.9 {
				rev = append(rev, m)
			}
			break
		}
		rev = append(rev, m)
		total += tok
	}
	slices.Reverse(rev)
	return rev, ops
}

// branchContributes reports whether an entry adds a message to a branch
// summary: as for compaction, but with compactions and without tool
// results.
func branchContributes(e *session.Entry) bool {
	switch e.Type {
	case session.TypeMessage:
		return e.Message != nil && e.Message.Role != session.RoleToolResult
	case session.TypeCustomMessage, session.TypeBranchSummary, session.TypeCompaction:
		return true
	}
	return false
}

// BranchSummary asks the model to summarise the entries of a branch being
// left (see BranchEntries), as pi's generateBranchSummary does: the
// messages PrepareBranch picks within contextWindow (DefaultContextWindow
// when ≤ 0) minus BranchSummaryReserveTokens, serialised, then the branch
// prompt and "Additional focus: …" when there are instructions; at most
// 2048 output tokens, no reasoning. The summary is BranchSummaryPreamble,
// the answer and the file lists; details are {readFiles, modifiedFiles}.
// It returns "" (and no error) when there is nothing to summarise.
func BranchSummary(ctx context.Context, entries []*session.Entry, contextWindow int, instructions string, complete Completer) (summary string, details json.RawMessage, err error) {
	if contextWindow <= 0 {
		contextWindow = DefaultContextWindow
	}
	msgs, ops := PrepareBranch(entries, contextWindow-BranchSummaryReserveTokens)
	if len(msgs) == 0 {
		return "", nil, nil
	}
	text := userPrompt(SerializeConversation(session.ConvertToLLM(msgs)), "", branchSummaryPrompt, instructions)
	out, err := complete(ctx, Request{
		System:    SystemPrompt,
		Messages:  []session.Message{userMessage(text)},
		MaxTokens: branchSummaryMaxTokens,
	})
	if err != nil {
		return "", nil, fmt.Errorf("branch summary: %w", err)
	}
	read, modified := ops.Lists()
	return BranchSummaryPreamble + out + FormatFileOps(read, modified), fileDetails(read, modified), nil
}
