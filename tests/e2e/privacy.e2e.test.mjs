// Real-host e2e for issue 4 (previews, redaction, decision log, output guard): the packed plugin
// in OpenClaw 2026.9.6 with a decision log file and the output guard on. Proves by real effect:
// - the host grants the tool-result middleware to this installed, explicitly enabled plugin
//   (manifest `contracts.agentToolResultMiddleware`), so a fake AWS key in a tool result (a read
//   of a file, an exec that cats it) is redacted before it reaches the model — the mock model
//   records exactly what it received;
// - the approval preview of a command holding a password shows the command without it;
// - the decision log file exists with mode 0600 and holds decisions, resolutions and guard
//   records, but no raw secret and no raw session key.
// Entry point: tests/e2e/run.sh (one file at a time, each with its own gateway).
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { Harness, readJsonl, TIMEOUTS } from "./lib/harness.mjs";

const TARBALL = process.env.HG_E2E_TARBALL;
const SETUP_TIMEOUT = 6 * 60_000;
const TURN_TIMEOUT = TIMEOUTS.turn + 60_000;

let h;
let logFile;
let secrets; // {keyId, secretKey, password}
let secretFile;

const rand = (alphabet, n) => Array.from(crypto.randomBytes(n), (b) => alphabet[b % alphabet.length]).join("");

function assertNoSecret(text, where) {
  for (const s of Object.values(secrets)) {
    assert.ok(!String(text).includes(s), `a raw secret reached ${where}`);
  }
}

before(async () => {
  assert.ok(TARBALL && fs.existsSync(TARBALL), `HG_E2E_TARBALL must name the packed plugin (got ${TARBALL}); run tests/e2e/run.sh`);
  // run.sh gives the whole run one HG_E2E_DIR, already used by the file before this one: this
  // file takes an empty sub-folder of it (its processes are stopped by h.stop(), also on a signal).
  if (process.env.HG_E2E_DIR) process.env.HG_E2E_DIR = path.join(process.env.HG_E2E_DIR, "privacy");
  h = Harness.create();
  h.stopOnSignals();
  secrets = {
    keyId: `AKIA${rand("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)}`,
    secretKey: rand("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 40),
    password: `Pw${rand("abcdefghijklmnopqrstuvwxyz0123456789", 14)}`,
  };
  secretFile = path.join(h.dir.workspace, "aws-credentials.ini");
  fs.writeFileSync(secretFile, `[default]\naws_access_key_id = ${secrets.keyId}\naws_secret_access_key = ${secrets.secretKey}\nregion = eu-west-1\n`);
  logFile = path.join(h.dir.logs, "hg-decisions.jsonl");
  await h.startAll({ tarball: TARBALL, pluginConfig: { decisionLog: { filePath: logFile } } });
}, { timeout: SETUP_TIMEOUT });

after(async () => {
  const errors = await h?.stop();
  if (errors?.length) console.error("e2e cleanup problems:", errors.map(String).join("\n"));
}, { timeout: 60_000 });

test("the host grants the tool-result middleware: no registration error, after_tool_call observer loaded", { timeout: 120_000 }, async (t) => {
  const info = await h.inspectPlugin();
  assert.equal(info.plugin?.status, "loaded", `plugin status (error: ${info.plugin?.error ?? "none"})`);
  const diags = info.diagnostics ?? [];
  for (const d of diags) t.diagnostic(`inspect diagnostic: ${JSON.stringify(d)}`);
  const refused = diags.filter((d) => /tool result middleware/i.test(String(d.message ?? "")));
  assert.deepEqual(refused, [], "no diagnostic refusing the middleware");
  assert.ok((info.typedHooks ?? []).some((x) => x.name === "after_tool_call"), `after_tool_call registered: ${JSON.stringify(info.typedHooks)}`);
});

test("a key in a read result is redacted before the model sees it, with the guard's notice", { timeout: TURN_TIMEOUT }, async () => {
  const r = await h.turn({ sessionKey: "agent:main:hg-privacy-read", tag: "pr", tool: "read", args: { path: secretFile } });
  assert.equal(r.calls.length, 1);
  assertNoSecret(r.toolText, "the model (read result)");
  assert.match(r.toolText, /\[REDACTED\]/, `the model got the redacted file: ${r.toolText}`);
  assert.match(r.toolText, /region = eu-west-1/, "the rest of the file is intact");
  assert.match(r.toolText, /\[human-gate output guard\]/, "the notice precedes the result");
  assertNoSecret(r.toolResult.text, "the host's transcript");
});

test("an exec that cats the file: the preview hides the password, the model never sees the key", { timeout: TURN_TIMEOUT }, async () => {
  const sessionKey = "agent:main:hg-privacy-exec";
  const command = `MYSQL_PWD=${secrets.password} cat ${secretFile}`;
  const r = await h.turn({ sessionKey, tag: "pe", tool: "exec", args: { command }, decisions: ["allow-once"] });
  assert.equal(r.approvals.length, 1, "one approval request");
  const req = r.approvals[0].request;
  assertNoSecret(`${req.title}\n${req.description}`, "the approval prompt");
  assert.match(req.description, /cat /, `the prompt shows the command: ${req.description}`);
  assert.match(req.description, /MYSQL_PWD=\[REDACTED\]/);
  assert.equal(r.toolResult.isError, false, "the approved command ran");
  assertNoSecret(r.toolText, "the model (exec result)");
  assert.match(r.toolText, /aws_secret_access_key = \[REDACTED\]/, r.toolText);
});

test("the decision log file is 0600 and holds digests, never a raw secret or session key", () => {
  assert.ok(fs.existsSync(logFile), `decision log at ${logFile}`);
  assert.equal(fs.statSync(logFile).mode & 0o777, 0o600, "mode 0600");
  const text = fs.readFileSync(logFile, "utf8");
  assertNoSecret(text, "the decision log");
  assert.ok(!text.includes("hg-privacy-exec") && !text.includes("hg-privacy-read"), "no raw session key");
  const records = readJsonl(logFile);
  const decisions = records.filter((x) => x.type === "decision" && x.tool === "exec");
  assert.ok(decisions.length >= 1, `an exec decision record: ${text}`);
  assert.match(decisions[0].params.digest, /^sha256:[0-9a-f]{64}$/);
  assert.ok(records.some((x) => x.type === "resolution" && x.resolution === "allow-once" && x.resolvedBy === "user"), `a resolution record: ${text}`);
  const guards = records.filter((x) => x.type === "guard" && x.mode === "middleware");
  assert.ok(guards.some((g) => g.findings.some((f) => f.id === "output-credential-leak")), `guard records from the middleware: ${text}`);
  // after_tool_call runs after the middleware: the observer sees the call was handled and
  // stays silent, so no "observed" record duplicates a middleware one.
  assert.deepEqual(records.filter((x) => x.type === "guard" && x.mode === "observed"), [], text);
});
