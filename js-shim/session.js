// Session-authority glue between the host and the core: the only code that carries approval
// outcomes, the owner's exec lease command and the capability tool to the process engine.
//
// Owns: the request fields session authority needs (`sessionId`, `runId` and a call id unique
// in this process, so a resolution finds its pending approval), the `onResolution` feedback
// (allow-once | allow-always | deny | timeout | cancelled → `Engine.resolve`), the
// `/human_gate_exec` command (registered with `requiredScopes: ["operator.admin"]`, otherwise
// the host hides `senderIsOwner`, and checked `senderIsOwner === true` here and in the core),
// and the optional `human_gate_request_capability` tool (its call is what asks: the core turns
// it into an approval; an allow becomes an envelope in the core through the same feedback).
//
// Non-goals: policy (what a grant covers is the core's, src/session/), persistence (grants live
// in the process engine and die with it: a config change or a trap forgets them).
//
// Invariants: nothing here throws into the host; an error grants nothing (the core only
// grants on a well-formed, matching resolution).

import { acquireEngine, boundText, callEngine, describeError, processState, sanitizeLine } from "./core.js";

export const EXEC_COMMAND = "human_gate_exec";
export const CAPABILITY_TOOL = "human_gate_request_capability";
export const RESOLUTIONS = Object.freeze(["allow-once", "allow-always", "deny", "timeout", "cancelled"]);

const CAPABILITY_PARAMETERS = {
  type: "object",
  properties: {
    root: { type: "string", description: "Absolute path of the repository root you need to write files under." },
    reason: { type: "string", description: "What you are about to do there, in one or two sentences." },
  },
  required: ["root"],
  additionalProperties: false,
};

function str(v) {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** A call id unique in this process (shared by every module instance). */
function nextCallId() {
  const state = processState();
  state.sessionCallSeq += 1;
  state.sessionCallPrefix ??= `${process.pid}-${Date.now().toString(36)}`;
  return `${state.sessionCallPrefix}-${state.sessionCallSeq}`;
}

/** The session fields of one request: only defined strings. */
export function sessionFields(event, ctx) {
  return addSessionFields({}, event, ctx);
}

/** Adds the session fields (`callId`, then `sessionId` and `runId` when defined) to `out`. */
export function addSessionFields(out, event, ctx) {
  const ev = event !== null && typeof event === "object" ? event : {};
  const c = ctx !== null && typeof ctx === "object" ? ctx : {};
  out.callId = nextCallId();
  const sessionId = str(c.sessionId) ?? str(ev.sessionId);
  const runId = str(ev.runId) ?? str(c.runId);
  if (sessionId !== undefined) out.sessionId = sessionId;
  if (runId !== undefined) out.runId = runId;
  return out;
}

/** Calls one engine method with JSON; returns the parsed answer or `{ok:false, error}`. */
function engineCall(configJson, method, payload) {
  try {
    const { engine, state } = acquireEngine(configJson);
    if (typeof engine[method] !== "function") return { ok: false, error: `the core has no ${method}` };
    const raw = callEngine(state, () => engine[method](JSON.stringify(payload)));
    const answer = JSON.parse(raw);
    return answer !== null && typeof answer === "object" ? answer : { ok: false, error: "the core answered a non-object" };
  } catch (err) {
    return { ok: false, error: describeError(err) };
  }
}

/**
 * The feedback for one approval: `(resolution) => void`, never throws. Does nothing for a
 * request without a session key (the core keeps no state for it).
 */
export function resolutionFeedback(configJson, request, log, now = () => Date.now()) {
  return (resolution) => {
    try {
      if (typeof request?.sessionKey !== "string" || typeof request?.callId !== "string") return;
      const what = RESOLUTIONS.includes(resolution) ? resolution : "cancelled"; // unknown = nothing granted
      const payload = { sessionKey: request.sessionKey, callId: request.callId, resolution: what, nowMs: now() };
      if (typeof request.sessionId === "string") payload.sessionId = request.sessionId;
      const answer = engineCall(configJson, "resolve", payload);
      if (answer.ok !== true) {
        log.warn(`human-gate: the approval outcome was not recorded (${boundText(sanitizeLine(String(answer.error)), 200)}); nothing is granted`);
      } else if (Array.isArray(answer.effects) && answer.effects.length > 0) {
        log.info(`human-gate: ${what} recorded for this session: ${answer.effects.join(", ")}`);
      }
    } catch (err) {
      log.warn(`human-gate: recording the approval outcome failed: ${describeError(err)}`);
    }
  };
}

/** The `/human_gate_exec` handler: `(ctx) => {text}`. */
export function execCommandHandler(configJson, log, now = () => Date.now()) {
  return (ctx) => {
    try {
      const c = ctx !== null && typeof ctx === "object" ? ctx : {};
      if (c.senderIsOwner !== true) {
        return { text: "⚠️ /human_gate_exec: only the owner may grant an exec lease." };
      }
      const sessionKey = str(c.sessionKey);
      if (sessionKey === undefined) {
        return { text: "⚠️ /human_gate_exec: this chat has no stable session, so there is nothing to lease." };
      }
      const answer = engineCall(configJson, "execLease", {
        sessionKey,
        nowMs: now(),
        args: typeof c.args === "string" ? c.args : "",
        senderIsOwner: true,
      });
      if (answer.ok !== true) return { text: `⚠️ /human_gate_exec: ${boundText(sanitizeLine(String(answer.error)), 300)}` };
      log.info(`human-gate: /human_gate_exec by the owner: ${boundText(sanitizeLine(String(answer.text)), 200)}`);
      return { text: `human-gate: ${answer.text}` };
    } catch (err) {
      return { text: `⚠️ /human_gate_exec failed: ${describeError(err)}` };
    }
  };
}

export function makeCapabilityTool() {
  return {
    name: CAPABILITY_TOOL,
    label: "Request file-write capability",
    description:
      "Ask the human once for permission to create and edit files under one repository root (an absolute path) for the rest of this run, instead of asking for every file. It never covers shell commands, deletes or network access.",
    parameters: CAPABILITY_PARAMETERS,
    async execute(toolCallId, params) {
      const root = typeof params?.root === "string" ? boundText(sanitizeLine(params.root), 200) : "(none)";
      const text = `The request for file writes under ${root} passed the gate. If a person approved it, structured file writes (write, edit, apply_patch) under that root no longer ask for the rest of this run; shell commands, deletes and anything outside the root still do.`;
      return { content: [{ type: "text", text }], details: { root } };
    },
  };
}

/** Registers the command and the optional capability tool; never throws. */
export function registerSession(api, configJson, log) {
  if (typeof api?.registerCommand === "function") {
    try {
      api.registerCommand({
        name: EXEC_COMMAND,
        description: "Owner only: let ordinary exec run without asking in this session for 1-60 minutes (`5m`), or `status` / `off`.",
        acceptsArgs: true,
        requiredScopes: ["operator.admin"],
        handler: execCommandHandler(configJson, log),
      });
    } catch (err) {
      log.error(`human-gate: registering /${EXEC_COMMAND} failed: ${describeError(err)}`);
    }
  }
  if (typeof api?.registerTool === "function") {
    try {
      api.registerTool(makeCapabilityTool(), { optional: true });
    } catch (err) {
      log.error(`human-gate: registering ${CAPABILITY_TOOL} failed: ${describeError(err)}`);
    }
  }
}
