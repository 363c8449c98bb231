#!/usr/bin/env bash
# One prepared check for a machine with an NVIDIA GPU: build perfpred with the CUDA harness, run
# the GPU unit tests and the quick plan, and leave the dataset and logs in one directory.
# Usage: scripts/gpu-check.sh [OUT_DIR]   (default: $OUT if set, else ./gpu-check-out)
# Never changes the card's settings (clocks, power limit, MIG layout).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-${OUT:-$root/gpu-check-out}}
build=${PERFPRED_BUILD_DIR:-$root/build-gpu}
jobs=${PERFPRED_JOBS:-$(nproc)}
plan=${PLAN:-quick}
mkdir -p "$out"
log() { echo "gpu-check: $*" | tee -a "$out/gpu-check.log" >&2; }

{
  date -u
  nvidia-smi || true
  nvidia-smi -q -d CLOCK,POWER,MEMORY,COMPUTE || true
  /usr/local/cuda/bin/nvcc --version || true
} >"$out/system.txt" 2>&1

log "configure + build ($build)"
if ! cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPERFPRED_WITH_CUDA=ON >"$out/configure.log" 2>&1; then
  log "configure failed (see configure.log)"; exit 1
fi
grep -q "CUDA harness enabled" "$out/configure.log" || { log "CUDA harness not enabled (nvcc/cuDNN/CUPTI missing?)"; exit 1; }
if ! cmake --build "$build" -j "$jobs" --target perfpred test_cuda test_profile test_dataset >"$out/build.log" 2>&1; then
  log "build failed (see build.log)"; tail -30 "$out/build.log" >&2; exit 1
fi

status=0
log "unit tests"
for t in test_cuda test_profile test_dataset; do
  if "$build/tests/$t" --gtest_output="xml:$out/$t.xml" >"$out/$t.log" 2>&1; then
    log "$t: $(grep -E '^\[  PASSED  \]' "$out/$t.log" | head -1)"
  else
    log "$t FAILED"; grep -E "Failure|FAILED|Expected|Which|actual" "$out/$t.log" | head -40 >&2; status=1
  fi
done
grep -q "SKIPPED.*MeasuresEveryOpKindOnTheGpu" "$out/test_cuda.log" && { log "GPU tests skipped: no GPU visible"; status=1; }

log "quick plan ($plan) -> $out/dataset"
start=$(date +%s)
"$build/src/cli/perfpred" profile --plan "$plan" --out "$out/dataset" --no-progress ${PERFPRED_PROFILE_ARGS:-} \
  >"$out/profile-summary.json" 2>"$out/profile.log"
rc=$?
log "profile exit $rc after $(( $(date +%s) - start )) s"
[ "$rc" -eq 0 ] || status=1
for f in kernels microbench networks; do
  [ -f "$out/dataset/$f.csv" ] && "$build/src/cli/perfpred" dataset info "$out/dataset/$f.csv" | tee -a "$out/gpu-check.log" >&2
done
log "done (status $status); files in $out"
exit $status
