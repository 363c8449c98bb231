#!/usr/bin/env python3
"""Time whole torchvision networks under PyTorch eager on this machine's GPU and write a perfpred network
dataset (docs/formats.md): inference and training-step latency, energy and average power from NVML's
energy counter, and peak device memory as nvidia-smi counts it.

Runs where PyTorch with CUDA is installed (a GPU machine), never on CI. Each row's model names the
matching parameter-free file in models/zoo (relative to the output folder), so `perfpred predict` and
tools/eval_analytical.py can predict the same rows.

Usage: python3 tools/measure_torch_networks.py --out DIR [--max-seconds 200] [--models resnet50,...]

Protocol (written into every row's notes and the sidecar):
- cudnn.benchmark = True; PyTorch's default math (cuDNN convolutions may use TF32, matmuls fp32);
- inference: model.eval(), torch.inference_mode(); fp16 = model.half() with a half input (no AMP);
- training: model.train(), CrossEntropy on random labels, backward, SGD with momentum 0.9 step,
  zero_grad(set_to_none=True); fp16 = torch.autocast(float16) with a GradScaler (AMP);
- input already on the GPU (no host copies: includes_h2d = 0);
- graphs rows: the inference iteration captured once with torch.cuda.graph and replayed;
- warm-up iterations first (cuDNN autotuning), then 3 timed chunks of n iterations each (n sized so a chunk
  takes about --chunk-seconds); latency = median of the chunks' means (CUDA events);
- energy: NVML total-energy counter across the 3 chunks over their iterations; power = energy / time;
- peak memory: NVML memory used after the configuration (context, libraries and the caching allocator's
  pools; the allocator was emptied before it); torch's own peaks are in the notes.
The GPU's clocks, power limit and MIG mode are read, never changed.
"""
import argparse
import csv
import ctypes
import json
import os
import platform
import statistics
import sys
import time

HEADER = ["id", "status", "reason", "source", "synthetic", "gpu_id", "runtime", "runtime_version", "precision",
          "model", "model_family", "recipe", "mode", "batch", "includes_h2d", "latency_ms", "energy_mj", "power_w",
          "power_source", "power_limit_w", "peak_memory_bytes", "notes", "cuda_graphs"]

ZOO = {  # torchvision builder name -> models/zoo file, as tools/export_zoo.py builds them
    "resnet50": "resnet50", "resnet18": "resnet18", "vgg16": "vgg16", "mobilenet_v2": "mobilenet_v2",
    "densenet121": "densenet121", "efficientnet_b0": "efficientnet_b0", "googlenet": "googlenet",
    "squeezenet1_0": "squeezenet1_0", "alexnet": "alexnet", "vit_b_16": "vit_b_16",
}

GPU_IDS = [("H200 NVL", None), ("H200", "h200-sxm-141gb"), ("H100 PCIe", "h100-pcie-80gb"),
           ("H100 80GB HBM3", "h100-sxm5-80gb"), ("A100-SXM4-80GB", "a100-sxm4-80gb"),
           ("A100-SXM4-40GB", "a100-sxm4-40gb"), ("A100-PCIE-40GB", "a100-pcie-40gb"), ("L4", "l4")]


class Nvml:
    """NVML through ctypes (energy counter, power limit, memory used, clocks); None fields where absent."""

    def __init__(self, index=0):
        self.h = None
        try:
            self.lib = ctypes.CDLL("libnvidia-ml.so.1")
            if self.lib.nvmlInit_v2() != 0:
                return
            h = ctypes.c_void_p()
            if self.lib.nvmlDeviceGetHandleByIndex_v2(index, ctypes.byref(h)) == 0:
                self.h = h
        except OSError:
            pass

    def _u(self, fn, *args, kind=ctypes.c_uint):
        if self.h is None:
            return None
        v = kind()
        return v.value if getattr(self.lib, fn)(self.h, *args, ctypes.byref(v)) == 0 else None

    def energy_mj(self):
        return self._u("nvmlDeviceGetTotalEnergyConsumption", kind=ctypes.c_ulonglong)

    def power_limit_w(self):
        v = self._u("nvmlDeviceGetEnforcedPowerLimit")
        return v / 1000.0 if v else None

    def clock_mhz(self, which):  # 1 = SM, 2 = memory
        return self._u("nvmlDeviceGetClockInfo", ctypes.c_int(which))

    def memory_used(self):
        if self.h is None:
            return None

        class Mem(ctypes.Structure):
            _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong), ("used", ctypes.c_ulonglong)]

        m = Mem()
        return m.used if self.lib.nvmlDeviceGetMemoryInfo(self.h, ctypes.byref(m)) == 0 else None


