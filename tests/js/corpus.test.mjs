// The decision corpus (tests/corpus/*.jsonl) through the built WASM and the real CLI
// (`human-gate check`), so the shipped path is held to the same answers as the native core
// (tests/corpus.rs). Cases are grouped by config: one CLI run per distinct config.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CLI = path.join(ROOT, "js-shim/cli.js");
const DIR = path.join(ROOT, "tests/corpus");

function loadCases() {
  const cases = [];
  for (const file of fs.readdirSync(DIR).filter((f) => f.endsWith(".jsonl") && f !== "secrets.jsonl").sort()) {
    fs.readFileSync(path.join(DIR, file), "utf8").split("\n").forEach((line, i) => {
      if (line.trim()) cases.push({ at: `${file}:${i + 1}`, ...JSON.parse(line) });
    });
  }
  return cases;
}

function runCli(cases, config) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "hg-corpus-"));
  try {
    const cfg = path.join(tmp, "config.json");
    fs.writeFileSync(cfg, JSON.stringify(config));
    const input = cases
      .map((c) => JSON.stringify({ toolName: c.toolName, params: c.params, ...(c.toolKind ? { toolKind: c.toolKind } : {}) }))
      .join("\n");
    const r = spawnSync(process.execPath, [CLI, "check", "--config", cfg], { input, encoding: "utf8", maxBuffer: 64 << 20 });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

test("every corpus case decides the same through the WASM CLI", () => {
  const cases = loadCases();
  assert.ok(cases.length > 0, "the corpus is not empty");
  const groups = new Map();
  for (const c of cases) {
    const key = JSON.stringify(c.config ?? {});
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(c);
  }
  const failures = [];
  for (const [key, group] of groups) {
    const out = runCli(group, JSON.parse(key));
    assert.equal(out.length, group.length, "one decision line per case");
    group.forEach((c, i) => {
      const d = out[i];
      const ids = new Set(d.findings.map((f) => f.id));
      const problems = [];
      if (d.decision !== c.decision) problems.push(`decision ${d.decision} (expected ${c.decision})`);
      for (const f of c.findings ?? []) if (!ids.has(f)) problems.push(`missing finding ${f}`);
      for (const f of c.absent ?? []) if (ids.has(f)) problems.push(`unexpected finding ${f}`);
      if (c.reusable !== undefined && d.reusable !== c.reusable) problems.push(`reusable ${d.reusable}`);
      if (problems.length) failures.push(`${c.at} ${c.id}: ${problems.join("; ")} — got [${[...ids].join(", ")}]`);
    });
  }
  assert.deepEqual(failures, [], `${failures.length} of ${cases.length} corpus cases fail:\n${failures.join("\n")}`);
});
