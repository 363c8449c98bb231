#!/usr/bin/env bash
# Dataset converters (tools/convert_datasets.py): convert every set in ../shared/datasets with a small --limit
# into a temporary folder, then check the CSVs and sidecars against docs/formats.md and a few values against
# the source files. Usage: bash test_convert_datasets.sh PERFPRED_BINARY REPO_ROOT. Exit 77 (skip) when
# ../shared/datasets or Debian's python3 with torch and onnx is missing.
set -euo pipefail
repo="${2:?usage: $0 PERFPRED_BINARY REPO_ROOT}"
shared="$repo/../shared/datasets"
py=/usr/bin/python3
# It runs Python only, no perfpred code: the sanitizer pass (scripts/test.sh --sanitize) would repeat the
# regular pass's run to the byte, with nothing instrumented.
if [[ "${PERFPRED_SANITIZED:-0}" = 1 ]]; then echo "skip: no perfpred code runs here; the regular pass runs it"; exit 77; fi
if [[ ! -d "$shared" ]]; then echo "skip: $shared not found"; exit 77; fi
if [[ ! -x "$py" ]] || ! "$py" -c "import torch, onnx, numpy" 2>/dev/null; then
  echo "skip: /usr/bin/python3 with torch, onnx and numpy not available"; exit 77
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# torchvision networks take tens of seconds each to export: not in this test (the zoo script covers them)
args=(--all --limit 4 --sample torchvision=0,gpumemnet-mlp=1,yolov8=1,neusight-transformer=0 --out "$tmp/out" --shared "$shared")
"$py" "$repo/tools/convert_datasets.py" "${args[@]}" >"$tmp/run1.out" 2>"$tmp/run1.err" || {
  echo "FAIL: first conversion exited $?"; tail -20 "$tmp/run1.err"; exit 1; }
# the second run must find everything up to date
"$py" "$repo/tools/convert_datasets.py" "${args[@]}" >"$tmp/run2.out" 2>"$tmp/run2.err"
skipped=$(grep -c "up to date, skipped" "$tmp/run2.err" || true)
nsets=$("$py" "$repo/tools/convert_datasets.py" --list | wc -l)
if [[ "$skipped" != "$nsets" ]]; then echo "FAIL: second run skipped $skipped of $nsets sets"; cat "$tmp/run2.err"; exit 1; fi
# ryujaehun: only the last script version (the machines with system_info.txt) timed the input copy, a pageable one
"$py" "$repo/tools/convert_datasets.py" pytorch-gpu-benchmark-ryujaehun --sample torchvision=0 --out "$tmp/ry" \
  --shared "$shared" 2>"$tmp/ry.err" || { echo "FAIL: ryujaehun conversion"; cat "$tmp/ry.err"; exit 1; }
"$py" - "$tmp/ry/datasets/pytorch-gpu-benchmark-ryujaehun/torchvision.csv" <<'PY' || exit 1
import collections, csv, re, sys
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
seen = collections.defaultdict(set)
for r in rows:
    machine = re.search(r"machine ([^;]+);", r["notes"]).group(1)
    seen[machine].add((r["includes_h2d"], r["copy_memory"]))
want = {"TITANXP": {("1", "pageable")}, "2080ti(2)": {("1", "pageable")}, "1080TI": {("0", "")},
        "2080TI": {("0", "")}, "TitanV": {("0", "")}}
if dict(seen) != want:
    print(f"FAIL: ryujaehun copies per machine {dict(seen)}, want {want}"); sys.exit(1)
PY
# MLPerf Jetson: every GPU-only MaxN ResNet-50 latency run, nothing else (no export needed: torchvision=0)
"$py" "$repo/tools/convert_datasets.py" mlperf-inference-jetson --sample torchvision=0 --out "$tmp/ml" \
  --shared "$shared" 2>"$tmp/ml.err" || { echo "FAIL: mlperf conversion"; cat "$tmp/ml.err"; exit 1; }
"$py" - "$tmp/ml/datasets/mlperf-inference-jetson/mlperf_jetson.csv" "$shared/mlperf-inference-jetson/mlperf_jetson_results.csv" <<'PY' || exit 1
import csv, sys
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
src = list(csv.DictReader(open(sys.argv[2])))
want = [r for r in src if r["benchmark"] in ("resnet", "resnet50") and r["scenario"] in ("SingleStream", "MultiStream")
        and r["cfg_uses_dla"] == "no" and not r["power_avg_W_derived"] and "MaxQ" not in r["system_name"]
        and r["samples_per_query"] in ("1", "8") and r["input_data_types"] == "int8"]
