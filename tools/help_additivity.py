#!/usr/bin/python3
"""Is a HELP FBNet latency table the sum of its blocks? The same test of perfpred's timeline at launch-queue depths.

    /usr/bin/python3 tools/help_additivity.py [--perfpred build/src/cli/perfpred]
        [--csv ../shared/datasets/help-nas-latency/fbnet_latency_ms.csv] [--networks 1000]
        [--gpu titan-xp --column titanxp --batch 64] [--queues 0,1,2,4]

Every FBNet network is 22 slots, each one of 9 ops, and a slot's position fixes its shapes, so a network whose
cost is the sum of what its blocks cost is exactly linear in a one-hot (slot, op) encoding. The tool fits that
linear model by least squares on the even-numbered networks of the first --networks rows and prints the mean
absolute percentage error it leaves on the odd-numbered ones, for the measured column and for perfpred's
predictions of the same networks (rebuilt as ONNX by tools/dataset_models.fbnet_onnx, predicted as HELP's rows are:
`--analytical --grad-mode`) at each --launch-queue depth. An asynchronous eager loop, whose host runs ahead of
GPU-bound early blocks into host-bound late ones, is not additive where both kinds of block occur; a harness
that synchronises per layer is (docs/model.md, "Launch queue").
"""
import argparse
import concurrent.futures
import csv
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import dataset_models as dm  # noqa: E402  (tools/ on the path)

SLOTS, OPS = 22, len(dm.FBNET_OPS)


def one_hot(op_idx_list):
    x = np.zeros(SLOTS * OPS + 1)
    x[-1] = 1.0
    for slot, t in enumerate(op_idx_list.split()):
        x[slot * OPS + int(t)] = 1.0
    return x


def held_out_error(x, y):
    """Mean absolute percentage error (%) of a least-squares fit on the even rows, scored on the odd ones."""
    fit = np.arange(len(y)) % 2 == 0
    coef, *_ = np.linalg.lstsq(x[fit], y[fit], rcond=None)
    return float(np.mean(np.abs(x[~fit] @ coef - y[~fit]) / y[~fit]) * 100)


def predict(perfpred, model, gpu, batch, queue):
    out = subprocess.run([perfpred, "-q", "predict", model, "--gpu", gpu, "--batch", str(batch), "--json",
                          "--analytical", "--grad-mode", "--launch-queue", str(queue)], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"help_additivity: perfpred predict {model} failed: {out.stderr.strip()}")
    return json.loads(out.stdout)["latency_ms"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--perfpred", default=os.path.join(ROOT, "build", "src", "cli", "perfpred"))
    ap.add_argument("--csv", default=os.path.join(ROOT, "..", "shared", "datasets", "help-nas-latency",
                                                  "fbnet_latency_ms.csv"))
    ap.add_argument("--networks", type=int, default=1000, help="the first N rows of the table (half fit, half scored)")
    ap.add_argument("--gpu", default="titan-xp", help="perfpred's GPU id for the column")
    ap.add_argument("--column", default="titanxp", help="the table's GPU column prefix (1080ti, 2080ti, titanx, titanxp)")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--queues", default="0,1,2,4", help="perfpred --launch-queue depths to test")
    a = ap.parse_args()
    if not os.access(a.perfpred, os.X_OK):
        sys.exit(f"help_additivity: no perfpred binary at {a.perfpred} (scripts/build.sh)")
    if not os.path.isfile(a.csv):
        sys.exit(f"help_additivity: {a.csv} missing (HELP's FBNet table, ../shared/datasets/help-nas-latency)")
    col = f"{a.column}_{a.batch}"
    with open(a.csv, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get(col) not in (None, "")][: a.networks]
    if len(rows) < 2 * (SLOTS * OPS + 1):
        sys.exit(f"help_additivity: {len(rows)} rows with a {col} value; the fit needs at least {2 * (SLOTS * OPS + 1)}")
    x = np.array([one_hot(r["op_idx_list"]) for r in rows])
    print(f"FBNet, {len(rows)} networks (fit on even, scored on odd), {a.gpu} batch {a.batch}: mean error of the "
          "best additive (slot x op) model, and perfpred's median predicted / measured")
    measured = np.array([float(r[col]) for r in rows])
    print(f"measured ({col}): {held_out_error(x, measured):.2f}%")
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for r in rows:
            p = os.path.join(tmp, f"fbnet_{int(r['idx']):04d}.onnx")
            with open(p, "wb") as out:
                out.write(dm.fbnet_onnx(dm.parse_fbnet(r["op_idx_list"])).SerializeToString())
            paths.append(p)
        for q in (int(v) for v in a.queues.split(",")):
            with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
                pred = np.array(list(ex.map(lambda p: predict(a.perfpred, p, a.gpu, a.batch, q), paths)))
            print(f"perfpred --launch-queue {q}: {held_out_error(x, pred):.2f}% "
                  f"(predicted / measured median {np.median(pred / measured):.2f})")


if __name__ == "__main__":
    main()
