#!/usr/bin/env bash
# tools/residuals.py help-ratios on synthetic held-out rows: medians per family, GPU and batch (three rows of
# ratio 1, 2 and 4 give 2; one row of ratio 0.5 gives 0.5); no rows file is an error naming the step to run.
# duration on a synthetic NeuSight set: rows binned by kernel class (op Gemm = linear, MatMul = bmm) and measured
# half-decade, medians per cell, cells under --min-rows shown as '-'; a rows file that is not there is an error.
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
mkdir -p "$TMP/ds/neusight-gpu-kernels"
{
  echo "#perfpred kernel-dataset schema_version=1"
  echo "id,op"
  echo "k1,Gemm"; echo "k2,Gemm"; echo "k3,Gemm"; echo "k4,MatMul"; echo "k5,Relu"
} >"$TMP/ds/neusight-gpu-kernels/k.csv"
{
  echo "file,id,kind,gpu_id,family,phase_or_mode,precision,measured,analytical"
  echo "f,k1,kernel,t4,gemm,forward,fp32,10,5"      # 10 ms: ratio 2
  echo "f,k2,kernel,t4,gemm,forward,fp32,12,4"      # 10 ms bin: ratio 3
  echo "f,k3,kernel,t4,gemm,forward,fp32,0.02,0.02" # 0.01 ms bin: ratio 1
  echo "f,k4,kernel,t4,gemm,forward,fp32,10,10"     # bmm, 10 ms: ratio 1
  echo "f,k5,kernel,t4,elementwise,forward,fp32,0.05,0.1"
} >"$TMP/rows.csv"
"$PY" "$ROOT/tools/residuals.py" duration --datasets "$TMP/ds" --rows "$TMP/rows.csv" --min-rows 1 >"$TMP/dur" 2>"$TMP/err" \
  || { echo "FAIL: duration exited $?"; cat "$TMP/err"; exit 1; }
grep -q "^| GPU | kernels | 0.01 ms | 0.0316 ms | 10 ms |$" "$TMP/dur" \
  && grep -q "^| t4 | linear | 1.00 | - | 2.50 |$" "$TMP/dur" && grep -q "^| t4 | bmm | - | - | 1.00 |$" "$TMP/dur" \
  && grep -q "^| t4 | other | - | 0.50 | - |$" "$TMP/dur" || { echo "FAIL: duration bins"; cat "$TMP/dur"; exit 1; }
"$PY" "$ROOT/tools/residuals.py" duration --datasets "$TMP/ds" --rows "$TMP/rows.csv" >"$TMP/dur2" 2>&1 || exit 1
grep -q "^| t4 | linear | - | - | - |$" "$TMP/dur2" || { echo "FAIL: --min-rows default"; cat "$TMP/dur2"; exit 1; }
if "$PY" "$ROOT/tools/residuals.py" duration --datasets "$TMP/ds" --rows "$TMP/none.csv" >/dev/null 2>"$TMP/err3"; then
  echo "FAIL: a missing --rows file was accepted"; exit 1
fi
grep -q "perfpred eval --rows" "$TMP/err3" || { echo "FAIL: unclear error:"; cat "$TMP/err3"; exit 1; }
echo ok
