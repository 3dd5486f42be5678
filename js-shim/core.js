// The one place that loads the WebAssembly policy core and keeps its engine.
//
// Owns: loading `pkg/openclaw_human_gate.js` synchronously (OpenClaw's `register` must be
// synchronous), the one process-wide Engine on `globalThis[Symbol.for("openclaw-human-gate")]`
// (plugin registrations run in separate module instances and must share it), rebuilding it
// when the config JSON or the package version changes or after a WebAssembly trap, the
// per-process secret that keys the core's exact-call keys (src/scope.rs: drawn here because the
// core is pure and makes no randomness; it never leaves the process and is never logged), the
// fail-closed decision used when anything fails, text bounding for the host, and the fault
// injection seam the tests use. Shared by the plugin shim (index.js) and the CLI (cli.js).
//
// Non-goals: policy. Every decision comes from the core; this file only checks that the
// answer has a known class and turns failures into "a person must decide".
//
// Invariants: nothing here throws past `decideOrFailClosed`; a trap poisons the whole WASM
// instance (its stack pointer and allocator may be mid-update), so the module is re-required
// and instantiated afresh on the next call, never reused.

import { createHash, hash as oneShotHash, randomBytes } from "node:crypto";
import { createRequire } from "node:module";

const STATE_KEY = Symbol.for("openclaw-human-gate");
/** Bumped when the shape of the process-wide state changes between package versions. */
const STATE_LAYOUT = 4;
const CORE_SPECIFIER = "../pkg/openclaw_human_gate.js";
const localRequire = createRequire(import.meta.url);

/** Host bounds for approval text, in code points (longer text makes the host block the call). */
export const TITLE_MAX = 80;
export const DESCRIPTION_MAX = 512;
/** Same default as the core's `defaultTimeoutMs`; used only by the fail-closed answer. */
export const FAIL_CLOSED_TIMEOUT_MS = 120000;
/** Decision classes of the contract (docs/core-api.md). */
export const DECISION_CLASSES = Object.freeze(["auto", "approval", "critical", "block"]);
/**
 * Test-only faults: call `__setFaultForTests`, or set HUMAN_GATE_FAULT to one of these before the
 * process starts (the variable is read when the core is loaded and when an engine is built, not
 * on every decision: reading `process.env` costs more than the rest of the lookup).
 */
export const FAULTS = Object.freeze(["decide-throw", "decide-trap", "bad-json", "bad-decision", "load-fail"]);

const PACKAGE_VERSION = readPackageVersion();

