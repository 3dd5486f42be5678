#!/usr/bin/env bash
# Installs what the Rust→WASM build needs, only what is missing (idempotent, fast when present):
# the wasm32 target, wasm-bindgen-cli at exactly the crate's pinned version, and wasm-pack.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
# The one pin: Cargo.toml's `wasm-bindgen = "=X.Y.Z"`.
WB_VERSION=$(sed -n 's/^wasm-bindgen *= *{ *version *= *"=\([0-9.]*\)".*/\1/p; s/^wasm-bindgen *= *"=\([0-9.]*\)".*/\1/p' "$HERE/Cargo.toml" | head -1)
WASM_PACK_VERSION=0.15.1
[ -n "$WB_VERSION" ] || { echo "setup: cannot read the pinned wasm-bindgen version from Cargo.toml" >&2; exit 1; }
export PATH="$HOME/.cargo/bin:$PATH"
# The Rust release this project is built and tested with. A machine without rustup (a fresh
# one, or one whose ~/.cargo and ~/.rustup were lost) gets it from static.rust-lang.org.
RUST_VERSION=1.95.0

if ! command -v rustup >/dev/null 2>&1 || ! command -v cargo >/dev/null 2>&1; then
  triple="$(uname -m)-unknown-linux-gnu"
  echo "setup: no Rust toolchain here; installing rustup and Rust $RUST_VERSION ($triple)"
  tmp=$(mktemp -d)
  curl --proto '=https' --tlsv1.2 -sSf -o "$tmp/rustup-init" "https://static.rust-lang.org/rustup/dist/$triple/rustup-init"
  chmod +x "$tmp/rustup-init"
  "$tmp/rustup-init" -y --no-modify-path --default-toolchain "$RUST_VERSION" --profile minimal \
    -c rustfmt -c clippy -t wasm32-unknown-unknown
  rm -rf "$tmp"
fi
for component in rustfmt clippy; do
  if ! rustup component list --installed 2>/dev/null | grep -q "^$component"; then
    echo "setup: adding rust component $component"
    rustup component add "$component"
  fi
done
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  echo "setup: adding rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WB_VERSION" ]; then
  echo "setup: installing wasm-bindgen-cli $WB_VERSION (about 10 minutes the first time)"
  cargo install wasm-bindgen-cli --version "$WB_VERSION" --force
fi
if ! wasm-pack --version >/dev/null 2>&1; then
  echo "setup: installing wasm-pack $WASM_PACK_VERSION (about 4 minutes the first time)"
  cargo install wasm-pack --version "$WASM_PACK_VERSION"
fi
