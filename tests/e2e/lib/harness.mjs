// One e2e run against the real OpenClaw: an isolated state folder, the mock model, the plugin
// installed from the packed tarball, a loopback gateway, a scripted approval client and a chat
// driver. Used by the node:test e2e and by `npm run demo`.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ScriptedApprover } from "./approver.mjs";
import { chatHistory, chatSend, findToolResult } from "./chat.mjs";
import { baseConfig, PLUGIN_ID, readConfig, setPluginConfig, writeConfig } from "./config.mjs";
import { adoptEnv, createRunDir, freePort, guardHostLeftovers, hostPaths, isolatedEnv } from "./host.mjs";
import { scriptedMessage } from "./mock-model.mjs";
import { killByEnv, runCommand, startProcess, stopProcess, tailFile } from "./processes.mjs";
import { waitFor, withTimeout } from "./wait.mjs";

const MOCK_SCRIPT = fileURLToPath(new URL("./mock-model.mjs", import.meta.url));

export const TIMEOUTS = {
  cli: 120_000,        // one openclaw CLI command (install / inspect)
  mockStart: 15_000,
  gatewayReady: 120_000,
  approverHello: 30_000,
  chatSend: 30_000,
  turn: 120_000,       // from chat.send to the model's final answer
  stop: 10_000,
};

/** Parse a JSONL file, skipping a partially written last line. */
export function readJsonl(file) {
  let text;
  try { text = fs.readFileSync(file, "utf8"); } catch { return []; }
  const out = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try { out.push(JSON.parse(line)); } catch { /* partial line */ }
  }
  return out;
}

/** The first JSON object in a CLI's stdout (tolerates banner lines before it). */
export function parseJsonOutput(stdout) {
  const start = stdout.indexOf("{");
  if (start < 0) throw new Error(`no JSON in output:\n${stdout.slice(0, 2000)}`);
  return JSON.parse(stdout.slice(start));
}

export class Harness {
  static create() {
    const h = new Harness();
    h.host = hostPaths();
    h.dir = createRunDir();
    h.removeLeftovers = guardHostLeftovers();
    h.token = crypto.randomBytes(18).toString("hex");
    h.env = isolatedEnv(h.host, h.dir, { OPENCLAW_GATEWAY_TOKEN: h.token });
    // the approval client and chat driver run in this process and read the same env
    adoptEnv(h.env);
    h.mockLog = path.join(h.dir.logs, "mock-requests.jsonl");
    h.gatewayLog = path.join(h.dir.logs, "gateway.out");
    h.approverLog = path.join(h.dir.logs, "approver.jsonl");
    h.cliCount = 0;
    h.procs = [];
    return h;
  }

  // ---- host CLI -------------------------------------------------------------------------------

  /** Run `openclaw <args>` in the isolated env; output is also kept under logs/. */
  async openclaw(args, { timeoutMs = TIMEOUTS.cli } = {}) {
    const res = await runCommand(this.host.openclawBin, args, { env: this.env, cwd: this.dir.root, timeoutMs });
    const n = String(++this.cliCount).padStart(2, "0");
    fs.writeFileSync(path.join(this.dir.logs, `cli-${n}-${args.slice(0, 2).join("-")}.log`),
      `$ openclaw ${args.join(" ")}\n# exit ${res.code} signal ${res.signal} timedOut ${res.timedOut}\n## stdout\n${res.stdout}\n## stderr\n${res.stderr}`);
    if (res.timedOut) throw new Error(`openclaw ${args.join(" ")} timed out after ${timeoutMs / 1000} s\n${res.stderr.slice(-2000)}`);
    return res;
  }

  async installPlugin(tarball) {
    return this.openclaw(["plugins", "install", `npm-pack:${tarball}`, "--force", "--accept-capabilities"]);
  }

  async inspectPlugin() {
    const res = await this.openclaw(["plugins", "inspect", PLUGIN_ID, "--runtime", "--json"]);
    if (res.code !== 0) throw new Error(`plugins inspect failed (exit ${res.code}):\n${res.stderr.slice(-3000)}\n${res.stdout.slice(-2000)}`);
    return parseJsonOutput(res.stdout);
  }

  // ---- config -----------------------------------------------------------------------------------

