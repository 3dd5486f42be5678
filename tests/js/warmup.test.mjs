// The idle-time warm-up of the core (js-shim/warmup.js): it decides its whole call set for real
// (no fail-closed answers, every class the set is meant to reach), on a throwaway engine that
// leaves the live engine, the decision log and the host's log alone; at most one run per loaded
// core; it ends when the core is reloaded or traps; it never keeps a process alive; and
// HUMAN_GATE_WARMUP=off turns it off.
// Run: node --test tests/js/

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

import plugin, { NOT_INSPECTED_REASON, requestJsonOf, warmHooks } from "../../js-shim/index.js";
import { acquireEngine, poison, processState } from "../../js-shim/core.js";
import { decisionLogEntries } from "../../js-shim/audit.js";
import { startWarmup, WARMUP_CALLS, WARMUP_CPU_MS, WARMUP_DECISIONS } from "../../js-shim/warmup.js";

const require = createRequire(import.meta.url);
const core = require("../../pkg/openclaw_human_gate.js");
const SHIM = new URL("../../js-shim/index.js", import.meta.url).href;
const CORE_JS = new URL("../../js-shim/core.js", import.meta.url).href;

function fakeApi(pluginConfig) {
  const logs = [];
  const hooks = [];
  const api = {
    id: "human-gate",
    name: "Human Gate",
    registrationMode: "full",
    pluginConfig,
    logger: Object.fromEntries(["debug", "info", "warn", "error"].map((l) => [l, (m) => logs.push([l, m])])),
    on: (hookName, handler, opts) => hooks.push({ hookName, handler, opts }),
    registerTool() {},
  };
  return { api, logs, hooks };
}

/** Awaits `promise` while keeping the process alive (the warm-up's timers are unref'd). */
async function keptAlive(promise) {
  const timer = setInterval(() => {}, 1 << 30);
  try {
    return await promise;
  } finally {
    clearInterval(timer);
  }
}

const requestOf = (event, ctx, i) =>
  requestJsonOf(event, ctx, JSON.stringify(event.params), 1_700_000_000_000, { callId: `t:${i}`, sessionId: ctx.sessionId, runId: event.runId });

/** Runs `source` (an ES module) in a fresh Node process; returns its stdout. */
function child(source, env = {}) {
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", source], {
    encoding: "utf8",
    env: { ...process.env, HUMAN_GATE_FAULT: "", ...env },
    timeout: 60_000,
  });
  assert.equal(r.status, 0, `child failed: ${r.stderr}`);
  return r.stdout.trim();
}

