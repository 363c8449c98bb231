#!/usr/bin/env python3
"""Write the shipped bundle's policy from the held-out evaluation rows of scripts/eval_learned.sh.

    eval_learned_policy.py OUT POLICY.json

OUT holds `perfpred eval --rows` CSVs named EVIDENCE-*.rows.csv. Each evidence set has a runtime, a level
(kernel rows or whole networks), a part (kernels or host) and says what was held out:

  kernels-*       NeuSight kernels, leave-one-GPU-out (PyTorch)                      part kernels, kernel level
  deepbench-*     DeepBench kernels, leave-one-GPU-out (cuDNN/cuBLAS called directly) part kernels, kernel level
  jetson-latency  TensorRT networks on Jetson boards (Nano iCAS, MLPerf ResNet-50 INT8, trtutils YOLOv8 FP16 with
                  an RTX 3090) under the same kernel boosters (unseen device class, runtime, GPUs)
  netk-*          whole networks under the shipped kernel boosters trained without the network GPUs: every
                  network row is held out by GPU and by family (no network ever trains a kernel booster)
  help-gpu-*, help-family-*, tv-*, tvfam-*   host-overhead bundles, leave-one-GPU-out and leave-one-family-out

  kfam-ns-*, kfam-db-*  NeuSight and DeepBench kernels, leave-one-op-family-out (the fallback booster predicts)
  kapp-db-*       DeepBench kernels, leave-one-application-out (DeepSpeech, vision, ...: the shapes of a family of
                  networks no training row came from; grouped by the rows' model_family, the application)

Rows are grouped into slices (device class of the GPU, runtime, mode, precision). A slice's part is
learned when the learned layer wins by a clear margin with evidence held out both by GPU and by family:
pooled mean APE at most K_RATIO of the analytical model's and K_POINTS points below it (pooled over the
GPU-held-out rows, and where there are also family-held-out rows of other folds, over those too), and no held-out
group (GPU, family) worse than the analytical model by more than K_POINTS. A held-out family (group) whose
rows the boosters corrected under K_SHARE of the kernel time (an op no booster trained on keeps the analytical
time, so a held-out op family is predicted by the analytical model) is not held-out-family evidence. Whole-network evidence decides where it exists; kernel-level evidence alone decides
the kernel part elsewhere, and the rule says so. A slice without rows gets no rule: `predict` then uses
the analytical model and says there was no held-out evidence.
"""
import csv
import glob
import json
import os
import sys
from collections import defaultdict

K_RATIO = 0.9    # learned mean APE at most this share of the analytical one ...
K_POINTS = 2.0   # ... and this many points below it; no group worse than analytical by more
K_SHARE = 0.01   # held-out-family evidence counts only where the boosters corrected at least this share of kernel time

# evidence prefix -> (runtime, level, part, what was held out, description)
SETS = [
    ("kernels-", "pytorch", "kernel", "kernels", ("GPU",), "NeuSight kernels, leave-one-GPU-out"),
    ("kfam-ns-", "pytorch", "kernel", "kernels", ("family",), "NeuSight kernels, leave-one-op-family-out"),
    ("deepbench-", "cudnn", "kernel", "kernels", ("GPU",), "DeepBench kernels, leave-one-GPU-out"),
    ("kfam-db-", "cudnn", "kernel", "kernels", ("family",), "DeepBench kernels, leave-one-op-family-out"),
    ("kapp-db-", "cudnn", "kernel", "kernels", ("family",), "DeepBench kernels, leave-one-application-out"),
    ("jetson-latency", "tensorrt", "network", "kernels", ("GPU", "family"),
     "TensorRT networks on Jetson boards (and trtutils' RTX 3090), unseen device class, runtime and GPUs"),
    ("netk-", "pytorch", "network", "kernels", ("GPU", "family"), "whole networks, GPUs and families held out"),
    ("help-gpu-", "pytorch", "network", "host", ("GPU",), "HELP networks, leave-one-GPU-out"),
    ("help-family-", "pytorch", "network", "host", ("family",), "HELP networks, leave-one-family-out"),
    ("tv-", "pytorch", "network", "host", ("GPU",), "torchvision networks, leave-one-GPU-out"),
    ("tvfam-", "pytorch", "network", "host", ("family",), "torchvision networks, leave-one-architecture-family-out"),
]
# A part is learned only with evidence held out both ways (a GPU and a family the bundle never saw).
NEEDED = {"GPU", "family"}
# The rows-CSV column naming a row's held-out family, where it is not `family` (a kernel row's op family).
FAMILY_COLUMN = {"kapp-db-": "model_family"}


