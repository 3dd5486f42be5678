// A scripted approval client: a real GatewayClient with the `approvals` capability, connected to
// the run's gateway. The test queues decisions per session key; every plugin.approval.requested
// and plugin.approval.resolved event is recorded so tests can assert on the exact payloads.
import fs from "node:fs";
import path from "node:path";
import { waitFor } from "./wait.mjs";

export const APPROVER_SCOPES = ["operator.admin", "operator.approvals", "operator.read"];

export class ScriptedApprover {
  /** @param {{openclawPkg: string, url: string, token: string, logFile: string}} opts */
  constructor({ openclawPkg, url, token, logFile }) {
    this.openclawPkg = openclawPkg;
    this.url = url;
    this.token = token;
    this.logFile = logFile;
    this.requests = [];   // [{id, request, createdAtMs, expiresAtMs, answer, answeredAt, resolveError}]
    this.resolved = [];   // plugin.approval.resolved payloads
    this.queues = new Map(); // sessionKey -> decisions still to give
    this.helloOk = false;
    this.closed = null;
    this.listeners = new Set();
  }

  log(rec) {
    fs.appendFileSync(this.logFile, JSON.stringify({ t: new Date().toISOString(), ...rec }) + "\n");
  }

  /** Decisions to give, in order, to the next approval requests of `sessionKey`. */
  script(sessionKey, ...decisions) {
    this.queues.set(sessionKey, [...(this.queues.get(sessionKey) ?? []), ...decisions]);
  }

  /** Called with every request record once it has been answered (for live output). */
  onAnswer(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  requestsFor(sessionKey) {
    return this.requests.filter((r) => r.request?.sessionKey === sessionKey);
  }

  async connect({ timeoutMs = 30000, details } = {}) {
    const { GatewayClient } = await import(path.join(this.openclawPkg, "dist/plugin-sdk/gateway-runtime.js"));
    this.client = new GatewayClient({
      url: this.url,
      token: this.token,
      clientName: "gateway-client",
      clientDisplayName: "human-gate e2e approver",
      mode: "backend",
      caps: ["approvals"],
      scopes: APPROVER_SCOPES,
      onHelloOk: () => { this.helloOk = true; this.log({ phase: "hello-ok" }); },
      onConnectError: (err) => this.log({ phase: "connect-error", err: String(err) }),
      onClose: (code, reason) => { this.closed = { code, reason: String(reason) }; this.log({ phase: "close", code, reason: String(reason) }); },
      onEvent: (evt) => this.#onEvent(evt),
    });
    this.client.start();
    await waitFor(() => this.helloOk, { what: "the approval client's hello-ok from the gateway", timeoutMs, details });
  }

  #onEvent(evt) {
    const name = String(evt?.event ?? "");
    if (!name.includes("approval")) return;
    this.log({ phase: "event", event: name, payload: evt.payload });
    if (name === "plugin.approval.resolved") this.resolved.push(evt.payload);
    if (name !== "plugin.approval.requested") return;
    const { id, request, createdAtMs, expiresAtMs } = evt.payload ?? {};
    const record = { id, request, createdAtMs, expiresAtMs, answer: null };
    this.requests.push(record);
    const queue = this.queues.get(request?.sessionKey);
    // Unscripted requests are denied: the safe answer, and the test sees them in `requests`.
    record.scripted = Boolean(queue?.length);
    record.answer = record.scripted ? queue.shift() : "deny";
    this.#answer(record);
  }

  async #answer(record) {
    try {
      const res = await this.client.request("plugin.approval.resolve", { id: record.id, decision: record.answer });
      record.answeredAt = Date.now();
      this.log({ phase: "resolved", id: record.id, decision: record.answer, res });
    } catch (err) {
      record.resolveError = String(err);
      this.log({ phase: "resolve-error", id: record.id, decision: record.answer, err: String(err) });
    }
    for (const fn of this.listeners) fn(record);
  }

  async stop() {
    if (!this.client) return;
    const client = this.client;
    this.client = null;
    try {
      await client.stopAndWait({ timeoutMs: 3000 });
    } catch {
      client.stop();
    }
  }
}
