#!/usr/bin/python3
"""What one op or block costs on each of HELP's machines, measured and as perfpred predicts it.

    /usr/bin/python3 tools/help_op_costs.py [--perfpred build/src/cli/perfpred] [--datasets cache/datasets]
                                            [--models 120] [--batches 1,64] [--by-stage]

HELP's latency tables (help-nas-latency) time thousands of random cells of one search space per GPU, so a
least-squares fit of latency on what each network is built from prices its parts:
- NAS-Bench-201: each edge kind (ReLU-Conv-BN 3x3 and 1x1, avg pool, none) over a skip edge (every cell has six
  edges, so only differences between kinds are identified), in us per edge (15 cells), and the all-skip network;
- FBNet: a block (expand 1x1 conv, depthwise kxk conv, project 1x1 conv, three BatchNorms, two ReLUs) per slot
  against the slot's skip, and what grouped (g2), 5x5, expansion 3 and expansion 6 blocks add, and the
  all-skip network.
The same fit over perfpred's predictions of the same networks (`predict --json`, analytical model; total and
kernel time) says which part the model prices differently from each machine. The networks are those
tools/convert_datasets.py exported (cache/models); the fit uses the first --models of them per space.
Batch 1 is host-bound on every machine (expansion and kernel size get no weight), so its prices are dispatch.
--by-stage prices FBNet's blocks per stage (output map 32, 32, 16, 8, 8, 4, 4 px) and expansion (1, 3, 6) instead:
where a stage's blocks cost what perfpred's kernels do and the later stages a flat dispatch price, the machine
paid each block's larger part (GPU or host) in turn. perfpred predicts these rows as the converter marks them,
with --launch-queue 1 (the host issues a kernel only once the previous one has finished; docs/model.md, "Launch
queue"), so its prices show the same pattern.
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

NB201_EDGES = ("nor_conv_3x3", "nor_conv_1x1", "avg_pool_3x3", "none")  # each over skip_connect
FBNET_OPS = ("k3_e1", "k3_e1_g2", "k3_e3", "k3_e6", "k5_e1", "k5_e1_g2", "k5_e3", "k5_e6", "skip")
GPUS = ("gtx-1080ti", "rtx-2080ti", "titan-x-pascal", "titan-xp")
FBNET_STAGES = (0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6)  # stage of each of the 22 slots
FBNET_STAGE_PX = (32, 32, 16, 8, 8, 4, 4)  # output map of each stage at HELP's 32 x 32 input
EXPANSIONS = ("e1", "e3", "e6")


def nb201_features(recipe):
    ops = re.findall(r"([a-z_0-9x]+)~\d", recipe)
    return [ops.count(o) for o in NB201_EDGES] + [1.0]


def fbnet_features(recipe):
    ops = [FBNET_OPS[int(t)] for t in recipe.split()]
    blocks = [o for o in ops if o != "skip"]
    extras = [sum("g2" in o for o in blocks), sum(o.startswith("k5") for o in blocks),
              sum("_e3" in o for o in blocks), sum("_e6" in o for o in blocks)]
    return extras + [0.0 if o == "skip" else 1.0 for o in ops] + [1.0]


def fbnet_stage_features(recipe):
    """Blocks per (stage, expansion) over the slot's skip, and the all-skip network."""
    x = [0.0] * (len(FBNET_STAGE_PX) * len(EXPANSIONS)) + [1.0]
    for slot, t in enumerate(recipe.split()):
        op = FBNET_OPS[int(t)]
        if op != "skip":
            x[FBNET_STAGES[slot] * len(EXPANSIONS) + EXPANSIONS.index(op.split("_")[1])] += 1
    return x


def fits_per_source(a, base, rows, keep, features, gpu, batch):
    """Least-squares prices of the networks of one GPU and batch (the first --models of them), one fit each for the
    measured latency, perfpred's and perfpred's kernel time: [measured, perfpred, kernels] coefficient vectors, or
    None where the set has no such rows."""
    sel = [r for r in rows if r["gpu_id"] == gpu and int(r["batch"]) == batch and r["model"] in keep]
    if not sel:
        return None
    x = [features(r["recipe"]) for r in sel]
    pred = [predict(a.perfpred, os.path.normpath(os.path.join(base, r["model"])), gpu, batch) for r in sel]
    return [fit(x, y) for y in ([float(r["latency_ms"]) for r in sel], [p[0] for p in pred], [p[1] for p in pred])]