assert len(rows) == len(want) > 10, (len(rows), len(want))
assert all(r["runtime"] == "tensorrt" and r["precision"] == "int8" and r["batch"] in ("1", "8") for r in rows)
assert {r["gpu_id"] for r in rows} == {"jetson-agx-xavier", "jetson-xavier-nx", "jetson-agx-orin-64gb", "jetson-orin-nx-16gb"}
got = sorted(float(r["latency_ms"]) for r in rows)
exp = sorted(float(r["mean_latency_ns"]) / 1e6 for r in want)
assert all(abs(a - b) < 1e-6 for a, b in zip(got, exp)), "latency_ms is mean_latency_ns / 1e6"
PY
# YOLOv8 as written out has ultralytics' parameter counts
"$py" - "$repo/tools" <<'PY' || { echo "FAIL: YOLOv8 parameter counts"; exit 1; }
import sys
sys.path.insert(0, sys.argv[1])
import dataset_models as dm
for scale, want in dm.YOLOV8_PARAMS.items():
    got = sum(p.numel() for p in dm.YOLOv8(scale).parameters())
    assert got == want, (scale, got, want)
PY
# bad input: unknown set and bad --sample are exit 2 with a message
if "$py" "$repo/tools/convert_datasets.py" no-such-set --out "$tmp/x" 2>"$tmp/bad.err"; then
  echo "FAIL: unknown set accepted"; exit 1; fi
grep -q "unknown set 'no-such-set'" "$tmp/bad.err" || { echo "FAIL: no message for unknown set"; exit 1; }

"$py" - "$tmp/out" "$shared" "$repo" <<'EOF'
import csv, glob, gzip, io, json, math, os, sys
import onnx
out, shared, repo = sys.argv[1], sys.argv[2], sys.argv[3]
fails = []
def check(cond, msg):
    if not cond:
        fails.append(msg)

KERNEL_REQ = ["id", "status", "source", "gpu_id", "precision", "op_family", "op", "phase", "inputs", "attrs",
              "flops", "bytes", "time_ms"]
NET_REQ = ["id", "status", "source", "gpu_id", "precision", "model", "model_family", "recipe", "mode", "batch",
           "latency_ms", "energy_mj", "power_w", "power_source", "peak_memory_bytes"]
STATUS = {"ok", "failed", "unsupported", "oom", "skipped"}
PREC = {"fp32", "tf32", "fp16", "bf16", "int8"}
gpus = {os.path.basename(p)[:-5] for p in glob.glob(os.path.join(repo, "data", "gpus", "*.json"))}
tables = {}
files = sorted(glob.glob(os.path.join(out, "datasets", "*", "*.csv")))
check(len(files) == 32, f"{len(files)} CSV files, want 32 (3 help, 1 ryujaehun, 1 icas, 3 gpumemnet, 1 zeus, 1 lambda, 16 neusight, 1 neusight-transformers, 3 deepbench, 1 mlperf, 1 trtutils)")
for f in files:
    name = os.path.relpath(f, out)
    with open(f, encoding="utf-8", newline="") as fh:
        first = fh.readline()
        kind = "kernel" if first == "#perfpred kernel-dataset schema_version=1\n" else \
               "network" if first == "#perfpred network-dataset schema_version=1\n" else None
        check(kind is not None, f"{name}: bad first line {first!r}")
        rows = list(csv.DictReader(fh))
    req = KERNEL_REQ if kind == "kernel" else NET_REQ
    header = list(rows[0].keys()) if rows else []
    for c in req:
        check(not rows or c in header, f"{name}: missing column {c}")
    meta_path = f + ".meta.json"
    check(os.path.exists(meta_path), f"{name}: no sidecar")
    meta = json.load(open(meta_path))
    check(meta.get("schema_version") == 1, f"{name}: sidecar schema_version {meta.get('schema_version')}")
    check(meta.get("kind") == kind, f"{name}: sidecar kind {meta.get('kind')} != {kind}")
    check(meta.get("licence") in ("MIT", "Apache-2.0", "none-stated"), f"{name}: licence {meta.get('licence')}")
    check(bool(meta.get("sources")) and all("repository" in s and "commit" in s for s in meta["sources"]),
          f"{name}: sources")
    check(meta.get("rows") == len(rows), f"{name}: sidecar says {meta.get('rows')} rows, file has {len(rows)}")
    ids = set()
    for r in rows:
        check(r["id"] not in ids, f"{name}: duplicate id {r['id']}")
        ids.add(r["id"])
        check(r["status"] in STATUS, f"{name}: status {r['status']}")
        check(r["precision"] in PREC, f"{name}: precision {r['precision']}")
        g = r["gpu_id"]
        check(g.startswith("spec:") and g in meta.get("devices", {}) or not gpus or g in gpus,
              f"{name}: gpu_id {g} neither in data/gpus nor described in the sidecar")
        for c in ("flops", "bytes", "time_ms", "latency_ms", "energy_mj", "power_w", "batch", "peak_memory_bytes"):
            v = r.get(c)
            if v:
                check("e" not in v.lower() and math.isfinite(float(v)) and float(v) >= 0, f"{name}: {c}={v!r}")
        if kind == "network" and r["model"]:
            p = os.path.normpath(os.path.join(os.path.dirname(f), r["model"]))
            check(os.path.exists(p), f"{name}: model {r['model']} missing")
    tables[name] = rows
