// One source of truth (DESIGN.md invariant 6): the JSON Schemas in schemas/, the manifest's
// configSchema and the Rust core's own validation must agree. Ajv (strict mode) is the oracle
// for the schemas; the built WASM core (pkg/) answers for Rust. Fixture format and the
// path-matching rule: tests/fixtures/config/README.md.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { spawnSync } from "node:child_process";
import { homedir } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import Ajv from "ajv";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const FIXTURES = `${ROOT}tests/fixtures/config`;
const readJson = (p) => JSON.parse(readFileSync(p, "utf8"));

const schemas = {
  config: readJson(`${ROOT}schemas/config.schema.json`),
  request: readJson(`${ROOT}schemas/request.schema.json`),
  decision: readJson(`${ROOT}schemas/decision.schema.json`),
};
// strict: true turns on every Ajv strict check (unknown keywords, ignored "required", types
// used without "type", …). allowUnionTypes lets `"type": ["string", "null"]` through, which is
// standard JSON Schema and what the host's validator supports.
const ajv = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true });
const validators = {};
const validator = (name) => (validators[name] ??= ajv.compile(schemas[name]));

function loadFixtures(dir) {
  return readdirSync(`${FIXTURES}/${dir}`)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => ({ name: `${dir}/${f}`, ...readJson(`${FIXTURES}/${dir}/${f}`) }));
}
const fixtures = {
  valid: loadFixtures("valid"),
  invalid: loadFixtures("invalid"),
  semantic: loadFixtures("semantic-invalid"),
};

// ---------- the core ----------
let core;
let coreLoadError;
try {
  core = createRequire(import.meta.url)("../../pkg/openclaw_human_gate.js");
} catch (e) {
  coreLoadError = e;
}
function requireCore() {
  if (!core) {
    assert.fail(`pkg/ is not built (${coreLoadError?.message}); run \`npm run build\` first`);
  }
  return core;
}
function configErrors(config) {
  const engine = new (requireCore().Engine)(JSON.stringify(config));
  try {
    const errors = JSON.parse(engine.configErrors());
    assert.ok(Array.isArray(errors) && errors.every((e) => typeof e === "string"),
      `configErrors() must be a JSON array of strings, got ${JSON.stringify(errors)}`);
    return errors;
  } finally {
    engine.free();
  }
}

// ---------- paths ----------
// `rules[0].paramMatcher` from Ajv's JSON Pointer `/rules/0/paramMatcher`.
function pointerToPath(pointer) {
  let out = "";
  for (const raw of pointer.split("/").slice(1)) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    out += /^(0|[1-9]\d*)$/.test(seg) ? `[${seg}]` : out === "" ? seg : `.${seg}`;
  }
  return out;
}
// The README's rule: "" is the root; otherwise a prefix followed by ':', '.' or '['.
function isAt(text, path) {
  if (path === "") return true;
  if (!text.startsWith(path)) return false;
  return text.length === path.length || ":.[".includes(text[path.length]);
}
const show = (errors) => JSON.stringify(errors, null, 1);
const ajvErrors = (v) => (v.errors ?? []).map((e) => `${pointerToPath(e.instancePath)}: ${e.message}`);

test("the path-matching rule of the fixtures README", () => {
  assert.equal(pointerToPath("/rules/10/paramMatcher/all/0/key"), "rules[10].paramMatcher.all[0].key");
  assert.equal(pointerToPath(""), "");
  assert.equal(pointerToPath("/a~1b~0c"), "a/b~c");
  assert.ok(isAt("rules[0]: missing \"id\"", "rules[0]"));
  assert.ok(isAt("rules[0].id: too long", "rules[0]"));
  assert.ok(isAt("rules[0]", "rules[0]"));
  assert.ok(isAt("anything", ""));
  assert.ok(!isAt("rules[01].id: x", "rules[0]"));
  assert.ok(!isAt("rules[0]x: y", "rules[0]"));
  assert.ok(!isAt("defaultModeX: y", "defaultMode"));
});

