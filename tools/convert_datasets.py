#!/usr/bin/python3
"""Convert the measured data sets in ../shared/datasets into perfpred dataset rows (docs/formats.md).

    /usr/bin/python3 tools/convert_datasets.py --all [--out cache] [--limit N] [--sample N] [--seed S]
    /usr/bin/python3 tools/convert_datasets.py SET [SET...] [options]
    /usr/bin/python3 tools/convert_datasets.py --list

Writes cache/datasets/<set>/*.csv (+ .csv.meta.json sidecars) and cache/models/<family>/*.onnx (parameter-free
ONNX rebuilt with Debian's torch). The CSV `model` column is the ONNX path relative to the CSV's folder; rows
whose network was not exported (sampling) keep an empty `model` and the `recipe` that rebuilds it.

--limit N   convert at most N source records per set (quick runs and tests); exports at most N networks too.
--sample S  networks to export per family: N, 'all', or FAMILY=N overrides (e.g. torchvision=0,nasbench201=50);
            a deterministic sample (--seed). Default: DEFAULT_SAMPLE. Already exported files are kept and reused.
A set whose outputs exist and whose fingerprint (converter sources, source files, options, exported models)
is unchanged is skipped with a message.
"""
import argparse
import csv
import glob
import gzip
import hashlib
import io
import json
import math
import os
import random
import re
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_SHARED = os.path.join(REPO, "..", "shared", "datasets")

KERNEL_COLUMNS = ["id", "status", "reason", "source", "synthetic", "gpu_id", "runtime", "runtime_version",
                  "precision", "op_family", "op", "phase", "inputs", "attrs", "gemm_batch", "gemm_m", "gemm_n",
                  "gemm_k", "flops", "bytes", "time_ms", "time_ms_min", "repeats", "power_w", "energy_mj",
                  "kernel_names", "notes", "model_family"]
NETWORK_COLUMNS = ["id", "status", "reason", "source", "synthetic", "gpu_id", "runtime", "runtime_version",
                   "precision", "model", "model_family", "recipe", "mode", "batch", "includes_h2d", "latency_ms",
                   "energy_mj", "power_w", "power_source", "power_limit_w", "peak_memory_bytes", "notes"]

# Network rows without latency_ms that carry another measurement (memory-only GPUMemNet rows, power/energy-only
# Zeus and Lambda rows): perfpred's reader accepts an 'ok' network row with any one of latency_ms, energy_mj,
# power_w, peak_memory_bytes, and every consumer filters the rows per target. A row with none is 'skipped'.
LATENCY_LESS_STATUS = "ok"

DEFAULT_SAMPLE = {"nasbench201": 600, "fbnet": 300, "ofa-mbv3": 300, "icas-convnet": 600, "gpumemnet-mlp": 200,
                  "torchvision": None, "yolov8": None, "neusight-transformer": None}

# Devices that are not in data/gpus: rows name them `spec:<name>` and the sidecar describes them with the
# essentials of NVIDIA's published datasheets (a perfpred spec file may give only these, the rest is derived).
SPEC_DEVICES = {
    "titan-x-maxwell": {"name": "NVIDIA GeForce GTX TITAN X (Maxwell, GM200)", "architecture": "Maxwell",
                        "compute_capability": "5.2", "sm_count": 24, "fp32_lanes_per_sm": 128,
                        "boost_clock_mhz": 1075, "mem_bandwidth_gbps": 336.5, "memory_gb": 12, "tdp_w": 250,
                        "sources": ["NVIDIA GeForce GTX TITAN X specifications (3072 CUDA cores, 1000/1075 MHz, "
                                    "12 GB GDDR5 384-bit 7 Gbps, 250 W)"]},
    "m40": {"name": "NVIDIA Tesla M40 (GM200)", "architecture": "Maxwell", "compute_capability": "5.2",
            "sm_count": 24, "fp32_lanes_per_sm": 128, "boost_clock_mhz": 1114, "mem_bandwidth_gbps": 288,
            "memory_gb": 12, "tdp_w": 250,
            "sources": ["NVIDIA Tesla M40 datasheet (3072 CUDA cores, up to 7 TFLOPS FP32, 12 GB GDDR5, 288 GB/s, "
                        "250 W); the 24 GB variant has the same figures"]},
    "quadro-rtx-6000": {"name": "NVIDIA Quadro RTX 6000 (TU102)", "architecture": "Turing",
                        "compute_capability": "7.5", "sm_count": 72, "fp32_lanes_per_sm": 64,
                        "boost_clock_mhz": 1770, "mem_bandwidth_gbps": 672, "memory_gb": 24, "tdp_w": 260,
                        "sources": ["NVIDIA Quadro RTX 6000 datasheet (4608 CUDA cores, 576 tensor cores, 16.3 TFLOPS "
                                    "FP32, 24 GB GDDR6, 672 GB/s, 260 W board power without VirtualLink)"]},
}


# ---------------------------------------------------------------------------------------------------------------
# helpers

def fmt(v):
    """Plain decimal text for the CSV (no exponent), '' for None/NaN."""
    if v is None or v == "":
        return ""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        if not math.isfinite(v):
            return ""
        if float(v).is_integer() and abs(v) < 1e15:
            return str(int(v))
        return np.format_float_positional(float(v), trim="-")
    return str(v)


def num(s):
    """Float from a source cell; None for empty / N/A / non-numeric."""
    if s is None:
        return None
    s = str(s).strip()
    if not s:
        return None
    try:
        v = float(s)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def open_text(path):
    if path.endswith(".gz"):
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", newline="")
    return open(path, encoding="utf-8", newline="")


def read_csv(path):
    with open_text(path) as f:
        return list(csv.DictReader(f))


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class Writer:
    """Collects rows of one dataset file and writes CSV + sidecar atomically."""

    def __init__(self, kind, path, extra_columns=()):
        """extra_columns: run settings a source records beyond the schema's columns (perfpred keeps them as a
        row's extras; docs/formats.md), e.g. `cuda_graphs`."""
        self.kind = kind
        self.path = path
        self.columns = (KERNEL_COLUMNS if kind == "kernel" else NETWORK_COLUMNS) + list(extra_columns)
        self.rows = []
        self.ids = set()

    def add(self, **row):
        unknown = set(row) - set(self.columns)
        if unknown:
            raise KeyError(f"unknown column(s) {sorted(unknown)} for {self.kind} rows")
        if row["id"] in self.ids:
            raise KeyError(f"duplicate id {row['id']} in {self.path}")
        self.ids.add(row["id"])
        row.setdefault("status", "ok")
        row.setdefault("synthetic", 0)
        if self.kind == "network" and row["status"] == "ok" and row.get("latency_ms") is None:
            have = [c for c in ("peak_memory_bytes", "power_w", "energy_mj") if row.get(c) is not None]
            if have:
                row["status"] = LATENCY_LESS_STATUS
                note = "no latency in the source; the row carries " + ", ".join(have)
                if row["status"] == "ok":
                    row["notes"] = note + ("; " + row["notes"] if row.get("notes") else "")
                else:
                    row["reason"] = note
            else:
                row["status"] = "skipped"
                row["reason"] = "no measurement in the source (no latency_ms, energy_mj, power_w or peak_memory_bytes)"
        self.rows.append(row)

    def write(self, meta):
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(f"#perfpred {self.kind}-dataset schema_version=1\n")
            w = csv.writer(f, lineterminator="\n")
            w.writerow(self.columns)
            for r in self.rows:
                w.writerow([fmt(r.get(c)) for c in self.columns])
        meta = dict(meta)
        meta.setdefault("schema_version", 1)
        meta["kind"] = self.kind
        meta.setdefault("created_by", "tools/convert_datasets.py")
        meta.setdefault("plan", None)
        meta.setdefault("notes", [])
        meta.setdefault("environment", {})
        devs = sorted({r["gpu_id"][5:] for r in self.rows if str(r.get("gpu_id", "")).startswith("spec:")})
        meta["devices"] = {"spec:" + d: SPEC_DEVICES[d] for d in devs}
        meta["rows"] = len(self.rows)
        with open(self.path + ".meta.json.tmp", "w", encoding="utf-8") as f:
            json.dump(meta, f, indent=2, sort_keys=True)
            f.write("\n")
        os.replace(tmp, self.path)
        os.replace(self.path + ".meta.json.tmp", self.path + ".meta.json")
        return len(self.rows)


class Exporter:
    """Lazy, sampled, parameter-free ONNX exports under <out>/models/<family>/."""

    def __init__(self, out, sample, limit, seed):
        self.out = out
        self.sample = sample  # dict family -> int|None (None = all)
        self.limit = limit
        self.seed = seed
        self.count = 0
        self.seconds = 0.0
        self.failures = []
        self.per_family = {}

    def path(self, family, name):
        return os.path.join(self.out, "models", family, name + ".onnx")

    def choose(self, family, keys):
        """Deterministic sample of keys (sorted by a seeded hash) to export for this family."""
        n = self.sample.get(family, DEFAULT_SAMPLE.get(family))
        if self.limit is not None:
            n = self.limit if n is None else min(n, self.limit)
        keys = list(dict.fromkeys(keys))
        if n is None or n >= len(keys):
            return set(keys)
        rank = sorted(keys, key=lambda k: hashlib.sha1(f"{self.seed}:{family}:{k}".encode()).hexdigest())
        return set(rank[:n])

    def ensure(self, family, name, recipe):
        """Export one network if missing; returns the path or None (failure recorded)."""
        import dataset_models as dm
        path = self.path(family, name)
        if os.path.exists(path):
            return path
        budget = self.sample.get(family, DEFAULT_SAMPLE.get(family))
        if self.limit is not None:
            budget = self.limit if budget is None else min(budget, self.limit)
        if budget is not None and self.per_family.get(family, 0) >= budget:
            return None
        self.per_family[family] = self.per_family.get(family, 0) + 1
        t0 = time.time()
        try:
            if family in dm.DIRECT:
                dm.write_direct(family, recipe, path)
            elif family in dm.META_EXPORT:
                model, example = dm.META_EXPORT[family](recipe)
                dm.export_onnx_meta(model, example, path)
            else:
                model, example = dm.build(family, recipe)
                dm.export_onnx(model, example, path)
        except Exception as e:  # noqa: BLE001 - a failed export is reported, the row stays without model
            self.failures.append(f"{family}/{name}: {type(e).__name__}: {str(e).splitlines()[0][:200]}")
            log(f"convert_datasets: export of {family}/{name} failed: {e}")
            return None
        self.seconds += time.time() - t0
        self.count += 1
        if self.count % 25 == 0:
            log(f"convert_datasets: exported {self.count} networks ({self.count / self.seconds:.2f}/s)")
        return path

    def existing(self, family, name):
        p = self.path(family, name)
        return p if os.path.exists(p) else None


def rel(path, csv_path):
    return os.path.relpath(path, os.path.dirname(csv_path)) if path else ""


def safe_name(s):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", s).strip("_")


