"""The Python API: each call fills the options of the matching CLI command and returns the document that
command prints with --json, parsed (`Result`). The JSON is built in C++ by the same function as the CLI's."""

import json
import os
import shutil
import tempfile

from . import _perfpred
from ._export import to_onnx_bytes
from ._perfpred import InputError

_INT64_MAX = 2**63 - 1


class Result:
    """A perfpred JSON document: fields as attributes (`r.latency_ms`) or items (`r["latency_ms"]`),
    `to_dict()` the JSON as a dict, `to_json()` its exact text, `rows` a list of flat dicts (one per layer,
    device, grid point or MIG profile) and `to_pandas()` those rows as a DataFrame where pandas is there."""

    def __init__(self, text):
        self.__dict__["_text"] = text
        self.__dict__["_doc"] = json.loads(text)

    def __getattr__(self, name):
        doc = self.__dict__.get("_doc", {})
        if name in doc:
            return doc[name]
        raise AttributeError(f"{type(self).__name__} has no field {name!r} (fields: {', '.join(doc)})")

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is read-only; to_dict() gives a copy to change")

    def __getitem__(self, key):
        return self._doc[key]

    def __contains__(self, key):
        return key in self._doc

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._doc))

    def keys(self):
        return self._doc.keys()

    def to_dict(self):
        """The document as the CLI's --json prints it, parsed (a fresh copy)."""
        return json.loads(self._text)

    def to_json(self):
        """The exact JSON text the CLI prints with --json (byte for byte, with --no-meta unless meta=True)."""
        return self._text

    @property
    def rows(self):
        return []

    def __iter__(self):
        return iter(self.rows)

    def __len__(self):
        return len(self.rows)

    def to_pandas(self):
        """`rows` as a pandas DataFrame. pandas is not a dependency of perfpred: ImportError without it."""
        try:
            import pandas
        except ImportError:
            raise ImportError("to_pandas() needs pandas, which perfpred does not depend on "
                              "(apt-get install python3-pandas); `rows` has the same data as dicts") from None
        return pandas.DataFrame(self.rows)

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self._brief())})"

    def _brief(self):
        return [(k, v) for k, v in self._doc.items() if not isinstance(v, (list, dict))][:8]


class Prediction(Result):
    """`perfpred predict --json`: latency_ms, latency_range_ms (low, high, regime: where held-out measurements
    on machines left out of the fit fell), throughput_samples_per_s, pipelined_throughput_samples_per_s,
    energy_mj, avg_power_w, peak_memory_bytes, fits, breakdown, memory, notes, and `layers` (rows) unless
    layers=False."""

    @property
    def rows(self):
        return self._doc.get("layers", [])

    def _brief(self):
        keys = ("model", "gpu", "batch", "precision", "mode", "latency_ms", "energy_mj", "peak_memory_bytes", "fits")
        return [(k, self._doc[k]) for k in keys if k in self._doc]


class HostFit(Result):
    """`perfpred fit-host --json` (`host_factor`) or `fit-gpu --json` (`gpu_factor`): the fitted factor, the
    measurement, the latency at 1 and at the fit."""

    def _brief(self):
        keys = ("model", "gpu", "batch", "measured_ms", "host_factor", "gpu_factor")
        return [(k, self._doc[k]) for k in keys if k in self._doc]


class Devices(Result):
    """`perfpred devices --json`: `rows` (and iteration) are the catalogued devices."""

    @property
    def rows(self):
        return self._doc["devices"]

    def ids(self):
        return [d["id"] for d in self._doc["devices"]]

    def _brief(self):
        return [("devices", len(self._doc["devices"]))]


class Device(Result):
    """`perfpred devices show ID --json`: one device's spec (also a valid `gpu=` argument)."""

    def __init__(self, text, spec=None):
        super().__init__(text)
        self.__dict__["_spec"] = spec  # the dict a hypothetical GPU was given as, if it was

    def _brief(self):
        return [(k, self._doc[k]) for k in ("id", "name", "sm_count", "memory_gb") if k in self._doc]


