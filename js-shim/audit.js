// The decision log: one record per decision, per resolution and per output-guard scan, kept in
// an in-memory ring (`decisionLog.maxEntries`, default 512) and, when `decisionLog.filePath`
// is set, appended to a JSONL file.
//
// Owns: the ring (shared by every module instance of this package in the process, like the
// engine), the file (`~/` expanded, parent folders created 0700, the file created 0600 and
// opened with O_NOFOLLOW so a symbolic link is refused), and best-effort writing: the first
// failure is logged once, the file is then left alone, and enforcement never changes.
//
// Non-goals: what a record holds. The core builds every record (src/audit.rs): digests and
// sizes, never a raw parameter value or session key. This file only stores them.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { decisionText, latencyJson, processState } from "./core.js";

export const DEFAULT_MAX_ENTRIES = 512;

/** The `decisionLog` value of the last config JSON texts read (parsing the config is most of the cost). */
const RAW_CONFIG = new Map();
const RAW_CONFIG_MAX = 8;

function rawDecisionLog(configJson) {
  if (RAW_CONFIG.has(configJson)) return RAW_CONFIG.get(configJson);
  let raw;
  try {
    raw = JSON.parse(configJson)?.decisionLog;
  } catch {
    raw = undefined;
  }
  const cfg = raw !== null && typeof raw === "object" && !Array.isArray(raw) ? { maxEntries: raw.maxEntries, filePath: raw.filePath } : {};
  if (typeof configJson === "string") {
    if (RAW_CONFIG.size >= RAW_CONFIG_MAX) RAW_CONFIG.delete(RAW_CONFIG.keys().next().value);
    RAW_CONFIG.set(configJson, cfg);
  }
  return cfg;
}

/** The decision-log settings of a plugin config JSON (bad values: the defaults; the core reports them). */
export function decisionLogConfig(configJson) {
  const cfg = rawDecisionLog(configJson);
  const n = cfg.maxEntries;
  const maxEntries = Number.isInteger(n) && n >= 1 && n <= 65536 ? n : DEFAULT_MAX_ENTRIES;
  const filePath = typeof cfg.filePath === "string" && cfg.filePath.trim() !== "" ? expandHome(cfg.filePath) : null;
  return { maxEntries, filePath };
}

/** `~` and `~/x` are the home folder; anything else is resolved as given. */
export function expandHome(p) {
  if (p === "~") return os.homedir();
  if (p.startsWith("~/")) return path.join(os.homedir(), p.slice(2));
  return path.resolve(p);
}

function logs() {
  return processState().decisionLogs;
}

/** The log key of the last config JSON text seen (the gate passes the same text every call). */
let lastKeyConfig = null;
let lastKey = null;

function logKey(configJson) {
  if (configJson === lastKeyConfig && lastKey !== null) return lastKey;
  const cfg = decisionLogConfig(configJson);
  const key = `${cfg.maxEntries}\n${cfg.filePath ?? ""}`;
  if (typeof configJson === "string") {
    lastKeyConfig = configJson;
    lastKey = key;
  }
  return key;
}

/** The log for one config (shared per process): `{ring, maxEntries, filePath, fd, failed}`. */
export function decisionLogFor(configJson) {
  const key = logKey(configJson);
  const all = logs();
  const found = all.get(key);
  if (found !== undefined) return found;
  const cfg = decisionLogConfig(configJson);
  const entry = newLog(cfg.maxEntries, cfg.filePath);
  all.set(key, entry);
  return entry;
}

/** One log: its ring of record texts and, when `filePath` is set, its file. */
function newLog(maxEntries, filePath) {
  return { ring: [], maxEntries, filePath, fd: null, failed: false };
}

