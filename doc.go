// Command lunar is a minimal, line-based LLM agent for the terminal,
// customised with small Lua scripts: a REPL (line editing, history,
// completion) and a one-shot mode (`lunar -p "…"`, or a prompt piped through
// stdin) run one agent loop — prompt, streamed reply, tool calls, results —
// against OpenAI-compatible endpoints and Anthropic, and every session is an
// append-only JSONL tree in pi's format. This package holds only the command:
// flags, configuration, trust and the front ends (REPL, one-shot printer,
// JSON mode, pi's RPC protocol) over the session runtime in package agent;
// hooks are in package lua, the session file format in package session.
package main
