// Drives one agent turn through gateway `chat.send`. The sending client must hold
// `operator.approvals`, because the host intersects an in-turn plugin approval request with the
// initiating client's scopes (without it: "Plugin approval required (gateway unavailable)").
// `openclaw gateway call chat.send` only holds operator.write, so this uses the host's internal
// callGateway — a build-hashed module of openclaw 2026.9.6: fine for a pinned test host only.
import path from "node:path";

const INTERNAL_CALL_MODULE = "dist/call-CysZoL4g.mjs"; // openclaw@2026.9.6; re-find it for another build
export const CHAT_SCOPES = ["operator.read", "operator.write", "operator.approvals"];

let callGatewayPromise;
async function loadCallGateway(openclawPkg) {
  callGatewayPromise ??= import(path.join(openclawPkg, INTERNAL_CALL_MODULE)).then((m) => {
    if (typeof m.o !== "function") throw new Error(`${INTERNAL_CALL_MODULE} no longer exports callGateway as "o"`);
    return m.o;
  });
  return callGatewayPromise;
}

/** Send one user message to `sessionKey`; resolves with the gateway's answer to chat.send.
 * `scopes` defaults to CHAT_SCOPES; an owner command needs `operator.admin` as well. */
export async function chatSend({ openclawPkg, url, token, sessionKey, message, timeoutMs = 30000, scopes = CHAT_SCOPES }) {
  const callGateway = await loadCallGateway(openclawPkg);
  return callGateway({
    url,
    token,
    method: "chat.send",
    params: { sessionKey, message, idempotencyKey: `hg-e2e-${sessionKey}-${Date.now()}` },
    scopes,
    mode: "cli",
    clientName: "cli",
    timeoutMs,
  });
}

/** The session transcript as the gateway serves it to chat clients (chat.history). */
export async function chatHistory({ openclawPkg, url, token, sessionKey, timeoutMs = 15000 }) {
  const callGateway = await loadCallGateway(openclawPkg);
  const res = await callGateway({
    url, token, method: "chat.history", params: { sessionKey },
    scopes: ["operator.read"], mode: "cli", clientName: "cli", timeoutMs,
  });
  return Array.isArray(res?.messages) ? res.messages : [];
}

/** The recorded tool result of one tool call: {toolName, isError, text}, or null. */
export function findToolResult(messages, toolCallId) {
  const norm = (id) => String(id ?? "").replace(/[^A-Za-z0-9]/g, ""); // the host may normalize ids
  const m = messages.find((x) => x?.role === "toolResult" && norm(x.toolCallId) === norm(toolCallId));
  if (!m) return null;
  const text = Array.isArray(m.content) ? m.content.map((p) => p?.text ?? "").join("\n") : String(m.content ?? "");
  return { toolName: m.toolName, isError: m.isError === true, text };
}
