#!/usr/bin/env bash
# Set up, build and run every test. Tests that need ../shared/datasets or a GPU skip themselves
# where those are absent. Usage: scripts/test.sh [--sanitize]
# --sanitize: the whole suite under ASan + UBSan, built with clang in build-sanitize together with the
# libFuzzer targets (one build serves this and scripts/fuzz.sh); the CUDA harness is left out.
# Builds everything, tests and the CUDA plugin included, in a folder quickstart.sh may have configured
# without them (PERFPRED_WITH_CUDA=OFF in the environment leaves the plugin out).
# PERFPRED_DEBUG_INFO=lines (CI sets it) builds with line tables only instead of full -g, about a fifth
# less compile time (CMakeLists.txt); the sanitizer build has that by default.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
extra=(-DPERFPRED_BUILD_TESTS=ON)
[ -z "${PERFPRED_DEBUG_INFO:-}" ] || extra+=(-DPERFPRED_DEBUG_INFO="$PERFPRED_DEBUG_INFO")
build=${PERFPRED_BUILD_DIR:-$root/build}
if [ "${1:-}" = "--sanitize" ]; then
  "$root/scripts/setup.sh" --with-clang
  extra+=(-DPERFPRED_FUZZ=ON -DPERFPRED_WITH_CUDA=OFF)
  build=$root/build-sanitize
  export CC=clang CXX=clang++
  # Protobuf, ONNX and XGBoost are not instrumented: container-overflow checks across them misfire.
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_container_overflow=0}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
  export PERFPRED_TIME_SCALE=${PERFPRED_TIME_SCALE:-3}
  export PERFPRED_SANITIZED=1
else
  "$root/scripts/setup.sh"
  extra+=(-DPERFPRED_WITH_CUDA=${PERFPRED_WITH_CUDA:-ON})
fi
PERFPRED_BUILD_DIR=$build "$root/scripts/build.sh" "${extra[@]}"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