if fails:
    print("\n".join(fails[:30])); sys.exit(1)

def src(path):
    p = os.path.join(shared, path)
    fh = io.TextIOWrapper(gzip.open(p, "rb"), encoding="utf-8") if p.endswith(".gz") else open(p, encoding="utf-8")
    return list(csv.DictReader(fh))
def close(a, b):
    return abs(float(a) - float(b)) <= 1e-9 * max(1.0, abs(float(b)))

# NAS-Bench-201: row 0 on the GTX 1080 Ti at batch 1, and its exported network
nb = {r["id"]: r for r in tables["datasets/help-nas-latency/nasbench201.csv"]}
s0 = src("help-nas-latency/nasbench201_latency_ms.csv")[0]
r = nb["nb201-0-1080ti-b1"]
check(close(r["latency_ms"], s0["1080ti_1"]), f"nb201 latency {r['latency_ms']} != {s0['1080ti_1']}")
check(r["gpu_id"] == "gtx-1080ti" and r["batch"] == "1" and r["recipe"] == s0["arch_str"], "nb201 row fields")
check(nb["nb201-0-titanx-b256"]["gpu_id"] == "titan-x-pascal", "titanx mapping")
check(len(nb) == 4 * 12, f"nb201 rows {len(nb)} (want 4 archs x 12 columns)")
# HELP's NAS-Bench-201 and FBNet harness let the host run one kernel ahead (their latencies add up block by block):
# every such row says launch_queue 1; the OFA table, measured on other machines, says nothing
fb = tables["datasets/help-nas-latency/fbnet.csv"]
check(fb and all(r.get("launch_queue") == "1" for r in list(nb.values()) + fb), "nb201/fbnet rows without launch_queue 1")
check(not any(r.get("launch_queue") for r in tables["datasets/help-nas-latency/ofa_mbv3.csv"]), "ofa rows with a launch_queue")

def onnx_params(path):
    m = onnx.load(path)
    data = dict((p.key, p.value) for p in m.metadata_props)["perfpred.data_inputs"].split(",")
    total = 0
    for i in m.graph.input:
        if i.name in data:
            check(i.type.tensor_type.shape.dim[0].dim_param == "batch", f"{path}: batch dim not symbolic")
            continue
        n = 1
        for d in i.type.tensor_type.shape.dim:
            n *= d.dim_value
        total += n
    return total
exported = [r for r in tables["datasets/help-nas-latency/nasbench201.csv"] if r["model"]]
check(exported, "no NAS-Bench-201 network exported")

# OFA MobileNetV3: row 0 at batch 64 on both converted GPUs, its rebuilt network (input r x r, the torch module's
# parameters), and no V100 / Titan RTX rows
ofa = {r["id"]: r for r in tables["datasets/help-nas-latency/ofa_mbv3.csv"]}
o0 = src("help-nas-latency/ofa_mbv3_latency_ms.csv")[0]
r = ofa["ofa-0-titan_xp-b64"]
check(close(r["latency_ms"], o0["titan_xp_64"]) and r["gpu_id"] == "titan-xp" and r["batch"] == "64", "ofa titan_xp row")
check(close(ofa["ofa-0-2080ti-b1"]["latency_ms"], o0["2080ti_1"]) and ofa["ofa-0-2080ti-b1"]["gpu_id"] == "rtx-2080ti",
      "ofa 2080ti row")
