#!/usr/bin/env bash
# `cmake --install` of the build tree under test into a temporary prefix: the installed binary and Python
# package find the GPU catalog and models in <prefix>/share/perfpred, run from elsewhere, and agree.
# Usage: bash test_install.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=${2:?repository root}
build=$(cd "$(dirname "$BIN")/../.." && pwd)
[ -f "$build/CMakeCache.txt" ] || { echo "skip: $BIN is not inside a CMake build tree"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cmake --install "$build" --prefix "$TMP/prefix" >"$TMP/install.log" 2>&1 || { tail -5 "$TMP/install.log"; echo "FAIL: cmake --install"; exit 1; }
fail=0
ibin=$TMP/prefix/bin/perfpred
model=$TMP/prefix/share/perfpred/models/zoo/resnet18.onnx
[ -x "$ibin" ] || { echo "FAIL: no bin/perfpred under the prefix"; exit 1; }
[ -f "$model" ] || { echo "FAIL: no share/perfpred/models/zoo under the prefix"; exit 1; }
cd "$TMP"
# The source tree is still there (the build's fallback): a device only the installed share/ has shows
# that the installed one is read.
mkdir -p "$TMP/prefix/share/perfpred/data/gpus"
cp "$ROOT/data/gpus/l4.json" "$TMP/prefix/share/perfpred/data/gpus/installed-only-l4.json" 2>/dev/null ||
  { echo "skip: data/gpus/l4.json missing"; exit 77; }
sed -i 's/"id": *"l4"/"id": "installed-only-l4"/' "$TMP/prefix/share/perfpred/data/gpus/installed-only-l4.json"
"$ibin" predict "$model" --gpu installed-only-l4 --json --no-meta >"$TMP/cli.json" 2>"$TMP/err" ||
  { cat "$TMP/err"; echo "FAIL: the installed binary does not read <prefix>/share/perfpred/data"; fail=1; }
site=$(find "$TMP/prefix" -type d -name perfpred -path "*-packages/*" | head -1)
if [ -z "$site" ]; then
  if ls "$build"/python/perfpred/_perfpred*.so >/dev/null 2>&1; then
    echo "FAIL: the build has the Python module but cmake --install did not install it"; fail=1
  fi
else
  PY=$(sed -n 's/^Python_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")
  PY=${PY:-/usr/bin/python3}
  PYTHONPATH=$(dirname "$site") "$PY" - "$model" "$TMP/cli.json" <<'PYEOF' || fail=1
import sys, perfpred
model, cli_json = sys.argv[1], sys.argv[2]
assert "-packages" in perfpred.__file__, perfpred.__file__
got = perfpred.predict(model, gpu="installed-only-l4", layers=False).to_json()
want = open(cli_json).read()
if got != want:
    print("FAIL: the installed Python package and binary disagree")
    sys.exit(1)
PYEOF
fi
[ $fail -eq 0 ] && echo PASS
exit $fail
