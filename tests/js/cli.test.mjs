// The `human-gate` CLI (js-shim/cli.js) as a child process against the built pkg/.
// Run: node --test tests/js/

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv from "ajv";

const ROOT = new URL("../../", import.meta.url);
const CLI = fileURLToPath(new URL("js-shim/cli.js", ROOT));
const ajv = new Ajv({ allErrors: true, strict: false });
const validDecision = ajv.compile(JSON.parse(readFileSync(new URL("schemas/decision.schema.json", ROOT), "utf8")));

function run(args, input = "", env = {}) {
  const childEnv = { ...process.env, ...env };
  if (!("HUMAN_GATE_FAULT" in env)) delete childEnv.HUMAN_GATE_FAULT;
  const r = spawnSync(process.execPath, [CLI, ...args], { input, env: childEnv, encoding: "utf8", maxBuffer: 512 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** Parses stdout as JSON lines; every line must be one valid decision (schemas/decision.schema.json). */
function decisions(stdout) {
  assert.ok(stdout.endsWith("\n") || stdout === "", "output ends with a newline");
  const lines = stdout === "" ? [] : stdout.slice(0, -1).split("\n");
  return lines.map((line) => {
    const d = JSON.parse(line);
    assert.ok(validDecision(d), `${line.slice(0, 300)}\n${JSON.stringify(validDecision.errors)}`);
    return d;
  });
}

const ids = (d) => d.findings.map((f) => f.id);
const line = (obj) => JSON.stringify(obj);

let tmp;
function tmpFile(name, text) {
  tmp ??= mkdtempSync(join(tmpdir(), "human-gate-cli-"));
  const path = join(tmp, name);
  writeFileSync(path, text);
  return path;
}
process.on("exit", () => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("check", () => {
  test("one decision line per non-blank input line, in order, malformed lines included", () => {
    const input = [
      line({ toolName: "read", params: { path: "README.md" } }),
      "",
      line({ toolName: "exec", params: { command: "ls -la" } }),
      "{not json",
      "   \t ",
      line({ toolName: 5, params: [] }),
      line({ toolName: "read", params: {}, surprise: true }),
      '{"toolName":"read","toolName":"exec","params":{}}',
      `${line({ toolName: "apply_patch", params: { patch: "*** Begin Patch" } })}\r`,
      "null",
      line({ toolName: "list_files", params: { dir: "." }, sessionKey: "agent:main:x", nowMs: 1764400000000 }),
    ].join("\n");
    const r = run(["check"], `${input}\n`);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    const out = decisions(r.stdout);
    assert.equal(out.length, 9, "two blank lines skipped, nine answered");
    assert.deepEqual(
      out.map((d) => d.decision),
      ["auto", "approval", "approval", "approval", "approval", "approval", "approval", "approval", "auto"],
    );
    assert.deepEqual(ids(out[1]), ["tool-kind-destructive", "category-read-only"]);
    assert.ok(out[1].allowedDecisions.includes("allow-always"));
    for (const i of [2, 3, 4, 5, 7]) {
      assert.deepEqual(ids(out[i]), ["input-malformed"], `line ${i}: ${JSON.stringify(out[i])}`);
      assert.equal(out[i].reusable, false);
      assert.ok(!out[i].allowedDecisions.includes("allow-always"));
    }
    assert.ok(ids(out[6]).includes("tool-kind-destructive"), "CRLF line decided as apply_patch");
    for (const d of out) {
      for (const key of ["decision", "severity", "reusable", "reason", "findings", "risk", "preview"]) assert.ok(key in d, key);
    }
  });

  test("the last line without a trailing newline is answered; empty input gives no output", () => {
    const r = run(["check"], `${line({ toolName: "read", params: { path: "README.md" } })}\n${line({ toolName: "exec", params: { command: "x" } })}`);
    assert.equal(r.code, 0);
    assert.deepEqual(decisions(r.stdout).map((d) => d.decision), ["auto", "approval"]);
    const empty = run(["check"], "");
    assert.equal(empty.code, 0);
    assert.equal(empty.stdout, "");
    const blanks = run(["check"], "\n\r\n  \n");
    assert.equal(blanks.stdout, "");
  });

  test("very long lines and many lines keep count and order", () => {
    // 1.5 MB: inspected; 7.5 MB: over the core's input limit (input-too-large from the core);
    // 17 M characters: over the CLI's own line limit (input-too-large without reading it all).
    const inspected = line({ toolName: "exec", params: { command: `echo ${"x😀".repeat(300_000)}` } });
    const overCore = line({ toolName: "exec", params: { command: `echo ${"😀x".repeat(1_500_000)}` } });
    const overCli = line({ toolName: "read", params: { content: "y".repeat(17 * 1024 * 1024) } });
    // The 600 000-character command is over semanticAnalysis.maxCommandLength: analysed up to
    // the limit, then it asks (command-too-long).
    const special = {
      500: [inspected, ["tool-kind-destructive", "command-too-long", "category-read-only"]],
      1500: [overCore, ["input-too-large"]],
      2500: [overCli, ["input-too-large"]],
    };
    const lines = [];
    for (let i = 0; i < 3000; i += 1) {
      lines.push(special[i]?.[0] ?? line(i % 2 ? { toolName: "read", params: { path: `f${i}.txt` } } : { toolName: "exec", params: { command: `echo ${i}` } }));
    }
    const r = run(["check"], lines.join("\r\n"));
    assert.equal(r.code, 0, r.stderr);
    const out = decisions(r.stdout);
    assert.equal(out.length, 3000);
    out.forEach((d, i) => {
      const expected = special[i] || i % 2 === 0 ? "approval" : "auto";
      assert.equal(d.decision, expected, `line ${i}`);
    });
    for (const [i, [, findings]] of Object.entries(special)) {
      assert.deepEqual(ids(out[i]), findings, `line ${i}`);
      assert.ok(Array.from(out[i].preview.title).length <= 80);
      assert.ok(Array.from(out[i].preview.description).length <= 512);
    }
    assert.equal(out[1500].reusable, false);
    assert.equal(out[2500].reusable, false);
  });

  test("--config: a broken rule is reported path-qualified on stderr, the rest still decides", () => {
    const config = tmpFile(
      "broken.json",
      JSON.stringify({
        rules: [
          { id: "bad", toolName: "read", mode: "block", paramMatcher: { all: [{ key: "path", eq: "x" }] } },
          { id: "r1", toolName: "exec", mode: "require-approval", severity: "critical" },
          { id: "no-deploy", toolName: "deploy", mode: "block", reason: "deploys need the release train" },
        ],
      }),
    );
    const input = [
      line({ toolName: "read", params: { path: "x" } }),
      line({ toolName: "exec", params: { command: "ls" } }),
      line({ toolName: "deploy", params: {} }),
    ].join("\n");
    for (const args of [["check", "--config", config], ["--config", config, "check"], ["check", `--config=${config}`]]) {
      const r = run(args, input);
      assert.equal(r.code, 0, r.stderr);
      const errLines = r.stderr.split("\n").filter((l) => l.startsWith("human-gate: config: "));
      assert.ok(errLines.length >= 1, r.stderr);
      assert.ok(errLines.every((l) => /^human-gate: config: rules\[0\]\.paramMatcher/.test(l)), r.stderr);
      const out = decisions(r.stdout);
      assert.deepEqual(out.map((d) => d.decision), ["auto", "critical", "block"]);
      assert.ok(!out[1].allowedDecisions.includes("allow-always"));
      assert.equal(out[1].ruleId, "r1");
      assert.match(out[2].reason, /deploys need the release train/);
    }
  });

  test("an unreadable or unparseable config file is reported and the safe defaults decide", () => {
    const input = `${line({ toolName: "exec", params: { command: "ls" } })}\n${line({ toolName: "read", params: { path: "README.md" } })}\n`;
    const missing = run(["check", "--config", join(tmpdir(), "human-gate-does-not-exist.json")], input);
    assert.equal(missing.code, 0);
    assert.match(missing.stderr, /^human-gate: config: cannot read .*does-not-exist\.json/m);
    assert.deepEqual(decisions(missing.stdout).map((d) => d.decision), ["approval", "auto"]);

    const garbage = run(["check", "--config", tmpFile("garbage.json", "{rules: [")], input);
    assert.equal(garbage.code, 0);
    assert.match(garbage.stderr, /^human-gate: config: .*garbage\.json is not valid JSON/m);
    assert.deepEqual(decisions(garbage.stdout).map((d) => d.decision), ["approval", "auto"]);

    const dup = run(["check", "--config", tmpFile("dup.json", '{"defaultMode":"auto","defaultMode":"block"}')], input);
    assert.equal(dup.code, 0);
    assert.match(dup.stderr, /^human-gate: config: .*duplicate/m, "the raw text reaches the core, which rejects duplicate keys");
    assert.equal(decisions(dup.stdout).length, 2);
  });

  for (const fault of ["decide-throw", "decide-trap", "bad-json", "bad-decision", "load-fail"]) {
    test(`core failure (${fault}) → a fail-closed internal-error line per call, never a crash`, () => {
      const input = [line({ toolName: "read", params: {} }), "{bad", line({ toolName: "exec", params: { command: "ls" } })].join("\n");
      const r = run(["check"], input, { HUMAN_GATE_FAULT: fault });
      assert.equal(r.code, 0, r.stderr);
      const out = decisions(r.stdout);
      assert.equal(out.length, 3);
      for (const d of out) {
        assert.equal(d.decision, "approval");
        assert.equal(d.source, "fail-closed");
        assert.equal(d.reusable, false);
        assert.deepEqual(d.allowedDecisions, ["allow-once", "deny"]);
        assert.deepEqual(ids(d), ["internal-error"]);
        assert.ok(d.reason.length > 0);
      }
      assert.equal(out[0].preview.title, "Human Gate could not evaluate read");
      assert.equal(out[2].preview.title, "Human Gate could not evaluate exec");
    });
  }
});

describe("explain", () => {
  test("prints a readable summary from an argument or stdin", () => {
    const call = line({ toolName: "exec", params: { command: "touch ./build/stamp" } });
    const byArg = run(["explain", call]);
    assert.equal(byArg.code, 0, byArg.stderr);
    for (const re of [/^decision: +approval \(severity warning/m, /^reason: +exec/m, /^findings:/m, /tool-kind-destructive/, /^risk: +medium/m, /^approval prompt:/m, /title: +exec/, /description: /, /answers: +allow-once, allow-always, deny/]) {
      assert.match(byArg.stdout, re);
    }
    const byStdin = run(["explain"], `${call}\n`);
    assert.equal(byStdin.code, 0);
    assert.equal(byStdin.stdout, byArg.stdout);
  });

  test("shows critical without allow-always, block with its reason, malformed input as an approval", () => {
    const config = tmpFile(
      "explain.json",
      JSON.stringify({
        rules: [
          { id: "r1", toolName: "exec", mode: "require-approval", severity: "critical" },
          { id: "no-deploy", toolName: "deploy", mode: "block", reason: "deploys need the release train" },
        ],
      }),
    );
    const crit = run(["explain", "--config", config, line({ toolName: "exec", params: { command: "ls" } })]);
    assert.match(crit.stdout, /^decision: +critical .*rule r1/m);
    assert.match(crit.stdout, /answers: +allow-once, deny$/m);
    const block = run(["explain", "--config", config, line({ toolName: "deploy", params: {} })]);
    assert.match(block.stdout, /^decision: +block/m);
    assert.match(block.stdout, /deploys need the release train/);
    assert.match(block.stdout, /approval prompt: none \(the call is blocked/);
    const bad = run(["explain", "{oops"]);
    assert.equal(bad.code, 0);
    assert.match(bad.stdout, /^decision: +approval/m);
    assert.match(bad.stdout, /input-malformed/);
  });

  test("needs a call", () => {
    const r = run(["explain"], "");
    assert.equal(r.code, 2);
    assert.match(r.stderr, /explain needs one call/);
  });
});

describe("usage", () => {
  test("--help prints usage and exits 0; usage errors exit 2", () => {
    const help = run(["--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /usage: human-gate/);
    assert.match(help.stdout, /check \[--config FILE\]/);
    assert.match(help.stdout, /explain/);
    assert.match(help.stdout, /blank lines are skipped/);
    for (const args of [[], ["frobnicate"], ["check", "--bogus"], ["check", "--config"], ["check", "extra"]]) {
      const r = run(args, "");
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, /usage: human-gate/);
      assert.equal(r.stdout, "");
    }
  });

  test("the file is an executable node script (package bin)", () => {
    const text = readFileSync(CLI, "utf8");
    assert.ok(text.startsWith("#!/usr/bin/env node\n"));
    const pkg = JSON.parse(readFileSync(new URL("package.json", ROOT), "utf8"));
    assert.equal(pkg.bin["human-gate"].replace(/^\.\//, ""), "js-shim/cli.js");
  });

  test("validate-config exits 0 for a good file and 1 with every problem for a bad one", () => {
    const good = run(["validate-config", tmpFile("good.json", JSON.stringify({ defaultMode: "auto", rules: [{ id: "a", mode: "block" }] }))]);
    assert.equal(good.code, 0, good.stdout);
    assert.match(good.stdout, /ok, no problems/);
    const bad = run(["validate-config", tmpFile("bad.json", JSON.stringify({ defaultTimeoutMs: 1, rules: [{ mode: "block" }] }))]);
    assert.equal(bad.code, 1);
    const problems = bad.stdout.split("\n").filter((l) => l.startsWith("human-gate: config: "));
    assert.ok(problems.some((l) => l.includes("defaultTimeoutMs")), bad.stdout);
    assert.ok(problems.some((l) => l.includes("rules[0]")), bad.stdout);
    const missing = run(["validate-config", join(tmpdir(), "human-gate-nope.json")]);
    assert.equal(missing.code, 1);
    assert.equal(run(["validate-config"]).code, 2);
  });
});

test("findings prints the core's table and the README documents every finding", () => {
  const r = spawnSync(process.execPath, [CLI, "findings"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const ids = r.stdout.trim().split("\n").map((l) => l.split("\t")[0]);
  assert.ok(ids.length >= 40, `at least 40 findings, got ${ids.length}`);
  assert.equal(new Set(ids).size, ids.length, "finding ids are unique");
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  for (const id of ids) assert.ok(readme.includes(`| \`${id}\` |`), `README documents ${id}`);
});