def by_stage(a, base, batches):
    rows = read_rows(os.path.join(base, "fbnet.csv"))
    keep = set(sorted({r["model"] for r in rows})[: a.models])
    print("\n## fbnet by stage: microseconds per block over its slot's skip (measured / perfpred / perfpred kernels)\n")
    print("| GPU | batch | stage (px) | " + " | ".join(f"{e}: measured / perfpred / kernels" for e in EXPANSIONS) + " |")
    print("|---|---|---|" + "---|" * len(EXPANSIONS))
    for gpu in GPUS:
        for batch in batches:
            fits = fits_per_source(a, base, rows, keep, fbnet_stage_features, gpu, batch)
            if fits is None:
                continue
            for stage, px in enumerate(FBNET_STAGE_PX):
                cells = [" / ".join(f"{c[stage * len(EXPANSIONS) + e] * 1000:.0f}" for c in fits)
                         for e in range(len(EXPANSIONS))]
                print(f"| {gpu} | {batch} | {stage} ({px}) | " + " | ".join(cells) + " |")


def read_rows(path):
    with open(path, newline="") as f:
        f.readline()  # the perfpred schema line
        return [r for r in csv.DictReader(f) if r.get("status") == "ok" and r.get("model")]


def predict(perfpred, model, gpu, batch):
    # --grad-mode: HELP's rows are predicted as inference with autograd recording, and --launch-queue 1: the host
    # ran no more than one kernel ahead of the GPU (their launch_queue column; tools/convert_datasets.py).
    out = subprocess.run([perfpred, "-q", "predict", model, "--gpu", gpu, "--batch", str(batch), "--json", "--analytical",
                          "--grad-mode", "--launch-queue", "1"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"help_op_costs: perfpred predict {model} --gpu {gpu} failed: {out.stderr.strip()}")
    d = json.loads(out.stdout)
    return d["latency_ms"], d["breakdown"]["kernels_ms"]


def fit(x, y):
    coef, *_ = np.linalg.lstsq(np.array(x, float), np.array(y, float), rcond=None)
    return coef


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--perfpred", default=os.path.join(ROOT, "build", "src", "cli", "perfpred"))
    ap.add_argument("--datasets", default=os.path.join(ROOT, "cache", "datasets"))
    ap.add_argument("--models", type=int, default=120, help="networks per search space (the fit's rows per GPU)")
    ap.add_argument("--batches", default="1,64", help="FBNet batches (NAS-Bench-201: 1 and 32 of these)")
    ap.add_argument("--by-stage", action="store_true", help="FBNet only: a block's price per stage and expansion")
    a = ap.parse_args()
    if not os.access(a.perfpred, os.X_OK):
        sys.exit(f"help_op_costs: no perfpred binary at {a.perfpred} (scripts/build.sh)")
    base = os.path.join(a.datasets, "help-nas-latency")
    if not os.path.isdir(base):
        sys.exit(f"help_op_costs: {base} missing (tools/convert_datasets.py --all --out cache)")
    batches = [int(b) for b in a.batches.split(",")]
    if a.by_stage:
        by_stage(a, base, batches)
        return

    spaces = [("nasbench201", nb201_features, [b for b in batches if b in (1, 32)] or [1]),
              ("fbnet", fbnet_features, batches)]
    for space, features, space_batches in spaces:
        rows = read_rows(os.path.join(base, space + ".csv"))
        models = sorted({r["model"] for r in rows})[: a.models]
        keep = set(models)
        print(f"\n## {space}: {len(models)} networks per GPU, microseconds "
              f"({'per edge over a skip edge' if space == 'nasbench201' else 'per block over its slot skip (mean over slots)'}), "
              "the all-skip network in ms\n")
        if space == "nasbench201":
            head = [e + ' - skip' for e in NB201_EDGES]
        else:
            head = ["g2 extra", "k5 extra", "e3 extra", "e6 extra", "block"]
        print("| GPU | batch | source | " + " | ".join(head) + " | all-skip ms |")
        print("|---|---|---|" + "---|" * (len(head) + 1))
        for gpu in GPUS:
            for batch in space_batches:
                fits = fits_per_source(a, base, rows, keep, features, gpu, batch)
                if fits is None:
                    continue
                for label, c in zip(("measured", "perfpred", "perfpred kernels"), fits):
                    if space == "nasbench201":
                        cells = [f"{v * 1000 / 15:.0f}" for v in c[:4]]
                    else:
                        cells = [f"{v * 1000:.0f}" for v in c[:4]] + [f"{np.mean(c[4:26]) * 1000:.0f}"]
                    print(f"| {gpu} | {batch} | {label} | " + " | ".join(cells) + f" | {c[-1]:.2f} |")


if __name__ == "__main__":
    main()
