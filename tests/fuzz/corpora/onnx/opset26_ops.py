#!/usr/bin/python3
"""Writes opset26_ops.onnx (run from the repository root with Debian's /usr/bin/python3): the ops opsets 24 and 26 added, for
the ONNX fuzz targets: CumProd, BitCast (float to int32, half to int16), TensorScatter writing a KV cache
and Attention-24 reading it with nonpad_kv_seqlen; the model tools/export_oracle_models.py checks against ONNX
Runtime."""
import os
import sys

import onnx

sys.path.insert(0, "tools")
from export_oracle_models import newer_opset_ops  # noqa: E402

onnx.save(newer_opset_ops(26), os.path.join(os.path.dirname(os.path.abspath(__file__)), "opset26_ops.onnx"))
