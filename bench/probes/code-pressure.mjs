// node bench/probes/code-pressure.mjs [DIR] : how much of a typical call's time is the CPU fetching the
// core's machine code. Two engines of the core take turns on the typical bench calls (core alone,
// `decideForHook`). "shared": both come from identical module bytes, so V8 compiles the code once
// and both run it; "separate": the second module has one extra custom section (the same code,
// compiled a second time), so a pass runs twice as much distinct machine code over the same
// amount of data (each engine has its own memory in both cases). Prints p50/p99 and the base64
// call's median per case (bench/README.md, session 10).
import { createRequire } from "node:module";
import { readFileSync, writeFileSync, mkdtempSync, cpSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
const require = createRequire(import.meta.url);
const dir = process.argv[2] ?? new URL("../..", import.meta.url).pathname;
const PASSES = Number(process.env.PASSES ?? 300);
const config = readFileSync(`${dir}/bench/config.json`, "utf8");
const corpus = readFileSync(`${dir}/bench/corpus.jsonl`, "utf8").split("\n").filter(Boolean).map(JSON.parse)
  .filter((r) => JSON.stringify(r.params ?? {}).length <= 2048);
const base64 = corpus.findIndex((r) => JSON.stringify(r).includes("base64 -d"));

/** A copy of pkg/ whose wasm has `extra` appended (a custom section, or nothing). */
function copyOfCore(tag, extra) {
  const to = mkdtempSync(join(tmpdir(), `hg-code-pressure-${tag}-`));
  cpSync(`${dir}/pkg`, to, { recursive: true });
  const wasm = `${to}/openclaw_human_gate_bg.wasm`;
  writeFileSync(wasm, Buffer.concat([readFileSync(wasm), extra]));
  return { core: require(`${to}/openclaw_human_gate.js`), to };
}
// Custom section: id 0, size, name length, name, payload.
const name = Buffer.from("code-pressure-probe");
const section = Buffer.concat([Buffer.from([0, name.length + 1 + 4, name.length]), name, Buffer.from([1, 2, 3, 4])]);

let n = 0;
const request = (r) => JSON.stringify({ toolName: r.toolName, params: r.params, sessionKey: "agent:main:bench",
  nowMs: 1.7e12 + n, callId: `c${n++}`, sessionId: "s", runId: "r" });
const q = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]; };

function run(label, coreA, coreB) {
  const a = new coreA.Engine(config), b = new coreB.Engine(config);
  for (let k = 0; k < 400; k++) for (const r of corpus) { a.decideForHook(request(r)); b.decideForHook(request(r)); }
  const all = [], b64 = [];
  const time = (e, x) => { const t0 = process.hrtime.bigint(); e.decideForHook(x); return Number(process.hrtime.bigint() - t0) / 1000; };
  for (let k = 0; k < PASSES; k++) corpus.forEach((r, i) => {
    const ta = time(a, request(r)), tb = time(b, request(r));
    all.push(ta, tb);
    if (i === base64) b64.push(ta, tb);
  });
  a.free(); b.free();
  console.log(`${label.padEnd(9)} p50 ${q(all, 50).toFixed(2)} µs  p99 ${q(all, 99).toFixed(2)} µs  base64 median ${q(b64, 50).toFixed(1)} µs`);
}

const one = copyOfCore("a", Buffer.alloc(0));
const same = copyOfCore("b", Buffer.alloc(0));
const other = copyOfCore("c", section);
try {
  for (let i = 0; i < 2; i++) {
    run("shared", one.core, same.core);
    run("separate", one.core, other.core);
  }
} finally {
  for (const c of [one, same, other]) rmSync(c.to, { recursive: true, force: true });
}
