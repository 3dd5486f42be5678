#!/usr/bin/env node
// Copies schemas/config.schema.json (the one source of truth for the plugin's config contract)
// into openclaw.plugin.json's `configSchema`, so the host validates exactly what we publish.
//
//   node scripts/sync-manifest.mjs          rewrite the manifest if it is out of date
//   node scripts/sync-manifest.mjs --check  exit 1 (and change nothing) if it is out of date
//
// Only the `configSchema` value is replaced, as text: every other byte of the manifest (its
// hand-written formatting included) stays as it is. The schema is copied with its own
// formatting, re-indented to where it sits. `$schema` and `$id` are kept: OpenClaw 2026.9.6's
// validator accepts them (tests/js/schema.test.mjs checks the manifest against the host's own
// validator when the e2e cache has it). The result must parse as plain JSON, and its
// `configSchema` must deep-equal the schema file, or the script refuses to write.
import { readFileSync, writeFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const SCHEMA = `${root}schemas/config.schema.json`;
const MANIFEST = `${root}openclaw.plugin.json`;

function fail(message) {
  console.error(`sync-manifest: ${message}`);
  process.exit(2);
}

// Skips a JSON string starting at the opening quote `i`; returns the index after its closing quote.
function skipString(text, i) {
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === "\\") j++;
    else if (text[j] === '"') return j + 1;
  }
  fail("unterminated string in the manifest");
}

// Skips one JSON value starting at `i` (no leading whitespace); returns the index after it.
function skipValue(text, i) {
  if (text[i] === '"') return skipString(text, i);
  if (text[i] === "{" || text[i] === "[") {
    let depth = 0;
    for (let j = i; j < text.length; ) {
      const c = text[j];
      if (c === '"') { j = skipString(text, j); continue; }
      if (c === "{" || c === "[") depth++;
      else if (c === "}" || c === "]") {
        depth--;
        if (depth === 0) return j + 1;
      }
      j++;
    }
    fail("unbalanced brackets in the manifest");
  }
  const m = /^[^,}\]\s]+/.exec(text.slice(i));
  if (!m) fail(`unexpected character at offset ${i} in the manifest`);
  return i + m[0].length;
}

const skipWs = (text, i) => {
  while (i < text.length && /\s/.test(text[i])) i++;
  return i;
};

// Finds the top-level member `key` of the manifest object: {keyStart, valueStart, valueEnd},
// or null when there is none. Also returns the offset of the object's closing brace.
function findMember(text, key) {
  let i = skipWs(text, 0);
  if (text[i] !== "{") fail("the manifest is not a JSON object");
  i = skipWs(text, i + 1);
  while (text[i] !== "}") {
    const keyStart = i;
    const keyEnd = skipString(text, i);
    const name = JSON.parse(text.slice(keyStart, keyEnd));
    i = skipWs(text, keyEnd);
    if (text[i] !== ":") fail(`expected ':' after ${JSON.stringify(name)} in the manifest`);
    const valueStart = skipWs(text, i + 1);
    const valueEnd = skipValue(text, valueStart);
    if (name === key) return { keyStart, valueStart, valueEnd };
    i = skipWs(text, valueEnd);
    if (text[i] === ",") i = skipWs(text, i + 1);
  }
  return { closeBrace: i };
}

function expectedManifest(manifestText, schemaText) {
  const schemaBody = schemaText.trim();
  const found = findMember(manifestText, "configSchema");
  let next;
  if (found.valueStart !== undefined) {
    const lineStart = manifestText.lastIndexOf("\n", found.keyStart) + 1;
    const indent = /^[ \t]*/.exec(manifestText.slice(lineStart))[0];
    const value = schemaBody.replace(/\n/g, `\n${indent}`);
    next = manifestText.slice(0, found.valueStart) + value + manifestText.slice(found.valueEnd);
  } else {
    // No configSchema yet: append it as the last member, indented like a two-space manifest.
    const before = manifestText.slice(0, found.closeBrace).replace(/\s*$/, "");
    const sep = before.endsWith("{") ? "" : ",";
    next = `${before}${sep}\n  "configSchema": ${schemaBody.replace(/\n/g, "\n  ")}\n` +
      manifestText.slice(found.closeBrace);
  }
  return next;
}

const check = process.argv.includes("--check");
const schemaText = readFileSync(SCHEMA, "utf8");
const manifestText = readFileSync(MANIFEST, "utf8");
let schema;
try {
  schema = JSON.parse(schemaText);
} catch (e) {
  fail(`${SCHEMA} is not JSON: ${e.message}`);
}
try {
  JSON.parse(manifestText);
} catch (e) {
  fail(`${MANIFEST} is not plain JSON: ${e.message}`);
}

const next = expectedManifest(manifestText, schemaText);
let parsed;
try {
  parsed = JSON.parse(next);
} catch (e) {
  fail(`the synced manifest would not be plain JSON: ${e.message}`);
}
if (!isDeepStrictEqual(parsed.configSchema, schema)) fail("the synced configSchema would differ from the schema file");
const { configSchema: _a, ...restAfter } = parsed;
const { configSchema: _b, ...restBefore } = JSON.parse(manifestText);
if (!isDeepStrictEqual(restAfter, restBefore)) fail("syncing would change more than configSchema");

if (next === manifestText) {
  if (!check) console.log("sync-manifest: openclaw.plugin.json is up to date");
  process.exit(0);
}
if (check) {
  console.error("sync-manifest: openclaw.plugin.json configSchema is out of date with schemas/config.schema.json; run `node scripts/sync-manifest.mjs`");
  process.exit(1);
}
writeFileSync(MANIFEST, next);
console.log("sync-manifest: wrote schemas/config.schema.json into openclaw.plugin.json configSchema");
