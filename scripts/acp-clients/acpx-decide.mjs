// Drives `freeact acp` through acpx's own runtime (acpx/runtime), the
// library under the acpx command line, with a permission handler that
// gives every request one decision: allow_always or reject_always, which
// the command line never picks. Prints one JSON line per runtime event and
// per permission request. Used by app/acp's TestAcpxAlwaysAndRejectAlways.
//
//   node acpx-decide.mjs STATE_DIR DECISION AGENT_ARGV_JSON PROMPT...
import { createAcpRuntime, createAgentRegistry, createRuntimeStore } from "acpx/runtime";

const [stateDir, decision, argv, ...prompts] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const cwd = process.cwd();
const runtime = createAcpRuntime({
  cwd,
  sessionStore: createRuntimeStore({ stateDir }),
  agentRegistry: createAgentRegistry({ overrides: { freeact: JSON.parse(argv) } }),
  permissionMode: "approve-reads",
  nonInteractivePermissions: "deny",
  onPermissionRequest: async (req) => {
    out({ type: "permission_request", toolCall: req.raw.toolCall, options: req.raw.options, answer: decision });
    return { outcome: decision };
  },
});
try {
  const handle = await runtime.ensureSession({ sessionKey: "decide", agent: "freeact", mode: "persistent", cwd });
  for (const [i, text] of prompts.entries()) {
    for await (const ev of runtime.runTurn({ handle, text, mode: "prompt", requestId: `turn-${i}` })) {
      out({ turn: i, ...ev });
    }
  }
  await runtime.close({ handle, reason: "done" });
} finally {
  await runtime.shutdown();
}
