#!/usr/bin/python3
"""Generate the GPU catalog (data/gpus/<id>.json) from ../shared/reference/gpu-specs.json.

One file per device, schema_version 1, every GpuSpec field (include/perfpred/hw/gpu_spec.hpp) with
units in the key names, plus the reference's citations and its derived/unsourced/conflict notes.
Devices the catalog needs but the reference lacks (Tesla P4, Titan V, V100 PCIe 32GB) are derived
from the closest published record and marked "provisional".

Deterministic: sorted keys, floats rounded to 4 decimals, so re-running gives byte-identical files.

Usage:
  tools/gen_catalog.py                 # write data/gpus/*.json
  tools/gen_catalog.py --check         # regenerate in memory, compare with data/gpus, exit 1 on drift
  tools/gen_catalog.py --reference PATH --out DIR
"""
import argparse
import copy
import json
import math
import os
import sys

SCHEMA_VERSION = 1
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_REFERENCE = os.path.join(REPO, "..", "shared", "reference", "gpu-specs.json")
DEFAULT_OUT = os.path.join(REPO, "data", "gpus")
REFERENCE_LABEL = "../shared/reference/gpu-specs.json"

# Reference record id -> catalog id.
ID_MAP = {
    "gtx_1080_ti": "gtx-1080ti",
    "gtx_1080": "gtx-1080",
    "titan_x_pascal": "titan-x-pascal",
    "titan_xp": "titan-xp",
    "rtx_2080_ti": "rtx-2080ti",
    "titan_rtx": "titan-rtx",
    "tesla_p100_pcie_16gb": "p100-pcie-16gb",
    "tesla_v100_sxm2_16gb": "v100-sxm2-16gb",
    "tesla_v100_sxm2_32gb": "v100-sxm2-32gb",
    "tesla_t4": "t4",
    "rtx_3090": "rtx-3090",
    "a10": "a10",
    "a30": "a30",
    "a100_pcie_40gb": "a100-pcie-40gb",
    "a100_sxm4_40gb": "a100-sxm4-40gb",
    "a100_pcie_80gb": "a100-pcie-80gb",
    "a100_sxm4_80gb": "a100-sxm4-80gb",
    "l4": "l4",
    "l40s": "l40s",
    "rtx_4090": "rtx-4090",
    "h100_sxm5_80gb": "h100-sxm5-80gb",
    "h100_pcie_80gb": "h100-pcie-80gb",
    "h200_sxm_141gb": "h200-sxm-141gb",
    "jetson_nano_4gb": "jetson-nano",
    "jetson_tx2": "jetson-tx2",
    "jetson_xavier_nx": "jetson-xavier-nx",
    "jetson_agx_xavier": "jetson-agx-xavier",
    "jetson_orin_nano_8gb": "jetson-orin-nano-8gb",
    "jetson_orin_nx_16gb": "jetson-orin-nx-16gb",
    "jetson_agx_orin_64gb": "jetson-agx-orin-64gb",
}

REQUIRED_IDS = [
    "gtx-1080", "gtx-1080ti", "titan-x-pascal", "titan-xp", "titan-v", "rtx-2080ti", "titan-rtx", "p4",
    "p100-pcie-16gb", "v100-sxm2-16gb", "v100-pcie-32gb", "t4", "rtx-3090", "a10", "a30", "a40",
    "a100-pcie-40gb", "a100-sxm4-40gb", "a100-pcie-80gb", "a100-sxm4-80gb", "l4", "l40s", "rtx-4090",
    "h100-pcie-80gb", "h100-sxm5-80gb", "h200-sxm-141gb", "jetson-nano", "jetson-tx2",
    "jetson-xavier-nx", "jetson-agx-xavier", "jetson-orin-nano-8gb", "jetson-orin-nx-16gb",
    "jetson-agx-orin-64gb",
]

# MIG table name in the reference -> catalog devices that carry those profiles. PCIe and SXM boards of
# the A100 share profiles (same GA100, same 8 memory slices); H100 PCIe has its own SM counts.
MIG_PARENTS = {
    "A100 40GB": ["a100-pcie-40gb", "a100-sxm4-40gb"],
    "A100 80GB": ["a100-pcie-80gb", "a100-sxm4-80gb"],
    "A30 24GB": ["a30"],
    "H100 80GB (SXM5)": ["h100-sxm5-80gb"],
    "H100 80GB (PCIe)": ["h100-pcie-80gb"],
    "H200 141GB": ["h200-sxm-141gb"],
}
# When a PCIe profile lacks a value the SXM table has, take it from here.
MIG_FALLBACK = {"H100 80GB (PCIe)": "H100 80GB (SXM5)"}