def _flat_prediction(row, key="prediction"):
    out = {k: v for k, v in row.items() if k != key}
    out.update(row.get(key) or {})
    return out


class Selection(Result):
    """`perfpred select --json`: `ranked`, `rejected`; `rows` are both, flat (gpu id, rank or violations)."""

    @property
    def rows(self):
        rows = []
        for c in self._doc["ranked"] + self._doc["rejected"]:
            r = _flat_prediction(c)
            r["gpu"] = c["gpu"]["id"]
            r["violations"] = "; ".join(c["violations"])
            rows.append(r)
        return rows

    def best(self):
        """The first-ranked device id, or None where no device meets every constraint."""
        return self._doc["ranked"][0]["gpu"]["id"] if self._doc["ranked"] else None


class Sweep(Result):
    """`perfpred sweep --json`: `rows` are the grid points (the varied fields and the prediction)."""

    @property
    def rows(self):
        return self._doc["points"]


class MigAdvice(Result):
    """`perfpred mig --json`: `rows` are the MIG profiles (geometry, fit, SLO and the prediction), flat."""

    @property
    def rows(self):
        return [_flat_prediction(p) for p in self._doc["profiles"]]


# ---- argument conversion ----------------------------------------------------------------------------


class _Scratch:
    """A temporary folder for a model or spec given as bytes or a dict, and the path substitutions that
    keep it out of results and messages."""

    def __init__(self):
        self.dir = None
        self.names = {}  # temp path -> what the caller gave

    def write(self, filename, data, shown):
        if self.dir is None:
            self.dir = tempfile.mkdtemp(prefix="perfpred-")
        path = os.path.join(self.dir, filename)
        with open(path, "wb") as f:
            f.write(data)
        self.names[path] = shown
        return path

    def clean(self, text):
        for path, shown in self.names.items():
            text = text.replace(path, shown)
        return text

    def clean_json(self, text):
        """clean() for JSON text: the name put in is escaped as a JSON string's content."""
        for path, shown in self.names.items():
            text = text.replace(json.dumps(path)[1:-1], json.dumps(shown)[1:-1])
        return text

    def __enter__(self):
        return self

    def __exit__(self, kind, err, tb):
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
        if isinstance(err, InputError) and self.names:
            raise type(err)(self.clean(str(err))) from None
        return False


