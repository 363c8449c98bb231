#!/usr/bin/env bash
# Symbolic input dims by name: a decoder-like model with inputs [batch, seq, 64] and
# [batch, past_sequence_length, 64]. inspect keeps unset dims symbolic and prints them by name (table and
# JSON); predict refuses them, exit 2 naming the dim and --dim; --dim NAME=N sets them in every input
# (predict, a decision command, inspect), a budget file's `dims` does the same, and bad or conflicting
# values are one-line errors.
# Usage: bash test_symbolic_dims.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
PY=/usr/bin/python3
"$PY" -c "import onnx" 2>/dev/null || { echo "skip: $PY has no onnx module"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
"$PY" - "$TMP" <<'EOF2' || { echo "FAIL: model generation"; exit 1; }
import sys, onnx
from onnx import helper as h, TensorProto as T
w = h.make_tensor("w", T.FLOAT, [64, 64], [0.01] * 4096)
g = h.make_graph([h.make_node("Concat", ["past", "x"], ["kv"], axis=1, name="cat"),
                  h.make_node("MatMul", ["kv", "w"], ["y"], name="mm"),
                  h.make_node("MatMul", ["x", "w"], ["z"], name="mm2")], "sym",
                 [h.make_tensor_value_info("x", T.FLOAT, ["batch", "seq", 64]),
                  h.make_tensor_value_info("past", T.FLOAT, ["batch", "past_sequence_length", 64])],
                 [h.make_tensor_value_info("y", T.FLOAT, None), h.make_tensor_value_info("z", T.FLOAT, None)], [w])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), sys.argv[1] + "/sym.onnx")
EOF2
M=$TMP/sym.onnx
GPU=a100-sxm4-40gb
"$BIN" inspect "$M" >"$TMP/out" 2>"$TMP/err" || { echo "FAIL: inspect with symbolic dims: $(cat "$TMP/err")"; fail=1; }
grep -q "^input x \[1, seq, 64\]" "$TMP/out" && grep -q "^mm2 .*\[1, seq, 64\]" "$TMP/out" ||
  { echo "FAIL: inspect does not print the dims by name: $(cat "$TMP/out")"; fail=1; }
grep -q "shapes are lost at cat (Concat).*(--dim past_sequence_length=N, ... sets a symbolic dim: past_sequence_length, seq)" "$TMP/err" ||
  { echo "FAIL: the unshaped-nodes note does not point at --dim: $(cat "$TMP/err")"; fail=1; }
"$BIN" inspect "$M" --json >"$TMP/i.json" 2>"$TMP/err" || { echo "FAIL: inspect --json: $(cat "$TMP/err")"; fail=1; }
"$PY" - "$TMP/i.json" <<'EOF2' || { echo "FAIL: inspect --json shapes"; fail=1; }
import json, sys
j = json.load(open(sys.argv[1]))
ins = {i["name"]: i["shape"] for i in j["inputs"]}
assert ins == {"x": [1, "seq", 64], "past": [1, "past_sequence_length", 64]}, ins
outs = {o["name"]: o["shape"] for n in j["nodes"] for o in n["outputs"]}
assert outs["z"] == [1, "seq", 64], outs
assert outs["kv"] == [1, None, 64], outs  # seq + past_sequence_length: unknown, not a made-up name
assert j["complete"] is False
EOF2
"$BIN" predict "$M" --gpu $GPU >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "input 'x' dim 1 is the symbolic dim 'seq'; pass --dim seq=N" "$TMP/err" ||
  { echo "FAIL: predict with a symbolic dim exited $rc: $(cat "$TMP/err")"; fail=1; }
"$BIN" predict "$M" --gpu $GPU --dim seq=5 --dim past_sequence_length=7 --layers --json >"$TMP/p.json" 2>"$TMP/err" ||
  { echo "FAIL: predict --dim: $(cat "$TMP/err")"; fail=1; }
"$BIN" inspect "$M" --dim seq=5 --dim past_sequence_length=7 --json >"$TMP/i5.json" 2>"$TMP/err" &&
  "$PY" -c "import json,sys; j=json.load(open(sys.argv[1])); s={o['name']: o['shape'] for n in j['nodes'] for o in n['outputs']}; assert s['kv']==[1,12,64] and s['z']==[1,5,64], s; assert 'complete' not in j" "$TMP/i5.json" ||
  { echo "FAIL: inspect --dim shapes: $(cat "$TMP/err")"; fail=1; }
"$BIN" mig "$M" --gpu $GPU --dim seq=5 --dim past_sequence_length=7 >"$TMP/out" 2>"$TMP/err" ||
  { echo "FAIL: mig with --dim: $(cat "$TMP/err")"; fail=1; }
"$BIN" mig "$M" --gpu $GPU --dim seq=5 >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc = 2 ] && grep -q "symbolic dim 'past_sequence_length'; pass --dim past_sequence_length=N" "$TMP/err" ||
  { echo "FAIL: mig with an unset dim exited $rc: $(cat "$TMP/err")"; fail=1; }
for bad in "seq=0" "seq" "sek=5" "seq=x"; do
  "$BIN" predict "$M" --gpu $GPU --dim past_sequence_length=7 --dim "$bad" >"$TMP/out" 2>"$TMP/err"; rc=$?
  [ $rc = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q -- "--dim" "$TMP/err" ||
    { echo "FAIL: --dim $bad exited $rc: $(cat "$TMP/err")"; fail=1; }
done
"$BIN" predict "$M" --gpu $GPU --dim seq=5 --dim past_sequence_length=7 --input-shape x=1,6,64 >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc = 2 ] && grep -q "input-shape x gives dim 1 ('seq') = 6 but --dim seq=5" "$TMP/err" ||
  { echo "FAIL: conflicting --input-shape and --dim exited $rc: $(cat "$TMP/err")"; fail=1; }
cat >"$TMP/b.json" <<J
{"schema_version": 1, "entries": [{"name": "dec", "model": "sym.onnx", "gpu": "$GPU",
  "dims": {"seq": 5, "past_sequence_length": 7}, "limits": {"latency_ms": 1000}}]}
J
"$BIN" budget check "$TMP/b.json" >"$TMP/out" 2>"$TMP/err" || { echo "FAIL: budget with dims: $(cat "$TMP/err")"; fail=1; }
sed 's/"seq": 5/"seq": 0/' "$TMP/b.json" >"$TMP/bad.json"
"$BIN" budget check "$TMP/bad.json" >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc = 2 ] && grep -q "bad.json: entries\[0\] (\"dec\"): dims.seq must be an integer >= 1" "$TMP/err" ||
  { echo "FAIL: budget dims.seq=0 exited $rc: $(cat "$TMP/err")"; fail=1; }
sed 's/"seq": 5/"sek": 5/' "$TMP/b.json" >"$TMP/bad.json"
"$BIN" budget check "$TMP/bad.json" >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc = 2 ] && grep -q "bad.json: entries\[0\].*dims.sek (5): no input has a symbolic dim named 'sek'" "$TMP/err" ||
  { echo "FAIL: budget dims.sek exited $rc: $(cat "$TMP/err")"; fail=1; }
exit $fail
