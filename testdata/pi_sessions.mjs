// Writes session files with pi's own SessionManager for the differential
// test e2e_pi_requests_test.go: each case is one way lunar's request
// differed from pi's on the same session (issue 9).
//
//   node pi_sessions.mjs PI_DIST OUT_DIR CWD
//
// PI_DIST is the dist folder of @mariozechner/pi-coding-agent. For every
// case it writes OUT_DIR/<case>-openai.jsonl and <case>-anthropic.jsonl,
// whose own model is the test's OpenAI-compatible or Anthropic provider;
// each ends with a model_change to that model, so that both agents resume
// with it. No file has a thinking_level_change: both agents add one.
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { renameSync } from "node:fs";

const [dist, outDir, cwd] = process.argv.slice(2);
const { SessionManager } = await import(pathToFileURL(join(dist, "index.js")).href);

const OWN = {
	openai: { api: "openai-completions", provider: "llmtest", model: "llmtest-model", sig: "reasoning_content" },
	anthropic: { api: "anthropic-messages", provider: "llmtest-ant", model: "llmtest-ant-model", sig: "EqQBc2lnbmF0dXJl" },
};
const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
const usage = { ...zero, totalTokens: 0, cost: { ...zero, total: 0 } };
let clock = 1750000000000;
const ts = () => (clock += 1000);

const text = (t) => ({ type: "text", text: t });
const image = (data) => ({ type: "image", data, mimeType: "image/png" });
const thinking = (t, sig, redacted) => ({ type: "thinking", thinking: t, ...(sig !== undefined && { thinkingSignature: sig }), ...(redacted && { redacted }) });
const call = (id, name, args, thoughtSignature) => ({ type: "toolCall", id, name, arguments: args, ...(thoughtSignature && { thoughtSignature }) });
const user = (content) => ({ role: "user", content, timestamp: ts() });
const reply = (who, content, stopReason = "stop", extra = {}) => ({
	role: "assistant", content, api: who.api, provider: who.provider, model: who.model, usage, stopReason, timestamp: ts(), ...extra,
});
const result = (id, content, isError = false) => ({ role: "toolResult", toolCallId: id, toolName: "bash", content, isError, timestamp: ts() });