def _int(name, v):
    """An int64; its range (a positive batch ...) is checked in C++ with the CLI's message."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise InputError(f"{name}={v!r}: give an integer")
    if not -_INT64_MAX - 1 <= v <= _INT64_MAX:
        raise InputError(f"{name}={v}: out of the int64 range")
    return v


def _number(name, v):
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise InputError(f"{name}={v!r}: give a number")
    return float(v)


def _str(name, v):
    if isinstance(v, os.PathLike):
        v = os.fspath(v)
    if not isinstance(v, str):
        raise InputError(f"{name}={v!r}: give a string")
    return v


def _copies(copies):
    """(no_copies, pageable_copies) of the copies= keyword: True or "pinned" (the default), "pageable"
    (--pageable-copies: an unpinned tensor's copies, staged by the CPU), False (--no-copies)."""
    if not isinstance(copies, str):
        return not copies, False
    if copies not in ("pinned", "pageable"):
        raise InputError(f"copies={copies!r}: give True, False, 'pinned' or 'pageable'")
    return False, copies == "pageable"


def _input_shapes(shapes):
    """{"input": (8, 3, 224, 224)} or ["input=8,3,224,224"] -> the CLI's NAME=D0,D1,... strings."""
    if not shapes:
        return []
    if isinstance(shapes, dict):
        return [f"{name}={','.join(str(int(d)) for d in dims)}" for name, dims in shapes.items()]
    if isinstance(shapes, str):
        return [shapes]
    return [_str("input_shapes", s) for s in shapes]


def _pairs(name, given):
    """{"If_0": "then"} or ["If_0=then"] -> the CLI's NAME=VALUE strings (--branch, --loop-trips, --dim)."""
    if not given:
        return []
    if isinstance(given, dict):
        return [f"{k}={v}" for k, v in given.items()]
    return [_str(name, v) for v in ([given] if isinstance(given, str) else given)]


def _model_arg(model, scratch, example_inputs=None, input_names=None, name=None):
    """(path or label, bytes or "", the model's name): a path stays a path; bytes and modules are bytes."""
    if isinstance(model, (str, os.PathLike)):
        if example_inputs is not None:
            raise InputError(f"{os.fspath(model)}: example_inputs= is for a torch module, not an .onnx path")
        return os.fspath(model), b""
    if isinstance(model, (bytes, bytearray, memoryview)):
        data = bytes(model)
        label = name or "model"
    else:
        data = to_onnx_bytes(model, example_inputs, input_names=input_names)
        label = name or type(model).__name__
    if not data:
        raise InputError(f"{label}: empty ONNX bytes")
    return label, data


def _model_file(model, scratch, example_inputs=None, input_names=None, name=None):
    """A path for the commands that read a file (select, sweep, mig): bytes and modules are written to a
    temporary .onnx named after the model, shown as that name in results and messages."""
    label, data = _model_arg(model, scratch, example_inputs, input_names, name)
    if not data:
        return label
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in label) or "model"
    return scratch.write(safe + ".onnx", data, label)


def _gpu_arg(gpu, scratch, what="gpu"):
    """A catalog id, ID:MIG-PROFILE, ID@MODE, a spec JSON path, a spec dict (a hypothetical GPU) or a
    Device from perfpred.gpu()."""
    if isinstance(gpu, Device):
        if gpu._spec is None:
            return gpu.id
        gpu = gpu._spec
    if isinstance(gpu, dict):
        # Without "id" a spec is named after its file: spec:hypothetical (then spec:hypothetical-2, ...).
        n = sum(1 for p in scratch.names if os.path.basename(p).startswith("hypothetical"))
        filename = "hypothetical.json" if n == 0 else f"hypothetical-{n + 1}.json"
        label = f"{what} spec dict" + (f" '{gpu['id']}'" if isinstance(gpu.get("id"), str) else "")
        return scratch.write(filename, json.dumps(gpu).encode(), label)
    if gpu is None:
        raise InputError(f"{what}=: give a catalog id (perfpred.devices().ids()), a spec dict or a spec JSON path")
    return _str(what, gpu)


def _choices(o, batch, precision, mode, runtime, optimizer, input_shapes, allow_unknown, bundle, analytical,
             flow=None):
    o.batch = _int("batch", batch)
    o.precision, o.mode, o.runtime = _str("precision", precision), _str("mode", mode), _str("runtime", runtime)
    o.optimizer = "" if optimizer is None else _str("optimizer", optimizer)
    o.input_shapes = _input_shapes(input_shapes)
    o.allow_unknown = bool(allow_unknown)
    o.bundle = "" if bundle is None else _str("bundle", bundle)
    o.analytical = bool(analytical)
    _flow(o, **(flow or {}))


def _counts(name, given):
    """A per-node count option (--data-count, --nms-candidates): an int for every such node, else NAME=N pairs."""
    return [str(_int(name, given))] if isinstance(given, int) else _pairs(name, given)


