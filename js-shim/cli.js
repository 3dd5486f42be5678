#!/usr/bin/env node
// `human-gate`: the policy core on the command line (the package bin).
//
//   check [--config FILE]           JSON lines in (one call per line), one JSON decision line out
//   explain [--config FILE] [JSON]  the same decision for one call, for people
//   validate-config FILE            config problems, exit 1 if there are any
//   findings                        the finding table: id, severity, reusable, reason
//
// Contract (DESIGN.md "CLI contract"): every non-blank input line gets exactly one output line,
// in order; a malformed line gets the core's approval line (finding input-malformed); if the
// core itself fails, the CLI prints its own fail-closed approval line (finding internal-error)
// and carries on with a rebuilt engine. Blank lines (only spaces/tabs) are skipped. A line
// ends at "\n"; one trailing "\r" is dropped (CRLF input). Non-policy only: every decision is
// the core's.

import { readFileSync } from "node:fs";
import { once } from "node:events";
import { StringDecoder } from "node:string_decoder";
import { acquireEngine, decideOrFailClosed, describeError, failClosedDecision, findingTable, sanitizeLine, versions } from "./core.js";

/** Longest input line kept in memory (UTF-16 units); a longer one is answered without reading it all. */
const MAX_LINE_CHARS = 16 * 1024 * 1024;

const USAGE = `usage: human-gate <command> [options]

commands:
  check [--config FILE]           read tool calls as JSON lines on stdin, write one JSON
                                  decision line per call to stdout, in order
                                  (input line: {"toolName", "params", "toolKind"?,
                                  "toolInputKind"?, "sessionKey"?, "derivedPaths"?, "nowMs"?};
                                  blank lines are skipped, every other line gets an answer)
  explain [--config FILE] [JSON]  explain the decision for one call (JSON argument or stdin)
  validate-config FILE            print the problems of a config file; exit 1 if any
  findings                        print every finding the gate can report (tab-separated:
                                  id, severity, reusable, reason)

options:
  --config FILE   plugin config as JSON (plugins.entries.human-gate.config); problems are
                  printed to stderr as "human-gate: config: ..." and the broken parts fall
                  back to the safe defaults
  -h, --help      this help
  --version       package and core versions

exit codes: 0 done (decisions include failures), 1 validate-config found problems,
            2 usage error`;

class UsageError extends Error {}

function parseArgs(argv) {
  const out = { command: null, config: null, positionals: [], help: false, version: false };
  let onlyPositionals = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (!onlyPositionals && arg === "--") {
      onlyPositionals = true;
    } else if (!onlyPositionals && (arg === "-h" || arg === "--help")) {
      out.help = true;
    } else if (!onlyPositionals && arg === "--version") {
      out.version = true;
    } else if (!onlyPositionals && (arg === "--config" || arg.startsWith("--config="))) {
      const value = arg === "--config" ? argv[++i] : arg.slice("--config=".length);
      if (value === undefined || value === "") throw new UsageError("--config needs a FILE");
      out.config = value;
    } else if (!onlyPositionals && arg.startsWith("-") && arg !== "-") {
      throw new UsageError(`unknown option ${arg}`);
    } else if (out.command === null) {
      out.command = arg;
    } else {
      out.positionals.push(arg);
    }
  }
  return out;
}

// ---- config ----------------------------------------------------------------------------------

/** Reads a config file: `{ configJson, problems }`; an unusable file means the safe defaults. */
function readConfigFile(file) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    return { configJson: "{}", problems: [`cannot read ${file} (${err.code ?? describeError(err)}); using the safe defaults`] };
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    JSON.parse(text);
  } catch (err) {
    return { configJson: "{}", problems: [`${file} is not valid JSON (${sanitizeLine(err.message)}); using the safe defaults`] };
  }
  // The raw text goes to the core, so it can also report what JSON.parse forgives (duplicate keys).
  return { configJson: text, problems: [] };
}

