#!/usr/bin/env bash
# Builds the WASM core into pkg/ (wasm-pack, --target nodejs: synchronous instantiation on
# require, which OpenClaw's synchronous register() needs), then an optional size pass with npm
# binaryen's wasm-opt (never Debian's: its v108 corrupts wasm-bindgen's externref table).
#   --if-missing   do nothing when pkg/ is already newer than every source file
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
WASM=pkg/openclaw_human_gate_bg.wasm

if [ "${1:-}" = "--if-missing" ] && [ -f "$WASM" ] && [ -f pkg/openclaw_human_gate.js ] \
   && [ -z "$(find src Cargo.toml -newer "$WASM" -print -quit)" ]; then
  exit 0
fi

bash scripts/setup-toolchain.sh
wasm-pack --log-level warn build --release --target nodejs --out-dir pkg --no-pack
# wasm-pack writes pkg/.gitignore ("*"), which would make npm pack drop pkg/ from the tarball.
rm -f pkg/.gitignore
# pkg/package.json keeps the generated CommonJS module out of the root "type": "module" scope.
node scripts/patch-glue.mjs pkg/openclaw_human_gate.js
printf '{\n  "name": "openclaw-human-gate-core",\n  "private": true,\n  "type": "commonjs",\n  "main": "openclaw_human_gate.js"\n}\n' > pkg/package.json

OPT=node_modules/.bin/wasm-opt
if [ "${HG_SKIP_WASM_OPT:-}" != 1 ] && [ -x "$OPT" ] && "$OPT" --version 2>/dev/null | grep -q 'version 13[2-9]'; then
  before=$(stat -c %s "$WASM")
  "$OPT" -Oz --enable-bulk-memory --enable-reference-types --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals --enable-multivalue "$WASM" -o "$WASM.opt"
  mv "$WASM.opt" "$WASM"
  echo "build: wasm-opt $before -> $(stat -c %s "$WASM") bytes"
fi
# Smoke: the module must instantiate and answer (a corrupted module throws at load).
node -e 'const c=require("./pkg/openclaw_human_gate.js"); const e=new c.Engine("{}"); const d=JSON.parse(e.decide(JSON.stringify({toolName:"read",params:{path:"README.md"}}))); if(d.decision!=="auto") {console.error("build: smoke decision", d); process.exit(1)}'
echo "build: pkg/ ready ($(stat -c %s "$WASM") bytes wasm)"
