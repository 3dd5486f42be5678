// The output guard in the shim: scans tool results before they enter the model's context.
//
// Owns: the host side of src/guard.rs — the tool-result middleware handler
// (`api.registerAgentToolResultMiddleware`, which OpenClaw grants an installed plugin only when
// its manifest declares `contracts.agentToolResultMiddleware` and the plugin is explicitly
// enabled), the `after_tool_call` observer used when the host refuses the middleware (it can
// only audit, not redact), the time budget (`outputGuard.timeBudgetMs`: the result is scanned
// chunk by chunk and the scan stops when the budget or `outputGuard.maxScanChars` is spent),
// and the notice put before a result that has findings.
//
// Non-goals: what counts as a finding or a secret (the core decides) and gating (the guard
// annotates and redacts; it never blocks or fails a tool call). Audit records hold finding IDs,
// counts and sizes only.

import { acquireEngine, describeError, processState, sanitizeLine } from "./core.js";
import { auditGuard } from "./audit.js";

export const MIDDLEWARE_RUNTIMES = Object.freeze(["openclaw", "codex"]);
const CHUNK_CHARS = 32 * 1024;
/** The host's limits for a middleware's result (dist/tool-result-middleware-*.mjs). */
const HOST_MAX_BLOCKS = 200;
const HOST_MAX_TEXT = 100000;
const HANDLED_MAX = 512;

/** The outputGuard settings of a plugin config JSON (bad values: the defaults). */
export function outputGuardConfig(configJson) {
  let raw;
  try {
    raw = JSON.parse(configJson)?.outputGuard;
  } catch {
    raw = undefined;
  }
  const cfg = raw !== null && typeof raw === "object" && !Array.isArray(raw) ? raw : {};
  const int = (v, min, max, dflt) => (Number.isInteger(v) && v >= min && v <= max ? v : dflt);
  return {
    enabled: typeof cfg.enabled === "boolean" ? cfg.enabled : true,
    redactSecrets: typeof cfg.redactSecrets === "boolean" ? cfg.redactSecrets : true,
    maxScanChars: int(cfg.maxScanChars, 1024, 4194304, 262144),
    timeBudgetMs: int(cfg.timeBudgetMs, 1, 1000, 50),
  };
}

/** Cuts `text` into chunks of about CHUNK_CHARS, at a line end when one is near. */
function chunks(text) {
  const out = [];
  let at = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + CHUNK_CHARS);
    if (end < text.length) {
      const nl = text.lastIndexOf("\n", end);
      if (nl > at + CHUNK_CHARS / 2) end = nl + 1;
    }
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

/**
 * Scans one text within the budget. `state` carries the budget across the texts of one result:
 * `{deadline, left, findings: Map, redactions, scanned, total, complete}`. Returns the text to
 * show (redacted when configured) — unscanned parts unchanged.
 */
function scanText(engine, cfg, text, state) {
  state.total += text.length;
  let out = "";
  let at = 0;
  for (const chunk of chunks(text)) {
    if (state.left <= 0 || performance.now() > state.deadline) {
      state.complete = false;
      break;
    }
    const piece = chunk.length > state.left ? chunk.slice(0, state.left) : chunk;
    const answer = JSON.parse(engine.guardScan(JSON.stringify({ text: piece, redact: cfg.redactSecrets })));
    if (answer?.ok !== true) throw new Error(answer?.error ?? "the guard answered no result");
    for (const f of answer.findings) state.findings.set(f.id, (state.findings.get(f.id) ?? 0) + f.count);
    state.redactions += answer.redactions;
    if (typeof answer.text === "string") state.redacted = true;
    out += typeof answer.text === "string" ? answer.text : piece;
    at += piece.length;
    state.scanned += piece.length;
    state.left -= piece.length;
    if (piece.length < chunk.length) {
      state.complete = false;
      break;
    }
  }
  return out + text.slice(at);
}

function newState(cfg) {
  return { deadline: performance.now() + cfg.timeBudgetMs, left: cfg.maxScanChars, findings: new Map(), redactions: 0, redacted: false, scanned: 0, total: 0, complete: true };
}

function summaryOf(state, mode) {
  return {
    findings: [...state.findings].map(([id, count]) => ({ id, count })),
    redactions: state.redactions,
    redacted: state.redacted,
    scannedChars: state.scanned,
    totalChars: state.total,
    complete: state.complete,
    mode,
  };
}

/**
 * Scans a tool result `{content: [...], details?}`; returns `{result, summary}` where `result`
 * is the result to pass on (the same object when nothing changed).
 */
