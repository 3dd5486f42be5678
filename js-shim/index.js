// The OpenClaw plugin shim: the only code that knows the host exists.
//
// Owns: `register(api)` (synchronous, idempotent, cheap: it may run several times per process
// in separate module instances), the request built from the host's `before_tool_call`
// event/ctx, the decision → host mapping of docs/core-api.md, parameter sealing (the exact
// params the gate inspected are what runs), the optional `human_gate_ask` tool, and failing
// closed: any exception or trap becomes an approval a person must give, never reusable.
//
// Non-goals: policy (the WASM core decides everything). Session authority's host glue (request
// fields, onResolution feedback, /human_gate_exec, the capability tool) is in session.js.
//
// Limits: at most SEAL_MAX pending snapshots, each kept at most SEAL_TTL_MS.

import { types } from "node:util";
import {
  acquireEngine,
  boundText,
  decideForHookOrFailClosed,
  describeError,
  DESCRIPTION_MAX,
  failClosedDecision,
  processState,
  renderAsk,
  sanitizeLine,
  TITLE_MAX,
} from "./core.js";
import { addSessionFields, registerSession, resolutionFeedback } from "./session.js";
import { auditDecision, auditDecisionParts, auditResolution, privateDecisionLog } from "./audit.js";
import { registerOutputGuard } from "./guard.js";
import { startWarmup } from "./warmup.js";

const PLUGIN_ID = "human-gate";
export const GATE_PRIORITY = 60;
/** Lowest priority: the sealing hook runs after every other plugin's before_tool_call. */
export const SEAL_PRIORITY = -10000;
export const SEAL_MAX = 1024;
export const SEAL_TTL_MS = 10 * 60 * 1000;
/** Snapshots kept under one fallback key (calls without a toolCallId). */
const SEAL_PER_KEY_MAX = 16;
export const NOT_INSPECTED_REASON = "human-gate: this call was not inspected by the gate; blocked (fail closed)";

const ANSWERS = new Set(["allow-once", "allow-always", "deny"]);
const SEVERITIES = new Set(["info", "warning", "critical"]);

const ASK_TOOL_PARAMETERS = {
  type: "object",
  properties: {
    question: { type: "string", description: "The question for the human, one or two sentences." },
    choices: { type: "array", items: { type: "string" }, description: "Answers to offer, if any." },
    allowFreeText: { type: "boolean", description: "Whether the human may answer in their own words." },
    context: { type: "string", description: "Why you are asking: what you are about to do and what depends on it." },
  },
  required: ["question"],
  additionalProperties: false,
};

function isObject(v) {
  return v !== null && typeof v === "object";
}

function isPlainObject(v) {
  return isObject(v) && !Array.isArray(v);
}

/** Logger calls guarded against odd hosts: a missing or throwing logger never breaks the gate. */
function makeLog(api) {
  const logger = isObject(api) ? api.logger : undefined;
  const call = (levels, msg) => {
    for (const level of levels) {
      try {
        const fn = logger?.[level];
        if (typeof fn === "function") {
          fn.call(logger, msg);
          return;
        }
      } catch {
        return;
      }
    }
  };
  return {
    debug: (msg) => call(["debug"], msg),
    info: (msg) => call(["info"], msg),
    warn: (msg) => call(["warn", "info"], msg),
    error: (msg) => call(["error", "warn", "info"], msg),
  };
}

function hostOn(api, log, hook, handler, opts) {
  try {
    if (typeof api?.on !== "function") {
      log.error(`human-gate: this host has no api.on; the ${hook} hook is not registered`);
      return;
    }
    api.on(hook, handler, opts);
  } catch (err) {
    log.error(`human-gate: registering ${hook} (priority ${opts.priority}) failed: ${describeError(err)}`);
  }
}

// ---- request -------------------------------------------------------------------------------

function resolvedToolName(ev, ctx) {
  const name = ev.toolName ?? ctx.toolName;
  return typeof name === "string" ? name : undefined;
}

/** The core request (docs/core-api.md): only defined fields with the right types. */
export function buildRequest(event, ctx, params, nowMs = Date.now()) {
  const ev = isObject(event) ? event : {};
  const c = isObject(ctx) ? ctx : {};
  const req = {};
  const toolName = resolvedToolName(ev, c);
  if (toolName !== undefined) req.toolName = toolName;
  if (params !== undefined) req.params = params;
  for (const field of ["toolKind", "toolInputKind"]) {
    const v = ev[field] ?? c[field];
    if (typeof v === "string") req[field] = v;
  }
  const sessionKey = c.sessionKey ?? ev.sessionKey;
  if (typeof sessionKey === "string") req.sessionKey = sessionKey;
  const paths = ev.derivedPaths ?? c.derivedPaths;
  if (Array.isArray(paths) && paths.every((p) => typeof p === "string")) req.derivedPaths = [...paths];
  req.nowMs = nowMs;
  return req;
}

