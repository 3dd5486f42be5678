// node bench/probes/delays.mjs [DIR] : delay fraction for: pure JS work, core alone (one call), hook (one call), hook (mixed corpus)
import { pathToFileURL } from "node:url";
import { readFileSync } from "node:fs";
const dir = process.argv[2] ?? new URL("../..", import.meta.url).pathname;
const { makeFakeApi } = await import(pathToFileURL(`${dir}/bench/fake-api.mjs`).href);
const config = JSON.parse(readFileSync(`${dir}/bench/config.json`, "utf8"));
const { api, hooks } = makeFakeApi(config);
const shim = (await import(pathToFileURL(`${dir}/js-shim/index.js`).href)).default;
const core = await import(pathToFileURL(`${dir}/js-shim/core.js`).href);
shim.register(api);
const wr = core.processState().warmup; if (wr?.done) { const t = setInterval(() => {}, 1000); await wr.done; clearInterval(t); }
const { engine } = core.acquireEngine(JSON.stringify(config));
const gate = hooks.find((h) => h.hookName === "before_tool_call" && h.priority === 60).handler;
const later = hooks.filter((h) => h.hookName === "before_tool_call" && h.priority !== 60);
const corpus = readFileSync(`${dir}/bench/corpus.jsonl`, "utf8").split("\n").filter(Boolean).map(JSON.parse).filter(r => JSON.stringify(r.params ?? {}).length <= 2048);
const one = corpus.find((r) => JSON.stringify(r.params).includes(process.env.ONE ?? "git push --force"));
let seq = 0;
const hook = (req) => { const id = `b${seq++}`; const event = { toolName: req.toolName, params: req.params, runId: "run-bench", toolCallId: id };
  const ctx = { toolName: req.toolName, agentId: "main", sessionKey: "agent:main:bench", sessionId: "session-bench", runId: "run-bench", toolCallId: id };
  const t0 = process.hrtime.bigint(); const r = gate(event, ctx); const t1 = process.hrtime.bigint(); if (!r?.block) for (const h of later) h.handler(event, ctx); return Number(t1 - t0) / 1000; };
const coreOne = () => { const x = JSON.stringify({ toolName: one.toolName, params: one.params, sessionKey: "agent:main:bench", nowMs: Date.now(), callId: `c${seq++}`, sessionId: "s", runId: "r" }); const t0 = process.hrtime.bigint(); engine.decideForHook(x); return Number(process.hrtime.bigint() - t0) / 1000; };
const arr = new Float64Array(4096); let sink = 0;
const pure = () => { const t0 = process.hrtime.bigint(); for (let k = 0; k < 1800; k++) { const j = (k * 2654435761) & 4095; arr[j] = arr[j] * 0.5 + k; sink += arr[(j + 7) & 4095]; } return Number(process.hrtime.bigint() - t0) / 1000; };
const q = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil(p / 100 * s.length) - 1)]; };
function run(name, f, N = 11000) { for (let i = 0; i < 2000; i++) f(); const xs = []; for (let i = 0; i < N; i++) xs.push(f()); const m = q(xs, 50);
  const d10 = xs.filter(x => x > m + 10).length, d5 = xs.filter(x => x > m + 5).length;
  console.log(`${name.padEnd(12)} p50 ${m.toFixed(1)} p99 ${q(xs, 99).toFixed(1)} p99.5 ${q(xs, 99.5).toFixed(1)}  >p50+5us ${(100 * d5 / N).toFixed(2)}%  >p50+10us ${(100 * d10 / N).toFixed(2)}%`); }
run("pure JS", pure);
run("core one", coreOne);
run("hook one", () => hook(one));
let i = 0; const mixed = () => hook(corpus[i++ % corpus.length]);
run("hook mixed", mixed);
run("pure JS", pure);
