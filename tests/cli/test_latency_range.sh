#!/usr/bin/env bash
# predict's latency range (models/latency-intervals.json, tools/fit_intervals.py): the JSON and text carry it
# with its regime (a host-calibrated one with --host-factor where the prediction is host-bound); a model
# directory without the table gives a note, a malformed table exit 2 naming the file and the field;
# tools/fit_intervals.py fits a table on a synthetic eval dump whose machines it scores left out, with a
# host_calibrated section from a synthetic --calibrated-rows dump and a gpu_calibrated one from a
# --gpu-calibrated-rows dump (predict --gpu-factor takes it where GPU-bound), and refuses a dump without runtimes.
# No ../shared needed.
# Usage: bash test_latency_range.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=$(cd "${2:?repository root}" && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
MODEL="$ROOT/models/zoo/resnet50.onnx"
[ -f "$MODEL" ] || { echo "skip: no $MODEL"; exit 77; }
TMP=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. The shipped table: batch 1 ResNet-50 under PyTorch eager is host-bound; TensorRT is a graph engine.
"$BIN" -q predict "$MODEL" --gpu a100-pcie-40gb --json --no-meta >"$TMP/eager.json" || fail "predict exited $?"
"$BIN" -q predict "$MODEL" --gpu a100-pcie-40gb --runtime tensorrt --json --no-meta >"$TMP/trt.json" ||
  fail "predict --runtime tensorrt exited $?"
$PY - "$TMP/eager.json" "$TMP/trt.json" <<'PYEOF' || exit 1
import json, sys
for path, prefix in ((sys.argv[1], "eager/host-bound"), (sys.argv[2], "graph")):
    d = json.load(open(path))
    r = d.get("latency_range_ms")
    assert r, f"{path}: no latency_range_ms"
    assert r["regime"].startswith(prefix), r
    assert 0 < r["low"] < d["latency_ms"] < r["high"], (r, d["latency_ms"])
    assert r["nominal_coverage"] == 0.8 and 0.5 < r["held_out_coverage"] <= 1 and r["held_out_rows"] > 0, r
    for key, value in (("energy_range_mj", "energy_mj"), ("power_range_w", "avg_power_w")):
        e = d[key]  # one pooled range each, on few machines, which it says
        assert e["regime"] == "all" and e["held_out_machines"] >= 3, e
        assert 0 < e["low"] < d[value] < e["high"], (e, d[value])
PYEOF
"$BIN" -q predict "$MODEL" --gpu a100-pcie-40gb --host-factor 0.7 --json --no-meta >"$TMP/hf.json" ||
  fail "predict --host-factor exited $?"
"$BIN" -q predict "$MODEL" --gpu a100-pcie-40gb --batch 256 --host-factor 0.7 --json --no-meta >"$TMP/hf256.json" ||
  fail "predict --batch 256 --host-factor exited $?"
$PY - "$TMP/eager.json" "$TMP/hf.json" "$TMP/hf256.json" "$ROOT/models/latency-intervals.json" <<'PYEOF' || exit 1
import json, sys
f1, hf, big, table = (json.load(open(p)) for p in sys.argv[1:])
r = hf["latency_range_ms"]
assert r["regime"].startswith("host-calibrated/eager/host-bound"), r  # a timed host: its own ranges
assert 0 < r["low"] < hf["latency_ms"] < r["high"], (r, hf["latency_ms"])
# each prediction takes its regime's measured / predicted bounds from the shipped table: the timed host those its
# held-out machines kept at their fitted factors, F = 1 the default ones
for d, section in ((hf, table["host_calibrated"]["regimes"]), (f1, table["regimes"])):
    got = d["latency_range_ms"]
    want = section[got["regime"].replace("host-calibrated/", "")]
    assert abs(got["low"] / d["latency_ms"] - want["low"]) < 1e-3 and abs(got["high"] / d["latency_ms"] - want["high"]) < 1e-3, (got, want)
assert (r["low"] / hf["latency_ms"], r["high"] / hf["latency_ms"]) != \
    (f1["latency_range_ms"]["low"] / f1["latency_ms"], f1["latency_range_ms"]["high"] / f1["latency_ms"])
