#!/usr/bin/env bash
# The real-host e2e (`npm run test:e2e`): installs Node 24 + openclaw@2026.9.6 into the cache
# (reused), builds pkg/ if needed, packs the plugin, and runs the node:test suite against a real
# OpenClaw gateway. Everything runs on 127.0.0.1 in a fresh temp folder; every process is stopped
# on exit, also on failure, timeout or Ctrl-C. HG_KEEP_RUN=1 keeps the run folder after a success
# too (it is always kept after a failure); HG_E2E_TARBALL=<file.tgz> tests that tarball instead
# of building and packing this checkout; HG_E2E_TIMEOUT (s, default 900) bounds the suite.
set -euo pipefail
source "$(dirname "$0")/common.sh"

status=1
trap 'hg_cleanup $status' EXIT
trap 'hg_on_signal 130' INT
trap 'hg_on_signal 143' TERM

hg_prepare e2e
hg_log "e2e: node $("$HG_NODE" --version), $(cat "$HG_CACHE/openclaw/.installed"), plugin $(basename "$HG_E2E_TARBALL")"

cd "$HG_REPO"
rc=0
# Every tests/e2e/*.e2e.test.mjs file, one at a time (each starts its own gateway).
hg_run_bounded "${HG_E2E_TIMEOUT:-900}" "$HG_NODE" --test --test-concurrency=1 --test-reporter=spec tests/e2e/*.e2e.test.mjs || rc=$?
status=$rc
exit "$status"
