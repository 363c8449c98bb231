#!/usr/bin/env bash
# --nms-candidates: a NonMaxSuppression with a score threshold pairs only the boxes over it, which the data
# decides. Without a count it is priced with every box a candidate and the JSON notes say so and how to
# change it; with a count (by name, or for every such node) its overlap work falls with K^2, capped at the
# box count; bad counts and names are exit 2 with one line; inspect and budget entries take it too.
# Usage: bash test_nms_candidates.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
PY=/usr/bin/python3
"$PY" -c "import onnx" 2>/dev/null || { echo "skip: $PY has no onnx module"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
# A YOLOv8-sized head: 8400 boxes, 80 classes, a score threshold; beside it an NMS over one class without one
# (and a second model with two thresholded NMS nodes, for the note that counts them).
"$PY" - "$TMP" <<'EOF2' || { echo "FAIL: model generation"; exit 1; }
import sys, onnx
from onnx import helper as h, TensorProto as T
nodes = [h.make_node("NonMaxSuppression", ["boxes", "scores", "most", "iou", "thr"], ["keep"], name="nms"),
         h.make_node("NonMaxSuppression", ["boxes", "scores1", "most"], ["keep1"], name="plain")]
g = h.make_graph(nodes, "nms", [h.make_tensor_value_info("boxes", T.FLOAT, ["batch", 8400, 4]),
                                h.make_tensor_value_info("scores", T.FLOAT, ["batch", 80, 8400]),
                                h.make_tensor_value_info("scores1", T.FLOAT, ["batch", 1, 8400])],
                 [h.make_tensor_value_info("keep", T.INT64, None), h.make_tensor_value_info("keep1", T.INT64, None)],
                 [h.make_tensor("most", T.INT64, [1], [100]), h.make_tensor("iou", T.FLOAT, [1], [0.45]),
                  h.make_tensor("thr", T.FLOAT, [1], [0.25])])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), f"{sys.argv[1]}/nms.onnx")
# Two thresholded NMS nodes: one note names the first and counts the other.
nodes2 = [h.make_node("NonMaxSuppression", ["boxes", "scores", "most", "iou", "thr"], ["keep"], name="nms_a"),
          h.make_node("NonMaxSuppression", ["boxes", "scores", "most", "iou", "thr"], ["keep2"], name="nms_b")]
g2 = h.make_graph(nodes2, "nms2", g.input[:2], [h.make_tensor_value_info("keep", T.INT64, None),
                                                 h.make_tensor_value_info("keep2", T.INT64, None)], g.initializer)
onnx.save(h.make_model(g2, opset_imports=[h.make_opsetid("", 17)]), f"{sys.argv[1]}/nms2.onnx")
EOF2
M="$TMP/nms.onnx"
P=(--gpu jetson-orin-nx-16gb --runtime tensorrt --precision fp16 --no-copies --data-count 100)
run() {  # run WANT_EXIT ARGS...
  local want=$1; shift
  "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
  local got=$?
  if [ "$got" != "$want" ]; then echo "FAIL: perfpred $* exited $got, expected $want"; cat "$TMP/err"; fail=1; return 1; fi
  return 0
}
layer() {  # layer FILE NAME KEY: a per-layer value of predict --json --layers
  "$PY" -c "import json,sys; print([l[sys.argv[3]] for l in json.load(open(sys.argv[1]))['layers'] if l['name'] == sys.argv[2]][0])" "$@"
}
run 0 predict "$M" "${P[@]}" --json --layers --no-meta && cp "$TMP/out" "$TMP/default.json"
"$PY" - "$TMP/default.json" <<'EOF2' || { echo "FAIL: the default prediction's NMS note"; fail=1; }
import json, sys
j = json.load(open(sys.argv[1]))
notes = [n for n in j["notes"] if "NonMaxSuppression 'nms'" in n]
assert len(notes) == 1 and "all 8400 boxes" in notes[0] and "--nms-candidates nms=K" in notes[0], j["notes"]
assert not any("'plain'" in n for n in j["notes"]), j["notes"]
EOF2
run 0 predict "$TMP/nms2.onnx" "${P[@]}" --json --no-meta && "$PY" -c "
import json, sys
notes = [n for n in json.load(open(sys.argv[1]))['notes'] if 'NonMaxSuppression' in n]
assert len(notes) == 1 and \"'nms_a' (and 1 more)\" in notes[0], notes
" "$TMP/out" || { echo "FAIL: two thresholded NMS nodes' note"; fail=1; }
run 0 predict "$TMP/nms2.onnx" "${P[@]}" --nms-candidates nms_a=10 --json --no-meta && "$PY" -c "
import json, sys
notes = [n for n in json.load(open(sys.argv[1]))['notes'] if 'NonMaxSuppression' in n]
assert len(notes) == 1 and \"'nms_b' priced\" in notes[0], notes
" "$TMP/out" || { echo "FAIL: the note after one of two NMS nodes got a count"; fail=1; }
# 8 FLOPs per IoU: 80 classes x K^2 / 2 pairs.
[ "$(layer "$TMP/default.json" nms flops)" = "$("$PY" -c 'print(8.0 * 80 * 8400 * 8400 / 2)')" ] || { echo "FAIL: default NMS flops"; fail=1; }
for k in "nms=100" "100"; do
  run 0 predict "$M" "${P[@]}" --nms-candidates "$k" --json --layers --no-meta || continue
  [ "$(layer "$TMP/out" nms flops)" = "$("$PY" -c 'print(8.0 * 80 * 100 * 100 / 2)')" ] || { echo "FAIL: --nms-candidates $k flops $(layer "$TMP/out" nms flops)"; fail=1; }
  [ "$(layer "$TMP/out" plain flops)" = "$(layer "$TMP/default.json" plain flops)" ] || { echo "FAIL: --nms-candidates $k moved the NMS without a threshold"; fail=1; }
  "$PY" -c "
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert b['latency_ms'] < a['latency_ms'] / 10, (a['latency_ms'], b['latency_ms'])
assert not any('NonMaxSuppression' in n for n in b['notes']), b['notes']
" "$TMP/default.json" "$TMP/out" || { echo "FAIL: --nms-candidates $k did not lower the latency or kept the note"; fail=1; }
done
# Capped at the box count.
run 0 predict "$M" "${P[@]}" --nms-candidates nms=99999 --json --layers --no-meta &&
  { [ "$(layer "$TMP/out" nms flops)" = "$(layer "$TMP/default.json" nms flops)" ] || { echo "FAIL: --nms-candidates above the boxes is not capped"; fail=1; }; }
