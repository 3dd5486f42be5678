// The plugin shim (js-shim/index.js + core.js) against the built pkg/ (the real WASM core),
// driven through a fake OpenClaw `api` that records hooks, tools and log lines.
// Run: node --test tests/js/

import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import Ajv from "ajv";

import plugin, { buildRequest, NOT_INSPECTED_REASON, SEAL_MAX, SEAL_PRIORITY, SEAL_TTL_MS, toHostResult } from "../../js-shim/index.js";
import { __setFaultForTests, decideOrFailClosed, FAULTS, processState } from "../../js-shim/core.js";

const require = createRequire(import.meta.url);
const core = require("../../pkg/openclaw_human_gate.js");
const ROOT = new URL("../../", import.meta.url);
const readJson = (path) => JSON.parse(readFileSync(new URL(path, ROOT), "utf8"));
const ajv = new Ajv({ allErrors: true, strict: false });
const validDecision = ajv.compile(readJson("schemas/decision.schema.json"));

const codePoints = (s) => Array.from(s).length;

/** A fake OpenClaw api recording what the plugin registers and logs. */
function fakeApi(pluginConfig, overrides = {}) {
  const rec = { hooks: [], tools: [], logs: { debug: [], info: [], warn: [], error: [] } };
  const api = {
    id: "human-gate",
    name: "Human Gate",
    registrationMode: "full",
    pluginConfig,
    logger: {
      debug: (m) => rec.logs.debug.push(m),
      info: (m) => rec.logs.info.push(m),
      warn: (m) => rec.logs.warn.push(m),
      error: (m) => rec.logs.error.push(m),
    },
    on(hookName, handler, opts) {
      rec.hooks.push({ hookName, handler, opts });
    },
    registerTool(tool, opts) {
      rec.tools.push({ tool, opts });
    },
    ...overrides,
  };
  return { api, rec };
}

/** Registers the plugin and returns its gate, seal and ask tool. */
function setup(pluginConfig, { module = plugin, overrides } = {}) {
  const { api, rec } = fakeApi(pluginConfig, overrides);
  const ret = module.register(api);
  const hooks = rec.hooks.filter((h) => h.hookName === "before_tool_call");
  const gate = hooks.find((h) => h.opts?.priority === 60)?.handler;
  const seal = hooks.find((h) => h.opts?.priority === SEAL_PRIORITY)?.handler;
  const ask = rec.tools.find((t) => t.tool?.name === "human_gate_ask")?.tool;
  return { api, rec, ret, gate, seal, ask };
}

let callSeq = 0;
/** One host call through both hooks, as the host does it: each hook gets its own copy of the event. */
function call(h, toolName, params, { ctx = {}, event = {} } = {}) {
  const toolCallId = event.toolCallId ?? `call_${++callSeq}`;
  const original = { toolName, params, toolCallId, ...event };
  const gateResult = h.gate(structuredClone(original), { toolName, sessionKey: "agent:main:test", ...ctx });
  return { gateResult, original, toolCallId };
}

function assertFailClosed(result, { toolName = "exec" } = {}) {
  assert.ok(result?.requireApproval, `expected requireApproval, got ${JSON.stringify(result)}`);
  const ra = result.requireApproval;
  assert.equal(ra.severity, "warning");
  assert.deepEqual(ra.allowedDecisions, ["allow-once", "deny"]);
  assert.equal(ra.title, `Human Gate could not evaluate ${toolName}`);
  assert.ok(codePoints(ra.title) <= 80);
  assert.ok(codePoints(ra.description) <= 512);
  assert.match(ra.description, /failed while deciding/);
  assert.equal(typeof ra.onResolution, "function");
}

afterEach(() => {
  __setFaultForTests(null);
});

