#!/usr/bin/python3
"""Export real-world architectures as parameter-free ONNX files for the ONNX Runtime shape oracle test.

    /usr/bin/python3 tools/export_oracle_models.py --out cache/oracle [--only NAME,...] [--list]

For every model two files are written: NAME.onnx (what a user brings: weights as graph inputs
without data, a symbolic "batch" dim on the inputs, and for the decoder a symbolic "past" length) and
NAME.all.onnx, the same graph with every node output added as a graph output, so ONNX Runtime reports
the shape of each (tests/cli/ort_shapes.js). NAME.inputs lists the shapes the test runs both tools at
(one `name=d0,d1,...` a line) and NAME.feeds.json every graph input for ONNX Runtime; NAME.b2.inputs
and NAME.b2.feeds.json are the same at batch 2 for models with a symbolic "batch". Files already present are kept (delete them to re-export).
"""
import argparse
import json
import subprocess
import os
import sys

from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F


class ScriptedLoopIf(nn.Module):
    """A torch.jit.script model: a Loop over the batch rows (trip count from the input shape) and an If
    on a data-dependent condition, as TorchScript exports them."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(64, 64)
        self.fc2 = nn.Linear(64, 32)

    def forward(self, x):
        acc = torch.zeros_like(x[0])
        for i in range(x.size(0)):
            acc = acc + self.fc(x[i])
        if bool(acc.sum() > 0):
            y = self.fc2(torch.relu(acc))
        else:
            y = self.fc2(acc)
        return y


class ScriptedLists(nn.Module):
    """Python lists as torch.jit.script exports them: torch.split into a loop over the parts (SplitToSequence,
    SequenceLength, a Loop of SequenceAt and SequenceInsert, ConcatFromSequence) and a list appended row by row
    and stacked (SequenceEmpty, a Loop over the batch, ConcatFromSequence with new_axis)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x):
        parts = torch.split(x, 3, dim=1)
        scaled = [self.fc(p) for p in parts]
        y = torch.cat(scaled, dim=1)
        rows: List[torch.Tensor] = []
        for i in range(y.size(0)):
            rows.append(torch.relu(y[i]))
        return torch.stack(rows)


def sequence_ops():
    """The sequence ops one by one (opset 17): SequenceConstruct, SequenceInsert at the front, SequenceErase of the
    last, SequenceAt from the back, SequenceLength, ConcatFromSequence on a new axis, SplitToSequence with uneven
    sizes and into squeezed slices; SequenceMap (a body with a weight passed whole and an outer value, then a
    second map over the first's result); and the optional ops (an Optional of a tensor and an empty one,
    OptionalHasElement of each, OptionalGetElement)."""
    import numpy as np
    from onnx import TensorProto as T, helper as h, numpy_helper as nh

    def i64(name, v):
        return nh.from_array(np.array(v, dtype=np.int64), name)
    n = h.make_node
    nodes = [
        n("SequenceConstruct", ["a", "b", "c"], ["s"], name="construct"),
        n("SequenceInsert", ["s", "d", "zero"], ["s2"], name="insert_front"),
        n("SequenceErase", ["s2"], ["s3"], name="erase_last"),
        n("SequenceAt", ["s3", "back"], ["last"], name="at_back"),
        n("SequenceLength", ["s3"], ["count"], name="length"),
        n("ConcatFromSequence", ["s3"], ["stacked"], axis=0, new_axis=1, name="stack"),
        n("SplitToSequence", ["x", "sizes"], ["parts"], axis=1, name="split_uneven"),
        n("ConcatFromSequence", ["parts"], ["joined"], axis=1, name="join"),
        n("SplitToSequence", ["a"], ["rows"], axis=0, keepdims=0, name="split_rows"),
        n("SequenceAt", ["rows", "one"], ["row"], name="at_row"),
        n("Optional", ["a"], ["opt"], name="wrap"),
        n("OptionalHasElement", ["opt"], ["has"], name="has"),
        n("OptionalGetElement", ["opt"], ["got"], name="unwrap"),
        n("Optional", [], ["none"], type=h.make_tensor_type_proto(T.FLOAT, [4, 6]), name="empty_optional"),
        n("OptionalHasElement", ["none"], ["has_none"], name="has_none"),
        # SequenceMap over the uneven parts with a weight passed whole and an outer value read from the body,
        # then a second map over the first's result.
        n("SequenceMap", ["parts", "w"], ["mapped"], name="map_matmul", body=h.make_graph(
            [n("MatMul", ["e", "v"], ["ev"]), n("Mul", ["ev", "half"], ["o"])], "map_body",
            [h.make_tensor_value_info("e", T.FLOAT, None), h.make_tensor_value_info("v", T.FLOAT, None)],
            [h.make_tensor_value_info("o", T.FLOAT, None)])),
        n("SequenceMap", ["mapped"], ["sums"], name="map_sum", body=h.make_graph(
            [n("ReduceSum", ["m", "ax1"], ["r"], keepdims=1)], "sum_body",
            [h.make_tensor_value_info("m", T.FLOAT, None)], [h.make_tensor_value_info("r", T.FLOAT, None)])),
        n("ConcatFromSequence", ["mapped"], ["mapped_joined"], axis=1, name="join_mapped"),
        n("ConcatFromSequence", ["sums"], ["sums_joined"], axis=1, name="join_sums"),
    ]
    inits = [i64("zero", 0), i64("back", -1), i64("one", 1), i64("sizes", [2, 5, 1]), i64("ax1", [1]),
             nh.from_array(np.full((3, 4), 0.25, np.float32), "w"), nh.from_array(np.array(0.5, np.float32), "half")]
    inputs = [h.make_tensor_value_info(v, T.FLOAT, [4, 6]) for v in "abcd"]
    inputs.append(h.make_tensor_value_info("x", T.FLOAT, [2, 8, 3]))
    outs = [h.make_tensor_value_info(o, T.FLOAT, None) for o in ["last", "stacked", "joined", "row", "got",
                                                                 "mapped_joined", "sums_joined"]]
    outs.append(h.make_tensor_value_info("count", T.INT64, None))
    outs += [h.make_tensor_value_info(o, T.BOOL, None) for o in ["has", "has_none"]]
    g = h.make_graph(nodes, "sequence_ops", inputs, outs, inits)
    return h.make_model(g, opset_imports=[h.make_opsetid("", 17)], ir_version=8)


