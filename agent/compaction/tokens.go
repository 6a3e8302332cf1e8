// Package compaction makes summaries of conversations: the compaction that
// replaces old context with a structured summary, and the summary of a
// branch the user leaves. Both share one serialiser, one file-operation
// tracker and one system prompt, as pi's core/compaction does.
//
// The package is pure logic: it decides what to summarise and builds the
// prompts, and a Completer supplied by the caller makes the model calls.
// Its choices (cut point, split turns, token counts, file lists) equal pi
// 0.73.1's; docs/compaction.md describes the algorithm.
//
// This file holds the settings and the token counts compaction runs on.
package compaction

import "github.com/lunar-cli/lunar/session"

// Settings are the compaction settings (config key "compaction").
type Settings struct {
	// Enabled turns automatic compaction on; /compact works either way.
	Enabled bool
	// ReserveTokens is the room kept free in the context window: automatic
	// compaction starts when the context exceeds the window minus this,
	// and the summary may use up to 80 % of it.
	ReserveTokens int
	// KeepRecentTokens is about how much recent context a compaction keeps
	// verbatim.
	KeepRecentTokens int
}

// DefaultSettings returns pi's defaults: enabled, 16384 reserved, 20000
// kept.
func DefaultSettings() Settings {
	return Settings{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 20000}
}

// ShouldCompact reports whether a context of contextTokens tokens calls for
// automatic compaction in a window of contextWindow tokens (pi's
// shouldCompact).
func ShouldCompact(contextTokens, contextWindow int, s Settings) bool {
	return s.Enabled && contextTokens > contextWindow-s.ReserveTokens
}

// ContextTokens is the context size a provider's usage shows (pi's
// calculateContextTokens): its total, or the sum of its parts when the
// provider gave no total.
func ContextTokens(u session.Usage) int {
	if u.TotalTokens != 0 {
		return u.TotalTokens
	}
	return u.Input + u.Output + u.CacheRead + u.CacheWrite
}

// EstimateContextTokens estimates the size of a context (pi's
// estimateContextTokens): the usage of the last assistant message that was
// neither aborted nor an error, plus the estimates (session.EstimateTokens)
// of the messages after it; the sum of all estimates when no message has
// such usage.
func EstimateContextTokens(msgs []session.Message) int {
	return estimateContext(len(msgs), func(i int) *session.Message { return &msgs[i] })
}

// estimateContext is EstimateContextTokens over n messages given by at.
func estimateContext(n int, at func(int) *session.Message) int {
	last := -1
	var usage *session.Usage
	for i := n - 1; i >= 0; i-- {
		if u := validUsage(at(i)); u != nil {
			last, usage = i, u
			break
		}
	}
	tokens := 0
	if usage != nil {
		tokens = ContextTokens(*usage)
	}
	for i := last + 1; i < n; i++ {
		tokens += session.EstimateTokens(at(i))
	}
	return tokens
}

// validUsage is the usage of an assistant message that ended normally
// (aborted and failed replies carry no trustworthy usage), or nil.
func validUsage(m *session.Message) *session.Usage {
	if m.Role != session.RoleAssistant || m.Usage == nil || m.StopReason == session.StopAborted || m.StopReason == session.StopError {
		return nil
	}
	return m.Usage
}