assert big["latency_range_ms"]["regime"].startswith("eager/gpu-bound"), big["latency_range_ms"]  # GPU-bound: as at F = 1
PYEOF
"$BIN" -q predict "$MODEL" --gpu a100-pcie-40gb >"$TMP/text" || fail "predict (text) exited $?"
grep -q "^range .* ms: .* of held-out measurements on machines left out" "$TMP/text" || { cat "$TMP/text"; fail "no range line"; }
grep -q "^ *energy .* mJ, power .* W: .* of held-out measurements on [0-9]* machines left out" "$TMP/text" ||
  { cat "$TMP/text"; fail "no energy and power range line"; }

# 2. No table in the model directory: a note, no range.
mkdir -p "$TMP/no-table"
PERFPRED_MODEL_DIR="$TMP/no-table" "$BIN" -q predict "$MODEL" --gpu a100-pcie-40gb --json --no-meta >"$TMP/n.json" ||
  fail "predict without a table exited $?"
$PY - "$TMP/n.json" <<'PYEOF' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
assert "latency_range_ms" not in d, d
assert any(n.startswith("no latency range:") and "latency-intervals.json is missing" in n for n in d["notes"]), d["notes"]
PYEOF

# 3. A malformed table: exit 2, the file and the field named.
mkdir -p "$TMP/bad"
sed 's/"low": 0\.[0-9]*/"low": -1/' "$ROOT/models/latency-intervals.json" >"$TMP/bad/latency-intervals.json"
PERFPRED_MODEL_DIR="$TMP/bad" "$BIN" -q predict "$MODEL" --gpu a100-pcie-40gb --json >"$TMP/b.out" 2>"$TMP/b.err"
rc=$?
[ $rc -eq 2 ] || fail "a malformed table exited $rc, want 2"
grep -q "latency-intervals.json.regimes.*low -1" "$TMP/b.err" || { cat "$TMP/b.err"; fail "unclear error"; }

# 4. tools/fit_intervals.py on a synthetic dump: three machines, host-bound rows spread 0.7-1.4x, GPU-bound
# rows 0.9-1.1x; the leave-one-machine-out coverage must reach the nominal one and the table hold both regimes.
$PY - "$TMP/rows.json" <<'PYEOF'
import json, sys
rows = []
for m, gpu in enumerate(("gpu-a", "gpu-b", "gpu-c")):
    for i in range(40):
        spread = 0.7 + 0.7 * ((i * 7 + m * 3) % 40) / 39  # host-bound: 0.7-1.4 measured / predicted
        rows.append({"id": f"h{m}-{i}", "set": "synthetic", "gpu": gpu, "mode": "inference", "split": "held-out",
                     "runtime": "pytorch", "cuda_graphs": False, "latency_ms": 10 * spread, "pred_latency_ms": 10,
                     "pred_host_overhead_ms": 8, "energy_mj": 100 * (0.8 + 0.4 * ((i * 3 + m) % 40) / 39),
                     "pred_energy_mj": 100})
        spread = 0.9 + 0.2 * ((i * 11 + m) % 40) / 39
        rows.append({"id": f"g{m}-{i}", "set": "synthetic", "gpu": gpu, "mode": "inference", "split": "held-out",
                     "runtime": "pytorch", "cuda_graphs": False, "latency_ms": 10 * spread, "pred_latency_ms": 10,
                     "pred_host_overhead_ms": 0.05})
    rows.append({"id": f"c{m}", "set": "synthetic", "gpu": gpu, "mode": "inference", "split": "calibration",
                 "runtime": "pytorch", "latency_ms": 100, "pred_latency_ms": 1, "pred_host_overhead_ms": 0})
json.dump(rows, open(sys.argv[1], "w"))
PYEOF
$PY "$ROOT/tools/fit_intervals.py" --rows "$TMP/rows.json" --datasets "$TMP/none" --measured "" \
  --out "$TMP/table.json" --markdown >"$TMP/fit.md" 2>"$TMP/fit.err" || { cat "$TMP/fit.err"; fail "fit_intervals exited $?"; }
