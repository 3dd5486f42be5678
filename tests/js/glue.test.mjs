// The patched string passing of the generated glue (scripts/patch-glue.mjs): the core receives
// exactly the UTF-8 of every string, whatever its length and mix of ASCII, 2-, 3- and 4-byte
// characters, and wherever the first non-ASCII character falls (before, at or after the point
// where the first encodeInto runs out of room). Checked through the audit record, whose params
// digest is SHA-256 over the params as the core read them: for a one-key object of a string
// without control characters that is exactly JSON.stringify's text.
// Run: node --test tests/js/

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

const require = createRequire(import.meta.url);
const core = require("../../pkg/openclaw_human_gate.js");
const GLUE = new URL("../../pkg/openclaw_human_gate.js", import.meta.url);

function recordOf(params) {
  const record = JSON.parse(core.auditDecision(JSON.stringify({ toolName: "exec", params }), "{}", 1));
  return record.params;
}

function expected(params) {
  const text = JSON.stringify(params);
  return { bytes: Buffer.byteLength(text, "utf8"), digest: `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}` };
}

describe("string passing into the core", () => {
  test("the glue is the patched one", () => {
    assert.match(readFileSync(GLUE, "utf8"), /human-gate: scripts\/patch-glue\.mjs/);
  });

  test("every string reaches the core as its UTF-8, at every length and mix", () => {
    const pieces = ["a", "Z", " ", "é", "ß", "€", "中", "😀", "𝔘", "\u2028", "\u00a0", "~"];
    let seed = 7;
    const rnd = (n) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
    const strings = ["", "a", "é", "😀", "aé", "é".repeat(3), "a".repeat(5000) + "😀", "😀" + "a".repeat(5000)];
    for (let i = 0; i < 600; i++) {
      const asciiPrefix = "x".repeat(rnd(3) === 0 ? rnd(3000) : rnd(20));
      let rest = "";
      const n = rnd(4) === 0 ? rnd(2000) : rnd(30);
      for (let k = 0; k < n; k++) rest += pieces[rnd(pieces.length)];
      strings.push(asciiPrefix + rest);
    }
    for (const s of strings) {
      const params = { command: s };
      assert.deepEqual(recordOf(params), expected(params), `length ${s.length}`);
    }
  });

  test("strings come out of the core as their UTF-8 says: ASCII copied, the rest decoded, across memory growth", () => {
    assert.match(readFileSync(GLUE, "utf8"), /human-gate: scripts\/patch-glue\.mjs \(strings out\)/);
    const engine = new core.Engine("{}");
    // Printable characters only: the core drops control characters from a question.
    const pieces = ["a", "~", "\n", "é", "€", "中", "😀", "ß", "\u00ff", "\u00a1"];
    let seed = 11;
    const rnd = (n) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
    const questions = ["plain ascii", "é", "😀 only", "\u00a1\u00ff latin-1 range"];
    for (let i = 0; i < 300; i++) {
      let q = "";
      for (let k = rnd(60); k > 0; k--) q += pieces[rnd(pieces.length)];
      questions.push(`q${i} ${q}`);
    }
    const ask = (q) => JSON.parse(engine.renderAsk(JSON.stringify({ question: q }))).text;
    for (const [i, q] of questions.entries()) {
      assert.ok(ask(q).includes(q.trim()), `question ${i}: ${JSON.stringify(q)}`);
      // The memory grows under a large call; answers after it still read right.
      if (i === 150) engine.decide(JSON.stringify({ toolName: "write", params: { path: "a", content: "x".repeat(4 << 20) } }));
    }
    // The hook path's answers are ASCII (non-ASCII escaped), copied as they are.
    for (const command of ["ls", "rm -rf ./dist", "echo 'é 😀 中' > out.txt"]) {
      const answer = engine.decideForHook(JSON.stringify({ toolName: "exec", params: { command }, nowMs: 1 }));
      assert.ok(/^[\x00-\x7f]*$/.test(answer), command);
      const view = JSON.parse(answer.slice(0, answer.indexOf("\n")));
      assert.ok(["auto", "approval"].includes(view.decision), command);
      if (view.preview) assert.ok(view.preview.description.includes(command), `${command}: ${view.preview.description}`);
    }
    engine.free();
  });

  test("a lone surrogate reaches the core as U+FFFD, as before", () => {
    for (const s of ["\ud800", "a\udc00b", "x".repeat(100) + "\ud83d", "\ud83d" + "😀"]) {
      const raw = `{"toolName":"exec","params":{"command":"${s}"}}`;
      const record = JSON.parse(core.auditDecision(raw, "{}", 1));
      const fixed = { command: s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd") };
      assert.deepEqual(record.params, expected(fixed), JSON.stringify(s));
    }
  });
});