# Bad input: exit 2, one line naming what is wrong.
bad() {  # bad WANT_FRAGMENT ARGS...
  local want=$1; shift
  run 2 "$@" || return
  grep -qF -- "$want" "$TMP/err" || { echo "FAIL: perfpred $*: message lacks '$want': $(cat "$TMP/err")"; fail=1; }
  [ "$(wc -l <"$TMP/err")" = 1 ] || { echo "FAIL: perfpred $*: more than one line on stderr"; fail=1; }
}
bad "no NonMaxSuppression with a score_threshold input named 'nothere'; such nodes: nms" predict "$M" "${P[@]}" --nms-candidates nothere=5
bad "'plain' has no score_threshold input, so every box is a candidate" predict "$M" "${P[@]}" --nms-candidates plain=5
bad "the count must be >= 0" predict "$M" "${P[@]}" --nms-candidates nms=-1
bad "expected NAME=N" predict "$M" "${P[@]}" --nms-candidates nms=
bad "is given twice" predict "$M" "${P[@]}" --nms-candidates nms=5 --nms-candidates nms=6
# inspect shows the node's FLOPs at the count.
run 0 inspect "$M" --json --data-count 100 --nms-candidates nms=100 && "$PY" -c "
import json, sys
j = json.load(open(sys.argv[1]))
f = [n['flops'] for n in j['nodes'] if n['name'] == 'nms']
assert f == [8.0 * 80 * 100 * 100 / 2], f
" "$TMP/out" || { echo "FAIL: inspect --nms-candidates"; head -c 600 "$TMP/out"; fail=1; }
# A budget entry's nms_candidates (by name or "*"); the latency limit sits between the two predictions.
for nc in '{"nms": 100}' '{"*": 100}'; do
  cat >"$TMP/budget.json" <<EOF2
{"schema_version": 1, "entries": [{"name": "yolo", "model": "nms.onnx", "gpu": "jetson-orin-nx-16gb", "runtime": "tensorrt",
 "precision": "fp16", "data_counts": {"*": 100}, "nms_candidates": $nc, "limits": {"latency_ms": 5}}]}
EOF2
  run 0 budget check "$TMP/budget.json" || echo "  (budget nms_candidates $nc)"
done
sed -i 's/"nms_candidates": {"\*": 100}, //' "$TMP/budget.json"
run 1 budget check "$TMP/budget.json" || echo "  (budget without nms_candidates should exceed 5 ms)"
sed -i 's/"data_counts"/"nms_candidates": {"plain": 3}, "data_counts"/' "$TMP/budget.json"
bad "nms_candidates.plain" budget check "$TMP/budget.json"
exit $fail