def device_classes(root):
    out = {}
    for f in glob.glob(os.path.join(root, "data", "gpus", "*.json")):
        try:
            j = json.load(open(f))
        except (OSError, ValueError):
            continue
        out[j.get("id", os.path.basename(f)[:-5])] = j.get("segment", "hypothetical")
    return out


def mode_of(phase):
    if phase in ("inference", "training"):
        return phase
    return "inference" if phase == "forward" else "training"


def ape(pred, meas):
    return abs(pred - meas) / meas * 100.0


def read_rows(out):
    """(part, level, description, slice, group kind, group) -> [(learned APE, analytical APE, learned share)]"""
    classes = device_classes(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    cells = defaultdict(list)
    used = []
    for path in sorted(glob.glob(os.path.join(out, "*.rows.csv"))):
        name = os.path.basename(path)[: -len(".rows.csv")]
        match = next((s for s in SETS if name.startswith(s[0])), None)
        if not match:
            continue
        prefix, runtime, level, part, held, desc = match
        fam_col = FAMILY_COLUMN.get(prefix, "family")
        used.append(name)
        for r in csv.DictReader(open(path)):
            try:
                meas, ana, learned = float(r["measured"]), float(r["analytical"]), float(r["learned"])
            except (KeyError, ValueError):
                continue
            if not meas > 0:
                continue
            sl = (classes.get(r["gpu_id"], "desktop" if r["gpu_id"].startswith("spec:") else "hypothetical"),
                  runtime, mode_of(r["phase_or_mode"]), r["precision"])
            try:  # share of the row's kernel time the boosters corrected (rows CSVs before it have none)
                share = float(r["learned_share"])
            except (KeyError, TypeError, ValueError):
                share = None
            e = (ape(learned, meas), ape(ana, meas), share)
            for kind in held:
                if kind == "family" and not r.get(fam_col):
                    continue  # a row of no known application is held out by no family
                cells[(part, level, desc, sl, kind, r["gpu_id"] if kind == "GPU" else r[fam_col])].append(e)
    return cells, used


def summarise(cells):
    """(part, slice) -> level -> {desc, n, learned, analytical, groups: [(kind, name, n, l, a, share)]}"""
    out = defaultdict(dict)
    for (part, level, desc, sl, kind, group), es in cells.items():
        s = out[(part, sl)].setdefault(level, {"descs": set(), "groups": []})
        s["descs"].add(desc)
        n = len(es)
        shares = [e[2] for e in es if e[2] is not None]
        s["groups"].append((kind, group, n, sum(e[0] for e in es) / n, sum(e[1] for e in es) / n,
                            sum(shares) / len(shares) if shares else None))
    for (part, _), s in out.items():
        for ev in s.values():
            # Pooled over every held-out row once: the GPU groups where there are any, else the family groups.
            kinds = {g[0] for g in ev["groups"]}
            pool = [g for g in ev["groups"] if g[0] == ("GPU" if "GPU" in kinds else "family")]
            ev["n"] = sum(g[2] for g in pool)
            ev["learned"] = sum(g[2] * g[3] for g in pool) / ev["n"]
            ev["analytical"] = sum(g[2] * g[4] for g in pool) / ev["n"]
            ev["kinds"] = kinds
            # Held out by family, a kernel whose op no training row of its booster had keeps the analytical time
            # (the op check): a held-out family whose kernel time the boosters corrected under K_SHARE is the
            # analytical model and says nothing about how they carry over to a new family, so it is no evidence.
            # The host part is a booster of its own (dispatch time, not kernels): its family rows always count.
            fam = [g for g in ev["groups"] if g[0] == "family"]
            if part == "kernels" and fam and all(g[5] is not None for g in fam):
                counted = [g for g in fam if g[5] >= K_SHARE]
                use = counted or fam
                ev["family_share"] = sum(g[2] * g[5] for g in use) / sum(g[2] for g in use)
                ev["family_uncounted"] = len(fam) - len(counted)
                if not counted:
                    ev["kinds"] = kinds - {"family"}
                fam = counted
            if fam and "GPU" in kinds:  # the family-held-out rows pooled, where other folds than the GPU pool's
                n = sum(g[2] for g in fam)
                pool = (n, sum(g[2] * g[3] for g in fam) / n, sum(g[2] * g[4] for g in fam) / n)
                if any(abs(x - y) > 1e-9 for x, y in zip(pool, (ev["n"], ev["learned"], ev["analytical"]))):
                    ev["family_pool"] = pool
    return out


def clear_win(learned, analytical):
    return learned <= K_RATIO * analytical and analytical - learned >= K_POINTS


def wins(ev):
    worst = max(ev["groups"], key=lambda g: g[3] - g[4])
    ok = clear_win(ev["learned"], ev["analytical"]) and worst[3] - worst[4] <= K_POINTS and NEEDED <= ev["kinds"]
    if "family_pool" in ev and "family" in ev["kinds"]:  # held out by family as well as by GPU, the same margin
        ok = ok and clear_win(*ev["family_pool"][1:])
    return ok, worst


def describe(ev):
    ok, worst = wins(ev)
    kinds = sorted(ev["kinds"])
    text = "{} ({} rows; held out by {}): learned {:.1f}% vs analytical {:.1f}% mean APE; worst {} {} {:.1f}% vs {:.1f}%".format(
        " + ".join(sorted(ev["descs"])), ev["n"], " and ".join(kinds), ev["learned"], ev["analytical"],
        worst[0], worst[1], worst[3], worst[4])
    if "family_pool" in ev and "family" in ev["kinds"]:
        text += "; held out by family ({} rows): learned {:.1f}% vs analytical {:.1f}%".format(*ev["family_pool"])
    if "family_share" in ev:
        text += "; held out by family the boosters corrected {:.0f}% of the kernel time".format(100 * ev["family_share"])
        if ev.get("family_uncounted") and "family" in ev["kinds"]:
            k = ev["family_uncounted"]
            text += " ({} held-out {} where they corrected under {:.0%} {} not evidence)".format(
                k, "family" if k == 1 else "families", K_SHARE, "is" if k == 1 else "are")
    missing = sorted(NEEDED - ev["kinds"])
    if missing:
        text += "; no held-out-{} evidence".format(" or ".join(missing))
        if "family" in missing and ev.get("family_share", 1) < K_SHARE:
            text += " (the learned column there is the analytical model: ops no booster trained on)"
    return ok, text


def rules(summary):
    out = []
    for (part, sl), levels in sorted(summary.items()):
        cls, runtime, mode, precision = sl
        rule = {"part": part, "device_class": cls, "runtime": runtime, "mode": mode, "precision": precision}
        if "network" in levels:
            ok, text = describe(levels["network"])
            if "kernel" in levels:
                text += "; kernel level: " + describe(levels["kernel"])[1]
            verdict = "learned: wins on held-out whole networks" if ok else "analytical: no clear win on held-out whole networks"
        else:
            ok, text = describe(levels["kernel"])
            verdict = ("learned: wins on held-out kernels (kernel-level evidence only; no held-out whole-network rows "
                       "for this slice)") if ok else "analytical: no clear win on held-out kernels"
            # Whole networks of the same runtime, mode and precision on other device classes, if any: what the
            # same boosters did to networks there (a caveat, not a decision: the slice has no network rows).
            for (p2, sl2), lv2 in sorted(summary.items()):
                if p2 == part and sl2[1:] == sl[1:] and sl2[0] != cls and "network" in lv2:
                    text += "; caveat, whole networks on {} GPUs: {}".format(sl2[0], describe(lv2["network"])[1])
        rule["predictor"] = "learned" if ok else "analytical"
        rule["evidence"] = verdict + ". " + text
        out.append(rule)
    # Learned rules after analytical ones would never be reached for the same slice; slices are disjoint,
    # so order only matters for readability: learned first.
    out.sort(key=lambda r: (r["predictor"] != "learned", r["part"], r["device_class"], r["runtime"], r["mode"],
                            r["precision"]))
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: eval_learned_policy.py OUT POLICY.json")
    cells, used = read_rows(sys.argv[1])
    if not used:
        sys.exit("eval_learned_policy: no *.rows.csv evidence in " + sys.argv[1] + " (run scripts/eval_learned.sh first)")
    policy = {"rules": rules(summarise(cells)), "evidence_files": used,
              "thresholds": {"learned_at_most_share_of_analytical": K_RATIO, "points": K_POINTS}}
    with open(sys.argv[2], "w") as f:
        json.dump(policy, f, indent=1)
        f.write("\n")
    for r in policy["rules"]:
        print("{:10s} {:7s} {:10s} {:8s} {:9s} {:5s} {}".format(r["predictor"], r["part"], r["device_class"], r["runtime"],
                                                             r["mode"], r["precision"], r["evidence"][:150]))


if __name__ == "__main__":
    main()
