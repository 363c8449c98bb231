#!/usr/bin/env bash
# End-to-end test of the learned model: generate a small kernel data set from a known function,
# train -> eval -> predict --model (model_bundle in JSON), licence refusal, bundle mismatch errors.
# Usage: bash test_learn.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=${2:?repository root}
MODEL="$ROOT/models/zoo/resnet18.onnx"
[ -f "$MODEL" ] || { echo "skip: $MODEL missing (run tools/export_zoo.py)"; exit 77; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export PERFPRED_MODEL_DIR="$TMP/no-models"   # no shipped default bundle in play
fail=0
check() { if ! "$@"; then echo "FAIL: $*"; fail=1; fi; }
expect_exit() {  # expect_exit CODE ARGS...
  local want=$1; shift
  "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL: perfpred $* exited $got, expected $want"; cat "$TMP/err"; fail=1
  elif [ "$want" = 2 ] && [ ! -s "$TMP/err" ]; then
    echo "FAIL: perfpred $* exited 2 without a message"; fail=1
  fi
}

# 1. A synthetic kernel data set: GEMMs and ReLUs on three GPUs; the measured time is a known
#    function of shape and GPU (not of the analytical model), so the booster has something to learn.
$PY - "$TMP" <<'EOF2'
import json, math, os, random, sys
out = sys.argv[1]
random.seed(7)
gpus = {"t4": (40, 320.0, 8.1), "v100-pcie-32gb": (80, 900.0, 14.0), "a100-pcie-40gb": (108, 1555.0, 19.5),
        "p100-pcie-16gb": (56, 732.0, 9.3)}
def write(name, licence, n, gpu_ids):
    path = os.path.join(out, name)
    cols = ["id","status","reason","source","synthetic","gpu_id","runtime","runtime_version","precision","op_family",
            "op","phase","inputs","attrs","gemm_batch","gemm_m","gemm_n","gemm_k","flops","bytes","time_ms",
            "time_ms_min","repeats","power_w","energy_mj","kernel_names","notes"]
    with open(path, "w") as f:
        f.write("#perfpred kernel-dataset schema_version=1\n" + ",".join(cols) + "\n")
        for i in range(n):
            g = gpu_ids[i % len(gpu_ids)]
            sms, bw, tf = gpus[g]
            r = dict.fromkeys(cols, "")
            r.update(id=f"k{i}", status="ok", source="synthetic-test", synthetic="1", gpu_id=g, runtime="pytorch",
                     precision="fp32", phase="forward")
            if i % 2 == 0:
                m, nn, k = (random.choice([64, 128, 256, 512, 1024, 2048]) for _ in range(3))
                flops = 2 * m * nn * k; byt = 4 * (m * k + k * nn + m * nn)
                t = max(flops / (tf * 1e12 * 0.7 * (1 - 0.3 * math.exp(-m / 300))), byt / (bw * 1e9 * 0.8)) + 6e-6
                r.update(op_family="gemm", op="MatMul", inputs=f"{m}x{k};{k}x{nn}", attrs=f"batch=1;m={m};n={nn};k={k}",
                         gemm_batch=1, gemm_m=m, gemm_n=nn, gemm_k=k, flops=flops, bytes=byt)
            else:
                b = random.choice([1, 8, 64, 256]); h = random.choice([1024, 4096, 16384, 65536])
                el = b * h; byt = 8 * el
                t = byt / (bw * 1e9 * 0.85) + 4e-6
                r.update(op_family="elementwise", op="Relu", inputs=f"{b}x{h}", attrs=f"elements={el};inner={h};outer={b}",
                         flops=el, bytes=byt)
            r["time_ms"] = "%.6f" % (t * 1e3 * (1 + random.uniform(-0.01, 0.01)))
            f.write(",".join(str(r[c]) for c in cols) + "\n")
    meta = {"schema_version": 1, "kind": "kernel", "sources": [{"name": "synthetic-test", "licence": licence}],
            "licence": licence, "created_by": "tests/cli/test_learn.sh", "devices": {}, "environment": {},
            "plan": None, "notes": []}
    with open(path + ".meta.json", "w") as f:
        json.dump(meta, f)
write("train.csv", "perfpred-measured", 1200, ["t4", "v100-pcie-32gb", "a100-pcie-40gb"])
write("test.csv", "perfpred-measured", 300, ["p100-pcie-16gb"])
write("unlicensed.csv", "none stated", 100, ["t4"])
EOF2

# 2. train -> bundle with feature names, sources, hash (the boosters alone: --kernel-blend 1, so the checks
# below see what they learned from these synthetic rows; the default blend is checked after them)
"$BIN" train --data "$TMP/train.csv" --out "$TMP/b.json" --rounds 80 --threads 1 --kernel-blend 1 --json >"$TMP/train.json" \
  || { echo "FAIL: train exited $?"; cat "$TMP/train.json"; exit 1; }
check $PY - "$TMP/train.json" "$TMP/b.json" <<'EOF2'
import json, sys
t = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
assert t["rows"] == 1200, t
assert set(t["gpus_seen"]) == {"t4", "v100-pcie-32gb", "a100-pcie-40gb"}, t
assert {"gemm", "elementwise"} <= set(b["kernel_models"]), b["kernel_models"].keys()
assert b["schema_version"] == 1 and b["kind"] == "perfpred-bundle" and b["for_shipping"] is True
assert b["kernel_features"][0] == "family_code"
assert b["training"]["rows_hash"].startswith("fnv1a64:")
assert b["training"]["sources"][0]["licence"] == "perfpred-measured"
assert b["created_by"].startswith("perfpred train --data") and "--kernel-blend 1" in b["created_by"]
assert b["kernel_blend"] == {k: 1.0 for k in b["kernel_models"]}, b["kernel_blend"]
EOF2

# The default blend: learned^0.2 x analytical^0.8 per kernel, recorded per booster; held out, between the boosters
# alone and the analytical model on these rows (where the boosters are right). A weight outside [0, 1] is exit 2.
"$BIN" train --data "$TMP/train.csv" --out "$TMP/bdef.json" --rounds 80 --threads 1 --json >/dev/null \
  || { echo "FAIL: train with the default blend exited $?"; exit 1; }
"$BIN" eval --model "$TMP/bdef.json" --data "$TMP/test.csv" --json >"$TMP/evaldef.json" || { echo "FAIL: eval bdef"; exit 1; }
"$BIN" eval --model "$TMP/b.json" --data "$TMP/test.csv" --json >"$TMP/eval1.json" || { echo "FAIL: eval b"; exit 1; }
check $PY - "$TMP/bdef.json" "$TMP/evaldef.json" "$TMP/eval1.json" <<'EOF2'
import json, sys
b = json.load(open(sys.argv[1])); o3 = json.load(open(sys.argv[2]))["overall"]; o1 = json.load(open(sys.argv[3]))["overall"]
assert set(b["kernel_blend"].values()) == {0.2}, b["kernel_blend"]
assert o1["learned"]["mean_ape"] < o3["learned"]["mean_ape"] < o3["analytical"]["mean_ape"], (o1, o3)
assert abs(o3["learned_share"] - 0.2) < 1e-9, o3["learned_share"]
EOF2
expect_exit 2 train --data "$TMP/train.csv" --out "$TMP/bad.json" --kernel-blend 1.5
grep -q "kernel-blend must be in \[0, 1\]" "$TMP/err" || { echo "FAIL: unclear --kernel-blend error"; cat "$TMP/err"; fail=1; }

# 3. eval on an unseen GPU: learned beats analytical, per-GPU/per-family breakdown present
"$BIN" eval --model "$TMP/b.json" --data "$TMP/test.csv" --json >"$TMP/eval.json" \
  || { echo "FAIL: eval exited $?"; exit 1; }
check $PY - "$TMP/eval.json" <<'EOF2'
import json, sys
j = json.load(open(sys.argv[1]))
o = j["overall"]
assert o["n"] == 300, o
assert o["learned"]["mean_ape"] < o["analytical"]["mean_ape"], o
assert o["learned"]["mean_ape"] < 15, o
assert j["gpu_seen_in_training"] == {"p100-pcie-16gb": False}
assert set(j["by_op_family"]) == {"gemm", "elementwise"}
assert "p100-pcie-16gb" in j["by_gpu"]
EOF2
# --rows: one CSV row per evaluated measurement, as many as the report's n, errors consistent
"$BIN" eval --model "$TMP/b.json" --data "$TMP/test.csv" --rows "$TMP/rows.csv" --json >"$TMP/eval2.json" \
  || { echo "FAIL: eval --rows exited $?"; fail=1; }
check $PY - "$TMP/eval2.json" "$TMP/rows.csv" <<'EOF2'
import csv, json, sys
n = json.load(open(sys.argv[1]))["overall"]["n"]
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == n, (len(rows), n)
for r in rows:
    m, a = float(r["measured"]), float(r["analytical"])
    assert abs(float(r["analytical_error_pct"]) - 100 * (a - m) / m) < 1e-3 * max(1, abs(100 * (a - m) / m)), r
    assert r["kind"] == "kernel" and r["id"] and r["gpu_id"] and r["phase_or_mode"], r
EOF2
expect_exit 2 eval --model "$TMP/b.json" --data "$TMP/test.csv" --rows "$TMP/no-such-dir/rows.csv"
check grep -q "no-such-dir" "$TMP/err"
"$BIN" eval --model "$TMP/b.json" --data "$TMP/test.csv" >"$TMP/eval.txt" || { echo "FAIL: eval text"; fail=1; }
check grep -q "learned" "$TMP/eval.txt"
check grep -q "(unseen)" "$TMP/eval.txt"

# 4. predict --model uses the bundle; --analytical and no default bundle give "analytical"
"$BIN" predict "$MODEL" --gpu t4 --model "$TMP/b.json" --json >"$TMP/p.json" || { echo "FAIL: predict --model exited $?"; fail=1; }
"$BIN" predict "$MODEL" --gpu t4 --json >"$TMP/a.json" || { echo "FAIL: predict exited $?"; fail=1; }
check $PY - "$TMP/p.json" "$TMP/a.json" <<'EOF2'
import json, sys
p = json.load(open(sys.argv[1])); a = json.load(open(sys.argv[2]))
assert p["model_bundle"] == "b", p["model_bundle"]
assert p["gpu_seen_in_training"] is True
assert a["model_bundle"] == "analytical"
# the bundle changes kernel times (batch-1 ResNet-18 on a T4 is host-bound, so latency may not move)
assert p["breakdown"]["kernels_ms"] != a["breakdown"]["kernels_ms"]
EOF2
# the shipped bundle is opt-in: without --model the analytical model runs even when it is there;
# `--model default` / `--bundle default` load it from the model directory
mkdir -p "$TMP/models" && cp "$TMP/b.json" "$TMP/models/perfpred-default.json"
PERFPRED_MODEL_DIR="$TMP/models" "$BIN" predict "$MODEL" --gpu p100-pcie-16gb --json >"$TMP/n.json" || { echo "FAIL: no bundle"; fail=1; }
check $PY -c "import json; assert json.load(open('$TMP/n.json'))['model_bundle']=='analytical'"
PERFPRED_MODEL_DIR="$TMP/models" "$BIN" predict "$MODEL" --gpu p100-pcie-16gb --model default --json >"$TMP/d.json" || { echo "FAIL: --model default"; fail=1; }
check $PY -c "import json,sys; j=json.load(open('$TMP/d.json')); assert j['model_bundle']=='b' and j['gpu_seen_in_training'] is False, j['model_bundle']"
PERFPRED_MODEL_DIR="$TMP/models" "$BIN" select "$MODEL" --devices p100-pcie-16gb,t4 --bundle default --json >"$TMP/s.json" || { echo "FAIL: select --bundle default"; fail=1; }
check grep -q '"b"' "$TMP/s.json"
PERFPRED_MODEL_DIR="$TMP/models" "$BIN" predict "$MODEL" --gpu t4 --analytical --json >"$TMP/n2.json" || { echo "FAIL: --analytical"; fail=1; }
check $PY -c "import json; assert json.load(open('$TMP/n2.json'))['model_bundle']=='analytical'"
PERFPRED_MODEL_DIR="$TMP/no-models" expect_exit 2 predict "$MODEL" --gpu t4 --model default
check grep -q "perfpred-default.json" "$TMP/err"

# 4b. a policy: the shipped bundle predicts by default only the parts its rules give it, and says why
cat >"$TMP/policy.json" <<'EOF2'
{"rules": [{"part": "kernels", "device_class": "embedded", "predictor": "analytical", "evidence": "test: embedded held out, learned worse"},
           {"part": "kernels", "runtime": "pytorch", "mode": "inference", "precision": "fp32", "predictor": "learned", "evidence": "test: learned wins held out"}]}
EOF2
mkdir -p "$TMP/pmodels"
"$BIN" train --data "$TMP/train.csv" --out "$TMP/pmodels/perfpred-default.json" --name pol --rounds 60 --threads 1 \
  --policy "$TMP/policy.json" --json >"$TMP/ptrain.json" 2>"$TMP/err" || { echo "FAIL: train --policy"; cat "$TMP/err"; fail=1; }
PERFPRED_MODEL_DIR="$TMP/pmodels" "$BIN" predict "$MODEL" --gpu t4 --json >"$TMP/pd.json" || { echo "FAIL: predict (policy)"; fail=1; }
PERFPRED_MODEL_DIR="$TMP/pmodels" "$BIN" predict "$MODEL" --gpu t4 --precision fp16 --json >"$TMP/pf.json" || { echo "FAIL: predict fp16 (policy)"; fail=1; }
PERFPRED_MODEL_DIR="$TMP/pmodels" "$BIN" predict "$MODEL" --gpu jetson-agx-orin-64gb --json >"$TMP/pj.json" || { echo "FAIL: predict jetson (policy)"; fail=1; }
PERFPRED_MODEL_DIR="$TMP/pmodels" "$BIN" predict "$MODEL" --gpu t4 --analytical --json >"$TMP/pa.json" || { echo "FAIL: predict --analytical (policy)"; fail=1; }
check $PY - "$TMP/ptrain.json" "$TMP/pd.json" "$TMP/pf.json" "$TMP/pj.json" "$TMP/pa.json" <<'EOF2'
import json, sys
t, d, f, j, a = (json.load(open(p)) for p in sys.argv[1:])
assert len(t["policy"]["rules"]) == 2, t["policy"]
# t4, PyTorch FP32 inference: kernels learned by the rule, host analytical (no host booster)
assert d["model_bundle"] == "pol", d["model_bundle"]
assert d["predictor"]["bundle"] == "pol"
assert d["predictor"]["kernels"]["predictor"] == "learned", d["predictor"]
assert d["predictor"]["kernels"]["rule"] == "kernels */pytorch/inference/fp32"
assert "learned wins" in d["predictor"]["kernels"]["evidence"]
assert d["predictor"]["host"]["predictor"] == "analytical" and "host-overhead booster" in d["predictor"]["host"]["evidence"]
assert d["breakdown"]["kernels_ms"] != a["breakdown"]["kernels_ms"]
# no rule for fp16, the embedded rule for a Jetson: analytical, model_bundle says so, the reason is given
for p, why in ((f, "no held-out evidence"), (j, "embedded held out")):
    assert p["model_bundle"] == "analytical", p["model_bundle"]
    assert p["predictor"]["kernels"]["predictor"] == "analytical"
    assert why in p["predictor"]["kernels"]["evidence"], p["predictor"]["kernels"]
assert "fp16" in f["predictor"]["kernels"]["evidence"]
assert a["model_bundle"] == "analytical" and a["predictor"]["bundle"] is None
assert "--analytical" in a["predictor"]["kernels"]["evidence"]
EOF2
# sweep names the bundle only where its policy gives it a part (sweep points are hypothetical GPUs)
for prec in fp32 fp16; do
  PERFPRED_MODEL_DIR="$TMP/pmodels" "$BIN" sweep "$MODEL" --base-gpu t4 --vary sm_count=20:40:20 --precision $prec \
    --bundle default --json >"$TMP/sw-$prec.json" 2>/dev/null || { echo "FAIL: sweep --bundle default ($prec)"; fail=1; }
done
check $PY -c "import json; assert json.load(open('$TMP/sw-fp32.json'))['model_bundle'] == 'pol'"
check $PY -c "import json; assert json.load(open('$TMP/sw-fp16.json'))['model_bundle'] == 'analytical'"
# a bad rule is exit 2 naming the rule and field, before any training
echo '{"rules": [{"part": "kernels", "runtime": "tvm", "predictor": "learned", "evidence": "x"}]}' >"$TMP/badpol.json"
expect_exit 2 train --data "$TMP/train.csv" --out "$TMP/x.json" --policy "$TMP/badpol.json"
check grep -q "policy.rules\[0\].runtime" "$TMP/err"

# 5. licence: refused without --allow-unlicensed-eval; with it the bundle is not for shipping
expect_exit 2 train --data "$TMP/unlicensed.csv" --out "$TMP/u.json"
check grep -q "allow-unlicensed-eval" "$TMP/err"
expect_exit 0 train --data "$TMP/unlicensed.csv" --out "$TMP/u.json" --allow-unlicensed-eval --rounds 5 --threads 1
check $PY -c "import json; assert json.load(open('$TMP/u.json'))['for_shipping'] is False"

# 6. mismatches and bad input are exit 2 with a message naming the file
$PY -c "
import json; b = json.load(open('$TMP/b.json')); b['kernel_features'][2] = 'renamed'
json.dump(b, open('$TMP/bad.json', 'w'))"
expect_exit 2 eval --model "$TMP/bad.json" --data "$TMP/test.csv"
check grep -q "bad.json" "$TMP/err"
expect_exit 2 predict "$MODEL" --gpu t4 --model "$TMP/bad.json"
expect_exit 2 predict "$MODEL" --gpu t4 --model "$TMP/missing.json"
expect_exit 2 train --data "$TMP/train.csv" --out "$TMP/x.json" --target speed
expect_exit 2 train --data "$TMP/missing.csv" --out "$TMP/x.json"
# a held-out GPU or family that no row has is a typo: training on everything instead would be silent
expect_exit 2 train --data "$TMP/train.csv" --out "$TMP/x.json" --holdout-gpu no-such-gpu
check grep -q "no row of the given data is on this GPU" "$TMP/err"
expect_exit 2 train --data "$TMP/train.csv" --out "$TMP/x.json" --holdout-family no-such-family
expect_exit 2 eval --model "$TMP/b.json" --data "$TMP/test.csv" --holdout-gpu h100-sxm5-80gb

# 7. energy and memory bundles next to a latency bundle in predict (one per target)
cp "$ROOT/models/zoo/resnet18.onnx" "$ROOT/models/zoo/lenet5.onnx" "$ROOT/models/zoo/mobilenet_v2.onnx" "$TMP/"
$PY - "$TMP" <<'EOF2'
import json, os, sys
out = sys.argv[1]
cols = ["id","status","reason","source","synthetic","gpu_id","runtime","runtime_version","precision","model",
        "model_family","recipe","mode","batch","includes_h2d","latency_ms","energy_mj","power_w","power_source",
        "peak_memory_bytes","notes"]
rows = []
i = 0
for gpu, watts in (("t4", 60.0), ("v100-pcie-32gb", 200.0), ("a100-pcie-40gb", 230.0)):
    for model, ms in (("resnet18.onnx", 2.0), ("lenet5.onnx", 0.3), ("mobilenet_v2.onnx", 1.5)):
        for batch in (1, 2, 4, 8, 16, 32):
            lat = ms * (1 + batch / 8)
            r = dict.fromkeys(cols, "")
            r.update(id=f"n{i}", status="ok", source="synthetic-test", synthetic="1", gpu_id=gpu, runtime="pytorch",
                     precision="fp32", model=model, model_family="zoo", mode="inference", batch=batch, latency_ms=lat,
                     energy_mj=lat * watts, power_w=watts, power_source="nvml-board",
                     peak_memory_bytes=int(3e8 + 4e7 * batch))
            rows.append(r); i += 1
with open(os.path.join(out, "net.csv"), "w") as f:
    f.write("#perfpred network-dataset schema_version=1\n" + ",".join(cols) + "\n")
    for r in rows:
        f.write(",".join(str(r[c]) for c in cols) + "\n")
meta = {"schema_version": 1, "kind": "network", "sources": [{"name": "synthetic-test", "licence": "perfpred-measured"}],
        "licence": "perfpred-measured", "created_by": "tests/cli/test_learn.sh", "devices": {}, "environment": {},
        "plan": None, "notes": []}
json.dump(meta, open(os.path.join(out, "net.csv.meta.json"), "w"))
EOF2
# network rows report the share of their kernel time the boosters corrected: b.json learned MatMul and Relu
# only, so ResNet-18's convolutions, BatchNorms and Gemm keep the analytical time (0 < share < 1)
expect_exit 0 eval --model "$TMP/b.json" --data "$TMP/net.csv" --rows "$TMP/net-rows.csv" --json
cp "$TMP/out" "$TMP/net-eval.json"
check $PY - "$TMP/net-eval.json" "$TMP/net-rows.csv" <<'EOF2'
import csv, json, sys
j = json.load(open(sys.argv[1]))
share = j["overall"]["learned_share"]
assert 0 < share < 1, share
rows = list(csv.DictReader(open(sys.argv[2])))
by_model = {}
for r in rows:
    by_model.setdefault(r["id"], float(r["learned_share"]))
assert all(0 <= v < 1 for v in by_model.values()), by_model
assert abs(sum(by_model.values()) / len(by_model) - share) < 1e-4, (share, by_model)
EOF2
expect_exit 0 train --target energy --data "$TMP/net.csv" --out "$TMP/e.json" --rounds 30 --threads 1
expect_exit 0 train --target memory --data "$TMP/net.csv" --out "$TMP/m.json" --rounds 30 --threads 1
expect_exit 0 predict "$MODEL" --gpu t4 --batch 8 --model "$TMP/b.json" --model "$TMP/e.json" --model "$TMP/m.json" --json
cp "$TMP/out" "$TMP/pem.json"
check $PY - "$TMP/pem.json" "$TMP/p.json" <<'EOF2'
import json, sys
p = json.load(open(sys.argv[1]))
assert p["model_bundle"] == "b", p["model_bundle"]
tb = p["target_bundles"]
assert set(tb) == {"energy", "memory"}, tb
assert tb["energy"]["bundle"] == "e" and tb["memory"]["bundle"] == "m", tb
assert tb["energy"]["gpu_seen_in_training"] is True
# power is energy over the (latency-corrected) latency
assert abs(p["avg_power_w"] - p["energy_mj"] / p["latency_ms"]) < 1e-3 * p["avg_power_w"], p
assert any("energy from bundle e" in n for n in p["notes"]), p["notes"]
EOF2
# the energy bundle moves energy towards the synthetic truth (60 W on the T4) from the analytical value
expect_exit 0 predict "$MODEL" --gpu t4 --batch 8 --model "$TMP/b.json" --json
cp "$TMP/out" "$TMP/pb.json"
check $PY - "$TMP/pem.json" "$TMP/pb.json" <<'EOF2'
import json, sys
p = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
assert p["energy_mj"] != b["energy_mj"] and p["peak_memory_bytes"] != b["peak_memory_bytes"], (p["energy_mj"], b["energy_mj"])
assert "target_bundles" not in b
EOF2
expect_exit 2 predict "$MODEL" --gpu t4 --model "$TMP/e.json" --model "$TMP/e.json"
check grep -q "both energy bundles" "$TMP/err"
expect_exit 2 predict "$MODEL" --gpu t4 --model "$TMP/e.json" --analytical

exit $fail
