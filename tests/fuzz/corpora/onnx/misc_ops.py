#!/usr/bin/python3
"""Writes misc_ops.onnx (run from the repository root with Debian's /usr/bin/python3): the rarer ops of real exports for
the ONNX fuzz targets: LpNormalization, DeformConv, MaxPool indices into MaxUnpool, RandomNormalLike, Bernoulli, the
bitwise ops, HannWindow/STFT/MelWeightMatrix and the training losses; the model tools/export_oracle_models.py checks
against ONNX Runtime."""
import os
import sys

import onnx

sys.path.insert(0, "tools")
from export_oracle_models import misc_ops  # noqa: E402

onnx.save(misc_ops(), os.path.join(os.path.dirname(os.path.abspath(__file__)), "misc_ops.onnx"))
