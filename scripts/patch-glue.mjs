// Patches wasm-bindgen's generated glue (pkg/openclaw_human_gate.js) after each build. Strings
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

// Strings out of the core: ASCII text (every answer of the gate hook's path is ASCII JSON) is
// copied as one-byte characters, which is what UTF-8 decoding gives for ASCII, instead of going
// through TextDecoder; anything else is decoded as before. Node 20: 1.1 KB 305 -> 133 ns.
const OUT_MARK = "human-gate: scripts/patch-glue.mjs (strings out)";
const OUT_OLD = `function getStringFromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return decodeText(getUint8ArrayMemory0().subarray(ptr, ptr + len));
}`;
const OUT_NEW = `// ${OUT_MARK}: ASCII text is copied as
// one-byte characters (what UTF-8 decoding gives for ASCII); anything else is decoded.
const { isAscii: humanGateIsAscii } = require('buffer');
let humanGateBytes = null;
function humanGateAscii(bytes) {
    if (humanGateBytes === null || humanGateBytes.buffer !== bytes.buffer) {
        humanGateBytes = Buffer.from(bytes.buffer);
    }
    return humanGateBytes.toString('latin1', bytes.byteOffset, bytes.byteOffset + bytes.length);
}

function getStringFromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    const bytes = getUint8ArrayMemory0().subarray(ptr, ptr + len);
    if (typeof humanGateIsAscii === 'function' && humanGateIsAscii(bytes)) return humanGateAscii(bytes);
    return decodeText(bytes);
}`;

let text = readFileSync(path, "utf8");
for (const [mark, old, patched, what] of [
  [`${MARK}: encodeInto`, OLD, NEW, "string-passing code"],
  [OUT_MARK, OUT_OLD, OUT_NEW, "string-returning code"],
]) {
  if (text.includes(mark)) continue;
  const at = text.indexOf(old);
  if (at < 0 || text.indexOf(old, at + 1) >= 0) {
    console.error(`patch-glue: the ${what} in ${path} is not the one this patch knows (wasm-bindgen changed?); update scripts/patch-glue.mjs`);
    process.exit(1);
  }
  text = text.slice(0, at) + patched + text.slice(at + old.length);
}
writeFileSync(path, text);
