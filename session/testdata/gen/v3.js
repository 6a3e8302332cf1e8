// Dev-time generator for testdata/pi-v3.jsonl: objects built in the key
// order pi's code builds them, serialised with JSON.stringify.
const out = [];
const w = (o) => out.push(JSON.stringify(o));
let t = Date.parse("2025-06-01T10:00:00.000Z");
const iso = () => { t += 1234; return new Date(t).toISOString(); };
const ms = () => t + 7;
w({ type: "session", version: 3, id: "0197a3c4-5e6f-7a8b-9c0d-1e2f3a4b5c6d", timestamp: iso(), cwd: "/home/ana/code/ünïcode proj" });
w({ type: "model_change", id: "a1b2c3d4", parentId: null, timestamp: iso(), provider: "anthropic", modelId: "claude-sonnet-4-5" });
w({ type: "thinking_level_change", id: "b2c3d4e5", parentId: "a1b2c3d4", timestamp: iso(), thinkingLevel: "medium" });
w({ type: "message", id: "c3d4e5f6", parentId: "b2c3d4e5", timestamp: iso(), message: { role: "user", content: [{ type: "text", text: "Fix <div class=\"x\"> & the\u2028line\u2029sep — naïve 日本語 😀 \\path\\ \t tab\n\"quoted\"" }, { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }], timestamp: ms() } });
w({ type: "message", id: "d4e5f6a7", parentId: "c3d4e5f6", timestamp: iso(), message: { role: "assistant", content: [
  { type: "thinking", thinking: "Let me look at the file first.\nIt has <tags>.", thinkingSignature: "EqQBCkYIBRgCKkC+/==" },
  { type: "text", text: "I'll read it." },
  { type: "toolCall", id: "toolu_01ABC", name: "edit", arguments: { path: "src/a b.ts", edits: [{ oldText: "<b>\u2028</b>", newText: "&amp;" }, { oldText: "x", newText: "y\u0000z" }], opts: { depth: 3, ratio: 0.000123, big: 1e21, neg: -0.5, tiny: 1e-7, flags: [true, false, null], empty: {}, none: [] } } },
], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: { input: 1523, output: 312, cacheRead: 20480, cacheWrite: 0, totalTokens: 22315, cost: { input: 0.004569, output: 0.00468, cacheRead: 0.006144, cacheWrite: 0, total: 0.015393000000000001 } }, stopReason: "toolUse", timestamp: ms(), responseId: "msg_01XYZ" } });
w({ type: "message", id: "e5f6a7b8", parentId: "d4e5f6a7", timestamp: iso(), message: { role: "toolResult", toolCallId: "toolu_01ABC", toolName: "edit", content: [{ type: "text", text: "Successfully replaced 2 block(s) in src/a b.ts." }], details: { diff: "-<b>\u2028</b>\n+&amp;", firstChangedLine: 12 }, isError: false, timestamp: ms() } });
w({ type: "message", id: "f6a7b8c9", parentId: "e5f6a7b8", timestamp: iso(), message: { role: "toolResult", toolCallId: "toolu_01DEF", toolName: "read", content: [{ type: "text", text: "Read image file [image/png]" }, { type: "image", data: "R0lGODlhAQABAAAAACw=", mimeType: "image/gif" }], isError: true, timestamp: ms() } });
w({ type: "message", id: "a7b8c9d0", parentId: "f6a7b8c9", timestamp: iso(), message: { role: "assistant", content: [{ type: "thinking", thinking: "", thinkingSignature: "sig", redacted: true }, { type: "text", text: "Done. Costs 0.000123 $.", textSignature: "ts1" }, { type: "toolCall", id: "call_9", name: "bash", arguments: { command: "ls -la | grep '<x>'", timeout: 30 }, thoughtSignature: "tsig==" }], api: "openai-completions", provider: "openrouter", model: "google/gemini-2.5-pro", usage: { input: 10, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 30, cost: { input: 1.25e-5, output: 0.0002, cacheRead: 0, cacheWrite: 0, total: 0.0002125 } }, stopReason: "stop", timestamp: ms() } });
w({ type: "message", id: "b8c9d0e1", parentId: "a7b8c9d0", timestamp: iso(), message: { role: "bashExecution", command: "make test", output: "FAIL\tpkg\t0.01s\n", exitCode: 2, cancelled: false, truncated: true, fullOutputPath: "/tmp/pi-bash-1.log", timestamp: ms() } });
w({ type: "message", id: "c9d0e1f2", parentId: "b8c9d0e1", timestamp: iso(), message: { role: "bashExecution", command: "sleep 100", output: "", exitCode: undefined, cancelled: true, truncated: false, timestamp: ms(), excludeFromContext: true } });
w({ type: "custom_message", customType: "memory", content: "Remembered: the user prefers tabs.\u2028Second line.", display: true, details: { facts: [1, 2.5, "x"] }, id: "d0e1f2a3", parentId: "c9d0e1f2", timestamp: iso() });
w({ type: "custom_message", customType: "todo", content: [{ type: "text", text: "TODO list" }], display: false, details: undefined, id: "e1f2a3b4", parentId: "d0e1f2a3", timestamp: iso() });
w({ type: "custom", customType: "prune", data: { drop: ["toolu_01ABC"], keep: { n: 3 } }, id: "f2a3b4c5", parentId: "e1f2a3b4", timestamp: iso() });
w({ type: "custom", customType: "marker", data: undefined, id: "a3b4c5d6", parentId: "f2a3b4c5", timestamp: iso() });
w({ type: "label", id: "b4c5d6e7", parentId: "a3b4c5d6", timestamp: iso(), targetId: "c3d4e5f6", label: "start ⭐" });
w({ type: "label", id: "c5d6e7f8", parentId: "b4c5d6e7", timestamp: iso(), targetId: "d4e5f6a7", label: undefined });
w({ type: "session_info", id: "d6e7f8a9", parentId: "c5d6e7f8", timestamp: iso(), name: "Refactor <parser> & friends" });
w({ type: "compaction", id: "e7f8a9b0", parentId: "d6e7f8a9", timestamp: iso(), summary: "## Goal\nFix the parser.\n\n<read-files>\nsrc/a b.ts\n</read-files>", firstKeptEntryId: "a7b8c9d0", tokensBefore: 123456, details: { readFiles: ["src/a b.ts"], modifiedFiles: [] }, fromHook: false });
w({ type: "message", id: "f8a9b0c1", parentId: "e7f8a9b0", timestamp: iso(), message: { role: "user", content: "plain string content with \"quotes\" and \\ and \u2029", timestamp: ms() } });
w({ type: "message", id: "a9b0c1d2", parentId: "f8a9b0c1", timestamp: iso(), message: { role: "assistant", content: [], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "error", timestamp: ms(), errorMessage: "429 {\"type\":\"error\",\"message\":\"rate limited\"}" } });
w({ type: "stack_pop", id: "b0c1d2e3", parentId: "a9b0c1d2", timestamp: iso(), backToIndex: 2, summary: "popped", extra: { "2": "b", "1": "a", z: [1e300] } });
w({ type: "branch_summary", id: "c1d2e3f4", parentId: "d4e5f6a7", timestamp: iso(), fromId: "d4e5f6a7", summary: "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\nTried X.", details: { readFiles: [], modifiedFiles: ["a.go"] }, fromHook: true });
w({ type: "message", id: "d2e3f4a5", parentId: "c1d2e3f4", timestamp: iso(), message: { role: "custom", customType: "hook-note", content: [{ type: "text", text: "from a v2 hookMessage" }], display: true, details: { k: "v" }, timestamp: ms() } });
w({ type: "branch_summary", id: "e3f4a5b6", parentId: null, timestamp: iso(), fromId: "root", summary: "", fromHook: false });
w({ type: "message", id: "f4a5b6c7", parentId: "e3f4a5b6", timestamp: iso(), message: { role: "assistant", content: [{ type: "text", text: "Hi again" }], api: "openai-responses", provider: "openai", model: "gpt-5", usage: { input: 5, output: 6, cacheRead: 7, cacheWrite: 8, totalTokens: 26, cost: { input: 0.1, output: 0.2, cacheRead: 0.30000000000000004, cacheWrite: 1e-10, total: 0.6000000001 } }, stopReason: "length", timestamp: ms(), responseModel: "gpt-5-2025-08-07", responseId: "resp_1", diagnostics: { retries: 1, notes: ["slow"] }, errorMessage: "cut short" } });
require("fs").writeFileSync(process.argv[2], out.join("\n") + "\n");
