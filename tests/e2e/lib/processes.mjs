// Background processes of one e2e run. Each child runs in its own process group (detached), so
// stopping it also stops whatever it spawned. Every group id is appended to a pid file that the
// shell entry point uses as a last-resort cleanup, and an exit hook SIGKILLs groups still alive
// if the test process itself dies early.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

const alive = new Set(); // process-wide: every group started through this module and not yet reaped

process.once("exit", () => {
  for (const pid of alive) {
    try { process.kill(-pid, "SIGKILL"); } catch { /* already gone */ }
  }
});

function groupAlive(pid) {
  try { process.kill(-pid, 0); return true; } catch { return false; }
}

/** Last `lines` lines of a text file ("" when it does not exist). */
export function tailFile(file, lines = 40) {
  try {
    return fs.readFileSync(file, "utf8").split("\n").slice(-lines - 1).join("\n");
  } catch {
    return "";
  }
}

/**
 * Start `cmd args` in its own process group, stdout+stderr appended to `logFile`.
 * Returns {name, pid, logFile, exit} where `exit` resolves to {code, signal}.
 */
export function startProcess(name, cmd, args, { env, cwd, logFile, pidFile }) {
  const fd = fs.openSync(logFile, "a");
  const child = spawn(cmd, args, { env, cwd, detached: true, stdio: ["ignore", fd, fd] });
  fs.closeSync(fd);
  if (!child.pid) throw new Error(`could not start ${name}: ${cmd}`);
  alive.add(child.pid);
  if (pidFile) fs.appendFileSync(pidFile, `${child.pid} ${name}\n`);
  const proc = { name, pid: child.pid, logFile, exited: null };
  proc.exit = new Promise((resolve) => {
    child.once("exit", (code, signal) => { proc.exited = { code, signal }; resolve(proc.exited); });
    child.once("error", (err) => { proc.exited = { code: null, signal: null, error: String(err) }; resolve(proc.exited); });
  });
  return proc;
}

/** SIGTERM the process group, wait up to graceMs, then SIGKILL it. Idempotent. */
export async function stopProcess(proc, { graceMs = 5000 } = {}) {
  if (!proc) return;
  const pid = proc.pid;
  if (groupAlive(pid)) {
    try { process.kill(-pid, "SIGTERM"); } catch { /* gone */ }
    const deadline = Date.now() + graceMs;
    while (groupAlive(pid) && Date.now() < deadline) await sleep(100);
    if (groupAlive(pid)) {
      try { process.kill(-pid, "SIGKILL"); } catch { /* gone */ }
      const killDeadline = Date.now() + 2000;
      while (groupAlive(pid) && Date.now() < killDeadline) await sleep(50);
    }
  }
  alive.delete(pid);
}

/**
 * Run a command to completion in its own process group with a hard timeout.
 * Resolves {code, signal, stdout, stderr, timedOut}.
 */
export function runCommand(cmd, args, { env, cwd, timeoutMs, input }) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, cwd, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    alive.add(child.pid);
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.stdin.end(input ?? "");
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-child.pid, "SIGKILL"); } catch { /* gone */ }
    }, timeoutMs);
    let finished = false;
    const done = (code, signal) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      // the command is done; anything it left behind in its group goes too
      try { process.kill(-child.pid, "SIGKILL"); } catch { /* gone */ }
      alive.delete(child.pid);
      resolve({ code, signal, stdout, stderr, timedOut });
    };
    child.once("close", done);
    child.once("error", (err) => { stderr += String(err); done(null, null); });
  });
}

/**
 * SIGKILL every process (other than this one) whose environment has `name=value` exactly: the
 * last sweep for helpers a child started in process groups of its own. Returns the pids killed.
 */
export function killByEnv(name, value) {
  const needle = Buffer.from(`${name}=${value}\0`);
  const killed = [];
  let pids = [];
  try { pids = fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number); } catch { return killed; }
  for (const pid of pids) {
    if (pid === process.pid) continue;
    let environ;
    try { environ = fs.readFileSync(`/proc/${pid}/environ`); } catch { continue; }
    const at = environ.indexOf(needle);
    if (at === 0 || (at > 0 && environ[at - 1] === 0)) {
      try { process.kill(pid, "SIGKILL"); killed.push(pid); } catch { /* gone */ }
    }
  }
  return killed;
}
