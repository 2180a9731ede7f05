// The bad-input cases of `freeact acp`, with the protocol's own SDK
// (@agentclientprotocol/sdk) as the client. Driven by app/acp's
// TestACPBadInputWithTheProtocolSDK, which checks what this prints: one
// JSON line per case ({"case": ..., ...}).
//
//   node badinput.mjs run  FREEACT WORKSPACE   the cases, then goes away mid-turn
//   node badinput.mjs load FREEACT WORKSPACE SESSION_ID   the history as loaded
//
// Nothing waits on a clock: each step waits for the message it needs.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [mode, freeact, ws, loadId] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const errOf = (e) => ({ code: e?.code, message: String(e?.message ?? e), data: e?.data });

const agent = spawn(freeact, ["acp"], { cwd: ws, stdio: ["pipe", "pipe", "inherit"] });
// Lines the agent writes are read twice: by the SDK, and here, to see the
// answers to raw lines the SDK cannot send.
const raw = [];
const rawWaiters = [];
let buf = "";
const tee = new TransformStream({
  transform(chunk, ctl) {
    buf += new TextDecoder().decode(chunk);
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      raw.push(line);
      for (const w of rawWaiters.splice(0)) w();
    }
    ctl.enqueue(chunk);
  },
});
const rawLine = async (pred) => {
  for (;;) {
    const hit = raw.find(pred);
    if (hit) return hit;
    await new Promise((r) => rawWaiters.push(r));
  }
};

// What the client saw, and promises for what a step waits on.
const updates = [];
const updateWaiters = [];
const permissionWaiters = [];
let answer = () => ({ outcome: { outcome: "selected", optionId: "allow_once" } });
const until = (list, pred) =>
  new Promise((resolve) => {
    const check = () => {
      const hit = list === "updates" ? updates.find(pred) : undefined;
      if (hit) return resolve(hit), true;
      return false;
    };
    if (!check()) updateWaiters.push(check);
  });
const nextPermission = () => new Promise((r) => permissionWaiters.push(r));

const client = {
  async sessionUpdate(n) {
    updates.push(n);
    for (let i = updateWaiters.length - 1; i >= 0; i--) if (updateWaiters[i]()) updateWaiters.splice(i, 1);
  },
  async requestPermission(p) {
    permissionWaiters.splice(0).forEach((r) => r(p));
    return answer(p);
  },
  async readTextFile() {
    throw acp.RequestError.methodNotFound("fs/read_text_file");
  },
  async writeTextFile() {
    throw acp.RequestError.methodNotFound("fs/write_text_file");
  },
};
const stream = acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout).pipeThrough(tee));
const conn = new acp.ClientSideConnection(() => client, stream);
await conn.initialize({ protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });

const toolText = (id) =>
  updates
    .filter((n) => (n.update.sessionUpdate === "tool_call" || n.update.sessionUpdate === "tool_call_update") && n.update.toolCallId === id)
    .flatMap((n) => n.update.content ?? [])
    .map((c) => c.content?.text ?? "")
    .join("");
const status = (id) =>
  updates
    .filter((n) => (n.update.sessionUpdate === "tool_call" || n.update.sessionUpdate === "tool_call_update") && n.update.toolCallId === id && n.update.status)
    .map((n) => n.update.status)
    .at(-1);
const agentText = () =>
  updates
    .filter((n) => n.update.sessionUpdate === "agent_message_chunk")
    .map((n) => n.update.content.text ?? "")
    .join("");

if (mode === "load") {
  await conn.loadSession({ sessionId: loadId, cwd: ws, mcpServers: [] });
  out({ case: "load", calls: Object.fromEntries(["c1", "c2", "c3", "c4"].map((id) => [id, { text: toolText(id), status: status(id) }])), answer: agentText() });
  agent.stdin.end();
  await new Promise((r) => agent.on("exit", r));
  process.exit(0);
}

// 1. A malformed message: a parse error, and the connection goes on.
agent.stdin.write('{"jsonrpc":"2.0","id":"raw-1","method":\n');
const parse = JSON.parse(await rawLine((l) => l.includes('"error"') && l.includes("-32700")));
out({ case: "malformed", error: parse.error });

// 2. An unknown method: method not found, through the SDK's own request.
try {
  await conn.extMethod("session/frobnicate", {});
  out({ case: "unknown_method", error: null });
} catch (e) {
  out({ case: "unknown_method", error: errOf(e) });
}

const { sessionId } = await conn.newSession({ cwd: ws, mcpServers: [] });
out({ case: "session", sessionId });

// 3. A second session/prompt while one runs (it waits on its approval):
// refused, and the first goes on.
let held;
const heldAnswer = new Promise((r) => (held = r));
answer = () => heldAnswer;
const asked1 = nextPermission();
const first = conn.prompt({ sessionId, prompt: [{ type: "text", text: "Set x." }] });
await asked1;
try {
  await conn.prompt({ sessionId, prompt: [{ type: "text", text: "again" }] });
  out({ case: "second_prompt", error: null });
} catch (e) {
  out({ case: "second_prompt", error: errOf(e) });
}
held({ outcome: { outcome: "selected", optionId: "allow_once" } });
out({ case: "first_prompt", stopReason: (await first).stopReason, c1: toolText("c1"), c1Status: status("c1") });

// 4. A cancel for the finished turn: nothing happens, the next prompt runs.
await conn.cancel({ sessionId });
out({ case: "cancel_finished", ok: true });

// 5. A client that never answers a permission request: the turn waits
// for it; session/cancel ends it cleanly and c2 does not run.
answer = () => new Promise(() => {});
const asked2 = nextPermission();
const never = conn.prompt({ sessionId, prompt: [{ type: "text", text: "Set x to 99." }] });
await asked2;
await conn.cancel({ sessionId });
out({ case: "never_answered", stopReason: (await never).stopReason, c2Status: status("c2") });

// The kernel agrees with the session: c2 never ran, so x is still 7.
answer = () => ({ outcome: { outcome: "selected", optionId: "allow_once" } });
const third = await conn.prompt({ sessionId, prompt: [{ type: "text", text: "What is x*6?" }] });
out({ case: "kernel_agrees", stopReason: third.stopReason, c3: toolText("c3") });

// 6. The client goes away mid-turn, while c4 sleeps.
conn.prompt({ sessionId, prompt: [{ type: "text", text: "Sleep." }] }).catch(() => {});
await until("updates", () => toolText("c4").includes("sleeping"));
out({ case: "going_away", pid: agent.pid });
process.exit(0);