def _flow(o, branches=None, loop_trips=None, data_counts=None, nms_candidates=None, allow_partial=False, dims=None, host_factor=1.0, gpu_factor=1.0,
          tf32=True, cuda_graphs=False, grad_mode=False, channels_last=False, attention="sdpa", param_updates="foreach", mixed_precision="amp"):
    """--branch, --loop-trips, --dim, --data-count, --nms-candidates and --allow-partial (models with If/Loop, symbolic dims or shapes
    left unknown), --host-factor (this machine's host CPU time over the reference machine's) and --gpu-factor
    (its GPU kernel time over the model's; both ranges checked in C++ with the CLI's messages), --no-tf32 (tf32=False; fp32 only, checked in C++),
    --cuda-graphs (the iteration replayed as a captured CUDA graph), --grad-mode (inference records autograd),
    --channels-last (torch.channels_last
    tensors), --attention ("sdpa" or "math"), --param-updates ("foreach" or "loop") and --mixed-precision ("amp"
    or "half"), all checked in C++."""
    o.host_factor = _number("host_factor", host_factor)
    o.gpu_factor = _number("gpu_factor", gpu_factor)
    o.no_tf32 = not tf32
    o.cuda_graphs = bool(cuda_graphs)
    o.grad_mode = bool(grad_mode)
    o.channels_last = bool(channels_last)
    o.attention = _str("attention", attention)
    o.param_updates = _str("param_updates", param_updates)
    o.mixed_precision = _str("mixed_precision", mixed_precision)
    o.branches = _pairs("branches", branches)
    o.loop_trips = _pairs("loop_trips", loop_trips)
    o.dims = _pairs("dims", dims)
    o.data_counts = _counts("data_counts", data_counts)
    o.nms_candidates = _counts("nms_candidates", nms_candidates)
    o.allow_partial = bool(allow_partial)


def _example_batch(example_inputs):
    first = example_inputs[0] if isinstance(example_inputs, (tuple, list)) and example_inputs else example_inputs
    shape = getattr(first, "shape", None)
    return int(shape[0]) if shape is not None and len(shape) >= 2 else None


# ---- the calls ----------------------------------------------------------------------------------------


def _predict_options(scratch, model, gpu, batch, precision, mode, runtime, optimizer, example_inputs, input_names,
                     input_shapes, allow_unknown, copies, name, flow):
    """predict's options (also fit_host's) from its keywords."""
    o = _perfpred.PredictOptions()
    o.model, o.model_bytes = _model_arg(model, scratch, example_inputs, input_names, name)
    o.gpu = _gpu_arg(gpu, scratch)
    if batch is None:
        batch = (_example_batch(example_inputs) if example_inputs is not None else None) or 1
    else:
        o.batch_given = True
    o.batch = _int("batch", batch)
    o.precision, o.mode, o.runtime = _str("precision", precision), _str("mode", mode), _str("runtime", runtime)
    o.optimizer = _str("optimizer", optimizer)
    o.input_shapes = _input_shapes(input_shapes)
    o.allow_unknown = bool(allow_unknown)
    o.no_copies, o.pageable_copies = _copies(copies)
    _flow(o, **flow)
    return o


def _bundles(bundles):
    return [_str("bundles", b) for b in ([bundles] if isinstance(bundles, str) else bundles or [])]


