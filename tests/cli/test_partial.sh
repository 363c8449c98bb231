#!/usr/bin/env bash
# No silent numbers: a model whose working nodes have unknown shapes (here a MatMul after NonZero, whose
# output length depends on the data) is exit 2 naming the node from every prediction subcommand, and
# with --allow-partial a prediction whose JSON says "complete": false and lists the nodes.
# Usage: bash test_partial.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=${2:?repository root}
PY=/usr/bin/python3
"$PY" -c "import onnx" 2>/dev/null || { echo "skip: $PY has no onnx module"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
"$PY" - "$TMP" <<'EOF2' || { echo "FAIL: model generation"; exit 1; }
import sys, onnx
from onnx import helper as h, TensorProto as T
d = sys.argv[1]
def model(name, extra):
    nodes = [h.make_node("Relu", ["x"], ["r"], name="relu"),
             h.make_node("NonZero", ["r"], ["nz"], name="nonzero"),
             h.make_node("Cast", ["nz"], ["nzf"], to=T.FLOAT, name="cast"),
             h.make_node("Transpose", ["nzf"], ["t"], perm=[1, 0], name="transpose"),
             h.make_node("MatMul", ["t", "w"], ["y"], name="late_matmul")] + extra
    g = h.make_graph(nodes, name, [h.make_tensor_value_info("x", T.FLOAT, ["batch", 16])],
                     [h.make_tensor_value_info("y", T.FLOAT, None)],
                     [h.make_tensor("w", T.FLOAT, [2, 8], [0.5] * 16)])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)])
    onnx.save(m, f"{d}/{name}.onnx")
model("partial", [])
model("partial2", [h.make_node("Relu", ["x"], ["r2"], name="relu2")])
# A Reshape to a row count read from the data (mask-paste code does this with box sizes): every input is
# fully shaped, so no --input-shape or --dim could set it.
nodes = [h.make_node("ReduceMax", ["x"], ["m"], keepdims=0, name="max"),
         h.make_node("Cast", ["m"], ["k"], to=T.INT64, name="count"),
         h.make_node("Unsqueeze", ["k", "zero"], ["k1"], name="as_list"),
         h.make_node("Concat", ["k1", "minus1"], ["shape"], axis=0, name="shape"),
         h.make_node("Reshape", ["x", "shape"], ["rows"], name="data_reshape"),
         h.make_node("MatMul", ["rows", "w"], ["y"], name="after")]
g = h.make_graph(nodes, "valued", [h.make_tensor_value_info("x", T.FLOAT, [4, 8])],
                 [h.make_tensor_value_info("y", T.FLOAT, None)],
                 [h.make_tensor("w", T.FLOAT, [8, 2], [0.5] * 16), h.make_tensor("zero", T.INT64, [1], [0]),
                  h.make_tensor("minus1", T.INT64, [1], [8])])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), f"{d}/valued.onnx")
EOF2
M="$TMP/partial.onnx"
cat >"$TMP/budget.json" <<EOF2
{"schema_version": 1, "entries": [{"name": "p", "model": "partial.onnx", "gpu": "a100-sxm4-40gb", "limits": {"latency_ms": 1000}}]}
EOF2
run() {  # run WANT_EXIT ARGS...
  local want=$1; shift
  "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
  local got=$?
  if [ "$got" != "$want" ]; then echo "FAIL: perfpred $* exited $got, expected $want"; cat "$TMP/err"; fail=1; return 1; fi
  return 0
}
refused() {  # refused ARGS...: exit 2, one line naming the node, where shapes are lost, and both options
  run 2 "$@" || return
  local msg; msg=$(cat "$TMP/err")
  for want in "4 node(s)" "nonzero (NonZero) output 'nz' [2, ?]" "transpose (Transpose)" "lost at nonzero (NonZero), whose output size depends on the values" "--data-count nonzero=N" "--allow-partial"; do
    case "$msg" in *"$want"*) ;; *) echo "FAIL: perfpred $*: message lacks '$want': $msg"; fail=1 ;; esac
  done
  [ "$(wc -l <"$TMP/err")" = 1 ] || { echo "FAIL: perfpred $*: more than one line on stderr"; fail=1; }
}
partial_json() {  # partial_json ARGS...: exit 0 and JSON with "complete": false naming the node
  run 0 "$@" --allow-partial || return
  "$PY" - "$TMP/out" <<'EOF2' || { echo "FAIL: perfpred $* --allow-partial: JSON"; cat "$TMP/out"; fail=1; }
import json, sys
j = json.load(open(sys.argv[1]))
assert j["complete"] is False, j.get("complete")
assert any("late_matmul (MatMul)" in n for n in j["unshaped_nodes"]), j["unshaped_nodes"]
EOF2
}

