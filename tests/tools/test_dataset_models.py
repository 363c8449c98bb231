#!/usr/bin/python3
"""Checks tools/dataset_models.py: the directly built ONNX graphs (NAS-Bench-201, FBNet, OFA MobileNetV3, iCAS
ConvNets) against torch.onnx.export of the PyTorch definitions (same compute ops, same parameter count, same output
shape), the OFA subnet selection (widths, first d[i] entries per stage), and the iCAS parameter counts against the
source's `Total Parameters`. Not run by ctest (slow: torch tracing);
run `/usr/bin/python3 tests/tools/test_dataset_models.py` (exit 77 = skipped, no ../shared/datasets).

Known, intended difference: torch's exporter removes dead branches and merges identical ops on the same input
(CSE); the direct NAS-Bench-201 graphs keep every op PyTorch eager executes, so Relu/AveragePool counts may be
higher there (likewise Mul for `none` edges and the Add of `sum()` starting from 0). Those op types are compared
as direct >= torch. OFA's relu6 (in h_swish / h_sigmoid) is one hardtanh kernel in eager mode and one Clip in
the direct graph; torch exports it as Relu + Clip, so the torch Relu count minus its Clip count is compared.
"""
import collections
import csv
import glob
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.join(REPO, "..", "shared", "datasets")
sys.path.insert(0, os.path.join(REPO, "tools"))


def summary(m):
    import numpy as np
    import onnx
    skip = {"Constant", "Identity", "Shape", "Gather", "Unsqueeze", "Concat", "Slice", "Cast", "Reshape", "Transpose",
            "Pad", "Div"}  # Div: channel-shuffle shape arithmetic in the torch export
    ops = collections.Counter(n.op_type for n in m.graph.node if n.op_type not in skip)
    data = dict((p.key, p.value) for p in m.metadata_props)["perfpred.data_inputs"]
    params = sum(int(np.prod([d.dim_value for d in i.type.tensor_type.shape.dim])) for i in m.graph.input
                 if i.name != data)
    inferred = onnx.shape_inference.infer_shapes(m)
    out = [d.dim_param or d.dim_value for d in inferred.graph.output[0].type.tensor_type.shape.dim]
    return ops, params, out


def check_ofa(dm, rows):
    """OFA subnets: the w1.2 widths of OFA's search space, only the first d[i] (ks, e) entries of a stage used, and
    the block count and input size of every sampled recipe."""
    import torch
    fails = []
    if [w for w, _, _, _ in dm.OFA_STAGES] != [dm.ofa_make_divisible(w * 1.2) for w in (24, 40, 80, 112, 160)] or \
            (dm.OFA_STEM, dm.OFA_FINAL_EXPAND, dm.OFA_FEATURE_MIX) != (24, 1152, 1536):
        fails.append("OFA w1.2 widths differ from make_divisible(base * 1.2, 8)")
    r = rows[0]
    rec = dm.ofa_recipe(r["resolution"], r["ks"], r["e"], r["d"])
    res, stages = dm.parse_ofa(rec)
    ks, es, ds = ([int(t) for t in r[c].split()] for c in ("ks", "e", "d"))
    want = [[(ks[4 * i + j], es[4 * i + j]) for j in range(ds[i])] for i in range(5)]
    if res != int(r["resolution"]) or stages != want:
        fails.append(f"OFA recipe {rec!r} parsed as {res}, {stages}")
    # changing an unused entry (block d[i]..3 of a stage) must not change the network
    i = next(i for i, d in enumerate(ds) if d < 4)
    ks2 = list(ks)
    ks2[4 * i + 3] = 3 if ks2[4 * i + 3] != 3 else 7
    same = dm.ofa_recipe(r["resolution"], " ".join(map(str, ks2)), r["e"], r["d"])
    if dm.parse_ofa(same)[1] != stages:
        fails.append("OFA: an inactive (ks, e) entry changed the subnet")
    for r in rows[:50]:
        model, x = dm.build("ofa-mbv3", dm.ofa_recipe(r["resolution"], r["ks"], r["e"], r["d"]))
        nblocks = len(model.blocks) - 1
        if nblocks != sum(int(t) for t in r["d"].split()) or x.shape[-1] != int(r["resolution"]):
            fails.append(f"OFA row {r['idx']}: {nblocks} blocks, input {tuple(x.shape)}")
    for bad in ("r=224 ks=3 e=3 d=2", dm.ofa_recipe(224, " ".join(["4"] * 20), " ".join(["3"] * 20), "2 2 2 2 2")):
        try:
            dm.parse_ofa(bad)
            fails.append(f"OFA: bad recipe {bad!r} accepted")
        except ValueError:
            pass
    with torch.no_grad():
        model, x = dm.build("ofa-mbv3", rec)
        if tuple(model.eval()(x).shape) != (1, 1000):
            fails.append("OFA output is not 1 x 1000")
    return fails


