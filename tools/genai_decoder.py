#!/usr/bin/env python3
"""Write a decoder-only LLM as ONNX Runtime GenAI's model builder exports one, without its weights: RMSNorm
(SimplifiedLayerNormalization), MatMulNBits projections with `--bits`-bit block-quantised weights,
GroupQueryAttention with a KV cache and rotary embedding, SkipSimplifiedLayerNormalization, a SiLU-gated MLP
and a MatMulNBits LM head. Every weight is an external-data initializer whose file is never written: perfpred
reads only weight dims and dtypes, so `perfpred predict` prices a 70B-parameter model from a 100 KB graph.

The inputs are the token embeddings `x` [1, seq, hidden] (fp16) and each layer's `past_key_I` / `past_value_I`
[1, kv_heads, past, head_size]; `--dim seq=1 --dim past=1023` prices one decode step after 1,023 tokens,
`--dim seq=512 --dim past=1` a 512-token prompt over a 1-token past. The defaults are Llama-3-8B's shape.

  /usr/bin/python3 tools/genai_decoder.py --out llama3-8b-int4.onnx
  perfpred predict llama3-8b-int4.onnx --gpu rtx-4090 --runtime onnxruntime --precision fp16 \\
      --dim seq=1 --dim past=1023 --no-copies
"""
import argparse
import sys

import onnx
from onnx import TensorProto as T, helper as h

MS = "com.microsoft"


