#!/usr/bin/env bash
# Stage a CUDA-enabled build for a GPU machine that cannot build perfpred itself (no Debian -dev
# packages there): stripped copies of the CLI, the CUDA plugin and the GPU test binaries, laid out as
# in the build tree, plus the non-system shared libraries they need (ONNX, protobuf, spdlog, fmt).
# CUDA's own libraries (cudart, cuBLAS, cuDNN, CUPTI) are not copied: scripts/gpu-check.sh finds the GPU
# machine's. Usage: scripts/stage-gpu-binaries.sh [BUILD_DIR] [STAGE_DIR]   (defaults: build .gpu-stage)
# Then on the GPU machine: PERFPRED_PREBUILT=STAGE_DIR scripts/gpu-check.sh OUT_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
stage=${2:-$root/.gpu-stage}
[ -f "$build/src/cli/libperfpred_cuda_backend.so" ] || {
  echo "stage-gpu-binaries: $build has no CUDA plugin (configure with nvcc, cuDNN and CUPTI present)" >&2; exit 1; }
cmake --build "$build" -j "$(nproc)" --target perfpred perfpred_cuda_backend test_cuda test_profile test_dataset \
  perfpred_fake_nvml perfpred_fake_nvml_nomig >/dev/null
rm -rf "$stage"
mkdir -p "$stage/build/src/cli" "$stage/build/tests" "$stage/lib"
files=("$build/src/cli/perfpred" "$build/src/cli/libperfpred_cuda_backend.so" "$build/tests/test_cuda"
       "$build/tests/test_profile" "$build/tests/test_dataset" "$build/tests/libperfpred_fake_nvml.so"
       "$build/tests/libperfpred_fake_nvml_nomig.so")
for f in "${files[@]}"; do
  rel=${f#"$build"/}
  strip --strip-debug -o "$stage/build/$rel" "$f"
done
# Libraries outside glibc, libstdc++ and CUDA that the binaries load.
for f in "${files[@]}"; do ldd "$f"; done | awk '$3 ~ /^\// {print $3}' | sort -u |
  grep -Ev '/(libc|libm|libdl|libpthread|librt|libutil|libgcc_s|libstdc\+\+|ld-linux[^/]*|libz)\.so|/libcu|/libcudnn|/libnv' |
  while read -r lib; do cp -L "$lib" "$stage/lib/"; done
# The test binaries name files by the source root they were built in (data/, the fake NVML library).
echo "$root" >"$stage/SOURCE_ROOT"
du -sh "$stage"
