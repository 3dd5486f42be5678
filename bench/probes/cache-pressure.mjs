// node bench/probes/cache-pressure.mjs [DIR] : the core alone on the typical bench calls, with the large
// calls in the loop, with nothing in their place, or with a 4 MB memory sweep (MB=) in their place:
// median of the base64 call for each (bench/README.md, session 8).
import { createRequire } from "node:module"; import { readFileSync } from "node:fs";
const require = createRequire(import.meta.url); const dir = process.argv[2] ?? new URL("../..", import.meta.url).pathname;
const core = require(`${dir}/pkg/openclaw_human_gate.js`);
const e = new core.Engine(readFileSync(`${dir}/bench/config.json`, "utf8"));
const all = readFileSync(`${dir}/bench/corpus.jsonl`, "utf8").split("\n").filter(Boolean).map(JSON.parse);
const isL = (r) => JSON.stringify(r.params ?? {}).length > 2048;
let n = 0; const mk = (r) => JSON.stringify({ toolName: r.toolName, params: r.params, sessionKey: "agent:main:bench", nowMs: 1.7e12 + n, callId: `c${n++}`, sessionId: "s", runId: "r" });
const buf = new Float64Array((Number(process.env.MB ?? 4) * 1024 * 1024) / 8); let sink = 0;
const thrash = () => { for (let i = 0; i < buf.length; i += 8) { buf[i] += 1; } sink += buf[0]; };
const q = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
function run(mode, passes) { const t = [];
  for (let k = 0; k < passes; k++) all.forEach((r) => { if (isL(r)) { if (mode === "large") e.decideForHook(mk(r)); else if (mode === "thrash") thrash(); return; }
    const x = mk(r); const t0 = process.hrtime.bigint(); e.decideForHook(x); const us = Number(process.hrtime.bigint() - t0) / 1000; if (JSON.stringify(r.params).includes("base64 -d")) t.push(us); });
  return q(t).toFixed(1); }
run("large", 600);
for (const m of ["none", "large", "thrash", "none", "large", "thrash"]) console.log(m, "base64 median", run(m, 200));
