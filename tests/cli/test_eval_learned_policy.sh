#!/usr/bin/env bash
# scripts/eval_learned_policy.py: held-out-family rows where the boosters corrected no kernel time (an op no
# booster trained on keeps the analytical time) are not held-out-family evidence, so a win held out by GPU
# alone does not make a part learned; with a learned share there, the same rows do. DeepBench held out by
# application (kapp-db-*, the rows' model_family) is held-out-family evidence.
# Usage: bash test_eval_learned_policy.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
ROOT=${2:?repository root}
# Python only (scripts/eval_learned_policy.py), no perfpred code: nothing for the sanitizer pass to add.
[ "${PERFPRED_SANITIZED:-0}" = 1 ] && { echo "skip: no perfpred code runs here; the regular pass runs it"; exit 77; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
command -v "$PY" >/dev/null || { echo "skip: no python3"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
write() {  # write DIR SHARE [FAMILY_LEARNED]: a GPU-held-out win and family-held-out rows (learned 1.5 = analytical)
  mkdir -p "$1"
  $PY - "$1" "$2" "${3:-1.5}" <<'EOF2'
import csv, os, sys
out, share, fam_learned = sys.argv[1], sys.argv[2], float(sys.argv[3])
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
rows("kfam-ns-gemm.rows.csv", fam_learned, share)  # held out by family
EOF2
  $PY "$ROOT/scripts/eval_learned_policy.py" "$1" "$1/policy.json" >/dev/null || { echo "FAIL: policy script"; fail=1; }
}
rule_of() {  # rule_of POLICY.json PART CLASS RUNTIME MODE PRECISION: "predictor | evidence" of that rule
  $PY - "$@" <<'EOF2'
import json, sys
for r in json.load(open(sys.argv[1]))["rules"]:
    if [r["part"], r["device_class"], r["runtime"], r["mode"], r["precision"]] == sys.argv[2:]:
        print(r["predictor"], "|", r["evidence"])
EOF2
}
rule() { rule_of "$1" kernels datacenter pytorch inference fp32; }  # the NeuSight-like slice
write "$TMP/abstained" 0
out=$(rule "$TMP/abstained/policy.json")
case $out in
  analytical*"no held-out-family evidence"*"analytical model"*) ;;
  *) echo "FAIL: share 0 held out by family should leave the rule analytical: $out"; fail=1 ;;
esac
write "$TMP/corrected" 0.8 1.05
out=$(rule "$TMP/corrected/policy.json")
case $out in
  learned*"held out by GPU and family"*"corrected 80% of the kernel time"*) ;;
  *) echo "FAIL: a learned share held out by family should count as evidence: $out"; fail=1 ;;
esac
# counted, the family-held-out rows must show the same clear win as the GPU-held-out ones
write "$TMP/no-family-win" 0.8
out=$(rule "$TMP/no-family-win/policy.json")
case $out in
  analytical*"held out by family (40 rows): learned 50.0% vs analytical 50.0%"*) ;;
  *) echo "FAIL: no win on the family-held-out rows should leave the rule analytical: $out"; fail=1 ;;
