// A minimal stand-in for OpenClaw's plugin `api`, enough for register(api): it records the
// typed hooks and tools the shim registers. Shared by the in-process latency run and the
// load-time child processes.
export function makeFakeApi(pluginConfig) {
  const hooks = [];
  const tools = [];
  const logs = [];
  const api = {
    id: "human-gate",
    name: "Human Gate",
    source: "bench",
    registrationMode: "full",
    config: {},
    pluginConfig,
    logger: {
      debug: (m) => logs.push(["debug", m]),
      info: (m) => logs.push(["info", m]),
      warn: (m) => logs.push(["warn", m]),
      error: (m) => logs.push(["error", m]),
    },
    on(hookName, handler, opts = {}) {
      hooks.push({ hookName, handler, priority: opts.priority ?? 0 });
    },
    registerTool(tool, opts) {
      tools.push({ tool, opts });
    },
  };
  return { api, hooks, tools, logs };
}
