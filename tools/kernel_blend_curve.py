#!/usr/bin/env python3
"""Held-out error of the kernel boosters blended with the analytical model, for a range of blend weights.

Reads the rows files (`perfpred eval --rows`) of bundles trained with `--kernel-blend 1` (boosters alone), so each
row holds the measured, analytical and learned kernel time, and recomputes every held-out fold's mean APE for the
blended time learned^w x analytical^(1 - w). `scripts/eval_learned.sh blend` writes those rows into OUT/blend1 and
runs this; the table shows why the shipped bundles use learn::k_default_kernel_blend.

  /usr/bin/python3 tools/kernel_blend_curve.py DIR [--json OUT.json]

Groups: NeuSight leave-one-GPU-out (DIR/kernels-*.rows.csv), DeepBench leave-one-GPU-out (DIR/deepbench-*),
DeepBench leave-one-application-out (DIR/kapp-db-*). Per group and weight: the pooled mean APE over all held-out
rows, and the worst fold's change against the analytical model (in points; negative: every fold better).
"""
import argparse
import csv
import glob
import json
import math
import os
import sys

WEIGHTS = [0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0]
GROUPS = [("NeuSight, leave one GPU out", "kernels-*.rows.csv"),
          ("DeepBench, leave one GPU out", "deepbench-*.rows.csv"),
          ("DeepBench, leave one application out", "kapp-db-*.rows.csv")]


def fold_errors(path):
    """Per weight, the APEs of the fold's rows (rows with a non-positive time are skipped)."""
    errs = [[] for _ in WEIGHTS]
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            try:
                m, a, l = float(r["measured"]), float(r["analytical"]), float(r["learned"])
            except (KeyError, ValueError):
                raise SystemExit("kernel_blend_curve: %s: needs numeric measured, analytical and learned columns "
                                 "(a `perfpred eval --rows` file)" % path)
            if m <= 0 or a <= 0 or l <= 0:
                continue
            for i, w in enumerate(WEIGHTS):
                p = math.exp(w * math.log(l) + (1 - w) * math.log(a))
                errs[i].append(abs(p - m) / m * 100)
    return errs


def curve(directory):
    out = {}
    for label, pattern in GROUPS:
        files = sorted(glob.glob(os.path.join(directory, pattern)))
        if not files:
            continue
        pooled = [[] for _ in WEIGHTS]
        folds = {}
        for path in files:
            errs = fold_errors(path)
            if not errs[0]:
                continue
            folds[os.path.basename(path)[: -len(".rows.csv")]] = [sum(e) / len(e) for e in errs]
            for i, e in enumerate(errs):
                pooled[i] += e
        if not folds:
            continue
        out[label] = {"folds": len(folds), "rows": len(pooled[0]), "weights": {}}
        for i, w in enumerate(WEIGHTS):
            worst = max(f[i] - f[0] for f in folds.values())
            out[label]["weights"]["%g" % w] = {"mean_ape": sum(pooled[i]) / len(pooled[i]), "worst_fold_change": worst}
        out[label]["rule_pick"] = rule_pick(out[label])
    return out


def rule_pick(group):
    """The weight the default's rule picks from one group of the curve: the lowest pooled mean APE among the
    weights with no held-out fold worse than the analytical model (w = 0 always qualifies)."""
    ok = [(v["mean_ape"], float(w)) for w, v in group["weights"].items() if v["worst_fold_change"] <= 0]
    return "%g" % min(ok)[1]


def markdown(c):
    lines = ["| held out | folds | rows | " + " | ".join("w = %g" % w for w in WEIGHTS) + " |",
             "|---|---|---|" + "---|" * len(WEIGHTS)]
    for label, g in c.items():
        cells = []
        for w in WEIGHTS:
            v = g["weights"]["%g" % w]
            cells.append("%.1f%% (%+.1f)" % (v["mean_ape"], v["worst_fold_change"]))
        lines.append("| %s | %d | %d | %s |" % (label, g["folds"], g["rows"], " | ".join(cells)))
    ns = next((g for label, g in c.items() if label.startswith("NeuSight")), None)
    if ns:
        lines += ["", "The default's rule (on the NeuSight folds, the lowest pooled mean APE with no held-out GPU worse "
                  "than the analytical model) picks w = %s." % ns["rule_pick"]]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--json", help="also write the curve as JSON")
    a = ap.parse_args()
    if not os.path.isdir(a.dir):
        raise SystemExit("kernel_blend_curve: %s is not a folder" % a.dir)
    c = curve(a.dir)
    if not c:
        raise SystemExit("kernel_blend_curve: %s has no kernels-*, deepbench-* or kapp-db-* rows files "
                         "(run `scripts/eval_learned.sh blend`)" % a.dir)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(c, f, indent=1)
    sys.stdout.write(markdown(c))
    return 0


if __name__ == "__main__":
    sys.exit(main())
