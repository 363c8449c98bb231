#!/usr/bin/env bash
# One prepared check for a machine with an NVIDIA GPU: build perfpred with the CUDA harness, run
# the GPU unit tests and the quick plan, and leave the dataset and logs in one directory.
# Usage: scripts/gpu-check.sh [OUT_DIR]   (default: $OUT if set, else ./gpu-check-out)
# Never changes the card's settings (clocks, power limit, MIG layout).
# Environment:
#   PERFPRED_PREBUILT=DIR  use binaries staged by scripts/stage-gpu-binaries.sh instead of building
#                          (for GPU machines without the Debian -dev packages perfpred builds with)
#   PLAN=quick             the plan to profile; PROFILE_MINUTES caps it (0 = no cap)
#   MICRO_PLAN=FILE        a plan profiled first into OUT_DIR/micro (e.g. the microbenchmarks alone)
#   TORCH_SECONDS=N        also time torchvision networks under PyTorch for N seconds
#                          (tools/measure_torch_networks.py, into OUT_DIR/torch-networks)
#   TORCH_KERNEL_SECONDS=N also profile PyTorch's kernels of ResNet-18/50 at batch 128 (FP16 and FP32, training
#                          and inference, NCHW and channels_last) for N seconds and compare each kind's time with
#                          perfpred's prediction (tools/profile_torch_kernels.py, into OUT_DIR/torch-kernels)
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
  lscpu || head -30 /proc/cpuinfo
  /usr/local/cuda/bin/nvcc --version || true
} >"$out/system.txt" 2>&1

if [ -n "${PERFPRED_PREBUILT:-}" ]; then
  stage=$(cd "$PERFPRED_PREBUILT" && pwd)
  log "prebuilt binaries from $stage"
  mkdir -p "$build"
  cp -r "$stage/build/." "$build/"
  # The test binaries name the source root they were built in; point it at this checkout.
  src_root=$(cat "$stage/SOURCE_ROOT")
  if [ "$src_root" != "$root" ] && [ ! -e "$src_root" ]; then
    mkdir -p "$(dirname "$src_root")" && ln -s "$root" "$src_root"
  fi
  if [ "$build" != "$src_root/build" ] && [ ! -e "$src_root/build/tests" ]; then
    mkdir -p "$src_root/build" && cp -r "$stage/build/." "$src_root/build/"
  fi
  libdirs="$stage/lib"
  for lib in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcudnn.so.9 libcupti.so.13; do
    f=$(find /usr/local/cuda/ /usr/local/cuda/extras/CUPTI/ /usr/lib/x86_64-linux-gnu /opt /usr/local/lib -name "$lib" 2>/dev/null | head -1)
    [ -n "$f" ] && libdirs="$libdirs:$(dirname "$f")" || log "$lib not found on this machine"
  done
  [ -d /usr/local/nvidia/lib64 ] && libdirs="$libdirs:/usr/local/nvidia/lib64"
  export LD_LIBRARY_PATH="$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  log "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  for b in "$build/src/cli/perfpred" "$build/src/cli/libperfpred_cuda_backend.so" "$build/tests/test_cuda"; do
    ldd "$b" | grep "not found" | sed "s|^|gpu-check: $b: |" | tee -a "$out/gpu-check.log" >&2
  done
else
  log "configure + build ($build)"
  if ! cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPERFPRED_WITH_CUDA=ON >"$out/configure.log" 2>&1; then
    log "configure failed (see configure.log)"; exit 1
  fi
  grep -q "CUDA harness enabled" "$out/configure.log" || { log "CUDA harness not enabled (nvcc/cuDNN/CUPTI missing?)"; exit 1; }
  if ! cmake --build "$build" -j "$jobs" --target perfpred test_cuda test_profile test_dataset >"$out/build.log" 2>&1; then
    log "build failed (see build.log)"; tail -30 "$out/build.log" >&2; exit 1
  fi
