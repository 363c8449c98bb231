#!/usr/bin/python3
"""What perfpred costs from Python beside the same call in C++.

    /usr/bin/python3 bench/bench_python.py [--build build] [--repeat 30] [--no-torch]

1. ResNet-50 from a path: perfpred.predict(path, gpu=...) (layers on, no meta: the document of
   `predict --json --layers --no-meta`, parsed) against bench/bench_document, the C++ call that builds the
   same JSON text (Google Benchmark, run right after on the same machine). Times are CPU time of the
   process (wall time on a CPU shared with other work mostly measures the other work); the overhead is the
   Python median minus the C++ median. Wall times of the Python calls are shown beside them.
2. ResNet-50 from a torch.nn.Module: the export (deepcopy, eval, torch.onnx.export to BytesIO without
   weights) against the prediction from those bytes.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(fn, repeat, warmup=2):
    """(CPU ms, wall ms) of each call."""
    for _ in range(warmup):
        fn()
    cpu, wall = [], []
    for _ in range(repeat):
        c, t = time.process_time(), time.perf_counter()
        fn()
        cpu.append((time.process_time() - c) * 1e3)
        wall.append((time.perf_counter() - t) * 1e3)
    return cpu, wall


def summary(name, times):
    cpu, wall = times
    print(f"  {name:52} CPU median {statistics.median(cpu):8.2f} ms, min {min(cpu):8.2f}   "
          f"wall median {statistics.median(wall):8.2f} ms   (n={len(cpu)})")
    return statistics.median(cpu), min(cpu)


def cpp_document_ms(build, repeat):
    exe = os.path.join(build, "bench", "bench_document")
    if not os.access(exe, os.X_OK):
        sys.exit(f"bench_python: {exe} missing: cmake --build {build} --target bench_document")
    r = subprocess.run([exe, "--benchmark_filter=PredictDocument/resnet50_layers", "--benchmark_format=json",
                        f"--benchmark_repetitions={repeat}", "--benchmark_min_time=0.05"],
                       check=True, capture_output=True, text=True)
    runs = [b for b in json.loads(r.stdout)["benchmarks"] if b.get("run_type") == "iteration"]
    to_ms = {"ms": 1.0, "us": 1e-3, "ns": 1e-6, "s": 1e3}
    return ([b["cpu_time"] * to_ms[b["time_unit"]] for b in runs], [b["real_time"] * to_ms[b["time_unit"]] for b in runs])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--gpu", default="a100-sxm4-40gb")
    ap.add_argument("--no-torch", action="store_true", help="skip the module export part")
    args = ap.parse_args()
    sys.path.insert(0, os.path.join(args.build, "python"))
    import perfpred
    from perfpred import _perfpred

    perfpred.set_log_level("error")

    model = os.path.join(ROOT, "models", "zoo", "resnet50.onnx")
    print(f"load average {' '.join(open('/proc/loadavg').read().split()[:3])}, {os.cpu_count()} CPUs")
    print(f"1. ResNet-50 from a path on {args.gpu}, layers, no meta")
    py = summary("perfpred.predict(path)  [Python API, parsed]",
                 timed(lambda: perfpred.predict(model, gpu=args.gpu), args.repeat))
    o = _perfpred.PredictOptions()
    o.model, o.gpu, o.layers, o.no_meta = model, args.gpu, True, True
    summary("_perfpred.predict(options)  [extension, JSON text]", timed(lambda: _perfpred.predict(o), args.repeat))
    cpp = summary("bench_document  [C++ predict_document + dump]", cpp_document_ms(args.build, args.repeat))
    over_med, over_min = py[0] - cpp[0], py[1] - cpp[1]
    verdict = "within" if over_med <= 2.0 else "OVER"
    print(f"  Python overhead (CPU): {over_med:+.2f} ms on medians, {over_min:+.2f} ms on minimums "
          f"({verdict} the 2 ms budget)")

    if args.no_torch:
        return
    try:
        import torch
        import torchvision
    except ImportError as e:
        print(f"2. skipped: {e}")
        return
    print("2. ResNet-50 from a torch.nn.Module (torchvision.models.resnet50(), example 1x3x224x224)")
    net = torchvision.models.resnet50()
    x = torch.randn(1, 3, 224, 224)
    n = max(3, args.repeat // 10)
    export = summary("perfpred.to_onnx_bytes(module)  [export]",
                     timed(lambda: perfpred.to_onnx_bytes(net, x), n, warmup=1))
    data = perfpred.to_onnx_bytes(net, x)
    print(f"  ONNX without weights: {len(data) / 1024:.0f} KiB")
    from_bytes = summary("perfpred.predict(bytes)  [predict]",
                         timed(lambda: perfpred.predict(data, gpu=args.gpu), args.repeat))
    whole = summary("perfpred.predict(module, example_inputs=x)  [both]",
                    timed(lambda: perfpred.predict(net, example_inputs=x, gpu=args.gpu), n, warmup=1))
    print(f"  the export is {100 * export[0] / whole[0]:.0f}% of a predict from a module "
          f"({export[0]:.0f} of {whole[0]:.0f} ms; the prediction from bytes alone: {from_bytes[0]:.1f} ms)")


if __name__ == "__main__":
    main()
