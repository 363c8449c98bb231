#!/usr/bin/env bash
# tools/kernel_blend_curve.py on synthetic rows files: in one fold the analytical time is 1.25x the measured one and the
# boosters' 0.8x, so w = 0.5 is exact (0%) and the ends are 25% and 20%; a second fold where the boosters are exact
# and the analytical time 1.1x. Pooled and worst-fold figures must follow, and the default's rule picks 0.5; a folder
# without rows files is an error.
# No ../shared and no perfpred binary needed.
# Usage: bash test_kernel_blend_curve.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
ROOT=$(cd "${2:?repository root}" && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TMP=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$TMP/rows" "$TMP/empty"
head="file,id,kind,gpu_id,family,phase_or_mode,precision,measured,analytical,learned,analytical_error_pct,learned_error_pct,learned_share,model_family"
{
  echo "$head"
  echo "f.csv,a1,kernel,a,gemm,forward,fp32,1.0,1.25,0.8,25,-20,1,"
  echo "f.csv,a2,kernel,a,gemm,forward,fp32,2.0,2.5,1.6,25,-20,1,"
} >"$TMP/rows/kernels-a.rows.csv"
{
  echo "$head"
  echo "f.csv,b1,kernel,b,gemm,forward,fp32,1.0,1.1,1.0,10,0,1,"
  echo "f.csv,b2,kernel,b,gemm,forward,fp32,0,1.1,1.0,10,0,1,"
} >"$TMP/rows/kernels-b.rows.csv"
$PY "$ROOT/tools/kernel_blend_curve.py" "$TMP/rows" --json "$TMP/c.json" >"$TMP/out" 2>"$TMP/err" \
  || { cat "$TMP/err"; fail "kernel_blend_curve exited non-zero"; }
$PY - "$TMP/c.json" <<'PYEOF' || { cat "$TMP/out"; fail "curve figures wrong"; }
import json, math, sys
c = json.load(open(sys.argv[1]))["NeuSight, leave one GPU out"]
assert c["folds"] == 2 and c["rows"] == 3, c  # the row measured at 0 is skipped
w = c["weights"]
# w = 0: fold a 25%, fold b 10% -> pooled (25 + 25 + 10) / 3.
assert abs(w["0"]["mean_ape"] - 20.0) < 1e-9 and w["0"]["worst_fold_change"] == 0, w["0"]
# w = 1: fold a 20%, fold b 0%: both folds better.
assert abs(w["1"]["mean_ape"] - 40 / 3) < 1e-9 and abs(w["1"]["worst_fold_change"] - (-5.0)) < 1e-9, w["1"]
# w = 0.5: fold a exact (1.25 x 0.8 = 1), fold b sqrt(1.1) - 1.
b = (math.sqrt(1.1) - 1) * 100
assert abs(w["0.5"]["mean_ape"] - b / 3) < 1e-9, w["0.5"]
# The default's rule: no fold worse than w = 0 anywhere here, so the lowest pooled error, at 0.5.
assert c["rule_pick"] == "0.5", c["rule_pick"]
PYEOF
grep -q "^| NeuSight, leave one GPU out | 2 | 3 | 20.0% (+0.0) |" "$TMP/out" || { cat "$TMP/out"; fail "markdown row"; }
grep -q "^The default's rule .* picks w = 0.5.$" "$TMP/out" || { cat "$TMP/out"; fail "rule line"; }
if $PY "$ROOT/tools/kernel_blend_curve.py" "$TMP/empty" >/dev/null 2>"$TMP/err2"; then fail "an empty folder was accepted"; fi
grep -q "has no kernels-\*, deepbench-\* or kapp-db-\* rows files" "$TMP/err2" || { cat "$TMP/err2"; fail "unclear error"; }
echo "ok: kernel_blend_curve recomputes held-out folds for each blend weight"
