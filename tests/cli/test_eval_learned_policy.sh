#!/usr/bin/env bash
# scripts/eval_learned_policy.py: held-out-family rows where the boosters corrected no kernel time (an op no
# booster trained on keeps the analytical time) are not held-out-family evidence, so a win held out by GPU
# alone does not make a part learned; with a learned share there, the same rows do.
# Usage: bash test_eval_learned_policy.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
ROOT=${2:?repository root}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
command -v "$PY" >/dev/null || { echo "skip: no python3"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
write() {  # write DIR SHARE: a GPU-held-out win and family-held-out rows where learned equals analytical
  mkdir -p "$1"
  $PY - "$1" "$2" <<'EOF2'
import csv, os, sys
out, share = sys.argv[1], sys.argv[2]
cols = ["file", "id", "kind", "gpu_id", "family", "phase_or_mode", "precision", "measured", "analytical", "learned",
        "analytical_error_pct", "learned_error_pct", "learned_share"]
def rows(name, learned, share):
    with open(os.path.join(out, name), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for i in range(40):
            fam = ("gemm", "elementwise")[i % 2]
            w.writerow(["x.csv", f"r{i}", "kernel", "t4", fam, "forward", "fp32", 1.0, 1.5, learned, 50, 0, share])
rows("kernels-t4.rows.csv", 1.05, 1)           # held out by GPU: 5% against 50%
rows("kfam-ns-gemm.rows.csv", 1.5, share)      # held out by family: the analytical time
EOF2
  $PY "$ROOT/scripts/eval_learned_policy.py" "$1" "$1/policy.json" >/dev/null || { echo "FAIL: policy script"; fail=1; }
}
rule() {  # rule POLICY.json: the predictor of the datacenter pytorch inference fp32 kernels rule
  $PY - "$1" <<'EOF2'
import json, sys
for r in json.load(open(sys.argv[1]))["rules"]:
    if (r["part"], r["device_class"], r["runtime"], r["mode"], r["precision"]) == ("kernels", "datacenter", "pytorch", "inference", "fp32"):
        print(r["predictor"], "|", r["evidence"])
EOF2
}
write "$TMP/abstained" 0
out=$(rule "$TMP/abstained/policy.json")
case $out in
  analytical*"no held-out-family evidence"*"analytical model"*) ;;
  *) echo "FAIL: share 0 held out by family should leave the rule analytical: $out"; fail=1 ;;
esac
write "$TMP/corrected" 0.8
out=$(rule "$TMP/corrected/policy.json")
case $out in
  learned*"corrected 80% of the kernel time"*) ;;
  *) echo "FAIL: a learned share held out by family should count as evidence: $out"; fail=1 ;;
esac
exit $fail
