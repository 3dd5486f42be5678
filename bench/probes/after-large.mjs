// node bench/probes/after-large.mjs [DIR] : does a mix with large calls leave the core slower for typical calls afterwards?
import { createRequire } from "node:module"; import { readFileSync } from "node:fs";
const require = createRequire(import.meta.url); const dir = process.argv[2] ?? new URL("../..", import.meta.url).pathname;
const core = require(`${dir}/pkg/openclaw_human_gate.js`);
const config = readFileSync(`${dir}/bench/config.json`, "utf8");
const e = new core.Engine(config);
const all = readFileSync(`${dir}/bench/corpus.jsonl`, "utf8").split("\n").filter(Boolean).map(JSON.parse);
const typ = all.filter(r => JSON.stringify(r.params ?? {}).length <= 2048);
const b64 = typ.findIndex(r => JSON.stringify(r.params).includes("base64 -d"));
let n = 0; const mk = (r) => JSON.stringify({ toolName: r.toolName, params: r.params, sessionKey: "agent:main:bench", nowMs: 1.7e12 + n, callId: `c${n++}`, sessionId: "s", runId: "r" });
const mem = () => "";
const q = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
function phase(list, passes, measure) { const t = []; let tot = 0;
  for (let k = 0; k < passes; k++) list.forEach((r, i) => { const x = mk(r); const t0 = process.hrtime.bigint(); e.decideForHook(x); const us = Number(process.hrtime.bigint() - t0) / 1000; tot += us; if (measure && list === typ && i === b64) t.push(us); });
  return t; }
phase(typ, 800, false);
console.log(`A typical only: base64 median ${q(phase(typ, 300, true)).toFixed(1)}`);
phase(all, 100, false);
console.log(`after mixed: base64 median ${q(phase(typ, 300, true)).toFixed(1)}`);
phase(typ, 2000, false);
console.log(`after 2000 more typical passes: base64 median ${q(phase(typ, 300, true)).toFixed(1)}`);
