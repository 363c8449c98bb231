#!/usr/bin/env bash
# The README's first command: scripts/quickstart.sh sets up, builds and runs the main job on the bundled
# ResNet-50. Run against the build tree of the binary under test (setup and build are then no-ops).
# Usage: bash test_quickstart.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=${2:?repository root}
build=$(cd "$(dirname "$BIN")/../.." && pwd)
[ -f "$build/CMakeCache.txt" ] || { echo "skip: $BIN is not inside a CMake build tree"; exit 77; }
out=$(PERFPRED_BUILD_DIR="$build" bash "$ROOT/scripts/quickstart.sh" 2>&1)
rc=$?
fail=0
if [ $rc -ne 0 ]; then echo "$out" | tail -20; echo "FAIL: quickstart.sh exited $rc"; exit 1; fi
for want in "== perfpred inspect" "/conv1/Conv" "latency " "\"latency_ms\"" "jetson-orin-nano-8gb" "fits"; do
  grep -qF -- "$want" <<<"$out" || { echo "FAIL: quickstart output lacks '$want'"; fail=1; }
done
# With the Python module built, quickstart ends with a prediction from Python (a torchvision model with torch).
if ls "$build"/python/perfpred/_perfpred*.so >/dev/null 2>&1; then
  py_out=$(sed -n '/^== Python/,$p' <<<"$out")
  grep -qE '^[0-9]+\.[0-9]+$' <<<"$py_out" || { echo "$py_out"; echo "FAIL: quickstart printed no latency from Python"; fail=1; }
fi
[ $fail -eq 0 ] && echo PASS
exit $fail
