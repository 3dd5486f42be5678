// Real-host e2e: the packed openclaw-human-gate tarball installed into OpenClaw 2026.9.6, a real
// gateway on 127.0.0.1, a mock model that makes exactly the tool call each test scripts, and a
// scripted approval client. Each test proves one behaviour by its real effect (a marker file that
// exists or not, the text the model received, the approval payload the gateway broadcast).
// Entry point: tests/e2e/run.sh (sets HG_E2E_TARBALL; runs this with Node 24's `node --test`).
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { Harness, TIMEOUTS } from "./lib/harness.mjs";

const TARBALL = process.env.HG_E2E_TARBALL;
const SETUP_TIMEOUT = 6 * 60_000;
const TURN_TIMEOUT = TIMEOUTS.turn + 60_000;
const BLOCK_REASON = "E2E rule blocks this command";

let h;          // the run's harness
let install;    // result of `openclaw plugins install`
let commands;   // exact exec commands per test, each creating its own marker file

function pluginConfig() {
  return {
    rules: [
      { id: "e2e-block", toolName: "exec", paramMatcher: { all: [{ key: "command", equals: commands.d }] },
        mode: "block", reason: BLOCK_REASON },
      { id: "e2e-critical", toolName: "exec", paramMatcher: { all: [{ key: "command", equals: commands.e }] },
        mode: "require-approval", severity: "critical" },
    ],
  };
}

const exists = (p) => fs.existsSync(p);

/** Assertions every approval request of the gate must satisfy. */
function assertGateRequest(req, { sessionKey }) {
  assert.equal(req.pluginId, "human-gate", "the request comes from the human-gate plugin");
  assert.equal(req.toolName, "exec");
  assert.equal(req.sessionKey, sessionKey);
  assert.ok(typeof req.title === "string" && req.title.length > 0 && [...req.title].length <= 80, `title within 80 chars: ${req.title}`);
  assert.ok(typeof req.description === "string" && [...req.description].length <= 512, "description within 512 chars");
  assert.match(req.description, /touch/, "the description shows the command a person is approving");
}

before(async () => {
  assert.ok(TARBALL && exists(TARBALL), `HG_E2E_TARBALL must name the packed plugin (got ${TARBALL}); run tests/e2e/run.sh`);
  h = Harness.create();
  h.stopOnSignals();
  commands = Object.fromEntries(["b", "c", "d", "e"].map((k) => [k, `touch ${h.markerPath(k)}`]));
  await h.startMock();
  await h.writeBaseConfig();
  install = await h.installPlugin(TARBALL);
}, { timeout: SETUP_TIMEOUT });

after(async () => {
  const errors = await h?.stop();
  if (errors?.length) console.error("e2e cleanup problems:", errors.map(String).join("\n"));
}, { timeout: 60_000 });

test("the packed tarball installs into the real host", () => {
  assert.equal(install.code, 0, `plugins install exit code\n${install.stdout}\n${install.stderr}`);
  assert.match(install.stdout + install.stderr, /Installed plugin: human-gate/);
  const installed = path.join(h.dir.stateDir, "npm/projects/openclaw-human-gate/node_modules/openclaw-human-gate");
  assert.ok(exists(path.join(installed, "openclaw.plugin.json")), `installed package at ${installed}`);
});

test("plugins inspect --runtime: loaded, gate + seal on before_tool_call, human_gate_ask, no errors", { timeout: 120_000 }, async (t) => {
  const info = await h.inspectPlugin();
  assert.equal(info.plugin?.id, "human-gate");
  assert.equal(info.plugin?.status, "loaded", `plugin status (error: ${info.plugin?.error ?? "none"})`);
  assert.equal(info.plugin?.enabled, true);
  const hooks = (info.typedHooks ?? []).filter((x) => x.name === "before_tool_call");
  assert.equal(hooks.length, 2, `two before_tool_call registrations (gate + seal), got ${JSON.stringify(info.typedHooks)}`);
  const priorities = hooks.map((x) => x.priority ?? 0).sort((a, b) => b - a);
  assert.equal(priorities[0], 60, "the gate runs at priority 60");
  assert.ok(priorities[1] < 60, "the seal runs after the gate");
  const tools = (info.tools ?? []).flatMap((x) => x.names ?? []);
  assert.ok(tools.includes("human_gate_ask"), `tool human_gate_ask listed, got ${JSON.stringify(info.tools)}`);
  const diags = info.diagnostics ?? [];
  for (const d of diags) t.diagnostic(`inspect diagnostic: ${JSON.stringify(d)}`);
  const errors = diags.filter((d) => /error/i.test(String(d.level ?? d.severity ?? d.kind ?? "")));
  assert.deepEqual(errors, [], "no error diagnostics");
});