# ---------------------------------------------------------------------------------------------------------------
# help-nas-latency

HELP_GPUS = {"1080ti": "gtx-1080ti", "2080ti": "rtx-2080ti", "titanx": "titan-x-pascal", "titanxp": "titan-xp",
             "titan_xp": "titan-xp"}
HELP_SOURCE = {"name": "help", "repository": "https://github.com/HayeonLee/HELP",
               "commit": "45f70eb92d0d735970a33b608d1544ad3c52f285", "licence": "MIT"}
HELP_NOTE = ("PyTorch eager inference latency, ms per batch, measured by the HELP authors (PyTorch 1.8.1 / CUDA "
             "10.2 era per their README); precision not stated (fp32 assumed); input 32x32; grad_mode = 1: the timing "
             "script is not published, and perfpred's PyTorch host costs were fitted on these rows as inference with "
             "autograd recording (no torch.no_grad(); docs/model.md, k_pytorch_no_grad_host_share)")
HELP_QUEUE_NOTE = ("launch_queue = 1 (NAS-Bench-201 and FBNet, not OFA, whose machines differ): each network's latency is "
                   "the sum of what its blocks cost, as when the host issues a kernel only once the previous one has "
                   "finished (a harness that synchronises per layer or module), not what an asynchronous eager loop "
                   "takes, whose host runs ahead of GPU-bound blocks into host-bound ones. Fitted on 500 FBNet nets "
                   "(latency on one-hot slot x op, the other 500 scored), the Titan Xp's batch-64 latencies are "
                   "additive to 0.42% mean error; perfpred's unlimited-queue timeline of the same nets is not "
                   "(4.1%), its launch-queue-1 timeline is (0.0%); docs/model.md, 'Launch queue'")
TITANX_NOTE = ("HELP 'titanx' mapped to titan-x-pascal: the repo does not say which Titan X. Median over the 15,625 "
               "NAS-Bench-201 nets at batch 256 it is 1.19x the Titan Xp time and 1.09x the GTX 1080 Ti time, as "
               "expected of the Pascal card (11.0 TFLOPS, 480 GB/s); a Maxwell Titan X (6.6 TFLOPS, 336 GB/s) "
               "would be ~1.5x or more")


def convert_help(ctx):
    src = os.path.join(ctx.shared, "help-nas-latency")
    out_dir = os.path.join(ctx.out, "datasets", "help-nas-latency")
    written = {}
    # NAS-Bench-201
    rows = read_csv(os.path.join(src, "nasbench201_latency_ms.csv"))[: ctx.limit]
    path = os.path.join(out_dir, "nasbench201.csv")
    w = Writer("network", path, extra_columns=["grad_mode", "launch_queue"])
    chosen = ctx.exporter.choose("nasbench201", [r["nb201_index"] for r in rows])
    for r in rows:
        idx = r["nb201_index"]
        name = f"nb201_{int(idx):05d}"
        mp = ctx.exporter.ensure("nasbench201", name, r["arch_str"]) if idx in chosen else \
            ctx.exporter.existing("nasbench201", name)
        for col, val in r.items():
            m = re.fullmatch(r"(1080ti|2080ti|titanx|titanxp)_(\d+)", col)
            if not m or num(val) is None:
                continue
            gpu = HELP_GPUS[m.group(1)]
            w.add(id=f"nb201-{idx}-{m.group(1)}-b{m.group(2)}", source="help-nasbench201", gpu_id=gpu,
                  runtime="pytorch", runtime_version="1.8.1", precision="fp32", model=rel(mp, path),
                  model_family="nasbench201", recipe=r["arch_str"], mode="inference", batch=int(m.group(2)),
                  latency_ms=num(val), notes="", grad_mode=1, launch_queue=1)
    written[path] = w.write({"sources": [HELP_SOURCE], "licence": "MIT",
                             "notes": [HELP_NOTE, HELP_QUEUE_NOTE, TITANX_NOTE,
                                       "model: NAS-Bench-201 TinyNetwork C=16 N=5, 10 classes (tools/dataset_models.py)"]})
    # FBNet
    rows = read_csv(os.path.join(src, "fbnet_latency_ms.csv"))[: ctx.limit]
    path = os.path.join(out_dir, "fbnet.csv")
    w = Writer("network", path, extra_columns=["grad_mode", "launch_queue"])
    chosen = ctx.exporter.choose("fbnet", [r["idx"] for r in rows])
    for r in rows:
        idx = r["idx"]
        name = f"fbnet_{int(idx):04d}"
        mp = ctx.exporter.ensure("fbnet", name, r["op_idx_list"]) if idx in chosen else \
            ctx.exporter.existing("fbnet", name)
        for col, val in r.items():
            m = re.fullmatch(r"(1080ti|2080ti|titanx|titanxp)_(\d+)", col)
            if not m or num(val) is None:
                continue
            w.add(id=f"fbnet-{idx}-{m.group(1)}-b{m.group(2)}", source="help-fbnet", gpu_id=HELP_GPUS[m.group(1)],
                  runtime="pytorch", runtime_version="1.8.1", precision="fp32", model=rel(mp, path),
                  model_family="fbnet", recipe=r["op_idx_list"], mode="inference", batch=int(m.group(2)),
                  latency_ms=num(val), notes=r["block_ops"], grad_mode=1, launch_queue=1)
    written[path] = w.write({"sources": [HELP_SOURCE], "licence": "MIT",
                             "notes": [HELP_NOTE, HELP_QUEUE_NOTE, TITANX_NOTE,
                                       "model: FBNet CIFAR-100 setting (HW-NAS-Bench fbnet_models), recipe = op_idx_list "
                                       "over k3_e1,k3_e1_g2,k3_e3,k3_e6,k5_e1,k5_e1_g2,k5_e3,k5_e6,skip"]})
    # OFA MobileNetV3 subnets
    written.update(convert_help_ofa(ctx, src, out_dir))
    return written


# HELP's OFA table has its own GPU columns: `titan_xp` (not the `titanxp` of the NAS-Bench-201/FBNet tables) and `v100`.
OFA_TITAN_XP_NOTE = ("HELP OFA 'titan_xp' mapped to titan-xp, the card its name gives. It is not the machine of the "
                     "NAS-Bench-201/FBNet 'titanxp' columns (a separate collection): at batch 1 (host-bound) its median "
                     "is 1.05x the OFA rtx-2080ti time where FBNet's titanxp is 1.45x FBNet's 2080ti, so its host "
                     "dispatches faster; at batch 32/64 it is 1.68x/1.74x the 2080 Ti (FBNet titanxp 1.43x/1.47x, "
                     "GTX 1080 Ti 1.72x/1.55x), the range of GP102 Pascal cards on depthwise-heavy nets")
OFA_V100_NOTE = ("v100_* columns not converted: neither HELP nor PROVENANCE.md says which V100 (PCIe 16/32 GB, SXM2 "
                 "16/32 GB); the variants differ in boost clock (1380 vs 1530 MHz) and power limit (250 vs 300 W), and "
                 "the table cannot tell them apart (median v100/2080ti 0.90/0.78/0.76 at batch 1/32/64 fits either)")


def convert_help_ofa(ctx, src, out_dir):
    import dataset_models as dm
    rows = read_csv(os.path.join(src, "ofa_mbv3_latency_ms.csv"))[: ctx.limit]
    path = os.path.join(out_dir, "ofa_mbv3.csv")
    w = Writer("network", path, extra_columns=["grad_mode"])
    chosen = ctx.exporter.choose("ofa-mbv3", [r["idx"] for r in rows])
    for r in rows:
        idx = r["idx"]
        recipe = dm.ofa_recipe(r["resolution"], r["ks"], r["e"], r["d"])
        name = f"ofa_mbv3_{int(idx):04d}"
        try:
            dm.parse_ofa(recipe)
            bad = ""
        except ValueError as e:  # a malformed source row is kept, skipped, with the reason
            bad = str(e)
        mp = None if bad else ctx.exporter.ensure("ofa-mbv3", name, recipe) if idx in chosen else \
            ctx.exporter.existing("ofa-mbv3", name)
        for col, val in r.items():
            m = re.fullmatch(r"(2080ti|titan_xp)_(\d+)", col)
            if not m or num(val) is None:
                continue
            w.add(id=f"ofa-{idx}-{m.group(1)}-b{m.group(2)}", source="help-ofa", gpu_id=HELP_GPUS[m.group(1)],
                  runtime="pytorch", runtime_version="1.8.1", precision="fp32", model=rel(mp, path),
                  model_family="ofa-mbv3", recipe=recipe, mode="inference", batch=int(m.group(2)), latency_ms=num(val),
                  notes=f"input {r['resolution']}x{r['resolution']}", grad_mode=1, **({"status": "skipped", "reason": bad} if bad else {}))
    n = w.write({"sources": [HELP_SOURCE], "licence": "MIT",
                 "notes": [HELP_NOTE.replace("input 32x32", "input r x r (ImageNet, r = resolution)"),
                           "model: active subnet of once-for-all's ofa_mbv3_d234_e346_k357_w1.2 (MobileNetV3, widths "
                           "24/24/32/48/96/136/192/1152/1536, 1000 classes) for the row's ks/e/d, written out in "
                           "tools/dataset_models.py (OfaMobileNetV3, ofa_onnx)",
                           OFA_TITAN_XP_NOTE, OFA_V100_NOTE]})
    return {path: n}


# ---------------------------------------------------------------------------------------------------------------
# pytorch-gpu-benchmark-ryujaehun

RYU_GPUS = {"GeForce GTX 1080 Ti": "gtx-1080ti", "GeForce RTX 2080 Ti": "rtx-2080ti",
            "GeForce RTX 2080 Ti (1)": "rtx-2080ti", "GeForce RTX 2080 Ti (2)": "rtx-2080ti",
            "TITAN V": "titan-v", "TITAN Xp": "titan-xp"}
RYU_PREC = {"float": "fp32", "half": "fp16"}


def ryujaehun_copying_machines(src):
    """Machines whose timed step includes the batch's host-to-device copy. Only the benchmark's last version writes
    system_info.txt beside its CSVs, and only it reads the batch from a DataLoader (no pin_memory) and copies it
    with img.to('cuda') between the timer's two synchronize() calls: a pageable copy. The earlier versions (the
    2019 files and the 2020 '_training_' files) build the input once on the GPU before the loop, so no copy is
    timed; their numbers agree (an RTX 2080 Ti's ResNet-18 FP16 inference: a median 2.8-3.5 ms in those runs,
    4.2 ms in the copying one)."""
    results = os.path.join(src, "raw", "results")
    if not os.path.isdir(results):
        return set()
    return {m for m in os.listdir(results) if os.path.isfile(os.path.join(results, m, "system_info.txt"))}


