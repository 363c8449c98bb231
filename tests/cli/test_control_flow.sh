#!/usr/bin/env bash
# Control flow at the command line: a Loop whose trip count is a runtime input is exit 2 naming the Loop
# and --loop-trips; with --loop-trips it is predicted with one layer per iteration; an If on a runtime
# condition is predicted on its more expensive branch with a note, and --branch picks the other; a budget
# file's `branches` and `loop_trips` keys do the same, bad ones a one-line error naming the file and key.
# Usage: bash test_control_flow.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
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
d = sys.argv[1]
w = h.make_tensor("w", T.FLOAT, [64, 64], [0.01] * 4096)
body = h.make_graph([h.make_node("MatMul", ["a", "w"], ["a2"], name="mm"),
                     h.make_node("Identity", ["cin"], ["cout"], name="keep")], "body",
                    [h.make_tensor_value_info("i", T.INT64, []), h.make_tensor_value_info("cin", T.BOOL, []),
                     h.make_tensor_value_info("a", T.FLOAT, [8, 64])],
                    [h.make_tensor_value_info("cout", T.BOOL, []), h.make_tensor_value_info("a2", T.FLOAT, [8, 64])])
g = h.make_graph([h.make_node("Constant", [], ["t"], value=h.make_tensor("tv", T.BOOL, [], [1])),
                  h.make_node("Loop", ["m", "t", "x"], ["y"], body=body, name="steps")], "loop",
                 [h.make_tensor_value_info("x", T.FLOAT, [8, 64]), h.make_tensor_value_info("m", T.INT64, [])],
                 [h.make_tensor_value_info("y", T.FLOAT, [8, 64])], [w])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), f"{d}/loop.onnx")
then = h.make_graph([h.make_node("Relu", ["x"], ["ty"], name="cheap")], "then", [], [h.make_tensor_value_info("ty", T.FLOAT, [8, 64])])
els = h.make_graph([h.make_node("MatMul", ["x", "w"], ["ey"], name="costly")], "else", [], [h.make_tensor_value_info("ey", T.FLOAT, [8, 64])])
g = h.make_graph([h.make_node("If", ["c"], ["y"], then_branch=then, else_branch=els, name="gate")], "if",
                 [h.make_tensor_value_info("x", T.FLOAT, [8, 64]), h.make_tensor_value_info("c", T.BOOL, [1])],
                 [h.make_tensor_value_info("y", T.FLOAT, [8, 64])], [w])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), f"{d}/if.onnx")
EOF2
GPU=a100-sxm4-40gb
"$BIN" predict "$TMP/loop.onnx" --gpu $GPU >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc = 2 ] || { echo "FAIL: a runtime trip count exited $rc"; fail=1; }
grep -q "node 'steps' (Loop): trip count not known at import.*--loop-trips steps=N" "$TMP/err" || { echo "FAIL: message: $(cat "$TMP/err")"; fail=1; }
"$BIN" predict "$TMP/loop.onnx" --gpu $GPU --loop-trips steps=3 --layers --json >"$TMP/l.json" 2>"$TMP/err" || { echo "FAIL: --loop-trips: $(cat "$TMP/err")"; fail=1; }
"$PY" - "$TMP/l.json" <<'EOF2' || { echo "FAIL: layers of the unrolled loop"; fail=1; }
import json, sys
j = json.load(open(sys.argv[1]))
names = [l["name"] for l in j["layers"]]
for i in range(3):
    assert f"steps/iter{i}/mm" in names, names
assert "steps/iter3/mm" not in names, names
EOF2
for bad in "steps=-1" "steps=x" "nope=2"; do
  "$BIN" predict "$TMP/loop.onnx" --gpu $GPU --loop-trips "$bad" >"$TMP/out" 2>"$TMP/err"; rc=$?
  [ $rc = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] || { echo "FAIL: --loop-trips $bad exited $rc: $(cat "$TMP/err")"; fail=1; }
