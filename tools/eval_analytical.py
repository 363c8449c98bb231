#!/usr/bin/python3
"""Measure the analytical model (perfpred predict, no learned bundle) against the converted data sets.

    /usr/bin/python3 tools/eval_analytical.py [--perfpred BIN] [--datasets cache/datasets] [--per-group N]
                                              [--jobs 2] [--out cache/eval/analytical] [--markdown]
                                              [--only SET,...]

Reads every network dataset under --datasets (docs/formats.md, written by tools/convert_datasets.py), runs
`perfpred predict MODEL --json --no-meta` for a deterministic sample of at most --per-group rows per group
(set, GPU, family, mode, precision, batch), and reports mean APE, P90 APE and Spearman rank correlation of
latency, energy, power and peak memory per group (each metric over the rows that carry it), and the OOM / no-OOM
agreement of the predicted `fits` with the measured rows (a peak memory = fitted, status oom = did not). Rows are
tagged "calibration" or "held-out" by the split
below, which is the split the constants in src/predict/model_constants.hpp were tuned on. Sets in HELD_OUT_SETS
(NeuSight's whole-model transformer labels) are held out entirely; their models (family neusight-transformer) are
exported on demand from the row's recipe into <datasets>/../models/ when the file is missing.

Writes <out>.json (every compared row) and <out>.md (the table for docs/accuracy.md); --markdown also prints it.
"""
import argparse
import collections
import concurrent.futures
import csv
import glob
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# The split. Constants were tuned only on rows for which calibration() is True; everything else is held out.
CALIBRATION_GPUS = {"gtx-1080ti", "rtx-2080ti"}
CALIBRATION_FAMILIES = {"nasbench201", "torchvision"}
# torchvision networks used for calibration; the rest of torchvision is held out as unseen families.
CALIBRATION_TORCHVISION = {"resnet18", "resnet50", "vgg16", "densenet121"}
# GPUMemNet timm CNNs (A100 memory) that calibrate k_context_pytorch_cudnn_conv_bytes.
GPUMEMNET_CALIBRATION_CNNS = {"resnet18", "resnet50", "resnext50_32x4d", "wide_resnet50_2"}
# Families held out on every GPU, whatever the lists above say: unseen architectures. FBNet (depthwise/grouped
# convs, 32x32) and OFA MobileNetV3 (depthwise 3/5/7, squeeze-excite, h-swish, ImageNet 128-224 px).
HELD_OUT_FAMILIES = {"fbnet", "ofa-mbv3"}
# The one exception inside a held-out family: OFA-MobileNetV3 rows on the Titan Xp at batch 64 whose OFA index
# (ofa-<index>-...) is even fit k_l2_tap_bytes_per_sm_cycle, the L2 rate of PyTorch's own depthwise kernel on
# Pascal (the only GPU-bound depthwise rows on an sm_5x/6x GPU); the odd half, batches 1 and 32 and every other
# GPU and family stay held out.
CALIBRATION_OFA = {"gpu_id": "titan-xp", "batch": "64"}
# MLPerf Inference Jetson: the AGX Orin rows (ResNet-50 INT8, batch 1 and 8) fit k_conv_tensor_int8_trt_async_eff,
# TensorRT's INT8 conv efficiency on sm_80+ tensor cores; the Orin NX and the Xavier boards stay held out.
CALIBRATION_MLPERF = {"_set": "mlperf-inference-jetson", "gpu_id": "jetson-agx-orin-64gb"}
# perfpred's own H200 PyTorch measurements (data/measured/h200-pytorch): the ResNet-50 and VGG-16 rows fit the
# tensor-rate scaling of cuDNN's convolution efficiency (k_conv_tensor_rate_exponent, and the FP16 share at the
# H100/H200's rate that k_conv_tensor_half_rate_exponent keeps); the other eight networks stay held out.
CALIBRATION_H200 = {"_set": "h200-pytorch", "recipes": {"torchvision:resnet50", "torchvision:vgg16"}}
# Sets that are held out whole: no constant was tuned on any of their rows.
# Zeus power limits: the V100 PCIe rows fit the clock-independent share of a workload's draw
# (k_clock_independent_power_share, perfpred/hw/sustained_clock.hpp); A40, Quadro RTX 6000 and P100 are held out.
CALIBRATION_ZEUS = {"_set": "zeus-gpu-power-traces", "gpu_id": "v100-pcie-32gb"}
HELD_OUT_SETS = {"neusight-transformers"}
# Families whose ONNX files are exported here when missing (into <datasets>/../models/<family>/): large
# transformers exported parameter-free from 'meta' weights, a few seconds to a minute each.
ON_DEMAND_FAMILIES = {"neusight-transformer"}