def convert_ryujaehun(ctx):
    src = os.path.join(ctx.shared, "pytorch-gpu-benchmark-ryujaehun")
    path = os.path.join(ctx.out, "datasets", "pytorch-gpu-benchmark-ryujaehun", "torchvision.csv")
    rows = read_csv(os.path.join(src, "summary_per_model.csv"))
    w = Writer("network", path, extra_columns=["param_updates", "mixed_precision", "copy_memory"])
    skipped = {"fp64": 0, "multi-gpu": 0, "device": 0}
    keep = []
    for r in rows:
        if r["precision"] == "double":
            skipped["fp64"] += 1
            continue
        if int(r["num_gpus"]) != 1:
            skipped["multi-gpu"] += 1
            continue
        if r["device"] not in RYU_GPUS:
            skipped["device"] += 1
            continue
        keep.append(r)
    keep = keep[: ctx.limit]
    copying_machines = ryujaehun_copying_machines(src)
    chosen = ctx.exporter.choose("torchvision", [r["model"] for r in keep])
    for i, r in enumerate(keep):
        name = r["model"]
        mp = ctx.exporter.ensure("torchvision", name, name) if name in chosen else \
            ctx.exporter.existing("torchvision", name)
        machine = r["file"].split("/")[2]
        copies = machine in copying_machines
        w.add(id=f"ryu-{i}", source="ryujaehun-pytorch-gpu-benchmark", gpu_id=RYU_GPUS[r["device"]],
              runtime="pytorch", runtime_version="", precision=RYU_PREC[r["precision"]], model=rel(mp, path),
              model_family="torchvision", recipe=name, mode="training" if r["mode"] == "train" else "inference",
              batch=int(r["global_batch"]), includes_h2d=int(copies), latency_ms=num(r["median_ms"]),
              param_updates="loop" if r["mode"] == "train" else "",
              mixed_precision="half" if r["mode"] == "train" and r["precision"] == "half" else "",
              copy_memory="pageable" if copies else "",
              notes=f"median of {r['n_iter']} iterations (mean {r['mean_ms']}, min {r['min_ms']}, std {r['std_ms']}); "
                    f"machine {machine}; {r['format']}; "
                    f"{'pageable input copy timed' if copies else 'input resident on the GPU, no copy timed'}; "
                    f"training = zero_grad+forward+CrossEntropy+backward, "
                    f"no optimizer step; cudnn.benchmark=True" + ("; fp16 = model.half(), no AMP"
                                                                  if r["precision"] == "half" else ""))
    n = w.write({"sources": [{"name": "ryujaehun-pytorch-gpu-benchmark",
                              "repository": "https://github.com/ryujaehun/pytorch-gpu-benchmark",
                              "commit": "3f47a9e2a43ca751ffade0add700b54b00e44bf0", "licence": "MIT"}],
                 "licence": "MIT",
                 "notes": ["summary_per_model.csv, median_ms per batch of 12 (3x224x224, 1000 classes); the timing "
                           "includes the host-to-device copy of the batch (pageable: a DataLoader without pin_memory) "
                           "only on machines whose folder has the last script version's system_info.txt "
                           f"({', '.join(sorted(copying_machines)) or 'none'}, includes_h2d 1); the earlier versions "
                           "kept the input on the GPU (includes_h2d 0)",
                           "PyTorch 1.4 era, CUDA 10.0-10.2 (see each machine's system_info.txt); torch version per "
                           "row is not recorded, so runtime_version is empty",
                           "param_updates = loop on training rows: PyTorch 1.x's zero_grad() zeroes every .grad and "
                           "AccumulateGrad adds into it (predict --param-updates loop)",
                           "mixed_precision = half on fp16 training rows: model.half(), no autocast or GradScaler "
                           "(predict --mixed-precision half)",
                           f"skipped: {skipped['fp64']} fp64 rows (not a perfpred precision), {skipped['multi-gpu']} "
                           f"multi-GPU DataParallel rows, {skipped['device']} rows of unknown devices",
                           "models: torchvision.<name>(weights=None) at 224x224 exported by Debian's torchvision 0.14"]})
    return {path: n}


# ---------------------------------------------------------------------------------------------------------------
# jetson-nano-trt-energy-icas

def convert_icas(ctx):
    src = os.path.join(ctx.shared, "jetson-nano-trt-energy-icas", "data")
    path = os.path.join(ctx.out, "datasets", "jetson-nano-trt-energy-icas", "icas_convnets.csv")
    files = sorted(f for f in glob.glob(os.path.join(src, "*", "*.csv")))
    recs = []
    for f in files:
        stage = os.path.basename(os.path.dirname(f))
        for r in read_csv(f):
            recs.append((stage, r))
    recs = recs[: ctx.limit]
    import dataset_models as dm
    w = Writer("network", path)
    chosen = ctx.exporter.choose("icas-convnet", [r["Model Name"] for _, r in recs])
    bad = 0
    for i, (stage, r) in enumerate(recs):
        name = r["Model Name"]
        reason, status = "", "ok"
        try:
            params = dm.icas_param_count(name)
            if num(r.get("Total Parameters")) is not None and params != int(num(r["Total Parameters"])):
                status, reason = "failed", f"rebuilt network has {params} parameters, the source says {r['Total Parameters']}"
        except ValueError as e:
            status, reason = "failed", str(e)
        if status != "ok":
            bad += 1
            mp = None
        else:
            mp = ctx.exporter.ensure("icas-convnet", name, name) if name in chosen else \
                ctx.exporter.existing("icas-convnet", name)
        gpu_mw = num(r.get("Avrg_POM_5V_GPU"))
        w.add(id=f"icas-{stage}-{i}", status=status, reason=reason, source="icas-nas-performance-modeling",
              gpu_id="jetson-nano", runtime="tensorrt", runtime_version="", precision="fp32",
              model=rel(mp, path), model_family="icas-convnet", recipe=name, mode="inference", batch=1,
              includes_h2d=0, latency_ms=num(r.get("average_latency(ms)")),
              energy_mj=num(r.get("GPU_energy_per_inference")),
              power_w=gpu_mw / 1000.0 if gpu_mw is not None else None, power_source="jetson-gpu-rail",
              notes=f"stage {stage}; {r.get('num_inferences')} inferences in ~60 s; CPU rail energy "
                    f"{r.get('CPU_energy_per_inference')} mJ/inference; input rail {r.get('Avrg_POM_5V_IN')} mW; "
                    f"MACs {r.get('Total MACs')}")
    n = w.write({"sources": [{"name": "icas-nas-performance-modeling",
                              "repository": "https://github.com/iCAS-Lab/NAS-Performance-Modeling",
                              "commit": "50e67092938231c516e28a8231d1754e80334024", "licence": "none-stated"}],
                 "licence": "none-stated",
                 "environment": {"device_mode": "nvpmodel -m 0 (MAXN 10 W)", "runtime": "TensorRT FP32, batch 1"},
                 "notes": ["No licence in the source repository: validation/calibration only, never ship or train a "
                           "shipped bundle on it",
                           "latency_ms = average_latency(ms) of the 60 s power run (inference_time / num_inferences); "
                           "energy_mj = GPU_energy_per_inference = Total_POM_5V_GPU / num_inferences (GPU rail, "
                           "tegrastats ~1 s samples); power_w = Avrg_POM_5V_GPU / 1000",
                           "models rebuilt from the names with the padding quirks of model_generation/*.py; every "
                           "rebuilt network's parameter count is checked against `Total Parameters` "
                           f"({bad} mismatches, marked failed)",
                           "real_data (9 real CNNs) is not in this copy (reserved for evaluation)"]})
    return {path: n}


# ---------------------------------------------------------------------------------------------------------------
# gpumemnet-a100-memory

GPUMEMNET_SOURCE = {"name": "gpumemnet", "repository": "https://github.com/itu-rad/GPUMemNet",
                    "commit": "f01eb0592e1b2030d3bceb73441747912b6652a6", "licence": "none-stated"}
TIMM_AS_TORCHVISION = {"resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnext50_32x4d",
                       "resnext101_32x8d", "wide_resnet50_2", "wide_resnet101_2", "densenet121", "densenet161",
                       "densenet169", "densenet201"}
MIB = 1024 * 1024


def convert_gpumemnet(ctx):
    src = os.path.join(ctx.shared, "gpumemnet-a100-memory")
    out_dir = os.path.join(ctx.out, "datasets", "gpumemnet-a100-memory")
    written = {}
    path = os.path.join(out_dir, "mlp.csv")
    recs = []
    for step in ("step2", "step1"):
        for r in read_csv(os.path.join(src, f"mlp_data_{step}.csv.gz")):
            recs.append((step, r))
    recs = recs[: ctx.limit]
    keys = {}
    for step, r in recs:
        keys[(step, r["Filename"])] = "mlp_" + hashlib.sha1(
            (r["Filename"] + "|" + r["Activations-Params"]).encode()).hexdigest()[:16]
    chosen = ctx.exporter.choose("gpumemnet-mlp", list(keys.values()))
    w = Writer("network", path)
    for i, (step, r) in enumerate(recs):
        name = keys[(step, r["Filename"])]
        recipe = r["Filename"] + "|" + r["Activations-Params"]
        mp = ctx.exporter.ensure("gpumemnet-mlp", name, recipe) if name in chosen else \
            ctx.exporter.existing("gpumemnet-mlp", name)
        mem = num(r["Max GPU Memory (MiB)"])
        w.add(id=f"mlp-{step}-{i}", source="gpumemnet", gpu_id="a100-sxm4-40gb", runtime="pytorch",
              runtime_version="", precision="fp32", model=rel(mp, path), model_family="gpumemnet-mlp",
              recipe=recipe, mode="training", batch=int(num(r["Batch Size"])),
              peak_memory_bytes=int(mem * MIB) if mem is not None else None,
              notes=f"{step}; Adam + CrossEntropy; peak = max nvidia-smi memory.used (includes CUDA context and "
                    f"allocator reserve); total params {r['Total Parameters']}; avg GPUTL {r['Avg GPUTL']}")
    written[path] = w.write({"sources": [GPUMEMNET_SOURCE], "licence": "none-stated",
                             "notes": ["No licence in the source repository: validation only",
                                       "mlp_data_step2 (with BN/dropout) and mlp_data_step1; ONNX models are the "
                                       "inference graphs (eval: Dropout removed); recipe = Filename|layer list"]})
    # timm rows (numbers only unless the name is a torchvision architecture)
    path = os.path.join(out_dir, "timm.csv")
    rows = read_csv(os.path.join(src, "timm_training_memory_fake_tensor.csv"))[: ctx.limit]
    w = Writer("network", path)
    tv_names = sorted({re.sub(r"_\d+\.out$", "", r["Filename"]) for r in rows} & TIMM_AS_TORCHVISION)
    for name in tv_names:
        ctx.exporter.ensure("torchvision", name, name)
    for i, r in enumerate(rows):
        name = re.sub(r"_\d+\.out$", "", r["Filename"])
        mp = ctx.exporter.existing("torchvision", name) if name in TIMM_AS_TORCHVISION else None
        mem = num(r["Max GPU Memory (MiB)"])
        oom = mem is not None and mem >= 40000
        w.add(id=f"timm-{i}", status="oom" if oom else "ok", reason="hit the 40 GB cap" if oom else "",
              source="gpumemnet-timm", gpu_id="a100-sxm4-40gb", runtime="pytorch", runtime_version="",
              precision="fp32", model=rel(mp, path), model_family="torchvision" if mp else "timm",
              recipe=f"timm:{name}", mode="training", batch=int(num(r["Batch Size"])),
              peak_memory_bytes=int(mem * MIB) if mem is not None and not oom else None,
              notes=("timm definition taken as torchvision." + name + " (same architecture), 224x224")
              if mp else "network not rebuilt (timm is not available; default timm input size)")
    written[path] = w.write({"sources": [GPUMEMNET_SOURCE], "licence": "none-stated",
                             "notes": ["No licence in the source repository: validation only",
                                       "Max GPU Memory (MiB) measured with nvidia-smi; the FakeTensor estimates are not "
                                       "converted. Rows at >= 40000 MiB are marked oom.",
                                       "ONNX only for timm names whose architecture equals torchvision's: "
                                       + ", ".join(sorted(TIMM_AS_TORCHVISION))]})
    # CNN test pipeline rows
    path = os.path.join(out_dir, "cnn_test.csv")
    w = Writer("network", path)
    model = ""
    for i, r in enumerate(read_csv(os.path.join(src, "cnn_test_memory.csv"))[: ctx.limit]):
        model = r["model"].strip() or model
        b, mem = num(r["batch size "]), num(r["GPU memory requirement"])
        if b is None or mem is None:
            continue
        w.add(id=f"cnn-{i}", source="gpumemnet-cnn-test", gpu_id="a100-sxm4-40gb", runtime="", runtime_version="",
              precision="fp32", model="", model_family="gpumemnet-cnn-test", recipe=model, mode="training",
              batch=int(b), peak_memory_bytes=int(mem * MIB),
              notes="network not rebuilt: the test pipeline's model definitions (framework, variant) are not in "
                    "this copy")
    written[path] = w.write({"sources": [GPUMEMNET_SOURCE], "licence": "none-stated",
                             "notes": ["No licence: validation only", "Test_Pipeline/GPUMemNet_CNN.xlsx rows; "
                                       "mlp_mnist_memory_horus.csv is not converted (layer widths of its FC nets "
                                       "are not fully specified)"]})
    return written