describe("register", () => {
  test("is synchronous and registers the gate at 60, the sealer lowest, and the optional ask tool", () => {
    const { ret, rec, gate, seal, ask } = setup({});
    assert.equal(ret, undefined, "register must return nothing (a promise makes the host fail)");
    assert.equal(plugin.id, "human-gate");
    assert.equal(plugin.id, readJson("openclaw.plugin.json").id, "export id must match the manifest id");
    const priorities = rec.hooks.map((h) => [h.hookName, h.opts?.priority]);
    assert.deepEqual(priorities, [
      ["before_tool_call", 60],
      ["before_tool_call", -10000],
      ["after_tool_call", 0], // the output guard's observer (js-shim/guard.js)
    ]);
    assert.equal(typeof gate, "function");
    assert.equal(typeof seal, "function");
    assert.deepEqual(rec.tools.map((t) => t.tool.name), ["human_gate_ask", "human_gate_request_capability"]);
    assert.deepEqual(rec.tools[0].opts, { optional: true });
    assert.equal(ask.name, "human_gate_ask");
    assert.equal(ask.parameters.additionalProperties, false);
    assert.deepEqual(ask.parameters.required, ["question"]);
    assert.deepEqual(Object.keys(ask.parameters.properties).sort(), ["allowFreeText", "choices", "context", "question"]);
    assert.ok(readJson("openclaw.plugin.json").contracts.tools.includes("human_gate_ask"));
    assert.equal(rec.logs.error.length, 0, rec.logs.error.join("\n"));
  });

  test("two module instances share one engine, and config errors are logged once per config", async () => {
    const config = { rules: [{ id: "broken", toolName: "exec", mode: "sometimes" }] };
    const first = setup(config);
    const state = processState();
    const engine = state.engine;
    const builds = state.builds;
    assert.ok(engine, "an engine is built at register");
    assert.ok(first.rec.logs.warn.some((m) => m.startsWith("human-gate: config: rules[0].mode")), first.rec.logs.warn.join("\n"));

    const m1 = (await import("../../js-shim/index.js?x=1")).default;
    const m2 = (await import("../../js-shim/index.js?x=2")).default;
    assert.notEqual(m1, plugin, "cache-busting gives a separate module instance");
    const second = setup(config, { module: m1 });
    const third = setup(config, { module: m2 });
    assert.equal(processState().engine, engine, "the process engine is reused");
    assert.equal(processState().builds, builds, "no new engine for the same config and version");
    assert.equal(second.rec.logs.warn.length, 0, "config errors are not logged again");
    assert.equal(third.rec.logs.warn.length, 0);
    // every instance's gate answers through the shared engine
    for (const h of [first, second, third]) {
      assert.equal(call(h, "read", { path: "a.txt" }).gateResult, undefined);
    }
    assert.equal(processState().engine, engine);
    assert.equal(processState().builds, builds);

    // a different config rebuilds once
    setup({ defaultTimeoutMs: 5000 }, { module: m1 });
    assert.equal(processState().builds, builds + 1);
    assert.notEqual(processState().engine, engine);
  });

  test("logs every config error path-qualified plus one fallback line; broken rules never match", () => {
    const config = {
      defaultTimeoutMs: 5,
      rules: [
        { id: "eq", toolName: "read", mode: "block", paramMatcher: { all: [{ key: "path", eq: "x" }] } },
        { id: "dotted", toolName: "read", mode: "block", paramMatcher: { all: [{ key: "a.b", equals: 1 }] } },
      ],
      surprise: true,
    };
    const h = setup(config);
    const expected = JSON.parse(new core.Engine(JSON.stringify(config)).configErrors());
    assert.ok(expected.length >= 4, `the core reports every problem: ${expected.join(" | ")}`);
    const configLines = h.rec.logs.warn.filter((m) => m.startsWith("human-gate: config: "));
    assert.deepEqual(configLines, expected.map((e) => `human-gate: config: ${e}`));
    assert.ok(configLines.some((m) => m.includes("rules[0].paramMatcher")), configLines.join("\n"));
    assert.ok(configLines.some((m) => m.includes("defaultTimeoutMs")), configLines.join("\n"));
    assert.ok(h.rec.logs.warn.some((m) => /fall back to the safe defaults/.test(m)));
    // the broken block rules never match; defaultTimeoutMs fell back to 120000
    assert.equal(call(h, "read", { path: "x" }).gateResult, undefined);
    assert.equal(call(h, "exec", { command: "ls" }).gateResult.requireApproval.timeoutMs, 120000);
  });

  test("survives odd hosts: no logger, no registerTool, throwing api.on and logger", () => {
    assert.doesNotThrow(() => plugin.register({}));
    assert.doesNotThrow(() => plugin.register(undefined));
    assert.doesNotThrow(() => plugin.register({ on: () => { throw new Error("host refuses"); }, logger: {} }));
    const throwingLogger = { info() { throw new Error("x"); }, warn() { throw new Error("x"); }, error() { throw new Error("x"); } };
    const h = setup({ rules: [{ id: "bad", mode: "nope" }] }, { overrides: { logger: throwingLogger, registerTool: undefined } });
    assert.equal(h.ask, undefined);
    assert.equal(typeof h.gate, "function");
    assert.equal(call(h, "exec", { command: "ls" }).gateResult.requireApproval.severity, "warning");
  });
});