// ---------- schemas ----------
test("every schema compiles under Ajv strict mode", () => {
  for (const [name, schema] of Object.entries(schemas)) {
    assert.equal(schema.$schema, "http://json-schema.org/draft-07/schema#", `${name}: draft-07`);
    validator(name);
  }
});

test("no format: \"regex\" anywhere (JavaScript regex syntax is not the core's regex-lite)", () => {
  for (const [name, schema] of Object.entries(schemas)) {
    assert.ok(!JSON.stringify(schema).includes('"format"'), `${name} uses format`);
  }
});

test("every config property has a description; top-level ones carry the core-api.md default", () => {
  const walk = (node, where) => {
    if (!node || typeof node !== "object") return;
    for (const [key, sub] of Object.entries(node.properties ?? {})) {
      assert.equal(typeof sub.description, "string", `${where}.${key} has no description`);
      walk(sub, `${where}.${key}`);
    }
    for (const [key, sub] of Object.entries(node.definitions ?? {})) walk(sub, `#${key}`);
  };
  walk(schemas.config, "config");
  const defaults = Object.fromEntries(
    Object.entries(schemas.config.properties).map(([k, v]) => [k, v.default]));
  assert.deepEqual(defaults, {
    defaultMode: "require-approval", defaultSeverity: "warning", defaultTimeoutMs: 120000,
    useClassifiers: true, rules: [], readOnlyExec: "require-approval", semanticAnalysis: undefined,
    rememberAllowAlways: true, allowAlwaysTtlMs: 14400000, approvalWindow: undefined, denyCooldownMs: 120000,
    autoPassSessionKeys: [":cron:", ":heartbeat"], unattendedPolicy: undefined, floodDetector: undefined,
    authorizationEnvelopes: undefined, adaptiveFileLease: undefined,
    previews: undefined, decisionLog: undefined, outputGuard: undefined,
  });
  const sa = schemas.config.properties.semanticAnalysis.properties;
  assert.deepEqual(
    Object.fromEntries(Object.entries(sa).map(([k, v]) => [k, v.default])),
    { enabled: true, maxCommandLength: 16384, maxWrapperDepth: 3, maxFindings: 8 });
  // OpenClaw fills schema defaults into the config it hands the plugin, so a rule-level
  // "default" would override the inherited top-level one (e.g. defaultSeverity): none allowed.
  assert.ok(!JSON.stringify(schemas.config.definitions).includes('"default"'),
    "rule-level fields inherit their defaults from the top level and must carry no schema default");
});

test("the manifest's configSchema is the config schema (sync is current)", () => {
  const manifest = readJson(`${ROOT}openclaw.plugin.json`);
  assert.deepEqual(manifest.configSchema, schemas.config,
    "run `node scripts/sync-manifest.mjs`");
  const r = spawnSync(process.execPath, [`${ROOT}scripts/sync-manifest.mjs`, "--check"], { encoding: "utf8" });
  assert.equal(r.status, 0, `sync-manifest --check: ${r.stderr}`);
});

// ---------- config fixtures ----------
test("fixture folders are well-formed", () => {
  assert.ok(fixtures.valid.length >= 12, "at least 12 valid fixtures");
  assert.ok(fixtures.invalid.length >= 25, "at least 25 invalid fixtures");
  assert.ok(fixtures.semantic.length >= 2, "semantic-invalid fixtures");
  for (const f of [...fixtures.valid, ...fixtures.invalid, ...fixtures.semantic]) {
    const expectPath = !f.name.startsWith("valid/");
    const allowed = expectPath ? ["config", "description", "expectErrorPath"] : ["config", "description"];
    assert.deepEqual(Object.keys(f).filter((k) => k !== "name").sort(), allowed, f.name);
    assert.equal(typeof f.description, "string", f.name);
    if (expectPath) assert.equal(typeof f.expectErrorPath, "string", f.name);
  }
});