# Jetson nvpmodel mode (reference string prefix) -> catalog mode name. Modes not listed are not
# modelled (Super BSP modes exceed the catalogued maximum clock; see the file's assumptions).
JETSON_MODES = {
    "jetson-nano": [("MAXN", "maxn"), ("5W", "5w")],
    "jetson-tx2": [("Max-N", "maxn"), ("Max-P", "maxp"), ("Max-Q", "maxq")],
    "jetson-xavier-nx": [("15W", "15w"), ("10W", "10w")],
    "jetson-agx-xavier": [("MAXN", "maxn"), ("MODE_30W", "30w"), ("MODE_15W", "15w"), ("MODE_10W", "10w")],
    "jetson-orin-nano-8gb": [("15W (original", "15w"), ("7W (original", "7w")],
    "jetson-orin-nx-16gb": [("MAXN (id 0)", "maxn"), ("25W", "25w"), ("15W", "15w"), ("10W", "10w")],
    "jetson-agx-orin-64gb": [("MAXN", "maxn"), ("MODE_50W", "50w"), ("MODE_30W", "30w"), ("MODE_15W", "15w")],
}

# PCIe theoretical GB/s per direction for x16 (128b/130b from gen 3 on); effective = 0.8 x that.
PCIE_X16_GBPS = {3: 15.754, 4: 31.508, 5: 63.015}
PCIE_EFFICIENCY = 0.8
IDLE_FRACTION_BOARD = 0.09
IDLE_FRACTION_JETSON = 0.10

# INT32 lanes per SM (dp4a runs there): Pascal 128 (= FP32 lanes), Volta..Hopper 64.
def int32_lanes_per_sm(cc):
    major = int(cc.split(".")[0])
    return 128 if major == 6 else 64


def fnum(x):
    """Stable number formatting: ints stay ints, floats rounded to 4 decimals."""
    if isinstance(x, bool) or x is None:
        return x
    if isinstance(x, int):
        return x
    r = round(float(x), 4)
    if r == int(r) and abs(r) < 1e15:
        return float(int(r))
    return r


