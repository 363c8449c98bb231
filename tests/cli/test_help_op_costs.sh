#!/usr/bin/env bash
# tools/help_op_costs.py on a synthetic HELP-style set whose "measurements" are a known price list:
# NAS-Bench-201 150 us per ReLU-Conv-BN edge, 50 per pool, 20 per skip, 40 per `none`, 1 ms fixed (so 130, 30
# and 20 over a skip edge, 2.8 ms for the all-skip network); FBNet 400 us per block, 80 more for g2, 300 more
# for expansion 6, 2 ms fixed. The fit must give those prices back, and the perfpred rows must come from the
# real binary. --by-stage on a second FBNet set priced 100 us x (stage + 1) per block, 200 more for expansion 6:
# the per-stage prices come back. No ../shared needed.
# Usage: bash test_help_op_costs.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=$(cd "${2:?repository root}" && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
$PY -c "import numpy" 2>/dev/null || { echo "skip: numpy missing"; exit 77; }
[ -f "$ROOT/models/zoo/lenet5.onnx" ] || { echo "skip: models/zoo/lenet5.onnx missing"; exit 77; }
TMP=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
mkdir -p "$TMP/datasets/help-nas-latency"
cp "$ROOT/models/zoo/lenet5.onnx" "$TMP/datasets/help-nas-latency/net.onnx"
$PY - "$TMP/datasets/help-nas-latency" <<'EOF' || { echo "FAIL: could not build the synthetic set"; exit 1; }
import csv, random, sys
out = sys.argv[1]
cols = ["id", "status", "reason", "source", "synthetic", "gpu_id", "runtime", "runtime_version", "precision", "model",
        "model_family", "recipe", "mode", "batch", "includes_h2d", "latency_ms", "energy_mj", "power_w", "power_source",
        "power_limit_w", "peak_memory_bytes", "notes"]
rng = random.Random(7)
edges = ["nor_conv_3x3", "nor_conv_1x1", "avg_pool_3x3", "skip_connect", "none"]
price = {"nor_conv_3x3": 150, "nor_conv_1x1": 150, "avg_pool_3x3": 50, "skip_connect": 20, "none": 40}
fb_ops = ["k3_e1", "k3_e1_g2", "k3_e3", "k3_e6", "k5_e1", "k5_e1_g2", "k5_e3", "k5_e6", "skip"]

def write(name, rows):
    with open(f"{out}/{name}.csv", "w", newline="") as f:
        f.write("#perfpred network-dataset schema_version=1\n")
        w = csv.DictWriter(f, cols)
        w.writeheader()
        for r in rows:
            w.writerow(r)

def row(i, family, recipe, ms):
    return {"id": f"{family}-{i}", "status": "ok", "source": "test", "synthetic": "1", "gpu_id": "gtx-1080ti",
            "runtime": "pytorch", "runtime_version": "1.8.1", "precision": "fp32", "model": "net.onnx",
            "model_family": family, "recipe": recipe, "mode": "inference", "batch": "1", "latency_ms": f"{ms:.6f}"}

nb = []
for i in range(60):
    e = [rng.choice(edges) for _ in range(6)]
    recipe = f"|{e[0]}~0|+|{e[1]}~0|{e[2]}~1|+|{e[3]}~0|{e[4]}~1|{e[5]}~2|"
    nb.append(row(i, "nasbench201", recipe, 1.0 + 15 * sum(price[x] for x in e) / 1000))
write("nasbench201", nb)
fb = []
for i in range(80):
    idx = [rng.randrange(9) for _ in range(22)]
    ops = [fb_ops[j] for j in idx]
    us = sum(400 + (80 if "g2" in o else 0) + (300 if "_e6" in o else 0) for o in ops if o != "skip")
    fb.append(row(i, "fbnet", " ".join(map(str, idx)), 2.0 + us / 1000))
write("fbnet", fb)
EOF
$PY "$ROOT/tools/help_op_costs.py" --perfpred "$BIN" --datasets "$TMP/datasets" --models 10 --batches 1 >"$TMP/out" 2>"$TMP/err" \
  || { echo "FAIL: help_op_costs exited $?"; cat "$TMP/err"; exit 1; }
$PY - "$TMP/out" <<'EOF' || { cat "$TMP/out"; exit 1; }
import sys
rows = [[c.strip() for c in l.strip().strip("|").split("|")] for l in open(sys.argv[1]) if l.startswith("| gtx-1080ti")]
measured = [r for r in rows if r[2] == "measured"]
assert len(measured) == 2, rows
nb, fb = measured
assert [float(v) for v in nb[3:7]] == [130, 130, 30, 20] and abs(float(nb[7]) - 2.8) < 0.01, nb
assert [float(v) for v in fb[3:8]] == [80, 0, 0, 300, 400] and abs(float(fb[8]) - 2.0) < 0.01, fb
predicted = [r for r in rows if r[2] == "perfpred"]
assert len(predicted) == 2 and all(float(r[-1]) > 0 for r in predicted), predicted  # lenet5 priced by the binary
EOF
# --by-stage: a block's price per stage and expansion.
$PY - "$TMP/datasets/help-nas-latency" <<'EOF' || { echo "FAIL: could not build the staged set"; exit 1; }
import csv, random, sys
path = sys.argv[1] + "/fbnet.csv"
with open(path, newline="") as f:
    head = f.readline()
    rows = list(csv.DictReader(f))
stages = [0] + [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4 + [5] * 4 + [6]
fb_ops = ["k3_e1", "k3_e1_g2", "k3_e3", "k3_e6", "k5_e1", "k5_e1_g2", "k5_e3", "k5_e6", "skip"]
rng = random.Random(11)
for r in rows:
    idx = [rng.randrange(9) for _ in range(22)]
    us = sum(100 * (stages[s] + 1) + (200 if "_e6" in fb_ops[j] else 0) for s, j in enumerate(idx) if fb_ops[j] != "skip")
    r["recipe"], r["latency_ms"] = " ".join(map(str, idx)), f"{2.0 + us / 1000:.6f}"
with open(path, "w", newline="") as f:
    f.write(head)
    w = csv.DictWriter(f, list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)
EOF
$PY "$ROOT/tools/help_op_costs.py" --perfpred "$BIN" --datasets "$TMP/datasets" --models 10 --batches 1 --by-stage \
  >"$TMP/stage" 2>"$TMP/err3" || { echo "FAIL: --by-stage exited $?"; cat "$TMP/err3"; exit 1; }
grep -q "^| gtx-1080ti | 1 | 0 (32) | 100 / [-0-9]* / [-0-9]* | 100 / [-0-9]* / [-0-9]* | 300 / " "$TMP/stage" \
  && grep -q "^| gtx-1080ti | 1 | 5 (4) | 600 / [-0-9]* / [-0-9]* | 600 / [-0-9]* / [-0-9]* | 800 / " "$TMP/stage" \
  || { echo "FAIL: per-stage prices"; cat "$TMP/stage"; exit 1; }
# A data directory without HELP's set is an error naming it, not a traceback.
if $PY "$ROOT/tools/help_op_costs.py" --perfpred "$BIN" --datasets "$TMP/none" >"$TMP/out2" 2>"$TMP/err2"; then
  echo "FAIL: a missing data set was accepted"; exit 1
fi
grep -q "help-nas-latency missing" "$TMP/err2" || { echo "FAIL: unclear error"; cat "$TMP/err2"; exit 1; }
echo ok