for (const f of fixtures.valid) {
  test(`valid: ${f.name}`, () => {
    const v = validator("config");
    assert.ok(v(f.config), `Ajv rejects it: ${show(ajvErrors(v))}`);
    const errors = configErrors(f.config);
    assert.deepEqual(errors, [], `the core rejects it: ${show(errors)}`);
  });
}

for (const f of fixtures.invalid) {
  test(`invalid: ${f.name} (at "${f.expectErrorPath}")`, () => {
    const v = validator("config");
    assert.equal(v(f.config), false, "Ajv accepts it");
    const ajvAt = (v.errors ?? []).some((e) => isAt(pointerToPath(e.instancePath), f.expectErrorPath));
    assert.ok(ajvAt, `no Ajv error at "${f.expectErrorPath}": ${show(ajvErrors(v))}`);
    const errors = configErrors(f.config);
    assert.ok(errors.some((e) => isAt(e, f.expectErrorPath)),
      `no core error at "${f.expectErrorPath}": ${show(errors)}`);
  });
}

for (const f of fixtures.semantic) {
  test(`semantic-invalid: ${f.name} (schema accepts, core rejects at "${f.expectErrorPath}")`, () => {
    const v = validator("config");
    assert.ok(v(f.config), `Ajv rejects it, so it belongs in invalid/: ${show(ajvErrors(v))}`);
    const errors = configErrors(f.config);
    assert.ok(errors.some((e) => isAt(e, f.expectErrorPath)),
      `no core error at "${f.expectErrorPath}": ${show(errors)}`);
  });
}

// ---------- the host's own validator (when the e2e cache has OpenClaw) ----------
// OpenClaw validates plugins.entries.human-gate.config against the manifest's configSchema with
// its own TypeBox-based validator, not Ajv. When tests/e2e/install-host.sh has cached the host,
// check it reaches the same verdict as Ajv on every fixture.
async function loadHostValidator() {
  const cache = process.env.HG_CACHE
    ?? `${process.env.XDG_CACHE_HOME ?? `${homedir()}/.cache`}/openclaw-human-gate`;
  const dist = `${cache}/openclaw/node_modules/openclaw/dist`;
  if (!existsSync(dist)) return { skip: `no OpenClaw in ${cache} (tests/e2e/install-host.sh installs it)` };
  for (const f of readdirSync(dist).filter((n) => /^schema-validator-.*\.mjs$/.test(n))) {
    const m = await import(pathToFileURL(`${dist}/${f}`).href);
    if (typeof m.validatePluginSchemaValue === "function") return { validate: m.validatePluginSchemaValue };
  }
  return { skip: "this OpenClaw build exports no validatePluginSchemaValue" };
}
const host = await loadHostValidator();

test("OpenClaw's own validator agrees with Ajv on every fixture", { skip: host.skip }, () => {
  const manifest = readJson(`${ROOT}openclaw.plugin.json`);
  const disagreements = [];
  for (const f of [...fixtures.valid, ...fixtures.invalid, ...fixtures.semantic]) {
    const expected = !f.name.startsWith("invalid/");
    const r = host.validate({
      schema: manifest.configSchema, value: structuredClone(f.config), applyDefaults: true,
      cache: false,
    });
    if (r.schemaError) assert.fail(`the host rejects the schema itself: ${show(r.errors)}`);
    if (r.ok !== expected) {
      disagreements.push(`${f.name}: host says ${r.ok ? "valid" : show(r.errors?.map((e) => e.text))}`);
    }
  }
  assert.deepEqual(disagreements, []);
});

