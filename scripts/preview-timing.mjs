#!/usr/bin/env node
// Preview build time per call, through the shim: the gate hook (js-shim/index.js, real WASM
// core) timed on the calls of tests/corpus/secrets.jsonl as exec / write / edit / apply_patch,
// with `previews.enabled` true and false; the difference of the medians is what the preview
// costs. Then the output guard's scan time on two large results (JSON, log lines).
//   node scripts/preview-timing.mjs [rounds=30]
import fs from "node:fs";
import plugin from "../js-shim/index.js";

const rounds = Number(process.argv[2] ?? 30);
const corpus = fs.readFileSync(new URL("../tests/corpus/secrets.jsonl", import.meta.url), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
const calls = corpus.flatMap((c) => [
  ["exec", { command: c.text }],
  ["write", { path: "notes/x.txt", content: c.text }],
  ["edit", { path: "src/x.txt", edits: [{ oldText: "a", newText: c.text }] }],
  ["apply_patch", { input: `*** Begin Patch\n*** Add File: x.txt\n${c.text.split("\n").map((l) => `+${l}`).join("\n")}\n*** End Patch` }],
]);

function gateFor(config) {
  let gate;
  plugin.register({ pluginConfig: config, logger: {}, on: (name, h, o) => { if (name === "before_tool_call" && o.priority === 60) gate = h; }, registerTool() {} });
  return gate;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function measure(gate) {
  const per = [];
  let n = 0;
  for (let r = 0; r < rounds; r++) {
    for (const [toolName, params] of calls) {
      const t0 = performance.now();
      gate({ toolName, params, toolCallId: `c${n++}` }, { sessionKey: "agent:main:timing" });
      per.push(performance.now() - t0);
    }
  }
  return per;
}

const on = gateFor({ previews: { enabled: true } });
const off = gateFor({ previews: { enabled: false } });
measure(on); measure(off); // warm up (engines, JIT)
const a = measure(on);
const b = measure(off);
const mOn = median(a), mOff = median(b);
console.log(`calls per round: ${calls.length}, rounds: ${rounds}`);
console.log(`gate hook median per call, previews on:  ${(mOn * 1000).toFixed(1)} µs`);
console.log(`gate hook median per call, previews off: ${(mOff * 1000).toFixed(1)} µs`);
console.log(`preview build time per call (median difference): ${((mOn - mOff) * 1000).toFixed(1)} µs`);
console.log(`p90 previews on: ${(a.sort((x, y) => x - y)[Math.floor(a.length * 0.9)] * 1000).toFixed(1)} µs`);

// Output guard throughput on large results (one scan each, budget lifted to see the full cost).
const { guardResult } = await import("../js-shim/guard.js");
const gcfg = JSON.stringify({ outputGuard: { timeBudgetMs: 1000, maxScanChars: 4194304 } });
const big = {
  json: JSON.stringify(Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `item-${i}`, path: `/srv/app/file${i}.txt`, size: i * 13, ok: true })), null, 2),
  log: Array.from({ length: 4000 }, (_, i) => `2026-11-29T10:00:${String(i % 60).padStart(2, "0")}Z INFO worker-${i % 7} processed job=${i} status=ok duration_ms=${i % 97}`).join("\n"),
};
guardResult(gcfg, { content: [{ type: "text", text: "warm up" }] });
for (const [name, text] of Object.entries(big)) {
  const t0 = performance.now();
  guardResult(gcfg, { content: [{ type: "text", text }] });
  const ms = performance.now() - t0;
  console.log(`output guard, ${name} result of ${text.length} chars: ${ms.toFixed(1)} ms (${(text.length / 1e3 / ms).toFixed(2)} MB/s)`);
}
