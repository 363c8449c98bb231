#!/usr/bin/python3
"""Writes quantized_ops.onnx (run from the repository root with Debian's /usr/bin/python3): ONNX Runtime's QOperator
quantisation for the ONNX fuzz targets, the model tools/export_oracle_models.py checks against ONNX Runtime
(quantized_ops): QLinearConv dense and depthwise, the com.microsoft QLinear* elementwise ops, pools (NCHW and
channels_last) and QLinearConcat, QLinearMatMul, DynamicQuantizeLinear into MatMulInteger, ConvInteger."""
import os
import sys

import onnx

sys.path.insert(0, "tools")
from export_oracle_models import quantized_ops  # noqa: E402

onnx.save(quantized_ops(), os.path.join(os.path.dirname(os.path.abspath(__file__)), "quantized_ops.onnx"))