def predict(model, gpu, batch=None, precision="fp32", mode="inference", runtime="pytorch", optimizer="sgd",
            *, example_inputs=None, input_names=None, input_shapes=None, layers=True, allow_unknown=False,
            copies=True, bundles=None, analytical=False, meta=False, name=None, branches=None, loop_trips=None, data_counts=None, nms_candidates=None,
            allow_partial=False, host_factor=1.0, gpu_factor=1.0, dims=None, tf32=True, cuda_graphs=False, grad_mode=False,
            channels_last=False, attention="sdpa", param_updates="foreach", mixed_precision="amp", launch_queue=0):
    """Predict `model` on `gpu`: what `perfpred predict MODEL --gpu GPU --json --layers --no-meta` prints.

    model: an .onnx path, ONNX bytes, or a torch.nn.Module with example_inputs (exported without weights,
    batch axis dynamic). batch: the batch to predict (default: the example's leading dimension for a
    module, else 1 or the model's fixed batch). bundles: learned bundles (`["default"]` for the shipped
    latency bundle; one per target), as `--model` takes them. layers=False leaves the per-layer rows out;
    meta=True adds the CLI's meta block (version, time, model path). branches ({"If_0": "then"}),
    loop_trips ({"Loop_0": 12}), dims ({"seq": 128}) and allow_partial are --branch, --loop-trips, --dim and
    --allow-partial; data_counts is --data-count, the length a data-dependent op outputs ({"/NonZero": 1000} for
    one node, 1000 for every NonZero, NonMaxSuppression, Compress and Unique); nms_candidates is --nms-candidates,
    the boxes per image and class over a NonMaxSuppression's score threshold ({"/nms": 200} for one node, 200 for every one;
    default: every box); host_factor is --host-factor (this machine's host CPU time over the reference machine's),
    gpu_factor --gpu-factor (its GPU kernel time over the model's);
    copies=False is --no-copies, copies="pageable" --pageable-copies (the input and output copies move
    unpinned memory, which the CPU stages through a driver buffer; True or "pinned", the default: pinned memory);
    tf32=False is --no-tf32 (FP32 convolutions on FP32 math, torch.backends.cudnn.allow_tf32 = False);
    cuda_graphs=True is --cuda-graphs (the iteration replayed as a captured CUDA graph: no host cost per op);
    grad_mode=True is --grad-mode (inference with autograd recording: the model called without torch.no_grad());
    channels_last=True is --channels-last (the model runs in torch.channels_last: no cuDNN NCHW<->NHWC reorders);
    attention="math" is --attention math (MatMul -> Softmax -> MatMul as exported, not one fused
    scaled_dot_product_attention); param_updates="loop" is --param-updates loop (a PyTorch 1.x training step:
    zero_grad() zeroes every .grad, the optimizer loops over the tensors); mixed_precision="half" is
    --mixed-precision half (fp16/bf16 training of a model.half() model: no autocast casts, no GradScaler);
    launch_queue=N is --launch-queue N (kernels the host may issue ahead of the GPU; 0, the default: no limit)."""
    with _Scratch() as scratch:
        o = _predict_options(scratch, model, gpu, batch, precision, mode, runtime, optimizer, example_inputs,
                             input_names, input_shapes, allow_unknown, copies, name,
                             dict(branches=branches, loop_trips=loop_trips, data_counts=data_counts, nms_candidates=nms_candidates, allow_partial=allow_partial, dims=dims,
                                  host_factor=host_factor, gpu_factor=gpu_factor))
        o.no_tf32 = not tf32
        o.cuda_graphs = bool(cuda_graphs)
        o.grad_mode = bool(grad_mode)
        lq = _int("launch_queue", launch_queue)
        if not 0 <= lq <= 65536:  # the CLI's range (int in C++); checked here so that no int overflow hides it
            raise InputError(f"launch_queue={lq}: must be between 0 (no limit, the default) and 65536 kernels the "
                             "host may issue ahead of the GPU")
        o.launch_queue = lq
        o.channels_last = bool(channels_last)
        o.attention = _str("attention", attention)
        o.param_updates = _str("param_updates", param_updates)
        o.mixed_precision = _str("mixed_precision", mixed_precision)
        o.layers, o.no_meta = bool(layers), not meta
        text = _perfpred.predict(o, _bundles(bundles), bool(analytical))
        return Prediction(scratch.clean_json(text))


