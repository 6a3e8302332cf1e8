// Drives an agent in RPC mode through pi's own RpcClient
// (dist/modes/rpc/rpc-client.js) for the differential test
// e2e_pi_rpc_test.go, and prints what came back as one JSON object:
// every step's response (or data) and the events of the prompts.
//
//   node rpc_client.mjs PI_DIST CLI_PATH CWD PROVIDER MODEL [ARG...]
//
// CLI_PATH is what RpcClient runs with node: pi's dist/cli.js, or a shim
// that starts lunar (rpc_shim.mjs). The fake server must have the
// replies of the script's prompts queued.
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { writeFileSync } from "node:fs";

const [dist, cliPath, cwd, provider, model, ...args] = process.argv.slice(2);
const { RpcClient } = await import(pathToFileURL(join(dist, "modes", "rpc", "rpc-client.js")).href);

const client = new RpcClient({ cliPath, cwd, provider, model, args });
const steps = [];
// Lines that answer no pending request (the answers to bad input) come
// to the event listeners.
const stray = [];
client.onEvent((ev) => {
	if (ev.type === "response") stray.push(ev);
});

async function step(name, cmd) {
	const res = await client.send(cmd);
	steps.push({ name, response: res });
	return res;
}

// waitStray waits until n stray responses have come.
async function waitStray(n) {
	for (let i = 0; stray.length < n; i++) {
		if (i > 1000) throw new Error(`${stray.length} of ${n} answers to bad input`);
		await client.send({ type: "get_state" }); // a round trip: lines before its answer are read
	}
}

await client.start();
try {
	await step("get_state", { type: "get_state" });
	const events1 = await client.promptAndWait("run the tool");
	await step("get_messages", { type: "get_messages" });
	await step("get_last_assistant_text", { type: "get_last_assistant_text" });
	await step("get_session_stats", { type: "get_session_stats" });
	await step("get_fork_messages", { type: "get_fork_messages" });
	await step("set_session_name", { type: "set_session_name", name: " named " });
	await step("set_session_name empty", { type: "set_session_name", name: "  " });
	await step("cycle_thinking_level", { type: "cycle_thinking_level" });
	await step("set_auto_compaction", { type: "set_auto_compaction", enabled: false });
	await step("set_steering_mode", { type: "set_steering_mode", mode: "all" });
	await step("set_model unknown", { type: "set_model", provider: "llmtest", modelId: "nope" });
	await step("set_model", { type: "set_model", provider, modelId: model });
	await step("set_auto_retry", { type: "set_auto_retry", enabled: false });
	await step("abort_retry", { type: "abort_retry" });
	await step("get_state after settings", { type: "get_state" });
	await step("bash", { type: "bash", command: "echo from-bash" });
	await step("abort_bash", { type: "abort_bash" });
	await step("abort idle", { type: "abort" });
	// get_state sent on the run's last message_end: pi's agent is idle
	// by the time the client reads it (lunar's run may still end).
	let lastState;
	const offLast = client.onEvent((ev) => {
		const m = ev.message;
		if (ev.type === "message_end" && m.role === "assistant" && !m.content.some((c) => c.type === "toolCall")) {
			lastState ??= client.send({ type: "get_state" });
		}
	});
	const events2 = await client.promptAndWait("second");
	offLast();
	steps.push({ name: "get_state on the last message_end", response: await lastState });
	await step("get_last_assistant_text 2", { type: "get_last_assistant_text" });
	// The queue: the model's tool waits for the file "gate", and a
	// steering message and a follow-up are sent while it does.
	const events3 = [];
	let toolStarted;
	const started = new Promise((resolve) => (toolStarted = resolve));
	const ended = new Promise((resolve) => {
		const off = client.onEvent((ev) => {
			if (ev.type === "response") return;
			events3.push(ev);
			if (ev.type === "tool_execution_start") toolStarted();
			if (ev.type === "agent_end") {
				off();
				resolve();
			}
		});
	});
	await step("prompt queue", { type: "prompt", message: "queue" });
	await started;
	await step("steer", { type: "steer", message: "steered" });
	await step("follow_up", { type: "follow_up", message: "later" });
	await step("prompt while streaming", { type: "prompt", message: "refused" });
	await step("get_state queued", { type: "get_state" });
	writeFileSync(join(cwd, "gate"), "");
	await ended;
	await step("get_messages after queue", { type: "get_messages" });
	// Queued while the agent is idle: both wait for the next prompt's run
	// (get_state counts them), the steering message joining it after the
	// prompt, the follow-up (a prompt template, queued expanded) when it
	// would stop.
	const idle = [];
	const offIdle = client.onEvent((ev) => {
		if (ev.type !== "response") idle.push(ev);
	});
	await step("steer idle", { type: "steer", message: "early steer" });
	await step("follow_up idle", { type: "follow_up", message: "/greet the follow-up" });
	await step("get_state idle queued", { type: "get_state" });
	offIdle();
	const events4 = await client.promptAndWait("with the queue");
	await step("get_messages with the queue", { type: "get_messages" });
	await step("get_state after the queue", { type: "get_state" });
	// What waits for the next run goes with the session (get_state
	// counts none after the change).
	await step("steer before clone", { type: "steer", message: "dropped by clone" });
	await step("clone", { type: "clone" });
	await step("get_state after clone", { type: "get_state" });
	await step("follow_up before new_session", { type: "follow_up", message: "dropped by new_session" });
	await step("new_session", { type: "new_session" });
	await step("get_state after new_session", { type: "get_state" });
	await step("get_messages new", { type: "get_messages" });
	await step("get_last_assistant_text new", { type: "get_last_assistant_text" });

	client.process.stdin.write("not json\n");
	client.process.stdin.write(JSON.stringify({ id: "bad1", type: "dance" }) + "\n");
	await waitStray(2);
	await step("get_state at the end", { type: "get_state" });
	process.stdout.write(JSON.stringify({ steps, events: [events1, events2, events3, idle, events4], stray }) + "\n");
} finally {
	await client.stop();
}
