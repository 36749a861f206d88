#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/README.md) with clang in build-fuzz/ and runs each for SECONDS
# (default 60) on a scratch copy of its checked-in corpus. Fails if any target reports a crash, a
# hang (-timeout=10), a sanitizer error or an out-of-memory (-rss_limit_mb=2048).
#   scripts/run-fuzzers.sh [SECONDS]
# Environment: FUZZ_BUILD (default build-fuzz), FUZZ_TARGETS (default: all five), FUZZ_JOBS (default
# 2: targets run this many at a time).
set -euo pipefail

SECONDS_EACH="${1:-60}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${FUZZ_BUILD:-$ROOT/build-fuzz}"
TARGETS=(${FUZZ_TARGETS:-fuzz_experiment_config fuzz_yaml fuzz_rest_decoders fuzz_agent_protocol fuzz_template_merge})
JOBS="${FUZZ_JOBS:-2}"

start=$(date +%s)
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# -O1 and line tables only: less compile time than RelWithDebInfo's -O2 -g (the CI box has 2 cores), and
# assertions stay on (no NDEBUG). Unity batches as in the Makefile's builds.
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Fuzz -DCMAKE_UNITY_BUILD=ON \
  -DCMAKE_CXX_FLAGS_FUZZ="-O1 -gline-tables-only" -DDET_FUZZ=ON -DDET_MODULES="common;config;api;searcher" "${launcher[@]}" >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target fuzzers
echo "run-fuzzers: built in $(( $(date +%s) - start )) s"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

run_one() {
  local t="$1"
  mkdir -p "$work/$t/corpus" "$work/$t/artifacts"
  cp -r "$ROOT/fuzz/corpus/$t/." "$work/$t/corpus/"
  # -fork/-jobs are not used: one process per target keeps the 2-core CI box predictable.
  if "$BUILD/fuzz/$t" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
      -dict="$ROOT/fuzz/yaml_json.dict" -print_final_stats=1 \
      -artifact_prefix="$work/$t/artifacts/" "$work/$t/corpus" >"$work/$t/log" 2>&1; then
    echo "run-fuzzers: $t OK ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$work/$t/log" | grep -o '[0-9]*$') runs)"
  else
    echo "run-fuzzers: $t FAILED; log tail and reproducer:"
    tail -n 60 "$work/$t/log"
    for a in "$work/$t/artifacts/"*; do
      [ -e "$a" ] || continue
      echo "--- $(basename "$a") (base64):"
      base64 -w0 "$a"; echo
    done
    return 1
  fi
}

failed=0
pids=()
names=()
for t in "${TARGETS[@]}"; do
  run_one "$t" & pids+=($!); names+=("$t")
  if [ ${#pids[@]} -ge "$JOBS" ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}"); names=("${names[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || failed=1; done

echo "run-fuzzers: total $(( $(date +%s) - start )) s"
if [ "$failed" -ne 0 ]; then
  echo "run-fuzzers: FAILED (reproduce: $BUILD/fuzz/<target> <file>; see fuzz/README.md)"
  exit 1
fi
echo "run-fuzzers: all targets clean"