/**
 * The JSON of `{params, ...buildRequest(event, ctx, undefined, nowMs), ...session}` with the
 * params already JSON text (the exact-JSON snapshot), written field by field instead of
 * building that object and stringifying it: the gate hook's costliest JavaScript. The same
 * fields and values as buildRequest (tests/js/hook.test.mjs checks them equal).
 */
export function requestJsonOf(event, ctx, paramsJson, nowMs, session) {
  const ev = isObject(event) ? event : {};
  const c = isObject(ctx) ? ctx : {};
  let json = `{"params":${paramsJson}`;
  const toolName = resolvedToolName(ev, c);
  if (toolName !== undefined) json += `,"toolName":${JSON.stringify(toolName)}`;
  const toolKind = ev.toolKind ?? c.toolKind;
  if (typeof toolKind === "string") json += `,"toolKind":${JSON.stringify(toolKind)}`;
  const toolInputKind = ev.toolInputKind ?? c.toolInputKind;
  if (typeof toolInputKind === "string") json += `,"toolInputKind":${JSON.stringify(toolInputKind)}`;
  const sessionKey = c.sessionKey ?? ev.sessionKey;
  if (typeof sessionKey === "string") json += `,"sessionKey":${JSON.stringify(sessionKey)}`;
  const paths = ev.derivedPaths ?? c.derivedPaths;
  if (Array.isArray(paths) && paths.every((p) => typeof p === "string")) json += `,"derivedPaths":${JSON.stringify([...paths])}`;
  json += `,"nowMs":${JSON.stringify(nowMs)},"callId":${JSON.stringify(session.callId)}`;
  if (session.sessionId !== undefined) json += `,"sessionId":${JSON.stringify(session.sessionId)}`;
  if (session.runId !== undefined) json += `,"runId":${JSON.stringify(session.runId)}`;
  return `${json}}`;
}

// ---- sealing -------------------------------------------------------------------------------

/** The key that ties the gate's snapshot to the sealing hook's view of the same call. */
function sealKey(ev, ctx) {
  const id = ev.toolCallId ?? ctx.toolCallId;
  if (typeof id === "string" && id !== "") return `id:${id}`;
  const runId = ev.runId ?? ctx.runId;
  const sessionKey = ctx.sessionKey ?? ev.sessionKey;
  const part = (v) => (typeof v === "string" ? v : "");
  // JSON, not a joined string: host ids may hold any separator ("a|b" + "c" vs "a" + "b|c").
  return `run:${JSON.stringify([part(runId), part(sessionKey), part(resolvedToolName(ev, ctx))])}`;
}

function pruneSeals(seals, now) {
  for (const [key, entry] of seals) {
    if (seals.size <= SEAL_MAX && now - entry.at <= SEAL_TTL_MS) break;
    seals.delete(key);
  }
}

/**
 * Whether JSON text is an exact copy of `v`, i.e. `JSON.parse(JSON.stringify(v))` is what
 * `structuredClone(v)` would give: strings, booleans, null, finite numbers other than -0, and
 * plain objects and arrays of those (no proxies, no holes, no extra array properties, no
 * class instances, no toJSON, at most EXACT_DEPTH_MAX deep). May throw (a getter); the caller then uses
 * structuredClone. Everything else takes the structuredClone path, so what a snapshot is
 * (and what cannot be snapshotted) is unchanged.
 */
const EXACT_DEPTH_MAX = 64;
function jsonExact(v, depth) {
  switch (typeof v) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(v) && (v !== 0 || 1 / v > 0);
    case "object": {
      if (v === null) return true;
      // toJSON (even a non-enumerable one) makes JSON.stringify write something else.
      if (depth >= EXACT_DEPTH_MAX || types.isProxy(v) || typeof v.toJSON === "function") return false;
      if (Array.isArray(v)) {
        if (Object.getPrototypeOf(v) !== Array.prototype) return false;
        const n = v.length;
        for (let i = 0; i < n; i++) if (!(i in v) || !jsonExact(v[i], depth + 1)) return false;
        return Object.keys(v).length === n;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const k in v) if (!jsonExact(v[k], depth + 1)) return false;
      return true;
    }
    default:
      return false;
  }
}

