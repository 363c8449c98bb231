#!/usr/bin/python3
"""Where the held-out error of the kernel and HELP rows lives, from scripts/eval_learned.sh's rows.

    /usr/bin/python3 tools/residuals.py floor|narrow-gemm|conv-waves|help-ratios|duration
                                        [--eval cache/eval/learned] [--datasets cache/datasets] [--rows FILE]

Reads the per-row files scripts/eval_learned.sh leaves (`<split>.rows.csv`: measured, analytical, learned, each
row held out by GPU or family) and the converted data sets (for shapes and kernel names), and prints:
- floor: NeuSight's elementwise, softmax and norm rows per held-out GPU, mean APE of the analytical column (floor =
  the other GPUs' median, as evaluated) against the same kernels behind this GPU's own floor (the 2% quantile of
  its measured times per op), combined in quadrature as the model does, added, or as a max;
- narrow-gemm: FP32 GEMM rows of DeepBench and NeuSight's linear (under 3 ms: longer ones throttle), median
  measured/predicted by the narrow side (min(M, N)), pre-Volta GPUs against Volta and later;
- conv-waves: NeuSight's convolutions, median measured/predicted by output tiles of 128 x 128 per SM;
- help-ratios: HELP's rows held out by family (NAS-Bench-201, FBNet), median measured/predicted per GPU and batch.
- duration: NeuSight's kernels per held-out GPU and kernel class (nn.Linear's cuBLAS GEMM, the batched MatMul,
  convolutions, the rest), median measured/predicted by the measured time in half-decades: a kernel that runs
  for milliseconds on a power-limited or passively cooled card shows what its sustained clock does, which the
  short ones do not. `--rows FILE` reads one `perfpred eval --rows` file instead of the held-out splits.
"""
import argparse
import collections
import csv
import glob
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PRE_VOLTA = {"gtx-1080ti", "titan-x-pascal", "titan-xp", "p100-pcie-16gb", "p4", "spec:m40", "spec:titan-x-maxwell"}
NEUSIGHT_GPUS = ("p100-pcie-16gb", "p4", "t4", "v100-pcie-32gb", "a100")  # the kernels-<gpu> splits
SMS = {"p100-pcie-16gb": 56, "p4": 20, "t4": 40, "v100-pcie-32gb": 80, "a100": 108}  # the A100 split is the PCIe 40 GB


def dataset(path):
    with open(path, newline="") as f:
        return {r["id"]: r for r in csv.DictReader(line for line in f if not line.startswith("#"))}


def rows(eval_dir, name):
    path = os.path.join(eval_dir, name + ".rows.csv")
    if not os.path.exists(path):
        sys.exit(f"residuals: no {path} (run scripts/eval_learned.sh first)")
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def ratio(r):
    return float(r["measured"]) / float(r["analytical"])


def attrs(s):
    return {kv.split("=")[0]: float(kv.split("=")[1]) for kv in s.split(";") if "=" in kv}


def mape(pred, meas):
    return 100 * sum(abs(p / m - 1) for p, m in zip(pred, meas)) / len(meas)


def floor(a):
    import json
    ops = {}
    for f in glob.glob(os.path.join(a.datasets, "neusight-gpu-kernels", "*.csv")):
        ops.update({i: r["op"] for i, r in dataset(f).items()})
    print("| held-out GPU | rows | as evaluated | own floor, quadrature | added | max |")
    print("|---|---|---|---|---|---|")
    for gpu in NEUSIGHT_GPUS:
        bundle = json.load(open(os.path.join(a.eval, "bundles", f"kernels-{gpu}.json")))["timer_floors"]["neusight"]
        byop = collections.defaultdict(list)
        for r in rows(a.eval, f"kernels-{gpu}"):
            if r["family"] not in ("elementwise", "softmax", "norm"):
                continue
            op = ops[r["id"]]
            f_eval = bundle.get(op, bundle["*"]) * 1e3
            an = float(r["analytical"])
            byop[op].append((float(r["measured"]), math.sqrt(max(an * an - f_eval * f_eval, 1e-12)), an))
        res = collections.defaultdict(list)
        for v in byop.values():
            own = sorted(m for m, _, _ in v)[int(0.02 * (len(v) - 1))]
            for m, k, an in v:
                res["eval"].append(abs(an / m - 1))
                res["quad"].append(abs(math.hypot(own, k) / m - 1))
                res["add"].append(abs((own + k) / m - 1))
                res["max"].append(abs(max(own, k) / m - 1))
        n = len(res["eval"])
        print(f"| {gpu} | {n} | " + " | ".join(f"{100 * sum(res[c]) / n:.1f}%" for c in ("eval", "quad", "add", "max"))
              + " |")


