// Seeds fuzz/corpus/<target>/ from the decision corpus (tests/corpus/*.jsonl) and the config
// fixtures (tests/fixtures/config/**), in each target's input format (fuzz/src/checks.rs).
// Files are named by content hash, so re-running only adds what is missing.
// Usage: node fuzz/seed-corpus.mjs   (run by scripts/fuzz-smoke.sh)
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync, existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const corpus = join(root, "fuzz", "corpus");

function files(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

const seeds = { lex_posix: [], analyze_shell: [], decide: [], config: [], redact: [] };
const sel = (n, text) => Buffer.concat([Buffer.from([n]), Buffer.from(text, "utf8")]);

let i = 0;
for (const f of files(join(root, "tests", "corpus")).filter((p) => p.endsWith(".jsonl"))) {
  for (const line of readFileSync(f, "utf8").split("\n")) {
    if (!line.trim()) continue;
    let c;
    try {
      c = JSON.parse(line);
    } catch {
      continue;
    }
    const request = { toolName: c.toolName, params: c.params ?? {} };
    if (c.toolKind) request.toolKind = c.toolKind;
    seeds.decide.push(sel(0, JSON.stringify(request)));
    if (c.config) seeds.config.push(Buffer.from(JSON.stringify(c.config)));
    for (const key of ["command", "code", "data", "input"]) {
      const text = c.params?.[key];
      if (typeof text !== "string" || !text) continue;
      seeds.lex_posix.push(Buffer.from(text));
      seeds.analyze_shell.push(sel(i++ % 3, text));
      seeds.redact.push(Buffer.from(text));
      if (key === "command") seeds.decide.push(sel(1, text));
      if (key === "code") seeds.decide.push(sel(2, text));
      if (key === "input") seeds.decide.push(sel(3, text));
    }
  }
}
for (const f of files(join(root, "tests", "fixtures", "config")).filter((p) => p.endsWith(".json"))) {
  seeds.config.push(readFileSync(f));
}
seeds.redact.push(
  Buffer.from("curl -H 'Authorization: Bearer abcdefghijklmnop1234' https://admin:pw123456@db.example/x"),
  Buffer.from("export API_KEY='s3cr3t'x; ghp_abcdefghijklmnopqrstuvwxyz0123456789 AKIAABCDEFGHIJKLMNOP"),
  Buffer.from("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"),
  Buffer.from("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N --token=abc sk-ant-abcdefghijklmnopqrstu"),
  Buffer.from("\u001b[31mred\u001b[0m \u202eevil\u200b"),
);

let added = 0;
for (const [target, list] of Object.entries(seeds)) {
  const dir = join(corpus, target);
  mkdirSync(dir, { recursive: true });
  for (const data of list) {
    const p = join(dir, createHash("sha1").update(data).digest("hex"));
    if (!existsSync(p)) {
      writeFileSync(p, data);
      added++;
    }
  }
}
console.log(`seed-corpus: ${added} new seed(s) under fuzz/corpus/`);
