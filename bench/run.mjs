// Benchmark skeleton (issue 2, section 8). Reports, never asserts: timings depend on the machine.
//
//   load_ms     median over LOAD_RUNS fresh child processes of import("../js-shim/index.js") +
//               register(fakeApi) (which loads and instantiates the WASM core synchronously)
//   p50/p99/max per-decision latency of the shim's gate hook (the before_tool_call handler
//               registered at priority 60), called as the host calls it, with (event, ctx),
//               over bench/corpus.jsonl: WARMUP_PASSES untimed, then PASSES timed passes
//   calls       timed calls
//   warmup      the shim's idle-time warm-up of the core after register (js-shim/warmup.js):
//               the bench waits for it to end before its own warm-up passes, as a gateway idles
//               far longer than that before its first tool calls. HUMAN_GATE_WARMUP=off
//               measures without it (baseline-tier code for most of the run).
//   wasm_bytes  size of pkg/openclaw_human_gate_bg.wasm
//
//   typical     calls whose params serialize to at most TYPICAL_MAX_BYTES (2048) bytes of JSON;
//               "large" calls are the rest (the corpus has a few 8-65 KB ones). Both through the
//               hook, and the same requests straight into the engine (`Engine.decide`, no shim)
//               so that the shim's share is visible (hook median / core median).
//
// Prints a short summary, then ends with exactly one JSON line. Full figures (per-class
// breakdown, every run) also go to bench/out/last.json (git-ignored).
// Env: BENCH_PASSES (default 200, minimum 200), BENCH_WARMUP_PASSES (default 20; e.g. 600 for
// the steady state), BENCH_LOAD_RUNS (default 7).
import { readFileSync, statSync, mkdirSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { makeFakeApi } from "./fake-api.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SHIM = `${ROOT}js-shim/index.js`;
const WASM = `${ROOT}pkg/openclaw_human_gate_bg.wasm`;
const GATE_PRIORITY = 60;
const PASSES = Math.max(200, Number(process.env.BENCH_PASSES) || 200);
const WARMUP_PASSES = Math.max(1, Number(process.env.BENCH_WARMUP_PASSES) || 20);
const LOAD_RUNS = Math.max(1, Number(process.env.BENCH_LOAD_RUNS) || 7);
/** The typical/large cut: bytes of the call's params as JSON. */
const TYPICAL_MAX_BYTES = 2048;

const config = JSON.parse(readFileSync(`${ROOT}bench/config.json`, "utf8"));
const corpus = readFileSync(`${ROOT}bench/corpus.jsonl`, "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l, i) => {
    try {
      return JSON.parse(l);
    } catch (e) {
      throw new Error(`bench/corpus.jsonl line ${i + 1}: ${e.message}`);
    }
  });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
// Nearest-rank percentile over a sorted array.
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const round1 = (x) => Math.round(x * 10) / 10;

// ---- 1. plugin load time, in fresh processes ----
const LOAD_SCRIPT = `
import { makeFakeApi } from ${JSON.stringify(pathToFileURL(`${ROOT}bench/fake-api.mjs`).href)};
const { api, hooks } = makeFakeApi(${JSON.stringify(config)});
const t0 = process.hrtime.bigint();
const mod = await import(${JSON.stringify(pathToFileURL(SHIM).href)});
mod.default.register(api);
const t1 = process.hrtime.bigint();
if (!hooks.some((h) => h.hookName === "before_tool_call" && h.priority === ${GATE_PRIORITY})) {
  throw new Error("register(api) did not register the gate hook");
}
process.stdout.write(String(Number(t1 - t0) / 1e6));
`;
const loadRuns = [];
for (let i = 0; i < LOAD_RUNS; i++) {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", LOAD_SCRIPT], { encoding: "utf8" });
  loadRuns.push(Number(out));
}
const loadMs = median(loadRuns);

