#!/usr/bin/python3
"""Writes llm_contrib_ops.onnx (run from the repository root with Debian's /usr/bin/python3): a decoder layer as ONNX
Runtime GenAI writes one, for the ONNX fuzz targets: RMSNorm, 4-bit MatMulNBits, GroupQueryAttention with a KV cache
whose total length comes from Shape arithmetic, SkipSimplifiedLayerNormalization, RotaryEmbedding and a
MultiHeadAttention with its own past; the model tools/export_oracle_models.py checks against ONNX Runtime."""
import os
import sys

import onnx

sys.path.insert(0, "tools")
from export_oracle_models import llm_contrib_ops  # noqa: E402

onnx.save(llm_contrib_ops(), os.path.join(os.path.dirname(os.path.abspath(__file__)), "llm_contrib_ops.onnx"))
