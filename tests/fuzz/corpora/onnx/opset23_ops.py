#!/usr/bin/python3
"""Writes opset23_ops.onnx (run from the repository root with Debian's /usr/bin/python3): the ops opset 23 added, for
the ONNX fuzz targets: RMSNormalization, RotaryEmbedding and Attention (3-D with grouped heads and a past, 4-D
causal with its qk_matmul_output); the model tools/export_oracle_models.py checks against ONNX Runtime."""
import os
import sys

import onnx

sys.path.insert(0, "tools")
from export_oracle_models import newer_opset_ops  # noqa: E402

onnx.save(newer_opset_ops(23), os.path.join(os.path.dirname(os.path.abspath(__file__)), "opset23_ops.onnx"))