function readPackageVersion() {
  try {
    const pkg = localRequire("../package.json");
    return typeof pkg?.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}

/** The process-wide state shared by every module instance of this package. */
export function processState() {
  let state = globalThis[STATE_KEY];
  if (state === null || typeof state !== "object" || state.layout !== STATE_LAYOUT) {
    state = {
      layout: STATE_LAYOUT,
      core: null, // the loaded pkg module (exports Engine, coreVersion)
      coreVersion: null,
      corePackageVersion: null,
      reloadCore: false, // set after a trap: the next load instantiates a fresh module
      engine: null,
      engineConfig: null, // the config JSON the engine was built from
      engineVersion: null, // the package version that built it
      configErrors: [],
      loggedConfigKeys: new Set(),
      builds: 0, // engines built in this process (tests and diagnostics)
      traps: 0, // traps seen (each poisons the instance)
      fault: null, // test fault override; null = the HUMAN_GATE_FAULT one
      envFault: null, // HUMAN_GATE_FAULT as last read (see readEnvFault)
      seals: new Map(), // index.js: parameter snapshots awaiting the sealing hook
      decisionLogs: new Map(), // audit.js: one decision log (ring, file) per decisionLog config
      guarded: new Set(), // guard.js: tool call ids the result middleware already scanned
      sessionCallSeq: 0, // session.js: call ids unique in this process
      sessionCallPrefix: null,
      warmup: null, // warmup.js: the run for the loaded core (status, counts, done)
      keySecret: null, // see engineSecret
    };
    globalThis[STATE_KEY] = state;
  }
  return state;
}

/** Sets (or clears with null) a test fault for every module instance in this process. */
export function __setFaultForTests(fault) {
  if (fault !== null && !FAULTS.includes(fault)) throw new Error(`unknown fault ${JSON.stringify(fault)}`);
  processState().fault = fault;
}

/** Reads HUMAN_GATE_FAULT into the state: when the core is loaded and when an engine is built. */
function readEnvFault(state) {
  const env = process.env.HUMAN_GATE_FAULT;
  state.envFault = env && FAULTS.includes(env) ? env : null;
}

function activeFault(state) {
  return state.fault ?? state.envFault;
}

/** A trap (Rust panic or abort), a stack overflow inside the module, or wasm-bindgen's
 * borrow flag left set by one: the instance can no longer be trusted. */
export function isTrap(err) {
  if (err instanceof WebAssembly.RuntimeError || err instanceof RangeError) return true;
  return err instanceof Error && /recursive use of an object|unsafe aliasing/.test(err.message);
}

function loadCore(state) {
  readEnvFault(state);
  if (activeFault(state) === "load-fail") throw new Error("injected fault load-fail: the core could not be loaded");
  if (state.core !== null && !state.reloadCore && state.corePackageVersion === PACKAGE_VERSION) return state.core;
  const path = localRequire.resolve(CORE_SPECIFIER);
  if (state.reloadCore) delete localRequire.cache[path];
  const core = localRequire(path);
  if (typeof core?.Engine !== "function") throw new Error(`${CORE_SPECIFIER} does not export Engine`);
  state.core = core;
  state.coreVersion = typeof core.coreVersion === "function" ? String(core.coreVersion()) : "unknown";
  state.corePackageVersion = PACKAGE_VERSION;
  state.reloadCore = false;
  return core;
}

function dropEngine(state) {
  const engine = state.engine;
  state.engine = null;
  state.engineConfig = null;
  state.engineVersion = null;
  if (engine !== null) {
    // free() unregisters the engine from wasm-bindgen's FinalizationRegistry first, so a
    // poisoned instance is never touched from a finalizer (an uncaught error there would
    // take the whole host process down).
    try {
      engine.free();
    } catch {
      // the instance is poisoned or already gone; nothing left to release
    }
  }
}

/** Drops the engine and the module instance after a trap: the next call loads a fresh one. */
export function poison(state) {
  state.traps += 1;
  dropEngine(state);
  state.core = null;
  state.reloadCore = true;
}

function parseConfigErrors(raw) {
  try {
    const list = JSON.parse(raw);
    if (Array.isArray(list) && list.every((e) => typeof e === "string")) return list;
  } catch {
    // fall through
  }
  return [`the core reported its config errors in an unreadable form: ${boundText(String(raw), 200)}`];
}

/**
 * The 128-bit secret (32 hex digits) that keys the core's exact-call keys: an exact-repeat
 * lease grants by that key, so the agent must not be able to compute it (docs/core-api.md).
 * Drawn once per process with `node:crypto`; every engine of the process gets the same one. A
 * value the core refuses makes `new Engine` throw, and every caller then fails closed.
 */
export function engineSecret(state) {
  if (state.keySecret === null || state.keySecret === undefined) state.keySecret = randomBytes(16).toString("hex");
  return state.keySecret;
}

/**
 * Returns the process engine for this config, building it when the config JSON or the package
 * version changed (or after a trap). `firstTime` is true once per distinct config per process,
 * so callers log config errors once. Throws when the core cannot be loaded. With `lookOnly`
 * nothing is ever built: the engine is null unless the process engine is this config's (the
 * warm-up's hooks look, never build: index.js hookDecide).
 */
export function acquireEngine(configJson, lookOnly = false) {
  const state = processState();
  // The same config text is usually the very same string (the gate's closure), so `===` is
  // an identity check; the version is compared on its own (no per-call concatenation).
  if (
    state.engine !== null &&
    state.engineConfig === configJson &&
    state.engineVersion === PACKAGE_VERSION &&
    activeFault(state) !== "load-fail"
  ) {
    return { engine: state.engine, errors: state.configErrors, firstTime: false, state };
  }
  if (lookOnly) return { engine: null, errors: [], firstTime: false, state };
  const core = loadCore(state); // reads HUMAN_GATE_FAULT
  let engine;
  let errors;
  try {
    engine = new core.Engine(configJson, engineSecret(state));
    errors = parseConfigErrors(engine.configErrors());
  } catch (err) {
    if (isTrap(err)) poison(state);
    throw err;
  }
  dropEngine(state);
  state.engine = engine;
  state.engineConfig = configJson;
  state.engineVersion = PACKAGE_VERSION;
  state.configErrors = errors;
  state.builds += 1;
  const key = `${PACKAGE_VERSION}\n${configJson}`;
  const firstTime = !state.loggedConfigKeys.has(key);
  if (firstTime) {
    if (state.loggedConfigKeys.size >= 64) state.loggedConfigKeys.clear();
    state.loggedConfigKeys.add(key);
  }
  return { engine, errors, firstTime, state };
}

/** Calls the engine, turning a trap into a poisoned (dropped) instance before rethrowing. */
export function callEngine(state, fn) {
  try {
    return fn();
  } catch (err) {
    if (isTrap(err)) poison(state);
    throw err;
  }
}

/** The JSON text each decision object of `decide` was parsed from (see `decisionText`). */
const DECISION_TEXT = new WeakMap();

/** The core's JSON text of a decision returned by `decide`, or undefined (e.g. a fail-closed one). */
export function decisionText(decision) {
  return decision !== null && typeof decision === "object" ? DECISION_TEXT.get(decision) : undefined;
}

/** Calls `method` of the engine with the request, through the fault seam. Returns raw text. */
function engineAnswer(state, engine, fault, method, requestJson) {
  return callEngine(state, () => {
    if (fault === "decide-throw") throw new Error("injected fault decide-throw: the core threw");
    if (fault === "decide-trap") throw new WebAssembly.RuntimeError("unreachable (injected fault decide-trap)");
    if (fault === "bad-json") return "{\"decision\": \"appro";
    return engine[method](requestJson);
  });
}

/** Parses and shape-checks one decision text of the core. Throws on any failure. */
function parseDecision(text, fault) {
  let decision;
  try {
    decision = JSON.parse(text);
  } catch (err) {
    throw new Error(`the core answered text that is not JSON (${err.message})`);
  }
  if (decision === null || typeof decision !== "object" || Array.isArray(decision)) {
    throw new Error("the core answered JSON that is not a decision object");
  }
  if (fault === "bad-decision") decision.decision = "maybe";
  if (!DECISION_CLASSES.includes(decision.decision)) {
    throw new Error(`the core answered an unknown decision ${boundText(JSON.stringify(decision.decision) ?? "undefined", 40)}`);
  }
  return decision;
}

/**
 * One decision from the core, parsed and shape-checked. Throws on any failure (load, trap,
 * non-JSON answer, unknown class); `decideOrFailClosed` is the non-throwing wrapper.
 */
export function decide(configJson, requestJson) {
  const { engine, state } = acquireEngine(configJson);
  const fault = activeFault(state);
  const raw = engineAnswer(state, engine, fault, "decide", requestJson);
  if (typeof raw !== "string") throw new Error(`the core answered a ${typeof raw}, not JSON text`);
  const decision = parseDecision(raw, fault);
  DECISION_TEXT.set(decision, raw);
  return decision;
}

/**
 * Never throws: the core's decision, or the fail-closed approval with the reason.
 * Returns `{ decision, error }` where `error` is the caught failure (or null).
 */
export function decideOrFailClosed(configJson, requestJson, toolName) {
  try {
    return { decision: decide(configJson, requestJson), error: null };
  } catch (err) {
    return { decision: failClosedDecision(toolName, describeError(err)), error: err };
  }
}

/**
 * The gate hook's decision and its audit record from one core call (`Engine.decideForHook`,
 * docs/core-api.md): `{ decision, recordHead, recordTail }`. The decision holds the fields the
 * host mapping (`toHostResult`) reads; the record is `recordHead + latencyJson(ms) + recordTail`.
 * The record parts are null when the core has no `decideForHook` or its answer has no record
 * (the caller then builds the record with `auditDecision`). For long params the core leaves the
 * record's params digest to this function: Node's SHA-256 of the params text it hands back.
 * Throws like `decide`, under the same fault seam.
 */
export function decideForHook(configJson, requestJson) {
  const { engine, state } = acquireEngine(configJson);
  return decideForHookWith(engine, state, configJson, requestJson);
}

/**
 * `decideForHook` on a given engine of the loaded core (the live one, or the warm-up's
 * throwaway one, so both run the same code): the same fault seam, trap handling and checks.
 */
export function decideForHookWith(engine, state, configJson, requestJson) {
  if (typeof engine.decideForHook !== "function") {
    return { decision: decide(configJson, requestJson), recordHead: null, recordTail: null };
  }
  const fault = activeFault(state);
  const raw = engineAnswer(state, engine, fault, "decideForHook", requestJson);
  if (typeof raw !== "string") throw new Error(`the core answered a ${typeof raw}, not JSON text`);
  const { view, recordHead, recordTail } = splitHookAnswer(raw);
  return { decision: parseDecision(view, fault), recordHead, recordTail };
}

/** SHA-256 of `text` as UTF-8, in hex (`crypto.hash` where Node has it: ~0.3 µs for 300 bytes). */
const sha256Hex =
  typeof oneShotHash === "function"
    ? (text) => oneShotHash("sha256", text, "hex")
    : (text) => createHash("sha256").update(text, "utf8").digest("hex");

/**
 * `Engine.decideForHook`'s answer in its parts (docs/core-api.md): `{ view, recordHead,
 * recordTail }`, the record parts null when the answer has none. When the core left the params
 * digest to the shim (`decision \n head \n tailA \n tailB \n params`), the tail is
 * `tailA + hex(SHA-256(params)) + tailB`.
 */
export function splitHookAnswer(raw) {
  const end = raw.indexOf("\n");
  const mid = end < 0 ? -1 : raw.indexOf("\n", end + 1);
  const view = end < 0 ? raw : raw.slice(0, end);
  if (mid < 0) return { view, recordHead: null, recordTail: null };
  const recordHead = raw.slice(end + 1, mid);
  const cut = raw.indexOf("\n", mid + 1);
  if (cut < 0) return { view, recordHead, recordTail: raw.slice(mid + 1) };
  const last = raw.indexOf("\n", cut + 1);
  if (last < 0) return { view, recordHead: null, recordTail: null };
  const hex = sha256Hex(raw.slice(last + 1));
  return { view, recordHead, recordTail: raw.slice(mid + 1, cut) + hex + raw.slice(cut + 1, last) };
}

/**
 * Never throws: `decideForHook`, or the fail-closed approval with the reason and no record
 * parts. Returns `{ decision, error, recordHead, recordTail }`. With `own` (an engine of the
 * loaded core: the warm-up's), decides on it: the process engine is then only looked up,
 * never built, so the code that runs is the same either way (index.js hookIo).
 */
export function decideForHookOrFailClosed(configJson, requestJson, toolName, own = null) {
  try {
    const live = acquireEngine(configJson, own !== null);
    const liveEngine = live.engine;
    const answer = decideForHookWith(own === null ? liveEngine : own, live.state, configJson, requestJson);
    answer.error = null;
    return answer;
  } catch (err) {
    return { decision: failClosedDecision(toolName, describeError(err)), error: err, recordHead: null, recordTail: null };
  }
}

/**
 * A latency in milliseconds as the core writes it in a record: a JSON number rounded to 3
 * decimals (an integral value keeps its `.0`, as serde_json writes an f64), `null` when it is
 * not finite or negative. `decideForHook`'s record parts take it between head and tail.
 */
export function latencyJson(ms) {
  if (!(ms >= 0) || ms === Infinity) return "null";
  if (ms > 0 && ms < 1e9) {
    // Whole thousandths written as integers: below 10^9 ms the shortest text of n / 1000 is
    // its plain decimal form (what String() and serde_json give, checked by the tests).
    const n = Math.round(ms * 1000);
    const whole = Math.floor(n / 1000);
    const frac = n - whole * 1000;
    if (frac === 0) return `${whole}.0`;
    if (frac % 100 === 0) return `${whole}.${frac / 100}`;
    if (frac % 10 === 0) return `${whole}.${frac < 100 ? "0" : ""}${frac / 10}`;
    return `${whole}.${frac < 10 ? "00" : frac < 100 ? "0" : ""}${frac}`;
  }
  const r = Math.round(ms * 1000) / 1000;
  if (!Number.isFinite(r)) return "null";
  if (r >= 1e16) return r.toExponential(); // serde_json: "1e+16"
  if (!Number.isInteger(r)) return String(r);
  return Object.is(r, -0) ? "-0.0" : `${r}.0`;
}

/**
 * `human_gate_ask`: the core renders the question. Returns `{ text, details }` or throws an
 * Error whose message the host shows as the tool failure.
 */
export function renderAsk(configJson, params) {
  const { engine, state } = acquireEngine(configJson);
  const paramsJson = JSON.stringify(params ?? {});
  let raw;
  try {
    raw = callEngine(state, () => engine.renderAsk(paramsJson));
  } catch (err) {
    throw new Error(`human_gate_ask: the gate failed while rendering the question (${describeError(err)})`);
  }
  let answer;
  try {
    answer = JSON.parse(raw);
  } catch {
    throw new Error("human_gate_ask: the core answered text that is not JSON");
  }
  if (answer?.ok === true && typeof answer.text === "string") {
    return { text: answer.text, details: answer.details ?? {} };
  }
  const why = typeof answer?.error === "string" && answer.error ? answer.error : "the question could not be rendered";
  throw new Error(why.startsWith("human_gate_ask") ? why : `human_gate_ask: ${why}`);
}

/** Package and core versions (the core is loaded if needed; "unavailable" when it cannot be). */
/** The core's finding table: [{id, severity, reusable, reason}] (one source: src/finding.rs). */
export function findingTable() {
  return JSON.parse(loadCore(processState()).findingTable());
}

export function versions() {
  const state = processState();
  let core = "unavailable";
  try {
    loadCore(state);
    core = state.coreVersion;
  } catch {
    // reported as unavailable
  }
  return { package: PACKAGE_VERSION, core };
}

// Control characters (C0, C1), zero-width and bidi controls, BOM: never shown to a person.
const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]+/g;