check(len(ofa) == 4 * 6 and not any("v100" in k or "rtx" in k.split("-")[2] for k in ofa), f"ofa rows {sorted(ofa)[:8]}")
check(all(r["model_family"] == "ofa-mbv3" and r["status"] == "ok" for r in ofa.values()), "ofa family/status")
check(r["model"] != "", "ofa row 0 has no exported network")
if r["model"]:
    sys.path.insert(0, os.path.join(repo, "tools"))
    import dataset_models as dm
    p = os.path.normpath(os.path.join(out, "datasets", "help-nas-latency", r["model"]))
    g = onnx.load(p)
    dims = [d.dim_param or d.dim_value for d in g.graph.input[0].type.tensor_type.shape.dim]
    check(dims == ["batch", 3, int(o0["resolution"]), int(o0["resolution"])], f"ofa input dims {dims}")
    model, _ = dm.build("ofa-mbv3", r["recipe"])
    want = sum(t.numel() for t in list(model.parameters()) + list(model.buffers()) if t.is_floating_point())
    check(onnx_params(p) == want, f"ofa ONNX has {onnx_params(p)} parameter elements, the torch subnet {want}")
    check(len(model.blocks) - 1 == sum(int(t) for t in o0["d"].split()), "ofa block count != sum(d)")

# Jetson Nano: latency, energy, power, and the rebuilt network's parameters = `Total Parameters`
ic = tables["datasets/jetson-nano-trt-energy-icas/icas_convnets.csv"]
s = src("jetson-nano-trt-energy-icas/data/conv_layers_1_5/high_mac_model_info5.csv")[0]
r = ic[0]
check(r["recipe"] == s["Model Name"] and close(r["latency_ms"], s["average_latency(ms)"]), "icas latency")
check(close(r["energy_mj"], s["GPU_energy_per_inference"]), "icas energy")
check(close(r["power_w"], float(s["Avrg_POM_5V_GPU"]) / 1000), "icas power")
check(r["gpu_id"] == "jetson-nano" and r["power_source"] == "jetson-gpu-rail", "icas device")
for r in ic:
    if r["model"]:
        p = os.path.join(out, "datasets", "jetson-nano-trt-energy-icas", r["model"])
        want = next(int(float(x["Total Parameters"])) for x in src(
            "jetson-nano-trt-energy-icas/data/conv_layers_1_5/high_mac_model_info5.csv") if x["Model Name"] == r["recipe"])
        check(onnx_params(p) == want, f"{r['recipe']}: ONNX has {onnx_params(p)} params, source {want}")
meta = json.load(open(os.path.join(out, "datasets/jetson-nano-trt-energy-icas/icas_convnets.csv.meta.json")))
check(meta["licence"] == "none-stated", "icas licence")

# DeepBench GEMM row 0 and a conv backward phase
g = tables["datasets/deepbench-kernels/gemm.csv"][0]
s = src("deepbench-kernels/deepbench_gemm_tidy.csv")[0]
M, N, K = int(s["M"]), int(s["N"]), int(s["K"])
check(close(g["time_ms"], s["time_ms"]) and int(g["flops"]) == 2 * M * N * K, "deepbench gemm")
check(g["gpu_id"] == "t4" and g["precision"] == "int8", f"deepbench gemm device/precision {g['gpu_id']} {g['precision']}")
conv = tables["datasets/deepbench-kernels/conv.csv"]
check(all(r["op"] == "Conv" and "kernel_h=" in r["attrs"] for r in conv), "deepbench conv attrs")
# DeepBench RNN row 0: rnn_bench.cu uses CUDNN_SKIP_INPUT, so the GEMM is the recurrent one alone (K = hidden)
rr = tables["datasets/deepbench-kernels/rnn.csv"][0]
s = src("deepbench-kernels/deepbench_rnn_tidy.csv")[0]
h, n, t = int(s["hidden"]), int(s["N"]), int(s["timesteps"])
gates, ew = {"LSTM": (4, 24), "GRU": (3, 16)}.get(s["cell"].strip().upper(), (1, 4))
check(int(rr["gemm_k"]) == h and int(rr["gemm_n"]) == gates * h and int(rr["gemm_m"]) == n, f"deepbench rnn gemm {rr['gemm_m']}x{rr['gemm_n']}x{rr['gemm_k']}")
check(int(rr["flops"]) == t * n * (2 * gates * h * h + ew * h) and "skip_input=1" in rr["attrs"], "deepbench rnn flops/attrs")

# NeuSight conv row 0: FLOPs from the shape
c = tables["datasets/neusight-gpu-kernels/conv.csv"][0]
s = src("neusight-gpu-kernels/data/dataset/train/collect/conv/p2.1.0/NVIDIA A100 80GB PCIe.csv.gz")[0]
B, Ci, Co, k, H, st, pd = (int(s[x]) for x in ("B", "Input_Channel", "Output_Channel", "Kernel_Szie", "Input_Size",
                                              "Stride", "Padding"))
