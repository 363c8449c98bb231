#!/usr/bin/python3
"""Writes detect_postprocess.onnx (run from the repository root with Debian's /usr/bin/python3): a detector's
postprocessing in miniature for the ONNX fuzz targets: a scale from ReduceMin of the image size, score-threshold
NonZero and Compress, NonMaxSuppression whose kept boxes index the RoIs of a RoiAlign, a Gather of a partly known
Shape. Data-dependent lengths throughout (--data-count)."""
import onnx
from onnx import helper as h, TensorProto as T
c = lambda name, dt, dims, vals: h.make_node("Constant", [], [name], value=h.make_tensor(name + "_v", dt, dims, vals))
nodes = [
    c("sl0", T.INT64, [1], [2]), c("sl1", T.INT64, [1], [4]), c("tgt", T.FLOAT, [], [64.0]),
    c("thr", T.FLOAT, [], [0.5]), c("ax0", T.INT64, [1], [0]), c("most", T.INT64, [1], [5]),
    c("one", T.INT64, [1], [1]), c("two", T.INT64, [1], [2]), c("zero", T.INT64, [], [0]),
    h.make_node("Shape", ["img"], ["s"]),                                  # transform: scale from min(h, w)
    h.make_node("Slice", ["s", "sl0", "sl1"], ["hw"]),
    h.make_node("ReduceMin", ["hw"], ["mn"], keepdims=0),
    h.make_node("ReduceMax", ["hw"], ["mx"], keepdims=0),
    h.make_node("Cast", ["mn"], ["mnf"], to=T.FLOAT),
    h.make_node("Div", ["tgt", "mnf"], ["scale"]),
    h.make_node("Conv", ["img", "w"], ["feat"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
    h.make_node("ReduceMax", ["feat"], ["score"], axes=[1], keepdims=0),  # scores over a threshold: NonZero
    h.make_node("Flatten", ["score"], ["flat"], axis=1),
    h.make_node("Greater", ["flat", "thr"], ["keep"]),
    h.make_node("NonZero", ["keep"], ["nz"]),
    h.make_node("Unsqueeze", ["flat", "ax0"], ["scores3"]),                # NMS, then keep[:, 2] as the RoIs
    h.make_node("NonMaxSuppression", ["boxes", "scores3", "most"], ["sel"]),
    h.make_node("Shape", ["sel"], ["ss"]),
    h.make_node("Gather", ["ss", "one"], ["cols"], axis=0),
    h.make_node("Gather", ["sel", "two"], ["bidx"], axis=1),
    h.make_node("Squeeze", ["bidx", "one"], ["bsq"]),
    h.make_node("Gather", ["rois_all", "bsq"], ["rois"], axis=0),
    h.make_node("Mul", ["bsq", "zero"], ["bi"]),
    h.make_node("RoiAlign", ["feat", "rois", "bi"], ["pooled"], output_height=2, output_width=2, sampling_ratio=2),
    h.make_node("Compress", ["flat", "keep_row"], ["kept"], axis=1),
]
g = h.make_graph(nodes, "detect_postprocess",
                 [h.make_tensor_value_info("img", T.FLOAT, [1, 3, 8, 8]), h.make_tensor_value_info("boxes", T.FLOAT, [1, 64, 4]),
                  h.make_tensor_value_info("rois_all", T.FLOAT, [64, 4]), h.make_tensor_value_info("keep_row", T.BOOL, [64])],
                 [h.make_tensor_value_info(n, t, None) for n, t in
                  (("pooled", T.FLOAT), ("kept", T.FLOAT), ("nz", T.INT64), ("scale", T.FLOAT), ("mx", T.INT64), ("cols", T.INT64))],
                 [h.make_tensor("w", T.FLOAT, [4, 3, 3, 3], [0.1] * 108)])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 16)]), "tests/fuzz/corpora/onnx/detect_postprocess.onnx")
