// Runs pi's own compaction code on session files, for the differential
// test in ../pi_diff_test.go. Usage:
//
//	node pi_compaction.mjs <pi package dir> <request.json>
//
// The request lists session files with leaves and settings (see
// pi_diff_test.go); the answer, on stdout, is one JSON object with what
// pi's prepareCompaction, findCutPoint, compact, prepareBranchEntries,
// generateBranchSummary and isContextOverflow made of them. Model calls go
// to a fake provider registered with pi-ai that answers
// "summary(<maxTokens>)" and records each request.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [piRoot, requestFile] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(join(piRoot, p)).href);
const { SessionManager } = await load("dist/core/session-manager.js");
const comp = await load("dist/core/compaction/index.js");
const { convertToLlm } = await load("dist/core/messages.js");
// The same module instance pi-coding-agent imports, so the fake provider
// registered here is the one its completeSimple finds.
const ai = await load("node_modules/@mariozechner/pi-ai/dist/index.js");

const req = JSON.parse(readFileSync(requestFile, "utf8"));
const sha = (s) => createHash("sha256").update(s).digest("hex");
const text = (s) => (req.full ? s : sha(s));

let calls = [];
ai.registerApiProvider({
	api: "lunar-diff",
	stream: () => {
		throw new Error("stream not supported");
	},
	streamSimple: (model, context, options) => {
		const call = {
			system: context.systemPrompt,
			prompt: context.messages.map((m) => m.content.map((c) => c.text).join("")).join("\n"),
			maxTokens: options.maxTokens,
			reasoning: options.reasoning ?? "",
		};
		calls.push(call);
		return {
			result: async () => ({
				role: "assistant",
				content: [{ type: "text", text: `summary(${options.maxTokens})` }],
				stopReason: "stop",
			}),
		};
	},
});

const model = (contextWindow) => ({
	id: "fake",
	name: "fake",
	api: "lunar-diff",
	provider: "fake",
	baseUrl: "",
	reasoning: true,
	input: ["text"],
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
	contextWindow,
	maxTokens: 32000,
});

// The pi prompts are replaced by placeholders: lunar words its own.
const prompts = [
	["initial", "The messages above are a conversation to summarize."],
	["update", "The messages above are NEW conversation messages"],
	["prefix", "This is the PREFIX of a turn"],
	["branch", "Create a structured summary of this conversation branch"],
];
function normalizePrompt(p) {
	for (const [kind, opener] of prompts) {
		const at = p.lastIndexOf(opener);
		if (at < 0) continue;
		let end = p.indexOf("\n\nAdditional focus: ", at);
		if (end < 0) end = p.length;
		return p.slice(0, at) + `<<PROMPT:${kind}>>` + p.slice(end);
	}
	return p;
}
const recorded = () => {
	const out = calls
		.map((c) => ({ prompt: text(normalizePrompt(c.prompt)), maxTokens: c.maxTokens, reasoning: c.reasoning !== "" }))
		.sort((a, b) => b.maxTokens - a.maxTokens);
	calls = [];
	return out;
};

const roles = (msgs) => text(msgs.map((m) => `${m.role}@${m.timestamp}`).join(","));
const sorted = (set) => [...set].sort();
const fileOps = (ops) => ({ read: sorted(ops.read), written: sorted(ops.written), edited: sorted(ops.edited) });

const sessions = new Map();
const open = (file) => {
	if (!sessions.has(file)) sessions.set(file, SessionManager.open(file));
	return sessions.get(file);
};

const out = { prepare: [], branch: [], overflow: [] };

for (const c of req.prepare ?? []) {
	const sm = open(c.file);
	const path = sm.getBranch(c.leaf ?? undefined);
	const settings = { enabled: true, reserveTokens: c.reserve, keepRecentTokens: c.keep };
	const r = { file: c.file, leaf: c.leaf ?? "", keep: c.keep };

	// findCutPoint over the range prepareCompaction uses.
	let prev = -1;
	for (let i = path.length - 1; i >= 0; i--) {
		if (path[i].type === "compaction") {
			prev = i;
			break;
		}
	}
	let start = 0;
	if (prev >= 0) {
		const at = path.findIndex((e) => e.id === path[prev].firstKeptEntryId);
		start = at >= 0 ? at : prev + 1;
	}
	if (path.length > 0 && path[path.length - 1].type !== "compaction") {
		r.start = start;
		r.cut = comp.findCutPoint(path, start, path.length, c.keep);
	}

	const p = comp.prepareCompaction(path, settings);
	if (!p) {
		r.undefined = true;
		out.prepare.push(r);
		continue;
	}
	Object.assign(r, {
		firstKeptEntryId: p.firstKeptEntryId,
		isSplitTurn: p.isSplitTurn,
		tokensBefore: p.tokensBefore,
		previousSummary: p.previousSummary ?? "",
		summarize: p.messagesToSummarize.length,
		prefix: p.turnPrefixMessages.length,
		summarizeRoles: roles(p.messagesToSummarize),
		prefixRoles: roles(p.turnPrefixMessages),
		summarizeText: text(comp.serializeConversation(convertToLlm(p.messagesToSummarize))),
		prefixText: text(comp.serializeConversation(convertToLlm(p.turnPrefixMessages))),
		fileOps: fileOps(p.fileOps),
	});
	if (c.compact) {
		const res = await comp.compact(p, model(200000), "key", undefined, c.instructions || undefined, undefined, "high");
		r.compact = {
			calls: recorded(),
			summary: text(res.summary),
			firstKeptEntryId: res.firstKeptEntryId,
			tokensBefore: res.tokensBefore,
			details: res.details,
		};
	}
	out.prepare.push(r);
}

for (const c of req.branch ?? []) {
	const sm = open(c.file);
	const { entries } = comp.collectEntriesForBranchSummary(sm, c.oldLeaf, c.target);
	const budget = c.window - 16384;
	const p = comp.prepareBranchEntries(entries, budget);
	const r = {
		file: c.file,
		oldLeaf: c.oldLeaf,
		target: c.target,
		window: c.window,
		entries: entries.map((e) => e.id),
		messages: p.messages.length,
		roles: roles(p.messages),
		text: text(comp.serializeConversation(convertToLlm(p.messages))),
		fileOps: fileOps(p.fileOps),
	};
	const res = await comp.generateBranchSummary(entries, {
		model: model(c.window),
		apiKey: "key",
		customInstructions: c.instructions || undefined,
	});
	r.summary = text(res.summary ?? "");
	r.readFiles = res.readFiles ?? null;
	r.modifiedFiles = res.modifiedFiles ?? null;
	r.calls = recorded();
	out.branch.push(r);
}

for (const c of req.overflow ?? []) {
	out.overflow.push(ai.isContextOverflow(c.message, c.window || undefined));
}

process.stdout.write(JSON.stringify(out));
