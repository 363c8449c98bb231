#!/usr/bin/env bash
# End-to-end checks of what keeps `perfpred predict` fast (figures: docs/accuracy.md, "Speed"):
# one GPU id reads one catalog file, the executable does not link XGBoost (dlopened only when a learned
# model is used), and ONNX shape inference is skipped when perfpred's own rules shape the model.
# Usage: bash test_speed.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
bin=${1:?perfpred binary}
root=${2:?repository root}
model="$root/models/zoo/resnet50.onnx"
[ -f "$model" ] || { echo "skip: $model missing (run tools/export_zoo.py)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export PERFPRED_MODEL_DIR="$tmp/no-models"  # the analytical path: no bundle, so no XGBoost

# 1. A catalog copy with one unreadable extra file: a single id never reads it; listing all devices does.
mkdir -p "$tmp/data"
cp -r "$root/data/gpus" "$tmp/data/gpus"
echo '{ not json' >"$tmp/data/gpus/zz-broken.json"
export PERFPRED_DATA_DIR="$tmp/data"
"$bin" predict "$model" --gpu a100-sxm4-40gb --json --no-meta >"$tmp/one.json" 2>"$tmp/err" ||
  fail "predict --gpu a100-sxm4-40gb read more than its own catalog file: $(cat "$tmp/err")"
"$bin" predict "$model" --gpu a100-sxm4-40gb:3g.20gb --json --no-meta >/dev/null 2>"$tmp/err" ||
  fail "MIG slice id: $(cat "$tmp/err")"
"$bin" devices >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" -eq 2 ] && grep -q "zz-broken.json" "$tmp/err" || fail "devices (all files) exited $rc without naming the broken file"
# An unknown id still lists close ids (the whole catalog is read for the message).
rm "$tmp/data/gpus/zz-broken.json"
"$bin" predict "$model" --gpu a100-sxm-40gb 2>"$tmp/err" >/dev/null; rc=$?
[ "$rc" -eq 2 ] && grep -q "a100-sxm4-40gb" "$tmp/err" || fail "unknown id exited $rc: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "unknown id: more than one line: $(cat "$tmp/err")"
export PERFPRED_DATA_DIR="$root/data"
"$bin" predict "$model" --gpu a100-sxm4-40gb --json --no-meta >"$tmp/all.json" || fail "predict with the real catalog"
cmp -s "$tmp/one.json" "$tmp/all.json" || fail "the single-file catalog path predicts differently"

# 2. XGBoost is not linked: start-up does not relocate it, and the analytical path never loads it.
if command -v readelf >/dev/null; then
  readelf -d "$bin" | grep -i "NEEDED.*xgboost" && fail "perfpred links libxgboost (it should dlopen it on first use)"
fi
PERFPRED_XGBOOST_LIBRARY=/nonexistent/libxgboost.so "$bin" predict "$model" --gpu t4 --analytical >/dev/null 2>"$tmp/err" ||
  fail "the analytical path needed XGBoost: $(cat "$tmp/err")"

# 3. A model our shape rules cover fully never registers ONNX's schemas (valgrind, when installed; not under
#    AddressSanitizer, which valgrind cannot run).
# gcc links libasan as a shared library; clang links its ASan runtime into the binary (__asan_init).
if ldd "$bin" 2>/dev/null | grep -q libasan || nm "$bin" 2>/dev/null | grep -q " __asan_init"; then
  echo "note: sanitizer build, callgrind check skipped"
elif command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null; then
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$bin" predict "$model" --gpu t4 --analytical \
    >/dev/null 2>"$tmp/vg.err" || fail "predict under valgrind: $(tail -3 "$tmp/vg.err")"
  # --auto=no: functions only (annotated source would show the InferShapes call line itself); --threshold=100:
  # every function, however cheap.
  callgrind_annotate --auto=no --threshold=100 --inclusive=yes "$tmp/cg.out" 2>/dev/null >"$tmp/fns.txt"
  grep -q "InferShapes" "$tmp/fns.txt" &&
    fail "ONNX InferShapes ran for resnet50, whose every output perfpred's rules shape"
  # The schema check reads src/onnx/schema_table.cpp: ONNX's registry, which builds all its schemas on the
  # first lookup (40% of a predict), is never built.
  grep -q "RegisterOnnxOperatorSetSchema" "$tmp/fns.txt" &&
    fail "ONNX's schema registry was built for resnet50 (check_schemas should read its own table)"
fi
echo "speed: ok"
