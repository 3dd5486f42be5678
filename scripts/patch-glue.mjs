// Patches wasm-bindgen's generated glue (pkg/openclaw_human_gate.js) after each build: strings
// going into the core are written by TextEncoder.encodeInto from their first character, instead
// of a charCodeAt loop over their ASCII prefix and encodeInto for the rest. Same bytes (the
// UTF-8 of the string, a lone surrogate as U+FFFD: encodeInto did the non-ASCII part before
// too); measured on Node 20: 20 KB 25 µs -> 0.5 µs, 300 bytes 0.43 -> 0.08 µs, 20 bytes
// 0.03 -> 0.06 µs. The request of every decision goes through it.
//
// The glue is pinned with wasm-bindgen (=0.2.130 in Cargo.toml): when the text to replace is not
// found exactly once, this fails the build instead of shipping an unpatched or broken glue.
//   node scripts/patch-glue.mjs [path]
import { readFileSync, writeFileSync } from "node:fs";

const path = process.argv[2] ?? new URL("../pkg/openclaw_human_gate.js", import.meta.url).pathname;
const MARK = "human-gate: scripts/patch-glue.mjs";
const OLD = `    let len = arg.length;
    let ptr = malloc(len, 1) >>> 0;

    const mem = getUint8ArrayMemory0();

    let offset = 0;

    for (; offset < len; offset++) {
        const code = arg.charCodeAt(offset);
        if (code > 0x7F) break;
        mem[ptr + offset] = code;
    }
    if (offset !== len) {
        if (offset !== 0) {
            arg = arg.slice(offset);
        }
        ptr = realloc(ptr, len, len = offset + arg.length * 3, 1) >>> 0;`;
const NEW = `    let len = arg.length;
    let ptr = malloc(len, 1) >>> 0;

    // ${MARK}: encodeInto from the first character (as many whole
    // characters as fit in arg.length bytes: all of them when the string is ASCII).
    const first = cachedTextEncoder.encodeInto(arg, getUint8ArrayMemory0().subarray(ptr, ptr + len));
    let offset = first.written;
    if (first.read !== arg.length) {
        arg = arg.slice(first.read);
        ptr = realloc(ptr, len, len = offset + arg.length * 3, 1) >>> 0;`;

const text = readFileSync(path, "utf8");
if (text.includes(MARK)) process.exit(0);
const at = text.indexOf(OLD);
if (at < 0 || text.indexOf(OLD, at + 1) >= 0) {
  console.error(`patch-glue: the string-passing code in ${path} is not the one this patch knows (wasm-bindgen changed?); update scripts/patch-glue.mjs`);
  process.exit(1);
}
writeFileSync(path, text.slice(0, at) + NEW + text.slice(at + OLD.length));
