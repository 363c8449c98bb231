#!/usr/bin/env python3
"""Calibrate the analytical model's convolution-gradient slowdowns on DeepBench kernels.

k_conv_bwd_data_slowdown and k_conv_bwd_weight_slowdown (src/predict/model_constants.hpp) say how much
slower than the forward a convolution's backward-data and backward-weight kernels run. They are fitted
here on kernel measurements only (DeepBench training convolutions, square 1x1 and 3x3 filters), never on
whole-network rows, which stay held out for docs/accuracy.md.

For each DeepBench (GPU, precision) with all three phases, it takes the median of measured / analytical
time per phase, divides the backward medians by the forward's (what is left once the forward is right),
and takes the median of that over the (GPU, precision) groups. With the constants already in the model
the residuals are near 1; the suggested constant is the current one times its residual.

Usage: tools/calibrate_conv_backward.py [--perfpred build/src/cli/perfpred] [--data CSV]
Needs the converted DeepBench set (tools/convert_datasets.py --all) and the shipped bundle, which
`perfpred eval` needs to run; its analytical column is what is read here.
"""
import argparse
import csv
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def current_constants():
    text = open(os.path.join(ROOT, "src/predict/model_constants.hpp")).read()
    out = {}
    for name in ("k_conv_bwd_data_slowdown", "k_conv_bwd_weight_slowdown"):
        m = re.search(name + r"\s*=\s*([0-9.]+)", text)
        if not m:
            sys.exit(f"calibrate_conv_backward: {name} not found in src/predict/model_constants.hpp")
        out[name] = float(m.group(1))
    return out


def standard_shape(attrs):
    a = dict(kv.split("=", 1) for kv in attrs.split(";") if "=" in kv)
    kh, kw = int(a["kernel_h"]), int(a["kernel_w"])
    return kh == kw and kh in (1, 3) and a["in_h"] == a["in_w"] and int(a["in_h"]) <= 112


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--perfpred", default=os.path.join(ROOT, "build/src/cli/perfpred"))
    ap.add_argument("--data", default=os.path.join(ROOT, "cache/datasets/deepbench-kernels/conv.csv"))
    args = ap.parse_args()
    if not os.path.exists(args.data):
        sys.exit(f"calibrate_conv_backward: {args.data} missing (run tools/convert_datasets.py --all)")
    with tempfile.TemporaryDirectory() as tmp:
        rows_path = os.path.join(tmp, "rows.csv")
        subprocess.run([args.perfpred, "eval", "--model", "default", "--data", args.data, "--rows", rows_path],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        evaluated = list(csv.DictReader(open(rows_path)))
    attrs = {}
    with open(args.data) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#perfpred")):
            attrs[r["id"]] = r["attrs"]
    ratios = defaultdict(list)  # (gpu, precision) -> phase -> measured / analytical
    for r in evaluated:
        if r["kind"] != "kernel" or not standard_shape(attrs[r["id"]]):
            continue
        ratios[(r["gpu_id"], r["precision"], r["phase_or_mode"])].append(float(r["measured"]) / float(r["analytical"]))
    residual = {"backward_data": [], "backward_weight": []}
    print("gpu precision: median measured/analytical  forward  backward_data  backward_weight")
    for gpu, prec in sorted({(g, p) for g, p, _ in ratios}):
        med = {ph: statistics.median(ratios[(gpu, prec, ph)]) for ph in ("forward", "backward_data", "backward_weight")
               if ratios.get((gpu, prec, ph))}
        if len(med) < 3:
            continue
        print(f"{gpu} {prec}: {med['forward']:.2f}  {med['backward_data']:.2f}  {med['backward_weight']:.2f}")
        for ph in residual:
            residual[ph].append(med[ph] / med["forward"])
    const = current_constants()
    for ph, name in (("backward_data", "k_conv_bwd_data_slowdown"), ("backward_weight", "k_conv_bwd_weight_slowdown")):
        res = statistics.median(residual[ph])
        print(f"{name}: current {const[name]:.2f}, residual {res:.3f} over {len(residual[ph])} groups, "
              f"suggested {const[name] * res:.2f}")


if __name__ == "__main__":
    main()