describe("decision → host mapping", () => {
  test("a read tool passes: the gate returns undefined", () => {
    const h = setup({});
    const { gateResult, original, toolCallId } = call(h, "read", { path: "README.md" });
    assert.equal(gateResult, undefined);
    assert.deepEqual(h.seal(structuredClone(original), { toolCallId }), { params: { path: "README.md" } });
  });

  test("exec asks with allow-always, warning, timeout and a bounded preview", () => {
    const h = setup({});
    const { gateResult } = call(h, "exec", { command: "ls -la" });
    const ra = gateResult.requireApproval;
    assert.deepEqual(ra.allowedDecisions, ["allow-once", "allow-always", "deny"]);
    assert.equal(ra.severity, "warning");
    assert.equal(ra.timeoutMs, 120000);
    assert.match(ra.title, /exec/);
    assert.match(ra.description, /ls -la/);
    assert.equal(typeof ra.onResolution, "function");
    assert.deepEqual(Object.keys(gateResult), ["requireApproval"]);
  });

  test("a critical rule asks without allow-always", () => {
    const h = setup({ rules: [{ id: "r1", toolName: "exec", mode: "require-approval", severity: "critical" }] });
    const ra = call(h, "exec", { command: "ls" }).gateResult.requireApproval;
    assert.equal(ra.severity, "critical");
    assert.ok(!ra.allowedDecisions.includes("allow-always"), ra.allowedDecisions.join());
    assert.ok(ra.allowedDecisions.includes("deny"));
    assert.ok(ra.allowedDecisions.includes("allow-once"));
  });

  test("a block rule blocks with its reason", () => {
    const reason = "deploys need the release train";
    const h = setup({ rules: [{ id: "no-deploy", toolName: "deploy", mode: "block", reason }] });
    const result = call(h, "deploy", { target: "prod" }).gateResult;
    assert.equal(result.block, true);
    assert.ok(result.blockReason.includes(reason), result.blockReason);
    assert.equal(result.requireApproval, undefined);
  });

  test("toolKind comes from the event or the ctx; wrong types are left out of the request", () => {
    const h = setup({ rules: [{ id: "code", toolKind: "code_mode_exec", mode: "block", reason: "no code mode here" }] });
    const viaCtx = call(h, "run_code", { code: "1" }, { ctx: { toolKind: "code_mode_exec" } }).gateResult;
    assert.equal(viaCtx.block, true);
    assert.match(viaCtx.blockReason, /no code mode here/);
    const viaEvent = call(h, "run_code", { code: "1" }, { event: { toolKind: "code_mode_exec" } }).gateResult;
    assert.equal(viaEvent.block, true);

    const req = buildRequest(
      { toolName: "exec", params: {}, toolKind: 7, toolInputKind: "javascript", derivedPaths: ["a", 1], runId: "r" },
      { toolKind: "code_mode_exec", sessionKey: "agent:main:x", toolCallId: "c" },
      { command: "ls" },
      1764400000000,
    );
    assert.deepEqual(req, {
      toolName: "exec",
      params: { command: "ls" },
      toolInputKind: "javascript",
      sessionKey: "agent:main:x",
      nowMs: 1764400000000,
    });
    const withPaths = buildRequest({ toolName: "apply_patch", derivedPaths: ["a.txt", "b/c.txt"] }, {}, {});
    assert.deepEqual(withPaths.derivedPaths, ["a.txt", "b/c.txt"]);
    assert.ok(Number.isInteger(withPaths.nowMs) && Math.abs(withPaths.nowMs - Date.now()) < 60000);
  });

  test("a malformed host event (no toolName, no params, null ctx) asks; the gate never throws", () => {
    const h = setup({});
    for (const [event, ctx] of [[null, null], [{}, undefined], [{ toolName: 5, params: [] }, {}], [{ toolName: "read", params: "x" }, {}]]) {
      const result = h.gate(event, ctx);
      assert.ok(result?.requireApproval, JSON.stringify(result));
      assert.ok(!result.requireApproval.allowedDecisions.includes("allow-always"), "malformed input is never reusable");
    }
  });

  test("title ≤ 80 and description ≤ 512 code points even for huge params", () => {
    const config = { rules: [{ id: "crit", toolName: "write_file", mode: "require-approval", severity: "critical" }] };
    const h = setup(config);
    const rawEngine = new core.Engine(JSON.stringify(config));
    const bidi = "\u202e\u2066";
    const huge = `${"😀".repeat(50000)}${bidi}\u001b[31m${"x".repeat(300000)}\n${"é".repeat(10000)}`;
    const cases = [
      ["exec", { command: huge }],
      ["write_file", { path: huge, content: huge }],
      [`tool_${"😀".repeat(5000)}`, { a: huge }],
    ];
    for (const [toolName, params] of cases) {
      const ra = call(h, toolName, params).gateResult.requireApproval;
      assert.ok(ra, toolName.slice(0, 20));
      assert.ok(codePoints(ra.title) <= 80, `title ${codePoints(ra.title)}`);
      assert.ok(codePoints(ra.description) <= 512, `description ${codePoints(ra.description)}`);
      // the core itself bounds them (the shim's own bounding is only a backstop)
      const raw = JSON.parse(rawEngine.decide(JSON.stringify({ toolName, params })));
      assert.ok(codePoints(raw.preview.title) <= 80 && codePoints(raw.preview.description) <= 512);
      assert.equal(raw.preview.title, ra.title);
      assert.equal(raw.preview.description, ra.description);
    }
  });

  test("the mapping table itself: critical never offers allow-always, whatever it is handed", () => {
    const log = { info() {}, warn() {}, error() {}, debug() {} };
    const base = { severity: "warning", reason: "why", preview: { title: "t", description: "d" }, timeoutMs: 30000 };
    assert.equal(toHostResult({ ...base, decision: "auto" }, "x", log), undefined);
    assert.deepEqual(toHostResult({ ...base, decision: "block" }, "x", log), { block: true, blockReason: "why" });
    const approval = toHostResult({ ...base, decision: "approval", allowedDecisions: ["allow-once", "allow-always", "deny"] }, "x", log).requireApproval;
    assert.deepEqual(
      { ...approval, onResolution: typeof approval.onResolution },
      { title: "t", description: "d", severity: "warning", timeoutMs: 30000, allowedDecisions: ["allow-once", "allow-always", "deny"], onResolution: "function" },
    );
    const critical = toHostResult({ ...base, decision: "critical", allowedDecisions: ["allow-once", "allow-always", "deny"] }, "x", log).requireApproval;
    assert.equal(critical.severity, "critical");
    assert.deepEqual(critical.allowedDecisions, ["allow-once", "deny"]);
    assert.throws(() => toHostResult({ ...base, decision: "maybe" }, "x", log), /unknown decision/);
  });

  test("onResolution logs and never throws", () => {
    const h = setup({});
    const ra = call(h, "exec", { command: "ls" }).gateResult.requireApproval;
    for (const d of ["allow-once", "allow-always", "deny", "timeout", "cancelled", undefined, { weird: true }]) {
      assert.equal(ra.onResolution(d), undefined);
    }
    assert.ok(h.rec.logs.info.some((m) => /resolved: allow-once/.test(m)), h.rec.logs.info.join("\n"));
    const quiet = setup({}, { overrides: { logger: { info() { throw new Error("log down"); } } } });
    const ra2 = call(quiet, "exec", { command: "ls" }).gateResult.requireApproval;
    assert.doesNotThrow(() => ra2.onResolution("deny"));
  });
});