def _fit(which, held, args):
    """fit_host() (which="host", `held` its gpu_factor) or fit_gpu() ("gpu", `held` its host_factor); `args` the
    caller's other arguments by name, as predict() takes them."""
    a = dict(args)
    with _Scratch() as scratch:
        o = _perfpred.FitHostOptions()
        o.fit_gpu = which == "gpu"
        po = _predict_options(scratch, a["model"], a["gpu"], a["batch"], a["precision"], a["mode"], a["runtime"],
                              a["optimizer"], a["example_inputs"], a["input_names"], a["input_shapes"],
                              a["allow_unknown"], a["copies"], a["name"],
                              dict(branches=a["branches"], loop_trips=a["loop_trips"], data_counts=a["data_counts"], nms_candidates=a["nms_candidates"], allow_partial=a["allow_partial"],
                                   dims=a["dims"], **{"gpu_factor" if which == "host" else "host_factor": held}))
        po.no_tf32 = not a["tf32"]
        po.cuda_graphs = bool(a["cuda_graphs"])
        po.grad_mode = bool(a["grad_mode"])
        po.channels_last = bool(a["channels_last"])
        po.attention = _str("attention", a["attention"])
        po.param_updates = _str("param_updates", a["param_updates"])
        po.mixed_precision = _str("mixed_precision", a["mixed_precision"])
        o.predict = po
        if a["measured_ms"] is None:
            raise InputError("measured_ms=None: give the measured latency in ms")
        o.measured_ms = _number("measured_ms", a["measured_ms"])
        o.bundles, o.analytical = _bundles(a["bundles"]), bool(a["analytical"])
        return HostFit(scratch.clean_json(_perfpred.fit_host(o)))


def fit_host(model, gpu, measured_ms, batch=None, precision="fp32", mode="inference", runtime="pytorch",
             optimizer="sgd", *, example_inputs=None, input_names=None, input_shapes=None, allow_unknown=False,
             copies=True, bundles=None, analytical=False, name=None, branches=None, loop_trips=None, data_counts=None, nms_candidates=None,
             allow_partial=False, dims=None, gpu_factor=1.0, tf32=True, cuda_graphs=False, grad_mode=False,
             channels_last=False, attention="sdpa", param_updates="foreach", mixed_precision="amp"):
    """The host factor at which predict() matches `measured_ms` (`perfpred fit-host --json`): `host_factor`,
    `latency_ms` (at_host_factor_1, fitted) and `range_ms`. The other arguments are predict()'s (gpu_factor is
    held during the fit); a measurement no factor in 0.1-10 matches is an InputError saying why (the kernel-only
    floor ...)."""
    args = dict(locals())
    return _fit("host", args.pop("gpu_factor"), args)


def fit_gpu(model, gpu, measured_ms, batch=None, precision="fp32", mode="inference", runtime="pytorch",
            optimizer="sgd", *, example_inputs=None, input_names=None, input_shapes=None, allow_unknown=False,
            copies=True, bundles=None, analytical=False, name=None, branches=None, loop_trips=None, data_counts=None, nms_candidates=None,
            allow_partial=False, dims=None, host_factor=1.0, tf32=True, cuda_graphs=False, grad_mode=False,
            channels_last=False, attention="sdpa", param_updates="foreach", mixed_precision="amp"):
    """The GPU factor at which predict() matches a GPU-bound `measured_ms` (`perfpred fit-gpu --json`):
    `gpu_factor`, `latency_ms` (at_gpu_factor_1, fitted) and `range_ms`. The other arguments are predict()'s
    (host_factor is held during the fit); a measurement no factor in 0.25-4 matches, or one the host bounds, is an
    InputError saying why."""
    args = dict(locals())
    return _fit("gpu", args.pop("host_factor"), args)


def devices():
    """The GPU catalog (`perfpred devices --json`); `.ids()` lists the ids, rows are the devices."""
    return Devices(_perfpred.devices())


def gpu(spec):
    """One device (`perfpred devices show ID --json`): a catalog id, ID:MIG-PROFILE, ID@MODE, a spec JSON
    path, or a spec dict describing a hypothetical GPU (docs/gpus.md; `"base": "a100-sxm4-40gb"` starts
    from a catalogued one). The result is itself a valid gpu= argument."""
    with _Scratch() as scratch:
        arg = _gpu_arg(spec, scratch)
        return Device(scratch.clean_json(_perfpred.device(arg)), spec if isinstance(spec, dict) else None)


