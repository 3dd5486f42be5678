// Where the shim's share of a typical decision goes (reports, never asserts).
//
//   node bench/shim-split.mjs
//
// For the typical calls of bench/corpus.jsonl (params ≤ 2048 bytes of JSON, as in run.mjs),
// times each step the gate hook (js-shim/index.js makeGate) takes around the core, one at a
// time over the same inputs, then the whole hook, then a patched copy of the hook that
// snapshots the params once as JSON text (one JSON.stringify serves as the seal snapshot and
// as the request's params; no structuredClone) — the proposal in bench/README.md.
// The patched copy is a measurement aid only: it is not the shim and is not used by it.
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

const shimUrl = pathToFileURL(`${ROOT}js-shim/index.js`).href;
const shim = await import(shimUrl);
const core = await import(pathToFileURL(`${ROOT}js-shim/core.js`).href);
const { api, hooks } = makeFakeApi(config);
shim.default.register(api);
const gate = hooks.find((h) => h.hookName === "before_tool_call" && h.priority === shim.GATE_PRIORITY).handler;
const seal = hooks.find((h) => h.hookName === "before_tool_call" && h.priority === shim.SEAL_PRIORITY).handler;
const { engine } = core.acquireEngine(JSON.stringify(config));

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
  return { p50: round1(pct(xs, 50)), p99: round1(pct(xs, 99)) };
}

const requests = corpus.map((req) => shim.buildRequest(hostCall(req).event, hostCall(req).ctx, req.params));
const requestJson = requests.map((r) => JSON.stringify(r));
const decisionJson = requestJson.map((j) => engine.decide(j));

const rows = [];
rows.push(["structuredClone(params) (seal snapshot)", time((req) => structuredClone(req.params))]);
rows.push(["buildRequest + JSON.stringify", time((req, i) => JSON.stringify(shim.buildRequest({ toolName: req.toolName }, {}, requests[i].params)))]);
rows.push(["engine.decide (core, WASM)", time((req, i) => engine.decide(requestJson[i]))]);
rows.push(["JSON.parse(decision)", time((req, i) => JSON.parse(decisionJson[i]))]);
rows.push(["core.decide (decide + parse + checks)", time((req, i) => core.decide(JSON.stringify(config), requestJson[i]))]);
rows.push(["whole gate hook", time((req) => {
  const { event, ctx } = hostCall(req);
  return { r: gate(event, ctx), event, ctx };
}, (req, i, x) => { if (!x.r?.block) seal(x.event, x.ctx); })]);

// Patched copy: one JSON.stringify of the params is both the snapshot and the request's params.
const seals = new Map();
const configJson = JSON.stringify(config);
function patchedGate(event, ctx) {
  const paramsJson = JSON.stringify(event.params);
  const head = shim.buildRequest(event, ctx, undefined);
  const body = JSON.stringify(head);
  const requestJson2 = `${body.slice(0, -1)}${body.length > 2 ? "," : ""}"params":${paramsJson}}`;
  const { decision } = core.decideOrFailClosed(configJson, requestJson2, event.toolName);
  const result = shim.toHostResult(decision, event.toolName, api.logger);
  if (decision.decision !== "block") seals.set(`id:${event.toolCallId}`, paramsJson);
  return result;
}
function patchedSeal(event) {
  const key = `id:${event.toolCallId}`;
  const snap = seals.get(key);
  seals.delete(key);
  return snap === undefined ? { block: true } : { params: JSON.parse(snap) };
}
rows.push(["patched hook (stringify-once snapshot)", time((req) => {
  const { event, ctx } = hostCall(req);
  return { r: patchedGate(event, ctx), event, ctx };
}, (req, i, x) => { if (!x.r?.block) patchedSeal(x.event); })]);

console.log(`shim split: ${corpus.length} typical calls (params ≤ ${TYPICAL_MAX_BYTES} B) × ${PASSES} passes, node ${process.version}`);
for (const [name, { p50, p99 }] of rows) console.log(`  ${name.padEnd(42)} p50 ${String(p50).padStart(6)} µs  p99 ${String(p99).padStart(6)} µs`);
console.log(JSON.stringify(Object.fromEntries(rows.map(([k, v]) => [k, v]))));
