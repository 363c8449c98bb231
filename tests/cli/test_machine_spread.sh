#!/usr/bin/env bash
# tools/machine_spread.py on a synthetic ryujaehun-style set: one case measured on two machines (10 and 12 ms)
# must give a spread of (2/12 + 2/10) / 2 = 18.33%; a case measured on one machine only is left out; a set
# without any case on two setups is an error. One machine measured in two result formats (2019, 2020-21) gives
# the eras table: each model's later / earlier time. No ../shared and no perfpred binary needed.
# Usage: bash test_machine_spread.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
ROOT=$(cd "${2:?repository root}" && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TMP=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
SET="$TMP/datasets/pytorch-gpu-benchmark-ryujaehun"
mkdir -p "$SET" "$TMP/empty/pytorch-gpu-benchmark-ryujaehun"
write() {  # write OUT then rows "id,recipe,machine,latency[,format]" (format 2020-21 by default)
  local out=$1; shift
  {
    echo "#perfpred network-dataset schema_version=1"
    echo "id,status,gpu_id,runtime,precision,model,model_family,recipe,mode,batch,latency_ms,notes"
    for r in "$@"; do
      IFS=, read -r id recipe machine ms fmt <<<"$r"
      echo "$id,ok,rtx-2080ti,pytorch,fp32,m.onnx,torchvision,$recipe,inference,12,$ms,\"median of 20; machine $machine; ${fmt:-2020-21} (32 models); x\""
    done
  } >"$out"
}
write "$SET/torchvision.csv" "a,resnet18,A,10" "b,resnet18,B,12" "c,vgg16,A,30"
write "$TMP/empty/pytorch-gpu-benchmark-ryujaehun/torchvision.csv" "a,resnet18,A,10" "c,vgg16,B,30"
$PY "$ROOT/tools/machine_spread.py" --datasets "$TMP/datasets" --measured "" --rows "" --markdown >"$TMP/out" 2>"$TMP/err" \
  || { echo "FAIL: machine_spread exited $?"; cat "$TMP/err"; exit 1; }
$PY - "$TMP/out" <<'PYEOF' || { cat "$TMP/out"; exit 1; }
import sys
rows = [[x.strip() for x in l.split("|")] for l in open(sys.argv[1]) if l.startswith("| pytorch-gpu")]
assert len(rows) == 1, rows
c = rows[0]
assert c[6] == "A 2020-21, B 2020-21", c[6]
assert c[7] == "2" and c[8] == "18.3", (c[7], c[8])
PYEOF
if $PY "$ROOT/tools/machine_spread.py" --datasets "$TMP/empty" --measured "" --rows "" --markdown >"$TMP/out2" 2>"$TMP/err2"; then
  echo "FAIL: a set without a case on two setups was accepted"; exit 1
fi
grep -q "no case was measured on two setups" "$TMP/err2" || { echo "FAIL: unclear error:"; cat "$TMP/err2"; exit 1; }
# Eras: machine C in 2019 and 2020-21: resnet18 8 -> 10 ms (1.25), vgg16 20 -> 18 ms (0.90).
mkdir -p "$TMP/eras/pytorch-gpu-benchmark-ryujaehun"
write "$TMP/eras/pytorch-gpu-benchmark-ryujaehun/torchvision.csv" "a,resnet18,C,8,2019" "b,resnet18,C,10" "c,vgg16,C,20,2019" "d,vgg16,C,18"
$PY "$ROOT/tools/machine_spread.py" --datasets "$TMP/eras" --measured "" --rows "" --markdown >"$TMP/out3" 2>"$TMP/err3" \
  || { echo "FAIL: machine_spread (eras) exited $?"; cat "$TMP/err3"; exit 1; }
$PY - "$TMP/out3" <<'PYEOF' || { cat "$TMP/out3"; exit 1; }
import sys
rows = [[x.strip() for x in l.split("|")] for l in open(sys.argv[1]) if l.startswith("| rtx-2080ti")]
assert len(rows) == 1, rows
c = rows[0]
assert c[1:7] == ["rtx-2080ti", "C", "2019", "2020-21", "inference", "fp32"], c
assert c[7:10] == ["2", "1.07", "0.90-1.25"], c[7:10]
assert c[10] == "resnet18 1.25, vgg16 0.90", c[10]
PYEOF
echo ok
