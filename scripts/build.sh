#!/usr/bin/env bash
# Configure and build perfpred into build/ (or $PERFPRED_BUILD_DIR). Extra arguments go to cmake.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PERFPRED_BUILD_DIR:-$root/build}
jobs=${PERFPRED_JOBS:-$(nproc)}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=${PERFPRED_BUILD_TYPE:-RelWithDebInfo} "$@" >/dev/null
cmake --build "$build" -j "$jobs"