def dataset_files(datasets, measured=""):
    """The CSV files of the converted public sets (<datasets>/<set>/*.csv) and of the project's own
    measurements (<measured>/<set>/*.csv, data/measured), in a stable order."""
    files = sorted(glob.glob(os.path.join(datasets, "*", "*.csv")))
    return files + (sorted(glob.glob(os.path.join(measured, "*", "*.csv"))) if measured else [])


def calibration(row):
    if row["model_family"] == "ofa-mbv3" and all(row.get(k) == v for k, v in CALIBRATION_OFA.items()):
        index = row["id"].split("-")[1] if row["id"].count("-") >= 2 else ""
        return index.isdigit() and int(index) % 2 == 0
    if row["model_family"] in HELD_OUT_FAMILIES or row.get("_set") in HELD_OUT_SETS:
        return False
    if all(row.get(k) == v for k, v in CALIBRATION_MLPERF.items()):
        return True
    if all(row.get(k) == v for k, v in CALIBRATION_ZEUS.items()):
        return True
    if row.get("_set") == CALIBRATION_H200["_set"]:
        return row.get("recipe") in CALIBRATION_H200["recipes"]
    if row["model_family"] == "icas-convnet":  # Jetson Nano: one ICAS stage calibrates, the others are held out
        return row["id"].startswith("icas-conv_layers_1_5-")
    if row.get("_set") == "gpumemnet-a100-memory" and row["model_family"] == "torchvision":
        # A100 memory of timm CNNs: four networks calibrate cuDNN's conv-library context, the rest are held out
        return row.get("recipe", "").split(":")[-1] in GPUMEMNET_CALIBRATION_CNNS
    if row["model_family"] == "gpumemnet-mlp":  # A100 memory: even row numbers calibrate the context constant
        digits = re.sub(r"\D", "", row["id"].split("-")[-1])
        return digits != "" and int(digits) % 2 == 0
    if row["gpu_id"] not in CALIBRATION_GPUS or row["model_family"] not in CALIBRATION_FAMILIES:
        return False
    if row["model_family"] == "torchvision":
        return row.get("recipe", "").split(":")[-1] in CALIBRATION_TORCHVISION
    return True


def runtime_of(s):
    s = (s or "").lower()
    for r in ("tensorrt", "onnxruntime", "cudnn", "pytorch"):
        if r in s:
            return r
    return "pytorch"


def optimizer_of(row):
    """The optimizer a training row ran, from its notes (adam-like with two states, momentum-like with one)."""
    notes = (row.get("notes") or "").lower()
    if "no optimizer" in notes:
        return "none"
    for word, opt in (("adamw", "adam"), ("adam", "adam"), ("adadelta", "adam"), ("rmsprop", "momentum"),
                      ("adagrad", "momentum"), ("momentum", "momentum"), ("sgd", "sgd")):
        if word in notes:
            return opt
    return "sgd"


