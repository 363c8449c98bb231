#!/usr/bin/env bash
# tools/component_fit.py on a synthetic network set: nine zoo networks on an A100 at batch 128, each "measured" at
# perfpred's own prediction with its norm layers taken twice as long. Without the ridge the fit must give norm 2
# and every other fitted kind 1 (mean APE after the fit ~0); with the default ridge the norm multiplier must stay
# between 1 and 2. Host-bound rows are left out by --max-host-share, bad options are refused by name. No ../shared.
# Usage: bash test_component_fit.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=$(cd "${2:?repository root}" && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
$PY -c "import numpy" 2>/dev/null || { echo "skip: numpy missing"; exit 77; }
TMP=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
mkdir -p "$TMP/datasets/synth" "$TMP/measured"
$PY - "$BIN" "$ROOT" "$TMP/datasets/synth/nets.csv" <<'EOF' || { echo "FAIL: could not build the synthetic set"; exit 1; }
import csv, json, os, subprocess, sys
sys.path.insert(0, os.path.join(sys.argv[2], "tools"))
import component_fit as cf
binary, root, out = sys.argv[1:4]
header = ["id", "status", "reason", "source", "synthetic", "gpu_id", "runtime", "runtime_version", "precision",
          "model", "model_family", "recipe", "mode", "batch", "includes_h2d", "latency_ms", "notes"]
nets = ["resnet18", "resnet50", "vgg16", "mobilenet_v2", "densenet121", "squeezenet1_0", "alexnet", "googlenet",
        "efficientnet_b0"]
with open(out, "w", newline="") as f:
    f.write("#perfpred network-dataset schema_version=1\n")
    w = csv.DictWriter(f, header)
    w.writeheader()
    for i, net in enumerate(nets):
        model = os.path.join(root, "models", "zoo", net + ".onnx")
        p = subprocess.run([binary, "-q", "predict", model, "--gpu", "a100-sxm4-40gb", "--batch", "128", "--json",
                            "--no-meta", "--layers", "--analytical", "--no-copies"], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        fixed, kinds = cf.components(json.loads(p.stdout))
        latency = fixed + sum(v * (2.0 if k == "norm" else 1.0) for k, v in kinds.items())
        w.writerow({"id": f"s-{i}", "status": "ok", "source": "synthetic", "synthetic": "1",
                    "gpu_id": "a100-sxm4-40gb", "runtime": "pytorch", "precision": "fp32",
                    "model": os.path.relpath(model, os.path.dirname(out)), "model_family": "zoo", "recipe": net,
                    "mode": "inference", "batch": "128", "includes_h2d": "0", "latency_ms": f"{latency:.6f}"})
EOF
run() {
  $PY "$ROOT/tools/component_fit.py" --perfpred "$BIN" --datasets "$TMP/datasets" --measured "$TMP/measured" "$@" \
    >"$TMP/out" 2>"$TMP/err" || { echo "FAIL: component_fit $* exited $?"; cat "$TMP/err"; exit 1; }
}
check() {  # check NORM_LOW NORM_HIGH MAX_AFTER OTHER_TOLERANCE
  $PY - "$TMP/out" "$@" <<'EOF' || { cat "$TMP/out"; exit 1; }
import sys
text = open(sys.argv[1]).read()
lo, hi, max_after, tol = map(float, sys.argv[2:6])
head = [l for l in text.splitlines() if l.startswith("| gpu")][0]
cols = [c.strip() for c in head.strip("|").split("|")]
row = [l for l in text.splitlines() if l.startswith("| a100-sxm4-40gb")]
assert len(row) == 1, f"expected one a100 group: {row}"
cells = dict(zip(cols, [c.strip() for c in row[0].strip("|").split("|")]))
assert cells["rows"] == "9", cells
norm = float(cells["norm"].split()[0])
assert lo <= norm <= hi, f"norm multiplier {norm} not in [{lo}, {hi}]"
after = float(cells["after"].rstrip("%"))
assert after <= max_after, f"mean APE after the fit {after}%"
for k in ("conv", "dwconv", "matmul", "pool", "elementwise"):
    if cells[k] != "-":
        m = float(cells[k].split()[0])
        assert abs(m - 1) <= tol, f"{k} multiplier {m}"
EOF
}
run --by gpu,precision,mode --ridge 0
check 1.97 2.03 0.5 0.05
run --by gpu,precision,mode
check 1.2 2.0 10 0.3
# --merge fits pool and elementwise as one kind, in the pool column.
run --by gpu,precision,mode --ridge 0 --merge pool+elementwise
check 1.97 2.03 0.5 0.05
grep -q "| - |$" "$TMP/out" || { cat "$TMP/out"; echo "FAIL: the merged elementwise column is not '-'"; exit 1; }
# A host-bound cut keeps no row: nothing to fit, and the left-out rows are counted.
run --max-host-share 0.000001
grep -q "9 host-bound rows left out" "$TMP/out" || { cat "$TMP/out"; echo "FAIL: host-bound rows not counted"; exit 1; }
if grep -q "^| a100" "$TMP/out"; then cat "$TMP/out"; echo "FAIL: a group fitted from host-bound rows"; exit 1; fi
# Bad options and a missing binary are refused by name.
for bad in "--by gpu,colour" "--max-host-share 0" "--ridge -1" "--merge pool" "--merge pool+colour" \
    "--merge pool+norm,norm+conv"; do
  # shellcheck disable=SC2086
  if $PY "$ROOT/tools/component_fit.py" --perfpred "$BIN" --datasets "$TMP/datasets" $bad 2>"$TMP/err" >/dev/null; then
    echo "FAIL: $bad was accepted"; exit 1
  fi
  grep -q "component_fit: --" "$TMP/err" || { cat "$TMP/err"; echo "FAIL: no reason for $bad"; exit 1; }
done
if $PY "$ROOT/tools/component_fit.py" --perfpred "$TMP/none" --datasets "$TMP/datasets" 2>"$TMP/err" >/dev/null; then
  echo "FAIL: a missing binary was accepted"; exit 1
fi
grep -q "not an executable perfpred" "$TMP/err" || { cat "$TMP/err"; exit 1; }
echo "ok: component_fit recovers a doubled norm (ridge 0), shrinks it toward 1 by default, refuses bad options"
