// node bench/probes/large-calls.mjs [DIR] : the typical calls through the gate hook, as bench/run.mjs
// times them, with the corpus's large calls (> 2 KB of params) in the loop: none, each one alone,
// all of them, or a 100 µs busy wait in their place (time away without touching memory).
// Prints the typical p50/p99 and the medians of the slowest calls per case (bench/README.md,
// session 10): what each large call costs the typical calls after it.
import { pathToFileURL } from "node:url";
import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
const dir = process.argv[2] ?? new URL("../..", import.meta.url).pathname;
const mode = process.argv[3];
const corpus = readFileSync(`${dir}/bench/corpus.jsonl`, "utf8").split("\n").filter(Boolean).map(JSON.parse);
const isLarge = corpus.map((r) => JSON.stringify(r.params ?? {}).length > 2048);

if (mode === undefined) {
  // One fresh process per case, so that no case inherits another's state.
  const cases = ["none", ...isLarge.flatMap((l, i) => (l ? [`only:${i}`] : [])), "all", "spin"];
  for (const c of cases) {
    const out = spawnSync(process.execPath, [new URL(import.meta.url).pathname, dir, c], { encoding: "utf8" });
    process.stdout.write(out.stdout || out.stderr);
  }
  process.exit(0);
}

const { makeFakeApi } = await import(pathToFileURL(`${dir}/bench/fake-api.mjs`).href);
const config = JSON.parse(readFileSync(`${dir}/bench/config.json`, "utf8"));
const { api, hooks } = makeFakeApi(config);
const shim = (await import(pathToFileURL(`${dir}/js-shim/index.js`).href)).default;
const { processState } = await import(pathToFileURL(`${dir}/js-shim/core.js`).href);
shim.register(api);
const warm = processState().warmup;
if (warm?.done) { const t = setInterval(() => {}, 1000); await warm.done; clearInterval(t); }
const gate = hooks.find((h) => h.hookName === "before_tool_call" && h.priority === 60).handler;
const later = hooks.filter((h) => h.hookName === "before_tool_call" && h.priority !== 60);
const runs = (i) => !isLarge[i] || mode === "all" || mode === `only:${i}`;
const perCall = corpus.map(() => []);
const all = [];
let seq = 0;
for (let pass = 0; pass < 220; pass++) {
  corpus.forEach((req, i) => {
    if (isLarge[i] && mode === "spin") {
      const end = process.hrtime.bigint() + 100000n;
      while (process.hrtime.bigint() < end);
      return;
    }
    if (!runs(i)) return;
    const id = `p${seq++}`;
    const event = { toolName: req.toolName, params: req.params, runId: "run-bench", toolCallId: id };
    const ctx = { toolName: req.toolName, agentId: "main", sessionKey: "agent:main:bench", sessionId: "session-bench", runId: "run-bench", toolCallId: id };
    const t0 = process.hrtime.bigint();
    const result = gate(event, ctx);
    const t1 = process.hrtime.bigint();
    if (!result?.block) for (const h of later) h.handler(event, ctx);
    if (pass >= 20 && !isLarge[i]) {
      const us = Number(t1 - t0) / 1000;
      perCall[i].push(us);
      all.push(us);
    }
  });
}
const q = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]; };
const median = (needle) => q(perCall[corpus.findIndex((r) => JSON.stringify(r).includes(needle))], 50).toFixed(1);
console.log(`${mode.padEnd(8)} typical p50 ${q(all, 50).toFixed(1)} p99 ${q(all, 99).toFixed(1)} µs; medians: base64 ${median("base64 -d")}, AWS ${median("AWS_SECRET")}, chroot ${median("chroot")}, git status ${median("git status")}`);