class DecoderStep(nn.Module):
    """One generation step of a GPT-style decoder with a KV cache: the new token attends to the past
    keys/values concatenated with its own; returns logits and the grown cache."""

    def __init__(self, d=256, heads=4, vocab=1000):
        super().__init__()
        self.h, self.hd = heads, d // heads
        self.emb = nn.Embedding(vocab, d)
        self.ln = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.head = nn.Linear(d, vocab)

    def forward(self, ids, past_k, past_v):
        b, t = ids.shape
        x = self.emb(ids)
        q, k, v = self.qkv(self.ln(x)).split(x.size(-1), dim=2)
        q = q.view(b, t, self.h, self.hd).transpose(1, 2)
        k = torch.cat([past_k, k.view(b, t, self.h, self.hd).transpose(1, 2)], dim=2)
        v = torch.cat([past_v, v.view(b, t, self.h, self.hd).transpose(1, 2)], dim=2)
        att = torch.softmax(q @ k.transpose(-2, -1) / (self.hd ** 0.5), dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, -1)
        x = x + self.proj(y)
        x = x + self.mlp(x)
        return self.head(x), k, v


class TinyEncoder(nn.Module):
    """Two post-norm nn.TransformerEncoder layers (d=64, GELU) on token ids: exported with its weights,
    ONNX Runtime's optimizer turns it into FusedMatMul, SkipLayerNormalization and Gelu."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 64)
        layer = nn.TransformerEncoderLayer(64, 4, 256, dropout=0.0, activation="gelu", batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, ids):
        return self.enc(self.emb(ids))


def contrib_ops():
    """com.microsoft ops as ONNX Runtime's transformer optimizer writes them: Attention with a KV cache
    (past/present), FastGelu, BiasGelu and SkipLayerNormalization, plus opset-18 GroupNormalization on a
    conv feature map. Built with onnx.helper, weights as initializers."""
    import numpy as np
    from onnx import TensorProto as T, helper as h, numpy_helper as nh
    rng = np.random.default_rng(0)

    def w(name, *shape):
        return nh.from_array(rng.standard_normal(shape).astype(np.float32) * 0.1, name)
    ms = "com.microsoft"
    nodes = [
        h.make_node("Attention", ["x", "qkv_w", "qkv_b", "", "past"], ["att", "present"], domain=ms,
                    num_heads=4, unidirectional=1, name="attention"),
        h.make_node("FastGelu", ["att", "fg_b"], ["fg"], domain=ms, name="fast_gelu"),
        h.make_node("MatMul", ["fg", "ff_w"], ["ff"], name="ff"),
        h.make_node("BiasGelu", ["ff", "bg_b"], ["bg"], domain=ms, name="bias_gelu"),
        h.make_node("MatMul", ["bg", "out_w"], ["proj"], name="proj"),
        h.make_node("SkipLayerNormalization", ["proj", "x", "ln_g", "ln_b", "ln_bias"], ["y"], domain=ms,
                    epsilon=1e-5, name="skip_ln"),
        h.make_node("Conv", ["img", "conv_w"], ["feat"], pads=[1, 1, 1, 1], name="conv"),
        h.make_node("GroupNormalization", ["feat", "gn_s", "gn_b"], ["gn"], num_groups=4, epsilon=1e-5, name="group_norm"),
    ]
    inits = [w("qkv_w", 64, 192), w("qkv_b", 192), w("fg_b", 64), w("ff_w", 64, 256), w("bg_b", 256),
             w("out_w", 256, 64), w("ln_g", 64), w("ln_b", 64), w("ln_bias", 64), w("conv_w", 16, 3, 3, 3),
             w("gn_s", 4), w("gn_b", 4)]
    g = h.make_graph(nodes, "contrib_ops",
                     [h.make_tensor_value_info("x", T.FLOAT, ["batch", "seq", 64]),
                      h.make_tensor_value_info("past", T.FLOAT, [2, "batch", 4, "past", 16]),
                      h.make_tensor_value_info("img", T.FLOAT, ["batch", 3, 32, 32])],
                     [h.make_tensor_value_info("y", T.FLOAT, None), h.make_tensor_value_info("present", T.FLOAT, None),
                      h.make_tensor_value_info("gn", T.FLOAT, None)], inits)
    return h.make_model(g, opset_imports=[h.make_opsetid("", 18), h.make_opsetid(ms, 1)], ir_version=8)


def quantized_ops():
    """ONNX Runtime's QOperator quantisation, as its quantize_static/quantize_dynamic write it: QLinearConv
    (dense with an int32 bias, and depthwise strided), the com.microsoft 8-bit elementwise ops and pools
    (QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax, QLinearConcat,
    QLinearGlobalAveragePool and QLinearAveragePool in NCHW and channels_last NHWC), QLinearMatMul, and the
    dynamic path (DynamicQuantizeLinear into MatMulInteger), plus ConvInteger."""
    import numpy as np
    from onnx import TensorProto as T, helper as h, numpy_helper as nh
    rng = np.random.default_rng(0)

    def q8(name, dtype, *shape):
        lo, hi = (0, 255) if dtype == np.uint8 else (-127, 127)
        return nh.from_array(rng.integers(lo, hi, shape).astype(dtype), name)

    def scalar(name, v, dtype=np.float32):
        return nh.from_array(np.array(v, dtype=dtype), name)
    ms = "com.microsoft"
    n = h.make_node
    q = ["s", "z"]  # one scale and zero point for every activation
    nodes = [
        n("QuantizeLinear", ["x", "s", "z"], ["xq"], name="quantize"),
        n("QLinearConv", ["xq", *q, "w1", "ws", "wz", *q, "b1"], ["c1"], pads=[1, 1, 1, 1], name="qconv"),
        n("QLinearConv", ["c1", *q, "w2", "ws", "wz", *q], ["c2"], group=16, pads=[1, 1, 1, 1], strides=[2, 2],
          name="qconv_depthwise"),
        n("QLinearAdd", ["c2", *q, "c2", *q, *q], ["add"], domain=ms, name="qadd"),
        n("QLinearSigmoid", ["add", *q, *q], ["sig"], domain=ms, name="qsigmoid"),
        n("QLinearMul", ["add", *q, "sig", *q, *q], ["mul"], domain=ms, name="qmul"),
        n("QLinearConcat", [*q, "mul", *q, "add", *q], ["cat"], domain=ms, axis=1, name="qconcat"),
        n("QLinearLeakyRelu", ["cat", *q, *q], ["leaky"], domain=ms, alpha=0.1, name="qleaky_relu"),
        n("QLinearSoftmax", ["leaky", *q, *q], ["soft"], domain=ms, axis=-1, opset=13, name="qsoftmax"),
        n("QLinearAveragePool", ["mul", *q, *q], ["pool"], domain=ms, kernel_shape=[3, 3], strides=[2, 2],
          pads=[1, 1, 1, 1], name="qavgpool"),
        n("Transpose", ["mul"], ["mul_nhwc"], perm=[0, 2, 3, 1], name="to_nhwc"),
        n("QLinearAveragePool", ["mul_nhwc", *q, *q], ["pool_nhwc"], domain=ms, kernel_shape=[2, 2], strides=[2, 2],
          channels_last=1, name="qavgpool_nhwc"),
        n("QLinearGlobalAveragePool", ["mul_nhwc", *q, *q], ["gap_nhwc"], domain=ms, channels_last=1,
          name="qgap_nhwc"),
        n("QLinearGlobalAveragePool", ["mul", *q, *q], ["gap"], domain=ms, channels_last=0, name="qgap"),
        n("Flatten", ["gap"], ["flat"], name="flatten"),
        n("QLinearMatMul", ["flat", *q, "w3", "ws", "wz", *q], ["logits_q"], name="qmatmul"),
        n("DequantizeLinear", ["logits_q", *q], ["logits"], name="dequantize"),
        n("DynamicQuantizeLinear", ["h"], ["hq", "hs", "hz"], name="dynamic_quantize"),
        n("MatMulInteger", ["hq", "w4", "hz", "w4z"], ["hmm"], name="matmul_integer"),
        n("ConvInteger", ["xq", "w5", "z", "w5z"], ["ci"], pads=[1, 1, 1, 1], name="conv_integer"),
    ]
    inits = [scalar("s", 0.05), scalar("z", 128, np.uint8), scalar("ws", 0.01), scalar("wz", 0, np.int8),
             q8("w1", np.int8, 16, 3, 3, 3), nh.from_array(rng.integers(-100, 100, 16).astype(np.int32), "b1"),
             q8("w2", np.int8, 16, 1, 3, 3), q8("w3", np.int8, 16, 10), q8("w4", np.uint8, 32, 24),
             scalar("w4z", 128, np.uint8), q8("w5", np.uint8, 8, 3, 3, 3), scalar("w5z", 128, np.uint8)]
    outs = [h.make_tensor_value_info(o, t, None) for o, t in
            [("logits", T.FLOAT), ("soft", T.UINT8), ("pool", T.UINT8), ("pool_nhwc", T.UINT8),
             ("gap_nhwc", T.UINT8), ("hmm", T.INT32), ("ci", T.INT32)]]
    g = h.make_graph(nodes, "quantized_ops",
                     [h.make_tensor_value_info("x", T.FLOAT, ["batch", 3, 32, 32]),
                      h.make_tensor_value_info("h", T.FLOAT, ["batch", 7, 32])], outs, inits)
    return h.make_model(g, opset_imports=[h.make_opsetid("", 13), h.make_opsetid(ms, 1)], ir_version=8)


def llm_contrib_ops():
    """A decoder layer as ONNX Runtime GenAI's model builder writes one: SimplifiedLayerNormalization (RMSNorm,
    registered in the default domain), 4-bit MatMulNBits projections, GroupQueryAttention with a KV cache and
    rotary embedding (4 query heads over 2 KV heads; the total length from the shapes, as the builder derives it
    from the attention mask), SkipSimplifiedLayerNormalization, plus com.microsoft RotaryEmbedding and a
    MultiHeadAttention with its own past. Weights as initializers."""
    import numpy as np
    from onnx import TensorProto as T, helper as h, numpy_helper as nh
    rng = np.random.default_rng(0)

    def f32(name, *shape):
        return nh.from_array((rng.standard_normal(shape) * 0.1).astype(np.float32), name)

    def nbits(prefix, n, k, block=32):  # MatMulNBits's packed 4-bit B [N, k_blocks, block / 2] and its scales
        blocks = (k + block - 1) // block
        return [nh.from_array(rng.integers(0, 255, (n, blocks, block // 2)).astype(np.uint8), prefix + "_b"),
                nh.from_array((rng.random(n * blocks) * 0.01).astype(np.float32), prefix + "_s")]

    def i64(name, v):
        return nh.from_array(np.array(v, dtype=np.int64), name)
    ms = "com.microsoft"
    n = h.make_node
    nodes = [
        n("SimplifiedLayerNormalization", ["x", "ln_g"], ["ln"], axis=-1, epsilon=1e-5, name="rms_norm"),
        n("MatMulNBits", ["ln", "q_b", "q_s"], ["q"], domain=ms, K=64, N=64, bits=4, block_size=32, name="q_proj"),
        n("MatMulNBits", ["ln", "k_b", "k_s"], ["k"], domain=ms, K=64, N=32, bits=4, block_size=32, name="k_proj"),
        n("MatMulNBits", ["ln", "v_b", "v_s"], ["v"], domain=ms, K=64, N=32, bits=4, block_size=32, name="v_proj"),
        n("Shape", ["x"], ["x_shape"], name="x_shape"),
        n("Shape", ["past_key"], ["past_shape"], name="past_shape"),
        n("Gather", ["x_shape", "one"], ["seq"], axis=0, name="seq"),
        n("Gather", ["past_shape", "two"], ["past_len"], axis=0, name="past_len"),
        n("Add", ["seq", "past_len"], ["total64"], name="total"),
        n("Cast", ["total64"], ["total"], to=T.INT32, name="total_i32"),
        n("Sub", ["total64", "one"], ["last"], name="last"),
        n("Slice", ["x_shape", "zero1", "one1"], ["batch"], name="batch"),
        n("Expand", ["last", "batch"], ["last_b"], name="seqlens"),
        n("Cast", ["last_b"], ["seqlens_k"], to=T.INT32, name="seqlens_i32"),
        n("GroupQueryAttention", ["q", "k", "v", "past_key", "past_value", "seqlens_k", "total", "cos", "sin"],
          ["attn", "present_key", "present_value"], domain=ms, num_heads=4, kv_num_heads=2, do_rotary=1,
          name="gqa"),
        n("MatMul", ["attn", "o_w"], ["o"], name="o_proj"),
        n("SkipSimplifiedLayerNormalization", ["o", "x", "ln2_g"], ["y", "", "", "resid"], domain=ms,
          epsilon=1e-5, name="skip_rms_norm"),
        n("RotaryEmbedding", ["y", "pos", "cos", "sin"], ["rot"], domain=ms, num_heads=4, name="rotary"),
        n("MultiHeadAttention", ["rot", "y", "resid", "", "", "", "mha_past_k", "mha_past_v"],
          ["mha", "mha_present_k", "mha_present_v"], domain=ms, num_heads=4, name="mha"),
    ]
    inits = [f32("ln_g", 64), f32("ln2_g", 64), f32("o_w", 64, 64), f32("cos", 32, 8), f32("sin", 32, 8),
             i64("one", 1), i64("two", 2), i64("zero1", [0]), i64("one1", [1])]
    inits += nbits("q", 64, 64) + nbits("k", 32, 64) + nbits("v", 32, 64)
    g = h.make_graph(nodes, "llm_contrib_ops",
                     [h.make_tensor_value_info("x", T.FLOAT, ["batch", "seq", 64]),
                      h.make_tensor_value_info("past_key", T.FLOAT, ["batch", 2, "past", 16]),
                      h.make_tensor_value_info("past_value", T.FLOAT, ["batch", 2, "past", 16]),
                      h.make_tensor_value_info("pos", T.INT64, ["batch", "seq"]),
                      h.make_tensor_value_info("mha_past_k", T.FLOAT, ["batch", 4, "past", 16]),
                      h.make_tensor_value_info("mha_past_v", T.FLOAT, ["batch", 4, "past", 16])],
                     [h.make_tensor_value_info(o, T.FLOAT, None) for o in
                      ["present_key", "present_value", "mha", "mha_present_k", "mha_present_v"]], inits)
    return h.make_model(g, opset_imports=[h.make_opsetid("", 17), h.make_opsetid(ms, 1)], ir_version=8)


def misc_ops():
    """Ops real exports carry that the other models lack: LpNormalization, DeformConv (opset 19), MaxPool's indices
    into MaxUnpool, RandomNormalLike, Bernoulli, the bitwise ops, an audio front end (HannWindow, STFT,
    MelWeightMatrix), the training losses (SoftmaxCrossEntropyLoss, NegativeLogLikelihoodLoss), Det and
    Multinomial."""
    import numpy as np
    from onnx import TensorProto as T, helper as h, numpy_helper as nh
    rng = np.random.default_rng(0)

    def i64(name, v):
        return nh.from_array(np.array(v, dtype=np.int64), name)
    n = h.make_node
    nodes = [
        n("LpNormalization", ["x"], ["lp"], axis=1, p=2, name="lp_norm"),
        n("DeformConv", ["x", "dw", "off"], ["dc"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], name="deform_conv"),
        n("MaxPool", ["x"], ["mp", "mpi"], kernel_shape=[2, 2], strides=[2, 2], name="pool"),
        n("MaxUnpool", ["mp", "mpi"], ["unpool"], kernel_shape=[2, 2], strides=[2, 2], name="unpool"),
        n("RandomNormalLike", ["x"], ["noise"], name="noise"),
        n("Bernoulli", ["prob"], ["bern"], name="bernoulli"),
        n("BitwiseAnd", ["ia", "ib"], ["band"], name="bitwise_and"),
        n("BitwiseNot", ["ia"], ["bnot"], name="bitwise_not"),
        n("HannWindow", ["wlen"], ["win"], name="hann"),
        n("STFT", ["sig", "step", "win", "wlen"], ["spec"], onesided=1, name="stft"),
        n("MelWeightMatrix", ["nmel", "wlen", "rate", "lo", "hi"], ["mel"], name="mel_matrix"),
        n("SoftmaxCrossEntropyLoss", ["logits", "labels"], ["sce", "log_prob"], reduction="mean", name="sce"),
        n("NegativeLogLikelihoodLoss", ["log_prob", "labels"], ["nll"], reduction="none", name="nll"),
        n("Det", ["mats"], ["det"], name="det"),
        n("Multinomial", ["logits"], ["draws"], sample_size=3, name="multinomial"),
    ]
    inits = [nh.from_array((rng.standard_normal((4, 4, 3, 3)) * 0.1).astype(np.float32), "dw"), i64("step", 16),
             i64("wlen", 64), i64("nmel", 20), i64("rate", 16000), nh.from_array(np.array(0., np.float32), "lo"),
             nh.from_array(np.array(8000., np.float32), "hi")]
    inputs = [h.make_tensor_value_info("x", T.FLOAT, [2, 4, 8, 8]),
              h.make_tensor_value_info("off", T.FLOAT, [2, 18, 8, 8]),
              h.make_tensor_value_info("prob", T.FLOAT, [2, 5]), h.make_tensor_value_info("ia", T.INT32, [2, 5]),
              h.make_tensor_value_info("ib", T.INT32, [5]), h.make_tensor_value_info("sig", T.FLOAT, [2, 400, 1]),
              h.make_tensor_value_info("logits", T.FLOAT, [2, 10]), h.make_tensor_value_info("labels", T.INT64, [2]),
              h.make_tensor_value_info("mats", T.FLOAT, [3, 4, 4])]
    outs = [h.make_tensor_value_info(o, T.FLOAT, None) for o in
            ["lp", "dc", "unpool", "noise", "bern", "spec", "mel", "sce", "nll", "det"]]
    outs.append(h.make_tensor_value_info("draws", T.INT32, None))
    outs += [h.make_tensor_value_info(o, T.INT32, None) for o in ["band", "bnot"]]
    g = h.make_graph(nodes, "misc_ops", inputs, outs, inits)
    return h.make_model(g, opset_imports=[h.make_opsetid("", 19)], ir_version=9)


def newer_opset_ops(opset):
    """Ops revised or added in opsets 18-26 (the ONNX library perfpred links knows 17): Reduce* with axes as an
    input, Split num_outputs, Pad axes, Resize axes/keep_aspect_ratio_policy/antialias, CenterCropPad,
    Col2Im, LpPool ceil_mode, GroupNormalization-18/21 (opset 18); Gelu, AffineGrid, GridSample and
    DFT with axis as an input (opset 20); Pad/Reshape/Split/Cast and GroupNormalization-21 (opset 21);
    Attention, RMSNormalization, RotaryEmbedding (opset 23); TensorScatter, Attention-24 (opset 24), CumProd and
    BitCast (opset 26)."""
    import numpy as np
    from onnx import TensorProto as T, helper as h, numpy_helper as nh
    rng = np.random.default_rng(0)

    def i64(name, v):
        return nh.from_array(np.array(v, dtype=np.int64), name)

    def f32(name, *shape):
        return nh.from_array(rng.standard_normal(shape).astype(np.float32) * 0.1, name)
    n = h.make_node
    x = h.make_tensor_value_info("x", T.FLOAT, ["batch", 8, 12, 16])
    common = [i64("ax_12", [1, 2]), i64("ax_neg1", [-1]), i64("pads2", [1, 2, 3, 4]), i64("pad_axes", [1, 3])]
    if opset == 18:
        nodes = [
            n("ReduceMean", ["x", "ax_12"], ["rmean"], keepdims=1, name="reduce_mean_axes_input"),
            n("ReduceSum", ["x", "ax_neg1"], ["rsum"], keepdims=0, name="reduce_sum_axes_input"),
            n("ReduceMax", ["x"], ["rmax_all"], keepdims=0, name="reduce_max_no_axes"),
            n("ReduceL2", ["x", "ax_empty"], ["rl2_noop"], noop_with_empty_axes=1, name="reduce_l2_noop"),
            n("ReduceLogSumExp", ["x", "ax_3"], ["rlse"], name="reduce_lse"),
            n("Split", ["x"], ["sp0", "sp1", "sp2"], axis=3, num_outputs=3, name="split_num_outputs_uneven"),
            n("Split", ["x"], ["sq0", "sq1"], axis=1, num_outputs=2, name="split_num_outputs_even"),
            n("Pad", ["x", "pads2", "", "pad_axes"], ["padded"], mode="constant", name="pad_axes"),
            n("Resize", ["x", "", "", "rsizes"], ["resized"], mode="linear", antialias=1, axes=[2, 3], name="resize_antialias"),
            n("Resize", ["x", "", "", "rsizes2"], ["resized_kar"], mode="nearest", axes=[2, 3],
              keep_aspect_ratio_policy="not_larger", name="resize_not_larger"),
            n("Resize", ["x", "", "", "rsizes2"], ["resized_kas"], mode="nearest", axes=[2, 3],
              keep_aspect_ratio_policy="not_smaller", name="resize_not_smaller"),
            n("Resize", ["x", "", "rscales"], ["resized_sc"], mode="nearest", axes=[3], name="resize_axes_scales"),
            n("GroupNormalization", ["x", "gn_s", "gn_b"], ["gn"], num_groups=4, name="group_norm18"),
            n("LpPool", ["x"], ["lp"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1, name="lppool_ceil"),
            n("Mish", ["x"], ["mish"], name="mish"),
            n("CenterCropPad", ["x", "ccp_shape"], ["ccp"], axes=[2, 3], name="center_crop_pad"),
            n("Col2Im", ["cols", "c2i_img", "c2i_blk"], ["col2im"], strides=[1, 1], name="col2im"),
        ]
        inits = common + [i64("ax_empty", np.zeros((0,), np.int64)), i64("ax_3", [3]), i64("rsizes", [24, 8]),
                          i64("rsizes2", [30, 20]), nh.from_array(np.array([2.5], np.float32), "rscales"),
                          f32("gn_s", 4), f32("gn_b", 4), i64("ccp_shape", [10, 20]), i64("c2i_img", [5, 5]),
                          i64("c2i_blk", [2, 2])]
        inputs = [x, h.make_tensor_value_info("cols", T.FLOAT, [1, 12, 16])]
    elif opset == 20:
        nodes = [
            n("Gelu", ["x"], ["gelu"], approximate="tanh", name="gelu20"),
            n("AffineGrid", ["theta", "ag_size"], ["grid"], align_corners=0, name="affine_grid"),
            n("GridSample", ["x", "grid"], ["sampled"], mode="linear", name="grid_sample20"),
            n("ReduceMean", ["x", "ax_12"], ["rmean20"], keepdims=1, name="reduce_mean20"),
            n("DFT", ["sig", "dft_len", "dft_axis"], ["spectrum"], onesided=1, name="dft_onesided"),
            n("DFT", ["sig"], ["dft_default"], name="dft_default_axis"),
        ]
        inits = common + [i64("ag_size", [2, 8, 6, 10]), i64("dft_len", 64), i64("dft_axis", 1)]
        inputs = [x, h.make_tensor_value_info("theta", T.FLOAT, ["batch", 2, 3]),
                  h.make_tensor_value_info("sig", T.FLOAT, ["batch", 50, 1])]
    elif opset == 23:  # the ops opset 23 added, on a [batch, 8, 12, 16] map read as 8 tokens of 192 (3 heads of 64)
        nodes = [
            n("Reshape", ["x", "tok_shape"], ["tok"], name="to_tokens"),
            n("RMSNormalization", ["tok", "rms_g"], ["rms"], axis=-1, epsilon=1e-5, name="rms_norm23"),
            n("Reshape", ["rms", "head_shape"], ["heads"], name="to_heads"),
            n("Transpose", ["heads"], ["bnsh"], perm=[0, 2, 1, 3], name="bnsh"),
            n("RotaryEmbedding", ["bnsh", "cos", "sin", "pos"], ["rot"], name="rotary23"),
            n("Attention", ["rms", "kv", "kv", "", "past", "past"], ["att", "present_k", "present_v"],
              q_num_heads=3, kv_num_heads=1, name="attention_gqa23"),
            n("Attention", ["rot", "rot", "rot"], ["att4", "", "", "qk"], is_causal=1, qk_matmul_output_mode=0,
              name="attention_4d23"),
        ]
        inits = [i64("tok_shape", [0, 8, 192]), i64("head_shape", [0, 8, 3, 64]), f32("rms_g", 192),
                 f32("cos", 32, 32), f32("sin", 32, 32)]
        inputs = [x, h.make_tensor_value_info("pos", T.INT64, ["batch", 8]),
                  h.make_tensor_value_info("kv", T.FLOAT, ["batch", 8, 64]),
                  h.make_tensor_value_info("past", T.FLOAT, ["batch", 1, 5, 64])]
        outs = [h.make_tensor_value_info(o, T.FLOAT, None) for o in ["att", "present_k", "att4", "qk"]]
        g = h.make_graph(nodes, "opset23_ops", inputs, outs, inits)
        return h.make_model(g, opset_imports=[h.make_opsetid("", 23)], ir_version=11)
    elif opset == 26:  # the ops opsets 24 (TensorScatter, Attention-24) and 26 (CumProd, BitCast) added; not
        # Swish-24, which ONNX Runtime 1.31's CPU build has no kernel for (tests/unit/onnx shapes it)
        nodes = [
            n("CumProd", ["x", "ax_1"], ["cumprod"], reverse=1, name="cumprod26"),
            n("BitCast", ["cumprod"], ["bits"], to=T.INT32, name="bitcast26"),
            n("Cast", ["x"], ["xh"], to=T.FLOAT16, name="to_half"),
            n("BitCast", ["xh"], ["half_bits"], to=T.INT16, name="bitcast26_half"),
            # A decoder's KV cache of 16 positions, 3 new keys written at each row's index (circular), then
            # attention over the whole cache with each row's valid length.
            n("TensorScatter", ["cache", "upd", "wi"], ["kv"], axis=-2, mode="circular", name="kv_write24"),
            n("Attention", ["q", "kv", "kv", "", "", "", "lens"], ["att"], name="attention24"),
        ]
        inits = [i64("ax_1", 1), i64("lens", [16, 11])]  # each row's valid cache length (the oracle feeds zeros)
        inputs = [x, h.make_tensor_value_info("cache", T.FLOAT, ["batch", 2, 16, 32]),
                  h.make_tensor_value_info("upd", T.FLOAT, ["batch", 2, 3, 32]),
                  h.make_tensor_value_info("wi", T.INT64, ["batch"]),
                  h.make_tensor_value_info("q", T.FLOAT, ["batch", 2, 3, 32])]
        outs = [h.make_tensor_value_info("bits", T.INT32, None), h.make_tensor_value_info("half_bits", T.INT16, None),
                h.make_tensor_value_info("kv", T.FLOAT, None), h.make_tensor_value_info("att", T.FLOAT, None)]
        g = h.make_graph(nodes, "opset26_ops", inputs, outs, inits)
        return h.make_model(g, opset_imports=[h.make_opsetid("", 26)], ir_version=13)
    else:
        nodes = [
            n("GroupNormalization", ["x", "gn_s21", "gn_b21"], ["gn21"], num_groups=4, name="group_norm21"),
            n("Pad", ["x", "pads2", "", "pad_axes"], ["padded21"], mode="reflect", name="pad21"),
            n("Reshape", ["padded21", "rs_shape"], ["reshaped"], name="reshape21"),
            n("Split", ["reshaped"], ["s0", "s1"], axis=1, num_outputs=2, name="split21"),
            n("ReduceSum", ["s0", "ax_neg1"], ["rs21"], keepdims=1, name="reduce_sum21"),
            n("Cast", ["rs21"], ["cast21"], to=T.FLOAT16, name="cast21"),
            n("Cast", ["cast21"], ["out21"], to=T.FLOAT, name="cast21_back"),
        ]
        inits = common + [f32("gn_s21", 8), f32("gn_b21", 8), i64("rs_shape", [0, -1, 22])]
        inputs = [x]
    outs = [h.make_tensor_value_info(nodes[-1].output[0], T.FLOAT, None)]
    g = h.make_graph(nodes, f"opset{opset}_ops", inputs, outs, inits)
    return h.make_model(g, opset_imports=[h.make_opsetid("", opset)], ir_version=10 if opset >= 21 else 9)


def tv(name, **kw):
    import torchvision.models as m
    return lambda: getattr(m, name)(**kw)


def video(name):
    import torchvision.models.video as v
    return lambda: getattr(v, name)()


def raft_small():
    from torchvision.models.optical_flow import raft_small as build
    return build(weights=None)


def deeplab():
    import torchvision.models.segmentation as s
    return s.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, aux_loss=False)


IMG = [("x", (1, 3, 224, 224), torch.float32)]
# name -> (builder, [(input, shape, dtype)], dynamic axes per input, how): how is "script"
# (torch.jit.script first), "fused" (exported with weights, then ONNX Runtime's optimizer rewrites it:
# needs node and ORT_NODE_PATH), "helper" (the builder returns a ModelProto) or "" (traced, no weights)
MODELS = {
    "swin_t": (tv("swin_t"), IMG, {"x": {0: "batch"}}, ""),
    "maxvit_t": (tv("maxvit_t"), IMG, {"x": {0: "batch"}}, ""),
    "convnext_tiny": (tv("convnext_tiny"), IMG, {"x": {0: "batch"}}, ""),
    "vit_b_16": (tv("vit_b_16"), IMG, {"x": {0: "batch"}}, ""),
    "efficientnet_v2_s": (tv("efficientnet_v2_s"), IMG, {"x": {0: "batch"}}, ""),
    "regnet_y_400mf": (tv("regnet_y_400mf"), IMG, {"x": {0: "batch"}}, ""),
    "mobilenet_v3_small": (tv("mobilenet_v3_small"), IMG, {"x": {0: "batch"}}, ""),
    "deeplabv3_mobilenet": (deeplab, [("x", (1, 3, 256, 256), torch.float32)], {"x": {0: "batch"}}, ""),
    # Video (3-D convolutions and pooling) and optical flow (RAFT: a correlation volume, grid sampling, its
    # twelve refinement iterations traced flat).
    "r3d_18": (video("r3d_18"), [("x", (1, 3, 8, 112, 112), torch.float32)], {"x": {0: "batch"}}, ""),
    "raft_small": (raft_small, [("a", (1, 3, 128, 128), torch.float32), ("b", (1, 3, 128, 128), torch.float32)], {}, ""),
    "scripted_loop_if": (ScriptedLoopIf, [("x", (3, 64), torch.float32)], {"x": {0: "rows"}}, "script"),
    "scripted_lists": (ScriptedLists, [("x", (2, 8, 16), torch.float32)], {"x": {0: "batch"}}, "script"),
    "sequence_ops": (sequence_ops, [("a", (4, 6), torch.float32), ("b", (4, 6), torch.float32),
                                    ("c", (4, 6), torch.float32), ("d", (4, 6), torch.float32),
                                    ("x", (2, 8, 3), torch.float32)], {}, "helper"),
    "decoder_step": (DecoderStep, [("ids", (1, 1), torch.int64), ("past_k", (1, 4, 7, 64), torch.float32),
                                   ("past_v", (1, 4, 7, 64), torch.float32)],
                     {"ids": {0: "batch"}, "past_k": {0: "batch", 2: "past"}, "past_v": {0: "batch", 2: "past"}},
                     ""),
    "encoder_ort_fused": (TinyEncoder, [("ids", (1, 16), torch.int64)], {"ids": {0: "batch", 1: "seq"}}, "fused"),
    "mobilenet_v3_ort_fused": (tv("mobilenet_v3_small"), IMG, {"x": {0: "batch"}}, "fused"),
    "opset18_ops": (lambda: newer_opset_ops(18), [("x", (2, 8, 12, 16), torch.float32), ("cols", (1, 12, 16), torch.float32)],
                    {}, "helper"),
    "opset20_ops": (lambda: newer_opset_ops(20), [("x", (2, 8, 12, 16), torch.float32), ("theta", (2, 2, 3), torch.float32),
                                                  ("sig", (2, 50, 1), torch.float32)], {}, "helper"),
    "opset21_ops": (lambda: newer_opset_ops(21), [("x", (2, 8, 12, 16), torch.float32)], {}, "helper"),
    "opset23_ops": (lambda: newer_opset_ops(23), [("x", (2, 8, 12, 16), torch.float32), ("pos", (2, 8), torch.int64),
                                                  ("kv", (2, 8, 64), torch.float32),
                                                  ("past", (2, 1, 5, 64), torch.float32)], {}, "helper"),
    "opset26_ops": (lambda: newer_opset_ops(26), [("x", (2, 8, 12, 16), torch.float32),
                                                  ("cache", (2, 2, 16, 32), torch.float32),
                                                  ("upd", (2, 2, 3, 32), torch.float32), ("wi", (2,), torch.int64),
                                                  ("q", (2, 2, 3, 32), torch.float32)],
                    {}, "helper"),
    "contrib_ops": (contrib_ops, [("x", (2, 5, 64), torch.float32), ("past", (2, 2, 4, 3, 16), torch.float32),
                                  ("img", (2, 3, 32, 32), torch.float32)], {}, "helper"),
    # batch 1: ONNX Runtime's GroupQueryAttention takes a prompt over a past (sequence > 1) only at batch 1
    "llm_contrib_ops": (llm_contrib_ops, [("x", (1, 3, 64), torch.float32), ("past_key", (1, 2, 5, 16), torch.float32),
                                          ("past_value", (1, 2, 5, 16), torch.float32), ("pos", (1, 3), torch.int64),
                                          ("mha_past_k", (1, 4, 5, 16), torch.float32),
                                          ("mha_past_v", (1, 4, 5, 16), torch.float32)], {}, "helper"),
    "misc_ops": (misc_ops, [("x", (2, 4, 8, 8), torch.float32), ("off", (2, 18, 8, 8), torch.float32),
                            ("prob", (2, 5), torch.float32), ("ia", (2, 5), torch.int32), ("ib", (5,), torch.int32),
                            ("sig", (2, 400, 1), torch.float32), ("logits", (2, 10), torch.float32),
                            ("labels", (2,), torch.int64), ("mats", (3, 4, 4), torch.float32)], {}, "helper"),
    "quantized_ops": (quantized_ops, [("x", (2, 3, 32, 32), torch.float32), ("h", (2, 7, 32), torch.float32)], {},
                      "helper"),
}


def example(shape, dtype):
    if dtype == torch.int64:
        return torch.zeros(shape, dtype=dtype)
    return torch.randn(shape)


def export(name, out):
    import onnx
    build, ins, dyn, how = MODELS[name]
    torch.manual_seed(0)
    path = os.path.join(out, name + ".onnx")
    if how == "helper":
        onnx.save(build(), path)
    else:
        model = build().eval()
        inputs = tuple(example(s, d) for _, s, d in ins)
        if how == "script":
            model = torch.jit.script(model)
        with torch.no_grad():
            outs = model(*inputs)
        n_out = len(outs) if isinstance(outs, tuple) else 1
        out_names = [f"out{i}" for i in range(n_out)]
        raw = path + ".raw" if how == "fused" else path
        with torch.enable_grad():  # torch 1.13 traces TransformerEncoder only outside its no-grad fast path
            torch.onnx.export(model, inputs, raw, export_params=how == "fused", opset_version=17,
                              input_names=[n for n, _, _ in ins], output_names=out_names, dynamic_axes=dyn,
                              do_constant_folding=how == "fused")
        if how == "fused":
            js = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "cli", "oracle", "ort_optimize.js")
            env = dict(os.environ, NODE_PATH=os.environ["ORT_NODE_PATH"])
            subprocess.run(["node", js, raw, path], check=True, env=env)
            os.remove(raw)
    m = onnx.load(path)
    with open(os.path.join(out, name + ".inputs"), "w") as f:
        for n, s, _ in ins:
            f.write(f"{n}={','.join(map(str, s))}\n")
    # Every graph input (data at the shapes above, weights at their exported shapes) for ONNX Runtime.
    # NAME.b2.*: the same at batch 2 where dim 0 is the symbolic "batch", so a symbolic batch is checked too.
    inits = {t.name for t in m.graph.initializer}
    for suffix, batch in (("", None), (".b2", 2)):
        given = {n: list(s) for n, s, _ in ins}
        if batch:
            if not any(dyn.get(n, {}).get(0) == "batch" for n, _, _ in ins):
                continue
            for n, _, _ in ins:
                if dyn.get(n, {}).get(0) == "batch":
                    given[n][0] = batch
            with open(os.path.join(out, name + suffix + ".inputs"), "w") as f:
                for n, s in given.items():
                    f.write(f"{n}={','.join(map(str, s))}\n")
        feeds = []
        for vi in m.graph.input:
            if vi.name in inits:
                continue
            t = vi.type.tensor_type
            shape = given.get(vi.name, [d.dim_value for d in t.shape.dim])
            feeds.append({"name": vi.name, "elem_type": t.elem_type, "shape": shape})
        with open(os.path.join(out, name + suffix + ".feeds.json"), "w") as f:
            json.dump(feeds, f)
    seen = {o.name for o in m.graph.output}
    # Sequences and optionals are not tensors ONNX Runtime's Node.js binding returns: only tensor outputs are compared.
    typed = onnx.shape_inference.infer_shapes(m)
    seen |= {v.name for v in list(typed.graph.value_info) + list(typed.graph.output)
             if v.type.HasField("sequence_type") or v.type.HasField("optional_type")}
    for node in m.graph.node:
        for o in node.output:
            if o and o not in seen:
                seen.add(o)
                m.graph.output.append(onnx.ValueInfoProto(name=o))
    onnx.save(m, os.path.join(out, name + ".all.onnx"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print("\n".join(MODELS))
        return 0
    names = [n for n in a.only.split(",") if n] or list(MODELS)
    for n in names:
        if n not in MODELS:
            print(f"export_oracle_models: unknown model '{n}'; known: {', '.join(MODELS)}", file=sys.stderr)
            return 2
    os.makedirs(a.out, exist_ok=True)
    torch.set_num_threads(1)
    for n in names:
        if not os.path.exists(os.path.join(a.out, n + ".all.onnx")):
            export(n, a.out)
            print(f"export_oracle_models: {n}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
