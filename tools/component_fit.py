#!/usr/bin/python3
"""Which kind of kernel carries the analytical model's error on GPU-bound whole-network rows.

    /usr/bin/python3 tools/component_fit.py [--perfpred BIN] [--datasets cache/datasets] [--measured data/measured]
                                            [--only SET,...] [--by gpu,precision,mode] [--per-group 20]
                                            [--max-host-share 0.1] [--split all|held-out|calibration]
                                            [--merge pool+elementwise,...] [--ridge 0.05] [--min-rows 6]
                                            [--jobs 2] [--out FILE.md]

A whole-network row says how far a prediction is off, not where. This tool predicts each sampled row of the
converted network sets with `perfpred predict --json --layers --analytical` (and the row's run settings, as
tools/eval_analytical.py passes them), keeps the rows the GPU bounds (predicted host overhead at most
--max-host-share of the latency, so the latency is the kernels plus the copies), sums the predicted layer times by
kind (conv, depthwise conv, matmul, norm, pool, elementwise and the rest), and per group (--by: any of set, gpu,
precision, mode, batch, family) fits one non-negative multiplier per kind so that the copies and host overhead plus
the multiplied kind times match the measured latency best in relative terms (least squares of the relative error,
each multiplier pulled toward 1 by --ridge, so a group of few rows stays near the model).
A multiplier near 1 is a kind the model prices right there; 2 is a kind that takes twice its predicted time,
as far as the group's networks can tell the kinds apart (kinds that always come in the same proportions cannot be).
Kinds under 5% of a group's predicted kernel time are not fitted (held at 1); --merge fits kinds joined by '+'
as one (the first kind's column carries it, the others read '-').

Prints a markdown table: group, rows, mean APE before and after the fit, and each kind's multiplier and share of
the predicted kernel time. Diagnostic only: nothing here changes the model, and a fit on a group's own rows is not
held-out evidence.
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
import eval_analytical as ea  # noqa: E402  (the same rows, settings and split as the analytical evaluation)

KINDS = ["conv", "dwconv", "matmul", "norm", "pool", "elementwise"]
KEYS = {"set": lambda r: r["_set"], "gpu": lambda r: r["gpu_id"], "precision": lambda r: r["precision"],
        "mode": lambda r: r["mode"], "batch": lambda r: r["batch"], "family": lambda r: r["model_family"]}
# Arithmetic intensity (FLOPs per byte) under which a Conv layer is costed like a depthwise one (no data reuse).
DEPTHWISE_INTENSITY = 8.0
MIN_SHARE = 0.05


def kind_of(layer):
    """The kind of a predicted layer (one ONNX node or a fused group, `op` joining the group's ops with '+')."""
    op = layer.get("op", "")
    ops = op.split("+")
    if "Conv" in ops or "ConvTranspose" in ops:
        flops, nbytes = layer.get("flops") or 0, layer.get("bytes") or 0
        return "dwconv" if nbytes > 0 and flops / nbytes < DEPTHWISE_INTENSITY else "conv"
    if "MatMul" in ops or "Gemm" in ops or "LSTM" in ops or "GRU" in ops or "RNN" in ops:
        return "matmul"
    if any(o in ("BatchNormalization", "LayerNormalization", "InstanceNormalization", "GroupNormalization")
           for o in ops) or ("ReduceMean" in ops and "Sqrt" in ops):
        return "norm"
    if any(o in ("MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool") for o in ops):
        return "pool"
    return "elementwise"


def nnls(a, b, iterations=200):
    """Non-negative least squares (Lawson-Hanson): x >= 0 minimising |a x - b|."""
    import numpy as np
    n = a.shape[1]
    x = np.zeros(n)
    passive = np.zeros(n, dtype=bool)
    for _ in range(iterations):
        w = a.T @ (b - a @ x)
        if passive.all() or (w[~passive] <= 1e-12).all():
            break
        j = int(np.argmax(np.where(passive, -np.inf, w)))
        passive[j] = True
        while True:
            z = np.zeros(n)
            z[passive] = np.linalg.lstsq(a[:, passive], b, rcond=None)[0]
            if (z[passive] > 0).all():
                x = z
                break
            neg = passive & (z <= 0)
            alpha = np.min(x[neg] / (x[neg] - z[neg]))
            x = x + alpha * (z - x)
            passive &= x > 1e-12
    return x


def merged(kinds, merges):
    """{kind: ms} with each group of `merges` (lists of kind names) summed into its first kind."""
    out = dict(kinds)
    for group in merges:
        out[group[0]] = sum(out.pop(k, 0.0) for k in group)
    return out


def fit_group(samples, ridge):
    """samples: [(measured_ms, fixed_ms, {kind: predicted_ms})]. Returns (multipliers, shares, mape_before,
    mape_after, fitted kinds); kinds under MIN_SHARE of the predicted kernel time keep 1, and every multiplier is
    pulled toward 1 by `ridge` (a prior: the model is right until the rows say otherwise)."""
    import numpy as np
    totals = {k: sum(s[2].get(k, 0.0) for s in samples) for k in KINDS}
    all_kernels = sum(totals.values())
    shares = {k: (totals[k] / all_kernels if all_kernels > 0 else 0.0) for k in KINDS}
    fitted = [k for k in KINDS if shares[k] >= MIN_SHARE]
    y = np.array([s[0] for s in samples])
    held = np.array([s[1] + sum(v for k, v in s[2].items() if k not in fitted) for s in samples])
    x = np.array([[s[2].get(k, 0.0) for k in fitted] for s in samples]).reshape(len(samples), len(fitted))
    base = held + x.sum(axis=1)
    multipliers = {k: 1.0 for k in KINDS}
    if fitted:
        a_rel = np.vstack([x / y[:, None], np.sqrt(ridge) * np.eye(len(fitted))])
        b_rel = np.concatenate([(y - held) / y, np.sqrt(ridge) * np.ones(len(fitted))])
        coef = nnls(a_rel, b_rel)
        multipliers.update(dict(zip(fitted, coef)))
        after = held + x @ coef
    else:
        after = base
    mape = lambda p: float(np.mean(np.abs(p - y) / y) * 100)  # noqa: E731
    return multipliers, shares, mape(base), mape(after), fitted


def components(pred):
    """(fixed ms: copies and host overhead; {kind: predicted kernel ms}) of one `predict --json --layers`."""
    b = pred.get("breakdown", {})
    fixed = b.get("h2d_ms", 0.0) + b.get("d2h_ms", 0.0) + b.get("host_overhead_ms", 0.0)
    kinds = collections.defaultdict(float)
    for layer in pred.get("layers", []):
        kinds[kind_of(layer)] += layer.get("time_ms", 0.0)
    return fixed, dict(kinds)


def collect(a):
    """(row, args) for every sampled latency row of a catalogued GPU, as eval_analytical samples them."""
    files = ea.dataset_files(a.datasets, a.measured)
    only = set(x for x in a.only.split(",") if x)
    jobs, skipped = [], collections.Counter()
    for path in files:
        set_name = os.path.basename(os.path.dirname(path))
        if only and set_name not in only:
            continue
        # eval_analytical's rows and sample, then the ones with a latency
        rows = [r for r in ea.read_rows(path) if r.get("status") in ("ok", "oom")
                and (r.get("model") or (r.get("model_family") in ea.ON_DEMAND_FAMILIES and r.get("recipe")))]
        for rs in ea.sampled_groups(rows, a.per_group, a.seed):
            for r in rs:
                if r.get("status") != "ok" or not r.get("latency_ms"):
                    continue
                r["_set"] = set_name
                split = "calibration" if ea.calibration(r) else "held-out"
                if a.split != "all" and split != a.split:
                    continue
                if r["gpu_id"].startswith("spec:"):
                    skipped["spec GPU (no catalog entry)"] += 1
                    continue
                if r["model_family"] in ea.ON_DEMAND_FAMILIES:
                    model, err = ea.export_on_demand(r, path, a.datasets)
                    if model is None:
                        skipped[err[:100]] += 1
                        continue
                else:
                    model = os.path.normpath(os.path.join(os.path.dirname(path), r["model"]))
                args = [a.perfpred, "-q", "predict", model, "--gpu", ea.with_limit(r["gpu_id"], r),
                        "--batch", r["batch"] or "1", "--mode", r["mode"] or "inference",
                        "--runtime", ea.runtime_of(r["runtime"]), "--precision", r["precision"] or "fp32",
                        "--json", "--no-meta", "--layers", "--analytical"] + ea.run_settings(r)
                jobs.append((r, args))
    return jobs, skipped


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--perfpred", default=os.path.join(REPO, "build", "src", "cli", "perfpred"))
    ap.add_argument("--datasets", default=os.path.join(REPO, "cache", "datasets"))
    ap.add_argument("--measured", default=os.path.join(REPO, "data", "measured"))
    ap.add_argument("--only", default="", help="comma-separated set names")
    ap.add_argument("--by", default="gpu,precision,mode", help="group keys: " + ", ".join(KEYS))
    ap.add_argument("--per-group", type=int, default=20, help="rows sampled per eval_analytical group (default 20)")
    ap.add_argument("--max-host-share", type=float, default=0.1,
                    help="keep rows whose predicted host overhead is at most this share of the latency (default 0.1)")
    ap.add_argument("--split", choices=("all", "held-out", "calibration"), default="all")
    ap.add_argument("--min-rows", type=int, default=6, help="fit groups of at least this many rows (default 6)")
    ap.add_argument("--merge", default="", help="kinds to fit as one, '+'-joined, comma-separated (pool+elementwise)")
    ap.add_argument("--ridge", type=float, default=0.05,
                    help="pull of each multiplier toward 1, in squared relative error per row-equivalent (default 0.05)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="", help="also write the table to this file")
    a = ap.parse_args()
    keys = [k for k in a.by.split(",") if k]
    bad = [k for k in keys if k not in KEYS]
    if not keys or bad:
        sys.exit(f"component_fit: --by {a.by!r}: use a comma-separated list of {', '.join(KEYS)}")
    merges = [g.split("+") for g in a.merge.split(",") if g]
    flat = [k for g in merges for k in g]
    if any(k not in KINDS for k in flat) or len(flat) != len(set(flat)) or any(len(g) < 2 for g in merges):
        sys.exit(f"component_fit: --merge {a.merge!r}: join two or more of {', '.join(KINDS)} with '+', each kind once")
    if not (a.ridge >= 0):
        sys.exit(f"component_fit: --ridge {a.ridge}: must be 0 or more")
    if not (0 < a.max_host_share <= 1):
        sys.exit(f"component_fit: --max-host-share {a.max_host_share}: must be in (0, 1]")
    if not os.access(a.perfpred, os.X_OK):
        sys.exit(f"component_fit: {a.perfpred} is not an executable perfpred (build it: scripts/build.sh)")
    try:
        import numpy  # noqa: F401
    except ImportError:
        sys.exit("component_fit: needs numpy (/usr/bin/python3 has it: apt-get install python3-numpy)")
    jobs, skipped = collect(a)
    if not jobs:
        sys.exit(f"component_fit: no latency rows under {a.datasets} / {a.measured} for --only {a.only or 'all'}")

    def run(job):
        r, args = job
        p = subprocess.run(args, capture_output=True, text=True)
        if p.returncode != 0:
            return r, None, (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
        return r, json.loads(p.stdout), None

    groups = collections.defaultdict(list)
    host_bound = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for r, pred, err in ex.map(run, jobs):
            if err:
                skipped[err[:100]] += 1
                continue
            lat = pred["latency_ms"]
            if not lat or pred["breakdown"].get("host_overhead_ms", 0.0) > a.max_host_share * lat:
                host_bound += 1
                continue
            fixed, kinds = components(pred)
            kinds = merged(kinds, merges)
            groups[tuple(KEYS[k](r) for k in keys)].append((float(r["latency_ms"]), fixed, kinds))

    lines = [f"GPU-bound rows (predicted host overhead <= {a.max_host_share:.0%} of the latency; {host_bound} "
             f"host-bound rows left out), split {a.split}; per kind: fitted multiplier (share of the predicted "
             "kernel time), '-' under 5% (held at 1)", "",
             "| " + " | ".join(keys) + " | rows | mean APE before | after | " + " | ".join(KINDS) + " |",
             "|" + "---|" * (len(keys) + 3 + len(KINDS))]
    for key, samples in sorted(groups.items()):
        if len(samples) < a.min_rows:
            continue
        mult, shares, before, after, fitted = fit_group(samples, a.ridge)
        cells = [f"{mult[k]:.2f} ({shares[k]:.0%})" if k in fitted else "-" for k in KINDS]
        lines.append("| " + " | ".join(key) + f" | {len(samples)} | {before:.1f}% | {after:.1f}% | " +
                     " | ".join(cells) + " |")
    if skipped:
        lines += ["", "Not predicted: " + "; ".join(f"{v} x {k}" for k, v in skipped.most_common())]
    text = "\n".join(lines)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
