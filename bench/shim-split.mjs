// Where the shim's share of a typical decision goes (reports, never asserts).
//
//   node bench/shim-split.mjs
//
// For the typical calls of bench/corpus.jsonl (params ≤ 2048 bytes of JSON, as in run.mjs),
// times each step the gate hook (js-shim/index.js makeGate) takes around the core, one at a
// time over the same inputs, then the whole hook, and the shim's own share: the hook minus the
// time spent inside the core (measured per call by wrapping the engine's methods; the wrapper's
// two clock reads, ~0.2 µs, count as shim), and the hook minus plain `engine.decide` (what the
// hook adds to a bare decision, the record's digest work in the core included) as a
// difference of medians. (Not paired per call: a second core call on the same request text
// right after the first runs 4-5 µs faster on warm caches, which would flatter the shim.)
import { readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { makeFakeApi } from "./fake-api.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TYPICAL_MAX_BYTES = 2048;
const PASSES = Math.max(50, Number(process.env.BENCH_PASSES) || 200);
const config = JSON.parse(readFileSync(`${ROOT}bench/config.json`, "utf8"));
const corpus = readFileSync(`${ROOT}bench/corpus.jsonl`, "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l) => JSON.parse(l))
  .filter((r) => JSON.stringify(r.params ?? {}).length <= TYPICAL_MAX_BYTES);

const shim = await import(pathToFileURL(`${ROOT}js-shim/index.js`).href);
const core = await import(pathToFileURL(`${ROOT}js-shim/core.js`).href);
const audit = await import(pathToFileURL(`${ROOT}js-shim/audit.js`).href);
const session = await import(pathToFileURL(`${ROOT}js-shim/session.js`).href);
const { api, hooks } = makeFakeApi(config);
shim.default.register(api);
const gate = hooks.find((h) => h.hookName === "before_tool_call" && h.priority === shim.GATE_PRIORITY).handler;
const seal = hooks.find((h) => h.hookName === "before_tool_call" && h.priority === shim.SEAL_PRIORITY).handler;
const configJson = JSON.stringify(config);
const { engine } = core.acquireEngine(configJson);

const round1 = (x) => Math.round(x * 10) / 10;
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
let seq = 0;
function hostCall(req) {
  const callId = `split:${seq++}`;
  const event = { toolName: req.toolName, params: req.params, runId: "run-bench", toolCallId: callId };
  const ctx = { toolName: req.toolName, agentId: "main", sessionKey: req.sessionKey ?? "agent:main:bench", sessionId: "s", runId: "run-bench", toolCallId: callId };
  for (const k of ["toolKind", "toolInputKind"]) if (req[k] !== undefined) { event[k] = req[k]; ctx[k] = req[k]; }
  return { event, ctx };
}

/** Median and p99 (µs) of `fn(req, i)` over the typical corpus, PASSES times (+20 warm-up). */
function time(fn, after = () => {}) {
  const xs = [];
  for (let pass = 0; pass < PASSES + 20; pass++) {
    corpus.forEach((req, i) => {
      const t0 = process.hrtime.bigint();
      const r = fn(req, i);
      const t1 = process.hrtime.bigint();
      after(req, i, r);
      if (pass >= 20) xs.push(Number(t1 - t0) / 1000);
    });
  }
  return stats(xs);
}
const stats = (xs) => ({ p50: round1(pct(xs, 50)), p99: round1(pct(xs, 99)) });

// The requests as the hook builds them (session fields, params spliced in as JSON text).
const calls = corpus.map((req) => hostCall(req));
const heads = calls.map(({ event, ctx }) => session.addSessionFields(shim.buildRequest(event, ctx, undefined), event, ctx));
const requestJson = corpus.map((req, i) => `{"params":${JSON.stringify(req.params)},${JSON.stringify(heads[i]).slice(1)}`);
const decisionJson = requestJson.map((j) => engine.decide(j));
const decisions = requestJson.map((j) => core.decide(configJson, j));
const forHook = requestJson.map((j) => core.decideForHook(configJson, j));
const log = api.logger;

const rows = [];
rows.push(["structuredClone(params) (fallback snapshot)", time((req) => structuredClone(req.params))]);
rows.push(["exact-JSON snapshot (check + stringify)", time((req) => shim.exactParamsJson(req.params))]);
rows.push(["request JSON (session fields + requestJsonOf)", time((req, i) => {
  const { event, ctx } = calls[i];
  const fields = session.addSessionFields({ sessionKey: ctx.sessionKey }, event, ctx);
  return shim.requestJsonOf(event, ctx, "{}", 1795982400000, fields);
})]);
rows.push(["acquireEngine (per-call lookup)", time(() => core.acquireEngine(configJson))]);
rows.push(["engine.decide (core, WASM, full decision)", time((req, i) => engine.decide(requestJson[i]))]);
rows.push(["engine.decideForHook (core, WASM, + record)", time((req, i) => engine.decideForHook(requestJson[i]))]);
rows.push(["JSON.parse(full decision)", time((req, i) => JSON.parse(decisionJson[i]))]);
rows.push(["core.decideForHook (call + split + parse)", time((req, i) => core.decideForHook(configJson, requestJson[i]))]);
rows.push(["old record: core auditDecision (2nd call)", time((req, i) => engine && core.processState().core.auditDecision(requestJson[i], decisionJson[i], 12.3))]);
rows.push(["record: latency splice + ring", time((req, i) => audit.auditDecisionParts(configJson, log, forHook[i].recordHead, forHook[i].recordTail, 12.345))]);
rows.push(["toHostResult (+ feedback for approvals)", time((req, i) => {
  const d = forHook[i].decision;
  const asks = d.decision === "approval" || d.decision === "critical";
  return asks ? shim.toHostResult(d, req.toolName, log, session.resolutionFeedback(configJson, heads[i], log), { configJson, record: "{}", at: 0 }) : shim.toHostResult(d, req.toolName, log);
})]);

// The whole hook, with the time inside the core's methods measured per call.
let inside = 0;
const wrapped = {};
for (const m of ["decide", "decideForHook"]) {
  const orig = Object.getPrototypeOf(engine)[m];
  wrapped[m] = function (x) {
    const t0 = process.hrtime.bigint();
    const r = orig.call(this, x);
    inside += Number(process.hrtime.bigint() - t0);
    return r;
  };
}
const hookXs = [];
const shimXs = [];
for (let pass = 0; pass < PASSES + 20; pass++) {
  corpus.forEach((req) => {
    const { event, ctx } = hostCall(req);
    const t0 = process.hrtime.bigint();
    const r = gate(event, ctx);
    const t1 = process.hrtime.bigint();
    if (!r?.block) seal(event, ctx);
    if (pass >= 20) hookXs.push(Number(t1 - t0) / 1000);
  });
}
Object.assign(engine, wrapped);
for (let pass = 0; pass < PASSES + 20; pass++) {
  corpus.forEach((req) => {
    const { event, ctx } = hostCall(req);
    inside = 0;
    const t0 = process.hrtime.bigint();
    const r = gate(event, ctx);
    const t1 = process.hrtime.bigint();
    if (!r?.block) seal(event, ctx);
    if (pass >= 20) shimXs.push((Number(t1 - t0) - inside) / 1000);
  });
}
for (const m of Object.keys(wrapped)) delete engine[m];
const hook = stats(hookXs);
rows.push(["whole gate hook", hook]);
rows.push(["hook minus time inside the core (per call)", stats(shimXs)]);
const decideRow = rows.find(([name]) => name.startsWith("engine.decide "))[1];
rows.push(["hook minus engine.decide (p50 − p50)", { p50: round1(hook.p50 - decideRow.p50), p99: null }]);

console.log(`shim split: ${corpus.length} typical calls (params ≤ ${TYPICAL_MAX_BYTES} B) × ${PASSES} passes, node ${process.version}`);
for (const [name, { p50, p99 }] of rows) console.log(`  ${name.padEnd(44)} p50 ${String(p50).padStart(6)} µs  p99 ${String(p99 ?? "—").padStart(6)} µs`);
console.log(JSON.stringify(Object.fromEntries(rows.map(([k, v]) => [k, v]))));
