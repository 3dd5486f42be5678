#!/usr/bin/env bash
# `npm test`: everything, in order of cost. Builds what it needs; the real-host e2e installs
# Node 24 and OpenClaw into a cache folder the first time (reused afterwards).
#   HG_SKIP_E2E=1   skip the real-host e2e (for quick local loops only; CI never sets it)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
step() { printf '\n== %s\n' "$*"; }

if [ ! -d node_modules/ajv ]; then
  step "npm install (dev dependencies)"
  npm install --no-audit --no-fund
fi

step "build (toolchain check, wasm-pack, size pass)"
bash scripts/build.sh

step "lint: cargo fmt --check, cargo clippy -D warnings, cargo doc -D warnings (the core and crates/segalloc)"
cargo fmt --check
cargo clippy --quiet --workspace --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --quiet --workspace --no-deps --document-private-items

step "Rust tests"
cargo test --quiet --workspace

if [ "${HG_SKIP_E2E:-}" != 1 ]; then
  # Before the JS tests, so that the schema test can also check OpenClaw's own validator
  # against Ajv (it skips that check when the host is not cached). Reused when cached.
  step "real host: Node 24 and OpenClaw 2026.9.6 into the cache (tests/e2e/install-host.sh)"
  bash tests/e2e/install-host.sh
fi

step "JS tests (shim, CLI, schemas) against the built pkg/"
node --test tests/js/

if [ "${HG_SKIP_E2E:-}" = 1 ]; then
  step "real-host e2e SKIPPED (HG_SKIP_E2E=1)"
else
  step "real-host e2e (OpenClaw 2026.9.6 gateway, mock model, scripted approver)"
  bash tests/e2e/run.sh
fi