// ---------- requests and decisions ----------
const CORPUS_CONFIG = {
  rules: [
    { id: "block-rm-root", toolName: "exec", paramMatcher: { all: [{ key: "command", equals: "rm -rf /" }] },
      mode: "block", reason: "never delete the root filesystem" },
    { id: "critical-gateway", toolName: "exec", paramMatcher: { all: [{ key: "host", equals: "gateway" }] },
      mode: "require-approval", severity: "critical" },
    { id: "status-ok", toolName: "git_status", mode: "auto" },
    { id: "narrow-answers", toolName: "deploy_site", mode: "require-approval", allowedDecisions: ["allow-once", "deny"], timeoutMs: 30000 },
  ],
};
const req = (toolName, params, extra = {}) => JSON.stringify({ toolName, params, ...extra });
// [label, config, request text, expected class, expected source or null]
const DECISION_CORPUS = [
  ["read", CORPUS_CONFIG, req("read", { path: "README.md" }), "auto", null],
  ["list (classifier read-only)", CORPUS_CONFIG, req("list_files", { dir: "." }), "auto", "classifier"],
  ["exec", CORPUS_CONFIG, req("exec", { command: "touch /tmp/marker" }), "approval", null],
  ["apply_patch", CORPUS_CONFIG, req("apply_patch", { input: "*** Begin Patch\n*** End Patch" }), "approval", null],
  ["code mode", CORPUS_CONFIG, req("code", { code: "await fs.rm('x')" }, { toolKind: "code_mode_exec", toolInputKind: "javascript" }), "approval", null],
  ["delete (classifier destructive)", CORPUS_CONFIG, req("delete_file", { path: "a" }), "approval", "classifier"],
  ["unknown tool → defaultMode", CORPUS_CONFIG, req("frobnicate", {}), "approval", "default"],
  ["block rule", CORPUS_CONFIG, req("exec", { command: "rm -rf /" }), "block", "rule"],
  ["critical rule", CORPUS_CONFIG, req("exec", { command: "ls", host: "gateway" }), "critical", "rule"],
  ["auto rule", CORPUS_CONFIG, req("git_status", {}), "auto", "rule"],
  ["rule with narrowed answers", CORPUS_CONFIG, req("deploy_site", { env: "prod" }), "approval", "rule"],
  ["all optional fields", CORPUS_CONFIG, req("read", { path: "a" }, { sessionKey: "agent:main:x", derivedPaths: ["a"], nowMs: 1764400000000 }), "auto", null],
  ["control and bidi characters", CORPUS_CONFIG, req("exec", { command: "echo \u001b[31mred\u001b[0m \u202egnp.exe\u0007" }), "approval", null],
  ["long command", CORPUS_CONFIG, req("exec", { command: `echo ${"x".repeat(5000)}` }), "approval", null],
  ["defaultMode block", { defaultMode: "block", useClassifiers: false }, req("frobnicate", {}), "block", "default"],
  ["defaultMode auto", { defaultMode: "auto", useClassifiers: false }, req("frobnicate", {}), "auto", "default"],
  ["default severity critical", { defaultSeverity: "critical" }, req("frobnicate", {}), "critical", "default"],
  ["broken config still gates", { defaultMode: "nope", rules: "x" }, req("exec", { command: "ls" }), "approval", null],
  ["malformed: not JSON", CORPUS_CONFIG, "{not json", "approval", "fail-closed"],
  ["malformed: empty", CORPUS_CONFIG, "", "approval", "fail-closed"],
  ["malformed: array", CORPUS_CONFIG, "[]", "approval", "fail-closed"],
  ["malformed: missing params", CORPUS_CONFIG, '{"toolName":"read"}', "approval", "fail-closed"],
  ["malformed: unknown field", CORPUS_CONFIG, req("read", {}, { extra: 1 }), "approval", "fail-closed"],
  ["malformed: duplicate key", CORPUS_CONFIG, '{"toolName":"read","toolName":"exec","params":{}}', "approval", "fail-closed"],
  ["malformed: params not object", CORPUS_CONFIG, '{"toolName":"read","params":[]}', "approval", "fail-closed"],
];

