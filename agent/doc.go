// Package agent runs lunar's agent loop: prompt → model stream → tool calls →
// tool results → … → answer, over pluggable providers, tools and hooks.
//
// Runtime is the one entry point: it owns the open session with its model,
// thinking level, tools and hooks, and every front end (the REPL, one-shot,
// JSON and RPC modes) and hook works through it: Prompt and Continue run
// the loop, Subscribe delivers its events (RuntimeEvent), and the session
// operations (SetModel, Clear, Branch, Fork, Compact, …) live beside them.
// The loop itself (loop.go) is internal to the package.
package agent
