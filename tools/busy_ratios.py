#!/usr/bin/env python3
"""The analytical model against the kernels' own time in a `perfpred profile` kernel dataset.

A profile row's `time_ms` is the CUDA-event time of one call, which includes whatever host work the library
does inside the timed region (data/measured/README.md); CUPTI's `cupti_busy_ms` in its notes is the kernels'
own time. This prints, per (op family, phase, precision), the median and geometric mean of CUPTI busy time over
the analytical kernel time (`perfpred eval --rows`), over the rows of at least --min-gflop GFLOP.

Usage: tools/busy_ratios.py [--perfpred build/src/cli/perfpred] [--min-gflop 2] [--family conv] CSV
Example: tools/busy_ratios.py data/measured/h200-harness/kernels.csv
"""
import argparse
import csv
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rows_of(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data")
    ap.add_argument("--perfpred", default=os.path.join(ROOT, "build", "src", "cli", "perfpred"))
    ap.add_argument("--min-gflop", type=float, default=2.0)
    ap.add_argument("--family", default="", help="only this op family")
    a = ap.parse_args()
    measured = {r["id"]: r for r in rows_of(a.data)}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "rows.csv")
        p = subprocess.run([a.perfpred, "-q", "eval", "--model", "default", "--data", a.data, "--rows", out],
                           capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"busy_ratios: perfpred eval failed: {p.stderr.strip()}")
        evaluated = rows_of(out)
    groups = defaultdict(list)
    for e in evaluated:
        r = measured.get(e["id"])
        m = re.search(r"cupti_busy_ms=([0-9.eE+-]+)", (r or {}).get("notes", ""))
        if not m or (a.family and r["op_family"] != a.family):
            continue
        busy, analytical = float(m.group(1)), float(e["analytical"])
        if busy <= 0 or analytical <= 0 or float(r["flops"] or 0) < a.min_gflop * 1e9:
            continue
        groups[(r["op_family"], r["phase"], r["precision"])].append(busy / analytical)
    if not groups:
        sys.exit(f"busy_ratios: no row of {a.data} has cupti_busy_ms and {a.min_gflop} GFLOP or more")
    print("| op family | phase | precision | rows | median busy / analytical | geometric mean |")
    print("|---|---|---|---|---|---|")
    for (fam, phase, prec), v in sorted(groups.items()):
        geo = math.exp(sum(map(math.log, v)) / len(v))
        print(f"| {fam} | {phase} | {prec} | {len(v)} | {statistics.median(v):.2f} | {geo:.2f} |")


if __name__ == "__main__":
    main()
