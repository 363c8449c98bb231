#!/usr/bin/env bash
# Set up, build and run every test. Tests that need ../shared/datasets or a GPU skip themselves
# where those are absent. Usage: scripts/test.sh [--sanitize]
# Builds everything, tests and the CUDA plugin included, in a folder quickstart.sh may have configured
# without them (PERFPRED_WITH_CUDA=OFF in the environment leaves the plugin out).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
extra=(-DPERFPRED_BUILD_TESTS=ON -DPERFPRED_WITH_CUDA=${PERFPRED_WITH_CUDA:-ON})
build=${PERFPRED_BUILD_DIR:-$root/build}
if [ "${1:-}" = "--sanitize" ]; then
  extra+=(-DPERFPRED_SANITIZE=ON)
  build=$root/build-sanitize
fi
PERFPRED_BUILD_DIR=$build "$root/scripts/build.sh" "${extra[@]}"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