# ---------------------------------------------------------------------------------------------------------------
# zeus-gpu-power-traces

ZEUS_GPUS = {"v100": ("v100-pcie-32gb", "V100 mapped to the PCIe card: power limits go up to 250 W (PCIe TDP; "
                                          "SXM2 is 300 W); memory size not stated"),
             "p100": ("p100-pcie-16gb", "P100 mapped to the PCIe card: power limits up to 250 W; 12/16 GB not stated"),
             "a40": ("a40", ""),
             "rtx6000": ("spec:quadro-rtx-6000", "Quadro RTX 6000 (not in data/gpus; spec in the sidecar)")}
ZEUS_TRAIN_SAMPLES = {"cifar100": 50000, "imagenet": 1281167}
ZEUS_MODELS = {("imagenet", "resnet50"): "resnet50"}


def convert_zeus(ctx):
    src = os.path.join(ctx.shared, "zeus-gpu-power-traces", "trace")
    path = os.path.join(ctx.out, "datasets", "zeus-gpu-power-traces", "zeus_power.csv")
    w = Writer("network", path, extra_columns=["param_updates"])
    recs = []
    for key in ("v100", "a40", "rtx6000", "p100"):
        for r in read_csv(os.path.join(src, f"summary_power_{key}.csv")):
            recs.append((key, r))
    recs = recs[: ctx.limit]
    for i, (key, r) in enumerate(recs):
        gpu, gnote = ZEUS_GPUS[key]
        batch = int(r["batch_size"])
        epoch_s, power = num(r["time_per_epoch"]), num(r["average_power"])
        n_train = ZEUS_TRAIN_SAMPLES.get(r["dataset"])
        steps = math.ceil(n_train / batch) if n_train else None
        latency = epoch_s / steps * 1000.0 if steps and epoch_s is not None else None
        tv = ZEUS_MODELS.get((r["dataset"], r["network"]))
        mp = ctx.exporter.ensure("torchvision", tv, tv) if tv else None
        notes = [f"power limit {r['power_limit']} W", f"optimizer {r['optimizer']}",
                 f"dataset {r['dataset']}", f"epoch {r['time_per_epoch']} s"]
        if steps:
            notes.append(f"latency = epoch time / {steps} steps (ceil({n_train}/{batch})), includes data loading")
        else:
            notes.append("per-step latency unknown (training-set size not given); only power_w")
        if not tv:
            notes.append("network not rebuilt" + (" (Zeus' CIFAR ShuffleNetV2 variant is not specified exactly)"
                                                  if r["network"] == "shufflenetv2" else ""))
        if gnote:
            notes.append(gnote)
        w.add(id=f"zeus-{key}-{i}", source="zeus-nsdi23", gpu_id=gpu, runtime="pytorch", runtime_version="",
              precision="fp32", model=rel(mp, path), model_family="torchvision" if tv else "zeus-" + r["network"],
              recipe=f"{r['dataset']}/{r['network']}", mode="training", batch=batch, latency_ms=latency,
              energy_mj=power * latency if latency is not None and power is not None else None,
              power_w=power, power_source="nvml-board", power_limit_w=num(r["power_limit"]), param_updates="loop",
              notes="; ".join(notes))
    n = w.write({"sources": [{"name": "zeus-nsdi23", "repository": "https://github.com/ml-energy/zeus",
                              "commit": "75a8b9398034eb9baf74ca0a830c2c31bcce52cd", "licence": "Apache-2.0"}],
                 "licence": "Apache-2.0",
                 "notes": ["trace/summary_power_<gpu>.csv: one training epoch per (batch, optimizer, power limit); "
                           "power_w = mean NVML board power over the epoch; energy_mj = power_w x latency_ms per step",
                           "per-step latency only where the training-set size is known (ImageNet 1,281,167; CIFAR-100 "
                           "50,000); it includes data loading and the optimizer step",
                           "summary_train.csv (epochs to accuracy) and profile_data fixtures are not converted",
                           "param_updates = loop: the NSDI'23 traces predate PyTorch 2.0 (March 2023), whose zero_grad() "
                           "and foreach optimizers changed the per-parameter work (predict --param-updates loop)"]})
    return {path: n}


# ---------------------------------------------------------------------------------------------------------------
# lambda-dl-benchmark

LAMBDA_GPUS = {"LambdaCloud V100 16GB": "v100-sxm2-16gb", "RTX 3090": "rtx-3090", "LambdaCloud A10": "a10",
               "LambdaCloud A100 40GB PCIe": "a100-pcie-40gb", "A100 80GB PCIe": "a100-pcie-80gb",
               "A100 80GB SXM4": "a100-sxm4-80gb", "RTX 4090": "rtx-4090", "H100 80GB PCIe Gen5": "h100-pcie-80gb",
               "LambdaCloud H100 80GB PCIe Gen5": "h100-pcie-80gb", "H100 80GB SXM5": "h100-sxm5-80gb",
               "Dell H100 80GB SXM5": "h100-sxm5-80gb", "DellTexas H100 80GB SXM5": "h100-sxm5-80gb",
               "SMC H100 80GB SXM5": "h100-sxm5-80gb", "1CC H100 80GB SXM5": "h100-sxm5-80gb",
               "RAIDZ1 H100 80GB SXM5": "h100-sxm5-80gb"}
LAMBDA_UNITS = {"ssd": "images/s", "bert_base_squad": "sequences/s", "bert_large_squad": "sequences/s",
                "gnmt": "tokens/s", "ncf": "samples/s", "resnet50": "images/s", "tacotron2": "as logged",
                "transformerxlbase": "tokens/s", "transformerxllarge": "tokens/s", "waveglow": "as logged"}
LAMBDA_SAMPLE_UNITS = {"ssd", "bert_base_squad", "bert_large_squad", "resnet50", "ncf"}


def convert_lambda(ctx):
    src = os.path.join(ctx.shared, "lambda-dl-benchmark", "pytorch")
    path = os.path.join(ctx.out, "datasets", "lambda-dl-benchmark", "lambda_train.csv")
    w = Writer("network", path)
    skipped = set()
    count = 0
    for prec in ("fp32", "fp16"):
        tput = read_csv(os.path.join(src, f"pytorch-train-throughput-{prec}.csv"))
        bs = {r["name_gpu"]: r for r in read_csv(os.path.join(src, f"pytorch-train-bs-{prec}.csv"))}
        for r in tput:
            name = r["name_gpu"]
            if float(r["num_gpu"]) != 1:
                continue
            if name not in LAMBDA_GPUS:
                skipped.add(name)
                continue
            for model, unit in LAMBDA_UNITS.items():
                t, b = num(r.get(model)), num(bs.get(name, {}).get(model))
                if t is None or t <= 0 or b is None:
                    continue
                if ctx.limit is not None and count >= ctx.limit:
                    break
                count += 1
                mp = ctx.exporter.ensure("torchvision", "resnet50", "resnet50") if model == "resnet50" else None
                lat = b / t * 1000.0 if model in LAMBDA_SAMPLE_UNITS else None
                w.add(id=f"lambda-{prec}-{safe_name(name)}-{model}", source="lambda-deeplearning-benchmark",
                      gpu_id=LAMBDA_GPUS[name], runtime="pytorch", runtime_version="NGC container",
                      precision=("tf32" if prec == "fp32" and LAMBDA_GPUS[name].startswith(("a", "h", "rtx-3", "rtx-4"))
                                 else "fp32") if prec == "fp32" else "fp16",
                      model=rel(mp, path), model_family="torchvision" if mp else "lambda-" + model,
                      recipe=f"DeepLearningExamples:{model}", mode="training", batch=int(b), latency_ms=lat,
                      notes=f"{name}; throughput {r[model]} {unit} at batch {int(b)}"
                            + ("" if lat is not None else "; latency not derived (throughput not in samples)")
                            + ("; fp32 table on Ampere+/Ada runs TF32 by default in NGC" if prec == "fp32" else
                               "; AMP"))
    n = w.write({"sources": [{"name": "lambda-deeplearning-benchmark",
                              "repository": "https://github.com/lambdal/deeplearning-benchmark",
                              "commit": "aa5addb6a53675a649a80036dad548f1c27cbcc4", "licence": "none-stated"}],
                 "licence": "none-stated",
                 "notes": ["No licence: validation only",
                           "v1 tables pytorch-train-throughput-{fp32,fp16}.csv with per-GPU batch sizes from "
                           "pytorch-train-bs-*.csv; single-GPU configs only; latency_ms = batch / throughput x 1000 "
                           "(includes data loading and optimizer step)",
                           "skipped devices not in data/gpus: " + ", ".join(sorted(skipped)),
                           "v2 tables are not converted: they carry no batch sizes",
                           "only resnet50 is rebuilt (torchvision resnet50 = ResNet-50 v1.5)"]})
    return {path: n}


