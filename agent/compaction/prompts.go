package compaction

// The prompts of summaries and compactions. The wording is lunar's own;
// the section headings are pi's, so summaries read the same in both.

// SystemPrompt is the system prompt of every summarisation call.
const SystemPrompt = `You summarize conversations between a user and an AI coding assistant. Read the conversation you are given and write the structured summary asked for, in exactly the requested format.

Do NOT continue the conversation and do NOT answer questions found in it. Output the summary only.`

// BranchSummaryPreamble starts every model-made branch summary.
const BranchSummaryPreamble = "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n"

// NoPriorHistory stands for the history summary of a split turn that has
// no history before it.
const NoPriorHistory = "No prior history."

const branchSummaryPrompt = `Summarize this conversation branch so the work can be picked up again later.

Use exactly this format:

## Goal
[What the user wanted to achieve on this branch]

## Constraints & Preferences
- [Requirements, constraints or preferences the user stated]
- [Or "(none)" when there were none]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work begun but not finished]

### Blocked
- [What stands in the way, if anything]

## Key Decisions
- **[Decision]**: [Short reason]

## Next Steps
1. [What to do next to carry on]

Be brief in every section. Keep exact file paths, function names and error messages.`

// compactionPrompt asks for the first summary of a session's history.
const compactionPrompt = `The conversation above is to be condensed into a structured checkpoint summary that another model will use to carry on the work.

Use exactly this format:

## Goal
[What the user is trying to achieve; several items if the session covered several tasks]

## Constraints & Preferences
- [Requirements, constraints or preferences the user stated]
- [Or "(none)" when there were none]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work under way]

### Blocked
- [What stands in the way, if anything]

## Key Decisions
- **[Decision]**: [Short reason]

## Next Steps
1. [What to do next, in order]

## Critical Context
- [Data, examples or references needed to carry on]
- [Or "(none)" when there are none]

Be brief in every section. Keep exact file paths, function names and error messages.`

// updatePrompt asks to fold new messages into the previous summary.
const updatePrompt = `The conversation above holds NEW messages. Fold them into the existing summary given in the <previous-summary> tags.

Rules:
- PRESERVE everything the previous summary says
- ADD the progress, decisions and context of the new messages
- Move items from "In Progress" to "Done" once they are finished
- Update "Next Steps" to match what was accomplished
- Keep exact file paths, function names and error messages
- Drop only what is clearly no longer relevant

Use exactly this format:

## Goal
[The existing goals, plus new ones if the task grew]

## Constraints & Preferences
- [The existing ones, plus any new ones]

## Progress
### Done
- [x] [Items done before AND items finished since]

### In Progress
- [ ] [Current work, updated]

### Blocked
- [Current blockers; drop the resolved ones]

## Key Decisions
- **[Decision]**: [Short reason] (keep every earlier decision, add the new ones)

## Next Steps
1. [Updated to the current state]

## Critical Context
- [Important context kept, new context added]

Be brief in every section. Keep exact file paths, function names and error messages.`

// turnPrefixPrompt asks for a summary of the beginning of a turn whose end
// is kept.
const turnPrefixPrompt = `The conversation above is the BEGINNING (prefix) of a single turn that was too long to keep whole. Its END (suffix, the most recent work) is kept as it is.

Summarize the prefix so that the kept suffix can be understood:

## Original Request
[What the user asked for in this turn]

## Early Progress
- [Decisions made and work done in the prefix]

## Context for Suffix
- [What is needed to follow the kept recent work]

Be brief. Focus on what the kept suffix needs.`

// branchSummaryMaxTokens caps a branch summary's answer.
const branchSummaryMaxTokens = 2048

// BranchSummaryReserveTokens is the room branch summaries leave free in
// the context window (pi's branchSummary.reserveTokens): the messages
// summarised take at most the window minus this.
const BranchSummaryReserveTokens = 16384

// DefaultContextWindow is the window assumed when a model's is unknown.
const DefaultContextWindow = 128000

// userPrompt is the user message of a summarisation call:
// "<conversation>\n…\n</conversation>\n\n", the previous summary in
// <previous-summary> tags when there is one, the prompt, and
// "\n\nAdditional focus: …" when there are instructions.
func userPrompt(conversation, previous, prompt, instructions string) string {
	text := "<conversation>\n" + conversation + "\n</conversation>\n\n"
	if previous != "" {
		text += "<previous-summary>\n" + previous + "\n</previous-summary>\n\n"
	}
	text += prompt
	if instructions != "" {
		text += "\n\nAdditional focus: " + instructions
	}
	return text
}

// SummaryPrompts are the summary prompts by name, for hooks that write
// summaries of their own (lunar.summary_prompts): "system" (the system
// prompt of every summary call), "compaction" (a first compaction),
// "update" (a compaction folding new messages into the previous summary,
// given in <previous-summary> tags), "branch_summary", "turn_prefix" (the
// beginning of a turn too long to keep whole) and
// "branch_summary_preamble" (the text a branch summary starts with).
// Each prompt follows "<conversation>\n…\n</conversation>\n\n" in the
// summary call's user message.
func SummaryPrompts() map[string]string {
	return map[string]string{
		"system":                  SystemPrompt,
		"compaction":              compactionPrompt,
		"update":                  updatePrompt,
		"branch_summary":          branchSummaryPrompt,
		"turn_prefix":             turnPrefixPrompt,
		"branch_summary_preamble": BranchSummaryPreamble,
	}
}