describe("through the real gateway", () => {
  before(async () => {
    h.configurePlugin(pluginConfig());
    await h.startGateway();
    await h.connectApprover();
  }, { timeout: SETUP_TIMEOUT });

  test("(a) a read tool passes with no approval request and the model gets the file", { timeout: TURN_TIMEOUT }, async () => {
    const secret = `hg-e2e-notes-${crypto.randomBytes(6).toString("hex")}`;
    const file = path.join(h.dir.workspace, "e2e-notes.txt");
    fs.writeFileSync(file, `${secret}\n`);
    const requestsBefore = h.approver.requests.length;
    const r = await h.turn({ sessionKey: "agent:main:hg-e2e-a", tag: "a", tool: "read", args: { path: file } });
    assert.equal(r.calls.length, 1, "the model made exactly one read call");
    assert.deepEqual(r.approvals, [], "no approval request for the read");
    assert.equal(h.approver.requests.length, requestsBefore, "no approval request at all during the turn");
    assert.equal(r.toolResult.isError, false, "the host recorded a successful read");
    assert.match(r.toolText, new RegExp(secret), "the model received the file content");
  });

  test("(b) exec creating a marker asks (warning, allow-always offered); deny leaves no marker", { timeout: TURN_TIMEOUT }, async () => {
    const sessionKey = "agent:main:hg-e2e-b";
    const r = await h.turn({ sessionKey, tag: "b", tool: "exec", args: { command: commands.b }, decisions: ["deny"] });
    assert.equal(r.approvals.length, 1, "exactly one approval request");
    const req = r.approvals[0].request;
    assertGateRequest(req, { sessionKey });
    assert.equal(req.severity, "warning");
    assert.deepEqual([...req.allowedDecisions].sort(), ["allow-always", "allow-once", "deny"]);
    assert.equal(r.approvals[0].answer, "deny");
    assert.equal(r.approvals[0].resolveError, undefined, "the gateway accepted the deny");
    assert.equal(exists(h.markerPath("b")), false, "the denied command did not run");
    assert.equal(r.toolResult.isError, true, "the host recorded the call as failed");
    assert.match(r.toolText, /denied/i, "the agent saw a denial");
  });

  test("(c) the same exec with allow-once runs and creates the marker", { timeout: TURN_TIMEOUT }, async () => {
    const sessionKey = "agent:main:hg-e2e-c";
    const r = await h.turn({ sessionKey, tag: "c", tool: "exec", args: { command: commands.c }, decisions: ["allow-once"] });
    assert.equal(r.approvals.length, 1, "exactly one approval request");
    assertGateRequest(r.approvals[0].request, { sessionKey });
    assert.equal(r.approvals[0].request.severity, "warning");
    assert.equal(r.approvals[0].answer, "allow-once");
    assert.equal(r.approvals[0].resolveError, undefined, "the gateway accepted the allow-once");
    assert.equal(exists(h.markerPath("c")), true, "the approved command ran");
    assert.equal(r.toolResult.isError, false, "the host recorded a successful exec");
    assert.doesNotMatch(r.toolText, /denied|blocked/i, "the agent saw a normal result");
  });

  test("(d) a user rule with mode block blocks without asking, reason visible to the agent", { timeout: TURN_TIMEOUT }, async () => {
    const sessionKey = "agent:main:hg-e2e-d";
    const requestsBefore = h.approver.requests.length;
    const r = await h.turn({ sessionKey, tag: "d", tool: "exec", args: { command: commands.d } });
    assert.deepEqual(r.approvals, [], "no approval request for a blocked call");
    assert.equal(h.approver.requests.length, requestsBefore, "no approval request at all during the turn");
    assert.equal(exists(h.markerPath("d")), false, "the blocked command did not run");
    assert.equal(r.toolResult.isError, true, "the host recorded the call as failed");
    assert.ok(r.toolText.includes(BLOCK_REASON), `the agent saw the rule's reason; tool result: ${r.toolText}`);
  });

  test("(e) a critical rule asks with severity critical and no allow-always; allow-once runs it", { timeout: TURN_TIMEOUT }, async () => {
    const sessionKey = "agent:main:hg-e2e-e";
    const r = await h.turn({ sessionKey, tag: "e", tool: "exec", args: { command: commands.e }, decisions: ["allow-once"] });
    assert.equal(r.approvals.length, 1, "exactly one approval request");
    const req = r.approvals[0].request;
    assertGateRequest(req, { sessionKey });
    assert.equal(req.severity, "critical");
    assert.ok(Array.isArray(req.allowedDecisions), "allowedDecisions is sent");
    assert.ok(!req.allowedDecisions.includes("allow-always"), `no allow-always for critical, got ${req.allowedDecisions}`);
    assert.deepEqual([...req.allowedDecisions].sort(), ["allow-once", "deny"]);
    assert.equal(r.approvals[0].answer, "allow-once");
    assert.equal(r.approvals[0].resolveError, undefined, "the gateway accepted the allow-once");
    assert.equal(exists(h.markerPath("e")), true, "the approved critical command ran");
    assert.equal(r.toolResult.isError, false, "the host recorded a successful exec");
  });
});