Ho = (H + 2 * pd - k) // st + 1
check(int(c["flops"]) == 2 * B * Co * Ho * Ho * Ci * k * k, "neusight conv flops")
check(c["gpu_id"] == "a100-pcie-80gb" and close(c["time_ms"], s["Latency"]), "neusight conv device/time")
attrs = dict(kv.split("=") for kv in c["attrs"].split(";"))
for key in ("in_channels", "out_channels", "kernel_h", "kernel_w", "stride_h", "stride_w", "pad_h", "pad_w",
            "dilation_h", "groups", "in_h", "in_w", "out_h", "out_w", "batch"):
    check(key in attrs, f"neusight conv attr {key} missing")
# NeuSight's tensor-scalar variants (addu, mulu, divu, powu: `x + 2.0`) say so (their own timer floor); ops whose
# name merely ends in "u" (relu, gelu) do not
for op, scalar in (("addu", True), ("powu", True), ("add", False), ("relu", False), ("gelu", False)):
    r = tables[f"datasets/neusight-gpu-kernels/{op}.csv"][0]
    check(("scalar_operand=1" in r["attrs"]) == scalar, f"neusight {op} attrs {r['attrs']}")
# nn.Linear is x W^T, cuBLAS's TN layout (its kernel names end in _tn); bmm is NN and says nothing
for op, tn in (("linear", True), ("bmm", False)):
    r = tables[f"datasets/neusight-gpu-kernels/{op}.csv"][0]
    check(("trans_a=1;trans_b=0" in r["attrs"]) == tn, f"neusight {op} attrs {r['attrs']}")

# GPUMemNet: peak memory in bytes, licence none-stated
m = tables["datasets/gpumemnet-a100-memory/mlp.csv"][0]
s = src("gpumemnet-a100-memory/mlp_data_step2.csv.gz")[0]
check(int(m["peak_memory_bytes"]) == int(float(s["Max GPU Memory (MiB)"]) * 1048576), "gpumemnet memory")
check(m["mode"] == "training" and m["gpu_id"] == "a100-sxm4-40gb", "gpumemnet fields")
# an 'ok' network row needs one measured target (latency, energy, power or peak memory); an 'ok' kernel row its time
for name, rows in tables.items():
    for r in rows:
        if "latency_ms" in r and r["status"] == "ok":
            check(any(r.get(c, "") != "" for c in ("latency_ms", "energy_mj", "power_w", "peak_memory_bytes")),
                  f"{name}: ok row {r['id']} without any measured target")
        if "time_ms" in r and r["status"] == "ok":
            check(r["time_ms"] != "", f"{name}: ok row {r['id']} without time_ms")
# memory-only GPUMemNet rows are 'ok' (not 'skipped'); rows at the 40 GB cap are 'oom' without a peak
for name, rows in tables.items():
    if "gpumemnet" not in name:
        continue
    for r in rows:
        check(r["status"] in ("ok", "oom"), f"{name}: row {r['id']} has status {r['status']}")
        if r["status"] == "ok":
            check(r["peak_memory_bytes"] != "", f"{name}: ok row {r['id']} without peak_memory_bytes")
        if r["status"] == "oom":
            check(r["peak_memory_bytes"] == "" and "40 GB" in r["reason"], f"{name}: oom row {r['id']}")

# Zeus: energy = power x latency, power source
z = tables["datasets/zeus-gpu-power-traces/zeus_power.csv"][0]
check(close(z["energy_mj"], float(z["power_w"]) * float(z["latency_ms"])) and z["power_source"] == "nvml-board",
      "zeus energy")
check(all(r["power_limit_w"] != "" and f"power limit {float(r['power_limit_w']):g} W" in r["notes"]
          for r in tables["datasets/zeus-gpu-power-traces/zeus_power.csv"]), "zeus power_limit_w = the row's limit")

# ryujaehun: median of the summary and the h2d flag
ry = tables["datasets/pytorch-gpu-benchmark-ryujaehun/torchvision.csv"][0]
check(ry["includes_h2d"] in ("0", "1") and ry["batch"] == "12", "ryujaehun fields")

if fails:
    print("\n".join(fails[:30])); sys.exit(1)
print(f"ok: {len(files)} files, {sum(len(t) for t in tables.values())} rows")
EOF