/** Opens the file for appending: 0600, no symlink, the parent created 0700 if missing. */
function openLogFile(file) {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const { O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW } = fs.constants;
  if (O_NOFOLLOW === undefined) {
    // No O_NOFOLLOW on this platform: refuse a symlink by looking first.
    try {
      if (fs.lstatSync(file).isSymbolicLink()) throw new Error(`${file} is a symbolic link; refusing to follow it`);
    } catch (err) {
      if (err?.code !== "ENOENT") throw err;
    }
  }
  let fd;
  try {
    fd = fs.openSync(file, O_WRONLY | O_APPEND | O_CREAT | (O_NOFOLLOW ?? 0), 0o600);
  } catch (err) {
    if (err?.code === "ELOOP" || err?.code === "EMLINK") throw new Error(`${file} is a symbolic link; refusing to follow it`);
    throw err;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error(`${file} is not a regular file`);
    if ((st.mode & 0o077) !== 0) fs.fchmodSync(fd, 0o600);
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
  return fd;
}

/** A log of its own, in memory only, sized like a default one (the warm-up's: index.js). */
export function privateDecisionLog() {
  return newLog(DEFAULT_MAX_ENTRIES, null);
}

/** Stores one record (JSON text from the core). Never throws. */
export function appendRecord(configJson, log, recordJson) {
  try {
    appendRecordTo(decisionLogFor(configJson), log, recordJson);
  } catch {
    // best effort: the log never breaks the gate
  }
}

/** Stores one record in `entry` (a `decisionLogFor` log). Never throws. */
export function appendRecordTo(entry, log, recordJson) {
  try {
    if (typeof recordJson !== "string" || recordJson === "") return;
    entry.ring.push(recordJson);
    // shift() drops the oldest in place (cheaper than splice on a full ring).
    while (entry.ring.length > entry.maxEntries) entry.ring.shift();
    if (entry.filePath === null || entry.failed) return;
    try {
      if (entry.fd === null) entry.fd = openLogFile(entry.filePath);
      fs.writeSync(entry.fd, `${recordJson.replace(/\n/g, " ")}\n`);
    } catch (err) {
      entry.failed = true;
      if (entry.fd !== null) {
        try {
          fs.closeSync(entry.fd);
        } catch {
          // already closed
        }
        entry.fd = null;
      }
      log?.warn?.(`human-gate: decision log: cannot write ${entry.filePath} (${err?.code ?? err?.message ?? err}); records stay in memory only, enforcement is unchanged`);
    }
  } catch {
    // best effort: the log never breaks the gate
  }
}

/** The records in memory for a config, oldest first (parsed). */
export function decisionLogEntries(configJson) {
  return decisionLogFor(configJson).ring.map((r) => JSON.parse(r));
}

function core() {
  return processState().core;
}

/**
 * Records one decision; returns the record JSON (for the resolution record) or null.
 * `requestJson` is the request the core decided, `decision` its parsed decision.
 */
export function auditDecision(configJson, log, requestJson, decision, latencyMs) {
  try {
    const c = core();
    const decisionJson = decisionText(decision) ?? JSON.stringify(decision);
    const record =
      typeof c?.auditDecision === "function"
        ? c.auditDecision(String(requestJson ?? ""), decisionJson, latencyMs)
        : JSON.stringify({ v: 1, type: "decision", time: new Date().toISOString(), decision: decision?.decision ?? null, note: "core unavailable" });
    appendRecord(configJson, log, record);
    return record;
  } catch {
    return null;
  }
}

/**
 * Records one decision whose record the core built in the decision's own call
 * (`decideForHook`): the record is `head + latencyMs + tail`. Returns the record JSON or null.
 * `own` is a log of the caller's (`privateDecisionLog`: the warm-up's) instead of the
 * config's; the config's is looked up either way, so the code that runs is the same.
 */
export function auditDecisionParts(configJson, log, head, tail, latencyMs, own = null) {
  try {
    const record = head + latencyJson(latencyMs) + tail;
    const live = decisionLogFor(configJson);
    appendRecordTo(own === null ? live : own, log, record);
    return record;
  } catch {
    return null;
  }
}

/** Records how an approval ended (the host's resolution string). Never throws. */
export function auditResolution(configJson, log, decisionRecord, resolution, latencyMs) {
  try {
    const c = core();
    if (typeof c?.auditResolution !== "function" || typeof decisionRecord !== "string") return;
    const what = typeof resolution === "string" ? resolution : "unknown";
    appendRecord(configJson, log, c.auditResolution(decisionRecord, what, Date.now(), latencyMs));
  } catch {
    // best effort
  }
}

/** Records one output-guard scan (metadata only). Never throws. */
export function auditGuard(configJson, log, context, summary, latencyMs) {
  try {
    const c = core();
    if (typeof c?.auditGuard !== "function") return;
    appendRecord(configJson, log, c.auditGuard(JSON.stringify(context), JSON.stringify(summary), latencyMs));
  } catch {
    // best effort
  }
}

/** Test helper: forgets every ring and closes every file. */
export function __resetDecisionLogsForTests() {
  for (const entry of logs().values()) {
    if (entry.fd !== null) {
      try {
        fs.closeSync(entry.fd);
      } catch {
        // ignore
      }
    }
  }
  logs().clear();
}