# ---------------------------------------------------------------------------------------------------------------
# neusight-gpu-kernels

NEUSIGHT_GPUS = {"Tesla P4": "p4", "Tesla P100-PCIE-16GB": "p100-pcie-16gb", "Tesla T4": "t4",
                 "Tesla V100-PCIE-32GB": "v100-pcie-32gb", "NVIDIA A100-PCIE-40GB": "a100-pcie-40gb",
                 "NVIDIA A100 80GB PCIe": "a100-pcie-80gb"}
# op -> (ONNX op, family, FLOPs per element following src/analysis/rules_simple.cpp, inputs that are [B,H])
NEUSIGHT_VEC = {"ln": ("LayerNormalization", "norm", 8, 1), "softmax": ("Softmax", "softmax", 5, 1),
                "relu": ("Relu", "elementwise", 1, 1), "gelu": ("Gelu", "elementwise", 8, 1),
                "tanh": ("Tanh", "elementwise", 4, 1), "add": ("Add", "elementwise", 1, 2),
                "mul": ("Mul", "elementwise", 1, 2), "div": ("Div", "elementwise", 1, 2),
                "pow": ("Pow", "elementwise", 4, 2), "addu": ("Add", "elementwise", 1, 1),
                "mulu": ("Mul", "elementwise", 1, 1), "divu": ("Div", "elementwise", 1, 1),
                "powu": ("Pow", "elementwise", 4, 1)}


def kernel_names(s):
    return "|".join(k for k in (s or "").split(";") if k)


def convert_neusight(ctx):
    src = os.path.join(ctx.shared, "neusight-gpu-kernels", "data", "dataset", "train", "collect")
    out_dir = os.path.join(ctx.out, "datasets", "neusight-gpu-kernels")
    written = {}
    ops = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    meta_common = {"sources": [{"name": "neusight", "repository": "https://github.com/sitar-lab/NeuSight",
                                "commit": "6945927d9afcca2b9daf021f8395e53edc5b4eef", "licence": "MIT"}],
                   "licence": "MIT",
                   "environment": {"pytorch": "2.1.0", "cuda": "12.1", "cudnn": "8.9.2"}}
    for op in ops:
        path = os.path.join(out_dir, f"{op}.csv")
        w = Writer("kernel", path)
        files = sorted(glob.glob(os.path.join(src, op, "p2.1.0", "*.csv*")))
        for f in files:
            rows = read_csv(f)[: ctx.limit]
            dev = os.path.basename(f).split(".csv")[0]
            gpu = NEUSIGHT_GPUS.get(dev)
            if gpu is None:
                raise ValueError(f"{f}: unknown NeuSight device {dev!r}; add it to NEUSIGHT_GPUS")
            for i, r in enumerate(rows):
                row = dict(id=f"{gpu}-{op}-{i}", source="neusight", gpu_id=gpu, runtime="pytorch",
                           runtime_version="2.1.0", precision="fp32", phase="forward", time_ms=num(r["Latency"]),
                           kernel_names=kernel_names(r.get("Kernels")) or r.get("Kernel Name", ""),
                           notes=f"mean of the 5 fastest of 25 runs; cudnn {r['CUDNN Version']}; first kernel "
                                 f"grid {r['Grid x']}x{r['Grid y']}x{r['Grid z']} block {r['Block x']}x{r['Block y']}"
                                 f"x{r['Block z']}")
                if op == "conv":
                    b, cin, cout, k, h, s, p = (int(r[c]) for c in ("B", "Input_Channel", "Output_Channel",
                                                                    "Kernel_Szie", "Input_Size", "Stride", "Padding"))
                    ho = (h + 2 * p - k) // s + 1
                    row.update(conv_row(b, cin, cout, h, h, k, k, s, s, p, p, ho, ho, 4, bias=False))
                elif op in ("bmm", "linear"):
                    b, m, n, k = (int(r[c]) for c in ("B", "M", "N", "K"))
                    if op == "bmm":
                        row.update(op_family="gemm", op="MatMul", inputs=f"{b}x{m}x{n};{b}x{n}x{k}",
                                   gemm_batch=b, gemm_m=m, gemm_n=k, gemm_k=n, flops=2 * b * m * n * k,
                                   bytes=4 * (b * m * n + b * n * k + b * m * k))
                        row["attrs"] = f"batch={b};m={m};n={k};k={n}"
                    else:  # Linear(N -> K, bias) on [B, M, N]
                        # ONNX view of torch's Linear: Gemm(X[M,N], W[K,N], bias, transB=1) for B=1, else
                        # MatMul(X[B,M,N], W^T[N,K]) + Add(bias)
                        row.update(op_family="gemm", op="Gemm" if b == 1 else "MatMul",
                                   inputs=f"{m}x{n};{k}x{n};{k}" if b == 1 else f"{b}x{m}x{n};{n}x{k};{k}",
                                   gemm_batch=1, gemm_m=b * m, gemm_n=k, gemm_k=n,
                                   flops=2 * b * m * n * k + b * m * k,
                                   bytes=4 * (b * m * n + n * k + k + b * m * k))
                        # cuBLAS runs x W^T as TN (column-major, DeepBench's trans_a/trans_b; kernel names *_tn)
                        row["attrs"] = f"batch=1;m={b * m};n={k};k={n};trans_a=1;trans_b=0"
                        row["notes"] += "; torch.nn.Linear with bias (flops include the bias add)"
                else:
                    onnx_op, fam, per, n_in = NEUSIGHT_VEC[op]
                    b, hh = int(r["B"]), int(r["H"])
                    el = b * hh
                    shapes = [f"{b}x{hh}"] * n_in
                    extra = 0
                    if op == "ln":
                        shapes += [f"{hh}", f"{hh}"]
                        extra = 2 * hh
                    row.update(op_family=fam, op=onnx_op, inputs=";".join(shapes),
                               attrs=f"elements={el};inner={hh};outer={b}", flops=per * el,
                               bytes=4 * (n_in * el + extra + el))
                    if op in ("addu", "mulu", "divu", "powu"):  # `x + 2.0`: the second operand a Python number (its own timer floor)
                        row["attrs"] += ";scalar_operand=1"
                        row["notes"] += "; tensor-scalar variant"
                w.add(**row)
        written[path] = w.write(dict(meta_common, notes=[
            "single PyTorch op, forward only, FP32 (cudnn.allow_tf32=False, cudnn.benchmark=True)",
            "bytes = ideal DRAM traffic (inputs + weights + outputs, fp32); flops: multiply-add = 2, "
            "per-element costs as src/analysis/rules_simple.cpp",
            "conv on A100 is the 80 GB PCIe card (a100-pcie-80gb); other ops on a100-pcie-40gb",
            "test split not converted; the whole-model transformer labels are the set neusight-transformers"]))
    return written


# neusight-transformers: NeuSight's whole-model labels (label/<GPU>/<model>-<inf|train>-<seq>-<batch>[-suffix].json)

NEUSIGHT_LABEL_GPUS = {"NVIDIA_A100-PCIE-40GB": "a100-pcie-40gb", "Tesla_P100-PCIE-16GB": "p100-pcie-16gb",
                       "Tesla_P4": "p4", "Tesla_T4": "t4", "Tesla_V100-PCIE-32GB": "v100-pcie-32gb",
                       "NVIDIA_A100-SXM4-40GB": "a100-sxm4-40gb"}
NEUSIGHT_LABEL_SKIP = {
    "dp4": "multi-GPU label (4-way data parallel): perfpred predicts one GPU",
    "tp4": "multi-GPU label (4-way tensor parallel): perfpred predicts one GPU",
    "pp4_1": "multi-GPU label (4-stage pipeline parallel): perfpred predicts one GPU",
    "fusion": "operator-fusion variant of the eager label (NeuSight's fused-operator experiment; no per-op CSV and no "
              "code in this copy says which fusion ran), not PyTorch eager and not a runtime perfpred models",
}


def neusight_label_recipe(model, mode, seq):
    """(family, recipe, reason): the rebuild of one label's model, or reason why there is none."""
    import dataset_models as dm
    if model == "switchxl4":
        return None, None, ("Switch Transformer (encoder-decoder mixture of experts with token routing) is not rebuilt: "
                            "routing decides per token which expert runs, which a static ONNX graph does not express")
    if model == "bert_large" and mode == "training":
        model = "bert_large_pretraining"  # the training labels ran BertForPreTraining (per-node CSV)
    recipe = f"{model}@{seq}"
    try:
        dm.parse_neusight_transformer(recipe)
    except ValueError as e:
        return None, None, str(e)
    return "neusight-transformer", recipe, None


def convert_neusight_transformers(ctx):
    src = os.path.join(ctx.shared, "neusight-gpu-kernels", "label")
    path = os.path.join(ctx.out, "datasets", "neusight-transformers", "labels.csv")
    w = Writer("network", path, extra_columns=["attention"])
    n = 0
    for gdir in sorted(os.listdir(src)):
        if gdir.startswith("AMD_"):
            continue  # AMD Instinct GPUs: not in the catalog, and not CUDA
        gpu = NEUSIGHT_LABEL_GPUS.get(gdir)
        if gpu is None:
            raise ValueError(f"{os.path.join(src, gdir)}: unknown NeuSight label GPU; add it to NEUSIGHT_LABEL_GPUS")
        for f in sorted(glob.glob(os.path.join(src, gdir, "*.json"))):
            name = os.path.basename(f)[:-5]
            m = re.fullmatch(r"([a-z0-9_]+)-(inf|train)-(\d+)-(\d+)(?:-([a-z0-9_]+))?", name)
            if not m:
                raise ValueError(f"{f}: label name is not <model>-<inf|train>-<seq>-<batch>[-suffix]")
            if ctx.limit is not None and n >= ctx.limit:
                break
            n += 1
            model, mode, seq, batch, suffix = m.groups()
            mode = "inference" if mode == "inf" else "training"
            with open(f, encoding="utf-8") as fh:
                lab = json.load(fh)
            row = dict(id=f"{gpu}-{name}", source="neusight", gpu_id=gpu, runtime="pytorch", runtime_version="2.1.0",
                       precision="fp32", mode=mode, batch=int(batch), includes_h2d=0, attention="math",
                       latency_ms=num(lab.get("e2e_latency")),
                       notes=f"seq_len {seq}; {lab.get('num_layer')} layers; forward {num(lab.get('fw_latency'))} ms"
                             + (f", backward {num(lab.get('bwall_latency'))} ms" if mode == "training" else "")
                             + "; HF model rebuilt in tools/dataset_models.py; no optimizer step (fwd + bwd only)")
            if suffix is not None and suffix not in NEUSIGHT_LABEL_SKIP:
                raise ValueError(f"{f}: unknown label suffix {suffix!r}; add it to NEUSIGHT_LABEL_SKIP")
            family, recipe, reason = neusight_label_recipe(model, mode, seq)
            row.update(model_family=family or "", recipe=recipe or f"{model}@{seq}")
            if suffix is not None or reason:
                row.update(status="skipped", reason=NEUSIGHT_LABEL_SKIP[suffix] if suffix else reason)
            else:
                model_path = ctx.exporter.ensure(family, safe_name(recipe), recipe)
                row["model"] = rel(model_path, path)
            w.add(**row)
    return {path: w.write({
        "sources": [{"name": "neusight", "repository": "https://github.com/sitar-lab/NeuSight",
                     "commit": "6945927d9afcca2b9daf021f8395e53edc5b4eef", "licence": "MIT",
                     "path": "scripts/asplos/label"}],
        "licence": "MIT",
        "environment": {"pytorch": "2.1.0", "cuda": "12.1", "cudnn": "8.9.2"},
        "notes": [
            "end-to-end latency of the full HuggingFace model (e2e_latency, ms; training = forward + backward, no "
            "optimizer step), PyTorch 2.1 eager",
            "fp32 with TF32 off for matmuls too: A100 linears in the per-node CSVs run at 18.6 TFLOP/s (OPT fc1, "
            "4096x2048x8192), at the 19.5 TFLOP/s FP32 peak and far below TF32's; PyTorch 2.1's default "
            "torch.backends.cuda.matmul.allow_tf32 is False",
            "inputs and outputs stay on the GPU (includes_h2d 0): the labels time the model call",
            "attention = math: HuggingFace's eager attention of that era, as the per-node CSVs list it (matmul, "
            "softmax, dropout, matmul as separate nodes), not one fused scaled_dot_product_attention",
            "H100, L4 and A100 80GB labels are not in this copy; AMD Instinct labels are not converted (no catalog "
            "entries); multi-GPU (-dp4/-tp4/-pp4_1) and -fusion labels are rows with status skipped"]})}