def narrow_gemm(a):
    meta = {}
    for f in (os.path.join(a.datasets, "deepbench-kernels", "gemm.csv"),
              os.path.join(a.datasets, "neusight-gpu-kernels", "linear.csv")):
        meta.update(dataset(f))
    splits = [os.path.basename(p)[:-9] for p in glob.glob(os.path.join(a.eval, "deepbench-*.rows.csv"))]
    splits += [f"kernels-{g}" for g in NEUSIGHT_GPUS]
    groups = collections.defaultdict(list)
    bins = ((8, "<=8"), (16, "9-16"), (32, "17-32"), (63, "33-63"), (127, "64-127"), (10 ** 12, ">=128"))
    for split in splits:
        for r in rows(a.eval, split):
            d = meta.get(r["id"])
            if not d or r["precision"] != "fp32" or r["family"] != "gemm":
                continue
            if d["source"] == "neusight" and float(r["measured"]) > 3:
                continue
            narrow = min(int(d["gemm_m"]), int(d["gemm_n"]))
            label = next(name for top, name in bins if narrow <= top)
            arch = "pre-Volta" if r["gpu_id"] in PRE_VOLTA else "Volta+"
            groups[(d["source"], arch, label)].append(ratio(r))
    print("| source | GPUs | narrow side | rows | median measured/predicted |")
    print("|---|---|---|---|---|")
    order = {name: i for i, (_, name) in enumerate(bins)}
    for (src, arch, label), v in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1], order[kv[0][2]])):
        print(f"| {src} | {arch} | {label} | {len(v)} | {statistics.median(v):.2f} |")


def conv_waves(a):
    meta = dataset(os.path.join(a.datasets, "neusight-gpu-kernels", "conv.csv"))
    bins = ((1, "<1"), (2, "1-2"), (8, "2-8"), (math.inf, ">8"))
    print("| held-out GPU | " + " | ".join(f"{name} waves: rows, median measured/predicted" for _, name in bins) + " |")
    print("|---|" + "---|" * len(bins))
    for gpu in NEUSIGHT_GPUS:
        groups = collections.defaultdict(list)
        for r in rows(a.eval, f"kernels-{gpu}"):
            if r["family"] != "conv":
                continue
            at = attrs(meta[r["id"]]["attrs"])
            tiles = math.ceil(at["batch"] * at["out_h"] * at["out_w"] / 128) * math.ceil(at["out_channels"] / 128)
            w = tiles / SMS[gpu]
            groups[next(name for top, name in bins if w < top)].append(ratio(r))
        print(f"| {gpu} | " + " | ".join(f"{len(groups[n])}, {statistics.median(groups[n]):.2f}" if groups[n] else "-"
                                         for _, n in bins) + " |")


def help_ratios(a):
    print("| family | GPU | batch | rows | median measured/predicted |")
    print("|---|---|---|---|---|")
    for fam in ("nasbench201", "fbnet"):
        groups = collections.defaultdict(list)
        for r in rows(a.eval, f"help-family-{fam}"):
            groups[(r["gpu_id"], int(r["id"].rsplit("-b", 1)[1]))].append(ratio(r))
        for (gpu, batch), v in sorted(groups.items()):
            print(f"| {fam} | {gpu} | {batch} | {len(v)} | {statistics.median(v):.2f} |")


def duration(a):
    ops = {}
    for f in glob.glob(os.path.join(a.datasets, "neusight-gpu-kernels", "*.csv")):
        ops.update({i: r["op"] for i, r in dataset(f).items()})
    if not ops:
        sys.exit(f"residuals: no NeuSight kernels under {a.datasets} (run tools/convert_datasets.py --all first)")
    if a.rows:
        if not os.path.exists(a.rows):
            sys.exit(f"residuals: no {a.rows} (write it with perfpred eval --rows)")
        with open(a.rows, newline="") as f:
            evaluated = list(csv.DictReader(f))
    else:
        evaluated = [r for gpu in NEUSIGHT_GPUS for r in rows(a.eval, f"kernels-{gpu}")]
    kinds = {"Gemm": "linear", "MatMul": "bmm", "Conv": "conv"}
    groups = collections.defaultdict(list)
    for r in evaluated:
        if r["id"] not in ops or not (float(r["measured"]) > 0 and float(r["analytical"]) > 0):
            continue
        decade = math.floor(2 * math.log10(float(r["measured"]))) / 2
        groups[(r["gpu_id"], kinds.get(ops[r["id"]], "other"), decade)].append(ratio(r))
    decades = sorted({k[2] for k in groups})
    print("| GPU | kernels | " + " | ".join(f"{10 ** d:.3g} ms" for d in decades) + " |")
    print("|---|---|" + "---|" * len(decades))
    for gpu in sorted({k[0] for k in groups}):
        for kind in ("linear", "bmm", "conv", "other"):
            cells = [groups.get((gpu, kind, d), []) for d in decades]
            if not any(cells):
                continue
            print(f"| {gpu} | {kind} | " + " | ".join(f"{statistics.median(c):.2f}" if len(c) >= a.min_rows else "-"
                                                     for c in cells) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=("floor", "narrow-gemm", "conv-waves", "help-ratios", "duration"))
    ap.add_argument("--eval", default=os.path.join(REPO, "cache", "eval", "learned"))
    ap.add_argument("--datasets", default=os.path.join(REPO, "cache", "datasets"))
    ap.add_argument("--rows", default="", help="duration: one `perfpred eval --rows` file instead of the splits")
    ap.add_argument("--min-rows", type=int, default=10, help="duration: fewest rows a cell's median needs")
    a = ap.parse_args()
    {"floor": floor, "narrow-gemm": narrow_gemm, "conv-waves": conv_waves, "help-ratios": help_ratios,
     "duration": duration}[a.what](a)


if __name__ == "__main__":
    main()
