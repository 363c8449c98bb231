#!/usr/bin/env bash
# External data: a model saved with every tensor in a data file beside it (onnx.save with
# save_as_external_data, size_threshold=0, convert_attribute=True: each Constant's value too) predicts
# byte-identically to the same model inline, from any working directory; without its data file, predict is
# exit 2 naming the unread constant and the file, and inspect warns naming it.
# Usage: bash test_external_data.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=$(realpath "${1:?perfpred binary}")
ROOT=${2:?repository root}
PY=/usr/bin/python3
"$PY" -c "import onnx" 2>/dev/null || { echo "skip: $PY has no onnx module"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
mkdir -p "$TMP/m"
for n in vit_b_16 gpt2_small_like; do
  "$PY" - "$ROOT/models/zoo/$n.onnx" "$TMP/m/$n.onnx" "$n.data" <<'EOF2' || { echo "FAIL: $n: saving with external data"; exit 1; }
import sys, onnx
m = onnx.load(sys.argv[1])
onnx.save(m, sys.argv[2], save_as_external_data=True, all_tensors_to_one_file=True, location=sys.argv[3],
          size_threshold=0, convert_attribute=True)
n = sum(1 for node in onnx.load(sys.argv[2], load_external_data=False).graph.node for a in node.attribute
        if a.HasField("t") and a.t.data_location == onnx.TensorProto.EXTERNAL)
assert n > 100, f"only {n} external constants"
EOF2
  "$BIN" predict "$ROOT/models/zoo/$n.onnx" --gpu a100-sxm4-40gb --json --no-meta >"$TMP/inline.json" 2>/dev/null
  (cd / && "$BIN" predict "$TMP/m/$n.onnx" --gpu a100-sxm4-40gb --json --no-meta) >"$TMP/ext.json" 2>"$TMP/err" ||
    { echo "FAIL: $n with external data: $(cat "$TMP/err")"; fail=1; }
  cmp -s "$TMP/inline.json" "$TMP/ext.json" || { echo "FAIL: $n: external data predicts differently"; fail=1; }
  [ -s "$TMP/err" ] && { echo "FAIL: $n: external data warned: $(cat "$TMP/err")"; fail=1; }
done
mv "$TMP/m/vit_b_16.data" "$TMP/elsewhere.data"
"$BIN" predict "$TMP/m/vit_b_16.onnx" --gpu a100-sxm4-40gb >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] || { echo "FAIL: predict without the data file: exit $rc, want 2"; fail=1; }
grep -q "which folds a constant kept in external data that was not read: '.*' ('vit_b_16.data': no such file beside the model)" "$TMP/err" ||
  { echo "FAIL: predict without the data file does not name the constant and the file: $(cat "$TMP/err")"; fail=1; }
"$BIN" inspect "$TMP/m/vit_b_16.onnx" >"$TMP/out" 2>&1
grep -q "^warning: [0-9]* small constant(s) stored in external data were not read: '.*' ('vit_b_16.data': no such file beside the model)" "$TMP/out" ||
  { echo "FAIL: inspect without the data file does not warn: $(tail -3 "$TMP/out")"; fail=1; }
[ $fail -eq 0 ] && echo "ok: external data read beside the model; a missing file named"
exit $fail
