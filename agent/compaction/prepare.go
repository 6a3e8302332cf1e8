package compaction

// What a compaction summarises and keeps (pi's prepareCompaction).

import (
	"errors"
	"time"

	"github.com/lunar-cli/lunar/session"
)

// Errors of Prepare; pi's /compact reports the same two.
var (
	// ErrAlreadyCompacted means the path ends with a compaction.
	ErrAlreadyCompacted = errors.New("already compacted")
	// ErrNothingToCompact means the path is empty, or everything since the
	// last compaction fits in the recent context kept, so a summary would
	// replace nothing. Automatic compaction just skips then.
	ErrNothingToCompact = errors.New("nothing to compact (session too small)")
)

// Preparation is what a compaction will do, before any model call.
type Preparation struct {
	// FirstKeptEntryID is the first entry kept verbatim after the summary.
	FirstKeptEntryID string
	// MessagesToSummarize is the history the summary replaces: the
	// messages from the previous compaction's kept part (or the start) up
	// to the cut, or up to the start of the turn that the cut splits.
	MessagesToSummarize []session.Message
	// TurnPrefixMessages is the beginning of a split turn, summarised on
	// its own; empty unless IsSplitTurn.
	TurnPrefixMessages []session.Message
	// IsSplitTurn is set when the cut falls inside a turn.
	IsSplitTurn bool
	// TokensBefore is the context size before compaction
	// (EstimateContextTokens of the path's context).
	TokensBefore int
	// PreviousSummary is the summary of the latest compaction on the path,
	// updated rather than rewritten; "" when there is none.
	PreviousSummary string
	// FileOps holds the files read and changed by the summarised messages
	// and listed by the previous compaction (when lunar or pi made it).
	FileOps FileOps
	// Settings are the settings the preparation was made with.
	Settings Settings
}

// Prepare works out a compaction of path (root first, the leaf last) as
// pi's prepareCompaction does. It fails with ErrAlreadyCompacted when the
// path ends with a compaction, and with ErrNothingToCompact when the path
// is empty or the cut leaves nothing to summarise (pi makes a summary of
// nothing then).
func Prepare(path []*session.Entry, s Settings) (*Preparation, error) {
	p, err := prepare(path, s)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// prepare is Prepare, but with nothing to summarise it returns the
// preparation pi would go on with together with ErrNothingToCompact.
func prepare(path []*session.Entry, s Settings) (*Preparation, error) {
	n := len(path)
	if n == 0 {
		return nil, ErrNothingToCompact
	}
	if path[n-1].Type == session.TypeCompaction {
		return nil, ErrAlreadyCompacted
	}

	prev := -1
	for i := n - 1; i >= 0; i-- {
		if path[i].Type == session.TypeCompaction {
			prev = i
			break
		}
	}
	p := &Preparation{Settings: s, FileOps: NewFileOps()}
	start := 0
	if prev >= 0 {
		c := path[prev]
		p.PreviousSummary = c.Summary()
		start = prev + 1
		for i, e := range path {
			if e.ID == c.FirstKeptEntryID() {
				start = i
				break
			}
		}
		if !c.FromHook() {
			p.FileOps.AddDetails(c.Details())
		}
	}

	p.TokensBefore = pathContextTokens(path)

	cut := FindCutPoint(path, start, n, s.KeepRecentTokens)
	if path[cut.FirstKeptIndex].ID == "" {
		return nil, ErrNothingToCompact
	}
	p.FirstKeptEntryID = path[cut.FirstKeptIndex].ID
	p.IsSplitTurn = cut.IsSplitTurn

	historyEnd := cut.FirstKeptIndex
	if cut.IsSplitTurn {
		historyEnd = cut.TurnStartIndex
		p.TurnPrefixMessages = entryMessages(path[cut.TurnStartIndex:cut.FirstKeptIndex], &p.FileOps)
	}
	p.MessagesToSummarize = entryMessages(path[start:max(start, historyEnd)], &p.FileOps)
	if len(p.MessagesToSummarize) == 0 && len(p.TurnPrefixMessages) == 0 {
		return p, ErrNothingToCompact
	}
	return p, nil
}

// PathContextTokens is EstimateContextTokens of the context
// session.BuildContext builds from path, computed without building it: the
// context is walked from its end only as far as the last usable usage.
func PathContextTokens(path []*session.Entry) int { return pathContextTokens(path) }

func pathContextTokens(path []*session.Entry) int {
	// The context (see session.BuildContext): with a compaction at c, its
	// summary, then path[kept:c] from the entry firstKeptEntryId names
	// (nothing when missing), then path[c+1:]; else the whole path.
	c := -1
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Type == session.TypeCompaction {
			c = i
			break
		}
	}
	var segments [][]*session.Entry // in context order
	if c < 0 {
		segments = [][]*session.Entry{path}
	} else {
		kept := c
		for i, e := range path[:c] {
			if e.ID == path[c].FirstKeptEntryID() {
				kept = i
				break
			}
		}
		segments = [][]*session.Entry{path[kept:c], path[c+1:]}
	}

	tokens := 0
	var scratch session.Message
	for k := len(segments) - 1; k >= 0; k-- {
		seg := segments[k]
		for i := len(seg) - 1; i >= 0; i-- {
			m := contextMessage(seg[i], &scratch)
			if m == nil {
				continue
			}
			if u := validUsage(m); u != nil {
				return ContextTokens(*u) + tokens
			}
			tokens += session.EstimateTokens(m)
		}
	}
	if c >= 0 {
		tokens += session.EstimateTokens(&session.Message{Role: session.RoleCompactionSummary, Extra: &session.MessageExtra{Summary: path[c].Summary()}})
	}
	return tokens
}

