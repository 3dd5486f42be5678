// openclaw.json for one run: the mock model as the only provider, a loopback gateway with token
// auth, the agent workspace and log file inside the run folder, and the human-gate plugin entry.
import fs from "node:fs";
import path from "node:path";

export const PLUGIN_ID = "human-gate";
export const MODEL_REF = "mock/mock-model";

/** The host config before the plugin is installed (install adds its own entry). */
export function baseConfig({ dir, mockPort, gatewayPort, token }) {
  return {
    models: {
      mode: "replace",
      providers: {
        mock: {
          baseUrl: `http://127.0.0.1:${mockPort}/v1`,
          apiKey: "mock-key",
          api: "openai-completions",
          models: [{
            id: "mock-model", name: "Mock Model", reasoning: false, input: ["text"],
            cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
            contextWindow: 128000, maxTokens: 4096,
          }],
        },
      },
    },
    agents: { defaults: { model: { primary: MODEL_REF }, workspace: dir.workspace } },
    gateway: { mode: "local", bind: "loopback", port: gatewayPort, auth: { mode: "token", token } },
    logging: { file: path.join(dir.logs, "openclaw.log") },
  };
}

export function readConfig(configPath) {
  return JSON.parse(fs.readFileSync(configPath, "utf8"));
}

export function writeConfig(configPath, config) {
  fs.mkdirSync(path.dirname(configPath), { recursive: true });
  fs.writeFileSync(configPath, JSON.stringify(config, null, 2) + "\n");
}

/** Set plugins.entries["human-gate"] = {enabled: true, config}, keeping what the host wrote. */
export function setPluginConfig(configPath, pluginConfig) {
  const cfg = readConfig(configPath);
  cfg.plugins ??= {};
  cfg.plugins.entries ??= {};
  cfg.plugins.entries[PLUGIN_ID] = { ...(cfg.plugins.entries[PLUGIN_ID] ?? {}), enabled: true, config: pluginConfig };
  writeConfig(configPath, cfg);
  return cfg;
}
