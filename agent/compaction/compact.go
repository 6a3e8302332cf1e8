package compaction

// The summary calls of a compaction (pi's compact, generateSummary and
// generateTurnPrefixSummary).

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/lunar-cli/lunar/session"
)

// Request is one summarisation call: a system prompt and one user message,
// no tools.
type Request struct {
	// System is the system prompt (SystemPrompt).
	System string
	// Messages is the one user message, ready for the model (no
	// session.ConvertToLLM needed).
	Messages []session.Message
	// MaxTokens caps the answer.
	MaxTokens int
	// Reasoning lets the call think at the session's thinking level when
	// the model can (compaction summaries); branch summaries never do.
	Reasoning bool
}

// Completer makes one tool-less model call and returns the text of the
// answer (its text blocks joined by "\n"). An answer that ended in error
// is an error.
type Completer func(ctx context.Context, req Request) (string, error)

// Result is a finished compaction, ready for session.AppendCompaction.
type Result struct {
	// Summary is the model's summary followed by the file lists.
	Summary string
	// FirstKeptEntryID and TokensBefore are the preparation's.
	FirstKeptEntryID string
	TokensBefore     int
	// Details is {"readFiles":[…],"modifiedFiles":[…]}: the next
	// compaction takes its file lists from here.
	Details json.RawMessage
}

// Compact makes the summary of a prepared compaction, as pi's compact
// does. The history is summarised with the compaction prompt, or with the
// update prompt when there is a previous summary (sent along in
// <previous-summary> tags); instructions, when given, are appended as
// "Additional focus: …". A split turn's beginning is summarised at the same
// time with the turn-prefix prompt, and the two are joined as
// "<history>\n\n---\n\n**Turn Context (split turn):**\n\n<prefix>". The
// file lists (FormatFileOps) close the summary. Summary calls may use up to
// 80 % of the reserved tokens, the turn prefix 50 %.
//
// One difference from pi: a split turn with no history before it keeps
// the previous summary (without its file lists) as its history part, where
// pi writes "No prior history." and so loses what the previous compaction
// had summarised.
func Compact(ctx context.Context, p *Preparation, instructions string, complete Completer) (*Result, error) {
	return CompactWith(ctx, p, Prompting{Instructions: instructions}, complete)
}

// Prompting is what a session.before_compact hook may change of the
// history summary's prompt (seed 004's {prompt=, context=}).
type Prompting struct {
	// Instructions are appended as "Additional focus: …".
	Instructions string
	// Prompt replaces the compaction (or update) prompt when not empty.
	Prompt string
	// Context lines are added after the prompt, one per line, in an
	// <additional-context> block.
	Context []string
}

// CompactWith is Compact with a hook's prompting. The turn-prefix summary
// of a split turn keeps its own prompt.
func CompactWith(ctx context.Context, p *Preparation, pr Prompting, complete Completer) (*Result, error) {
	var summary string
	if p.IsSplitTurn && len(p.TurnPrefixMessages) > 0 {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var (
			wg              sync.WaitGroup
			once            sync.Once
			firstErr        error
			history, prefix string
		)
		fail := func(err error) {
			once.Do(func() { firstErr = err; cancel() })
		}
		switch {
		case len(p.MessagesToSummarize) > 0:
			wg.Go(func() {
				var err error
				if history, err = historySummary(ctx, p, pr, complete); err != nil {
					fail(err)
				}
			})
		case p.PreviousSummary != "":
			history = stripFileLists(p.PreviousSummary)
		default:
			history = NoPriorHistory
		}
		wg.Go(func() {
			var err error
			if prefix, err = prefixSummary(ctx, p, complete); err != nil {
				fail(err)
			}
		})
		wg.Wait()
		if firstErr != nil {
			return nil, firstErr
		}
		summary = history + "\n\n---\n\n**Turn Context (split turn):**\n\n" + prefix
	} else {
		var err error
		if summary, err = historySummary(ctx, p, pr, complete); err != nil {
			return nil, err
		}
	}
	read, modified := p.FileOps.Lists()
	return &Result{
		Summary:          summary + FormatFileOps(read, modified),
		FirstKeptEntryID: p.FirstKeptEntryID,
		TokensBefore:     p.TokensBefore,
		Details:          fileDetails(read, modified),
	}, nil
}

// stripFileLists removes the file lists FormatFileOps appended to a
// summary; the new summary appends its own, which include them.
func stripFileLists(s string) string {
	for _, tag := range []string{"modified-files", "read-files"} {
		if strings.HasSuffix(s, "\n</"+tag+">") {
			if i := strings.LastIndex(s, "\n\n<"+tag+">\n"); i >= 0 {
				s = s[:i]
			}
		}
	}
	return s
}

// historySummary summarises the messages before the cut (or before the
// split turn).
func historySummary(ctx context.Context, p *Preparation, pr Prompting, complete Completer) (string, error) {
	prompt := compactionPrompt
	if p.PreviousSummary != "" {
		prompt = updatePrompt
	}
	if pr.Prompt != "" {
		prompt = pr.Prompt
	}
	if len(pr.Context) > 0 {
		prompt += "\n\n<additional-context>\n" + strings.Join(pr.Context, "\n") + "\n</additional-context>"
	}
	text := userPrompt(SerializeConversation(session.ConvertToLLM(p.MessagesToSummarize)), p.PreviousSummary, prompt, pr.Instructions)
	out, err := complete(ctx, summaryRequest(text, p.Settings.ReserveTokens*8/10))
	if err != nil {
		return "", fmt.Errorf("compaction summary: %w", err)
	}
	return out, nil
}

// prefixSummary summarises the beginning of a split turn.
func prefixSummary(ctx context.Context, p *Preparation, complete Completer) (string, error) {
	text := userPrompt(SerializeConversation(session.ConvertToLLM(p.TurnPrefixMessages)), "", turnPrefixPrompt, "")
	out, err := complete(ctx, summaryRequest(text, p.Settings.ReserveTokens/2))
	if err != nil {
		return "", fmt.Errorf("turn prefix summary: %w", err)
	}
	return out, nil
}

func summaryRequest(text string, maxTokens int) Request {
	return Request{
		System:    SystemPrompt,
		Messages:  []session.Message{userMessage(text)},
		MaxTokens: maxTokens,
		Reasoning: true,
	}
}

func userMessage(text string) session.Message {
	return session.Message{Role: session.RoleUser, Content: []session.ContentBlock{{Type: session.BlockText, Text: text}},
		Timestamp: time.Now().UnixMilli()}
}