def build(torchvision, name):
    kw = {"weights": None}
    if name == "googlenet":
        kw.update(aux_logits=False, init_weights=False)
    return getattr(torchvision.models, name)(**kw)


def configurations(models, batches_inf, batches_train):
    """(model, mode, precision, batch, graphs) in priority order, so a time cap cuts the least useful."""
    first, second = [], []
    for m in models:
        first += [(m, "inference", "fp32", batches_inf[1], False), (m, "training", "fp32", batches_train[0], False),
                  (m, "inference", "fp16", batches_inf[1], False), (m, "training", "fp16", batches_train[0], False),
                  (m, "inference", "fp32", batches_inf[0], False)]
        second += [(m, "inference", "fp32", batches_inf[2], False), (m, "training", "fp32", batches_train[1], False),
                   (m, "inference", "fp16", batches_inf[2], False), (m, "training", "fp16", batches_train[1], False),
                   (m, "inference", "fp16", batches_inf[0], False), (m, "inference", "fp16", batches_inf[0], True),
                   (m, "inference", "fp32", batches_inf[0], True)]
    return first + second


def make_step(torch, torchvision, name, mode, prec, batch, graphs=False, memory_format=None):
    """The model on the GPU and one iteration of it as this protocol runs it (module docstring): a forward pass
    under inference_mode (replayed as a CUDA graph with `graphs`), or a training step with SGD and momentum
    (AMP with a GradScaler for fp16). `memory_format` (torch.channels_last) converts the model and input."""
    dev = torch.device("cuda")
    model = build(torchvision, name).to(dev)
    x = torch.randn(batch, 3, 224, 224, device=dev)
    if memory_format is not None:
        model, x = model.to(memory_format=memory_format), x.to(memory_format=memory_format)
    if mode == "inference":
        model.eval()
        if prec == "fp16":
            model, x = model.half(), x.half()

        def step():
            with torch.inference_mode():
                model(x)
        if graphs:
            static_x = x.clone()
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s), torch.inference_mode():
                for _ in range(3):
                    model(static_x)
            torch.cuda.current_stream().wait_stream(s)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g), torch.inference_mode():
                model(static_x)

            def step():  # noqa: F811
                g.replay()
    else:
        model.train()
        y = torch.randint(0, 1000, (batch,), device=dev)
        opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
        loss_fn = torch.nn.CrossEntropyLoss()
        scaler = torch.amp.GradScaler("cuda") if prec == "fp16" else None

        def step():
            if scaler is None:
                loss = loss_fn(model(x), y)
                loss.backward()
                opt.step()
            else:
                with torch.autocast("cuda", dtype=torch.float16):
                    loss = loss_fn(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
            opt.zero_grad(set_to_none=True)
    return model, step


def measure(torch, torchvision, nvml, cfg, chunk_s):
    name, mode, prec, batch, graphs = cfg
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    model, step = make_step(torch, torchvision, name, mode, prec, batch, graphs)
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(2):
        step()
    torch.cuda.synchronize()
    per = max((time.perf_counter() - t0) / 2, 1e-5)
    n = int(min(500, max(3, chunk_s / per)))
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
    e0 = nvml.energy_mj()
    w0 = time.perf_counter()
    chunks = []
    for _ in range(3):
        ev[0].record()
        for _ in range(n):
            step()
        ev[1].record()
        ev[1].synchronize()
        chunks.append(ev[0].elapsed_time(ev[1]) / n)
    wall = time.perf_counter() - w0
    e1 = nvml.energy_mj()
    sm_mhz = nvml.clock_mhz(1)
    mem_used = nvml.memory_used()
    alloc, reserved = torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved()
    energy = (e1 - e0) / (3 * n) if e0 is not None and e1 is not None and e1 > e0 else None
    power = (e1 - e0) / wall / 1000.0 if energy else None
    del model
    return {"latency_ms": statistics.median(chunks), "chunks": chunks, "n": n, "energy_mj": energy, "power_w": power,
            "peak_memory_bytes": mem_used, "alloc": alloc, "reserved": reserved, "sm_mhz": sm_mhz}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-seconds", type=float, default=200.0)
    ap.add_argument("--chunk-seconds", type=float, default=0.2)
    ap.add_argument("--models", default=",".join(ZOO))
    ap.add_argument("--batches-inference", default="1,32,128")
    ap.add_argument("--batches-training", default="32,128")
    a = ap.parse_args()
    import torch
    import torchvision
    if not torch.cuda.is_available():
        sys.exit("measure_torch_networks: no CUDA device visible to PyTorch")
    torch.backends.cudnn.benchmark = True
    nvml = Nvml(torch.cuda.current_device())
    dev_name = torch.cuda.get_device_name()
    gpu_id = next((g for k, g in GPU_IDS if k in dev_name), None)
    if gpu_id is None:
        gpu_id = "spec:" + dev_name.replace(" ", "-")
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "networks.csv")
    zoo_rel = os.path.relpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models", "zoo"),
                              os.path.abspath(a.out))
    models = [m for m in a.models.split(",") if m]
    for m in models:
        if m not in ZOO:
            sys.exit(f"measure_torch_networks: --models: unknown model {m!r} (known: {', '.join(ZOO)})")
    bi = [int(b) for b in a.batches_inference.split(",")]
    bt = [int(b) for b in a.batches_training.split(",")]
    if len(bi) != 3 or len(bt) != 2:
        sys.exit("measure_torch_networks: --batches-inference takes 3 sizes, --batches-training 2")
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "")
    meta = {
        "schema_version": 1, "kind": "network", "created_by": "tools/measure_torch_networks.py", "devices": {},
        "plan": None, "notes": ["PyTorch eager torchvision networks (weights=None, 224x224, 1000 classes) timed on this GPU; "
                                "models/zoo holds the same architectures as parameter-free ONNX"],
        "sources": [{"name": "perfpred-measured", "notes": "measured by tools/measure_torch_networks.py"}],
        "licence": "project", "synthetic": False,
        "environment": {"gpu_name": dev_name, "cpu": cpu, "host": platform.machine(),
                        "torch": torch.__version__, "torchvision": torchvision.__version__,
                        "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
                        "power_limit_w": nvml.power_limit_w(), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
        "protocol": __doc__.split("Protocol (written into every row's notes and the sidecar):")[1].split("The GPU's")[0].strip(),
    }
    start = time.time()
    rows = 0
    with open(path, "w", newline="") as f:
        f.write("#perfpred network-dataset schema_version=1\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(HEADER)
        for cfg in configurations(models, bi, bt):
            if time.time() - start > a.max_seconds:
                meta["stopped_early"] = f"--max-seconds {a.max_seconds:g} reached after {rows} rows"
                break
            name, mode, prec, batch, graphs = cfg
            rid = f"{name}-{mode}-{prec}-b{batch}" + ("-graphs" if graphs else "")
            base = dict(id=rid, source="perfpred-measured", synthetic=0, gpu_id=gpu_id, runtime="pytorch",
                        runtime_version=torch.__version__, precision=prec,
                        model=os.path.join(zoo_rel, ZOO[name] + ".onnx"), model_family="torchvision",
                        recipe=f"torchvision:{name}", mode=mode, batch=batch, includes_h2d=0,
                        power_limit_w="", cuda_graphs=int(graphs))
            try:
                r = measure(torch, torchvision, nvml, cfg, a.chunk_seconds)
            except torch.cuda.OutOfMemoryError as e:
                row = dict(base, status="oom", reason=str(e).splitlines()[0][:200])
            except Exception as e:  # a configuration that fails is a row that says why, not a lost run
                row = dict(base, status="failed", reason=f"{type(e).__name__}: {str(e).splitlines()[0][:200]}")
            else:
                opt = "SGD momentum 0.9 step, zero_grad" if mode == "training" else ""
                fp = ("AMP autocast float16 + GradScaler" if mode == "training" else "model.half()") if prec == "fp16" else "fp32 (cudnn TF32 allowed: PyTorch default)"
                notes = (f"median of 3 chunks x {r['n']} iterations (chunk means {', '.join(f'{c:.4f}' for c in r['chunks'])} ms); "
                         f"{fp}; {opt + '; ' if opt else ''}cudnn.benchmark=True; input on the GPU; "
                         f"torch max allocated {r['alloc']} B, max reserved {r['reserved']} B; SM clock after {r['sm_mhz']} MHz")
                row = dict(base, status="ok", reason="", latency_ms=f"{r['latency_ms']:.5f}",
                           energy_mj=f"{r['energy_mj']:.4f}" if r["energy_mj"] else "",
                           power_w=f"{r['power_w']:.2f}" if r["power_w"] else "",
                           power_source="nvml-energy-counter" if r["energy_mj"] else "",
                           peak_memory_bytes=r["peak_memory_bytes"] or "", notes=notes)
            w.writerow([row.get(k, "") for k in HEADER])
            f.flush()
            rows += 1
            print(f"{time.time() - start:6.1f}s {rid}: {row.get('latency_ms', row.get('reason'))} ms", flush=True)
    meta["rows"] = rows
    meta["seconds"] = round(time.time() - start, 1)
    json.dump(meta, open(path + ".meta.json", "w"), indent=2)
    print(f"measure_torch_networks: {rows} rows in {meta['seconds']} s -> {path}")


if __name__ == "__main__":
    main()