/** Loads config + engine and reports every problem on stderr. Returns the config JSON. */
function prepareConfig(file) {
  const { configJson, problems } = file === null ? { configJson: "{}", problems: [] } : readConfigFile(file);
  for (const p of problems) process.stderr.write(`human-gate: config: ${p}\n`);
  try {
    const { errors } = acquireEngine(configJson);
    for (const e of errors) process.stderr.write(`human-gate: config: ${sanitizeLine(e)}\n`);
    if (errors.length > 0) {
      process.stderr.write(`human-gate: ${errors.length} config problem(s); the broken parts fall back to the safe defaults\n`);
    }
  } catch (err) {
    process.stderr.write(`human-gate: the policy core failed to load (${describeError(err)}); every call gets a fail-closed approval\n`);
  }
  return configJson;
}

// ---- input -----------------------------------------------------------------------------------

/**
 * Lines of a stream, batched per chunk (so interactive input is answered at once and piped
 * input is written in few syscalls). Yields arrays of `{text}` or `{tooLong: true}`.
 */
async function* lineBatches(stream, maxChars) {
  const decoder = new StringDecoder("utf8");
  let parts = [];
  let length = 0;
  let tooLong = false;
  const take = () => {
    const line = tooLong ? { tooLong: true } : { text: stripCr(parts.join("")) };
    parts = [];
    length = 0;
    tooLong = false;
    return line;
  };
  const split = (text, batch) => {
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      const piece = nl === -1 ? text.slice(start) : text.slice(start, nl);
      if (!tooLong) {
        if (length + piece.length > maxChars) {
          tooLong = true;
          parts = [];
        } else if (piece.length > 0) {
          parts.push(piece);
          length += piece.length;
        }
      }
      if (nl === -1) return;
      batch.push(take());
      start = nl + 1;
    }
  };
  for await (const chunk of stream) {
    const batch = [];
    split(decoder.write(chunk), batch);
    if (batch.length > 0) yield batch;
  }
  const batch = [];
  split(decoder.end(), batch);
  if (length > 0 || tooLong) batch.push(take()); // last line without a newline
  if (batch.length > 0) yield batch;
}

function stripCr(text) {
  return text.endsWith("\r") ? text.slice(0, -1) : text;
}

function isBlank(text) {
  return /^[ \t]*$/.test(text);
}

