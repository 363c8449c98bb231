#!/usr/bin/python3
"""What perfpred's two per-machine factors, --host-factor and --gpu-factor, fitted on three measured rows buy.

    /usr/bin/python3 tools/eval_two_factor.py [--perfpred BIN] [--jobs 4] [--dump cache/eval/two-factor-rows.json]

For every held-out PyTorch machine of tools/eval_host_factor.py (same rows, 60 per machine), takes its two most
host-bound inference rows and its most GPU-bound row as shots, fits --host-factor F and --gpu-factor G (every
kernel's time times G; docs/model.md, "GPU speed") by coordinate descent on log grids (F 1/4..4, G 1/4..4), and
scores the machine's other rows: default, host factor alone (fitted on the two host-bound shots) and both. Prints
one line per machine and the pooled mean APE (docs/accuracy.md, "Session 27"). A user does the same with
`perfpred fit-host` on a host-bound run and `perfpred fit-gpu` on a GPU-bound one. --dump writes the scored rows
at the fitted factors as tools/eval_host_factor.py --dump does (with their `gpu_factor`): tools/fit_intervals.py
--gpu-calibrated-rows fits the ranges of predictions made with --gpu-factor from them.
"""
import argparse
import collections
import concurrent.futures
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import eval_analytical as ea  # noqa: E402
import eval_host_factor as eh  # noqa: E402

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--perfpred", default=os.path.join(ea.REPO, "build", "src", "cli", "perfpred"))
ap.add_argument("--jobs", type=int, default=4)
ap.add_argument("--dump", default="", help="write the scored rows at the fitted factors (JSON) here: "
                "tools/fit_intervals.py --gpu-calibrated-rows")
a = ap.parse_args()
BIN = a.perfpred
cache = {}


def pred(r, f, g):
    """predict --json of row r at host factor f and GPU factor g (memoised; None where refused)."""
    key = (r["id"], round(f, 4), round(g, 4))
    if key not in cache:
        args = eh.predict_args(BIN, r, f) + (["--gpu-factor", f"{g:.6g}"] if abs(g - 1) > 1e-9 else [])
        p = subprocess.run(args, capture_output=True, text=True)
        cache[key] = json.loads(p.stdout) if p.returncode == 0 else None
    return cache[key]


def lat(v):
    return v["latency_ms"] if v else None


def log_grid(lo, hi, n):
    return [math.exp(math.log(lo) + i * math.log(hi / lo) / (n - 1)) for i in range(n)]


FS, GS = log_grid(0.25, 4.0, 25), log_grid(0.25, 4.0, 25)
machines = {m: rs for m, rs in eh.machine_rows(os.path.join(ea.REPO, "cache", "datasets"), 60,
                                               os.path.join(ea.REPO, "data", "measured")).items() if len(rs) >= 6}
pooled = collections.defaultdict(list)
dumped = []
ex = concurrent.futures.ThreadPoolExecutor(a.jobs)


def loss(shots, f, g):
    ps = list(ex.map(lambda r: lat(pred(r, f, g)), shots))
    e = [abs(math.log(p / float(r["latency_ms"]))) for p, r in zip(ps, shots) if p]
    return sum(e) / len(e) if e else math.inf


for m, rs in sorted(machines.items()):
    first = list(ex.map(lambda r: pred(r, 1.0, 1.0), rs))
    order = sorted(range(len(rs)), key=lambda i: (rs[i].get("mode") == "training", -eh.host_share(first[i])))
    host_shots = [rs[i] for i in order[:2]]
    gpu_i = min(order[2:], key=lambda i: (eh.host_share(first[i]) if first[i] else 9, rs[i].get("mode") == "training"))
    shots = host_shots + [rs[gpu_i]]
    rest_idx = [i for i in order[2:] if i != gpu_i]
    f, g = 1.0, 1.0
    for _ in range(3):  # coordinate descent on the grids
        f = min(FS, key=lambda x: loss(shots, x, g))
        g = min(GS, key=lambda x: loss(shots, f, x))
    f1 = min(FS, key=lambda x: loss(host_shots, x, 1.0))  # the host factor alone, as tools/eval_host_factor.py
    measured = [float(rs[i]["latency_ms"]) for i in rest_idx]

    def ape(preds):
        return [abs(p / mm - 1) * 100 for p, mm in zip(preds, measured) if p]

    a0 = ape([lat(first[i]) for i in rest_idx])
    a1 = ape(list(ex.map(lambda i: lat(pred(rs[i], f1, 1.0)), rest_idx)))
    at_fit = list(ex.map(lambda i: pred(rs[i], f, g), rest_idx))
    a2 = ape([lat(j) for j in at_fit])
    for i, j in zip(rest_idx, at_fit):
        if j:
            dumped.append(dict(eh.dump_row(rs[i], m[0], m[1], m[2], f, j), gpu_factor=round(g, 4)))
    pooled["default"] += a0
    pooled["host"] += a1
    pooled["two"] += a2
    print(m, len(rest_idx), "F1 %.2f | F %.2f G %.2f | default %.1f host-only %.1f two-factor %.1f"
          % (f1, f, g, sum(a0) / len(a0), sum(a1) / len(a1), sum(a2) / len(a2)), flush=True)
print("pooled", {k: round(sum(v) / len(v), 1) for k, v in pooled.items()}, len(pooled["two"]))
if a.dump:
    with open(a.dump, "w", encoding="utf-8") as out:
        json.dump(dumped, out, indent=1)
    print(f"eval_two_factor: wrote {len(dumped)} rows at their machines' fitted factors to {a.dump}", file=sys.stderr)
