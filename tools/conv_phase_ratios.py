#!/usr/bin/env python3
"""How far the analytical model is from DeepBench's training convolutions, per phase.

For each DeepBench (GPU, precision) with all three phases it prints the median of measured / analytical
time of the forward, backward-data and backward-weight kernels (square 1x1 and 3x3 filters, inputs up to
112x112), and the medians over those groups of each gradient's ratio divided by the forward's: how much
slower than the forward the model would have to make each gradient to match DeepBench, pooled and by filter
class (1x1 stride 1, strided, 3x3 stride 1). docs/accuracy.md
("Where it is wrong") says what happened when the model was given those factors.

Usage: tools/conv_phase_ratios.py [--perfpred build/src/cli/perfpred] [--data CSV]
Needs the converted DeepBench set (tools/convert_datasets.py --all) and the shipped bundle, which
`perfpred eval --rows` needs to run; its analytical column is what is read here.
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PHASES = ("forward", "backward_data", "backward_weight")


def parse(attrs):
    return dict(kv.split("=", 1) for kv in attrs.split(";") if "=" in kv)


def standard_shape(attrs):
    a = parse(attrs)
    kh, kw = int(a["kernel_h"]), int(a["kernel_w"])
    return kh == kw and kh in (1, 3) and a["in_h"] == a["in_w"] and int(a["in_h"]) <= 112


def shape_class(attrs):
    """The kernel families cuDNN runs a gradient with: Winograd-able 3x3 stride 1, other stride-1 filters
    (1x1: the data gradient is the forward GEMM transposed), and strided filters (the data gradient
    scatters into an input larger than the output)."""
    a = parse(attrs)
    stride = max(int(a["stride_h"]), int(a["stride_w"]))
    if stride > 1:
        return "strided"
    return "3x3 stride 1" if int(a["kernel_h"]) == 3 else "1x1 stride 1"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--perfpred", default=os.path.join(ROOT, "build/src/cli/perfpred"))
    ap.add_argument("--data", default=os.path.join(ROOT, "cache/datasets/deepbench-kernels/conv.csv"))
    args = ap.parse_args()
    if not os.path.exists(args.data):
        sys.exit(f"conv_phase_ratios: {args.data} missing (run tools/convert_datasets.py --all)")
    with tempfile.TemporaryDirectory() as tmp:
        rows_path = os.path.join(tmp, "rows.csv")
        subprocess.run([args.perfpred, "eval", "--model", "default", "--data", args.data, "--rows", rows_path],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        evaluated = list(csv.DictReader(open(rows_path)))
    with open(args.data) as f:
        attrs = {r["id"]: r["attrs"] for r in csv.DictReader(line for line in f if not line.startswith("#perfpred"))}
    ratios = defaultdict(list)
    by_class = defaultdict(list)  # (class, gpu, precision, phase) -> ratios
    for r in evaluated:
        if r["kind"] == "kernel" and standard_shape(attrs[r["id"]]):
            ratio = float(r["measured"]) / float(r["analytical"])
            ratios[(r["gpu_id"], r["precision"], r["phase_or_mode"])].append(ratio)
            by_class[(shape_class(attrs[r["id"]]), r["gpu_id"], r["precision"], r["phase_or_mode"])].append(ratio)
    relative = {"backward_data": [], "backward_weight": []}
    print("gpu precision: median measured/analytical of forward, backward_data, backward_weight")
    for gpu, prec in sorted({(g, p) for g, p, _ in ratios}):
        if not all(ratios.get((gpu, prec, ph)) for ph in PHASES):
            continue
        med = {ph: statistics.median(ratios[(gpu, prec, ph)]) for ph in PHASES}
        print(f"  {gpu} {prec}: " + ", ".join(f"{med[ph]:.2f}" for ph in PHASES))
        for ph in relative:
            relative[ph].append(med[ph] / med["forward"])
    for ph, v in relative.items():
        print(f"{ph} relative to forward: median {statistics.median(v):.2f} over {len(v)} GPU/precision groups")
    # Each gradient against the same GPU/precision's forward of its own filter class.
    print("by filter class (median over GPU/precision groups of the gradient's median over the forward's):")
    for cls in ("1x1 stride 1", "strided", "3x3 stride 1"):
        for ph in ("backward_data", "backward_weight"):
            v = [statistics.median(by_class[(c, g, p, ph)]) / statistics.median(by_class[(c, g, p, "forward")])
                 for (c, g, p, q) in by_class if c == cls and q == ph and by_class.get((c, g, p, "forward"))]
            if v:
                print(f"  {cls}, {ph}: {statistics.median(v):.2f} over {len(v)} groups")


if __name__ == "__main__":
    main()
