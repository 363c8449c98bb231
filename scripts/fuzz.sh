#!/usr/bin/env bash
# Run every libFuzzer target (tests/fuzz) for SECONDS each (default 60), one after another, with ASan and
# UBSan. Builds the clang build first when it is missing (build-sanitize, shared with
# `scripts/test.sh --sanitize`). Crashing inputs are saved under BUILD/fuzz/crashes/TARGET/; the corpus
# grows in BUILD/fuzz/corpus/TARGET/ across runs. Exit 0 when no target found anything, 1 otherwise.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET ...]
# Env: PERFPRED_FUZZ_BUILD (build dir), PERFPRED_FUZZ_JOBS (build jobs), PERFPRED_FUZZ_RSS_MB (2048),
# PERFPRED_FUZZ_NO_BUILD=1 (run the targets as built, without configuring or building), PERFPRED_FUZZ_SEED
# (libFuzzer's -seed: the same mutation sequence every run, as CI uses it), PERFPRED_FUZZ_PARALLEL (targets
# run at once, default the number of cores).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
shift || true
case "$secs" in ''|*[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, got '$secs'" >&2; exit 2 ;; esac
all=(fuzz_onnx_import fuzz_onnx_predict fuzz_json_files fuzz_dataset_csv fuzz_cli_strings)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
build=${PERFPRED_FUZZ_BUILD:-$root/build-sanitize}
rss=${PERFPRED_FUZZ_RSS_MB:-2048}

if ! command -v clang++ >/dev/null; then
  echo "fuzz.sh: clang++ is missing (scripts/setup.sh --with-clang installs it)" >&2
  exit 2
fi
if [ "${PERFPRED_FUZZ_NO_BUILD:-0}" != 1 ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPERFPRED_FUZZ=ON \
    -DPERFPRED_WITH_CUDA=OFF >/dev/null
  cmake --build "$build" -j "${PERFPRED_FUZZ_JOBS:-$(nproc)}" --target "${targets[@]}"
fi

work=$build/fuzz
fz=$root/tests/fuzz
# seed TARGET PREFIX FILE...: copy each file into the target's seed dir, after a one-byte PREFIX (octal
# escape, or '' for none) that the target reads as its knob.
seed() {
  local t=$1 prefix=$2
  shift 2
  mkdir -p "$work/seeds/$t"
  for f in "$@"; do
    [ -f "$f" ] || continue
    seeds_made=$((seeds_made + 1))
    { [ -z "$prefix" ] || printf "$prefix"; cat "$f"; } >"$work/seeds/$t/$seeds_made-$(basename "$f")"
  done
}
rm -rf "$work/seeds"
seeds_made=0
small_models=()
for m in "$root"/models/zoo/*.onnx; do
  [ "$(stat -c %s "$m")" -le 70000 ] && small_models+=("$m")
done
findings=$root/../shared/reliability/fuzz-findings
found_models=()
[ -d "$findings" ] && mapfile -t found_models < <(find "$findings" -name '*.onnx' -size -70k)
# Small graphs of paths the zoo's small models do not reach (attention cores: a MultiheadAttention and a
# hand-written one, exported without weights).
small_models+=("$fz"/corpora/onnx/*.onnx)
seed fuzz_onnx_import '' "${small_models[@]}" "${found_models[@]}"
seed fuzz_onnx_predict '\000' "${small_models[@]}"
seed fuzz_onnx_predict '\030' "$root/models/zoo/lenet5.onnx" "$root/models/zoo/resnet18.onnx"
seed fuzz_json_files '\000' "$root/data/examples/hypothetical-gpu.json" "$root"/tests/data/mig/*.json
seed fuzz_json_files '\001' "$root/scripts/ci-example/budgets.json" "$fz/corpora/json/budget_overrides.json"
seed fuzz_json_files '\002' "$root/data/plans/quick.json"
seed fuzz_json_files '\003' "$fz/corpora/json/prices.json"
seed fuzz_json_files '\004' "$root/models/latency-intervals.json"
seed fuzz_dataset_csv '' "$fz"/corpora/dataset/*
seed fuzz_cli_strings '\000' "$fz"/corpora/strings/vary_*
seed fuzz_cli_strings '\001' "$fz"/corpora/strings/shape

declare -A dict=([fuzz_json_files]=dict_json.txt [fuzz_dataset_csv]=dict_json.txt [fuzz_cli_strings]=dict_strings.txt)
declare -A maxlen=([fuzz_onnx_import]=65536 [fuzz_onnx_predict]=65536 [fuzz_json_files]=16384 [fuzz_dataset_csv]=16384
                   [fuzz_cli_strings]=256)
# Protobuf, ONNX and XGBoost are not instrumented: container-overflow checks across them misfire.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_container_overflow=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# run_one TARGET: fuzz it for $secs s; its exit status goes to $work/TARGET.rc, its output to TARGET.log.
run_one() {
  local t=$1
  mkdir -p "$work/corpus/$t" "$work/crashes/$t"
  local args=(-max_total_time="$secs" -timeout=10 -rss_limit_mb="$rss" -max_len="${maxlen[$t]:-65536}"
              -print_final_stats=1 -artifact_prefix="$work/crashes/$t/")
  [ -n "${dict[$t]:-}" ] && args+=(-dict="$fz/${dict[$t]}")
  [ -n "${PERFPRED_FUZZ_SEED:-}" ] && args+=(-seed="$PERFPRED_FUZZ_SEED")
  set +e
  "$build/tests/fuzz/$t" "${args[@]}" "$work/corpus/$t" "$work/seeds/$t" >"$work/$t.log" 2>&1
  echo $? >"$work/$t.rc"
}
# Each target is one single-threaded process: PERFPRED_FUZZ_PARALLEL (default: the number of cores) of them
# run at once, each for the full SECONDS, so every target gets the time it gets alone and the smoke takes
# SECONDS x targets / cores.
parallel=${PERFPRED_FUZZ_PARALLEL:-$(nproc)}
case "$parallel" in ''|*[!0-9]*|0) echo "fuzz.sh: PERFPRED_FUZZ_PARALLEL must be a whole number >= 1, got '$parallel'" >&2; exit 2 ;; esac
running=0
for t in "${targets[@]}"; do
  rm -f "$work/$t.rc"
  if [ "$running" -ge "$parallel" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  echo "fuzz.sh: $t for ${secs} s"
  run_one "$t" &
  running=$((running + 1))
done
wait
status=0
total=0
summary=()
for t in "${targets[@]}"; do
  log=$work/$t.log
  rc=$(cat "$work/$t.rc" 2>/dev/null || echo "none")
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  runs=${runs:-0}
  total=$((total + runs))
  if [ "$rc" != 0 ]; then
    status=1
    summary+=("$t: FOUND (exit $rc, $runs runs); input in $work/crashes/$t/, log $log")
    grep -E 'ERROR|SUMMARY|runtime error|not an InputError|multi-line' "$log" | head -5 | sed 's/^/  /' >&2 || true
  else
    summary+=("$t: ok ($runs runs)")
  fi
done
printf '%s\n' "${summary[@]}"
echo "fuzz.sh: $total executions in all"
exit $status
