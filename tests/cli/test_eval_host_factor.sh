#!/usr/bin/env bash
# tools/eval_host_factor.py on a synthetic machine whose "measurements" are perfpred's own predictions at
# --host-factor 1.7: the tool must fit about 1.7 on the host-bound rows and the fitted error must beat
# the default one. No ../shared needed.
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
    for model in ("lenet5", "squeezenet1_0", "resnet18"):
        for batch in ("1", "8", "32"):
            path = f"{root}/models/zoo/{model}.onnx"
            j = json.loads(subprocess.check_output([binary, "-q", "predict", path, "--gpu", "titan-v", "--batch", batch,
                                                    "--json", "--no-meta", "--analytical", "--host-factor", "1.7"]))
            n += 1
            w.writerow({"id": f"syn-{n}", "status": "ok", "source": "test", "synthetic": "1", "gpu_id": "titan-v",
                        "runtime": "pytorch", "runtime_version": "9.9", "precision": "fp32", "model": path,
                        "model_family": "synthetic", "mode": "inference", "batch": batch,
                        "latency_ms": j["latency_ms"]})
EOF
$PY "$ROOT/tools/eval_host_factor.py" --perfpred "$BIN" --datasets "$TMP/datasets" --shots 2 --markdown >"$TMP/out" 2>"$TMP/err" \
  || { echo "FAIL: eval_host_factor exited $?"; cat "$TMP/err"; exit 1; }
$PY - "$TMP/out" <<'EOF' || { cat "$TMP/out"; exit 1; }
import sys
rows = [l.split("|") for l in open(sys.argv[1]) if l.startswith("| synthetic")]
assert len(rows) == 1, rows
c = [x.strip() for x in rows[0]]
factor, default_ape, fitted_ape = float(c[5]), float(c[6]), float(c[9])
assert abs(factor - 1.7) < 0.05, factor
assert fitted_ape < 1.0 < default_ape, (default_ape, fitted_ape)
EOF
echo ok