// ---- 2. per-decision latency through the gate hook ----
const { api, hooks, logs } = makeFakeApi(config);
const shim = (await import(pathToFileURL(SHIM).href)).default;
shim.register(api);
const { processState } = await import(pathToFileURL(`${ROOT}js-shim/core.js`).href);
/** Awaits `promise` while keeping the process alive (the warm-up's timers are unref'd). */
async function keptAlive(promise) {
  const timer = setInterval(() => {}, 1 << 30);
  try {
    return await promise;
  } finally {
    clearInterval(timer);
  }
}
const warmRun = processState().warmup;
const warmup = warmRun?.done ? ((await keptAlive(warmRun.done)) ?? warmRun) : null;
const gateHook = hooks.find((h) => h.hookName === "before_tool_call" && h.priority === GATE_PRIORITY);
if (!gateHook) throw new Error(`no before_tool_call hook at priority ${GATE_PRIORITY}`);
// Every other before_tool_call hook (the sealing hook) runs untimed after the gate, as the host
// would (unless the gate blocked), so the shim's per-call state stays in its steady state.
const laterHooks = hooks
  .filter((h) => h.hookName === "before_tool_call" && h !== gateHook)
  .sort((a, b) => b.priority - a.priority);
const configProblems = logs.filter(([level, m]) => level === "warn" && m.includes("config:"));

// The host's view of one corpus request: the event and ctx of before_tool_call.
function hostCall(req, callId) {
  const event = { toolName: req.toolName, params: req.params, runId: "run-bench", toolCallId: callId };
  const ctx = { toolName: req.toolName, agentId: "main", sessionKey: req.sessionKey ?? "agent:main:bench",
    sessionId: "session-bench", runId: "run-bench", toolCallId: callId };
  for (const k of ["toolKind", "toolInputKind"]) if (req[k] !== undefined) { event[k] = req[k]; ctx[k] = req[k]; }
  if (req.derivedPaths !== undefined) event.derivedPaths = req.derivedPaths;
  return { event, ctx };
}

function classOf(result) {
  if (result === undefined) return "auto";
  if (result?.block) return "block";
  if (result?.requireApproval) return result.requireApproval.severity === "critical" ? "critical" : "approval";
  return "other";
}

const sizeOf = (req) => JSON.stringify(req.params ?? {}).length;
const groupOf = (req) => (sizeOf(req) <= TYPICAL_MAX_BYTES ? "typical" : "large");
const samples = [];
const perClass = {};
const perGroup = { typical: [], large: [] };
let failClosed = 0;
let seq = 0;
/** WARMUP_PASSES untimed then PASSES timed passes of `reqs` through the hooks, as the host calls them. */
async function hookPasses(reqs, onSample) {
  for (let pass = 0; pass < WARMUP_PASSES + PASSES; pass++) {
    const timed = pass >= WARMUP_PASSES;
    for (const req of reqs) {
      const { event, ctx } = hostCall(req, `bench:${seq++}`);
      const t0 = process.hrtime.bigint();
      let result = gateHook.handler(event, ctx);
      if (result instanceof Promise) result = await result;
      const t1 = process.hrtime.bigint();
      if (!result?.block) {
        // The host stops at a block; otherwise the later hooks see the call too.
        for (const h of laterHooks) {
          const r = h.handler(event, ctx);
          if (r instanceof Promise) await r;
        }
      }
      if (timed) onSample(req, Number(t1 - t0) / 1000, result, pass);
    }
  }
}
await hookPasses(corpus, (req, us, result, pass) => {
  samples.push(us);
  const cls = classOf(result);
  (perClass[cls] ??= []).push(us);
  perGroup[groupOf(req)].push(us);
  if (pass === WARMUP_PASSES && /could not evaluate|fail closed|failed/i.test(result?.requireApproval?.title ?? "")) failClosed++;
});
// The typical calls again in a loop of their own: the same latency without the large calls'
// effect on the CPU caches between them (bench/README.md, sessions 8 and 9).
const typicalOwnLoop = [];
await hookPasses(corpus.filter((r) => groupOf(r) === "typical"), (req, us) => typicalOwnLoop.push(us));
samples.sort((a, b) => a - b);