test("every decision in a small corpus validates against decision.schema.json", () => {
  const { Engine } = requireCore();
  const v = validator("decision");
  const failures = [];
  const engines = new Map();
  try {
    for (const [label, config, text, cls, source] of DECISION_CORPUS) {
      if (!engines.has(config)) engines.set(config, new Engine(JSON.stringify(config)));
      const out = engines.get(config).decide(text);
      let d;
      try {
        d = JSON.parse(out);
      } catch {
        failures.push(`${label}: decide() returned non-JSON: ${out.slice(0, 200)}`);
        continue;
      }
      if (!v(d)) failures.push(`${label}: ${show(ajvErrors(v))} in ${out}`);
      if (d.decision !== cls) failures.push(`${label}: expected ${cls}, got ${d.decision} (${d.reason})`);
      if (source && d.source !== source) failures.push(`${label}: expected source ${source}, got ${d.source}`);
      if (source === "fail-closed" && !d.findings?.some((f) => f.id === "input-malformed")) {
        failures.push(`${label}: no input-malformed finding`);
      }
    }
  } finally {
    for (const e of engines.values()) e.free();
  }
  assert.deepEqual(failures, []);
});

// request.schema.json and the core's request parser must agree on what is well-formed: a
// request the schema accepts is decided normally; one it rejects gets "input-malformed".
const REQUESTS = [
  { toolName: "read", params: {} },
  { toolName: "read", params: { path: "a", nested: { deep: [1, { x: null }] } } },
  { toolName: "exec", params: { command: "ls" }, toolKind: "code_mode_exec", toolInputKind: "javascript",
    sessionKey: "agent:main:x", derivedPaths: ["a.txt", "b/c"], nowMs: 1764400000000 },
  { toolName: "read", params: {}, toolKind: null, toolInputKind: null, sessionKey: null, derivedPaths: null, nowMs: null },
  { toolName: "read", params: {}, derivedPaths: [] },
  { toolName: "read", params: {}, extra: 1 },
  { toolName: "", params: {} },
  { toolName: 5, params: {} },
  { toolName: null, params: {} },
  { toolName: "read" },
  { params: {} },
  { toolName: "read", params: [] },
  { toolName: "read", params: null },
  { toolName: "read", params: "path=a" },
  { toolName: "read", params: {}, toolKind: 1 },
  { toolName: "read", params: {}, toolInputKind: [] },
  { toolName: "read", params: {}, sessionKey: {} },
  { toolName: "read", params: {}, derivedPaths: "a" },
  { toolName: "read", params: {}, derivedPaths: [1] },
  { toolName: "read", params: {}, nowMs: "1764400000000" },
  { toolName: "read", params: {}, nowMs: true },
  [],
  "read",
  null,
];

test("request.schema.json and the core agree on which requests are well-formed", () => {
  const { Engine } = requireCore();
  const v = validator("request");
  const engine = new Engine("{}");
  const disagreements = [];
  try {
    for (const r of REQUESTS) {
      const schemaOk = v(r);
      const d = JSON.parse(engine.decide(JSON.stringify(r)));
      const coreOk = !d.findings.some((f) => f.id === "input-malformed");
      if (schemaOk !== coreOk) {
        disagreements.push(`${JSON.stringify(r)}: schema ${schemaOk ? "accepts" : "rejects"}, core ${coreOk ? "accepts" : `rejects (${d.reason})`}`);
      }
    }
  } finally {
    engine.free();
  }
  assert.deepEqual(disagreements, []);
});

// ---------- the bench's inputs are contract data too ----------
test("bench/config.json is a valid config; bench/corpus.jsonl holds valid requests whose decisions are valid", () => {
  const cfg = readJson(`${ROOT}bench/config.json`);
  const vc = validator("config");
  assert.ok(vc(cfg), `Ajv rejects bench/config.json: ${show(ajvErrors(vc))}`);
  assert.deepEqual(configErrors(cfg), [], "the core rejects bench/config.json");
  const vr = validator("request");
  const lines = readFileSync(`${ROOT}bench/corpus.jsonl`, "utf8").split("\n").filter((l) => l.trim() !== "");
  assert.ok(lines.length >= 50, "the bench corpus has at least 50 calls");
  const vd = validator("decision");
  const engine = new (requireCore().Engine)(JSON.stringify(cfg));
  try {
    lines.forEach((line, i) => {
      assert.ok(vr(JSON.parse(line)), `bench/corpus.jsonl line ${i + 1}: ${show(ajvErrors(vr))}`);
      const out = engine.decide(line);
      assert.ok(vd(JSON.parse(out)), `decision for bench/corpus.jsonl line ${i + 1}: ${show(ajvErrors(vd))} in ${out.slice(0, 300)}`);
    });
  } finally {
    engine.free();
  }
});

