#!/usr/bin/python3
"""Writes external_data.onnx (run from the repository root with Debian's /usr/bin/python3), a seed for the
ONNX import fuzz target, which imports inputs that name an external-data location from a file beside its
"data.bin" (32 int64 values: -1, 24, 0, 8, then 4, 5, ... 31): a Reshape whose target (16 bytes at offset 0:
[-1, 24]) and a Slice whose bounds ([0] at 16, [8] at 24) sit in that file, and a weight in a file that does
not exist."""
import os

import onnx
from onnx import TensorProto as T
from onnx import helper as h


def external(name, dtype, dims, location, offset, length):
    t = T()
    t.name, t.data_type = name, dtype
    t.dims.extend(dims)
    t.data_location = T.EXTERNAL
    for k, v in (("location", location), ("offset", str(offset)), ("length", str(length))):
        e = t.external_data.add()
        e.key, e.value = k, v
    return t


inits = [external("target", T.INT64, [2], "data.bin", 0, 16),
         external("starts", T.INT64, [1], "data.bin", 16, 8),
         external("ends", T.INT64, [1], "data.bin", 24, 8),
         external("w", T.FLOAT, [24, 256], "weights-not-here.bin", 0, 24 * 256 * 4)]
g = h.make_graph([h.make_node("Reshape", ["x", "target"], ["r"], name="reshape"),
                  h.make_node("Slice", ["r", "starts", "ends"], ["s"], name="slice"),
                  h.make_node("MatMul", ["r", "w"], ["y"], name="mm")], "external",
                 [h.make_tensor_value_info("x", T.FLOAT, ["batch", 4, 6])],
                 [h.make_tensor_value_info("y", T.FLOAT, None), h.make_tensor_value_info("s", T.FLOAT, None)], inits)
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]),
          os.path.join(os.path.dirname(os.path.abspath(__file__)), "external_data.onnx"))