def run_settings(row):
    """predict options for how a row's run was set up beyond GPU, model, batch, mode, runtime and precision: a
    training step's optimizer, PyTorch's parameter updates and fp16 mode (autocast or a half model), host copies,
    CUDA graphs, inference with autograd recording, how far the host ran ahead of the GPU, attention."""
    args = []
    if row.get("mode") == "training":
        args += ["--optimizer", optimizer_of(row)]
        if row.get("param_updates"):
            args += ["--param-updates", row["param_updates"]]
        if row.get("mixed_precision"):
            args += ["--mixed-precision", row["mixed_precision"]]
    if row.get("includes_h2d") == "0":
        args.append("--no-copies")
    elif row.get("copy_memory") == "pageable":
        args.append("--pageable-copies")  # an unpinned tensor's copy, staged by the CPU
    if row.get("cuda_graphs") == "1":
        args.append("--cuda-graphs")
    if row.get("grad_mode") == "1" and row.get("mode", "inference") in ("", "inference") and \
            runtime_of(row.get("runtime") or "pytorch") == "pytorch":
        args.append("--grad-mode")  # inference recorded autograd (HELP's rows, as the host costs were fitted)
    if row.get("launch_queue") not in (None, "", "0"):
        args += ["--launch-queue", row["launch_queue"]]  # the harness let the host run this many kernels ahead
    if row.get("attention"):
        args += ["--attention", row["attention"]]
    return args


def with_queue(row, queue, scope):
    """The row as --launch-queue QUEUE would have it (None: as it is): on every PyTorch row (scope pytorch) or on
    the rows whose launch_queue column sets one (marked)."""
    if queue is None:
        return row
    marked = row.get("launch_queue") not in (None, "", "0")
    if scope == "marked" and not marked:
        return row
    if scope == "pytorch" and runtime_of(row.get("runtime") or "pytorch") != "pytorch":
        return row
    return dict(row, launch_queue=str(queue))


def power_limit(row):
    """The power limit a row ran under (its power_limit_w column), None at the TDP."""
    v = row.get("power_limit_w")
    return float(v) if v not in (None, "") else None


def with_limit(gpu, row):
    """--gpu for a row: the GPU (catalog id or spec file) under the row's power limit, '<gpu>@<W>w'."""
    limit = power_limit(row)
    return gpu if limit is None else f"{gpu}@{limit:g}w"


def export_on_demand(row, csv_path, datasets):
    """Model path of a row of an ON_DEMAND_FAMILIES family, exported from its recipe if the file is missing;
    None (with the reason) when it cannot be."""
    family, recipe = row.get("model_family"), row.get("recipe")
    if row.get("model"):
        path = os.path.normpath(os.path.join(os.path.dirname(csv_path), row["model"]))
    else:
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", recipe or "").strip("_")
        path = os.path.join(os.path.dirname(os.path.abspath(datasets)), "models", family, safe + ".onnx")
    if os.path.exists(path):
        return path, None
    if not recipe:
        return None, f"{row['id']}: no model file and no recipe to export it from"
    sys.path.insert(0, HERE)
    import dataset_models as dm
    try:
        model, example = dm.META_EXPORT[family](recipe)
        dm.export_onnx_meta(model, example, path)
    except Exception as e:  # noqa: BLE001 - reported per row like a refused prediction
        return None, f"export of {family} {recipe} failed: {type(e).__name__}: {str(e).splitlines()[0][:120]}"
    print(f"eval_analytical: exported {family} {recipe} to {path}", file=sys.stderr)
    return path, None


def sampled_groups(rows, per_group, seed):
    """The rows of one data set file in groups (GPU, family, mode, precision, batch, runtime), each sorted by id and
    sampled down to per_group rows, in a stable order: the sample every tool that scores these rows shares."""
    groups = collections.defaultdict(list)
    for r in rows:
        groups[(r["gpu_id"], r["model_family"], r["mode"], r["precision"], r["batch"], runtime_of(r["runtime"]))].append(r)
    rng = random.Random(seed)
    out = []
    for _, rs in sorted(groups.items()):
        rs = sorted(rs, key=lambda r: r["id"])
        out.append(rng.sample(rs, per_group) if len(rs) > per_group else rs)
    return out


def read_rows(path):
    with open(path, newline="") as f:
        first = f.readline()
        if "network-dataset" not in first:
            return []
        return list(csv.DictReader(f))


def spearman(a, b):
    if len(a) < 3:
        return float("nan")
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2.0
            i = j + 1
        return r
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = math.sqrt(sum((x - ma) ** 2 for x in ra))
    vb = math.sqrt(sum((y - mb) ** 2 for y in rb))
    return cov / (va * vb) if va > 0 and vb > 0 else float("nan")


