#!/usr/bin/python3
"""Writes sequence_ops.onnx and scripted_lists.onnx (run from the repository root with Debian's /usr/bin/python3):
the tensor-sequence and optional ops one by one, and Python lists as torch.jit.script exports them (SplitToSequence,
SequenceLength into a Loop of SequenceAt and SequenceInsert, ConcatFromSequence), for the ONNX fuzz targets; the
models tools/export_oracle_models.py checks against ONNX Runtime."""
import os
import sys

import onnx
import torch

sys.path.insert(0, "tools")
from export_oracle_models import ScriptedLists, sequence_ops  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
onnx.save(sequence_ops(), os.path.join(here, "sequence_ops.onnx"))
torch.manual_seed(0)
torch.onnx.export(torch.jit.script(ScriptedLists().eval()), (torch.randn(2, 8, 16),),
                  os.path.join(here, "scripted_lists.onnx"), opset_version=17, input_names=["x"])