refused predict "$M" --gpu a100-sxm4-40gb
# Lost where values, not shapes, set a size: the message says so instead of asking for an input shape.
run 2 predict "$TMP/valued.onnx" --gpu a100-sxm4-40gb
for want in "lost at data_reshape (Reshape), whose output size is not fixed by the input shapes (every input behind it is fully shaped: 'x' [4, 8])" "--allow-partial"; do
  grep -qF -- "$want" "$TMP/err" || { echo "FAIL: valued.onnx: message lacks '$want': $(cat "$TMP/err")"; fail=1; }
done
grep -qF -- "--input-shape" "$TMP/err" && { echo "FAIL: valued.onnx: message asks for an input shape: $(cat "$TMP/err")"; fail=1; }
refused predict "$M" --gpu a100-sxm4-40gb --json
refused mig "$M" --gpu a100-sxm4-40gb
refused select "$M" --devices a100-sxm4-40gb,h100-sxm5-80gb
refused sweep "$M" --base-gpu a100-sxm4-40gb --vary sm_count=54:108:54
refused report "$M" --gpu a100-sxm4-40gb --out "$TMP/r.html"
refused diff "$M" "$TMP/partial2.onnx" --gpu a100-sxm4-40gb
refused budget check "$TMP/budget.json"

partial_json predict "$M" --gpu a100-sxm4-40gb --json
partial_json mig "$M" --gpu a100-sxm4-40gb --json
partial_json select "$M" --devices a100-sxm4-40gb --json
partial_json sweep "$M" --base-gpu a100-sxm4-40gb --vary sm_count=54:108:54 --json
partial_json diff "$M" "$TMP/partial2.onnx" --gpu a100-sxm4-40gb --json
partial_json budget check "$TMP/budget.json" --json
run 0 report "$M" --gpu a100-sxm4-40gb --out "$TMP/r.html" --allow-partial
grep -q "partial prediction" "$TMP/err" || { echo "FAIL: report --allow-partial did not warn"; fail=1; }
# inspect never refuses (it is how one finds the unshaped nodes) but says so in its JSON.
run 0 inspect "$M" --json && "$PY" -c "import json,sys; j=json.load(open(sys.argv[1])); assert j[\"complete\"] is False" "$TMP/out" || { echo "FAIL: inspect JSON lacks complete: false"; fail=1; }
# --data-count sets the data-dependent length (one node by name, or every such node), capped at its upper bound
# (NonZero of a [1, 16] tensor keeps at most 16): the prediction is complete; a name no such node has is exit 2.
for dc in "nonzero=5" "5" "1000"; do
  run 0 predict "$M" --gpu a100-sxm4-40gb --json --data-count "$dc" || continue
  grep -q '"complete"' "$TMP/out" && { echo "FAIL: predict --data-count $dc is still partial"; fail=1; }
done
run 0 inspect "$M" --json --data-count 1000 && "$PY" -c "
import json, sys
j = json.load(open(sys.argv[1]))
shapes = [t['shape'] for l in j['nodes'] for t in l.get('outputs', []) if t.get('name') == 'nz']
assert shapes == [[2, 16]], shapes
" "$TMP/out" || { echo "FAIL: inspect --data-count 1000 did not cap NonZero at 16"; cat "$TMP/out" | head -c 600; fail=1; }
run 2 predict "$M" --gpu a100-sxm4-40gb --data-count nothere=5 && { grep -q "no NonZero, NonMaxSuppression, Compress or Unique node named 'nothere'; data-dependent nodes: nonzero" "$TMP/err" || { echo "FAIL: --data-count with a wrong name: $(cat "$TMP/err")"; fail=1; }; }
run 2 predict "$M" --gpu a100-sxm4-40gb --data-count nonzero=-1
# A budget entry's data_counts: by name or "*" for every node; a wrong name says which key.
for dc in '{"nonzero": 5}' '{"*": 5}'; do
  cat >"$TMP/budget_dc.json" <<EOF2
{"schema_version": 1, "entries": [{"name": "p", "model": "partial.onnx", "gpu": "a100-sxm4-40gb", "data_counts": $dc, "limits": {"latency_ms": 1000}}]}
EOF2
  run 0 budget check "$TMP/budget_dc.json" --json || continue
  grep -q '"complete"' "$TMP/out" && { echo "FAIL: budget data_counts $dc is still partial"; fail=1; }
done
cat >"$TMP/budget_dc.json" <<EOF2
{"schema_version": 1, "entries": [{"name": "p", "model": "partial.onnx", "gpu": "a100-sxm4-40gb", "data_counts": {"nothere": 5}, "limits": {"latency_ms": 1000}}]}
EOF2
run 2 budget check "$TMP/budget_dc.json" && { grep -q "data_counts.nothere: the model has no NonZero" "$TMP/err" || { echo "FAIL: budget data_counts wrong name: $(cat "$TMP/err")"; fail=1; }; }
# A fully shaped model carries no "complete" key and is not refused.
run 0 predict "$ROOT/models/zoo/resnet18.onnx" --gpu a100-sxm4-40gb --json
grep -q '"complete"' "$TMP/out" && { echo "FAIL: a complete prediction carries \"complete\""; fail=1; }
exit $fail