def stats(pairs):
    apes = sorted(abs(p - m) / m * 100 for m, p in pairs if m > 0)
    if not apes:
        return None
    p90 = apes[min(len(apes) - 1, int(math.ceil(0.9 * len(apes))) - 1)]
    return {"n": len(apes), "mape": sum(apes) / len(apes), "p90": p90,
            "spearman": spearman([m for m, _ in pairs], [p for _, p in pairs]),
            "bias": sum((p - m) / m for m, p in pairs if m > 0) / len(apes) * 100}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--perfpred", default=os.path.join(REPO, "build", "src", "cli", "perfpred"))
    ap.add_argument("--datasets", default=os.path.join(REPO, "cache", "datasets"))
    ap.add_argument("--measured", default=os.path.join(REPO, "data", "measured"),
                    help="the project's own measurements (data/measured/<set>/*.csv), evaluated beside --datasets")
    ap.add_argument("--per-group", type=int, default=60, help="rows sampled per group (default 60)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=os.path.join(REPO, "cache", "eval", "analytical"))
    ap.add_argument("--only", default="", help="comma-separated set names to evaluate")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--doc", default="", help="rewrite the generated tables of this markdown file (docs/accuracy.md), "
                                              "between its analytical:begin and analytical:end markers")
    ap.add_argument("--launch-queue", type=int, default=None, metavar="N",
                    help="what-if: predict rows with --launch-queue N instead of their launch_queue column (every "
                         "PyTorch row, or with --launch-queue-scope marked only the rows whose column sets one); "
                         "not with --doc")
    ap.add_argument("--launch-queue-scope", choices=("pytorch", "marked"), default="pytorch")
    a = ap.parse_args()
    if a.launch_queue is not None and (a.doc or a.launch_queue < 0):
        sys.exit("eval_analytical: --launch-queue is a what-if (0 or more) and never rewrites --doc")
    if not os.path.exists(a.perfpred):
        sys.exit(f"eval_analytical: no perfpred binary at {a.perfpred} (build first or pass --perfpred)")
    files = dataset_files(a.datasets, a.measured)
    if not files:
        sys.exit(f"eval_analytical: no datasets under {a.datasets} (run tools/convert_datasets.py --all)")
    only = set(x for x in a.only.split(",") if x)

    # The analytical model alone: when this perfpred can load a learned bundle by default, switch it off.
    help_text = subprocess.run([a.perfpred, "predict", "--help"], capture_output=True, text=True).stdout
    extra = ["--analytical"] if "--analytical" in help_text else []
    tmp = tempfile.mkdtemp(prefix="perfpred-eval-")
    jobs = []  # (row, args)
    export_errors = collections.Counter()
    for path in files:
        set_name = os.path.basename(os.path.dirname(path))
        if only and set_name not in only:
            continue
        # ok rows (each metric below uses only the rows that carry it: memory-only and energy-only rows are
        # 'ok' too) and oom rows (for the fits / OOM agreement only)
        all_rows = read_rows(path)
        if any("power limit" in (r.get("notes") or "") for r in all_rows) and "power_limit_w" not in all_rows[0]:
            sys.exit(f"eval_analytical: {path} has power-capped rows but no power_limit_w column "
                     "(reconvert it: tools/convert_datasets.py zeus-gpu-power-traces)")
        rows = [r for r in all_rows if r.get("status") in ("ok", "oom")
                and (r.get("model") or (r.get("model_family") in ON_DEMAND_FAMILIES and r.get("recipe")))]
        meta = {}
        if os.path.exists(path + ".meta.json"):
            meta = json.load(open(path + ".meta.json"))
        for rs in sampled_groups(rows, a.per_group, a.seed):
            for r in rs:
                gpu = r["gpu_id"]
                if gpu.startswith("spec:"):
                    name = gpu[5:]
                    spec = (meta.get("devices") or {}).get(gpu) or (meta.get("devices") or {}).get(name)
                    if not spec:
                        continue
                    spec_path = os.path.join(tmp, name + ".json")
                    if not os.path.exists(spec_path):
                        # citations are not spec fields
                        json.dump({k: v for k, v in spec.items() if k not in ("source", "sources", "notes")},
                                  open(spec_path, "w"))
                    gpu = spec_path
                if r["model_family"] in ON_DEMAND_FAMILIES:
                    model, err = export_on_demand(r, path, a.datasets)
                    if model is None:
                        export_errors[err[:160]] += 1
                        continue
                else:
                    model = os.path.normpath(os.path.join(os.path.dirname(path), r["model"]))
                # power-capped runs (Zeus): predicted under the row's limit, every limit evaluated
                args = [a.perfpred, "-q", "predict", model, "--gpu", with_limit(gpu, r), "--batch", r["batch"] or "1",
                        "--mode", r["mode"] or "inference", "--runtime", runtime_of(r["runtime"]),
                        "--precision", r["precision"] or "fp32", "--json", "--no-meta"] + extra + \
                    run_settings(with_queue(r, a.launch_queue, a.launch_queue_scope))
                r["_set"] = set_name
                jobs.append((r, args))

    def run(job):
        r, args = job
        p = subprocess.run(args, capture_output=True, text=True)
        if p.returncode != 0:
            return r, None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
        pred = json.loads(p.stdout)
        if pred.get("model_bundle") != "analytical":
            return r, None, f"prediction used bundle {pred.get('model_bundle')!r}, not the analytical model"
        return r, pred, None

    results, errors = [], collections.Counter(export_errors)
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for r, pred, err in ex.map(run, jobs):
            if err:
                errors[err[:160]] += 1
                continue
            results.append((r, pred))

    metrics = [("latency_ms", "latency_ms"), ("energy_mj", "energy_mj"), ("power_w", "avg_power_w"),
               ("peak_memory_bytes", "peak_memory_bytes")]
    table = collections.defaultdict(lambda: collections.defaultdict(list))
    fits = collections.defaultdict(list)  # key -> [(measured fits, predicted fits)]
    dump = []
    # Sets that sweep many batch sizes (GPUMemNet, Zeus) are reported per GPU/family with batch "var".
    batches = collections.defaultdict(set)
    for r, _ in results:
        batches[r["_set"]].add(r["batch"])
    for r, pred in results:
        split = "calibration" if calibration(r) else "held-out"
        batch = r["batch"] if len(batches[r["_set"]]) <= 5 else "var"
        key = (r["_set"], r["gpu_id"], r["model_family"], r["mode"], r["precision"], batch, split)
        rec = {"id": r["id"], "set": r["_set"], "gpu": r["gpu_id"], "family": r["model_family"], "recipe": r.get("recipe"),
               "mode": r["mode"], "batch": r["batch"], "precision": r["precision"], "split": split,
               "runtime": runtime_of(r["runtime"]), "cuda_graphs": r.get("cuda_graphs") == "1"}
        # OOM / no-OOM agreement: a measured peak memory means it fit, status oom means it did not
        if r.get("status") == "oom" or r.get("peak_memory_bytes") not in (None, ""):
            measured_fits = r.get("status") != "oom"
            fits[key].append((measured_fits, bool(pred["fits"])))
            rec["fits"], rec["pred_fits"] = measured_fits, bool(pred["fits"])
        if r.get("status") != "ok":
            dump.append(rec)
            continue
        for col, pk in metrics:
            if col == "latency_ms" and "includes data loading" in (r.get("notes") or ""):
                continue  # epoch time / steps with the input pipeline: not a GPU step time
            v = r.get(col)
            if v not in (None, "") and float(v) > 0:
                table[key][col].append((float(v), float(pred[pk])))
                rec[col] = float(v)
                rec["pred_" + col] = float(pred[pk])
        rec["pred_host_overhead_ms"] = pred["breakdown"]["host_overhead_ms"]
        rec["pred_kernels_ms"] = pred["breakdown"]["kernels_ms"]
        dump.append(rec)

    lines = ["| set | GPU | family | mode | precision | batch | split | metric | n | mean APE % | P90 APE % | Spearman | bias % |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    overall = collections.defaultdict(list)
    for key in sorted(table):
        for col, _ in metrics:
            pairs = table[key].get(col)
            if not pairs:
                continue
            s = stats(pairs)
            overall[(key[6], col)] += pairs
            if col == "latency_ms":  # the goals are per mode too (training step, inference)
                overall[(key[6], f"{col}, {key[3]}")] += pairs
            sp = "" if math.isnan(s["spearman"]) else f"{s['spearman']:.2f}"
            lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {key[4]} | {key[5]} | {key[6]} | {col} | {s['n']} | "
                         f"{s['mape']:.1f} | {s['p90']:.1f} | {sp} | {s['bias']:+.1f} |")
    lines.append("")
    lines.append("| split | metric | n | mean APE % | P90 APE % | Spearman |")
    lines.append("|---|---|---|---|---|---|")
    for (split, col), pairs in sorted(overall.items()):
        s = stats(pairs)
        sp = "" if math.isnan(s["spearman"]) else f"{s['spearman']:.2f}"
        lines.append(f"| {split} | {col} | {s['n']} | {s['mape']:.1f} | {s['p90']:.1f} | {sp} |")
    if fits:
        lines.append("")
        lines.append("OOM / no-OOM agreement (measured: a peak memory = fits, status oom = did not fit; predicted: `fits`)")
        lines.append("")
        lines.append("| set | GPU | family | mode | split | rows | measured fit | measured oom | agree % | "
                     "false oom (fit, predicted not) | missed oom (oom, predicted fits) |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|---|")
        total = []
        for key in sorted(fits):
            pairs = fits[key]
            total += pairs
            agree = sum(m == p for m, p in pairs)
            lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {key[6]} | {len(pairs)} | "
                         f"{sum(m for m, _ in pairs)} | {sum(not m for m, _ in pairs)} | {100 * agree / len(pairs):.1f} | "
                         f"{sum(m and not p for m, p in pairs)} | {sum(p and not m for m, p in pairs)} |")
        agree = sum(m == p for m, p in total)
        lines.append(f"| all | | | | | {len(total)} | {sum(m for m, _ in total)} | {sum(not m for m, _ in total)} | "
                     f"{100 * agree / len(total):.1f} | {sum(m and not p for m, p in total)} | "
                     f"{sum(p and not m for m, p in total)} |")
    if errors:
        lines.append("")
        lines.append("Rows perfpred refused (count, last error line):")
        for e, c in errors.most_common(10):
            lines.append(f"- {c} x `{e}`")
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    json.dump(dump, open(a.out + ".json", "w"), indent=1)
    open(a.out + ".md", "w").write("\n".join(lines) + "\n")
    print(f"eval_analytical: {len(results)} rows compared, {sum(errors.values())} refused; wrote {a.out}.md/.json",
          file=sys.stderr)
    if a.markdown:
        print("\n".join(lines))
    if a.doc:
        write_doc(a.doc, lines)


