package compaction

// Recognising a reply that failed because the context did not fit (pi-ai's
// isContextOverflow), the trigger of compact-and-retry.

import (
	"regexp"
	"sync"

	"github.com/lunar-cli/lunar/session"
)

// overflowPatterns are the context-overflow error messages of the
// services pi knows, compiled on first use to keep them off startup. Its
// patterns anchored to the start of the message also match after a
// "provider: " prefix, which lunar's error messages carry.
var overflowPatterns = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)` +
		`prompt is too long` + // Anthropic
		`|request_too_large` + // Anthropic, request bytes (HTTP 413)
		`|input is too long for requested model` + // Amazon Bedrock
		`|exceeds the context window` + // OpenAI
		`|input token count.*exceeds the maximum` + // Google
		`|maximum prompt length is \d+` + // xAI
		`|reduce the length of the messages` + // Groq
		`|maximum context length is \d+ tokens` + // OpenRouter
		`|exceeds the limit of \d+` + // GitHub Copilot
		`|exceeds the available context size` + // llama.cpp
		`|greater than the context length` + // LM Studio
		`|context window exceeds limit` + // MiniMax
		`|exceeded model token limit` + // Kimi
		`|too large for model with \d+ maximum context length` + // Mistral
		`|model_context_window_exceeded` + // z.ai
		`|prompt too long; exceeded (?:max )?context length` + // Ollama
		`|context[_ ]length[_ ]exceeded` + // generic
		`|too many tokens` + // generic
		`|token limit exceeded` + // generic
		`|(?:^|: )4(?:00|13)\s*(?:status code|[a-z ]*:)?\s*\(no body\)`) // Cerebras: 400/413 without a body (lunar writes "400 bad request: (no body)")
})

// notOverflowPatterns are errors that can mention tokens without being
// overflows: throttling and rate limits. pi's list (its anchored pattern
// also after a "provider: " prefix), widened with the rate-limit wordings
// of agent.IsRateLimit.
var notOverflowPatterns = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)` +
		`(?:^|: )(?:throttling error|service unavailable):` +
		`|rate.?limit|too many requests|\b429\b|tokens per min|requests per min|\b[TR]PM\b|quota|resource.?exhausted`)
})

// IsContextOverflow reports whether an assistant message shows that the
// prompt did not fit the model's context, as pi's isContextOverflow does:
// an error whose message matches a known overflow pattern (throttling and
// rate-limit messages excluded); a successful reply whose input and
// cache-read tokens exceed contextWindow (services that accept an
// overflow silently); or a reply stopped at its length limit with no
// output and input at 99 % of the window or more (services that truncate
// the input to fit). contextWindow ≤ 0 turns the usage checks off.
func IsContextOverflow(m *session.Message, contextWindow int) bool {
	if m == nil {
		return false
	}
	if m.StopReason == session.StopError && m.ErrorMessage() != "" &&
		!notOverflowPatterns().MatchString(m.ErrorMessage()) && overflowPatterns().MatchString(m.ErrorMessage()) {
		return true
	}
	if contextWindow <= 0 || m.Usage == nil {
		return false
	}
	input := m.Usage.Input + m.Usage.CacheRead
	switch m.StopReason {
	case session.StopStop:
		return input > contextWindow
	case session.StopLength:
		return m.Usage.Output == 0 && float64(input) >= float64(contextWindow)*0.99
	}
	return false
}
