#!/usr/bin/python3
"""How fast one network runs against another on the same machine, measured and as perfpred predicts it.

    /usr/bin/python3 tools/pair_ratios.py --models resnext50_32x4d,resnext101_32x8d \\
        --against wide_resnet50_2,wide_resnet101_2,resnet50,resnet101,resnet152 \\
        [--set pytorch-gpu-benchmark-ryujaehun] [--perfpred build/src/cli/perfpred] [--datasets cache/datasets]

A whole-network error mixes what the GPU does with what the measuring machine does (its CPU's dispatch speed,
its driver and cuDNN, the card's cooling: docs/accuracy.md, "How far apart machines with the same GPU are").
The ratio of two networks measured on one setup (same GPU, machine, mode, precision and batch) cancels most of
the machine: where a GPU-side cost is wrong for one kind of layer (ResNeXt's grouped convolutions against the
dense ones of WideResNet and ResNet), the predicted ratio misses the measured one on every machine alike.

For every setup of --set (machines as tools/machine_spread.py names them) and every pair (a in --models, b in
--against) measured there, both are predicted (analytical model, `perfpred predict --analytical`, with the
row's mode, precision, runtime, optimizer and copies) and predicted a/b is compared with measured a/b:
per (GPU, precision, mode) the median of predicted over measured, and pooled the mean and P90 absolute
percentage error of the ratio. Prints a markdown table.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import eval_analytical as ea  # noqa: E402  (row readers, runtime and optimizer of a row)
import machine_spread as ms  # noqa: E402  (the measuring setup of a row)


def quantile(v, q):
    v = sorted(v)
    if not v:
        return float("nan")
    i = q * (len(v) - 1)
    lo = int(i)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (i - lo)


def predict_args(perfpred, model, r):
    args = [perfpred, "-q", "predict", model, "--gpu", r["gpu_id"], "--batch", r.get("batch") or "1",
            "--mode", r.get("mode") or "inference", "--runtime", ea.runtime_of(r.get("runtime")),
            "--precision", r.get("precision") or "fp32", "--json", "--no-meta", "--analytical"]
    if r.get("mode") == "training":
        args += ["--optimizer", ea.optimizer_of(r)]
    if r.get("includes_h2d") == "0":
        args.append("--no-copies")
    return args


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", required=True, help="comma-separated recipes (model names) on the a side")
    ap.add_argument("--against", required=True, help="comma-separated recipes on the b side")
    ap.add_argument("--set", default="pytorch-gpu-benchmark-ryujaehun")
    ap.add_argument("--perfpred", default=os.path.join(REPO, "build", "src", "cli", "perfpred"))
    ap.add_argument("--datasets", default=os.path.join(REPO, "cache", "datasets"))
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    models = [m for m in a.models.split(",") if m]
    against = [m for m in a.against.split(",") if m]
    if not os.path.exists(a.perfpred):
        sys.exit(f"pair_ratios: no perfpred binary at {a.perfpred} (build first or pass --perfpred)")
    set_dir = os.path.join(a.datasets, a.set)
    files = sorted(os.path.join(set_dir, f) for f in os.listdir(set_dir) if f.endswith(".csv")) \
        if os.path.isdir(set_dir) else []
    if not files:
        sys.exit(f"pair_ratios: no network dataset under {set_dir} (run tools/convert_datasets.py --all)")

    # setup -> recipe -> (row, model path)
    setups = collections.defaultdict(dict)
    for path in files:
        for r in ea.read_rows(path):
            if r.get("status") != "ok" or not r.get("latency_ms") or not r.get("model"):
                continue
            if r.get("recipe") not in models and r.get("recipe") not in against:
                continue
            key = (r["gpu_id"], ms.setup_of(a.set, r) or "-", r.get("mode") or "inference", r.get("precision") or "fp32",
                   r.get("batch") or "1", ea.runtime_of(r.get("runtime")))
            setups[key][r["recipe"]] = (r, os.path.normpath(os.path.join(os.path.dirname(path), r["model"])))

    pairs = [(key, x, y) for key, rec in sorted(setups.items()) for x in models for y in against
             if x in rec and y in rec]
    if not pairs:
        sys.exit(f"pair_ratios: no setup of {a.set} measured one of {models} beside one of {against}")
    jobs = sorted({(key, name) for key, x, y in pairs for name in (x, y)})

    def run(job):
        key, name = job
        r, model = setups[key][name]
        p = subprocess.run(predict_args(a.perfpred, model, r), capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"pair_ratios: perfpred failed on {r['id']}: {p.stderr.strip()[-300:]}")
        return job, json.loads(p.stdout)["latency_ms"]

    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        pred = dict(ex.map(run, jobs))

    groups = collections.defaultdict(list)
    pooled = []
    for key, x, y in pairs:
        measured = float(setups[key][x][0]["latency_ms"]) / float(setups[key][y][0]["latency_ms"])
        predicted = pred[(key, x)] / pred[(key, y)]
        q = predicted / measured
        groups[(key[0], key[3], key[2])].append(q)
        pooled.append(q)
    print(f"`tools/pair_ratios.py --set {a.set} --models {','.join(models)} --against {','.join(against)}`: "
          "predicted a/b over measured a/b, each pair measured on one setup.\n")
    print("| GPU | precision | mode | pairs | median predicted / measured ratio |")
    print("|---|---|---|---|---|")
    for (gpu, prec, mode), qs in sorted(groups.items()):
        print(f"| {gpu} | {prec} | {mode} | {len(qs)} | {quantile(qs, 0.5):.2f} |")
    ape = [abs(q - 1) * 100 for q in pooled]
    print(f"| all | | | {len(pooled)} | {quantile(pooled, 0.5):.2f} (ratio error: mean {sum(ape) / len(ape):.1f}%, "
          f"P90 {quantile(ape, 0.9):.1f}%) |")


if __name__ == "__main__":
    main()