def main():
    if not os.path.isdir(SHARED):
        print("skip: ../shared/datasets not found")
        return 77
    import onnx
    import torch
    import dataset_models as dm
    torch.set_num_threads(1)
    nb = list(csv.DictReader(open(os.path.join(SHARED, "help-nas-latency/nasbench201_latency_ms.csv"))))
    fb = list(csv.DictReader(open(os.path.join(SHARED, "help-nas-latency/fbnet_latency_ms.csv"))))
    none_arch = next(r["arch_str"] for r in nb if "|none~0|+|none~0|none~1|" in r["arch_str"])
    cases = [("nasbench201", r["arch_str"]) for r in nb[:3]] + [("nasbench201", none_arch)]
    cases += [("fbnet", r["op_idx_list"]) for r in fb[:3]]
    ofa = list(csv.DictReader(open(os.path.join(SHARED, "help-nas-latency/ofa_mbv3_latency_ms.csv"))))
    cases += [("ofa-mbv3", dm.ofa_recipe(r["resolution"], r["ks"], r["e"], r["d"])) for r in ofa[:3]]
    cases += [("icas-convnet", n) for n in ("convnet_L2_F128_K1x1_1_K3x3_1_W80", "convnet_L5_F128_K2x2_W30_DWS",
                                            "convnet_L5_F128_K1x1_3_K2x2_2_W80", "convnet_L2_F192_K4x4_W80")]
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        for fam, rec in cases:
            direct = dm.DIRECT[fam](rec)
            onnx.checker.check_model(direct)
            model, ex = dm.build(fam, rec)
            dm.export_onnx(model, ex, os.path.join(tmp, "t.onnx"))
            a, b = summary(direct), summary(onnx.load(os.path.join(tmp, "t.onnx")))
            if fam == "ofa-mbv3":  # torch writes relu6 as Relu + Clip, the direct graph as one Clip (eager: one kernel)
                b[0]["Relu"] -= b[0]["Clip"]
            for op in set(a[0]) | set(b[0]):
                ok = a[0][op] >= b[0][op] if op in ("Relu", "AveragePool", "Mul", "Add") and fam != "ofa-mbv3" \
                    else a[0][op] == b[0][op]
                if not ok:
                    fails.append(f"{fam} {rec}: {op} direct {a[0][op]} torch {b[0][op]}")
            if a[1] != b[1] or a[2] != b[2]:
                fails.append(f"{fam} {rec}: params {a[1]} vs {b[1]}, output {a[2]} vs {b[2]}")
            tparams = sum(p.numel() for p in model.parameters()) + sum(
                t.numel() for t in model.buffers() if t.is_floating_point())
            if a[1] != tparams:
                fails.append(f"{fam} {rec}: direct graph has {a[1]} parameter elements, torch model {tparams}")
    fails += check_ofa(dm, ofa)
    n = 0
    for f in glob.glob(os.path.join(SHARED, "jetson-nano-trt-energy-icas/data/*/*.csv")):
        for r in csv.DictReader(open(f)):
            n += 1
            if dm.icas_param_count(r["Model Name"]) != int(float(r["Total Parameters"])):
                fails.append(f"{r['Model Name']}: {dm.icas_param_count(r['Model Name'])} != {r['Total Parameters']}")
    if fails:
        print("\n".join(fails[:20]))
        return 1
    print(f"ok: {len(cases)} direct graphs match torch exports; {n} iCAS parameter counts match")
    return 0


if __name__ == "__main__":
    sys.exit(main())
