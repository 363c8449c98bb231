#!/usr/bin/env bash
# tools/help_additivity.py on a synthetic HELP-style FBNet table of 400 networks: one GPU column priced as the sum of
# a fixed price per (slot, op) must read ~0% from the additive fit, one priced as max(host sum, GPU sum) over the
# blocks (a pipeline) must not; perfpred's rows come from the real binary on the rebuilt networks, and its
# --launch-queue 1 timeline is additive by construction (0.00%). No ../shared needed.
# Usage: bash test_help_additivity.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
# What this checks is the tool's fit; its 800 predicts take the plain predict path on rebuilt FBNet networks, which
# the sanitizer pass (scripts/test.sh --sanitize) runs in test_help_op_costs.sh, and --launch-queue, which it runs
# in test_predict.sh. Under ASan those 800 runs took two minutes and added no code the other two do not reach.
[ "${PERFPRED_SANITIZED:-0}" = 1 ] && { echo "skip: the tool's fit is checked in the regular pass"; exit 77; }
BIN=${1:?perfpred binary}
ROOT=$(cd "${2:?repository root}" && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
$PY -c "import numpy, onnx, torch" 2>/dev/null || { echo "skip: numpy, onnx or torch missing"; exit 77; }
TMP=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
$PY - "$TMP/fbnet.csv" <<'EOF' || { echo "FAIL: could not build the synthetic table"; exit 1; }
import csv, random, sys
rng = random.Random(11)
price = {(s, o): rng.uniform(0.1, 0.9) for s in range(22) for o in range(9)}
gpu = {(s, o): rng.uniform(0.0, 1.5) * (1 if s < 11 else 0.1) for s in range(22) for o in range(9)}
with open(sys.argv[1], "w", newline="") as f:
    w = csv.DictWriter(f, ["idx", "op_idx_list", "titanxp_64", "1080ti_64"])
    w.writeheader()
    for i in range(400):
        ops = [rng.randrange(9) for _ in range(22)]
        host = sum(price[s, o] for s, o in enumerate(ops))
        dev = sum(gpu[s, o] for s, o in enumerate(ops))
        w.writerow({"idx": i, "op_idx_list": " ".join(map(str, ops)), "titanxp_64": f"{2 + host:.6f}",
                    "1080ti_64": f"{2 + max(host, dev + 0.2 * host):.6f}"})
EOF
run() {
  $PY "$ROOT/tools/help_additivity.py" --perfpred "$BIN" --csv "$TMP/fbnet.csv" --networks 400 "$@" \
    >"$TMP/out" 2>"$TMP/err" || { echo "FAIL: help_additivity $* exited $?"; cat "$TMP/err"; exit 1; }
}
run --column titanxp --gpu titan-xp --queues 1
$PY - "$TMP/out" 0.05 <<'EOF' || { cat "$TMP/out"; exit 1; }
import re, sys
text = open(sys.argv[1]).read()
m = float(re.search(r"measured \(titanxp_64\): ([0-9.]+)%", text).group(1))
assert m < float(sys.argv[2]), f"an additive column read {m}%"
q = float(re.search(r"--launch-queue 1: ([0-9.]+)%", text).group(1))
assert q < 0.05, f"perfpred's queue of one read {q}%"
assert re.search(r"median [0-9.]+\)", text), text
EOF
run --column 1080ti --gpu gtx-1080ti --queues 0
$PY - "$TMP/out" <<'EOF' || { cat "$TMP/out"; exit 1; }
import re, sys
text = open(sys.argv[1]).read()
m = float(re.search(r"measured \(1080ti_64\): ([0-9.]+)%", text).group(1))
assert m > 0.5, f"a pipelined (max of sums) column read {m}%: the fit should not call it additive"
assert re.search(r"--launch-queue 0: [0-9.]+%", text), text
EOF
# A table too short for the fit, and a missing binary, are refused by name.
head -100 "$TMP/fbnet.csv" >"$TMP/short.csv"
if $PY "$ROOT/tools/help_additivity.py" --perfpred "$BIN" --csv "$TMP/short.csv" 2>"$TMP/err"; then
  echo "FAIL: a 99-row table was accepted"; exit 1
fi
grep -q "needs at least" "$TMP/err" || { cat "$TMP/err"; echo "FAIL: no reason for the short table"; exit 1; }
if $PY "$ROOT/tools/help_additivity.py" --perfpred "$TMP/none" --csv "$TMP/fbnet.csv" 2>"$TMP/err"; then
  echo "FAIL: a missing binary was accepted"; exit 1
fi
grep -q "no perfpred binary" "$TMP/err" || { cat "$TMP/err"; exit 1; }
echo ok