esac
# DeepBench (cudnn) held out by application (kapp-db-*): the rows' model_family is the held-out family. A win there
# and by GPU makes the slice learned, kfam-db rows (share 0) beside them are not counted; a held-out application
# worse by more than the margin, or rows that name no application, leave it analytical.
app() {  # app DIR LEARNED_SPEECH MODEL_FAMILY: deepbench GPU win, kfam-db at share 0, kapp-db vision win + speech
  mkdir -p "$1"
  $PY - "$1" "$2" "$3" <<'EOF2'
import csv, os, sys
out, speech, mf = sys.argv[1], float(sys.argv[2]), sys.argv[3]
cols = ["file", "id", "kind", "gpu_id", "family", "phase_or_mode", "precision", "measured", "analytical", "learned",
        "analytical_error_pct", "learned_error_pct", "learned_share", "model_family"]
def rows(name, learned, share, apps=("vision",)):
    with open(os.path.join(out, name), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for i in range(40):
            a = apps[i % len(apps)]
            le = speech if a == "speech" else learned
            w.writerow(["x.csv", f"r{i}", "kernel", "t4", "conv", "forward", "fp32", 1.0, 1.5, le, 50, 0, share,
                        mf.replace("APP", a)])
rows("deepbench-t4.rows.csv", 1.05, 1)
rows("kfam-db-conv.rows.csv", 1.5, 0)
rows("kapp-db-vision.rows.csv", 1.1, 1)
rows("kapp-db-speech.rows.csv", 1.1, 1, ("speech",))
EOF2
  $PY "$ROOT/scripts/eval_learned_policy.py" "$1" "$1/policy.json" >/dev/null || { echo "FAIL: policy script"; fail=1; }
}
cudnn() { rule_of "$1" kernels datacenter cudnn inference fp32; }
app "$TMP/app-win" 1.1 APP
out=$(cudnn "$TMP/app-win/policy.json")
case $out in
  learned*"leave-one-application-out"*"held out by GPU and family"*"held out by family (80 rows): learned 10.0% vs analytical 50.0%"*"(1 held-out family where they corrected under 1% is not evidence)"*) ;;
  *) echo "FAIL: a win held out by GPU and by application should make the cudnn slice learned: $out"; fail=1 ;;
esac
app "$TMP/app-lose" 2.0 APP
out=$(cudnn "$TMP/app-lose/policy.json")
case $out in
  analytical*"worst family speech 100.0% vs 50.0%"*) ;;
  *) echo "FAIL: a held-out application worse than the analytical model should keep the slice analytical: $out"; fail=1 ;;
esac
app "$TMP/app-none" 1.1 ""
out=$(cudnn "$TMP/app-none/policy.json")
case $out in
  analytical*"no held-out-family evidence"*) ;;
  *) echo "FAIL: rows naming no application are no held-out-family evidence: $out"; fail=1 ;;
esac
# The host part is a booster of dispatch time, not of kernels: its held-out-family rows (torchvision by architecture,
# tvfam-*) count whatever their kernel share, so a win there and by GPU (tv-*) makes the host part learned, and
# no win there leaves it analytical.
host() {  # host DIR FAMILY_LEARNED: torchvision training rows, a GPU-held-out win, family rows at share 0
  mkdir -p "$1"
  $PY - "$1" "$2" <<'EOF2'
import csv, os, sys
out, fam_learned = sys.argv[1], float(sys.argv[2])
cols = ["file", "id", "kind", "gpu_id", "family", "phase_or_mode", "precision", "measured", "analytical", "learned",
        "analytical_error_pct", "learned_error_pct", "learned_share", "model_family"]
def rows(name, learned, fam):
    with open(os.path.join(out, name), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for i in range(40):
            w.writerow(["x.csv", f"r{i}", "network", "gtx-1080ti", fam, "training", "fp16", 1.0, 1.5, learned, 50, 0, 0, fam])
rows("tv-gtx-1080ti.rows.csv", 1.05, "torchvision")
rows("tvfam-resnet.rows.csv", fam_learned, "resnet")
EOF2
  $PY "$ROOT/scripts/eval_learned_policy.py" "$1" "$1/policy.json" >/dev/null || { echo "FAIL: policy script"; fail=1; }
}
hostrule() { rule_of "$1" host desktop pytorch training fp16; }
host "$TMP/host-win" 1.1
out=$(hostrule "$TMP/host-win/policy.json")
case $out in
  learned*"leave-one-architecture-family-out"*"held out by GPU and family"*"held out by family (40 rows): learned 10.0% vs analytical 50.0%"*) ;;
  *) echo "FAIL: a host win held out by GPU and by architecture family should make the host part learned: $out"; fail=1 ;;
esac
host "$TMP/host-lose" 1.5
out=$(hostrule "$TMP/host-lose/policy.json")
case $out in
  analytical*"held out by family (40 rows): learned 50.0% vs analytical 50.0%"*) ;;
  *) echo "FAIL: no host win held out by family should leave the host part analytical: $out"; fail=1 ;;
esac
exit $fail