def conv_row(b, cin, cout, h, w_, kh, kw, sh, sw, ph, pw, ho, wo, elem, bias, groups=1, dil=1):
    flops = 2 * b * cout * ho * wo * (cin // groups) * kh * kw + (b * cout * ho * wo if bias else 0)
    byt = elem * (b * cin * h * w_ + cout * (cin // groups) * kh * kw + (cout if bias else 0) + b * cout * ho * wo)
    attrs = (f"batch={b};in_channels={cin};out_channels={cout};groups={groups};in_h={h};in_w={w_};out_h={ho};"
             f"out_w={wo};kernel_h={kh};kernel_w={kw};stride_h={sh};stride_w={sw};dilation_h={dil};dilation_w={dil};"
             f"pad_h={ph};pad_w={pw};has_bias={1 if bias else 0}")
    inputs = f"{b}x{cin}x{h}x{w_};{cout}x{cin // groups}x{kh}x{kw}" + (f";{cout}" if bias else "")
    return dict(op_family="conv", op="Conv", inputs=inputs, attrs=attrs, gemm_batch=groups, gemm_m=b * ho * wo,
                gemm_n=cout // groups, gemm_k=(cin // groups) * kh * kw, flops=flops, bytes=byt)


# ---------------------------------------------------------------------------------------------------------------
# deepbench-kernels

DB_GPUS = {"1080Ti": ("gtx-1080ti", ""), "TitanX_Pascal": ("titan-x-pascal", ""), "TitanXp": ("titan-xp", ""),
           "TitanX": ("spec:titan-x-maxwell", "Maxwell Titan X (PROVENANCE; CUDA 7.5 machine)"),
           "M40": ("spec:m40", ""),
           "P100": ("p100-pcie-16gb", "P100 mapped to the PCIe 16 GB card: workstation board (ASUS X99-E WS), "
                                      "memory size not stated"),
           "V100": ("v100-sxm2-16gb", "V100 in a DGX-1 (SXM2); 16 GB vs 32 GB not stated"),
           "T4": ("t4", "")}


def db_precision(sheet, kind):
    s = sheet.lower()
    if "mixed_precision" in s:  # inference sheets: INT8 GEMM/conv, FP32 RNN
        return ("fp32", "") if kind == "rnn" else ("int8", "INT8 multiply, INT32 accumulate")
    if "psuedo_fp16" in s:
        return "fp16", "FP16 storage, FP32 math (pseudo FP16)"
    if "fp16" in s:
        return "fp16", "FP16 inputs, tensor-core mixed math"
    if "fp32" in s:
        return "fp32", ""
    raise ValueError(f"unknown DeepBench sheet precision {sheet!r}")


ELEM = {"fp32": 4, "fp16": 2, "int8": 1}


def db_env(ctx):
    env = {}
    for f in glob.glob(os.path.join(ctx.shared, "deepbench-kernels", "csv", "*Specs.csv")):
        mode, gpu = re.match(r"(\w+?)__DeepBench_NV_(\w+?)__Specs", os.path.basename(f)).groups()
        d = {}
        with open(f, encoding="utf-8") as fh:
            for line in fh:
                parts = line.rstrip("\n").split(",", 1)
                if len(parts) == 2 and parts[1].strip():
                    d[parts[0].strip()] = parts[1].strip()
        env[(mode, gpu)] = d
    return env


# DeepBench applications: the source's names (result sheets' `app` column, the kernel lists' `Source`) -> one
# model_family slug per application. Character language modelling is a language model: DeepBench's own result
# sheets label those LSTMs "Language Modelling".
DB_APP_ALIASES = {"deep-speech": "deepspeech", "character-language-modelling": "language-modelling"}
DB_CONV_KEY = ("W", "H", "C", "N", "K", "S_filter_w", "R_filter_h", "pad_w", "pad_h", "stride_w", "stride_h")


def db_app_slug(name):
    """'DeepSpeech, gru affine' -> 'deepspeech', 'Face Recognition, ID' -> 'face-recognition'."""
    s = re.sub(r"[^a-z0-9]+", "-", name.split(",")[0].strip().lower()).strip("-")
    return DB_APP_ALIASES.get(s, s)


def db_shape_key(kind, r):
    """The shape a DeepBench tidy row measures, as the kernel lists give it."""
    if kind == "gemm":
        return ("gemm", r["M"], r["N"], r["K"], r["transA"], r["transB"])
    if kind == "conv":
        return ("conv",) + tuple(r[c] for c in DB_CONV_KEY)
    return ("rnn-" + r["cell"].strip().lower(), r["hidden"], r["N"], r["timesteps"])


def db_kernel_list_apps(src):
    """Shape key -> applications in listing order, from DeepBench's kernel lists (train, then inference)."""
    apps = {}
    for mode in ("train", "inference"):
        section = None
        with open(os.path.join(src, "csv", f"kernels__DeepBenchKernels_{mode}__Kernels.csv"), encoding="utf-8") as f:
            for row in csv.reader(f):
                if row and row[0].strip():  # a section header: "Dense Matrix Multiplication", "Recurrent Layers - GRU"
                    h = row[0].lower()
                    section = ("gemm" if "matrix" in h else "conv" if "convolution" in h else
                               "rnn-" + h.rsplit("-", 1)[-1].strip() if "recurrent" in h else None)
                    continue
                if section is None or len(row) < 3 or not row[1].strip():
                    continue
                v = [c.strip() for c in row[2:]]
                key = (section,) + tuple(v[: {"gemm": 5, "conv": 11}.get(section, 3)])
                app = db_app_slug(row[1])
                if app not in apps.setdefault(key, []):
                    apps[key].append(app)
    return apps


def db_apps(kind, rows, listed):
    """Shape key -> (application, note) for every shape of a tidy table. The application is a function of the
    shape, so a leave-one-application-out split never trains on the shape it holds out on another GPU: the kernel
    lists' applications and the result sheets' own `app` labels (some GPUs' sheets have them) of the shape,
    the first listed when several applications list it."""
    found = {}
    for r in rows:
        key = db_shape_key(kind, r)
        apps = found.setdefault(key, list(listed.get(key, [])))
        if r.get("app") and db_app_slug(r["app"]) not in apps:
            apps.append(db_app_slug(r["app"]))
    out = {}
    for key, apps in found.items():
        if not apps:
            out[key] = ("", "application not listed by DeepBench")
        elif len(apps) == 1:
            out[key] = (apps[0], "")
        else:
            out[key] = (apps[0], f"shape also listed for {', '.join(apps[1:])}")
    return out


def convert_deepbench(ctx):
    src = os.path.join(ctx.shared, "deepbench-kernels")
    out_dir = os.path.join(ctx.out, "datasets", "deepbench-kernels")
    env = db_env(ctx)
    written = {}
    meta = {"sources": [{"name": "deepbench", "repository": "https://github.com/baidu-research/DeepBench",
                         "commit": "da81ba7820739e2e506dc27f382d15be5479f98f", "licence": "Apache-2.0"}],
            "licence": "Apache-2.0",
            "environment": {f"{m}/{g}": {"cuda": d.get("CUDA Version", ""), "cudnn": d.get("Cudnn Version", ""),
                                         "driver": d.get("Nvidia Driver", ""), "gpu": d.get("GPU Model", "")}
                            for (m, g), d in sorted(env.items())}}

    def rt(mode, gpu, lib):
        d = env.get((mode, gpu), {})
        return lib, (d.get("Cudnn Version", "") if lib == "cudnn" else d.get("CUDA Version", ""))

    listed = db_kernel_list_apps(src)
    tables = {k: read_csv(os.path.join(src, f"deepbench_{k}_tidy.csv")) for k in ("gemm", "conv", "rnn")}
    apps = {k: db_apps(k, rows, listed) for k, rows in tables.items()}  # over every row, whatever --limit

    def common(r, kind):
        gpu, gnote = DB_GPUS[r["gpu"]]
        prec, pnote = db_precision(r["sheet"], kind)
        app, anote = apps[kind][db_shape_key(kind, r)]
        notes = [f"{r['mode']} sheet {r['sheet']}"] + ([f"app={app}"] if app else []) + ([anote] if anote else []) + \
                ([pnote] if pnote else []) + ([gnote] if gnote else [])
        return gpu, prec, notes, app

    # GEMM
    path = os.path.join(out_dir, "gemm.csv")
    w = Writer("kernel", path)
    for i, r in enumerate(tables["gemm"][: ctx.limit]):
        gpu, prec, notes, app = common(r, "gemm")
        m, n, k = int(r["M"]), int(r["N"]), int(r["K"])
        e = ELEM[prec]
        out_e = 4 if prec == "int8" else e
        a_shape = f"{k}x{m}" if r["transA"] == "T" else f"{m}x{k}"
        b_shape = f"{n}x{k}" if r["transB"] == "T" else f"{k}x{n}"
        runtime, ver = rt(r["mode"], r["gpu"], "cublas")
        w.add(id=f"gemm-{i}", source="deepbench", model_family=app, gpu_id=gpu, runtime=runtime, runtime_version=ver, precision=prec,
              op_family="gemm", op="Gemm", phase="forward", inputs=f"{a_shape};{b_shape}",
              attrs=f"batch=1;m={m};n={n};k={k};trans_a={int(r['transA'] == 'T')};trans_b={int(r['transB'] == 'T')}",
              gemm_batch=1, gemm_m=m, gemm_n=n, gemm_k=k, flops=2 * m * n * k,
              bytes=e * (m * k + k * n) + out_e * m * n, time_ms=num(r["time_ms"]), notes="; ".join(notes))
    written[path] = w.write(dict(meta, notes=["cuBLAS GEMM C[MxN] = op(A)[MxK] op(B)[KxN], average ms per call"]))
    # conv: three phases
    path = os.path.join(out_dir, "conv.csv")
    w = Writer("kernel", path)
    for i, r in enumerate(tables["conv"][: ctx.limit]):
        gpu, prec, notes, app = common(r, "conv")
        W, H, C, N, K = (int(r[c]) for c in ("W", "H", "C", "N", "K"))
        S, R, pw, ph, sw, sh = (int(r[c]) for c in ("S_filter_w", "R_filter_h", "pad_w", "pad_h", "stride_w",
                                                    "stride_h"))
        ho, wo = (H + 2 * ph - R) // sh + 1, (W + 2 * pw - S) // sw + 1
        base = conv_row(N, C, K, H, W, R, S, sh, sw, ph, pw, ho, wo, ELEM[prec], bias=False)
        x_b, w_b, y_b = (ELEM[prec] * v for v in (N * C * H * W, K * C * R * S, N * K * ho * wo))
        runtime, ver = rt(r["mode"], r["gpu"], "cudnn")
        for phase, col, byt in (("forward", "fwd_ms", None), ("backward_data", "bwd_inputs_ms", y_b + w_b + x_b),
                                ("backward_weight", "bwd_params_ms", x_b + y_b + w_b)):
            t = num(r.get(col))
            if t is None:
                continue
            row = dict(base)
            if byt is not None:
                row["bytes"] = byt
            if prec == "int8":
                row["bytes"] = x_b + w_b + 4 * N * K * ho * wo
            n2 = notes + ([f"fwd algo {r['fwd_algo']}"] if phase == "forward" and r.get("fwd_algo") else [])
            w.add(id=f"conv-{i}-{phase}", source="deepbench", model_family=app, gpu_id=gpu, runtime=runtime, runtime_version=ver,
                  precision=prec, phase=phase, time_ms=t, notes="; ".join(n2), **row)
    written[path] = w.write(dict(meta, notes=["cuDNN convolution, fastest algorithm from cudnnFind*, average ms per "
                                              "call; NCHW, no bias; backward phases from the training sheets"]))
    # RNN
    path = os.path.join(out_dir, "rnn.csv")
    w = Writer("kernel", path)
    for i, r in enumerate(tables["rnn"][: ctx.limit]):
        gpu, prec, notes, app = common(r, "rnn")
        cell = r["cell"].strip().upper()
        op = {"LSTM": "LSTM", "GRU": "GRU"}.get(cell, "RNN")
        gates = {"LSTM": 4, "GRU": 3}.get(op, 1)
        ew = {"LSTM": 24, "GRU": 16}.get(op, 4)
        h, n, t = int(r["hidden"]), int(r["N"]), int(r["timesteps"])
        # DeepBench's rnn_bench.cu builds the layer with CUDNN_SKIP_INPUT: x (hidden wide) is added to the
        # gates as it is, with no input weights and no input-projection GEMM. The work is the recurrent
        # GEMM alone (K = hidden, not input + hidden) and the weights are R alone (plus both biases).
        flops = t * n * (2 * gates * h * h + ew * h)
        e = ELEM[prec]
        byt = e * (t * n * h + gates * h * h + 2 * gates * h + t * n * h)
        runtime, ver = rt(r["mode"], r["gpu"], "cudnn")
        for phase, col in (("forward", "fwd_ms"), ("backward_data", "bwd_inputs_ms"),
                           ("backward_weight", "bwd_weights_ms")):
            tm = num(r.get(col))
            if tm is None:
                continue
            w.add(id=f"rnn-{i}-{phase}", source="deepbench", model_family=app, gpu_id=gpu, runtime=runtime, runtime_version=ver,
                  precision=prec, op_family="rnn", op=op, phase=phase,
                  inputs=f"{t}x{n}x{h};1x{gates * h}x{h};1x{2 * gates * h}",
                  attrs=f"batch={n};seq_len={t};hidden={h};input_size={h};directions=1;gates={gates};skip_input=1",
                  gemm_batch=1, gemm_m=n, gemm_n=gates * h, gemm_k=h, flops=flops, bytes=byt, time_ms=tm,
                  notes="; ".join(notes + [f"cell {r['cell']}; CUDNN_SKIP_INPUT, input size = hidden (DeepBench)"]))
    written[path] = w.write(dict(meta, notes=["cuDNN RNN (CUDNN_RNN_ALGO_STANDARD), one layer, unidirectional, "
                                              "CUDNN_SKIP_INPUT (no input weights; x of hidden width added to "
                                              "the gates): flops are the recurrent GEMMs + elementwise"]))
    return written


# ---------------------------------------------------------------------------------------------------------------
# mlperf-inference-jetson

MLPERF_SOURCE = {"name": "mlperf-inference", "repository": "https://github.com/mlcommons/inference_results_v*",
                 "commit": "per row (source_commit)", "licence": "Apache-2.0"}
# System names -> catalog ids. The AGX Orin developer kit of these rounds is mapped to the 64 GB module, the only
# AGX Orin in data/gpus (the 32 GB module has 14 of its 16 SMs); every row says so in its notes.
MLPERF_GPUS = {"NVIDIA Jetson AGX Xavier": "jetson-agx-xavier", "NVIDIA Jetson AGX Xavier 32GB (TensorRT)":
               "jetson-agx-xavier", "NVIDIA Jetson AGX Xavier 32GB (TensorRT, Triton)": "jetson-agx-xavier",
               "NVIDIA Jetson Xavier NX (TensorRT)": "jetson-xavier-nx",
               "NVIDIA Jetson Xavier NX (TensorRT, Triton)": "jetson-xavier-nx",
               "NVIDIA Orin (TensorRT)": "jetson-agx-orin-64gb", "NVIDIA Jetson AGX Orin (TensorRT)":
               "jetson-agx-orin-64gb", "NVIDIA Orin NX (TensorRT)": "jetson-orin-nx-16gb"}
MLPERF_MODELS = {"resnet": "resnet50", "resnet50": "resnet50"}


def mlperf_skip_reason(r):
    """Why an MLPerf row is not a GPU-only TensorRT latency at full clocks, or '' when it is one."""
    if r["benchmark"] not in MLPERF_MODELS:
        return f"benchmark {r['benchmark']} has no rebuilt network"
    if r["scenario"] not in ("SingleStream", "MultiStream"):
        return f"{r['scenario']}: a throughput run (GPU and both DLAs on Jetson)"
    if r["cfg_uses_dla"] != "no":
        return "runs on the DLAs too, or the harness config is unknown"
    if r["power_avg_W_derived"] or "MaxQ" in r["system_name"]:
        return "MaxQ power run: GPU clock capped by the harness (cfg_soc_gpu_freq), not a catalogued power mode"
    if r["scenario"] == "MultiStream" and r["samples_per_query"] != "8":
        return "v0.5-v1.1 MultiStream: the metric is a stream count, not a latency"
    if r["system_name"] not in MLPERF_GPUS:
        return f"system {r['system_name']!r} not in data/gpus"
    if r["input_data_types"] != "int8":
        return f"precision {r['input_data_types']}"
    if not r["mean_latency_ns"]:
        return "no mean latency in the summary"
    return ""


def convert_mlperf_jetson(ctx):
    src = os.path.join(ctx.shared, "mlperf-inference-jetson", "mlperf_jetson_results.csv")
    path = os.path.join(ctx.out, "datasets", "mlperf-inference-jetson", "mlperf_jetson.csv")
    rows = read_csv(src)[: ctx.limit]
    w = Writer("network", path, extra_columns=["cuda_graphs"])
    skipped = {}
    for i, r in enumerate(rows):
        reason = mlperf_skip_reason(r)
        if reason:
            skipped[reason.split(":")[0]] = skipped.get(reason.split(":")[0], 0) + 1
            continue
        name = MLPERF_MODELS[r["benchmark"]]
        mp = ctx.exporter.ensure("torchvision", name, name)
        batch = int(r["samples_per_query"])
        gpu = MLPERF_GPUS[r["system_name"]]
        w.add(id=f"mlperf-{r['mlperf_version']}-{safe_name(r['system_name'])}-{r['scenario']}-{i}",
              source="mlperf-inference", gpu_id=gpu, runtime="tensorrt", runtime_version=r["framework"][:80],
              precision="int8", model=rel(mp, path), model_family="torchvision", recipe=f"mlperf:{r['benchmark']}",
              mode="inference", batch=batch, includes_h2d=1, latency_ms=float(r["mean_latency_ns"]) / 1e6,
              cuda_graphs=1 if r.get("cfg_use_graphs") == "True" else 0,
              notes=f"MLPerf {r['mlperf_version']} {r['division']} {r['submitter']}, {r['system_name']}, "
                    f"{r['scenario']} ({batch} sample(s) per query), GPU only, mean query latency (p90 "
                    f"{r['p90_latency_ns']} ns); TensorRT INT8 ResNet-50 v1.5 from resnet50_v1.onnx"
                    + ("; AGX Orin devkit mapped to the 64 GB module" if gpu == "jetson-agx-orin-64gb" else ""))
    n = w.write({"sources": [MLPERF_SOURCE], "licence": "Apache-2.0",
                 "environment": {"runtime": "TensorRT (NVIDIA's LWIS harness), INT8, GPU only, MaxN clocks"},
                 "notes": ["mlperf_jetson_results.csv: ResNet-50 SingleStream (batch 1) and v2.0+ MultiStream (8 "
                           "samples per query) runs with cfg_uses_dla=no; latency_ms = mean_latency_ns / 1e6 (query "
                           "issue to completion, input already preprocessed, copy included; Jetson memory is unified)",
                           "cuda_graphs = the harness config's use_graphs (1: the engine replayed as a captured CUDA "
                           "graph, v1.1+ and Xavier NX from v0.7; 0: enqueued kernel by kernel)",
                           "skipped: " + ", ".join(f"{v} {k}" for k, v in sorted(skipped.items())),
                           "model: torchvision resnet50 (= MLPerf's ResNet-50 v1.5) exported parameter-free"]})
    return {path: n}


# ---------------------------------------------------------------------------------------------------------------
# trtutils-yolo-jetson

TRTUTILS_GPUS = {"OrinAGX-64GB": "jetson-agx-orin-64gb", "OrinNX-16GB": "jetson-orin-nx-16gb",
                 "OrinNano-8GB": "jetson-orin-nano-8gb", "XavierNX-8GB": "jetson-xavier-nx", "3090": "rtx-3090"}


def convert_trtutils(ctx):
    src = os.path.join(ctx.shared, "trtutils-yolo-jetson", "trtutils_yolo_latency.csv")
    path = os.path.join(ctx.out, "datasets", "trtutils-yolo-jetson", "trtutils_yolo.csv")
    import dataset_models as dm
    keep, skipped = [], {}
    for r in read_csv(src):
        why = ("end-to-end mode (pre/post-processing, copies)" if r["framework_mode"] != "tensorrt" else
               "device not in data/gpus" if r["device"] not in TRTUTILS_GPUS else
               "no rebuilt network (only YOLOv8 is written out)" if not r["model"].startswith("yolov8") else "")
        if why:
            skipped[why] = skipped.get(why, 0) + 1
            continue
        keep.append(r)
    keep = keep[: ctx.limit]
    recipes = [f"{r['model']}@{r['input_size']}" for r in keep]
    chosen = ctx.exporter.choose("yolov8", recipes)
    w = Writer("network", path)
    for i, (r, recipe) in enumerate(zip(keep, recipes)):
        dm.parse_yolov8(recipe)
        name = safe_name(recipe)
        mp = ctx.exporter.ensure("yolov8", name, recipe) if recipe in chosen else ctx.exporter.existing("yolov8", name)
        w.add(id=f"trtutils-{safe_name(r['device'])}-{name}-{i}", source="trtutils", gpu_id=TRTUTILS_GPUS[r["device"]],
              runtime="tensorrt", runtime_version="not recorded", precision="fp16", model=rel(mp, path),
              model_family="yolov8", recipe=recipe, mode="inference", batch=1, includes_h2d=0,
              latency_ms=num(r["mean_ms"]),
              notes=f"{r['device']} {r['device_note']}; TRTEngine.raw_exec on device-resident inputs + stream sync, "
                    f"mean of 1,000 iterations after 100 warm-up (median {r['median_ms']}, min {r['min_ms']}); "
                    "FP16 engine, optimization_level=1, EfficientNMS plugin appended (not in the rebuilt graph); "
                    "Jetson power mode not recorded (MAXN assumed)")
    n = w.write({"sources": [{"name": "trtutils", "repository": "https://github.com/justincdavis/trtutils",
                              "commit": "471d1e925fd7ea41469d3a692bf5ac6c479206ca", "licence": "MIT"}],
                 "licence": "MIT",
                 "environment": {"runtime": "TensorRT FP16 (version not recorded), batch 1"},
                 "notes": ["trtutils_yolo_latency.csv, framework_mode 'tensorrt' (raw engine execution, no copies, no "
                           "pre/post-processing); latency_ms = mean_ms",
                           "the timed region (benchmark/run.py of that version) is one TRTEngine.raw_exec(debug=True): "
                           "set_tensor_address, execute_async_v3 and one cudaStreamSynchronize, from Python; the "
                           "bindings are mapped pinned host memory on Jetson (cudaHostAllocMapped, zero-copy) and "
                           "cudaMalloc on desktop GPUs, the input is never filled, outputs are not copied back; the "
                           "engine ends in the EfficientNMS plugin, which the rebuilt graph leaves out",
                           "models: YOLOv8 n/s/m written out in tools/dataset_models.py (ultralytics yolov8.yaml, 80 "
                           "classes, DFL decode), parameter counts equal to ultralytics' (3,157,200 / 11,166,560 / "
                           "25,902,640), exported parameter-free at each input size",
                           "skipped: " + ", ".join(f"{v} {k}" for k, v in sorted(skipped.items()))]})
    return {path: n}


# ---------------------------------------------------------------------------------------------------------------
# driver

SETS = {"help-nas-latency": convert_help, "pytorch-gpu-benchmark-ryujaehun": convert_ryujaehun,
        "jetson-nano-trt-energy-icas": convert_icas, "gpumemnet-a100-memory": convert_gpumemnet,
        "zeus-gpu-power-traces": convert_zeus, "lambda-dl-benchmark": convert_lambda,
        "neusight-gpu-kernels": convert_neusight, "deepbench-kernels": convert_deepbench,
        "mlperf-inference-jetson": convert_mlperf_jetson, "trtutils-yolo-jetson": convert_trtutils,
        "neusight-transformers": convert_neusight_transformers}
# Sets read from another set's folder (or a part of it): the fingerprint hashes these files.
SOURCE_DIRS = {"neusight-transformers": os.path.join("neusight-gpu-kernels", "label")}
FAMILIES = {"help-nas-latency": ["nasbench201", "fbnet", "ofa-mbv3"], "pytorch-gpu-benchmark-ryujaehun": ["torchvision"],
            "jetson-nano-trt-energy-icas": ["icas-convnet"], "gpumemnet-a100-memory": ["gpumemnet-mlp", "torchvision"],
            "zeus-gpu-power-traces": ["torchvision"], "lambda-dl-benchmark": ["torchvision"],
            "mlperf-inference-jetson": ["torchvision"], "trtutils-yolo-jetson": ["yolov8"],
            "neusight-transformers": ["neusight-transformer"]}


class Ctx:
    pass


def parse_sample(text):
    """'N', 'all', or comma-separated FAMILY=N|all overrides (a bare N or 'all' applies to every family)."""
    sample = dict(DEFAULT_SAMPLE)
    if text is None:
        return sample
    for part in text.split(","):
        fam, eq, val = part.rpartition("=")
        if not re.fullmatch(r"\d+|all", val):
            raise ValueError(f"want N, 'all' or FAMILY=N, got {part!r}")
        v = None if val == "all" else int(val)
        if not eq:
            sample = {k: v for k in sample}
        elif fam in sample:
            sample[fam] = v
        else:
            raise ValueError(f"unknown family {fam!r}; known: {', '.join(sample)}")
    return sample


def _code_hash():
    h = hashlib.sha256()
    for f in (__file__, os.path.join(HERE, "dataset_models.py")):
        with open(f, "rb") as fh:
            h.update(fh.read())
    return h.hexdigest()


CODE_HASH = _code_hash()  # read once at start: the code that runs, even if the files are edited meanwhile


def fingerprint(ctx, name):
    h = hashlib.sha256()
    h.update(CODE_HASH.encode())
    for f in sorted(glob.glob(os.path.join(ctx.shared, SOURCE_DIRS.get(name, name), "**", "*"), recursive=True)):
        if os.path.isfile(f):
            st = os.stat(f)
            h.update(f"{os.path.relpath(f, ctx.shared)}:{st.st_size}:{int(st.st_mtime)}".encode())
    h.update(json.dumps([ctx.limit, ctx.sample, ctx.seed], sort_keys=True).encode())
    for fam in FAMILIES.get(name, []):
        d = os.path.join(ctx.out, "models", fam)
        h.update(f"{fam}:{len(os.listdir(d)) if os.path.isdir(d) else 0}".encode())
    return h.hexdigest()


def main(argv=None):
    ap = argparse.ArgumentParser(description="Convert ../shared/datasets into perfpred dataset CSVs.")
    ap.add_argument("sets", nargs="*", help="set names (default with --all: every set)")
    ap.add_argument("--all", action="store_true", help="convert every set")
    ap.add_argument("--list", action="store_true", help="list the sets and exit")
    ap.add_argument("--out", default=os.path.join(REPO, "cache"), help="output root (default <repo>/cache)")
    ap.add_argument("--shared", default=DEFAULT_SHARED, help="datasets folder (default ../shared/datasets)")
    ap.add_argument("--limit", type=int, default=None, help="at most N source records per set")
    ap.add_argument("--sample", default=None,
                    help="networks to export per family: N, 'all' or FAMILY=N,... (default: " +
                         ", ".join(f"{k} {v or 'all'}" for k, v in DEFAULT_SAMPLE.items()) + ")")
    ap.add_argument("--seed", type=int, default=0, help="seed of the export sample (default 0)")
    ap.add_argument("--force", action="store_true", help="convert even when up to date")
    args = ap.parse_args(argv)
    if args.list:
        for s in SETS:
            print(s)
        return 0
    names = list(SETS) if args.all else args.sets
    if not names:
        ap.error("name a set or pass --all")
    for n in names:
        if n not in SETS:
            print(f"convert_datasets: unknown set {n!r}; known: {', '.join(SETS)}", file=sys.stderr)
            return 2
    if not os.path.isdir(args.shared):
        print(f"convert_datasets: datasets folder {args.shared} not found; pass --shared", file=sys.stderr)
        return 2
    if args.limit is not None and args.limit < 0:
        print("convert_datasets: --limit must be >= 0", file=sys.stderr)
        return 2
    try:
        sample = parse_sample(args.sample)
    except ValueError as e:
        print(f"convert_datasets: --sample: {e}", file=sys.stderr)
        return 2
    sys.path.insert(0, HERE)
    import torch
    torch.set_num_threads(1)
    ctx = Ctx()
    ctx.shared, ctx.out, ctx.limit, ctx.seed = os.path.abspath(args.shared), os.path.abspath(args.out), args.limit, args.seed
    ctx.sample = sample
    ctx.exporter = Exporter(ctx.out, sample, args.limit, args.seed)
    summary = {}
    t_all = time.time()
    for n in names:
        stamp = os.path.join(ctx.out, "datasets", n, ".converted.json")
        fp = fingerprint(ctx, n)
        if not args.force and os.path.exists(stamp):
            with open(stamp, encoding="utf-8") as f:
                st = json.load(f)
            if st.get("fingerprint") == fp and all(os.path.exists(p) for p in st.get("rows", {})):
                log(f"convert_datasets: {n}: up to date, skipped ({sum(st['rows'].values())} rows)")
                summary[n] = st["rows"]
                continue
        t0 = time.time()
        c0 = ctx.exporter.count
        rows = SETS[n](ctx)
        log(f"convert_datasets: {n}: {sum(rows.values())} rows in {len(rows)} files, "
            f"{ctx.exporter.count - c0} networks exported, {time.time() - t0:.1f} s")
        summary[n] = rows
        fp = fingerprint(ctx, n)  # after the exports
        with open(stamp, "w", encoding="utf-8") as f:
            json.dump({"fingerprint": fp, "rows": rows}, f, indent=2)
    total = sum(sum(r.values()) for r in summary.values())
    rate = f", {ctx.exporter.count / ctx.exporter.seconds:.2f} exports/s" if ctx.exporter.seconds else ""
    log(f"convert_datasets: {total} rows, {ctx.exporter.count} networks exported{rate}, "
        f"{time.time() - t_all:.1f} s")
    for fail in ctx.exporter.failures:
        log(f"convert_datasets: export failed: {fail}")
    for n, rows in summary.items():
        for p, c in rows.items():
            print(f"{os.path.relpath(p, ctx.out)}\t{c}")
    return 1 if ctx.exporter.failures else 0


if __name__ == "__main__":
    sys.exit(main())