/** The params as exact JSON text (see jsonExact), or undefined when they need structuredClone. */
export function exactParamsJson(params) {
  try {
    return isPlainObject(params) && jsonExact(params, 0) ? JSON.stringify(params) : undefined;
  } catch {
    return undefined;
  }
}

/** A snapshot is `{json}` (exact JSON text of plain params) or `{value}` (a structuredClone). */
function snapshotJson(snap) {
  return snap.json ?? jsonOrNull(snap.value);
}

function putSeal(seals, key, snapshot, now) {
  const existing = seals.get(key);
  const snaps = existing ? existing.snaps : [];
  snaps.push(snapshot);
  if (snaps.length > SEAL_PER_KEY_MAX) snaps.shift();
  seals.delete(key); // re-insert: Map order stays oldest-first
  seals.set(key, { at: now, snaps });
  pruneSeals(seals, now);
}

function jsonOrNull(v) {
  try {
    return JSON.stringify(v) ?? null;
  } catch {
    return null;
  }
}

/** Takes the snapshot for this call: `{found: true, snapshot}` or `{found: false}`. */
function takeSeal(seals, key, currentParams) {
  const now = Date.now();
  pruneSeals(seals, now);
  const entry = seals.get(key);
  if (!entry || now - entry.at > SEAL_TTL_MS) {
    seals.delete(key);
    return { found: false };
  }
  let index = 0;
  if (entry.snaps.length > 1) {
    // Several calls share a fallback key: only an exact match is certainly this call's.
    const current = jsonOrNull(currentParams);
    index = current === null ? -1 : entry.snaps.findIndex((s) => snapshotJson(s) === current);
    if (index < 0) return { found: false };
  }
  const [snapshot] = entry.snaps.splice(index, 1);
  if (entry.snaps.length === 0) seals.delete(key);
  return { found: true, snapshot };
}

// ---- decision → host -----------------------------------------------------------------------

function resolutionLogger(log, toolName, decisionClass, onOutcome, audit) {
  return (resolution) => {
    if (typeof onOutcome === "function") onOutcome(resolution); // never throws (session.js)
    if (audit) auditResolution(audit.configJson, log, audit.record, resolution, Date.now() - audit.at);
    try {
      const what = typeof resolution === "string" ? boundText(sanitizeLine(resolution), 32) : typeof resolution;
      const name = boundText(sanitizeLine(toolName), 64);
      log.info(`human-gate: approval for ${name} (${decisionClass}) resolved: ${what}`);
    } catch {
      // never throws into the host
    }
    return undefined;
  };
}

/** Maps one decision to the host's before_tool_call return (docs/core-api.md "Host mapping"). */
export function toHostResult(decision, toolName, log, onOutcome, audit) {
  switch (decision.decision) {
    case "auto":
      return undefined;
    case "block":
      return {
        block: true,
        blockReason: typeof decision.reason === "string" && decision.reason ? decision.reason : `human-gate: ${toolName} is blocked by policy`,
      };
    case "approval":
    case "critical": {
      const critical = decision.decision === "critical";
      let allowed = Array.isArray(decision.allowedDecisions) ? decision.allowedDecisions.filter((a) => ANSWERS.has(a)) : [];
      if (critical) allowed = allowed.filter((a) => a !== "allow-always");
      if (allowed.length === 0) allowed = ["allow-once", "deny"];
      else if (!allowed.includes("deny")) allowed.push("deny");
      const preview = isObject(decision.preview) ? decision.preview : {};
      const title = typeof preview.title === "string" && preview.title ? preview.title : `Human Gate: approve ${sanitizeLine(toolName)}?`;
      const description = typeof preview.description === "string" ? preview.description : String(decision.reason ?? "");
      const timeoutMs = Number.isInteger(decision.timeoutMs) && decision.timeoutMs >= 1000 && decision.timeoutMs <= 600000 ? decision.timeoutMs : undefined;
      const requireApproval = {
        // The core bounds both already; bounding again is idempotent and keeps the host from
        // blocking the call outright should the core ever slip.
        title: boundText(title, TITLE_MAX),
        description: boundText(description, DESCRIPTION_MAX),
        severity: critical ? "critical" : SEVERITIES.has(decision.severity) ? decision.severity : "warning",
        allowedDecisions: [...new Set(allowed)],
        onResolution: resolutionLogger(log, toolName, decision.decision, onOutcome, audit),
      };
      if (timeoutMs !== undefined) requireApproval.timeoutMs = timeoutMs;
      return { requireApproval };
    }
    default:
      throw new Error(`unknown decision ${JSON.stringify(decision.decision)}`);
  }
}

