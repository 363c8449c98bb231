#!/usr/bin/env bash
# tools/eval_host_factor.py on a synthetic machine whose "measurements" are perfpred's own predictions at
# --host-factor 1.7: the tool must fit about 1.7 on the host-bound rows and the fitted error must beat
# the default one; its mode table must see both modes' host-bound rows measured slower than predicted at F = 1
# by the same factor (inference / training about 1). No ../shared needed.
# Usage: bash test_eval_host_factor.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=$(cd "${2:?repository root}" && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
for m in lenet5 squeezenet1_0 resnet18; do
  [ -f "$ROOT/models/zoo/$m.onnx" ] || { echo "skip: models/zoo/$m.onnx missing"; exit 77; }
done
TMP=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
mkdir -p "$TMP/datasets/synthetic"
$PY - "$BIN" "$ROOT" "$TMP/datasets/synthetic/rows.csv" <<'EOF' || { echo "FAIL: could not build the synthetic set"; exit 1; }
import csv, json, subprocess, sys
binary, root, out = sys.argv[1:4]
cols = ["id", "status", "reason", "source", "synthetic", "gpu_id", "runtime", "runtime_version", "precision", "model",
        "model_family", "recipe", "mode", "batch", "includes_h2d", "latency_ms", "energy_mj", "power_w", "power_source",
        "peak_memory_bytes", "notes"]
with open(out, "w", newline="") as f:
    f.write("#perfpred network-dataset schema_version=1\n")
    w = csv.DictWriter(f, cols)
    w.writeheader()
    n = 0
    for mode in ("inference", "training"):
        for model in ("lenet5", "squeezenet1_0", "resnet18"):
            for batch in ("1", "8", "32"):
                path = f"{root}/models/zoo/{model}.onnx"
                j = json.loads(subprocess.check_output([binary, "-q", "predict", path, "--gpu", "titan-v", "--batch",
                                                        batch, "--mode", mode, "--json", "--no-meta", "--analytical",
                                                        "--host-factor", "1.7"]))
                n += 1
                w.writerow({"id": f"syn-{n}", "status": "ok", "source": "test", "synthetic": "1", "gpu_id": "titan-v",
                            "runtime": "pytorch", "runtime_version": "9.9", "precision": "fp32", "model": path,
                            "model_family": "synthetic", "mode": mode, "batch": batch,
                            "latency_ms": j["latency_ms"]})
EOF
$PY "$ROOT/tools/eval_host_factor.py" --perfpred "$BIN" --datasets "$TMP/datasets" --shots 2 --markdown >"$TMP/out" 2>"$TMP/err" \
  || { echo "FAIL: eval_host_factor exited $?"; cat "$TMP/err"; exit 1; }
$PY - "$TMP/out" <<'EOF' || { cat "$TMP/out"; exit 1; }
import sys
rows = [[x.strip() for x in l.split("|")] for l in open(sys.argv[1]) if l.startswith("| synthetic")]
fit = [c for c in rows if len(c) == 13]
assert len(fit) == 1, rows
c = fit[0]
factor, default_ape, fitted_ape = float(c[5]), float(c[6]), float(c[9])
assert abs(factor - 1.7) < 0.05, factor
assert fitted_ape < 1.0 < default_ape, (default_ape, fitted_ape)
by_mode = [c for c in rows if len(c) == 10]
assert len(by_mode) == 1, rows
m = by_mode[0]
n_inf, inf, n_tr, tr, q = int(m[4]), float(m[5]), int(m[6]), float(m[7]), float(m[8])
assert n_inf >= 2 and n_tr >= 2, m
assert 1.2 < inf <= 1.7 and 1.2 < tr <= 1.7, m  # host-bound rows: measured at F = 1.7, some GPU time unscaled
assert abs(q - 1) < 0.15, m
EOF
echo ok
