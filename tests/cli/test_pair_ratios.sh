#!/usr/bin/env bash
# tools/pair_ratios.py on a synthetic ryujaehun-style set: ResNet-18 and AlexNet (models/zoo) measured on two
# machines. Each machine's pair must be compared on its own (the ratio of its two measurements against the
# ratio of perfpred's own predictions, checked here by calling perfpred directly); a model measured on one
# machine only makes no pair; no pair at all is an error.
# Usage: bash test_pair_ratios.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=$(cd "${2:?repository root}" && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TMP=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
SET="$TMP/datasets/pytorch-gpu-benchmark-ryujaehun"
mkdir -p "$SET"
cp "$ROOT/models/zoo/resnet18.onnx" "$ROOT/models/zoo/alexnet.onnx" "$SET/"
{
  echo "#perfpred network-dataset schema_version=1"
  echo "id,status,gpu_id,runtime,precision,model,model_family,recipe,mode,batch,includes_h2d,latency_ms,notes"
  echo "a,ok,rtx-2080ti,pytorch,fp32,resnet18.onnx,torchvision,resnet18,inference,12,1,10,\"machine A; 2020-21 (32 models); x\""
  echo "b,ok,rtx-2080ti,pytorch,fp32,alexnet.onnx,torchvision,alexnet,inference,12,1,5,\"machine A; 2020-21 (32 models); x\""
  echo "c,ok,rtx-2080ti,pytorch,fp32,resnet18.onnx,torchvision,resnet18,inference,12,1,20,\"machine B; 2020-21 (32 models); x\""
  echo "d,ok,rtx-2080ti,pytorch,fp32,alexnet.onnx,torchvision,alexnet,inference,12,1,4,\"machine B; 2020-21 (32 models); x\""
  echo "e,ok,rtx-2080ti,pytorch,fp32,resnet18.onnx,torchvision,resnet18,inference,12,1,7,\"machine C; 2020-21 (32 models); x\""
} >"$SET/torchvision.csv"
"$PY" "$ROOT/tools/pair_ratios.py" --perfpred "$BIN" --datasets "$TMP/datasets" --models resnet18 --against alexnet \
  >"$TMP/out" 2>"$TMP/err" || { echo "FAIL: pair_ratios exited $?"; cat "$TMP/err"; exit 1; }
p() { "$BIN" -q predict "$SET/$1.onnx" --gpu rtx-2080ti --batch 12 --analytical --json --no-meta |
      "$PY" -c 'import json,sys; print(json.load(sys.stdin)["latency_ms"])'; }
R=$(p resnet18) A=$(p alexnet)
"$PY" - "$TMP/out" "$R" "$A" <<'PYEOF' || { cat "$TMP/out"; exit 1; }
import sys
out, r, a = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
rows = [[x.strip() for x in l.split("|")] for l in open(out) if l.startswith("| ")]
gpu = [c for c in rows if c[1] == "rtx-2080ti"]
assert len(gpu) == 1 and gpu[0][4] == "2", gpu   # machines A and B; C measured one model only
q = sorted([(r / a) / (10 / 5), (r / a) / (20 / 4)])
assert gpu[0][5] == f"{(q[0] + q[1]) / 2:.2f}", (gpu[0][5], q)
ape = (abs(q[0] - 1) + abs(q[1] - 1)) / 2 * 100
allrow = [c for c in rows if c[1] == "all"][0]
assert f"mean {ape:.1f}%" in allrow[5], (allrow, ape)
PYEOF
if "$PY" "$ROOT/tools/pair_ratios.py" --perfpred "$BIN" --datasets "$TMP/datasets" --models resnet18 --against vgg16 \
  >"$TMP/out2" 2>"$TMP/err2"; then
  echo "FAIL: no pair was accepted"; exit 1
fi
grep -q "no setup of pytorch-gpu-benchmark-ryujaehun measured" "$TMP/err2" || { echo "FAIL: unclear error:"; cat "$TMP/err2"; exit 1; }
echo ok
