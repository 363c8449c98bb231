#!/usr/bin/env python3
"""Profile torchvision networks under PyTorch eager on this machine's GPU kernel by kernel and compare each kind
of kernel's time with what perfpred predicts for it.

Whole-network timings (tools/measure_torch_networks.py) say how far a prediction is off, not where. This tool
records every GPU kernel of a few training steps or forward passes with torch.profiler (CUPTI, through Kineto):
its name, duration, grid and block, and the ATen op that launched it, and sorts the kernels into kinds
(convolution, cuDNN's NCHW<->NHWC reorders, BatchNorm, GEMM, pooling, elementwise, reductions, copies and casts,
the optimizer, ...). `--compare` then puts perfpred's analytical prediction of the same configuration beside the
measured time per kind.

Runs where PyTorch with CUDA is installed (a GPU machine), never on CI; `--trace` parses a trace exported
elsewhere (torch.profiler's export_chrome_trace) and needs neither torch nor a GPU.

  /usr/bin/python3 tools/profile_torch_kernels.py --out DIR [--models resnet18,resnet50,mobilenet_v2] [--batch 128]
      [--precision fp16,fp32] [--mode training,inference] [--layouts nchw,nhwc] [--steps 3]
  /usr/bin/python3 tools/profile_torch_kernels.py --trace TRACE.json --config MODEL,MODE,PRECISION,BATCH,LAYOUT
      [--steps N] --out DIR
  /usr/bin/python3 tools/profile_torch_kernels.py --compare DIR --perfpred build/src/cli/perfpred [--gpu ID]

Writes DIR/kernels.csv (one row per kernel of the profiled steps), DIR/summary.json (per configuration: step
time measured without the profiler, GPU time per step by kind and by ATen op, kernel count per step) and, with
--compare, DIR/compare.md. Protocol as tools/measure_torch_networks.py (cudnn.benchmark on, default math, SGD
with momentum, AMP with a GradScaler for fp16 training, model.half() for fp16 inference, input on the GPU);
`nhwc` puts the model and input in torch.channels_last. The GPU's clocks, power limit and MIG mode are never
changed.
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# Kernel kinds, first match wins: reorders and convolutions before GEMMs (cuDNN's implicit-GEMM convolution
# kernels name "gemm" too), BatchNorm before the generic reductions and elementwise kernels.
KINDS = [
    ("reorder", r"nchwToNhwc|nhwcToNchw|nchw_to_nhwc|nhwc_to_nchw|nchwtonhwc|nhwctonchw"),
    ("batchnorm", r"bn_fw|bn_bw|batch_norm|batchnorm"),
    # ATen's own depthwise kernels (conv_depthwise2d_*: forward, input and filter gradients) and cuDNN's depthwise
    # ones, apart from the dense convolutions: perfpred prices ATen's filter gradient as one block per filter tap
    # (docs/model.md, depthwise convolutions), unmeasured until this kind is.
    ("depthwise", r"depthwise"),
    ("conv", r"conv(?!ert)|fprop|dgrad|wgrad|winograd|fft2d|flip_filter|im2col|implicit_convolve|scalePackedTensor|"
             r"computeOffsets"),
    ("gemm", r"gemm|cutlass|nvjet|cublas|splitKreduce|xmma"),
    ("attention", r"flash|fmha|attention|efficient_attention"),
    ("pool", r"pool"),
    ("softmax_loss", r"softmax|nll_loss|cross_entropy"),
    ("norm", r"layer_norm|group_norm|LayerNorm|GroupNorm"),
    ("optimizer", r"multi_tensor_apply|fused_sgd|FusedSgd|_fused_adam|adam"),
    ("copy_cast", r"copy|Copy|cast|CatArray|cat_|concat"),
    ("reduce", r"reduce_kernel|reduce"),
    ("elementwise", r"elementwise|vectorized|unrolled|pointwise"),
]
KIND_NAMES = [k for k, _ in KINDS] + ["memset", "memcpy", "other"]
KERNEL_CATS = {"kernel", "Kernel"}
CSV_HEADER = ["config", "kind", "op", "name", "dur_us", "grid", "block", "stream"]


def classify(name):
    """The kind of a GPU kernel, from its (mangled or demangled) name."""
    for kind, pattern in KINDS:
        if re.search(pattern, name, re.IGNORECASE):
            return kind
    return "other"


def parse_trace(trace):
    """Kernels, memsets and memcpys of a torch.profiler Chrome trace (a dict): name, kind, duration (us), grid,
    block, stream and the innermost CPU op (its `External id`) that launched it."""
    events = trace.get("traceEvents", trace if isinstance(trace, list) else [])
    ops, launches = {}, {}
    for e in events:
        args = e.get("args") or {}
        if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "operator"):
            if args.get("External id") is not None:
                ops[args["External id"]] = e.get("name", "")
        elif e.get("ph") == "X" and e.get("cat") == "cuda_runtime" and args.get("correlation") is not None:
            launches[args["correlation"]] = args.get("External id")  # a kernel without its own External id
    out = []
    for e in events:
        cat = e.get("cat")
        if e.get("ph") != "X" or cat not in KERNEL_CATS | {"gpu_memset", "gpu_memcpy", "Memset", "Memcpy"}:
            continue
        args = e.get("args") or {}
        name = e.get("name", "")
        kind = classify(name) if cat in KERNEL_CATS else ("memset" if "emset" in cat else "memcpy")
        grid, block = args.get("grid"), args.get("block")
        ext = args.get("External id", launches.get(args.get("correlation")))
        out.append({"name": name, "kind": kind, "op": ops.get(ext, ""),
                    "dur_us": float(e.get("dur", 0.0)),
                    "grid": "x".join(str(v) for v in grid) if isinstance(grid, list) else "",
                    "block": "x".join(str(v) for v in block) if isinstance(block, list) else "",
                    "stream": args.get("stream", "")})
    return out


def summarize(kernels, steps):
    """GPU time per step (ms) by kind and by op, and the kernel count per step."""
    by_kind = {k: 0.0 for k in KIND_NAMES}
    by_op = {}
    for k in kernels:
        by_kind[k["kind"]] += k["dur_us"] / 1e3 / steps
        op = k["op"] or "(no op)"
        by_op[op] = by_op.get(op, 0.0) + k["dur_us"] / 1e3 / steps
    return {"gpu_ms_per_step": sum(by_kind.values()),
            "kernels_per_step": len(kernels) / steps,
            "by_kind_ms": {k: round(v, 6) for k, v in by_kind.items() if v > 0},
            "by_op_ms": {k: round(v, 6) for k, v in sorted(by_op.items(), key=lambda kv: -kv[1])}}


def config_name(model, mode, precision, batch, layout):
    return "%s-%s-%s-b%d-%s" % (model, mode, precision, batch, layout)


def parse_config(text):
    parts = text.split(",")
    if len(parts) != 5:
        raise SystemExit("profile_torch_kernels: --config takes MODEL,MODE,PRECISION,BATCH,LAYOUT, got %r" % text)
    model, mode, precision, batch, layout = parts
    if mode not in ("training", "inference") or precision not in ("fp32", "fp16") or layout not in ("nchw", "nhwc"):
        raise SystemExit("profile_torch_kernels: --config %r: mode training|inference, precision fp32|fp16, "
                         "layout nchw|nhwc" % text)
    try:
        b = int(batch)
    except ValueError:
        raise SystemExit("profile_torch_kernels: --config %r: BATCH must be an integer" % text)
    if b < 1:
        raise SystemExit("profile_torch_kernels: --config %r: BATCH must be at least 1" % text)
    return {"model": model, "mode": mode, "precision": precision, "batch": b, "layout": layout}


def write_results(out, results):
    """Merge `results` (config name -> {"config": ..., "summary": ..., "kernels": [...]}) into DIR's files."""
    os.makedirs(out, exist_ok=True)
    summary_path = os.path.join(out, "summary.json")
    summary = {}
    if os.path.exists(summary_path):
        with open(summary_path) as f:
            summary = json.load(f)
    rows = []
    kernels_path = os.path.join(out, "kernels.csv")
    if os.path.exists(kernels_path):
        with open(kernels_path, newline="") as f:
            rows = [r for r in csv.DictReader(f) if r["config"] not in results]
    for name, r in results.items():
        summary[name] = dict(r["config"], **r["summary"])
        rows += [dict(k, config=name) for k in r["kernels"]]
    with open(summary_path, "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
    with open(kernels_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_HEADER, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


# ---- perfpred's side -----------------------------------------------------------------------------------------

# perfpred layer op (before any '+' fusion or '.' phase suffix) -> kind. Convolution layers include cuDNN's
# reorders (their kernel count says how many), so the comparison puts "conv" and "reorder" together.
LAYER_KINDS = {
    "Conv": "conv", "ConvTranspose": "conv", "BatchNormalization": "batchnorm", "Gemm": "gemm", "MatMul": "gemm",
    "MaxPool": "pool", "AveragePool": "pool", "GlobalAveragePool": "pool", "CrossEntropyLoss": "softmax_loss",
    "Softmax": "softmax_loss", "LayerNormalization": "norm", "OptimizerStep": "optimizer", "Concat": "copy_cast",
}


def depthwise_convs(perfpred, model):
    """Names of the model's depthwise convolutions (one input channel per group, more than one group), from
    `perfpred inspect --json`: their layers are the "depthwise" kind, not "conv"."""
    r = subprocess.run([perfpred, "inspect", model, "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        return frozenset()
    names = set()
    for n in json.loads(r.stdout).get("nodes", []):
        ins = n.get("inputs") or []
        if n.get("op") == "Conv" and len(ins) >= 2 and len(ins[0].get("shape") or []) == 4:
            w, x = ins[1].get("shape") or [], ins[0]["shape"]
            if len(w) == 4 and w[1] == 1 and x[1] > 1:
                names.add(n.get("name"))
    return frozenset(names)


def predicted_by_kind(prediction, depthwise=frozenset()):
    """perfpred's kernel time (ms) by kind from `predict --layers --json`; layers named in `depthwise` are that kind."""
    by_kind = {}
    for layer in prediction.get("layers", []):
        op = re.split(r"[+.]", layer.get("op", ""))[0]
        kind = "depthwise" if layer.get("name") in depthwise else LAYER_KINDS.get(op, "elementwise")
        by_kind[kind] = by_kind.get(kind, 0.0) + float(layer.get("time_ms", 0.0))
    return by_kind


def compare(out, perfpred, gpu):
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    lines = ["# Kernel time per step by kind: measured (torch.profiler) and perfpred's analytical prediction", "",
             "`/usr/bin/python3 tools/profile_torch_kernels.py --compare %s --perfpred PERFPRED --gpu %s`" %
             (os.path.basename(os.path.normpath(out)), gpu), ""]
    depthwise = {}
    for name, s in sorted(summary.items()):
        model = os.path.join(REPO, "models", "zoo", s["model"] + ".onnx")
        if model not in depthwise:
            depthwise[model] = depthwise_convs(perfpred, model)
        cmd = [perfpred, "predict", model, "--gpu", gpu, "--batch", str(s["batch"]), "--precision", s["precision"],
               "--mode", s["mode"], "--analytical", "--no-copies", "--layers", "--json"]
        if s["mode"] == "training":
            cmd += ["--optimizer", "momentum"]
        if s["layout"] == "nhwc":
            cmd += ["--channels-last"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            lines += ["## %s" % name, "", "perfpred refused: %s" % r.stderr.strip(), ""]
            continue
        p = json.loads(r.stdout)
        pred = predicted_by_kind(p, depthwise[model])
        meas = dict(s["by_kind_ms"])
        meas["conv"] = meas.get("conv", 0.0) + meas.pop("reorder", 0.0)
        step = s.get("step_ms")
        lines += ["## %s" % name, "",
                  "step: measured %s ms, predicted %.3f ms; GPU time measured %.3f ms in %.0f kernels, predicted "
                  "%.3f ms (conv includes cuDNN's reorders: %.3f ms measured)" %
                  ("%.3f" % step if step else "n/a", p["latency_ms"], s["gpu_ms_per_step"], s["kernels_per_step"],
                   p["breakdown"]["kernels_ms"], s["by_kind_ms"].get("reorder", 0.0)), "",
                  "| kind | measured ms | predicted ms | predicted / measured |", "|---|---|---|---|"]
        for kind in sorted(set(meas) | set(pred), key=lambda k: -meas.get(k, 0.0)):
            m, q = meas.get(kind, 0.0), pred.get(kind, 0.0)
            lines.append("| %s | %.3f | %.3f | %s |" % (kind, m, q, "%.2f" % (q / m) if m > 0 else "-"))
        lines.append("")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "compare.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)


# ---- the GPU side --------------------------------------------------------------------------------------------

def run_configuration(torch, torchvision, cfg, steps):
    from measure_torch_networks import make_step  # the same model and iteration as the network timings
    torch.cuda.empty_cache()
    fmt = torch.channels_last if cfg["layout"] == "nhwc" else None
    model, step = make_step(torch, torchvision, cfg["model"], cfg["mode"], cfg["precision"], cfg["batch"],
                            memory_format=fmt)
    for _ in range(3):  # cuDNN autotuning, allocator warm-up
        step()
    torch.cuda.synchronize()
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
    times = []
    for _ in range(3):
        ev[0].record()
        for _ in range(steps):
            step()
        ev[1].record()
        ev[1].synchronize()
        times.append(ev[0].elapsed_time(ev[1]) / steps)
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=acts) as prof:
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as f:
            kernels = parse_trace(json.load(f))
    del model
    summary = summarize(kernels, steps)
    summary["step_ms"] = statistics.median(times)
    summary["steps_profiled"] = steps
    return summary, kernels


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="output folder (kernels.csv, summary.json; compare.md with --compare)")
    ap.add_argument("--models", default="resnet18,resnet50,mobilenet_v2")
    ap.add_argument("--batch", default="128")
    ap.add_argument("--precision", default="fp16,fp32")
    ap.add_argument("--mode", default="training,inference")
    ap.add_argument("--layouts", default="nchw,nhwc")
    ap.add_argument("--steps", type=int, default=3, help="steps profiled per configuration")
    ap.add_argument("--max-seconds", type=float, default=300.0, help="stop starting configurations after this")
    ap.add_argument("--trace", help="parse this exported trace instead of profiling (no torch needed)")
    ap.add_argument("--config", help="with --trace: MODEL,MODE,PRECISION,BATCH,LAYOUT of the traced steps")
    ap.add_argument("--compare", metavar="DIR", help="compare DIR/summary.json with perfpred's predictions")
    ap.add_argument("--perfpred", default=os.path.join(REPO, "build", "src", "cli", "perfpred"))
    ap.add_argument("--gpu", help="perfpred GPU id for --compare (default: the one summary.json names)")
    a = ap.parse_args()
    if a.steps < 1:
        raise SystemExit("profile_torch_kernels: --steps must be at least 1")
    if a.compare:
        if not os.path.exists(os.path.join(a.compare, "summary.json")):
            raise SystemExit("profile_torch_kernels: %s has no summary.json (profile first)" % a.compare)
        gpu = a.gpu
        if not gpu:
            with open(os.path.join(a.compare, "summary.json")) as f:
                gpus = {s.get("gpu_id") for s in json.load(f).values()} - {None, ""}
            if len(gpus) != 1:
                raise SystemExit("profile_torch_kernels: name the perfpred GPU with --gpu (summary.json has %s)" %
                                 (", ".join(sorted(gpus)) or "none"))
            gpu = gpus.pop()
        compare(a.compare, a.perfpred, gpu)
        return 0
    if not a.out:
        raise SystemExit("profile_torch_kernels: --out DIR is required")
    if a.trace:
        if not a.config:
            raise SystemExit("profile_torch_kernels: --trace needs --config MODEL,MODE,PRECISION,BATCH,LAYOUT")
        cfg = parse_config(a.config)
        try:
            with open(a.trace) as f:
                trace = json.load(f)
        except (OSError, ValueError) as e:
            raise SystemExit("profile_torch_kernels: %s: %s" % (a.trace, e))
        kernels = parse_trace(trace)
        if not kernels:
            raise SystemExit("profile_torch_kernels: %s: no GPU kernels in the trace (profiled without "
                             "ProfilerActivity.CUDA?)" % a.trace)
        name = config_name(cfg["model"], cfg["mode"], cfg["precision"], cfg["batch"], cfg["layout"])
        write_results(a.out, {name: {"config": cfg, "summary": summarize(kernels, a.steps), "kernels": kernels}})
        print("profile_torch_kernels: %s: %d kernels -> %s" % (name, len(kernels), a.out))
        return 0
    try:
        import torch
        import torchvision
    except ImportError as e:
        raise SystemExit("profile_torch_kernels: needs PyTorch and torchvision with CUDA (%s)" % e)
    if not torch.cuda.is_available():
        raise SystemExit("profile_torch_kernels: no CUDA device visible to PyTorch")
    sys.path.insert(0, HERE)
    from measure_torch_networks import GPU_IDS
    device_name = torch.cuda.get_device_name(0)
    gpu_id = next((gid for key, gid in GPU_IDS if key in device_name), None)
    t0 = time.perf_counter()
    for model in a.models.split(","):
        for mode in a.mode.split(","):
            for precision in a.precision.split(","):
                for batch in a.batch.split(","):
                    for layout in a.layouts.split(","):
                        cfg = parse_config(",".join([model, mode, precision, batch, layout]))
                        if time.perf_counter() - t0 > a.max_seconds:
                            print("profile_torch_kernels: --max-seconds reached, stopping", file=sys.stderr)
                            return 0
                        name = config_name(model, mode, precision, cfg["batch"], layout)
                        try:
                            summary, kernels = run_configuration(torch, torchvision, cfg, a.steps)
                        except RuntimeError as e:  # out of memory, unsupported
                            print("profile_torch_kernels: %s: %s" % (name, str(e).splitlines()[0]), file=sys.stderr)
                            torch.cuda.empty_cache()
                            continue
                        cfg.update(gpu_name=device_name, gpu_id=gpu_id, torch=torch.__version__,
                                   cudnn=torch.backends.cudnn.version())
                        write_results(a.out, {name: {"config": cfg, "summary": summary, "kernels": kernels}})
                        print("profile_torch_kernels: %s: step %.3f ms, GPU %.3f ms in %.0f kernels" %
                              (name, summary["step_ms"], summary["gpu_ms_per_step"], summary["kernels_per_step"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