$PY - "$TMP/table.json" <<'PYEOF' || exit 1
import json, sys
t = json.load(open(sys.argv[1]))
assert t["held_out_coverage"] >= t["nominal_coverage"] == 0.8, t
r = t["regimes"]
host, gpu = r["eager/host-bound/inference"], r["eager/gpu-bound/inference"]
assert host["rows"] == gpu["rows"] == 120, r  # the calibration rows stay out
assert 0.69 <= host["low"] < 0.9 and 1.2 < host["high"] <= 1.41, host
assert 0.89 <= gpu["low"] < 1 < gpu["high"] <= 1.11, gpu
assert "graph" not in r, r
e = t["energy_mj"]  # the energy rows: one pooled range over the three machines; no power rows, no power section
assert e["machines"] == 3 and e["held_out_coverage"] >= 0.8, e
assert list(e["regimes"]) == ["all"] and 0.79 <= e["regimes"]["all"]["low"] < 0.9 < 1.1 < e["regimes"]["all"]["high"] <= 1.21, e
assert "power_w" not in t, t
PYEOF
grep -q "| all | 240 |" "$TMP/fit.md" || { cat "$TMP/fit.md"; fail "no pooled coverage row"; }
# 5. --calibrated-rows: host-bound rows at their machines' fitted factors (0.85-1.15x) make the table's
# host_calibrated section (host-bound regimes only; GPU-bound rows of the dump do not enter); predict with a
# host factor takes it from a model directory holding that table.
$PY - "$TMP/cal.json" <<'PYEOF'
import json, sys
rows = []
for m in range(3):
    for i in range(40):
        spread = 0.85 + 0.3 * ((i * 7 + m * 5) % 40) / 39
        rows.append({"id": f"k{m}-{i}", "set": "synthetic", "gpu": f"gpu-{m}", "machine": f"synthetic / gpu-{m} / 1.0",
                     "mode": "inference", "split": "held-out", "runtime": "pytorch", "cuda_graphs": False,
                     "host_factor": 0.7, "latency_ms": 10 * spread, "pred_latency_ms": 10, "pred_host_overhead_ms": 8})
        rows.append({"id": f"q{m}-{i}", "set": "synthetic", "gpu": f"gpu-{m}", "machine": f"synthetic / gpu-{m} / 1.0",
                     "mode": "inference", "split": "held-out", "runtime": "pytorch", "cuda_graphs": False,
                     "host_factor": 0.7, "latency_ms": 30, "pred_latency_ms": 10, "pred_host_overhead_ms": 0})
json.dump(rows, open(sys.argv[1], "w"))
PYEOF
mkdir -p "$TMP/cal"
$PY "$ROOT/tools/fit_intervals.py" --rows "$TMP/rows.json" --datasets "$TMP/none" --measured "" \
  --calibrated-rows "$TMP/cal.json" --out "$TMP/cal/latency-intervals.json" --markdown >"$TMP/cal.md" 2>"$TMP/cal.err" ||
  { cat "$TMP/cal.err"; fail "fit_intervals --calibrated-rows exited $?"; }
$PY - "$TMP/cal/latency-intervals.json" <<'PYEOF' || exit 1
import json, sys
t = json.load(open(sys.argv[1]))
c = t["host_calibrated"]
assert c["held_out_coverage"] >= 0.8, c
assert set(c["regimes"]) == {"eager/host-bound", "eager/host-bound/inference"}, c["regimes"]  # no GPU-bound rows
h = c["regimes"]["eager/host-bound/inference"]
assert h["rows"] == 120 and 0.84 <= h["low"] < 0.95 and 1.05 < h["high"] <= 1.16, h
PYEOF
grep -q "^With \`--host-factor\`" "$TMP/cal.md" || { cat "$TMP/cal.md"; fail "no host-calibrated table"; }
PERFPRED_MODEL_DIR="$TMP/cal" "$BIN" -q predict "$MODEL" --gpu a100-pcie-40gb --host-factor 0.7 --json --no-meta \
  >"$TMP/c.json" || fail "predict with the synthetic table exited $?"
$PY - "$TMP/c.json" <<'PYEOF' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
r = d["latency_range_ms"]
assert r["regime"] == "host-calibrated/eager/host-bound/inference", r
assert abs(r["low"] / d["latency_ms"] - 0.85) < 0.1 and abs(r["high"] / d["latency_ms"] - 1.15) < 0.1, (r, d["latency_ms"])
PYEOF
if $PY "$ROOT/tools/fit_intervals.py" --rows "$TMP/rows.json" --datasets "$TMP/none" --measured "" \
  --calibrated-rows "$TMP/missing.json" --out "$TMP/t3.json" 2>"$TMP/miss.err"; then
  fail "a missing --calibrated-rows file was accepted"
fi
grep -q "run tools/eval_host_factor.py --dump first" "$TMP/miss.err" || { cat "$TMP/miss.err"; fail "unclear error"; }

