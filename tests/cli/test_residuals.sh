#!/usr/bin/env bash
# tools/residuals.py help-ratios on synthetic held-out rows: medians per family, GPU and batch (three rows of
# ratio 1, 2 and 4 give 2; one row of ratio 0.5 gives 0.5); no rows file is an error naming the step to run.
# Usage: bash test_residuals.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
ROOT=$(cd "${2:?repository root}" && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TMP=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
mkdir -p "$TMP/eval"
for fam in nasbench201 fbnet; do
  {
    echo "file,id,kind,gpu_id,family,phase_or_mode,precision,measured,analytical"
    echo "f,$fam-1-1080ti-b1,network,gtx-1080ti,$fam,inference,fp32,1,1"
    echo "f,$fam-2-1080ti-b1,network,gtx-1080ti,$fam,inference,fp32,2,1"
    echo "f,$fam-3-1080ti-b1,network,gtx-1080ti,$fam,inference,fp32,4,1"
    echo "f,$fam-4-1080ti-b32,network,gtx-1080ti,$fam,inference,fp32,1,2"
  } >"$TMP/eval/help-family-$fam.rows.csv"
done
"$PY" "$ROOT/tools/residuals.py" help-ratios --eval "$TMP/eval" >"$TMP/out" 2>"$TMP/err" \
  || { echo "FAIL: residuals exited $?"; cat "$TMP/err"; exit 1; }
grep -q "^| fbnet | gtx-1080ti | 1 | 3 | 2.00 |$" "$TMP/out" && grep -q "^| nasbench201 | gtx-1080ti | 32 | 1 | 0.50 |$" "$TMP/out" \
  || { echo "FAIL: medians"; cat "$TMP/out"; exit 1; }
rm "$TMP/eval/help-family-fbnet.rows.csv"
if "$PY" "$ROOT/tools/residuals.py" help-ratios --eval "$TMP/eval" >/dev/null 2>"$TMP/err2"; then
  echo "FAIL: a missing rows file was accepted"; exit 1
fi
grep -q "run scripts/eval_learned.sh first" "$TMP/err2" || { echo "FAIL: unclear error:"; cat "$TMP/err2"; exit 1; }
echo ok
