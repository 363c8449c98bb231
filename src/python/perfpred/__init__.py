"""perfpred from Python: predict latency, throughput, energy and memory of a network on a GPU.

    import perfpred, torch, torchvision
    r = perfpred.predict(torchvision.models.resnet50(), example_inputs=torch.randn(1, 3, 224, 224), gpu="l4")
    r.latency_ms, r.peak_memory_bytes, r.layers[0], r.to_dict()

`model` is a path to an .onnx file, the bytes of one, or a torch.nn.Module with `example_inputs` (exported
to ONNX in memory without its weights). Every result is the document the CLI prints with --json
(`to_dict()` is that JSON, `to_json()` its exact text); errors are `perfpred.InputError` with the CLI's
one-line message. docs/python.md has the whole API.
"""

import os as _os

try:  # installed by cmake --install: data/ and models/ are in share/perfpred beside the package
    from . import _install

    _share = _os.path.normpath(_os.path.join(_os.path.dirname(__file__), _install.SHARE_DIR))
    if _os.path.isdir(_os.path.join(_share, "data")):
        _os.environ.setdefault("PERFPRED_DATA_DIR", _os.path.join(_share, "data"))
        _os.environ.setdefault("PERFPRED_MODEL_DIR", _os.path.join(_share, "models"))
except ImportError:  # the build tree: the extension knows the source tree's data/
    pass

from ._perfpred import InputError, InternalError, UnsupportedOpError, set_log_level
from ._api import Result, Prediction, devices, fit_gpu, fit_host, gpu, mig, predict, select, sweep
from ._export import to_onnx_bytes

__version__ = "0.1.0"
__all__ = ["predict", "fit_host", "fit_gpu", "devices", "gpu", "select", "sweep", "mig", "to_onnx_bytes", "Result", "Prediction",
           "InputError", "UnsupportedOpError", "InternalError", "set_log_level"]
