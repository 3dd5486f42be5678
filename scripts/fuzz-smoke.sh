#!/usr/bin/env bash
# Fuzz smoke run: builds every cargo-fuzz target in fuzz/ and runs each for a fixed time.
#
#   scripts/fuzz-smoke.sh                 # every target, 60 s each
#   HG_FUZZ_SECONDS=10 scripts/fuzz-smoke.sh decide config
#
# Needs the nightly toolchain (`cargo +nightly`); installs cargo-fuzz when it is missing.
# Seeds fuzz/corpus/<target>/ from the decision corpus and config fixtures (node), runs each
# target with its dictionary from fuzz/dicts/, and prints one line per target. Exits non-zero
# when any target crashes, times out (an input slower than HG_FUZZ_INPUT_TIMEOUT seconds) or
# runs out of memory; the input is left in fuzz/artifacts/<target>/. To pin it: minimize with
# `cargo +nightly fuzz tmin <target> <artifact>` and copy the result into
# tests/fuzz-regressions/<target>/ (replayed by `cargo test`).
#
# Environment: HG_FUZZ_SECONDS (60), HG_FUZZ_INPUT_TIMEOUT (10), HG_FUZZ_RSS_MB (2048),
# HG_FUZZ_SANITIZER (none; `address` for ASan — the core forbids unsafe code, so it mostly
# costs speed).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${HG_FUZZ_SECONDS:-60}"
input_timeout="${HG_FUZZ_INPUT_TIMEOUT:-10}"
rss_mb="${HG_FUZZ_RSS_MB:-2048}"
sanitizer="${HG_FUZZ_SANITIZER:-none}"
all_targets=(lex_posix analyze_shell decide config redact)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

declare -A dict=(
  [lex_posix]=fuzz/dicts/shell.dict
  [analyze_shell]=fuzz/dicts/shell.dict
  [decide]=fuzz/dicts/decide.dict
  [config]=fuzz/dicts/config.dict
  [redact]=fuzz/dicts/redact.dict
)

start=$(date +%s)
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz-smoke: installing cargo-fuzz"
  cargo install cargo-fuzz --locked || cargo install cargo-fuzz
fi

# `fuzz build` takes one target or all; build all when several were named.
if [ ${#targets[@]} -eq 1 ]; then
  cargo +nightly fuzz build --sanitizer "$sanitizer" "${targets[0]}"
else
  cargo +nightly fuzz build --sanitizer "$sanitizer"
fi
built=$(date +%s)
bin_dir="fuzz/target/$(rustc +nightly -vV | sed -n 's/^host: //p')/release"

if command -v node >/dev/null 2>&1; then
  node fuzz/seed-corpus.mjs
else
  echo "fuzz-smoke: node not found; running without seeds from tests/corpus"
fi

log_dir="fuzz/target/smoke-logs"
mkdir -p "$log_dir"
failed=()
summary=()
for t in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$t"
  log="$log_dir/$t.log"
  t0=$(date +%s)
  set +e
  # The binary just built (not `cargo fuzz run`, which would rebuild if sources changed since).
  mkdir -p "fuzz/artifacts/$t"
  "$bin_dir/$t" -artifact_prefix="fuzz/artifacts/$t/" \
    -max_total_time="$seconds" -timeout="$input_timeout" -rss_limit_mb="$rss_mb" \
    -dict="${dict[$t]}" -print_final_stats=1 "fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  set -e
  t1=$(date +%s)
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n 1)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n 1)
  corpus=$(find "fuzz/corpus/$t" -type f | wc -l)
  status=ok
  if [ "$rc" -ne 0 ]; then
    status="FAILED (exit $rc; see $log and fuzz/artifacts/$t/)"
    failed+=("$t")
    grep -E 'panicked at|^SUMMARY|ERROR: libFuzzer|Test unit written to' "$log" | head -n 6 | sed 's/^/    /' || true
  fi
  line="$t: ${execs:-?} execs in $((t1 - t0)) s (${rate:-?}/s), corpus $corpus, $status"
  summary+=("$line")
  echo "fuzz-smoke: $line"
done

end=$(date +%s)
echo "fuzz-smoke: total $((end - start)) s (build $((built - start)) s, runs $((end - built)) s)"
for line in "${summary[@]}"; do echo "  $line"; done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz-smoke: FAILED: ${failed[*]}" >&2
  exit 1
fi