def select(model, devices=None, *, all=False, max_latency_ms=None, max_power_w=None, min_memory_headroom=None,
           max_latency_range_high_ms=None, max_power_range_high_w=None, objective="latency", prices=None, batch=1, precision="fp32", mode="inference", runtime="pytorch",
           optimizer=None, input_shapes=None, allow_unknown=False, bundle=None, analytical=False,
           example_inputs=None, input_names=None, name=None, branches=None, loop_trips=None, data_counts=None, nms_candidates=None, allow_partial=False,
           dims=None, host_factor=1.0, gpu_factor=1.0, tf32=True, cuda_graphs=False, grad_mode=False, channels_last=False,
           attention="sdpa", param_updates="foreach", mixed_precision="amp"):
    """Rank devices for `model` under constraints (`perfpred select --json`). devices: ids, spec dicts or
    Device objects; all=True ranks the whole catalog. prices: a prices.json path or the dict it holds
    (docs/formats.md), needed for objective="cost". host_factor, gpu_factor and tf32 are --host-factor,
    --gpu-factor and --no-tf32, as in predict(); cuda_graphs is --cuda-graphs, channels_last --channels-last. max_latency_range_high_ms and
    max_power_range_high_w are --max-latency-range-high-ms and --max-power-range-high-w (the ranges' high ends;
    analytical model); each candidate carries latency_range_ms, energy_range_mj and power_range_w where
    the analytical model predicted."""
    o = _perfpred.SelectOptions()
    with _Scratch() as scratch:
        o.model = _model_file(model, scratch, example_inputs, input_names, name)
        if isinstance(devices, (str, dict, Device)):
            devices = [devices]
        o.devices = [_gpu_arg(d, scratch, "devices") for d in devices or []]
        o.all = bool(all)
        o.max_latency_ms = _number("max_latency_ms", max_latency_ms)
        o.max_power_w = _number("max_power_w", max_power_w)
        o.min_memory_headroom = _number("min_memory_headroom", min_memory_headroom)
        o.max_latency_range_high_ms = _number("max_latency_range_high_ms", max_latency_range_high_ms)
        o.max_power_range_high_w = _number("max_power_range_high_w", max_power_range_high_w)
        o.objective = _str("objective", objective)
        if isinstance(prices, dict):
            prices = scratch.write("prices.json", json.dumps(prices).encode(), "prices dict")
        o.prices = "" if prices is None else _str("prices", prices)
        _choices(o, batch, precision, mode, runtime, optimizer, input_shapes, allow_unknown, bundle, analytical,
                 dict(branches=branches, loop_trips=loop_trips, data_counts=data_counts, nms_candidates=nms_candidates, allow_partial=allow_partial, dims=dims,
                      host_factor=host_factor, gpu_factor=gpu_factor, tf32=tf32, cuda_graphs=cuda_graphs,
                      grad_mode=grad_mode,
                      channels_last=channels_last, attention=attention,
                      param_updates=param_updates, mixed_precision=mixed_precision))
        return Selection(scratch.clean_json(_perfpred.select(o)))


def _axis(field, spec):
    if isinstance(spec, str):
        return f"{field}={spec}"
    if isinstance(spec, (tuple, list)) and len(spec) == 3:
        return f"{field}={spec[0]}:{spec[1]}:{spec[2]}"
    raise InputError(f"vary {field}={spec!r}: give (start, stop, step) or 'START:STOP:STEP'")