class Builder:
    def __init__(self, bits, block):
        self.bits, self.block = bits, block
        self.nodes, self.inits = [], []

    def external(self, name, dtype, dims):
        t = onnx.TensorProto()
        t.name, t.data_type = name, dtype
        t.dims.extend(dims)
        t.data_location = T.EXTERNAL
        e = t.external_data.add()
        e.key, e.value = "location", "weights.bin"
        self.inits.append(t)
        return name

    def matmul_nbits(self, name, x, k, n):
        """x [..., k] times n x k weights in `bits`-bit blocks (packed B, one fp16 scale a block)."""
        blocks = (k + self.block - 1) // self.block
        b = self.external(name + ".qweight", T.UINT8, [n, blocks, self.block * self.bits // 8])
        s = self.external(name + ".scales", T.FLOAT16, [n * blocks])
        self.nodes.append(h.make_node("MatMulNBits", [x, b, s], [name + ".out"], domain=MS, K=k, N=n, bits=self.bits,
                                      block_size=self.block, name=name))
        return name + ".out"

    def node(self, op, ins, outs, name, domain="", **attrs):
        self.nodes.append(h.make_node(op, ins, outs, name=name, domain=domain, **attrs))
        return outs[0]


def build(a):
    if a.hidden % a.heads or a.heads % a.kv_heads:
        raise SystemExit("genai_decoder: --hidden must divide by --heads and --heads by --kv-heads")
    if a.bits not in (2, 4, 8) or a.block < 16 or a.block & (a.block - 1):
        raise SystemExit("genai_decoder: --bits must be 2, 4 or 8 and --block-size a power of two >= 16")
    hd = a.hidden // a.heads
    bld = Builder(a.bits, a.block)
    const = [h.make_tensor("one", T.INT64, [], [1]), h.make_tensor("two", T.INT64, [], [2]),
             h.make_tensor("zero1", T.INT64, [1], [0]), h.make_tensor("one1", T.INT64, [1], [1])]
    bld.inits += const
    cos = bld.external("cos_cache", T.FLOAT16, [a.max_length, hd // 2])
    sin = bld.external("sin_cache", T.FLOAT16, [a.max_length, hd // 2])
    # The total length and each sequence's last index, from the shapes (the builder takes them from the mask).
    for op, ins, outs, attrs in [("Shape", ["x"], ["x_shape"], {}), ("Shape", ["past_key_0"], ["past_shape"], {}),
                                 ("Gather", ["x_shape", "one"], ["seq_len"], {"axis": 0}),
                                 ("Gather", ["past_shape", "two"], ["past_len"], {"axis": 0}),
                                 ("Add", ["seq_len", "past_len"], ["total_len"], {}),
                                 ("Cast", ["total_len"], ["total_sequence_length"], {"to": T.INT32}),
                                 ("Sub", ["total_len", "one"], ["last"], {}),
                                 ("Slice", ["x_shape", "zero1", "one1"], ["batch"], {}),
                                 ("Expand", ["last", "batch"], ["last_b"], {}),
                                 ("Cast", ["last_b"], ["seqlens_k"], {"to": T.INT32})]:
        bld.node(op, ins, outs, outs[0], **attrs)
    inputs = [h.make_tensor_value_info("x", T.FLOAT16, [1, "seq", a.hidden])]
    outputs = []
    cur = "x"
    for i in range(a.layers):
        p = f"layers.{i}."
        inputs += [h.make_tensor_value_info(f"past_key_{i}", T.FLOAT16, [1, a.kv_heads, "past", hd]),
                   h.make_tensor_value_info(f"past_value_{i}", T.FLOAT16, [1, a.kv_heads, "past", hd])]
        outputs += [h.make_tensor_value_info(f"present_key_{i}", T.FLOAT16, None),
                    h.make_tensor_value_info(f"present_value_{i}", T.FLOAT16, None)]
        n1 = bld.node("SimplifiedLayerNormalization", [cur, bld.external(p + "input_layernorm", T.FLOAT16, [a.hidden])],
                      [p + "input_layernorm.out"], p + "input_layernorm", axis=-1, epsilon=1e-5)
        q = bld.matmul_nbits(p + "attn.q_proj", n1, a.hidden, a.hidden)
        k = bld.matmul_nbits(p + "attn.k_proj", n1, a.hidden, a.kv_heads * hd)
        v = bld.matmul_nbits(p + "attn.v_proj", n1, a.hidden, a.kv_heads * hd)
        att = bld.node("GroupQueryAttention", [q, k, v, f"past_key_{i}", f"past_value_{i}", "seqlens_k",
                                               "total_sequence_length", cos, sin],
                       [p + "attn.out", f"present_key_{i}", f"present_value_{i}"], p + "attn", domain=MS,
                       num_heads=a.heads, kv_num_heads=a.kv_heads, do_rotary=1)
        o = bld.matmul_nbits(p + "attn.o_proj", att, a.hidden, a.hidden)
        n2 = bld.node("SkipSimplifiedLayerNormalization",
                      [o, cur, bld.external(p + "post_attention_layernorm", T.FLOAT16, [a.hidden])],
                      [p + "post_attention_layernorm.out", "", "", p + "residual"], p + "post_attention_layernorm",
                      domain=MS, epsilon=1e-5)
        gate = bld.matmul_nbits(p + "mlp.gate_proj", n2, a.hidden, a.ffn)
        up = bld.matmul_nbits(p + "mlp.up_proj", n2, a.hidden, a.ffn)
        sg = bld.node("Sigmoid", [gate], [p + "mlp.sigmoid"], p + "mlp.sigmoid")
        silu = bld.node("Mul", [gate, sg], [p + "mlp.silu"], p + "mlp.silu")
        act = bld.node("Mul", [silu, up], [p + "mlp.act"], p + "mlp.act")
        down = bld.matmul_nbits(p + "mlp.down_proj", act, a.ffn, a.hidden)
        cur = bld.node("Add", [down, p + "residual"], [p + "out"], p + "residual_add")
    fn = bld.node("SimplifiedLayerNormalization", [cur, bld.external("norm", T.FLOAT16, [a.hidden])], ["norm.out"],
                  "norm", axis=-1, epsilon=1e-5)
    logits = bld.matmul_nbits("lm_head", fn, a.hidden, a.vocab)
    outputs.insert(0, h.make_tensor_value_info(logits, T.FLOAT16, None))
    g = h.make_graph(bld.nodes, a.name, inputs, outputs, bld.inits)
    return h.make_model(g, opset_imports=[h.make_opsetid("", 17), h.make_opsetid(MS, 1)], ir_version=8,
                        producer_name="perfpred genai_decoder")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="the .onnx file to write")
    ap.add_argument("--name", default="decoder")
    ap.add_argument("--layers", type=int, default=32)
    ap.add_argument("--hidden", type=int, default=4096)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--kv-heads", type=int, default=8)
    ap.add_argument("--ffn", type=int, default=14336, help="the MLP's inner width")
    ap.add_argument("--vocab", type=int, default=128256)
    ap.add_argument("--bits", type=int, default=4, help="weight bits of the MatMulNBits projections (2, 4 or 8)")
    ap.add_argument("--block-size", dest="block", type=int, default=32)
    ap.add_argument("--max-length", dest="max_length", type=int, default=8192, help="rows of the rotary caches")
    a = ap.parse_args(argv)
    for key in ("layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "max_length"):
        if getattr(a, key) < 1:
            raise SystemExit(f"genai_decoder: --{key.replace('_', '-')} must be >= 1")
    onnx.save(build(a), a.out)
    print(f"genai_decoder: wrote {a.out} ({a.layers} layers, hidden {a.hidden}, {a.heads} heads over {a.kv_heads} "
          f"KV heads, MLP {a.ffn}, vocabulary {a.vocab}, {a.bits}-bit weights)", file=sys.stderr)


if __name__ == "__main__":
    main()