describe("core warm-up", () => {
  test("every warm-up call gets a real decision, and the set reaches auto, approval and critical", () => {
    const engine = new core.Engine("{}");
    const classes = new Set();
    WARMUP_CALLS.forEach(([toolName, params, extra], i) => {
      const event = { toolName, params, runId: "r", ...extra };
      const ctx = { toolName, sessionKey: "agent:t:main", sessionId: "s", ...extra };
      const d = JSON.parse(engine.decide(requestOf(event, ctx, i)));
      assert.doesNotMatch(`${d.title ?? ""} ${d.reason ?? ""}`, /could not evaluate|fail(ed)? closed|invalid request/i, `${toolName} #${i}`);
      classes.add(d.decision);
    });
    engine.free();
    for (const cls of ["auto", "approval", "critical"]) assert.ok(classes.has(cls), `no ${cls} decision in the set`);
  });

  test("a run decides on a throwaway engine: the live engine, the decision log and the host log are untouched", async () => {
    const config = { decisionLog: { maxEntries: 64 } };
    const { api, logs } = fakeApi(config);
    plugin.register(api);
    const state = processState();
    const run = state.warmup;
    assert.ok(run && run.status !== "off", "register started no warm-up");
    const { engine, builds } = state;
    const logsBefore = logs.length;
    const done = await keptAlive(run.done);
    assert.equal(done, run);
    assert.equal(run.status, "done", String(run.error));
    assert.ok(run.decisions === WARMUP_DECISIONS || run.cpuMs >= WARMUP_CPU_MS, `stopped early: ${run.decisions}`);
    assert.ok(run.decisions > 0);
    // Every class, the block path included (an unattended critical call), runs the hooks' code.
    for (const cls of ["auto", "approval", "critical", "block"]) assert.ok(run.classes[cls] > 0, `no ${cls} decision in the run`);
    assert.equal(state.engine, engine, "the live engine was replaced");
    // The live engine holds no pending approval of a warm-up call; an engine that decided the
    // same request does (the probe works).
    const i = WARMUP_CALLS.findIndex(([, p]) => p.command === "ls -la");
    const probe = (e) => JSON.parse(e.resolve(JSON.stringify({ sessionKey: "agent:human-gate-warmup:main", sessionId: "human-gate-warmup", callId: `human-gate-warmup:${i}`, resolution: "deny", nowMs: Date.now() })));
    assert.match(probe(engine).error ?? "", /no pending approval/);
    const control = new core.Engine(JSON.stringify(config));
    const [toolName, params] = WARMUP_CALLS[i];
    control.decide(requestJsonOf({ toolName, params, runId: "human-gate-warmup" }, { toolName, sessionKey: "agent:human-gate-warmup:main", sessionId: "human-gate-warmup" }, JSON.stringify(params), Date.now(), { callId: `human-gate-warmup:${i}`, sessionId: "human-gate-warmup", runId: "human-gate-warmup" }));
    assert.equal(probe(control).ok, true);
    control.free();
    assert.equal(state.builds, builds);
    assert.equal(logs.length, logsBefore, `the warm-up logged: ${JSON.stringify(logs.slice(logsBefore))}`);
    assert.deepEqual(decisionLogEntries(JSON.stringify(config)), []);
    assert.deepEqual([...state.seals.keys()].filter((k) => k.includes("human-gate-warmup")), [], "a warm-up snapshot reached the live seal store");
    // At most one run per loaded core: registering again, or asking again, returns it.
    plugin.register(fakeApi(config).api);
    assert.equal(processState().warmup, run);
    assert.equal(startWarmup("{}", requestOf), run);
  });

  test("the warm-up hooks answer as the live hooks do, on their own engine, seal store and no log", () => {
    const config = { decisionLog: { maxEntries: 64 } };
    const configJson = JSON.stringify(config);
    const { api, hooks, logs } = fakeApi(config);
    plugin.register(api);
    const state = processState();
    const liveGate = hooks.find((h) => h.hookName === "before_tool_call" && h.opts.priority === 60).handler;
    const liveSeal = hooks.find((h) => h.hookName === "before_tool_call" && h.opts.priority < 0).handler;
    const engine = new state.core.Engine(configJson);
    const warm = warmHooks(configJson, engine);
    const seen = new Set();
    const logsBefore = logs.length;
    const recordsBefore = decisionLogEntries(configJson).length;
    WARMUP_CALLS.forEach(([toolName, params, extra], i) => {
      const call = (tag) => ({
        event: { toolName, params, runId: "r", toolCallId: `${tag}:${i}`, ...extra },
        ctx: { toolName, sessionKey: `agent:${tag}:main`, sessionId: tag, runId: "r", toolCallId: `${tag}:${i}`, ...extra },
      });
      const w = call("warm-test");
      const l = call("live-test");
      const warmResult = warm.gate(w.event, w.ctx);
      const { decision, error } = warm.outcome();
      assert.equal(error, null, `${toolName} #${i}`);
      seen.add(decision);
      const liveResult = liveGate(l.event, l.ctx);
      // The same host answer (the approval callback is a fresh closure each time).
      const shape = (r) => (r?.requireApproval ? { ...r.requireApproval, onResolution: typeof r.requireApproval.onResolution } : r);
      assert.deepEqual(shape(warmResult), shape(liveResult), `${toolName} #${i}`);
      assert.equal(decision === "auto", warmResult === undefined, `${toolName} #${i}: ${decision}`);
      if (!warmResult?.block) {
        assert.deepEqual(warm.seal(w.event, w.ctx), liveSeal(l.event, l.ctx), `${toolName} #${i}`);
        // Each snapshot is the warm-up store's own: the live seal hook never finds one.
        assert.equal(liveSeal(w.event, w.ctx)?.blockReason, NOT_INSPECTED_REASON);
      }
    });
    engine.free();
    for (const cls of ["auto", "approval", "critical", "block"]) assert.ok(seen.has(cls), `no ${cls} decision`);
    // Only the live calls were logged as decisions; the warm-up wrote no log line of its own
    // (the live sealing hook's warning for the probes above is the only kind expected).
    assert.equal(decisionLogEntries(configJson).length, Math.min(64, recordsBefore + WARMUP_CALLS.length));
    assert.ok(logs.slice(logsBefore).every(([, m]) => /reached the sealing hook without a snapshot/.test(m)), JSON.stringify(logs.slice(logsBefore)));
  });

  test("a warm-up never builds or replaces the live engine, even when the live config has moved on", async () => {
    const state = processState();
    poison(state); // a fresh core, so a fresh run
    plugin.register(fakeApi({ defaultTimeoutMs: 61000 }).api);
    const run = state.warmup;
    assert.equal(run.status, "running");
    // The host reloads the plugin with another config before the run ends: the live engine
    // is now that config's.
    const { engine: live } = acquireEngine(JSON.stringify({ defaultTimeoutMs: 62000 }));
    const builds = state.builds;
    const done = await keptAlive(run.done);
    assert.equal(done.status, "done", String(done.error));
    assert.equal(state.engine, live, "the warm-up replaced the live engine");
    assert.equal(state.builds, builds, "the warm-up built an engine");
  });

  test("a reloaded core ends the run (superseded), and the new core gets its own", async () => {
    let state = processState();
    poison(state); // as a trap in a live call does: the next call loads a fresh instance
    plugin.register(fakeApi({}).api); // a fresh core, and a run for it
    const first = state.warmup;
    assert.equal(first.status, "running");
    assert.equal(first.core, state.core);
    poison(state); // before its first slice
    const ended = await keptAlive(first.done);
    assert.equal(ended.status, "superseded");
    plugin.register(fakeApi({}).api);
    state = processState();
    assert.notEqual(state.warmup, first);
    assert.equal(state.warmup.core, state.core);
    assert.equal((await keptAlive(state.warmup.done)).status, "done");
  });

  test("a trap inside the warm-up poisons the instance (the live engine is rebuilt on the next call)", async () => {
    const { api } = fakeApi({});
    const state = processState();
    poison(state);
    plugin.register(api); // a fresh core and run
    const run = state.warmup;
    const Engine = state.core.Engine;
    const original = Engine.prototype.decideForHook;
    Engine.prototype.decideForHook = function () {
      throw new WebAssembly.RuntimeError("unreachable (test)");
    };
    try {
      const traps = state.traps;
      const ended = await keptAlive(run.done);
      assert.equal(ended.status, "failed");
      assert.ok(ended.error instanceof WebAssembly.RuntimeError);
      assert.equal(state.traps, traps + 1);
      assert.equal(state.core, null);
      assert.equal(state.engine, null);
    } finally {
      Engine.prototype.decideForHook = original;
    }
  });

  test("HUMAN_GATE_WARMUP=off turns it off", () => {
    const out = child(
      `import plugin from ${JSON.stringify(SHIM)}; import { processState } from ${JSON.stringify(CORE_JS)};
       plugin.register({ pluginConfig: {}, logger: { debug() {}, info() {}, warn() {}, error() {} }, on() {}, registerTool() {} });
       const w = processState().warmup; console.log(JSON.stringify({ status: w.status, decisions: w.decisions }));`,
      { HUMAN_GATE_WARMUP: "off" },
    );
    assert.deepEqual(JSON.parse(out), { status: "off", decisions: 0 });
  });

  test("it never keeps a process alive: a process that only registers exits before the run ends", () => {
    const out = child(
      `import plugin from ${JSON.stringify(SHIM)}; import { processState } from ${JSON.stringify(CORE_JS)};
       plugin.register({ pluginConfig: {}, logger: { debug() {}, info() {}, warn() {}, error() {} }, on() {}, registerTool() {} });
       process.on("exit", () => { const w = processState().warmup; console.log(JSON.stringify({ status: w.status, decisions: w.decisions })); });`,
    );
    const w = JSON.parse(out);
    assert.equal(w.status, "running");
    assert.ok(w.decisions < WARMUP_DECISIONS, `${w.decisions}`);
  });
});
