"""A torch.nn.Module to ONNX bytes in memory, the way tools/export_zoo.py exports the zoo: weights left out
(export_params=False), a dynamic batch axis, BatchNorm kept as a node. torch is imported only here, and
only when a module is given: perfpred itself needs neither torch nor onnx."""

import copy
import io
import warnings

from ._perfpred import InputError


def _first_line(e):
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _make_distinct(torch, model):
    """Perturb every float parameter and buffer of the (copied) model by a tiny random amount: the exporter
    merges weight inputs whose tensors hold equal values even with export_params=False, so identically
    initialised layers (every fresh BatchNorm's ones and zeros) would collapse into one input and the graph
    would under-count parameters. Tensors that are one object (tied weights) stay tied."""
    g = torch.Generator().manual_seed(1)
    seen = set()
    with torch.no_grad():
        for t in list(model.parameters()) + list(model.buffers()):
            if id(t) in seen or not t.is_floating_point():
                continue
            seen.add(id(t))
            t.add_(torch.rand(t.shape, generator=g, dtype=t.dtype, device=t.device) * 1e-3)


def to_onnx_bytes(module, example_inputs, input_names=None, opset=13, dynamic_batch=True):
    """Serialized ONNX of `module` traced on `example_inputs` (a tensor or a tuple of tensors), without
    weight data. The caller's module is not touched: a copy in eval() mode is exported."""
    try:
        import torch
    except ImportError as e:  # a module can only come from torch, but say what is missing
        raise InputError(f"exporting a torch module needs torch ({_first_line(e)})") from None
    label = type(module).__name__
    if not isinstance(module, torch.nn.Module):
        raise InputError(f"model {label}: not a torch.nn.Module, an .onnx path or ONNX bytes")
    if example_inputs is None:
        raise InputError(f"model {label}: a torch module needs example_inputs= (a tensor or a tuple of tensors "
                         "of the input shapes, e.g. torch.randn(1, 3, 224, 224))")
    args = tuple(example_inputs) if isinstance(example_inputs, (tuple, list)) else (example_inputs,)
    for i, a in enumerate(args):
        if not isinstance(a, torch.Tensor):
            raise InputError(f"model {label}: example_inputs[{i}] is a {type(a).__name__}; give torch tensors")
    if input_names is None:
        input_names = ["input"] if len(args) == 1 else [f"input{i}" for i in range(len(args))]
    input_names = list(input_names)
    if len(input_names) != len(args):
        raise InputError(f"model {label}: {len(input_names)} input_names for {len(args)} example_inputs")
    dyn = None
    if dynamic_batch:
        dyn = {n: {0: "batch"} for n, a in zip(input_names, args) if a.dim() >= 1}
        dyn["output"] = {0: "batch"}
    model = copy.deepcopy(module)
    model.eval()
    _make_distinct(torch, model)
    buf = io.BytesIO()
    try:
        with warnings.catch_warnings(), torch.enable_grad():
            warnings.simplefilter("ignore")  # tracer warnings about Python control flow are the exporter's business
            torch.onnx.export(model, args, buf, export_params=False, opset_version=opset, input_names=input_names,
                              output_names=["output"], dynamic_axes=dyn, do_constant_folding=False,
                              # PRESERVE on an eval() copy: inference semantics with BatchNorm kept as a node
                              # (EVAL would fold it into the Conv, which PyTorch eager does not do)
                              training=torch.onnx.TrainingMode.PRESERVE)
    except Exception as e:  # the exporter's errors are the model's: one line naming it
        raise InputError(f"model {label}: torch.onnx.export failed: {_first_line(e)}") from e
    return buf.getvalue()