describe("parameter sealing", () => {
  test("restores the inspected params after a later in-place mutation or rewrite", () => {
    const h = setup({});
    const params = { command: "ls", options: { cwd: "/tmp", env: ["A=1"] } };
    const { gateResult, original, toolCallId } = call(h, "exec", params);
    assert.ok(gateResult.requireApproval);
    // Another plugin (or the host) mutates the original event in place after the gate looked.
    original.params.command = "rm -rf ~";
    original.params.options.cwd = "/";
    original.params.options.env.push("EVIL=1");
    const sealed = h.seal(structuredClone(original), { toolCallId });
    assert.deepEqual(sealed, { params: { command: "ls", options: { cwd: "/tmp", env: ["A=1"] } } });
    // consumed: the same call id is not sealed twice
    assert.deepEqual(h.seal(structuredClone(original), { toolCallId }), { block: true, blockReason: NOT_INSPECTED_REASON });
  });

  test("the sealed params are a fresh copy, not shared with the gate's view", () => {
    const h = setup({});
    const event = { toolName: "read", params: { path: "a" }, toolCallId: "fresh-1" };
    assert.equal(h.gate(event, {}), undefined);
    event.params.path = "b"; // mutating the very object the gate saw
    const sealed = h.seal({ toolName: "read", params: { path: "b" }, toolCallId: "fresh-1" }, {});
    assert.deepEqual(sealed.params, { path: "a" });
    assert.notEqual(sealed.params, event.params);
  });

  test("blocks a call the gate never saw", () => {
    const h = setup({});
    const result = h.seal({ toolName: "exec", params: { command: "ls" }, toolCallId: "never-seen" }, { toolName: "exec" });
    assert.deepEqual(result, { block: true, blockReason: NOT_INSPECTED_REASON });
    assert.deepEqual(h.seal(null, undefined), { block: true, blockReason: NOT_INSPECTED_REASON });
  });

  test("without a toolCallId the (run, session, tool) key is used; ambiguous matches are blocked", () => {
    const h = setup({});
    const ctx = { runId: "run-1", sessionKey: "agent:main:s", toolName: "exec" };
    const a = { toolName: "exec", params: { command: "echo a" } };
    const b = { toolName: "exec", params: { command: "echo b" } };
    assert.ok(h.gate(structuredClone(a), ctx).requireApproval);
    assert.ok(h.gate(structuredClone(b), ctx).requireApproval);
    // two pending calls under one key: each is matched by its exact params
    assert.deepEqual(h.seal(structuredClone(b), ctx), { params: b.params });
    assert.deepEqual(h.seal(structuredClone(a), ctx), { params: a.params });
    // with two pending and a mutated copy, nothing proves which call this is
    h.gate(structuredClone(a), ctx);
    h.gate(structuredClone(b), ctx);
    assert.deepEqual(h.seal({ toolName: "exec", params: { command: "rm -rf ~" } }, ctx), { block: true, blockReason: NOT_INSPECTED_REASON });
    // a single pending call under a key is restored even when mutated
    const c2 = { runId: "run-2", sessionKey: "agent:main:s", toolName: "exec" };
    h.gate(structuredClone(a), c2);
    assert.deepEqual(h.seal({ toolName: "exec", params: { command: "rm -rf ~" } }, c2), { params: a.params });
  });

  test("fallback keys of different runs or sessions never collide, whatever their ids hold", () => {
    const h = setup({});
    const a = { toolName: "exec", params: { command: "echo a" } };
    const b = { toolName: "exec", params: { command: "echo b" } };
    // Joined with "|" these two would be one key ("r|x|s|exec").
    const c1 = { runId: "r|x", sessionKey: "s", toolName: "exec" };
    const c2 = { runId: "r", sessionKey: "x|s", toolName: "exec" };
    assert.ok(h.gate(structuredClone(a), c1).requireApproval);
    assert.ok(h.gate(structuredClone(b), c2).requireApproval);
    // Each key holds one pending call, so a mutated copy still gets its own inspected params
    // (one shared key would hold two and block the mutated copy as ambiguous).
    assert.deepEqual(h.seal({ toolName: "exec", params: { command: "rm -rf ~" } }, c2), { params: b.params });
    assert.deepEqual(h.seal({ toolName: "exec", params: { command: "rm -rf ~" } }, c1), { params: a.params });
  });

  test("the snapshot store is bounded (1024, oldest evicted) and forgets entries after 10 minutes", () => {
    const h = setup({});
    assert.equal(SEAL_MAX, 1024);
    assert.equal(SEAL_TTL_MS, 10 * 60 * 1000);
    const seals = processState().seals;
    seals.clear();
    for (let i = 0; i < SEAL_MAX + 100; i += 1) h.gate({ toolName: "read", params: { i }, toolCallId: `bulk-${i}` }, {});
    assert.equal(seals.size, SEAL_MAX);
    assert.deepEqual(h.seal({ toolName: "read", params: { i: 0 }, toolCallId: "bulk-0" }, {}), { block: true, blockReason: NOT_INSPECTED_REASON });
    assert.deepEqual(h.seal({ toolName: "read", params: { i: SEAL_MAX + 99 }, toolCallId: `bulk-${SEAL_MAX + 99}` }, {}), { params: { i: SEAL_MAX + 99 } });
    seals.clear();

    const realNow = Date.now;
    try {
      let now = realNow();
      Date.now = () => now;
      h.gate({ toolName: "read", params: { p: 1 }, toolCallId: "old-1" }, {});
      h.gate({ toolName: "read", params: { p: 2 }, toolCallId: "old-2" }, {});
      now += SEAL_TTL_MS - 1000;
      assert.deepEqual(h.seal({ toolName: "read", params: { p: 1 }, toolCallId: "old-1" }, {}), { params: { p: 1 } });
      now += 2000;
      assert.deepEqual(h.seal({ toolName: "read", params: { p: 2 }, toolCallId: "old-2" }, {}), { block: true, blockReason: NOT_INSPECTED_REASON });
      assert.equal(seals.size, 0);
    } finally {
      Date.now = realNow;
    }
  });

  test("params that cannot be snapshotted are blocked (fail closed)", () => {
    const h = setup({});
    const result = h.gate({ toolName: "exec", params: { command: "ls", cb: () => 1 }, toolCallId: "fn-1" }, {});
    assert.equal(result.block, true);
    assert.match(result.blockReason, /cannot be snapshotted/);
    assert.ok(h.rec.logs.error.some((m) => /cannot be snapshotted/.test(m)));
  });

  test("params JSON cannot carry (BigInt, cycles) fail closed to an approval, and stay sealed", () => {
    const h = setup({});
    const big = h.gate({ toolName: "read", params: { n: 10n }, toolCallId: "big-1" }, {});
    assertFailClosed(big, { toolName: "read" });
    assert.match(big.requireApproval.description, /BigInt/);
    assert.deepEqual(h.seal({ toolName: "read", params: { n: 11n }, toolCallId: "big-1" }, {}), { params: { n: 10n } });

    const cyclic = { command: "ls" };
    cyclic.self = cyclic;
    const cyc = h.gate({ toolName: "exec", params: cyclic, toolCallId: "cyc-1" }, {});
    assertFailClosed(cyc);
    const sealed = h.seal({ toolName: "exec", params: { command: "rm" }, toolCallId: "cyc-1" }, {});
    assert.equal(sealed.params.command, "ls");
    assert.equal(sealed.params.self, sealed.params);
    assert.ok(h.rec.logs.error.length >= 2);
  });
});