// ---------- differential: random configs near the valid fixtures ----------
// A seeded mutation fuzzer (deterministic, ~4000 configs): whatever Ajv accepts the core must
// accept with no error (but for the semantic-invalid/ classes), and whatever Ajv rejects the
// core must report. Seeds are the valid
// fixtures; mutations swap in boundary values, drop keys and add known or unknown keys.
test("Ajv and the core agree on 4000 seeded random mutations of the valid fixtures", () => {
  const v = validator("config");
  let seed = 0x5eed;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x80000000;
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const VALUES = [null, true, false, 0, 1, -1, 999, 1000, 1000.5, 600000, 600001, 1.5, "", "x",
    "a.b", "a[", "__proto__", "constructor", "prototype", "deny", "allow-once", "allow-always", "auto", "block",
    "require-approval", "critical", "info", "warning", [], [1], ["deny"], ["deny", "deny"], {},
    { all: [] }, { key: "k", equals: 1 }, { key: "k", missing: true }, "(", "k".repeat(129), "x".repeat(201)];
  const KEYS = ["id", "mode", "toolName", "toolNamePattern", "toolKind", "paramMatcher", "severity",
    "allowedDecisions", "timeoutMs", "reason", "all", "any", "key", "equals", "in", "missing", "eq",
    "rules", "defaultMode", "defaultSeverity", "defaultTimeoutMs", "useClassifiers", "extra"];
  const mutate = (x, depth = 0) => {
    if (rnd() < 0.15 || depth > 6) return structuredClone(pick(VALUES));
    if (Array.isArray(x)) {
      const y = x.map((e) => (rnd() < 0.5 ? mutate(e, depth + 1) : e));
      if (rnd() < 0.1) y.push(structuredClone(pick(VALUES)));
      if (rnd() < 0.1) y.pop();
      return y;
    }
    if (x && typeof x === "object") {
      const y = {};
      for (const [k, e] of Object.entries(x)) {
        const r = rnd();
        if (r >= 0.05) y[k] = r < 0.5 ? mutate(e, depth + 1) : e;
      }
      if (rnd() < 0.2) y[pick(KEYS)] = structuredClone(pick(VALUES));
      return y;
    }
    return rnd() < 0.5 ? structuredClone(pick(VALUES)) : x;
  };
  const seeds = fixtures.valid.map((f) => f.config).filter((c) => JSON.stringify(c).length < 20000);
  const disagreements = [];
  let accepted = 0;
  for (let i = 0; i < 4000 && disagreements.length < 10; i++) {
    const cfg = mutate(pick(seeds));
    if (cfg === null || typeof cfg !== "object" || Array.isArray(cfg)) continue;
    const ajvOk = v(cfg);
    const errors = configErrors(cfg);
    if (ajvOk) accepted++;
    // The documented limit of the schema (semantic-invalid/): once Ajv has accepted a config,
    // an error at a rule's id can only be a duplicate id, and one at its toolNamePattern only
    // the pattern's regex-lite syntax or size.
    if (ajvOk && errors.length > 0 && errors.every((e) => /^rules\[\d+\]\.(id|toolNamePattern):/.test(e))) continue;
    if (ajvOk !== (errors.length === 0)) {
      disagreements.push(`${JSON.stringify(cfg)}\n  Ajv: ${ajvOk ? "valid" : show(ajvErrors(v))}\n  core: ${show(errors)}`);
    }
  }
  assert.deepEqual(disagreements, []);
  assert.ok(accepted > 200 && accepted < 3800, `the mutations should mix valid and invalid configs (${accepted} valid)`);
});
