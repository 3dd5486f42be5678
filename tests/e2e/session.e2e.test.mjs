// Real-host e2e for session authority: the packed plugin in OpenClaw 2026.9.6, a real gateway,
// the mock model and the scripted approver (tests/e2e/lib/). Each test proves one behaviour by
// its real effect: files that exist or not, approval requests the gateway broadcast or not,
// and the text the model received.
// Entry point: tests/e2e/run.sh (runs every tests/e2e/*.e2e.test.mjs file, one at a time).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { chatHistory, chatSend, CHAT_SCOPES } from "./lib/chat.mjs";
import { Harness, TIMEOUTS } from "./lib/harness.mjs";
import { waitFor } from "./lib/wait.mjs";

const TARBALL = process.env.HG_E2E_TARBALL;
const SETUP_TIMEOUT = 6 * 60_000;
const TURN_TIMEOUT = TIMEOUTS.turn + 60_000;

let h;
const exists = (p) => fs.existsSync(p);
const text = (m) => (Array.isArray(m?.content) ? m.content.map((p) => p?.text ?? "").join("\n") : String(m?.content ?? ""));

before(async () => {
  assert.ok(TARBALL && exists(TARBALL), `HG_E2E_TARBALL must name the packed plugin (got ${TARBALL}); run tests/e2e/run.sh`);
  // run.sh gives every file the same HG_E2E_DIR and keeps it; this file runs after the
  // gateway file, so it takes a sibling folder of its own (inside the same run root).
  if (process.env.HG_E2E_DIR) process.env.HG_E2E_DIR = `${process.env.HG_E2E_DIR}-session`;
  h = Harness.create();
  h.stopOnSignals();
  // The defaults: allow-always leases on, deny cooldown 120 s.
  await h.startAll({ tarball: TARBALL, pluginConfig: {} });
}, { timeout: SETUP_TIMEOUT });

after(async () => {
  const errors = await h?.stop();
  if (errors?.length) console.error("e2e cleanup problems:", errors.map(String).join("\n"));
}, { timeout: 60_000 });

describe("session authority through the real gateway", () => {
  test("allow-always on a write: the next write in the same directory passes unasked, another directory asks", { timeout: 3 * TURN_TIMEOUT }, async () => {
    const sessionKey = "agent:main:hg-e2e-lease";
    const dirA = path.join(h.dir.workspace, "lease-a");
    const dirB = path.join(h.dir.workspace, "lease-b");
    fs.mkdirSync(dirA, { recursive: true });
    fs.mkdirSync(dirB, { recursive: true });
    const first = path.join(dirA, "first.txt");
    const second = path.join(dirA, "second.txt");
    const other = path.join(dirB, "other.txt");

    let r = await h.turn({ sessionKey, tag: "lease1", tool: "write", args: { path: first, content: "one\n" }, decisions: ["allow-always"] });
    assert.equal(r.approvals.length, 1, "the first write asks");
    assert.ok(r.approvals[0].request.allowedDecisions.includes("allow-always"), "allow-always is offered");
    assert.equal(r.approvals[0].answer, "allow-always");
    assert.equal(r.approvals[0].resolveError, undefined, "the gateway accepted the allow-always");
    assert.equal(exists(first), true, "the approved write ran");

    r = await h.turn({ sessionKey, tag: "lease2", tool: "write", args: { path: second, content: "two\n" } });
    assert.equal(r.approvals.length, 1, `no new approval request for a write in the same directory (got ${r.approvals.length - 1})`);
    assert.equal(r.toolResult.isError, false, `the host recorded a successful write: ${r.toolText}`);
    assert.equal(exists(second), true, "the leased write ran");

    r = await h.turn({ sessionKey, tag: "lease3", tool: "write", args: { path: other, content: "three\n" }, decisions: ["deny"] });
    assert.equal(r.approvals.length, 2, "a write in another directory asks again");
    assert.equal(r.approvals[1].request.pluginId, "human-gate");
    assert.equal(exists(other), false, "the denied write did not run");
  });

  test("a deny, then the identical retry is blocked without a prompt (deny cooldown)", { timeout: 2 * TURN_TIMEOUT }, async () => {
    const sessionKey = "agent:main:hg-e2e-cooldown";
    const marker = h.markerPath("cooldown");
    const command = `touch ${marker}`;
    let r = await h.turn({ sessionKey, tag: "deny1", tool: "exec", args: { command }, decisions: ["deny"] });
    assert.equal(r.approvals.length, 1, "the first call asks");
    assert.equal(r.approvals[0].answer, "deny");
    assert.equal(exists(marker), false);

    const requestsBefore = h.approver.requests.length;
    r = await h.turn({ sessionKey, tag: "deny2", tool: "exec", args: { command } });
    assert.equal(h.approver.requests.length, requestsBefore, "no approval request for the retry");
    assert.equal(exists(marker), false, "the retry did not run");
    assert.equal(r.toolResult.isError, true, "the host recorded the retry as failed");
    assert.match(r.toolText, /deny cooldown/i, `the agent was told why: ${r.toolText}`);
  });

  test("/human_gate_exec 5m from the owner: an ordinary exec passes unasked, git push --force still asks", { timeout: 3 * TURN_TIMEOUT }, async () => {
    const sessionKey = "agent:main:hg-e2e-exec-lease";
    const answer = await chatSend({
      openclawPkg: h.host.openclawPkg, url: h.gatewayUrl, token: h.token, sessionKey,
      message: "/human_gate_exec 5m", scopes: [...CHAT_SCOPES, "operator.admin"], timeoutMs: TIMEOUTS.chatSend,
    });
    const reply = await waitFor(async () => {
      const messages = await chatHistory({ openclawPkg: h.host.openclawPkg, url: h.gatewayUrl, token: h.token, sessionKey });
      // The command's reply (not the user's own message): the lease or the refusal.
      return messages.filter((m) => m?.role !== "user").map(text).find((t) => /exec lease|human_gate_exec/.test(t)) ?? null;
    }, { what: "the /human_gate_exec reply in the session transcript", timeoutMs: 30_000, intervalMs: 300,
      details: () => `chat.send answered ${JSON.stringify(answer)}\n${h.gatewayDetails()}` });
    assert.match(reply, /exec lease on for 5 min/, `the owner's command was accepted: ${reply}`);

    const marker = h.markerPath("exec-lease");
    const requestsBefore = h.approver.requests.length;
    let r = await h.turn({ sessionKey, tag: "lease-exec", tool: "exec", args: { command: `touch ${marker}` } });
    assert.equal(h.approver.requests.length, requestsBefore, "no approval request for an ordinary exec under the lease");
    assert.equal(exists(marker), true, "the exec ran");
    assert.equal(r.toolResult.isError, false);

    r = await h.turn({ sessionKey, tag: "lease-force", tool: "exec", args: { command: "git push --force origin main" }, decisions: ["deny"] });
    assert.equal(r.approvals.length, 1, "git push --force still asks");
    assert.equal(r.approvals[0].request.severity, "critical");
    assert.ok(!r.approvals[0].request.allowedDecisions.includes("allow-always"));
  });
});
