#!/usr/bin/env bash
# scripts/eval_learned_doc.py's group table: for each whole-network split (HELP and torchvision, by GPU and by
# family) the worst held-out group under each predictor and the groups over the 25% goal, from the splits' eval
# JSONs; a split that was not run says so. Synthetic JSONs in a temporary OUT; the document is a temporary copy.
# Usage: bash test_eval_learned_doc.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, else fail)
set -u
ROOT=${2:?repository root}
PY=/usr/bin/python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/out"
"$PY" - "$TMP/out" <<'EOF2' || { echo "FAIL: fixture"; exit 1; }
import json, sys
out = sys.argv[1]
def split(name, n, analytical, learned):
    s = {"n": n, "learned": {"mean_ape": learned, "p90_ape": learned * 2, "spearman": 0.9},
         "analytical": {"mean_ape": analytical, "p90_ape": analytical * 2, "spearman": 0.9}}
    json.dump({"overall": s}, open(f"{out}/{name}.json", "w"))
for g, a, l in [("gtx-1080ti", 6.0, 11.0), ("rtx-2080ti", 15.0, 23.0), ("titan-v", 17.0, 13.0), ("titan-xp", 25.8, 23.6)]:
    split(f"tv-{g}", 60, a, l)
for f, a, l in [("resnet", 12.0, 12.0), ("mnasnet", 25.2, 19.9), ("shufflenet", 18.1, 26.8), ("vgg", 30.0, 27.0)]:
    split(f"tvfam-{f}", 48, a, l)
split("help-gpu-gtx-1080ti", 2700, 10.7, 8.2)
EOF2
printf '# Accuracy\n\n' >"$TMP/doc.md"
"$PY" "$ROOT/scripts/eval_learned_doc.py" "$TMP/out" "$TMP/doc.md" >"$TMP/log" 2>&1 || { echo "FAIL: doc writer"; cat "$TMP/log"; exit 1; }
fail=0
want() {  # want LINE: the document holds this exact line
  grep -qxF "$1" "$TMP/doc.md" || { echo "FAIL: no line: $1"; fail=1; }
}
want "| torchvision, by GPU | 4 | Titan Xp 25.8% (60 rows) | Titan Xp 23.6% (60 rows) | Titan Xp 25.8% | none | none |"
want "| torchvision, by family | 4 | VGG 30.0% (48 rows) | VGG 27.0% (48 rows) | VGG 30.0%, MNASNet 25.2% | VGG 27.0%, ShuffleNet 26.8% | VGG 27.0% |"
want "| HELP, by GPU | 1 | GTX 1080 Ti 10.7% (2700 rows) | GTX 1080 Ti 8.2% (2700 rows) | none | none | none |"
want "| HELP, by family | 0 | not run | - | - | - | - |"
exit $fail