describe("fail closed on injected faults", () => {
  test("HUMAN_GATE_FAULT names are the documented ones", () => {
    assert.deepEqual([...FAULTS].sort(), ["bad-decision", "bad-json", "decide-throw", "decide-trap", "load-fail"]);
    assert.throws(() => __setFaultForTests("nope"), /unknown fault/);
  });

  for (const fault of ["decide-throw", "decide-trap", "bad-json", "bad-decision", "load-fail"]) {
    test(`${fault} → approval [allow-once, deny], non-reusable, with the reason, logged`, () => {
      const h = setup({});
      __setFaultForTests(fault);
      // even a call the policy would pass must not pass when the gate cannot decide
      for (const [toolName, params] of [["exec", { command: "ls" }], ["read", { path: "a" }]]) {
        const { gateResult, original, toolCallId } = call(h, toolName, params);
        assertFailClosed(gateResult, { toolName });
        assert.match(gateResult.requireApproval.description, new RegExp(fault === "bad-decision" ? "unknown decision" : fault === "bad-json" ? "not JSON" : fault));
        // the human approves exactly what was inspected: still sealed
        assert.deepEqual(h.seal(structuredClone(original), { toolCallId }), { params });
      }
      assert.ok(h.rec.logs.error.some((m) => m.startsWith("human-gate: could not evaluate exec")), h.rec.logs.error.join("\n"));
      const { decision, error } = decideOrFailClosed("{}", JSON.stringify({ toolName: "read", params: {} }), "read");
      assert.ok(error instanceof Error);
      assert.equal(decision.reusable, false);
      assert.equal(decision.source, "fail-closed");
      assert.deepEqual(decision.findings.map((f) => f.id), ["internal-error"]);
      assert.ok(validDecision(decision), JSON.stringify(validDecision.errors));
    });
  }

  test("the exact-call key is keyed by one per-process secret from node:crypto, never logged", () => {
    const first = setup({ defaultTimeoutMs: 7001 });
    const state = processState();
    const secret = state.keySecret;
    assert.match(secret, /^[0-9a-f]{32}$/);
    const engine = state.engine;
    setup({ defaultTimeoutMs: 7002 });
    assert.notEqual(state.engine, engine, "a new config builds a new engine");
    assert.equal(state.keySecret, secret, "with the same secret");
    const logs = Object.values(first.rec.logs).flat().join("\n");
    assert.ok(!logs.includes(secret));
    // Another process draws another secret.
    const other = spawnSync(process.execPath, ["--input-type=module", "-e",
      `import { acquireEngine, processState } from ${JSON.stringify(new URL("js-shim/core.js", ROOT).href)}; acquireEngine("{}"); process.stdout.write(processState().keySecret);`], { encoding: "utf8" });
    assert.equal(other.status, 0, other.stderr);
    assert.match(other.stdout, /^[0-9a-f]{32}$/);
    assert.notEqual(other.stdout, secret);
  });

  test("the core refuses a malformed secret with a clear error, and the shim then fails closed", () => {
    assert.ok(new core.Engine("{}"), "no secret: the SHA-256 fallback");
    assert.ok(new core.Engine("{}", "8f3a2b1c4d5e6f708192a3b4c5d6e7f8"));
    for (const [bad, why] of [
      ["", /key secret: expected 32 hexadecimal digits \(a 128-bit secret\), got 0 characters/],
      ["8f3a2b1c4d5e6f70", /got 16 characters/],
      ["8f3a2b1c4d5e6f708192a3b4c5d6e7fz", /key secret: expected only hexadecimal digits .*character 32/],
      ["0".repeat(32), /key secret: all zeros is not a secret/],
    ]) {
      assert.throws(() => new core.Engine("{}", bad), (err) => err instanceof Error && why.test(err.message) && (bad === "" || !err.message.includes(bad)));
    }
    const state = processState();
    const secret = state.keySecret;
    const bad = "not-a-secret-but-it-could-be-one";
    try {
      state.keySecret = bad;
      const h = setup({ defaultTimeoutMs: 7003 });
      const { gateResult } = call(h, "read", { path: "a.txt" });
      assertFailClosed(gateResult, { toolName: "read" });
      assert.match(gateResult.requireApproval.description, /key secret: expected only hexadecimal digits/);
      const logs = Object.values(h.rec.logs).flat();
      assert.ok(logs.some((m) => /failed to load \(Error: key secret: /.test(m)), logs.join("\n"));
      assert.ok(!logs.join("\n").includes(bad));
      const { decision, error } = decideOrFailClosed(JSON.stringify({ defaultTimeoutMs: 7003 }), JSON.stringify({ toolName: "read", params: {} }), "read");
      assert.ok(error instanceof Error);
      assert.equal(decision.source, "fail-closed");
    } finally {
      state.keySecret = secret;
    }
    const h = setup({ defaultTimeoutMs: 7003 });
    assert.equal(call(h, "read", { path: "a.txt" }).gateResult, undefined, "a good secret recovers");
  });

  test("a trap poisons the engine: it is dropped and a fresh one answers the next call", () => {
    const h = setup({ rules: [{ id: "r1", toolName: "exec", mode: "require-approval", severity: "critical" }] });
    const state = processState();
    const engine = state.engine;
    const builds = state.builds;
    const traps = state.traps;
    __setFaultForTests("decide-trap");
    assertFailClosed(call(h, "exec", { command: "ls" }).gateResult);
    assert.equal(state.traps, traps + 1);
    assert.equal(state.engine, null, "the poisoned engine is dropped at once");
    __setFaultForTests(null);
    const ra = call(h, "exec", { command: "ls" }).gateResult.requireApproval;
    assert.equal(ra.severity, "critical", "the rebuilt engine has the same config");
    assert.equal(state.builds, builds + 1);
    assert.notEqual(state.engine, engine);
    assert.equal(call(h, "read", { path: "a" }).gateResult, undefined);
  });

  test("a plain exception does not rebuild the engine", () => {
    const h = setup({});
    const state = processState();
    const engine = state.engine;
    __setFaultForTests("decide-throw");
    assertFailClosed(call(h, "exec", { command: "ls" }).gateResult);
    __setFaultForTests(null);
    call(h, "exec", { command: "ls" });
    assert.equal(state.engine, engine);
  });

  test("if the core cannot load at register, the gate still registers and asks for every call; it recovers", () => {
    __setFaultForTests("load-fail");
    const h = setup({ defaultTimeoutMs: 9000 });
    assert.equal(h.ret, undefined);
    assert.ok(h.rec.logs.error.some((m) => /failed to load/.test(m)), h.rec.logs.error.join("\n"));
    assert.equal(typeof h.gate, "function");
    assert.equal(typeof h.seal, "function");
    assertFailClosed(call(h, "read", { path: "a" }).gateResult, { toolName: "read" });
    __setFaultForTests(null);
    assert.equal(call(h, "read", { path: "a" }).gateResult, undefined);
    assert.equal(call(h, "exec", { command: "ls" }).gateResult.requireApproval.timeoutMs, 9000);
  });

  test("HUMAN_GATE_FAULT in the environment works too (set before the process starts)", () => {
    const script = `
      import plugin from ${JSON.stringify(new URL("js-shim/index.js", ROOT).href)};
      const hooks = [];
      plugin.register({ pluginConfig: {}, logger: {}, on: (name, handler, opts) => hooks.push({ name, handler, opts }) });
      const gate = hooks.find((h) => h.name === "before_tool_call" && h.opts.priority === 60).handler;
      const r = gate({ toolName: "exec", params: { command: "ls" }, toolCallId: "env-1" }, { sessionKey: "agent:main:env" });
      process.stdout.write(JSON.stringify({ ...r.requireApproval, onResolution: typeof r.requireApproval.onResolution }));
    `;
    const run = (env) => {
      const childEnv = { ...process.env, ...env };
      if (env.HUMAN_GATE_FAULT === undefined) delete childEnv.HUMAN_GATE_FAULT;
      const out = spawnSync(process.execPath, ["--input-type=module", "-e", script], { env: childEnv, encoding: "utf8" });
      assert.equal(out.status, 0, out.stderr);
      return JSON.parse(out.stdout);
    };
    for (const fault of ["bad-json", "decide-trap", "load-fail"]) {
      const ra = run({ HUMAN_GATE_FAULT: fault });
      assertFailClosed({ requireApproval: { ...ra, onResolution: () => {} } });
    }
    assert.ok(run({ HUMAN_GATE_FAULT: undefined }).allowedDecisions.includes("allow-always"));
  });

  test("HUMAN_GATE_FAULT set in-process takes effect when an engine is built, not per decision", () => {
    const h = setup({});
    process.env.HUMAN_GATE_FAULT = "bad-json";
    try {
      assert.ok(call(h, "exec", { command: "ls" }).gateResult.requireApproval.allowedDecisions.includes("allow-always"), "not read per decision");
      const faulty = setup({ defaultTimeoutMs: 7000 }); // another config: a new engine reads it
      assertFailClosed(call(faulty, "exec", { command: "ls" }).gateResult);
    } finally {
      delete process.env.HUMAN_GATE_FAULT;
    }
    const healthy = setup({ defaultTimeoutMs: 8000 });
    assert.ok(call(healthy, "exec", { command: "ls" }).gateResult.requireApproval.allowedDecisions.includes("allow-always"));
  });
});

describe("human_gate_ask", () => {
  test("renders the question into {content, details}", async () => {
    const { ask } = setup({});
    const out = await ask.execute("call-ask-1", { question: "Deploy to staging now?", choices: ["yes", "no"], context: "release 1.2" });
    assert.equal(out.content.length, 1);
    assert.equal(out.content[0].type, "text");
    assert.match(out.content[0].text, /Deploy to staging now\?/);
    assert.match(out.content[0].text, /yes/);
    assert.equal(typeof out.details, "object");
    assert.ok(out.details !== null);
  });

  test("bad params make execute throw (the host reports a failed tool)", async () => {
    const { ask } = setup({});
    await assert.rejects(ask.execute("call-ask-2", {}), (err) => err instanceof Error && /human_gate_ask/.test(err.message));
    await assert.rejects(ask.execute("call-ask-3", { question: "" }), Error);
    await assert.rejects(ask.execute("call-ask-4", { question: "q", extra: 1 }), Error);
  });
});