fi

status=0
log "unit tests"
for t in test_cuda test_profile test_dataset; do
  if timeout 300 "$build/tests/$t" --gtest_output="xml:$out/$t.xml" >"$out/$t.log" 2>&1; then
    log "$t: $(grep -E '^\[  PASSED  \]' "$out/$t.log" | head -1)"
  else
    log "$t FAILED"; grep -E "Failure|FAILED|Expected|Which|actual" "$out/$t.log" | head -40 >&2; status=1
  fi
done
grep -q "SKIPPED.*MeasuresEveryOpKindOnTheGpu" "$out/test_cuda.log" && { log "GPU tests skipped: no GPU visible"; status=1; }

if [ -n "${MICRO_PLAN:-}" ]; then
  log "plan $MICRO_PLAN -> $out/micro"
  timeout 300 "$build/src/cli/perfpred" profile --plan "$MICRO_PLAN" --out "$out/micro" --no-progress \
    >"$out/micro-summary.json" 2>"$out/micro.log" || { log "micro plan failed (see micro.log)"; status=1; }
fi

if [ -n "${TORCH_SECONDS:-}" ]; then
  log "PyTorch networks for ${TORCH_SECONDS} s -> $out/torch-networks"
  # PyTorch loads its own CUDA libraries: the prebuilt binaries' library path must not reach it.
  env -u LD_LIBRARY_PATH PYTHONUNBUFFERED=1 timeout $((TORCH_SECONDS + 120)) python3 "$root/tools/measure_torch_networks.py" \
    --out "$out/torch-networks" --max-seconds "$TORCH_SECONDS" >"$out/torch.log" 2>&1 || { log "torch networks failed (see torch.log)"; status=1; }
  tail -2 "$out/torch.log" | tee -a "$out/gpu-check.log" >&2
fi

if [ -n "${TORCH_KERNEL_SECONDS:-}" ]; then
  log "PyTorch kernels for ${TORCH_KERNEL_SECONDS} s -> $out/torch-kernels"
  env -u LD_LIBRARY_PATH PYTHONUNBUFFERED=1 timeout $((TORCH_KERNEL_SECONDS + 120)) python3 \
    "$root/tools/profile_torch_kernels.py" --out "$out/torch-kernels" --max-seconds "$TORCH_KERNEL_SECONDS" \
    >"$out/torch-kernels.log" 2>&1 || { log "torch kernels failed (see torch-kernels.log)"; status=1; }
  if [ -f "$out/torch-kernels/summary.json" ]; then
    python3 "$root/tools/profile_torch_kernels.py" --compare "$out/torch-kernels" --perfpred "$build/src/cli/perfpred" \
      >>"$out/torch-kernels.log" 2>&1 || log "kernel comparison failed (see torch-kernels.log)"
  fi
fi

log "plan ($plan) -> $out/dataset"
start=$(date +%s)
cap=()
[ "${PROFILE_MINUTES:-0}" != 0 ] && cap=(--max-minutes "$PROFILE_MINUTES")
"$build/src/cli/perfpred" profile --plan "$plan" --out "$out/dataset" --no-progress "${cap[@]}" ${PERFPRED_PROFILE_ARGS:-} \
  >"$out/profile-summary.json" 2>"$out/profile.log"
rc=$?
log "profile exit $rc after $(( $(date +%s) - start )) s"
[ "$rc" -eq 0 ] || status=1
for d in micro dataset; do
  for f in kernels microbench networks; do
    [ -f "$out/$d/$f.csv" ] && "$build/src/cli/perfpred" dataset info "$out/$d/$f.csv" | tee -a "$out/gpu-check.log" >&2
  done
done
[ -f "$out/torch-networks/networks.csv" ] && "$build/src/cli/perfpred" dataset info "$out/torch-networks/networks.csv" | tee -a "$out/gpu-check.log" >&2
log "done (status $status); files in $out"
exit $status
