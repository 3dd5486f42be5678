// A scriptable OpenAI-compatible mock model for the real-host e2e (chat completions, SSE and
// non-streaming). Run it as a process: `node mock-model.mjs <logFile> <readyFile>`; it listens on
// 127.0.0.1 on a free port chosen by the OS and writes {"port": N} to <readyFile> once listening.
//
// Script: the last *real* user message of a request carries one line
//   E2E_CALL {"tag":"a1","tool":"read","args":{"path":"…"}}
// Until that turn has a tool result, the mock answers with exactly that tool call. Once a tool
// result follows the scripted user message, it answers with the final text
//   E2E_RESULT a1: <tool result text>
// so the test can read what the agent saw. Every request is logged as one JSON line.
//
// The scripted call is located by position, not by tool-call id, which makes the mock robust to
// the host's behaviour: history replay per session, an injected "internal context" user message
// after tool results, and normalized tool-call ids (call_x_1 comes back as callx1).
import http from "node:http";
import fs from "node:fs";
import { pathToFileURL } from "node:url";

export const CALL_MARK = "E2E_CALL ";
export const RESULT_MARK = "E2E_RESULT";

/** Text of a chat message's content (string or an array of parts). */
export function contentText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((p) => (typeof p === "string" ? p : p?.text ?? p?.content ?? "")).join("\n");
  }
  return content == null ? "" : JSON.stringify(content);
}

/** The E2E_CALL spec in a text, or null. */
export function parseCallSpec(text) {
  const line = String(text).split("\n").find((l) => l.includes(CALL_MARK));
  if (!line) return null;
  try {
    const spec = JSON.parse(line.slice(line.indexOf(CALL_MARK) + CALL_MARK.length).trim());
    return spec && typeof spec.tag === "string" && typeof spec.tool === "string" ? spec : null;
  } catch {
    return null;
  }
}

/** The message for one scripted turn (what the test sends through chat.send). */
export function scriptedMessage({ tag, tool, args }, intro = "Run exactly this tool call for the test.") {
  return `${intro}\n${CALL_MARK}${JSON.stringify({ tag, tool, args })}`;
}

/** Decide the answer for one chat-completions request body: {kind, ...}. Pure. */
export function plan(body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const toolNames = (Array.isArray(body.tools) ? body.tools : []).map((t) => t?.function?.name ?? t?.name);
  let at = -1;
  let spec = null;
  for (let i = messages.length - 1; i >= 0 && at < 0; i--) {
    if (messages[i]?.role !== "user") continue;
    const s = parseCallSpec(contentText(messages[i].content));
    if (s) { at = i; spec = s; }
  }
  if (!spec) return { kind: "unscripted", text: "MOCK: no E2E_CALL in this conversation.", toolNames };
  const results = messages.slice(at + 1).filter((m) => m?.role === "tool");
  if (results.length > 0) {
    const toolText = results.map((m) => contentText(m.content)).join("\n");
    return { kind: "final", tag: spec.tag, toolText, text: `${RESULT_MARK} ${spec.tag}: ${toolText}`, toolNames };
  }
  if (!toolNames.includes(spec.tool)) {
    return { kind: "tool-not-offered", tag: spec.tag, tool: spec.tool, toolNames,
      text: `MOCK: tool ${spec.tool} is not among the offered tools.` };
  }
  return { kind: "tool-call", tag: spec.tag, tool: spec.tool, args: spec.args ?? {}, toolNames };
}

function sse(res, chunks) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  for (const c of chunks) res.write(`data: ${JSON.stringify(c)}\n\n`);
  res.write("data: [DONE]\n\n");
  res.end();
}

function json(res, status, obj) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(obj));
}

function startServer(logFile, readyFile) {
  const log = (rec) => fs.appendFileSync(logFile, JSON.stringify({ t: new Date().toISOString(), ...rec }) + "\n");
  let counter = 0;

  function chat(body, res) {
    const p = plan(body);
    const model = body.model || "mock-model";
    const id = `chatcmpl-mock-${++counter}`;
    const created = Math.floor(Date.now() / 1000);
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    const roles = (body.messages || []).map((m) => `${m.role}:${contentText(m.content ?? m.tool_calls ?? "").slice(0, 160)}`);
    if (p.kind === "tool-call") {
      const call = { id: `call_${p.tag}_${counter}`, type: "function",
        function: { name: p.tool, arguments: JSON.stringify(p.args) } };
      log({ kind: p.kind, tag: p.tag, tool: p.tool, args: p.args, toolCallId: call.id, stream: !!body.stream, roles });
      if (body.stream) {
        return sse(res, [
          { id, object: "chat.completion.chunk", created, model,
            choices: [{ index: 0, delta: { role: "assistant", content: null, tool_calls: [{ index: 0, ...call }] }, finish_reason: null }] },
          { id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }], usage },
        ]);
      }
      return json(res, 200, { id, object: "chat.completion", created, model, usage,
        choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: [call] }, finish_reason: "tool_calls" }] });
    }
    log({ kind: p.kind, tag: p.tag, tool: p.tool, toolText: p.toolText, toolNames: p.toolNames, stream: !!body.stream, roles });
    if (body.stream) {
      return sse(res, [
        { id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta: { role: "assistant", content: p.text }, finish_reason: null }] },
        { id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage },
      ]);
    }
    json(res, 200, { id, object: "chat.completion", created, model, usage,
      choices: [{ index: 0, message: { role: "assistant", content: p.text }, finish_reason: "stop" }] });
  }

  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      let body = {};
      try { body = raw ? JSON.parse(raw) : {}; } catch { /* logged below as an empty body */ }
      if (req.method === "GET" && req.url.endsWith("/models")) {
        return json(res, 200, { object: "list", data: [{ id: "mock-model", object: "model", owned_by: "mock" }] });
      }
      if (req.method === "POST" && req.url.endsWith("/chat/completions")) {
        try { return chat(body, res); } catch (err) {
          log({ kind: "mock-error", err: String(err?.stack ?? err) });
          return json(res, 500, { error: { message: "mock error" } });
        }
      }
      log({ kind: "unsupported", method: req.method, url: req.url });
      json(res, 404, { error: { message: "the mock only speaks chat completions" } });
    });
  });
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address();
    fs.writeFileSync(readyFile, JSON.stringify({ port, pid: process.pid }));
    console.log(`mock model listening on http://127.0.0.1:${port}/v1`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(fs.realpathSync(process.argv[1])).href) {
  const [logFile, readyFile] = process.argv.slice(2);
  if (!logFile || !readyFile) {
    console.error("usage: node mock-model.mjs <logFile> <readyFile>");
    process.exit(2);
  }
  startServer(logFile, readyFile);
}
