#!/usr/bin/env bash
# `npm run demo`: the real OpenClaw gateway (Node 24 + openclaw@2026.9.6, cached), the packed
# human-gate plugin, a mock model and a scripted approver; prints one line per tool call with the
# gate's decision, live. Same machinery as the e2e (tests/e2e/); stops everything on exit.
set -euo pipefail
source "$(dirname "$0")/../tests/e2e/common.sh"

status=1
trap 'hg_cleanup $status' EXIT
trap 'hg_on_signal 130' INT
trap 'hg_on_signal 143' TERM

hg_prepare demo
cd "$HG_REPO"
rc=0
hg_run_bounded "${HG_DEMO_TIMEOUT:-600}" "$HG_NODE" scripts/demo.mjs || rc=$?
status=$rc
exit "$status"