async function readAll(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

function toolNameHint(text) {
  try {
    const name = JSON.parse(text)?.toolName;
    return typeof name === "string" ? name : undefined;
  } catch {
    return undefined;
  }
}

/** One call → one decision object; never throws. */
function decideText(configJson, text) {
  const { decision, error } = decideOrFailClosed(configJson, text, undefined);
  if (error === null) return decision;
  // Rebuild the fail-closed answer with the tool name, now that we know we need it.
  return failClosedDecision(toolNameHint(text), describeError(error));
}

// ---- commands --------------------------------------------------------------------------------

async function writeOut(text) {
  if (!process.stdout.write(text)) await once(process.stdout, "drain");
}

async function runCheck(args) {
  if (args.positionals.length > 0) throw new UsageError(`check takes no arguments (got ${args.positionals[0]})`);
  const configJson = prepareConfig(args.config);
  for await (const batch of lineBatches(process.stdin, MAX_LINE_CHARS)) {
    let out = "";
    for (const line of batch) {
      let decision;
      if (line.tooLong) {
        decision = failClosedDecision(undefined, `the input line is longer than ${MAX_LINE_CHARS} characters and was not read`, "input-too-large");
      } else if (isBlank(line.text)) {
        continue;
      } else {
        decision = decideText(configJson, line.text);
      }
      out += `${JSON.stringify(decision)}\n`;
      if (out.length >= 1 << 16) {
        await writeOut(out);
        out = "";
      }
    }
    if (out) await writeOut(out);
  }
  return 0;
}

function wrap(text, width, indent) {
  const words = sanitizeLine(text).split(" ");
  const lines = [];
  let line = "";
  for (const word of words) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines.join(`\n${indent}`);
}

/** The readable multi-line summary of one decision. */
function formatExplanation(d) {
  const s = (v) => sanitizeLine(v ?? "");
  const out = [];
  out.push(`decision:  ${s(d.decision)} (severity ${s(d.severity)}, decided by ${s(d.source)}${d.ruleId ? ` rule ${s(d.ruleId)}` : ""})`);
  out.push(`reason:    ${wrap(d.reason, 78, "           ")}`);
  out.push(`reusable:  ${d.reusable ? "yes (an allow-always answer may cover later calls like this one)" : "no"}`);
  const risk = d.risk ?? {};
  const confidence = typeof risk.confidence === "number" ? risk.confidence.toFixed(2) : "?";
  const evidence = Array.isArray(risk.evidence) && risk.evidence.length ? `; evidence: ${risk.evidence.map(s).join(", ")}` : "";
  out.push(`risk:      ${s(risk.level)} (confidence ${confidence}, recommendation: ${s(risk.recommendation)}${evidence})`);
  const findings = Array.isArray(d.findings) ? d.findings : [];
  out.push(`findings:  ${findings.length === 0 ? "none" : ""}`.trimEnd());
  for (const f of findings) out.push(`  - ${s(f.id)} [${s(f.severity)}]: ${wrap(f.detail, 72, "    ")}`);
  if (d.decision === "approval" || d.decision === "critical") {
    const answers = Array.isArray(d.allowedDecisions) ? d.allowedDecisions.map(s).join(", ") : "";
    out.push("approval prompt:");
    out.push(`  title:       ${s(d.preview?.title)}`);
    const description = String(d.preview?.description ?? "").split("\n").map((l) => wrap(l, 64, "               "));
    out.push(`  description: ${description.join("\n               ")}`);
    out.push(`  answers:     ${answers}`);
    if (typeof d.timeoutMs === "number") out.push(`  timeout:     ${d.timeoutMs / 1000} s (then denied)`);
  } else if (d.decision === "block") {
    out.push("approval prompt: none (the call is blocked; the agent sees the reason)");
  } else {
    out.push("approval prompt: none (the call runs without asking)");
  }
  return `${out.join("\n")}\n`;
}

async function runExplain(args) {
  if (args.positionals.length > 1) throw new UsageError("explain takes at most one JSON argument");
  let text = args.positionals[0];
  if (text === undefined || text === "-") {
    if (process.stdin.isTTY) throw new UsageError("explain needs one call as a JSON argument or on stdin");
    text = await readAll(process.stdin);
  }
  text = text.trim();
  if (text === "") throw new UsageError("explain needs one call as a JSON argument or on stdin");
  const configJson = prepareConfig(args.config);
  await writeOut(formatExplanation(decideText(configJson, text)));
  return 0;
}

async function runValidateConfig(args) {
  const file = args.positionals[0] ?? args.config;
  if (file === undefined || file === null || args.positionals.length > 1) throw new UsageError("validate-config needs exactly one FILE");
  const { configJson, problems } = readConfigFile(file);
  let errors = [];
  if (problems.length === 0) {
    try {
      errors = acquireEngine(configJson).errors;
    } catch (err) {
      problems.push(`the policy core failed to load (${describeError(err)})`);
    }
  }
  const all = [...problems, ...errors.map(sanitizeLine)];
  for (const p of all) await writeOut(`human-gate: config: ${p}\n`);
  if (all.length === 0) await writeOut(`${file}: ok, no problems\n`);
  else await writeOut(`${file}: ${all.length} problem(s); the broken parts would fall back to the safe defaults\n`);
  return all.length === 0 ? 0 : 1;
}

async function main(argv) {
  let args;
  try {
    args = parseArgs(argv);
    if (args.help || args.command === "help") {
      await writeOut(`${USAGE}\n`);
      return 0;
    }
    if (args.version) {
      const v = versions();
      await writeOut(`human-gate ${v.package} (core ${v.core})\n`);
      return 0;
    }
    switch (args.command) {
      case "check":
        return await runCheck(args);
      case "explain":
        return await runExplain(args);
      case "validate-config":
        return await runValidateConfig(args);
      case "findings":
        for (const f of findingTable()) await writeOut(`${f.id}\t${f.severity}\t${f.reusable ? "reusable" : "not-reusable"}\t${f.reason}\n`);
        return 0;
      case null:
        throw new UsageError("a command is required");
      default:
        throw new UsageError(`unknown command ${args.command}`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`human-gate: ${err.message}\n${USAGE}\n`);
      return 2;
    }
    throw err;
  }
}

process.stdout.on("error", (err) => {
  // A closed pipe (e.g. `| head`) ends the run quietly; anything else is reported.
  if (err.code === "EPIPE") process.exit(0);
  process.stderr.write(`human-gate: cannot write output: ${describeError(err)}\n`);
  process.exit(1);
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`human-gate: ${describeError(err)}\n`);
    process.exitCode = 1;
  },
);