/** One line a person can read: control, zero-width and bidi characters become spaces. */
export function sanitizeLine(text) {
  return String(text).replace(UNSAFE_TEXT, " ").replace(/ {2,}/g, " ").trim();
}

/** Truncates to at most `max` code points (ending in "…" when cut). Cheap on huge strings. */
export function boundText(text, max) {
  const s = String(text);
  if (s.length <= max) return s; // UTF-16 length >= code point count
  const cps = Array.from(s.slice(0, max * 2));
  if (cps.length <= max && s.length <= max * 2) return s;
  return cps.slice(0, max - 1).join("") + "…";
}

/** A short, single-line, bounded description of any thrown value. */
export function describeError(err) {
  let text;
  try {
    text = err instanceof Error ? `${err.name}: ${err.message}` : `non-error value thrown: ${String(err)}`;
  } catch {
    text = "an unprintable error";
  }
  return boundText(sanitizeLine(text), 300);
}

/**
 * The fail-closed answer (docs/core-api.md): an approval a person must give, never reusable,
 * without allow-always, with the reason. Same shape as a core decision (schemas/decision.schema.json);
 * the finding id is the core table's `internal-error` unless another table id is given.
 */
export function failClosedDecision(toolName, why, findingId = "internal-error") {
  const name = boundText(sanitizeLine(typeof toolName === "string" && toolName ? toolName : "this call"), 48) || "this call";
  const detail = boundText(sanitizeLine(why), 300) || "unknown failure";
  const reason = `the gate could not evaluate ${name}, so a human must look: ${detail}`;
  return {
    decision: "approval",
    severity: "warning",
    reason: boundText(reason, 400),
    source: "fail-closed",
    ruleId: null,
    findings: [{ id: findingId, severity: "warning", detail }],
    reusable: false,
    allowedDecisions: ["allow-once", "deny"],
    timeoutMs: FAIL_CLOSED_TIMEOUT_MS,
    risk: { level: "medium", confidence: 0, recommendation: "review", evidence: [findingId] },
    preview: {
      title: boundText(`Human Gate could not evaluate ${name}`, TITLE_MAX),
      description: boundText(
        `The Human Gate failed while deciding about this call (${detail}). Its parameters were not checked; allow it only if you know it is safe.`,
        DESCRIPTION_MAX,
      ),
    },
  };
}
