#!/usr/bin/env bash
# tools/tv_families.py, which lets scripts/eval_learned.sh hold out one torchvision architecture family: every row's
# model_family becomes its recipe's family (wide_resnet and resnext are not resnet), model paths become absolute so
# the copy can live elsewhere, comments and the licence sidecar come along, and a CSV without the columns is refused.
# No ../shared.
# Usage: bash test_tv_families.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, else fail)
set -u
ROOT=$(cd "${2:?repository root}" && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TOOL="$ROOT/tools/tv_families.py"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
mkdir -p "$TMP/in"
cat >"$TMP/in/tv.csv" <<'CSV'
#perfpred network-dataset schema_version=1
id,gpu_id,model,model_family,recipe,latency_ms
a,t4,../models/resnet50.onnx,torchvision,torchvision:resnet50,1
b,t4,../models/wide_resnet50_2.onnx,torchvision,torchvision:wide_resnet50_2,2
c,t4,../models/resnext101_32x8d.onnx,torchvision,torchvision:resnext101_32x8d,3
d,t4,../models/mobilenet_v2.onnx,torchvision,torchvision:mobilenet_v2,4
e,t4,../models/alexnet.onnx,torchvision,torchvision:alexnet,5
f,t4,,torchvision,,6
CSV
echo '{"licence": "MIT"}' >"$TMP/in/tv.csv.meta.json"
out=$($PY "$TOOL" "$TMP/in/tv.csv" "$TMP/out/fam.csv") || bad "tool failed: $out"
[ "$out" = "mobilenet:1 other:2 resnet:1 resnext:1 wide_resnet:1" ] || bad "counts: '$out'"
head -1 "$TMP/out/fam.csv" | grep -q '^#perfpred network-dataset' || bad "comment line lost"
cmp -s "$TMP/in/tv.csv.meta.json" "$TMP/out/fam.csv.meta.json" || bad "meta sidecar not copied"
$PY - "$TMP" <<'PY' || fail=1
import csv, os, sys
t = sys.argv[1]
rows = list(csv.DictReader(l for l in open(f"{t}/out/fam.csv") if not l.startswith("#")))
want = {"a": "resnet", "b": "wide_resnet", "c": "resnext", "d": "mobilenet", "e": "other", "f": "other"}
got = {r["id"]: r["model_family"] for r in rows}
if got != want:
    print(f"FAIL: families {got}"); sys.exit(1)
if rows[0]["model"] != os.path.normpath(f"{t}/models/resnet50.onnx"):
    print(f"FAIL: model path {rows[0]['model']}"); sys.exit(1)
if rows[5]["model"] != "":
    print("FAIL: an empty model path must stay empty"); sys.exit(1)
PY
printf 'id,gpu_id\nx,t4\n' >"$TMP/in/bad.csv"
$PY "$TOOL" "$TMP/in/bad.csv" "$TMP/out/bad.csv" 2>"$TMP/err" && bad "a CSV without model_family/recipe was accepted"
grep -q "no model_family and recipe columns" "$TMP/err" || bad "refusal message: $(cat "$TMP/err")"
exit $fail