// contextMessage is the message an entry contributes to a model context,
// as session.BuildContext makes it (synthetic ones in scratch), or nil.
func contextMessage(e *session.Entry, scratch *session.Message) *session.Message {
	switch e.Type {
	case session.TypeMessage:
		return e.Message
	case session.TypeCustomMessage:
		*scratch = session.Message{Role: session.RoleCustom, Content: e.Content()}
		return scratch
	case session.TypeBranchSummary:
		if e.Summary() == "" {
			return nil
		}
		*scratch = session.Message{Role: session.RoleBranchSummary, Extra: &session.MessageExtra{Summary: e.Summary()}}
		return scratch
	}
	return nil
}

// entryMessages are the messages entries contribute to a compaction
// summary, with their file operations added to ops: message entries their
// message (tool results included), custom_message entries a custom
// message, branch_summary entries a branchSummary message. Compactions
// and the rest contribute nothing.
func entryMessages(entries []*session.Entry, ops *FileOps) []session.Message {
	// Sized for the common case where (nearly) every entry is a message;
	// counting first would walk 100,000 scattered entries twice.
	msgs := make([]session.Message, 0, len(entries))
	for _, e := range entries {
		switch e.Type {
		case session.TypeMessage:
			if e.Message == nil {
				continue
			}
			msgs = append(msgs, *e.Message)
		case session.TypeCustomMessage, session.TypeBranchSummary:
			msgs = append(msgs, entryMessage(e))
		default:
			continue
		}
		ops.AddToolCalls(&msgs[len(msgs)-1])
	}
	return msgs
}

// entryMessage is the message of a message, custom_message,
// branch_summary or compaction entry (pi's getMessageFromEntry).
func entryMessage(e *session.Entry) session.Message {
	switch e.Type {
	case session.TypeMessage:
		return *e.Message
	case session.TypeCustomMessage:
		return session.Message{Role: session.RoleCustom, Content: e.Content(),
			ContentIsString: e.ContentIsString(), Details: e.Details(), Timestamp: entryMillis(e),
			Extra: &session.MessageExtra{CustomType: e.CustomType(), Display: e.Display()}}
	case session.TypeBranchSummary:
		return session.Message{Role: session.RoleBranchSummary, Timestamp: entryMillis(e), Extra: &session.MessageExtra{Summary: e.Summary(), FromID: e.FromID()}}
	case session.TypeCompaction:
		return session.Message{Role: session.RoleCompactionSummary, Timestamp: entryMillis(e), Extra: &session.MessageExtra{Summary: e.Summary(), TokensBefore: e.TokensBefore()}}
	}
	return session.Message{}
}

// entryMillis is an entry's ISO timestamp in Unix milliseconds (0 when
// unreadable).
func entryMillis(e *session.Entry) int64 {
	t, err := time.Parse(time.RFC3339Nano, e.Timestamp)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}
