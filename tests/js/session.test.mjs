// Session authority through the shim (js-shim/session.js + index.js) against the built pkg/:
// a fake OpenClaw host registers the plugin, calls the gate, resolves approvals through the
// onResolution callback the gate returned, and runs the /human_gate_exec command.
// Run: node --test tests/js/

import { test } from "node:test";
import assert from "node:assert/strict";

import plugin from "../../js-shim/index.js";
import { CAPABILITY_TOOL, EXEC_COMMAND, execCommandHandler, resolutionFeedback, sessionFields } from "../../js-shim/session.js";

function fakeHost(pluginConfig) {
  const rec = { hooks: [], tools: [], commands: [], logs: [] };
  const log = (level) => (m) => rec.logs.push(`${level}: ${m}`);
  const api = {
    id: "human-gate",
    registrationMode: "full",
    pluginConfig,
    logger: { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") },
    on: (hookName, handler, opts) => rec.hooks.push({ hookName, handler, opts }),
    registerTool: (tool, opts) => rec.tools.push({ tool, opts }),
    registerCommand: (cmd) => rec.commands.push(cmd),
  };
  plugin.register(api);
  const gate = rec.hooks.find((h) => h.hookName === "before_tool_call" && h.opts?.priority === 60).handler;
  let seq = 0;
  const host = {
    rec,
    /** One tool call as the host makes it; returns the gate's result. */
    call(sessionKey, toolName, params, { runId = "run-1", sessionId = "sid-1" } = {}) {
      const toolCallId = `call_${++seq}`;
      return gate({ toolName, params, toolCallId, runId }, { toolName, sessionKey, sessionId, runId, toolCallId });
    },
    command: (ctx) => rec.commands.find((c) => c.name === EXEC_COMMAND).handler(ctx),
  };
  return host;
}

// Unique config per test, so each test gets its own engine (and its own session state).
let configSeq = 0;
const config = (extra = {}) => ({ rules: [{ id: `t${++configSeq}`, toolName: "never-called", mode: "block" }], ...extra });

const asks = (r) => r?.requireApproval !== undefined;

test("registers /human_gate_exec for admins only, and the capability tool as optional", () => {
  const h = fakeHost(config());
  const cmd = h.rec.commands.find((c) => c.name === EXEC_COMMAND);
  assert.ok(cmd, "the command is registered");
  assert.deepEqual(cmd.requiredScopes, ["operator.admin"]);
  assert.equal(cmd.acceptsArgs, true);
  const tool = h.rec.tools.find((t) => t.tool.name === CAPABILITY_TOOL);
  assert.ok(tool, "the capability tool is registered");
  assert.equal(tool.opts?.optional, true);
  assert.deepEqual(tool.tool.parameters.required, ["root"]);
});

test("allow-always on a write lets the next write in the same directory pass, not another directory", () => {
  const h = fakeHost(config());
  const s = "agent:main:shim-lease";
  const first = h.call(s, "write", { path: "/w/p/a.txt", content: "x" });
  assert.ok(asks(first));
  assert.ok(first.requireApproval.allowedDecisions.includes("allow-always"));
  first.requireApproval.onResolution("allow-always");
  assert.equal(h.call(s, "write", { path: "/w/p/b.txt", content: "y" }), undefined, "same directory passes");
  assert.ok(asks(h.call(s, "write", { path: "/w/q/c.txt", content: "z" })), "another directory asks");
  assert.ok(asks(h.call("agent:main:other", "write", { path: "/w/p/b.txt", content: "y" })), "another session asks");
  assert.ok(asks(h.call(s, "write", { path: "/w/p/b.txt", content: "y" }, { sessionId: "sid-2" })), "a new session id resets");
  assert.ok(h.rec.logs.some((l) => /allow-always recorded for this session: lease/.test(l)), h.rec.logs.join("\n"));
});

test("allow-always on a command without verified targets covers its exact repeats only (keyed exact key)", () => {
  const h = fakeHost(config());
  const s = "agent:main:shim-exact";
  const command = `printf '%s' ${"x".repeat(9000)} > /dev/null`;
  const first = h.call(s, "exec", { command, timeout: 30 });
  assert.ok(asks(first));
  assert.ok(first.requireApproval.allowedDecisions.includes("allow-always"));
  first.requireApproval.onResolution("allow-always");
  assert.equal(h.call(s, "exec", { timeout: 30, command }), undefined, "the identical call passes, whatever the key order");
  const flipped = `${command.slice(0, 5000)}y${command.slice(5001)}`;
  for (const params of [{ command: flipped, timeout: 30 }, { command, timeout: 31 }, { command }, { command, timeout: 30, pty: true }]) {
    assert.ok(asks(h.call(s, "exec", params)), JSON.stringify(params).slice(0, 80));
  }
});

test("allow-once, timeout and cancelled grant nothing; deny blocks the identical retry", () => {
  const h = fakeHost(config());
  const s = "agent:main:shim-deny";
  for (const outcome of ["allow-once", "timeout", "cancelled", "something-odd"]) {
    const r = h.call(s, "write", { path: "/w/p/a.txt", content: "x" });
    assert.ok(asks(r), outcome);
    assert.doesNotThrow(() => r.requireApproval.onResolution(outcome));
    assert.ok(asks(h.call(s, "write", { path: "/w/p/b.txt", content: "x" })), `${outcome} grants nothing`);
  }
  const r = h.call(s, "exec", { command: "touch /w/marker" });
  r.requireApproval.onResolution("deny");
  const retry = h.call(s, "exec", { command: "touch /w/marker" });
  assert.equal(retry?.block, true, `blocked, got ${JSON.stringify(retry)}`);
  assert.match(retry.blockReason, /deny cooldown/);
});

test("/human_gate_exec: owner only, needs a session, then ordinary exec passes and critical still asks", () => {
  const h = fakeHost(config());
  const s = "agent:main:shim-exec";
  assert.match(h.command({ args: "5m", sessionKey: s, senderIsOwner: false }).text, /only the owner/);
  assert.match(h.command({ args: "5m", sessionKey: s }).text, /only the owner/, "undefined is not the owner");
  assert.match(h.command({ args: "5m", senderIsOwner: true }).text, /no stable session/);
  assert.match(h.command({ args: "99m", sessionKey: s, senderIsOwner: true }).text, /1 to 60 minutes/);
  assert.ok(asks(h.call(s, "exec", { command: "touch /w/a" })));
  assert.match(h.command({ args: "5m", sessionKey: s, senderIsOwner: true }).text, /exec lease on for 5 min/);
  assert.equal(h.call(s, "exec", { command: "touch /w/a" }), undefined);
  const force = h.call(s, "exec", { command: "git push --force origin main" });
  assert.equal(force?.requireApproval?.severity, "critical");
  assert.ok(asks(h.call("agent:main:elsewhere", "exec", { command: "touch /w/a" })));
  assert.match(h.command({ args: "status", sessionKey: s, senderIsOwner: true }).text, /min left/);
  assert.match(h.command({ args: "off", sessionKey: s, senderIsOwner: true }).text, /off/);
  assert.ok(asks(h.call(s, "exec", { command: "touch /w/a" })));
});

test("the capability tool asks once; an allow opens an envelope for the run", async () => {
  const h = fakeHost(config({ authorizationEnvelopes: { mode: "enforce" } }));
  const s = "agent:main:shim-envelope";
  const req = h.call(s, CAPABILITY_TOOL, { root: "/w/repo" });
  assert.ok(asks(req));
  assert.deepEqual(req.requireApproval.allowedDecisions, ["allow-once", "deny"]);
  req.requireApproval.onResolution("allow-once");
  assert.equal(h.call(s, "write", { path: "/w/repo/src/a.rs", content: "x" }), undefined);
  assert.ok(asks(h.call(s, "write", { path: "/w/elsewhere/a.rs", content: "x" })));
  assert.ok(asks(h.call(s, "exec", { command: "touch /w/repo/x" })));
  assert.ok(asks(h.call(s, "write", { path: "/w/repo/src/a.rs", content: "x" }, { runId: "run-2" })));
  const tool = h.rec.tools.find((t) => t.tool.name === CAPABILITY_TOOL).tool;
  const out = await tool.execute("id", { root: "/w/repo" });
  assert.match(out.content[0].text, /\/w\/repo/);
  const off = fakeHost(config());
  assert.equal(off.call(s, CAPABILITY_TOOL, { root: "/w/repo" })?.block, true, "envelopes are off by default");
});

test("session fields: a unique call id per call, session and run ids when the host has them", () => {
  const a = sessionFields({ runId: "r" }, { sessionId: "s" });
  const b = sessionFields({}, {});
  assert.equal(a.runId, "r");
  assert.equal(a.sessionId, "s");
  assert.notEqual(a.callId, b.callId);
  assert.deepEqual(Object.keys(b), ["callId"]);
});

test("feedback and command never throw, whatever the host passes", () => {
  const logs = [];
  const log = { info: (m) => logs.push(m), warn: (m) => logs.push(m) };
  const cfg = JSON.stringify(config());
  for (const request of [undefined, null, {}, { sessionKey: 1 }, { sessionKey: "k", callId: "missing" }]) {
    assert.doesNotThrow(() => resolutionFeedback(cfg, request, log)("allow-always"));
  }
  assert.ok(logs.some((m) => /nothing is granted/.test(m)), logs.join("\n"));
  const handler = execCommandHandler(cfg, log);
  for (const ctx of [undefined, null, 5, { senderIsOwner: true, sessionKey: "k", args: 7 }]) {
    assert.equal(typeof handler(ctx).text, "string");
  }
});