BEGIN = "<!-- analytical:begin (generated by scripts/eval_analytical.sh; do not edit by hand) -->"
END = "<!-- analytical:end -->"


def rewrite_section(path, begin, end, body, tool):
    """Replace what lies between the `begin` and `end` markers of `path` with the lines `body` (the generated
    sections of docs/accuracy.md); exit naming `tool` when the markers are missing."""
    text = open(path, encoding="utf-8").read()
    if begin not in text or end not in text:
        sys.exit(f"{tool}: {path} has no '{begin}' ... '{end}' section")
    head, _, tail = text.partition(begin)
    _, _, tail = tail.partition(end)
    open(path, "w", encoding="utf-8").write(head + begin + "\n".join(body) + "\n" + end + tail)


def write_doc(path, lines):
    """Replace the generated part of `path`: the summary table, then the per-group table."""
    split = lines.index("")  # per-group table, blank line, summary table, then any extra sections
    per_group, rest = lines[:split], lines[split + 1:]
    summary_end = rest.index("") if "" in rest else len(rest)
    body = ["", "### Summary (sampled rows, mean / P90 absolute percentage error, Spearman rank correlation)", ""]
    body += rest[:summary_end] + ["", "### Per group", ""] + per_group
    if summary_end < len(rest):
        body += rest[summary_end:]
    rewrite_section(path, BEGIN, END, body, "eval_analytical")
    print(f"eval_analytical: rewrote the generated tables of {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
