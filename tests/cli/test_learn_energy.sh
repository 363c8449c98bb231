#!/usr/bin/env bash
# The learned energy correction on Zeus' training rows (../shared/datasets/zeus-gpu-power-traces, every power
# limit), leave one GPU out: the Quadro RTX 6000 (a sidecar-spec GPU whose bandwidth, clock and threads per SM
# lie outside the other three GPUs') held out must be predicted no worse than by the analytical model, and
# no fold may be more than twice the analytical error. Before the correction learned from GPU-agnostic
# features, the Quadro fold took the A40's low-power-limit correction: 162% mean APE against the analytical
# 12.9%; the factor of two guards against that blow-up and claims no gain.
# The four folds pooled beat the analytical model while its power-limit clock was the cube root of the
# limit over FP32 work's draw; since the clock follows the workload's own draw above a floor
# (perfpred/hw/sustained_clock.hpp) the pooled correction loses (21.6% against 19.2%: what is left is each
# GPU's own level, the V100 too slow and the A40 too fast at every limit), and `predict` keeps the
# analytical energy (docs/accuracy.md, "What `predict` uses by default").
# Usage: bash test_learn_energy.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=$(cd "${2:?repository root}" && pwd)
SHARED=${PERFPRED_SHARED:-$ROOT/../shared}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
[ -d "$SHARED/datasets/zeus-gpu-power-traces" ] || { echo "skip: no $SHARED/datasets/zeus-gpu-power-traces"; exit 77; }
"$PY" -c "import numpy" 2>/dev/null || { echo "skip: the converter needs numpy"; exit 77; }
TMP=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
"$PY" "$ROOT/tools/convert_datasets.py" zeus-gpu-power-traces --shared "$SHARED/datasets" --out "$TMP" >"$TMP/convert.log" 2>&1 \
  || { echo "FAIL: convert_datasets zeus-gpu-power-traces"; cat "$TMP/convert.log"; exit 1; }
D="$TMP/datasets/zeus-gpu-power-traces/zeus_power.csv"
for g in v100-pcie-32gb p100-pcie-16gb a40 spec:quadro-rtx-6000; do
  n=${g#spec:}
  "$BIN" -q train --target energy --data "$D" --holdout-gpu "$g" --out "$TMP/energy-$n.json" --rounds 200 --max-depth 4 \
    --threads 1 --json >"$TMP/train-$n.json" 2>"$TMP/train-$n.err" || { echo "FAIL: train without $g"; cat "$TMP/train-$n.err"; exit 1; }
  "$BIN" -q eval --model "$TMP/energy-$n.json" --data "$D" --holdout-gpu "$g" --json >"$TMP/eval-$n.json" 2>"$TMP/eval-$n.err" \
    || { echo "FAIL: eval without $g"; cat "$TMP/eval-$n.err"; exit 1; }
done
"$PY" - "$TMP" <<'PY'
import json, sys
t = sys.argv[1]
folds = {n: json.load(open(f"{t}/eval-{n}.json"))["overall"] for n in ("v100-pcie-32gb", "p100-pcie-16gb", "a40", "quadro-rtx-6000")}
for n, o in folds.items():
    print(f"{n}: learned {o['learned']['mean_ape']:.1f}% analytical {o['analytical']['mean_ape']:.1f}% ({o['n']} rows)")
q = folds["quadro-rtx-6000"]
assert q["n"] > 0, "no Quadro rows evaluated"
assert q["learned"]["mean_ape"] <= q["analytical"]["mean_ape"] + 0.5, "Quadro fold: learned worse than analytical"
for n, o in folds.items():
    assert o["learned"]["mean_ape"] <= 2 * o["analytical"]["mean_ape"], (n, o["learned"], o["analytical"])
b = json.load(open(f"{t}/energy-quadro-rtx-6000.json"))
assert b["network_target"] == "energy_ratio", b.get("network_target")
PY
[ $? -eq 0 ] || { echo "FAIL: held-out energy"; exit 1; }
echo ok