export function guardResult(configJson, result, mode = "middleware") {
  const cfg = outputGuardConfig(configJson);
  const { engine } = acquireEngine(configJson);
  const state = newState(cfg);
  const content = Array.isArray(result?.content) ? result.content : [];
  let changed = false;
  const next = content.map((block) => {
    if (block?.type !== "text" || typeof block.text !== "string") return block;
    const text = scanText(engine, cfg, block.text, state);
    if (text === block.text) return block;
    changed = true;
    return { ...block, text };
  });
  let details = result?.details;
  // Tool details often repeat the output (exec's `aggregated`); their top-level strings are
  // redacted the same way so the transcript does not keep what the model was spared.
  if (cfg.redactSecrets && details !== null && typeof details === "object" && !Array.isArray(details)) {
    let copy = null;
    for (const [key, value] of Object.entries(details)) {
      if (typeof value !== "string" || value.length === 0) continue;
      const probe = newState(cfg);
      const text = scanText(engine, cfg, value, probe);
      if (text !== value) {
        copy ??= { ...details };
        copy[key] = text;
      }
    }
    if (copy !== null) {
      details = copy;
      changed = true;
    }
  }
  const summary = summaryOf(state, mode);
  let notice = null;
  if (summary.findings.length > 0 || !summary.complete) {
    const raw = processCore()?.guardNotice?.(JSON.stringify(summary));
    notice = raw ? JSON.parse(raw).notice : null;
  }
  if (!changed && notice === null) return { result, summary };
  // The host accepts at most HOST_MAX_BLOCKS blocks of at most HOST_MAX_TEXT characters and
  // replaces anything else by an error text, so the answer stays inside both.
  const capped = next.map((b) => (b?.type === "text" && b.text.length > HOST_MAX_TEXT ? { ...b, text: b.text.slice(0, HOST_MAX_TEXT) } : b));
  let blocks = capped;
  if (notice) {
    const first = capped.findIndex((b) => b?.type === "text");
    if (capped.length < HOST_MAX_BLOCKS || first < 0) blocks = [{ type: "text", text: notice }, ...capped].slice(0, HOST_MAX_BLOCKS);
    else blocks = capped.map((b, i) => (i === first ? { ...b, text: `${notice}\n${b.text}`.slice(0, HOST_MAX_TEXT) } : b));
  }
  return { result: { ...result, content: blocks, details }, summary };
}

function processCore() {
  // the loaded pkg module: guardNotice is a free function there
  return processState().core;
}

function handled() {
  return processState().guarded;
}

function markHandled(id) {
  if (typeof id !== "string" || id === "") return;
  const set = handled();
  set.add(id);
  if (set.size > HANDLED_MAX) set.delete(set.values().next().value);
}

/** The tool-result middleware: redacts and annotates before the model sees the result. */
export function makeToolResultMiddleware(configJson, log) {
  return async function humanGateOutputGuard(event, ctx) {
    const started = performance.now();
    try {
      if (!outputGuardConfig(configJson).enabled) return undefined;
      const { result, summary } = guardResult(configJson, event?.result, "middleware");
      markHandled(event?.toolCallId);
      auditGuard(configJson, log, { toolName: event?.toolName, sessionKey: ctx?.sessionKey, nowMs: Date.now() }, summary, performance.now() - started);
      return result === event?.result ? undefined : { result };
    } catch (err) {
      // Never fails the tool call: the result passes as it is, and the failure is logged.
      log.warn(`human-gate: output guard failed for ${sanitizeLine(event?.toolName ?? "a tool")}: ${describeError(err)}; the result passes unscanned`);
      return undefined;
    }
  };
}

/** Text of an after_tool_call result, whatever its shape. */
function resultText(result) {
  if (typeof result === "string") return result;
  if (Array.isArray(result?.content)) return result.content.filter((b) => b?.type === "text").map((b) => String(b.text ?? "")).join("\n");
  try {
    return JSON.stringify(result) ?? "";
  } catch {
    return "";
  }
}

/** The fallback: observes results after the call (cannot change them) and audits findings. */
export function makeAfterToolCallObserver(configJson, log) {
  return function humanGateOutputObserver(event, ctx) {
    const started = performance.now();
    try {
      if (!outputGuardConfig(configJson).enabled) return;
      const id = event?.toolCallId ?? ctx?.toolCallId;
      if (typeof id === "string" && handled().has(id)) return; // the middleware already did it
      const text = resultText(event?.result);
      if (!text) return;
      const { summary } = guardResult(configJson, { content: [{ type: "text", text }] }, "observed");
      auditGuard(configJson, log, { toolName: event?.toolName, sessionKey: ctx?.sessionKey ?? event?.sessionKey, nowMs: Date.now() }, summary, performance.now() - started);
      if (summary.findings.length > 0) {
        const ids = summary.findings.map((f) => f.id).join(", ");
        log.warn(`human-gate: output guard (observe only): the result of ${sanitizeLine(event?.toolName ?? "a tool")} has ${ids}; it already reached the model (tool-result middleware not granted)`);
      }
    } catch (err) {
      log.warn(`human-gate: output guard observer failed: ${describeError(err)}`);
    }
  };
}

/** Registers the guard: the middleware when the host offers it, and the observer always. */
export function registerOutputGuard(api, log, configJson, hostOn) {
  if (!outputGuardConfig(configJson).enabled) return;
  if (typeof api?.registerAgentToolResultMiddleware === "function") {
    try {
      api.registerAgentToolResultMiddleware(makeToolResultMiddleware(configJson, log), { runtimes: [...MIDDLEWARE_RUNTIMES] });
    } catch (err) {
      log.warn(`human-gate: the host refused the output guard middleware (${describeError(err)}); results are only observed after the call`);
    }
  }
  hostOn(api, log, "after_tool_call", makeAfterToolCallObserver(configJson, log), { priority: 0 });
}