  /** Pick the gateway port and write the host config (the mock must be running). */
  async writeBaseConfig() {
    this.gatewayPort = await freePort();
    writeConfig(this.dir.configPath, baseConfig({ dir: this.dir, mockPort: this.mockPort, gatewayPort: this.gatewayPort, token: this.token }));
  }

  /** plugins.entries["human-gate"].config; call before the gateway starts. */
  configurePlugin(pluginConfig) {
    return setPluginConfig(this.dir.configPath, pluginConfig);
  }

  // ---- processes ----------------------------------------------------------------------------------

  #start(name, cmd, args, logFile) {
    const proc = startProcess(name, cmd, args, { env: this.env, cwd: this.dir.root, logFile, pidFile: this.dir.pidFile });
    this.procs.push(proc);
    return proc;
  }

  async startMock() {
    const ready = path.join(this.dir.logs, "mock-ready.json");
    this.mock = this.#start("mock-model", this.host.node, [MOCK_SCRIPT, this.mockLog, ready], path.join(this.dir.logs, "mock.out"));
    const info = await waitFor(() => {
      if (this.mock.exited) throw new Error(`mock model exited: ${JSON.stringify(this.mock.exited)}\n${tailFile(this.mock.logFile)}`);
      return fs.existsSync(ready) && JSON.parse(fs.readFileSync(ready, "utf8"));
    }, { what: "the mock model to listen", timeoutMs: TIMEOUTS.mockStart, details: () => tailFile(this.mock.logFile) });
    this.mockPort = info.port;
  }

  get gatewayUrl() {
    return `ws://127.0.0.1:${this.gatewayPort}`;
  }

  /** Tail of the gateway's output, for failure messages (the host log file has the same as JSON). */
  gatewayDetails(lines = 40) {
    return [
      `--- gateway output (${this.gatewayLog}), last ${lines} lines ---`,
      tailFile(this.gatewayLog, lines),
      `--- more in ${this.dir.logs}: openclaw.log (host log), mock-requests.jsonl, approver.jsonl, cli-*.log ---`,
    ].join("\n");
  }

  async startGateway() {
    for (let attempt = 1; ; attempt++) {
      const offset = fs.existsSync(this.gatewayLog) ? fs.statSync(this.gatewayLog).size : 0;
      const proc = this.#start("gateway", this.host.openclawBin,
        ["gateway", "run", "--port", String(this.gatewayPort), "--bind", "loopback"], this.gatewayLog);
      const out = () => fs.readFileSync(this.gatewayLog, "utf8").slice(offset);
      const state = await waitFor(() => {
        if (/\[gateway\] ready/.test(out())) return "ready";
        if (proc.exited) return "exited";
        return null;
      }, { what: `the gateway on 127.0.0.1:${this.gatewayPort} to be ready`, timeoutMs: TIMEOUTS.gatewayReady, intervalMs: 250,
        details: () => this.gatewayDetails() });
      if (state === "ready") {
        this.gateway = proc;
        return;
      }
      // Someone grabbed the port between freePort() and the bind: pick another, at most twice.
      if (attempt < 3 && /EADDRINUSE|address already in use/i.test(out())) {
        this.gatewayPort = await freePort();
        const cfg = readConfig(this.dir.configPath);
        cfg.gateway.port = this.gatewayPort;
        writeConfig(this.dir.configPath, cfg);
        continue;
      }
      throw new Error(`the gateway exited before it was ready (${JSON.stringify(proc.exited)})\n${this.gatewayDetails()}`);
    }
  }

  async connectApprover() {
    this.approver = new ScriptedApprover({ openclawPkg: this.host.openclawPkg, url: this.gatewayUrl, token: this.token, logFile: this.approverLog });
    await this.approver.connect({ timeoutMs: TIMEOUTS.approverHello, details: () => this.gatewayDetails() });
    return this.approver;
  }

  /** Start everything up to a gateway with the plugin installed and configured. */
  async startAll({ tarball, pluginConfig }) {
    await this.startMock();
    await this.writeBaseConfig();
    const install = await this.installPlugin(tarball);
    if (install.code !== 0) throw new Error(`plugins install failed (exit ${install.code}):\n${install.stdout}\n${install.stderr}`);
    this.configurePlugin(pluginConfig);
    await this.startGateway();
    await this.connectApprover();
    return install;
  }

  // ---- turns --------------------------------------------------------------------------------------

  mockEntries(tag) {
    return readJsonl(this.mockLog).filter((e) => tag === undefined || e.tag === tag);
  }

  markerPath(name) {
    return path.join(this.dir.markers, name);
  }

  /**
   * One agent turn: the mock model makes exactly `tool(args)`; resolves when the model has
   * received the tool result. Returns {chat, toolText (what the model received), toolResult
   * ({toolName, isError, text} from the gateway's transcript), calls (the model's tool calls as
   * logged by the mock), approvals (approval requests of this session, with the answers)}.
   * `decisions` are queued for the approval requests of this session.
   */
  async turn({ sessionKey, tag, tool, args, decisions = [], timeoutMs = TIMEOUTS.turn }) {
    if (!this.approver) throw new Error("connect the approver first");
    if (decisions.length) this.approver.script(sessionKey, ...decisions);
    const details = () => [
      `--- mock log entries for ${tag} ---`, this.mockEntries(tag).map((e) => JSON.stringify(e)).join("\n"),
      `--- approval requests for ${sessionKey} ---`, JSON.stringify(this.approver.requestsFor(sessionKey), null, 1),
      this.gatewayDetails(),
    ].join("\n");
    const chat = await withTimeout(
      chatSend({ openclawPkg: this.host.openclawPkg, url: this.gatewayUrl, token: this.token, sessionKey,
        message: scriptedMessage({ tag, tool, args }), timeoutMs: TIMEOUTS.chatSend }),
      { what: `chat.send for ${sessionKey}`, timeoutMs: TIMEOUTS.chatSend + 5000, details });
    const final = await waitFor(() => {
      const entries = this.mockEntries(tag);
      const bad = entries.find((e) => e.kind === "tool-not-offered");
      if (bad) throw new Error(`the host did not offer tool "${bad.tool}" to the model; offered: ${bad.toolNames.join(", ")}`);
      return entries.find((e) => e.kind === "final");
    }, { what: `the model to receive the result of ${tool} (turn ${tag}, session ${sessionKey})`, timeoutMs, details });
    const calls = this.mockEntries(tag).filter((e) => e.kind === "tool-call");
    // The host's own record of the call: the transcript's toolResult (isError, text).
    const toolResult = await waitFor(async () => findToolResult(
      await chatHistory({ openclawPkg: this.host.openclawPkg, url: this.gatewayUrl, token: this.token, sessionKey }),
      calls[0]?.toolCallId,
    ), { what: `the transcript of ${sessionKey} to record the tool result`, timeoutMs: 15_000, intervalMs: 300, details });
    return { chat, toolText: final.toolText, toolResult, calls, approvals: this.approver.requestsFor(sessionKey) };
  }

  // ---- teardown -----------------------------------------------------------------------------------

  /** On SIGINT/SIGTERM: stop everything, then exit (130 / 143). */
  stopOnSignals() {
    for (const [sig, code] of [["SIGINT", 130], ["SIGTERM", 143]]) {
      process.once(sig, () => {
        process.stderr.write(`\n${sig}: stopping the e2e processes\n`);
        this.stop().finally(() => process.exit(code));
      });
    }
  }

  /** Stop everything this run started; remove the run folder unless `keep`. */
  async stop({ keep = false } = {}) {
    this.stopping ??= this.#stop({ keep });
    return this.stopping;
  }

  async #stop({ keep }) {
    const errors = [];
    try { await withTimeout(this.approver?.stop() ?? Promise.resolve(), { what: "the approver to stop", timeoutMs: TIMEOUTS.stop }); } catch (err) { errors.push(err); }
    for (const proc of [...this.procs].reverse()) {
      try { await stopProcess(proc); } catch (err) { errors.push(err); }
    }
    const stray = killByEnv("OPENCLAW_STATE_DIR", this.dir.stateDir);
    if (stray.length) errors.push(new Error(`killed stray processes of this run: ${stray.join(", ")}`));
    this.removeLeftovers();
    if (!keep && this.dir && !process.env.HG_E2E_KEEP) fs.rmSync(this.dir.root, { recursive: true, force: true });
    return errors;
  }
}