// ---- hooks ---------------------------------------------------------------------------------

/**
 * Where the hooks' effects go: `null` fields mean the live engine, decision log and seal
 * store (LIVE_IO); the warm-up's (warmHooks) name its own. The hooks run the same code for
 * both and pick by these fields as data (the live ones are looked up either way), so the
 * code V8 optimizes during the warm-up is the code of a live call: no call target, branch
 * or shape a live call meets for the first time, and no deoptimization on the first live
 * call. `last` is the last call's core answer (the warm-up reads it).
 */
function hookIo(engine, seals, decisionLog) {
  return { engine, seals, decisionLog, last: null };
}
const LIVE_IO = hookIo(null, null, null);

function sealStore(io) {
  const live = processState().seals;
  return io.seals === null ? live : io.seals;
}

function makeGate(configJson, log, io = LIVE_IO) {
  return function humanGate(event, ctx) {
    const started = performance.now();
    let toolName = "this call";
    try {
      const ev = isObject(event) ? event : {};
      const c = isObject(ctx) ? ctx : {};
      toolName = resolvedToolName(ev, c) ?? "this call";
      const now = Date.now();
      // The snapshot: what the core inspects is exactly what the sealing hook hands the host.
      // Plain JSON params are snapshotted as their JSON text, which is also the request's
      // params (one stringify); anything else is a structuredClone, as it always was.
      const paramsJson = exactParamsJson(ev.params);
      let snapshot;
      if (paramsJson !== undefined) {
        snapshot = { json: paramsJson };
      } else {
        try {
          snapshot = { value: structuredClone(ev.params) };
        } catch (err) {
          const why = describeError(err);
          log.error(`human-gate: the parameters of ${sanitizeLine(toolName)} cannot be snapshotted (${why}); blocked`);
          return {
            block: true,
            blockReason: boundText(`human-gate: the parameters of ${sanitizeLine(toolName)} cannot be snapshotted (${why}); blocked (fail closed)`, 400),
          };
        }
      }
      let requestJson;
      let decision;
      let request;
      let recordHead = null;
      let recordTail = null;
      try {
        if (paramsJson !== undefined) {
          // What the approval feedback reads of the request (session.js resolutionFeedback).
          const fields = addSessionFields({ sessionKey: c.sessionKey ?? ev.sessionKey }, ev, c);
          requestJson = requestJsonOf(ev, c, paramsJson, now, fields);
          request = fields;
        } else {
          request = addSessionFields(buildRequest(ev, c, snapshot.value, now), ev, c);
          requestJson = JSON.stringify(request);
        }
      } catch (err) {
        decision = failClosedDecision(toolName, `the call cannot be serialized for inspection: ${describeError(err)}`);
        log.error(`human-gate: could not evaluate ${sanitizeLine(toolName)}: ${decision.findings[0].detail}`);
      }
      if (decision === undefined) {
        const answer = decideForHookOrFailClosed(configJson, requestJson, toolName, io.engine);
        io.last = answer;
        decision = answer.decision;
        recordHead = answer.recordHead;
        recordTail = answer.recordTail;
        if (answer.error !== null) log.error(`human-gate: could not evaluate ${sanitizeLine(toolName)}: ${describeError(answer.error)}`);
      }
      const latencyMs = performance.now() - started;
      const record =
        recordHead !== null
          ? auditDecisionParts(configJson, log, recordHead, recordTail, latencyMs, io.decisionLog)
          : io.decisionLog === null
            ? auditDecision(configJson, log, requestJson, decision, latencyMs)
            : null;
      const asks = decision.decision === "approval" || decision.decision === "critical";
      let result;
      try {
        // Only an approval is ever resolved: the feedback and the audit hook are built for it alone.
        result = asks
          ? toHostResult(decision, toolName, log, resolutionFeedback(configJson, request, log), { configJson, record, at: Date.now() })
          : toHostResult(decision, toolName, log);
      } catch (err) {
        log.error(`human-gate: could not map the decision for ${sanitizeLine(toolName)}: ${describeError(err)}`);
        result = toHostResult(failClosedDecision(toolName, describeError(err)), toolName, log);
      }
      if (decision.decision !== "block") putSeal(sealStore(io), sealKey(ev, c), snapshot, now);
      return result;
    } catch (err) {
      // Last resort. Without a stored snapshot the sealing hook blocks this call anyway.
      log.error(`human-gate: gate failed for ${sanitizeLine(toolName)}: ${describeError(err)}`);
      return toHostResult(failClosedDecision(toolName, describeError(err)), toolName, log);
    }
  };
}