def normalise(obj):
    if isinstance(obj, dict):
        return {k: normalise(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [normalise(v) for v in obj]
    if isinstance(obj, float):
        return fnum(obj)
    return obj


def parse_fraction(s):
    a, b = s.split("/")
    return int(a) / int(b)


def host_link(host_interface, segment):
    """(pcie_gen, pcie_lanes) parsed from the reference's host_interface text."""
    text = host_interface or ""
    gen = 0
    for g, token in ((5, "Gen5"), (4, "PCIe 4.0"), (3, "PCIe 3.0")):
        if token in text:
            gen = g
            break
    lanes = 16 if "x16" in text else 0
    return gen, lanes


def citations(record):
    out = []
    for s in record.get("sources", []):
        out.append("%s: %s" % (", ".join(s["fields"]), "; ".join(s["citations"])))
    return out


def base_entry(r, cid):
    """Fields common to GPUs and Jetsons, copied from a reference record."""
    cc = r["compute_capability"]
    is_jetson = r["record_type"] == "jetson"
    e = {
        "schema_version": SCHEMA_VERSION,
        "id": cid,
        "name": r["name"],
        "architecture": r["architecture"],
        "chip": r.get("chip"),
        "compute_capability": cc,
        "segment": "embedded" if is_jetson else r["segment"],
        "sm_count": int(r["sm_count"]),
        "fp32_lanes_per_sm": int(r["fp32_cores_per_sm"]),
        "base_clock_mhz": r.get("base_clock_mhz") or 0,
        "boost_clock_mhz": r["boost_clock_mhz"],
        "fp32_tflops": r["fp32_tflops"],
        "fp16_tflops": r.get("fp16_nontensor_tflops") or 0,
        "bf16_tflops": 0,
        "fp64_tflops": r.get("fp64_tflops") or 0,
        "tensor_fp16_tflops": r.get("tensor_fp16_dense_tflops") or 0,
        # GeForce tensor cores run FP16 accumulation at twice the FP32-accumulate rate (0 = no faster rate)
        "tensor_fp16_fp16acc_tflops": (r.get("tensor_fp16_fp16acc_dense_tflops") or 0)
        if (r.get("tensor_fp16_fp16acc_dense_tflops") or 0) > (r.get("tensor_fp16_dense_tflops") or 0) else 0,
        "tensor_bf16_tflops": r.get("tensor_bf16_dense_tflops") or 0,
        "tensor_tf32_tflops": r.get("tensor_tf32_dense_tflops") or 0,
        "tensor_int8_tops": 0,
        "int8_tops": 0,
        "tensor_cores": int(r.get("tensor_cores_total") or 0),
        "tensor_core_generation": r.get("tensor_core_generation"),
        "memory_gb": r["memory_gb"],
        "memory_type": r["memory_type"],
        "mem_bandwidth_gbps": r["mem_bandwidth_gbps"],
        "l2_cache_mb": r["l2_cache_mb"],
        "shared_mem_per_sm_kb": r["shared_mem_per_sm_kb"],
        "registers_per_sm": int(r["registers_per_sm"]),
        "max_threads_per_sm": int(r["max_threads_per_sm"]),
        "tdp_w": r["tdp_w"],
        "idle_power_w": 0,
        "unified_memory": is_jetson,
        "pcie_gen": 0,
        "pcie_lanes": 0,
        "host_link_gbps": 0,
        "launch_date": r.get("launch_date"),
        "provisional": False,
        "assumptions": [],
        "sources": citations(r),
        "reference_id": r["id"],
        "reference_derived_fields": sorted(r.get("derived_fields", [])),
        "reference_unsourced_fields": sorted(r.get("unsourced_fields", [])),
        "reference_conflicts": list(r.get("conflicts", [])),
        "reference_notes": list(r.get("notes", [])),
    }
    if r.get("tensor_fp8_dense_tflops"):
        e["tensor_fp8_tflops"] = r["tensor_fp8_dense_tflops"]
    a = e["assumptions"]
    if not r.get("base_clock_mhz"):
        a.append("base_clock_mhz: not published in the reference; 0 means unknown (peaks use the boost clock).")
    return e


def fill_rates(e, r):
    """Split the reference's INT8 figure into tensor vs dp4a, and derive the paths it leaves empty."""
    a = e["assumptions"]
    cc = e["compute_capability"]
    major, minor = (int(x) for x in cc.split("."))
    clock_ghz = e["boost_clock_mhz"] / 1000.0
    int8 = r.get("int8_dense_tops") or 0
    dp4a_capable = (major, minor) >= (6, 1)
    dp4a = e["sm_count"] * int32_lanes_per_sm(cc) * 8 * clock_ghz / 1000.0 if dp4a_capable else 0.0
    int8_tensor = e["tensor_cores"] > 0 and cc != "7.0"  # GV100 tensor cores have no INT8 mode
    if int8_tensor:
        e["tensor_int8_tops"] = int8
        e["int8_tops"] = dp4a
        a.append("int8_tops: dp4a rate derived as SMs x %d INT32 lanes x 8 ops x boost clock." % int32_lanes_per_sm(cc))
        if not int8:
            e["tensor_int8_tops"] = 2 * e["tensor_fp16_tflops"]
            a.append("tensor_int8_tops: not in the reference; 2 x tensor FP16 (Turing and later rule).")
    else:
        e["int8_tops"] = int8 if int8 else dp4a
        if not int8 and dp4a:
            a.append("int8_tops: dp4a rate derived as SMs x %d lanes x 8 ops x boost clock." % int32_lanes_per_sm(cc))
        if cc == "7.0":
            a.append("tensor_int8_tops: 0, GV100 tensor cores have no INT8 mode; INT8 runs as dp4a on CUDA cores.")
    # Non-tensor BF16 exists from sm_80 on.
    if major >= 8:
        if cc == "8.0":
            e["bf16_tflops"] = e["fp16_tflops"] / 2
            a.append("bf16_tflops: GA100 non-tensor BF16 = half the non-tensor FP16 rate (A100 whitepaper: 39 vs 78 TFLOPS).")
        elif cc == "8.7":
            e["bf16_tflops"] = e["fp32_tflops"]
            a.append("bf16_tflops: GA10B non-tensor BF16 assumed at the FP32 rate (not published).")
        else:
            e["bf16_tflops"] = e["fp16_tflops"]
            a.append("bf16_tflops: non-tensor BF16 equals non-tensor FP16 on GA102/AD10x/GH100 (whitepapers).")
    if e["tensor_cores"] > 0 and major >= 8:
        if not e["tensor_bf16_tflops"]:
            e["tensor_bf16_tflops"] = e["tensor_fp16_tflops"]
            a.append("tensor_bf16_tflops: equal to tensor FP16 (Ampere and later rule).")
        if not e["tensor_tf32_tflops"]:
            e["tensor_tf32_tflops"] = e["tensor_fp16_tflops"] / 2
            a.append("tensor_tf32_tflops: half of tensor FP16 (Ampere and later rule).")
    if not e["fp64_tflops"]:
        ratio = {"5.3": 1 / 32, "6.2": 1 / 32, "7.2": 1 / 32, "8.7": 1 / 64}.get(cc, 1 / 32)
        e["fp64_tflops"] = e["fp32_tflops"] * ratio
        a.append("fp64_tflops: not in the reference; FP32 x %s (architecture ratio)." % (
            "1/32" if ratio == 1 / 32 else "1/64"))
    if e["fp16_tflops"] < e["fp32_tflops"]:
        a.append("fp16_tflops: packed FP16 is crippled on this chip (%.4g TFLOPS); runtimes compute FP16 "
                 "layers in FP32, so perfpred uses max(fp16, fp32) for FP16 math." % e["fp16_tflops"])


def fill_host_and_idle(e, r):
    a = e["assumptions"]
    if e["unified_memory"]:
        e["idle_power_w"] = round(IDLE_FRACTION_JETSON * e["tdp_w"], 2)
        a.append("idle_power_w: estimate, 10%% of the maximum mode power (%g W); the module's GPU idle "
                 "draw is not published." % e["tdp_w"])
        a.append("host link: unified memory shared with the CPU, no PCIe copies (host_link_gbps 0).")
        return
    gen, lanes = host_link(r.get("host_interface"), e["segment"])
    if not gen or not lanes:
        raise SystemExit("gen_catalog: %s: cannot parse host_interface %r" % (e["id"], r.get("host_interface")))
    e["pcie_gen"], e["pcie_lanes"] = gen, lanes
    e["host_link_gbps"] = round(PCIE_EFFICIENCY * PCIE_X16_GBPS[gen] * lanes / 16, 2)
    a.append("host_link_gbps: 0.8 x the PCIe %d.0 x%d theoretical %.2f GB/s per direction (typical "
             "pinned-memory cudaMemcpy efficiency)." % (gen, lanes, PCIE_X16_GBPS[gen] * lanes / 16))
    e["idle_power_w"] = round(IDLE_FRACTION_BOARD * e["tdp_w"], 1)
    a.append("idle_power_w: estimate, 9% of TDP (board idle with a CUDA context is not published by "
             "NVIDIA; nvidia-smi readings of idle boards are typically 8-10% of TDP).")


def mig_profiles(records, table, parent):
    """Profiles of one MIG table, scaled against the parent device."""
    rows = [r for r in records if r["record_type"] == "mig_profile" and r["gpu"] == table]
    fallback = {}
    if table in MIG_FALLBACK:
        fallback = {r["profile"]: r for r in records
                    if r["record_type"] == "mig_profile" and r["gpu"] == MIG_FALLBACK[table]}
    usable_by_slices = {}
    for r in rows:
        if r["memory_gib_usable"]:
            usable_by_slices.setdefault(r["memory_slices"], r["memory_gib_usable"])
    out = []
    for r in rows:
        a = []
        mem_frac = r["memory_slices"] / r["memory_slices_total"]
        usable = r["memory_gib_usable"]
        if not usable:
            fb = fallback.get(r["profile"])
            if fb and fb["memory_gib_usable"]:
                usable = fb["memory_gib_usable"]
                a.append("memory_gib_usable: not in the reference for this board; taken from %s %s "
                         "(same memory slicing). Provisional." % (MIG_FALLBACK[table], r["profile"]))
            elif r["memory_slices"] in usable_by_slices:
                usable = usable_by_slices[r["memory_slices"]]
                a.append("memory_gib_usable: not in the reference; equal to the profile with the same "
                         "number of memory slices. Provisional.")
            else:
                full = max(x["memory_gib_usable"] or 0 for x in rows)
                usable = full * mem_frac
                a.append("memory_gib_usable: not in the reference; %g GiB (full-GPU usable) x %d/%d memory "
                         "slices. Provisional." % (full, r["memory_slices"], r["memory_slices_total"]))
        max_instances = r["max_instances"]
        if not max_instances:
            fb = fallback.get(r["profile"])
            max_instances = fb["max_instances"] if fb else 1
            a.append("max_instances: not in the reference; taken from %s. Provisional." % MIG_FALLBACK.get(table, "1"))
        a.append("l2_cache_mb and mem_bandwidth_gbps: parent x memory slices / total slices (%d/%d)."
                 % (r["memory_slices"], r["memory_slices_total"]))
        p = {
            "name": r["profile"],
            "gi_profile_id": r["gi_profile_id"] if r["gi_profile_id"] is not None else -1,
            "sm_count": int(r["sm_count"]),
            "compute_slices": r["compute_slices"],
            "compute_slices_total": r["compute_slices_total"],
            "memory_slices": r["memory_slices"],
            "memory_slices_total": r["memory_slices_total"],
            "memory_gib_usable": usable,
            "memory_fraction": mem_frac,
            "sm_fraction": r["sm_count"] / parent["sm_count"],
            "l2_cache_mb": parent["l2_cache_mb"] * mem_frac,
            "mem_bandwidth_gbps": parent["mem_bandwidth_gbps"] * mem_frac,
            "max_instances": int(max_instances),
            "assumptions": a,
            "sources": citations(r),
            "reference_id": r["id"],
            "reference_derived_fields": sorted(r.get("derived_fields", [])),
            "reference_unsourced_fields": sorted(r.get("unsourced_fields", [])),
            "reference_conflicts": list(r.get("conflicts", [])),
            "reference_notes": list(r.get("notes", [])),
        }
        if r["gi_profile_id"] is None:
            a.append("gi_profile_id: not in the reference (-1 = unknown).")
        out.append(p)
    return out


def power_modes(e, r):
    a = e["assumptions"]
    modes = []
    taken = set()
    for prefix, name in JETSON_MODES[e["id"]]:
        match = [m for m in r["power_modes"] if m["mode"].startswith(prefix)]
        if not match:
            raise SystemExit("gen_catalog: %s: no power mode starting with %r" % (e["id"], prefix))
        m = match[0]
        taken.add(m["mode"])
        ma = []
        power = m["power_w"]
        if power is None:
            power = e["tdp_w"]
            ma.append("power_w: the mode is not power-capped; the module's maximum power (%g W) is used." % power)
        sms = m["active_sms"]
        if sms is None:
            sms = e["sm_count"]
            ma.append("active_sms: not in the reference; all %d SMs assumed powered." % sms)
        clock = m["gpu_max_clock_mhz"]
        modes.append({
            "name": name,
            "nvpmodel": m["mode"],
            "gpu_max_clock_mhz": clock,
            "active_sms": int(sms),
            "power_w": power,
            "assumptions": ma,
            "notes": [m["note"]] if m.get("note") else [],
        })
    skipped = [m["mode"] for m in r["power_modes"] if m["mode"] not in taken]
    if skipped:
        a.append("power modes not modelled: %s (Super BSP / alternative modes above the catalogued maximum "
                 "clock or duplicates; describe them with a spec file based on this device)." % "; ".join(skipped))
    a.append("power modes scale peak rates by clock cap / boost clock and active SMs / SMs; memory "
             "bandwidth is kept (EMC caps of low modes are not modelled).")
    # Max mode first, by peak (clock x SMs), then by power.
    modes.sort(key=lambda m: (-m["gpu_max_clock_mhz"] * m["active_sms"], -m["power_w"], m["name"]))
    return modes


def provisional_devices(by_id):
    """Devices the catalog requires that the reference lacks, derived from the closest record."""
    out = []

    # Tesla P4: GP104 like the GTX 1080; NVIDIA P4 datasheet figures.
    p4 = copy.deepcopy(by_id["gtx-1080"])
    p4.update({
        "id": "p4", "name": "Tesla P4", "segment": "datacenter", "chip": "GP104",
        "base_clock_mhz": 810, "boost_clock_mhz": 1063, "fp32_tflops": 5.5,
        "fp16_tflops": 5.5 / 64, "fp64_tflops": 5.5 / 32, "int8_tops": 22.0,
        "memory_gb": 8, "memory_type": "GDDR5", "mem_bandwidth_gbps": 192, "tdp_w": 75,
        "launch_date": "2016-09", "provisional": True,
    })
    p4["assumptions"] = [
        "Not in the reference: derived from the GTX 1080 record (same GP104 chip: 20 SMs x 128 lanes, "
        "2 MB L2, CC 6.1 limits) with NVIDIA's Tesla P4 datasheet figures: 810/1063 MHz, 5.5 TFLOPS FP32, "
        "22 TOPS INT8 (dp4a), 8 GB GDDR5 at 192 GB/s, 75 W max (50 W configurable). Provisional.",
        "NeuSight's device config (../shared/datasets/neusight-gpu-kernels/data/device_configs/Tesla_P4.json) "
        "uses 1113 MHz and 5.7 TFLOPS; the datasheet boost clock is kept here.",
        "fp16_tflops and fp64_tflops: GP104 ratios 1/64 and 1/32 of FP32.",
        "fp16_tflops: packed FP16 is crippled on this chip; runtimes compute FP16 layers in FP32, so "
        "perfpred uses max(fp16, fp32) for FP16 math.",
    ]
    p4["sources"] = ["all fields: NVIDIA Tesla P4 datasheet (not in the reference; values as published by NVIDIA)",
                     "chip limits: " + REFERENCE_LABEL + " record gtx_1080"]
    p4["reference_id"] = "gtx_1080 (derived)"
    for k in ("reference_derived_fields", "reference_unsourced_fields", "reference_conflicts", "reference_notes"):
        p4[k] = []
    p4.pop("tensor_fp8_tflops", None)
    out.append(p4)

    # Titan V: GV100 like the V100, 80 SMs, 3072-bit HBM2.
    tv = copy.deepcopy(by_id["v100-sxm2-16gb"])
    clk = 1455
    tv.update({
        "id": "titan-v", "name": "NVIDIA TITAN V", "segment": "desktop",
        "base_clock_mhz": 1200, "boost_clock_mhz": clk,
        "fp32_tflops": 5120 * 2 * clk / 1e6, "fp16_tflops": 5120 * 4 * clk / 1e6,
        "fp64_tflops": 5120 * clk / 1e6, "tensor_fp16_tflops": 110.0,
        "int8_tops": 80 * 64 * 8 * clk / 1e6,
        "memory_gb": 12, "mem_bandwidth_gbps": 652.8, "l2_cache_mb": 4.5, "tdp_w": 250,
        "launch_date": "2017-12", "provisional": True,
    })
    tv["assumptions"] = [
        "Not in the reference: derived from the V100 SXM2 16GB record (same GV100: 80 SMs x 64 lanes, "
        "640 tensor cores, CC 7.0 limits) with NVIDIA's TITAN V figures: 1200/1455 MHz, 110 tensor "
        "TFLOPS, 12 GB HBM2 on 3072 bits at 652.8 GB/s, 4.5 MB L2 (3 of 4 HBM stacks), 250 W. Provisional.",
        "fp32/fp16/fp64 TFLOPS and int8_tops (dp4a) derived at 1455 MHz: 5120 lanes x 2 / x 4 / x 1, "
        "80 SMs x 64 INT32 lanes x 8.",
        "tensor_int8_tops: 0, GV100 tensor cores have no INT8 mode.",
    ]
    tv["sources"] = ["all fields: NVIDIA TITAN V product page (not in the reference; values as published by NVIDIA)",
                     "chip limits: " + REFERENCE_LABEL + " record tesla_v100_sxm2_16gb"]
    tv["reference_id"] = "tesla_v100_sxm2_16gb (derived)"
    for k in ("reference_derived_fields", "reference_unsourced_fields", "reference_conflicts", "reference_notes"):
        tv[k] = []
    tv["idle_power_w"] = round(IDLE_FRACTION_BOARD * tv["tdp_w"], 1)
    tv["assumptions"].append("idle_power_w: estimate, 9% of TDP (not published).")
    tv["assumptions"].append("host_link_gbps: 0.8 x the PCIe 3.0 x16 theoretical 15.75 GB/s per direction.")
    out.append(tv)

    # V100 PCIe 32GB: same GV100 and HBM2 as the SXM2 32GB, lower clock and 250 W.
    vp = copy.deepcopy(by_id["v100-sxm2-32gb"])
    clk = 1380
    vp.update({
        "id": "v100-pcie-32gb", "name": "Tesla V100 PCIe 32GB", "boost_clock_mhz": clk,
        "base_clock_mhz": 1230, "fp32_tflops": 14.0, "fp16_tflops": 28.0, "fp64_tflops": 7.0,
        "tensor_fp16_tflops": 112.0, "int8_tops": 80 * 64 * 8 * clk / 1e6, "tdp_w": 250,
        "provisional": True,
    })
    vp["assumptions"] = [
        "Not in the reference: derived from the V100 SXM2 32GB record (same GV100 and 32 GB HBM2 at "
        "900 GB/s) with NVIDIA's V100 PCIe datasheet figures: 1380 MHz boost, 14 TFLOPS FP32, 7 FP64, "
        "112 tensor TFLOPS, 250 W. Base clock 1230 MHz (TechPowerUp value). Provisional.",
        "NeuSight's device config (../shared/datasets/neusight-gpu-kernels/data/device_configs/"
        "Tesla_V100-PCIE-32GB.json) agrees: 80 SMs x 64, 1370 MHz, 14.0 TFLOPS, 900 GB/s, 6 MB L2.",
        "int8_tops: dp4a rate derived as 80 SMs x 64 INT32 lanes x 8 ops x 1380 MHz; no INT8 tensor mode on GV100.",
        "idle_power_w: estimate, 9% of TDP (not published).",
        "host_link_gbps: 0.8 x the PCIe 3.0 x16 theoretical 15.75 GB/s per direction.",
    ]
    vp["sources"] = ["clocks, rates, tdp_w: NVIDIA Tesla V100 datasheet, PCIe column (not in the reference)",
                     "memory, cache, chip limits: " + REFERENCE_LABEL + " record tesla_v100_sxm2_32gb"]
    vp["reference_id"] = "tesla_v100_sxm2_32gb (derived)"
    for k in ("reference_derived_fields", "reference_unsourced_fields", "reference_conflicts", "reference_notes"):
        vp[k] = []
    vp["idle_power_w"] = round(IDLE_FRACTION_BOARD * vp["tdp_w"], 1)
    out.append(vp)

    # A40: GA102 datacenter board like the A10 (full-rate FP32-accumulate tensor math), 84 SMs.
    a40 = copy.deepcopy(by_id["a10"])
    clk = 1740
    a40.update({
        "id": "a40", "name": "NVIDIA A40", "chip": "GA102", "sm_count": 84, "tensor_cores": 336,
        "base_clock_mhz": 1305, "boost_clock_mhz": clk,
        "fp32_tflops": 37.4, "fp16_tflops": 37.4, "bf16_tflops": 37.4, "fp64_tflops": 37.4 / 64,
        "tensor_fp16_tflops": 149.7, "tensor_bf16_tflops": 149.7, "tensor_tf32_tflops": 74.8,
        "tensor_int8_tops": 299.3, "int8_tops": 84 * 64 * 8 * clk / 1e6,
        "memory_gb": 48, "memory_type": "GDDR6 (ECC)", "mem_bandwidth_gbps": 696, "tdp_w": 300,
        "launch_date": "2020-10", "provisional": True,
    })
    a40["assumptions"] = [
        "Not in the reference: derived from the A10 record (same GA102 datacenter tensor rates per SM, "
        "6 MB L2, CC 8.6 limits) with NVIDIA's A40 datasheet figures: 84 SMs (10752 lanes), 336 tensor "
        "cores, 1305/1740 MHz, 37.4 TFLOPS FP32, tensor TF32 74.8 / FP16 and BF16 149.7 / INT8 299.3 "
        "dense (half the datasheet's sparse figures), 48 GB GDDR6 at 696 GB/s, 300 W, PCIe 4.0 x16. "
        "Provisional.",
        "fp16/bf16 non-tensor equal FP32 and fp64 = FP32/64 (GA102 ratios); int8_tops (dp4a) derived as "
        "84 SMs x 64 INT32 lanes x 8 x 1740 MHz.",
        "idle_power_w: estimate, 9% of TDP (not published).",
        "host_link_gbps: 0.8 x the PCIe 4.0 x16 theoretical 31.51 GB/s per direction.",
    ]
    a40["sources"] = ["clocks, rates, memory, tdp_w: NVIDIA A40 datasheet (not in the reference; values as published by NVIDIA)",
                      "chip limits: " + REFERENCE_LABEL + " record a10"]
    a40["reference_id"] = "a10 (derived)"
    for k in ("reference_derived_fields", "reference_unsourced_fields", "reference_conflicts", "reference_notes"):
        a40[k] = []
    a40["idle_power_w"] = round(IDLE_FRACTION_BOARD * a40["tdp_w"], 1)
    out.append(a40)
    p4["idle_power_w"] = round(IDLE_FRACTION_BOARD * p4["tdp_w"], 1)
    p4["assumptions"].append("idle_power_w: estimate, 9% of TDP (not published).")
    p4["assumptions"].append("host_link_gbps: 0.8 x the PCIe 3.0 x16 theoretical 15.75 GB/s per direction.")
    return out


def build(records):
    devices = {}
    for r in records:
        if r["record_type"] not in ("gpu", "jetson"):
            continue
        cid = ID_MAP.get(r["id"])
        if cid is None:
            raise SystemExit("gen_catalog: reference record %r has no catalog id (add it to ID_MAP)" % r["id"])
        e = base_entry(r, cid)
        fill_rates(e, r)
        fill_host_and_idle(e, r)
        if r["record_type"] == "jetson":
            e["power_modes"] = power_modes(e, r)
        devices[cid] = e
    for table, parents in MIG_PARENTS.items():
        for pid in parents:
            devices[pid]["mig_profiles"] = mig_profiles(records, table, devices[pid])
            devices[pid]["assumptions"].append(
                "MIG slices (%s:<profile>): SMs and usable memory from the profile; bandwidth and L2 by "
                "memory slices; peak rates by the SM share; TDP and idle power stay the whole GPU's." % pid)
    for d in provisional_devices(devices):
        devices[d["id"]] = d
    for d in devices.values():
        # Datacenter boards ship with DRAM ECC on (nvidia-smi -e); GeForce, Titan and Jetson boards without.
        d["dram_ecc"] = d["segment"] == "datacenter"
        d["assumptions"] = sorted(set(d["assumptions"]), key=d["assumptions"].index)
    return {k: normalise(v) for k, v in devices.items()}


def render(entry):
    return json.dumps(entry, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reference", default=DEFAULT_REFERENCE)
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--check", action="store_true", help="compare with the files in --out; exit 1 on any difference")
    args = ap.parse_args()
    if not os.path.exists(args.reference):
        print("gen_catalog: reference %s not found (it lives in ../shared/reference beside the checkout)"
              % args.reference, file=sys.stderr)
        return 77 if args.check else 2
    with open(args.reference, encoding="utf-8") as f:
        records = json.load(f)
    devices = build(records)
    missing = [i for i in REQUIRED_IDS if i not in devices]
    if missing:
        print("gen_catalog: required ids missing: %s" % ", ".join(missing), file=sys.stderr)
        return 1
    wanted = {cid + ".json": render(e) for cid, e in sorted(devices.items())}
    if args.check:
        drift = []
        present = set(f for f in os.listdir(args.out) if f.endswith(".json")) if os.path.isdir(args.out) else set()
        for name, text in wanted.items():
            path = os.path.join(args.out, name)
            if name not in present:
                drift.append("%s: missing" % name)
                continue
            with open(path, encoding="utf-8") as f:
                if f.read() != text:
                    drift.append("%s: differs" % name)
        for name in sorted(present - set(wanted)):
            drift.append("%s: not generated from the reference" % name)
        if drift:
            print("gen_catalog --check: data/gpus is out of date (run tools/gen_catalog.py):\n  " +
                  "\n  ".join(drift), file=sys.stderr)
            return 1
        print("gen_catalog --check: %d files up to date" % len(wanted))
        return 0
    os.makedirs(args.out, exist_ok=True)
    for name in sorted(set(os.listdir(args.out))):
        if name.endswith(".json") and name not in wanted:
            os.remove(os.path.join(args.out, name))
    for name, text in wanted.items():
        with open(os.path.join(args.out, name), "w", encoding="utf-8") as f:
            f.write(text)
    print("gen_catalog: wrote %d files to %s" % (len(wanted), os.path.relpath(args.out, REPO)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