# 5b. --gpu-calibrated-rows: GPU-bound rows at their machines' fitted factors (0.9-1.1x) make the table's
# gpu_calibrated section (GPU-bound regimes only; the dump's host-bound rows do not enter); predict with a GPU
# factor, GPU-bound at batch 64, takes it; a missing dump is an error naming the tool that writes it.
$PY - "$TMP/gpu.json" <<'PYEOF'
import json, sys
rows = []
for m in range(3):
    for i in range(40):
        spread = 0.9 + 0.2 * ((i * 7 + m * 5) % 40) / 39
        common = {"set": "synthetic", "gpu": f"gpu-{m}", "machine": f"synthetic / gpu-{m} / 1.0", "mode": "inference",
                  "split": "held-out", "runtime": "pytorch", "cuda_graphs": False, "host_factor": 1.2, "gpu_factor": 1.3}
        rows.append(dict(common, id=f"g{m}-{i}", latency_ms=10 * spread, pred_latency_ms=10, pred_host_overhead_ms=0.1))
        rows.append(dict(common, id=f"h{m}-{i}", latency_ms=30, pred_latency_ms=10, pred_host_overhead_ms=8))
json.dump(rows, open(sys.argv[1], "w"))
PYEOF
mkdir -p "$TMP/gcal"
$PY "$ROOT/tools/fit_intervals.py" --rows "$TMP/rows.json" --datasets "$TMP/none" --measured "" \
  --gpu-calibrated-rows "$TMP/gpu.json" --out "$TMP/gcal/latency-intervals.json" --markdown >"$TMP/gcal.md" 2>"$TMP/gcal.err" ||
  { cat "$TMP/gcal.err"; fail "fit_intervals --gpu-calibrated-rows exited $?"; }
$PY - "$TMP/gcal/latency-intervals.json" <<'PYEOF' || exit 1
import json, sys
t = json.load(open(sys.argv[1]))
assert "host_calibrated" not in t, t.keys()
c = t["gpu_calibrated"]
assert c["held_out_coverage"] >= 0.8, c
assert set(c["regimes"]) == {"eager/gpu-bound", "eager/gpu-bound/inference"}, c["regimes"]  # no host-bound rows
g = c["regimes"]["eager/gpu-bound/inference"]
assert g["rows"] == 120 and 0.89 <= g["low"] < 0.97 and 1.03 < g["high"] <= 1.11, g
PYEOF
grep -q "^With \`--gpu-factor\`" "$TMP/gcal.md" || { cat "$TMP/gcal.md"; fail "no GPU-calibrated table"; }
PERFPRED_MODEL_DIR="$TMP/gcal" "$BIN" -q predict "$MODEL" --gpu a100-pcie-40gb --batch 64 --gpu-factor 1.3 --json \
  --no-meta >"$TMP/g.json" || fail "predict with the synthetic GPU table exited $?"
$PY - "$TMP/g.json" <<'PYEOF' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
r = d["latency_range_ms"]
assert r["regime"] == "gpu-calibrated/eager/gpu-bound/inference", r
assert abs(r["low"] / d["latency_ms"] - 0.9) < 0.08 and abs(r["high"] / d["latency_ms"] - 1.1) < 0.08, (r, d["latency_ms"])
PYEOF
if $PY "$ROOT/tools/fit_intervals.py" --rows "$TMP/rows.json" --datasets "$TMP/none" --measured "" \
  --gpu-calibrated-rows "$TMP/missing.json" --out "$TMP/t4.json" 2>"$TMP/gmiss.err"; then
  fail "a missing --gpu-calibrated-rows file was accepted"
fi
grep -q "run tools/eval_two_factor.py --dump first" "$TMP/gmiss.err" || { cat "$TMP/gmiss.err"; fail "unclear error"; }


$PY - "$TMP/rows.json" "$TMP/old.json" <<'PYEOF'
import json, sys
rows = json.load(open(sys.argv[1]))
for r in rows:
    r.pop("runtime", None)
json.dump(rows, open(sys.argv[2], "w"))
PYEOF
if $PY "$ROOT/tools/fit_intervals.py" --rows "$TMP/old.json" --datasets "$TMP/none" --measured "" --out "$TMP/t2.json" \
  2>"$TMP/old.err"; then
  fail "a dump without runtimes was accepted"
fi
grep -q "no runtime per row; rerun scripts/eval_analytical.sh" "$TMP/old.err" || { cat "$TMP/old.err"; fail "unclear error"; }
echo ok