// The same requests straight into the engine (no hook, no shim): the core's share.
const { acquireEngine } = await import(pathToFileURL(`${ROOT}js-shim/core.js`).href);
const { engine } = acquireEngine(JSON.stringify(config));
function coreRequest(req) {
  const r = { toolName: req.toolName, params: req.params, sessionKey: req.sessionKey ?? "agent:main:bench" };
  for (const k of ["toolKind", "toolInputKind", "derivedPaths"]) if (req[k] !== undefined) r[k] = req[k];
  return JSON.stringify(r);
}
const coreJson = corpus.map(coreRequest);
const coreGroup = { typical: [], large: [] };
for (let pass = 0; pass < WARMUP_PASSES + PASSES; pass++) {
  corpus.forEach((req, i) => {
    const t0 = process.hrtime.bigint();
    engine.decide(coreJson[i]);
    const t1 = process.hrtime.bigint();
    if (pass >= WARMUP_PASSES) coreGroup[groupOf(req)].push(Number(t1 - t0) / 1000);
  });
}
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? null : { calls: s.length, p50_us: round1(percentile(s, 50)), p99_us: round1(percentile(s, 99)), max_us: round1(s[s.length - 1]) };
};
const groups = Object.fromEntries(["typical", "large"].map((g) => {
  const hook = stats(perGroup[g]);
  const core = stats(coreGroup[g]);
  return [g, { perPass: corpus.filter((r) => groupOf(r) === g).length, hook, core,
    shimShareP50_us: hook && core ? round1(hook.p50_us - core.p50_us) : null,
    hookOverCoreP50: hook && core && core.p50_us > 0 ? Math.round((hook.p50_us / core.p50_us) * 100) / 100 : null }];
}));

// Worst cases (issue 3): adversarial commands through the same hook, median of WORST_RUNS.
const WORST_RUNS = 15;
const worstCases = {
  "20 KB command": { toolName: "exec", params: { command: Array.from({ length: 800 }, (_, i) => `echo "item ${i}" | grep -v x;`).join(" ").slice(0, 20480) } },
  "10 000 nested $(": { toolName: "exec", params: { command: `${"$(".repeat(10000)}rm -rf /${")".repeat(10000)}` } },
  "10 000 unclosed quotes": { toolName: "exec", params: { command: `echo ${"'\"".repeat(5000)}` } },
  "4 096 one-word commands": { toolName: "exec", params: { command: "ls;".repeat(4096) } },
  "16 KB Code Mode": { toolName: "exec", toolKind: "code_mode_exec", params: { code: `const a = [${Array.from({ length: 2000 }, (_, i) => `"${i}"`).join(",")}];`.slice(0, 16384) } },
  // Session 16: shapes whose every command is costly to read (16 KB each; bench/native.rs
  // `worst_cases` has the same). Windows-shaped lines are read three times.
  "16 KB of CMD deletes": { toolName: "exec", params: { command: "del /s /q C:\\x & ".repeat(1200).slice(0, 16384) } },
  "16 KB of PowerShell deletes": { toolName: "exec", params: { command: "Remove-Item -Recurse -Force C:\\x; ".repeat(600).slice(0, 16384) } },
  "16 KB of backticks": { toolName: "exec", params: { command: "`a`;".repeat(4096) } },
  "16 KB of scoped deletes": { toolName: "exec", params: { command: Array.from({ length: 3000 }, (_, i) => `rm -rf a${i};`).join("").slice(0, 16384) } },
  "16 KB of bash -c": { toolName: "exec", params: { command: "bash -c 'sh -c \"ls; ls\"';".repeat(700).slice(0, 16384) } },
  "16 KB of heredocs": { toolName: "exec", params: { command: "cat <<E\n$(x)\nE\n".repeat(1200).slice(0, 16384) } },
};
const worst = {};
const worstCore = {};
for (const [name, req] of Object.entries(worstCases)) {
  const runs = [];
  for (let i = 0; i < WORST_RUNS + 3; i++) {
    const { event, ctx } = hostCall(req, `bench:worst:${seq++}`);
    const t0 = process.hrtime.bigint();
    let r = gateHook.handler(event, ctx);
    if (r instanceof Promise) r = await r;
    const t1 = process.hrtime.bigint();
    for (const h of laterHooks) {
      const x = h.handler(event, ctx);
      if (x instanceof Promise) await x;
    }
    if (i >= 3) runs.push(Number(t1 - t0) / 1000);
  }
  worst[name] = round1(median(runs));
  const json = coreRequest(req);
  const coreRuns = [];
  for (let i = 0; i < WORST_RUNS + 3; i++) {
    const t0 = process.hrtime.bigint();
    engine.decide(json);
    const t1 = process.hrtime.bigint();
    if (i >= 3) coreRuns.push(Number(t1 - t0) / 1000);
  }
  worstCore[name] = round1(median(coreRuns));
}