def sweep(model, base_gpu, vary, *, max_points=100000, batch=1, precision="fp32", mode="inference",
          runtime="pytorch", optimizer=None, input_shapes=None, allow_unknown=False, bundle=None, analytical=False,
          example_inputs=None, input_names=None, name=None, branches=None, loop_trips=None, data_counts=None, nms_candidates=None, allow_partial=False,
          dims=None, host_factor=1.0, gpu_factor=1.0, tf32=True, cuda_graphs=False, grad_mode=False, channels_last=False,
          attention="sdpa", param_updates="foreach", mixed_precision="amp"):
    """Predict `model` over a grid of hypothetical GPUs around `base_gpu` (`perfpred sweep --json`).
    vary: {"sm_count": (40, 160, 20), ...} or ["sm_count=40:160:20", ...]. Rows are the grid points.
    host_factor, gpu_factor and tf32 are --host-factor, --gpu-factor and --no-tf32, as in predict(); cuda_graphs
    is --cuda-graphs, channels_last --channels-last."""
    o = _perfpred.SweepOptions()
    with _Scratch() as scratch:
        o.model = _model_file(model, scratch, example_inputs, input_names, name)
        o.base_gpu = _gpu_arg(base_gpu, scratch, "base_gpu")
        if isinstance(vary, dict):
            o.vary = [_axis(f, s) for f, s in vary.items()]
        else:
            o.vary = [_str("vary", v) for v in ([vary] if isinstance(vary, str) else vary)]
        o.max_points = _int("max_points", max_points)
        _choices(o, batch, precision, mode, runtime, optimizer, input_shapes, allow_unknown, bundle, analytical,
                 dict(branches=branches, loop_trips=loop_trips, data_counts=data_counts, nms_candidates=nms_candidates, allow_partial=allow_partial, dims=dims,
                      host_factor=host_factor, gpu_factor=gpu_factor, tf32=tf32, cuda_graphs=cuda_graphs,
                      grad_mode=grad_mode,
                      channels_last=channels_last, attention=attention,
                      param_updates=param_updates, mixed_precision=mixed_precision))
        return Sweep(scratch.clean_json(_perfpred.sweep(o)))


def mig(model, gpu, *, slo_ms=None, memory_headroom=0.10, max_batch=False, max_batch_limit=65536, batch=1,
        precision="fp32", mode="inference", runtime="pytorch", optimizer=None, input_shapes=None,
        allow_unknown=False, bundle=None, analytical=False, example_inputs=None, input_names=None, name=None,
        branches=None, loop_trips=None, data_counts=None, nms_candidates=None, allow_partial=False, dims=None, host_factor=1.0, gpu_factor=1.0, tf32=True,
        cuda_graphs=False, grad_mode=False, channels_last=False, attention="sdpa", param_updates="foreach", mixed_precision="amp"):
    """Predict every MIG profile of a MIG-capable catalog GPU and recommend one (`perfpred mig --json`);
    `recommended` is None where no profile fits and meets slo_ms. host_factor, gpu_factor and tf32 are
    --host-factor, --gpu-factor and --no-tf32, as in predict(); cuda_graphs is --cuda-graphs, channels_last --channels-last."""
    o = _perfpred.MigOptions()
    with _Scratch() as scratch:
        o.model = _model_file(model, scratch, example_inputs, input_names, name)
        o.gpu = _str("gpu", gpu.id if isinstance(gpu, Device) else gpu)
        o.slo_ms = _number("slo_ms", slo_ms)
        o.memory_headroom = _number("memory_headroom", memory_headroom)
        o.max_batch = bool(max_batch)
        o.max_batch_limit = _int("max_batch_limit", max_batch_limit)
        _choices(o, batch, precision, mode, runtime, optimizer, input_shapes, allow_unknown, bundle, analytical,
                 dict(branches=branches, loop_trips=loop_trips, data_counts=data_counts, nms_candidates=nms_candidates, allow_partial=allow_partial, dims=dims,
                      host_factor=host_factor, gpu_factor=gpu_factor, tf32=tf32, cuda_graphs=cuda_graphs,
                      grad_mode=grad_mode,
                      channels_last=channels_last, attention=attention,
                      param_updates=param_updates, mixed_precision=mixed_precision))
        return MigAdvice(scratch.clean_json(_perfpred.mig(o)))