done
"$BIN" predict "$TMP/if.onnx" --gpu $GPU --input-shape c=1 --layers --json >"$TMP/i.json" 2>"$TMP/err" || { echo "FAIL: if: $(cat "$TMP/err")"; fail=1; }
grep -q "If 'gate': condition not known at import; costed the more expensive branch, else.*--branch gate=then" "$TMP/err" ||
  { echo "FAIL: no note naming the If: $(cat "$TMP/err")"; fail=1; }
grep -q '"gate/else/costly"' "$TMP/i.json" || { echo "FAIL: the costly branch is not in the layers"; fail=1; }
"$BIN" predict "$TMP/if.onnx" --gpu $GPU --input-shape c=1 --branch gate=then --layers --json >"$TMP/t.json" 2>"$TMP/err" || { echo "FAIL: --branch: $(cat "$TMP/err")"; fail=1; }
grep -q '"gate/then/cheap"' "$TMP/t.json" && ! grep -q costly "$TMP/t.json" || { echo "FAIL: --branch gate=then did not take the then branch"; fail=1; }
"$BIN" predict "$TMP/if.onnx" --gpu $GPU --input-shape c=1 --branch gate=maybe >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc = 2 ] && grep -q "'then' or 'else'" "$TMP/err" || { echo "FAIL: --branch gate=maybe exited $rc: $(cat "$TMP/err")"; fail=1; }
# Budget files: loop_trips and branches as keys of an entry.
budget() {  # budget NAME EXTRA_KEYS -> $TMP/NAME.json
  printf '{"schema_version": 1, "entries": [{"name": "e", "model": "%s", "gpu": "%s", %s "limits": {"latency_ms": 1000}}]}\n' \
    "$2" $GPU "$3" >"$TMP/$1.json"
}
budget trips loop.onnx '"loop_trips": {"steps": 3},'
"$BIN" budget check "$TMP/trips.json" --json >"$TMP/b.json" 2>"$TMP/err" || { echo "FAIL: budget with loop_trips: $(cat "$TMP/err")"; fail=1; }
budget notrips loop.onnx ''
"$BIN" budget check "$TMP/notrips.json" >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc = 2 ] && grep -q "notrips.json: entries\[0\].*node 'steps' (Loop): trip count not known.*set loop_trips.steps" "$TMP/err" ||
  { echo "FAIL: budget without loop_trips exited $rc: $(cat "$TMP/err")"; fail=1; }
budget then if.onnx '"input_shapes": {"c": [1]}, "branches": {"gate": "then"},'
budget else if.onnx '"input_shapes": {"c": [1]}, "branches": {"gate": "else"},'
"$BIN" budget check "$TMP/then.json" --json >"$TMP/bt.json" 2>"$TMP/err" && "$BIN" budget check "$TMP/else.json" --json >"$TMP/be.json" 2>>"$TMP/err" ||
  { echo "FAIL: budget with branches: $(cat "$TMP/err")"; fail=1; }
"$PY" - "$TMP/bt.json" "$TMP/be.json" <<'EOF2' || { echo "FAIL: branches.gate did not change the prediction"; fail=1; }
import json, sys
t, e = (json.load(open(p))["entries"][0]["prediction"]["latency_ms"] for p in sys.argv[1:3])
assert t < e, (t, e)  # then is a Relu, else a MatMul
EOF2
for keys in '"branches": {"gate": "maybe"},' '"branches": ["gate"],' '"loop_trips": {"steps": -1},' '"loop_trips": {"steps": "3"},' \
            '"branches": {"nope": "then"},' '"loop_trips": {"nope": 2},'; do
  budget bad if.onnx "\"input_shapes\": {\"c\": [1]}, $keys"
  "$BIN" budget check "$TMP/bad.json" >"$TMP/out" 2>"$TMP/err"; rc=$?
  key=$(echo "$keys" | sed 's/^"\([a-z_]*\)".*/\1/')
  [ $rc = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "bad.json: entries\[0\].*$key" "$TMP/err" ||
    { echo "FAIL: budget $keys exited $rc: $(cat "$TMP/err")"; fail=1; }
done
exit $fail