const result = {
  p50_us: round1(percentile(samples, 50)),
  p99_us: round1(percentile(samples, 99)),
  max_us: round1(samples[samples.length - 1]),
  calls: samples.length,
  wasm_bytes: statSync(WASM).size,
  load_ms: round1(loadMs),
  typical_p50_us: groups.typical.hook?.p50_us ?? null,
  typical_p99_us: groups.typical.hook?.p99_us ?? null,
  typical_own_loop_p99_us: stats(typicalOwnLoop)?.p99_us ?? null,
  large_p50_us: groups.large.hook?.p50_us ?? null,
  worst_max_us: Math.max(...Object.values(worst)),
  warmup_status: warmup?.status ?? null,
  warmup_decisions: warmup?.decisions ?? 0,
  warmup_cpu_ms: warmup ? round1(warmup.cpuMs) : 0,
};

// ---- report ----
const classLines = Object.entries(perClass)
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([cls, xs]) => {
    const s = [...xs].sort((a, b) => a - b);
    return `  ${cls.padEnd(9)} ${String(xs.length / PASSES).padStart(3)} calls/pass  p50 ${round1(percentile(s, 50))} µs  p99 ${round1(percentile(s, 99))} µs`;
  });
console.log(`human-gate bench: ${corpus.length} corpus calls × ${PASSES} passes (after ${WARMUP_PASSES} warm-up), node ${process.version}`);
console.log(`  plugin load (import + register, fresh process): median ${round1(loadMs)} ms over ${LOAD_RUNS} runs [${loadRuns.map(round1).join(", ")}]`);
console.log(`  warm-up after register (idle time, the hooks on a throwaway engine): ${warmup ? `${warmup.status}, ${warmup.decisions} decisions, ${round1(warmup.cpuMs)} ms CPU, ${round1(warmup.wallMs)} ms wall` : "none"}`);
console.log(`  gate hook latency: p50 ${result.p50_us} µs, p99 ${result.p99_us} µs, max ${result.max_us} µs over ${result.calls} calls`);
console.log(classLines.join("\n"));
for (const [g, v] of Object.entries(groups)) {
  if (!v.hook) continue;
  console.log(`  ${g.padEnd(8)} (params ${g === "typical" ? "≤" : ">"} ${TYPICAL_MAX_BYTES} B, ${v.perPass} calls/pass): hook p50 ${v.hook.p50_us} µs p99 ${v.hook.p99_us} µs | core alone p50 ${v.core.p50_us} µs p99 ${v.core.p99_us} µs | hook/core ${v.hookOverCoreP50}× (shim ≈ ${v.shimShareP50_us} µs at p50)`);
}
{
  const own = stats(typicalOwnLoop);
  if (own) console.log(`  typical calls in a loop of their own (no large calls between them): hook p50 ${own.p50_us} µs p99 ${own.p99_us} µs`);
}
console.log(`  wasm: ${result.wasm_bytes} bytes`);
console.log(`  worst cases (median of ${WORST_RUNS}, hook / core alone): ${Object.entries(worst).map(([k, v]) => `${k} ${v} / ${worstCore[k]} µs`).join(", ")}`);
if (configProblems.length > 0) console.log(`  WARNING: the bench config has problems: ${configProblems.map(([, m]) => m).join("; ")}`);
if (failClosed > 0) console.log(`  WARNING: ${failClosed} corpus calls answered fail-closed; the figures do not measure real decisions`);

mkdirSync(`${ROOT}bench/out`, { recursive: true });
writeFileSync(`${ROOT}bench/out/last.json`, JSON.stringify({
  ...result, worst_us: worst, worstCore_us: worstCore, typicalMaxBytes: TYPICAL_MAX_BYTES, groups, node: process.version, passes: PASSES, warmupPasses: WARMUP_PASSES, corpusCalls: corpus.length,
  loadRunsMs: loadRuns.map(round1),
  perClass: Object.fromEntries(Object.entries(perClass).map(([cls, xs]) => {
    const s = [...xs].sort((a, b) => a - b);
    return [cls, { calls: xs.length, p50_us: round1(percentile(s, 50)), p99_us: round1(percentile(s, 99)) }];
  })),
}, null, 2) + "\n");
console.log(JSON.stringify(result));