// Other models' replies.
const RESPONSES = { api: "openai-responses", provider: "openai-codex", model: "gpt-5-codex" };
const CLAUDE = { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5" };
const CHAT = { api: "openai-completions", provider: "openrouter", model: "deepseek/deepseek-r1" };
const encrypted = (id) => JSON.stringify({ type: "reasoning.encrypted", id, data: "ENC-" + id, format: "openai-responses-v1" });

const cases = {
	// Text blocks, blank blocks and replies, string and array contents,
	// an empty custom message.
	texts(sm, own) {
		sm.appendMessage(user([text("hello")]));
		sm.appendMessage(reply(own, [text("Hello"), text("  \n"), text(" world")]));
		sm.appendMessage(user("a plain string"));
		sm.appendMessage(reply(own, [text(" \n\t")]));
		sm.appendMessage(user([text("part one"), text("part two")]));
		sm.appendCustomMessageEntry("note", "", true);
		sm.appendCustomMessageEntry("note", [text("a custom note")], false);
		sm.appendMessage(user(""));
		sm.appendMessage(reply(own, [text("first"), text("second")]));
	},
	// Tool results with images, several text blocks, empty text, no
	// content; a call left without a result.
	tools(sm, own) {
		sm.appendMessage(user([text("look at these")]));
		sm.appendMessage(reply(own, [text("Let me look."), call("call_1", "bash", { command: "ls" }), call("call_2", "read", { path: "x.png" }),
			call("call_3", "bash", {}), call("call_4", "bash", { command: "true" })], "toolUse"));
		sm.appendMessage(result("call_1", [text("a"), text("b")]));
		sm.appendMessage(result("call_2", [image("iVBORw0KGgo="), text("a picture")]));
		sm.appendMessage(result("call_3", [text("")]));
		sm.appendMessage(result("call_4", []));
		sm.appendMessage(reply(own, [call("call_5", "read", { path: "y.png" })], "toolUse"));
		sm.appendMessage(result("call_5", [image("R0lGODlh")], true));
		sm.appendMessage(reply(own, [call("call_6", "bash", { command: "sleep 9" })], "toolUse"));
		sm.appendMessage(user([text("stop that")]));
		sm.appendMessage(reply(own, [text("Stopped.")]));
	},
	// Replies of other models: thinking as text, redacted thinking,
	// Responses ids (call|item), thoughtSignatures, an errored reply
	// whose call still has a result.
	foreign(sm) {
		sm.appendMessage(user([text("q")]));
		sm.appendMessage(reply(RESPONSES, [thinking("Considering.", encrypted("rs_1")), text("Let me run it."),
			call("call_abc|fc_xyz+/=123", "bash", { command: "ls" }, encrypted("call_abc"))], "toolUse"));
		sm.appendMessage(result("call_abc|fc_xyz+/=123", [text("files")]));
		sm.appendMessage(reply(CLAUDE, [thinking("Let me think.", "EqQBsig"), thinking("[Reasoning redacted]", "opaque", true), thinking("  ", "sig"),
			text("Done."), call("toolu_01.bad/id", "bash", { command: "pwd" })], "toolUse"));
		sm.appendMessage(result("toolu_01.bad/id", [text("/w")]));
		sm.appendMessage(reply(CHAT, [thinking("pondering", "reasoning"), text("Answer.")]));
		sm.appendMessage(reply(RESPONSES, [call("call_err|fc_1", "bash", {})], "error", { errorMessage: "boom" }));
		sm.appendMessage(result("call_err|fc_1", [text("late result")]));
		sm.appendMessage(user([text("go on")]));
		sm.appendMessage(reply(CHAT, [text("ok")]));
	},
	// The model's own thinking (signed, blank, unsigned, redacted), its
	// reasoning details on tool calls, an aborted reply.
	own(sm, own) {
		sm.appendMessage(user([text("think")]));
		sm.appendMessage(reply(own, [thinking("first thought", own.sig), thinking("   ", own.sig), thinking("second thought", own.sig),
			text("answer"), call("call_t1", "bash", { command: "date" }, encrypted("call_t1"))], "toolUse"));
		sm.appendMessage(result("call_t1", [text("today")]));
		sm.appendMessage(reply(own, [thinking("unsigned thought"), thinking("[Reasoning redacted]", "opaque-data", true), text("done")]));
		sm.appendMessage(user([text("more")]));
		sm.appendMessage(reply(own, [text("partial")], "aborted", { errorMessage: "Request was aborted" }));
	},
	// Lone UTF-16 surrogates everywhere text goes.
	surrogates(sm, own) {
		sm.appendMessage(user([text("user \ud83d text"), text("\udc00")]));
		sm.appendMessage(reply(own, [thinking("thought \ud83d", own.sig), text("reply \ud83d"), call("call_s", "bash", { command: "echo \ud83d" })], "toolUse"));
		sm.appendMessage(result("call_s", [text("out \udc00put")]));
		sm.appendMessage(user("string \ud83d"));
		sm.appendMessage(reply(own, [text("\ud83d")]));
		sm.appendCustomMessageEntry("note", "custom \ud83d", true);
		sm.appendMessage(reply(CLAUDE, [thinking("claude \ud83d", "EqQB"), text("ok")]));
	},
	// Images in user messages and tool results: two in a row, one alone,
	// one after a text equal to pi's placeholder (a model that takes no
	// images gets each run of them as one placeholder).
	images(sm, own) {
		sm.appendMessage(user([text("what differs?"), image("iVBORw0KGgoA"), image("iVBORw0KGgoB"), text("the second is newer")]));
		sm.appendMessage(reply(own, [call("call_i1", "read", { path: "shot.png" })], "toolUse"));
		sm.appendMessage(result("call_i1", [text("Read image file [image/png]"), image("iVBORw0KGgoC")]));
		sm.appendMessage(reply(own, [text("They differ in colour.")]));
		sm.appendMessage(user([image("iVBORw0KGgoD")]));
		sm.appendMessage(reply(own, [text("A cat.")]));
		sm.appendMessage(user([text("(image omitted: model does not support images)"), image("iVBORw0KGgoE"), text("again")]));
		sm.appendMessage(reply(own, [text("The same cat.")]));
	},
	// Messages pi synthesises: bash executions, a branch summary.
	synthesised(sm, own) {
		sm.appendMessage(user([text("start")]));
		const first = sm.appendMessage(reply(own, [text("started")]));
		sm.appendMessage(user([text("abandoned")]));
		sm.branchWithSummary(first, "We tried something else.", { readFiles: [], modifiedFiles: [] }, false);
		sm.appendMessage({ role: "bashExecution", command: "ls", output: "a\nb", exitCode: 0, cancelled: false, truncated: false, timestamp: ts() });
		sm.appendMessage({ role: "bashExecution", command: "false", output: "", exitCode: 1, cancelled: false, truncated: false, timestamp: ts() });
		sm.appendMessage({ role: "bashExecution", command: "secret", output: "x", exitCode: 0, cancelled: false, truncated: false, timestamp: ts(), excludeFromContext: true });
		sm.appendMessage(reply(own, [text("seen")]));
	},
};

const written = [];
for (const [name, write] of Object.entries(cases)) {
	for (const [api, own] of Object.entries(OWN)) {
		const sm = SessionManager.create(cwd, outDir);
		write(sm, own);
		sm.appendModelChange(own.provider, own.model);
		const to = join(outDir, `${name}-${api}.jsonl`);
		renameSync(sm.getSessionFile(), to);
		written.push(to);
	}
}
console.log(JSON.stringify(written));