function makeSeal(log, io = LIVE_IO) {
  return function humanGateSeal(event, ctx) {
    try {
      const ev = isObject(event) ? event : {};
      const c = isObject(ctx) ? ctx : {};
      const taken = takeSeal(sealStore(io), sealKey(ev, c), ev.params);
      if (!taken.found) {
        log.warn(`human-gate: ${sanitizeLine(resolvedToolName(ev, c) ?? "a call")} reached the sealing hook without a snapshot; blocked`);
        return { block: true, blockReason: NOT_INSPECTED_REASON };
      }
      // An independent copy of exactly what was inspected, for every hook that runs it.
      const snap = taken.snapshot;
      if (snap.json !== undefined) return { params: JSON.parse(snap.json) };
      return isPlainObject(snap.value) ? { params: structuredClone(snap.value) } : undefined;
    } catch (err) {
      log.error(`human-gate: sealing failed: ${describeError(err)}`);
      return { block: true, blockReason: NOT_INSPECTED_REASON };
    }
  };
}

const SILENT_LOG = Object.freeze({ debug() {}, info() {}, warn() {}, error() {} });

/**
 * The gate and sealing hooks of this plugin for the idle-time warm-up (warmup.js): the same
 * code as the live hooks, so V8 optimizes the JavaScript a live call runs and not only the
 * core's, but deciding on `engine` (a throwaway engine of the loaded core), with a seal store
 * and a decision log (in memory) of their own and no log lines. `outcome()` is the last
 * call's decision class and the error its core call threw, if any (a trap has already
 * poisoned the instance).
 */
export function warmHooks(configJson, engine) {
  const io = hookIo(engine, new Map(), privateDecisionLog());
  return {
    gate: makeGate(configJson, SILENT_LOG, io),
    seal: makeSeal(SILENT_LOG, io),
    outcome: () => ({ decision: io.last?.decision?.decision ?? null, error: io.last?.error ?? null }),
  };
}

function makeAskTool(configJson) {
  return {
    name: "human_gate_ask",
    label: "Ask a human",
    description:
      "Ask the human operator a question and wait for the answer. Use it when you need a decision, a missing fact or a confirmation only a person can give. Offer choices when the answer is one of a few options.",
    parameters: ASK_TOOL_PARAMETERS,
    async execute(toolCallId, params) {
      const { text, details } = renderAsk(configJson, params);
      return { content: [{ type: "text", text }], details };
    },
  };
}

function configJsonOf(api, log) {
  try {
    return JSON.stringify(api?.pluginConfig ?? {}) ?? "{}";
  } catch (err) {
    log.error(`human-gate: config: the plugin config cannot be read (${describeError(err)}); using the safe defaults`);
    return "{}";
  }
}

function logConfig(log, configJson) {
  try {
    const { errors, firstTime, state } = acquireEngine(configJson);
    if (!firstTime) return;
    for (const e of errors) log.warn(`human-gate: config: ${e}`);
    if (errors.length > 0) {
      log.warn(`human-gate: ${errors.length} config problem(s) above; the broken parts fall back to the safe defaults`);
    }
    log.debug(`human-gate: core ${state.coreVersion} ready`);
  } catch (err) {
    log.error(`human-gate: the policy core failed to load (${describeError(err)}); every tool call will ask a person (fail closed)`);
  }
}

function register(api) {
  const log = makeLog(api);
  try {
    const configJson = configJsonOf(api, log);
    logConfig(log, configJson);
    hostOn(api, log, "before_tool_call", makeGate(configJson, log), { priority: GATE_PRIORITY });
    hostOn(api, log, "before_tool_call", makeSeal(log), { priority: SEAL_PRIORITY });
    registerOutputGuard(api, log, configJson, hostOn);
    if (typeof api?.registerTool === "function") {
      try {
        api.registerTool(makeAskTool(configJson), { optional: true });
      } catch (err) {
        log.error(`human-gate: registering human_gate_ask failed: ${describeError(err)}`);
      }
    }
    registerSession(api, configJson, log);
    // In idle time, through this plugin's own hooks on a throwaway engine: brings the
    // optimized code of the core and of the hooks in (warmup.js).
    startWarmup(configJson, (engine) => warmHooks(configJson, engine));
  } catch (err) {
    log.error(`human-gate: registration failed: ${describeError(err)}`);
  }
}

export default {
  id: PLUGIN_ID,
  name: "Human Gate",
  description: "Parameter-aware approval firewall: decides auto / approval / critical / block for every tool call before it runs.",
  register,
};
