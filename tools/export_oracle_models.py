#!/usr/bin/python3
"""Export real-world architectures as parameter-free ONNX files for the ONNX Runtime shape oracle test.

    /usr/bin/python3 tools/export_oracle_models.py --out cache/oracle [--only NAME,...] [--list]

For every model two files are written: NAME.onnx (what a user brings: weights as graph inputs
without data, a symbolic "batch" dim on the inputs, and for the decoder a symbolic "past" length) and
NAME.all.onnx, the same graph with every node output added as a graph output, so ONNX Runtime reports
the shape of each (tests/cli/ort_shapes.js). NAME.inputs lists the shapes the test runs both tools at
(one `name=d0,d1,...` a line). Files already present are kept (delete them to re-export).
"""
import argparse
import json
import os
import sys

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


def tv(name, **kw):
    import torchvision.models as m
    return lambda: getattr(m, name)(**kw)


def deeplab():
    import torchvision.models.segmentation as s
    return s.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, aux_loss=False)


IMG = [("x", (1, 3, 224, 224), torch.float32)]
# name -> (builder, [(input, shape, dtype)], dynamic axes per input, scripted)
MODELS = {
    "swin_t": (tv("swin_t"), IMG, {"x": {0: "batch"}}, False),
    "maxvit_t": (tv("maxvit_t"), IMG, {"x": {0: "batch"}}, False),
    "convnext_tiny": (tv("convnext_tiny"), IMG, {"x": {0: "batch"}}, False),
    "vit_b_16": (tv("vit_b_16"), IMG, {"x": {0: "batch"}}, False),
    "efficientnet_v2_s": (tv("efficientnet_v2_s"), IMG, {"x": {0: "batch"}}, False),
    "regnet_y_400mf": (tv("regnet_y_400mf"), IMG, {"x": {0: "batch"}}, False),
    "mobilenet_v3_small": (tv("mobilenet_v3_small"), IMG, {"x": {0: "batch"}}, False),
    "deeplabv3_mobilenet": (deeplab, [("x", (1, 3, 256, 256), torch.float32)], {"x": {0: "batch"}}, False),
    "scripted_loop_if": (ScriptedLoopIf, [("x", (3, 64), torch.float32)], {"x": {0: "rows"}}, True),
    "decoder_step": (DecoderStep, [("ids", (1, 1), torch.int64), ("past_k", (1, 4, 7, 64), torch.float32),
                                   ("past_v", (1, 4, 7, 64), torch.float32)],
                     {"ids": {0: "batch"}, "past_k": {0: "batch", 2: "past"}, "past_v": {0: "batch", 2: "past"}},
                     False),
}


def example(shape, dtype):
    if dtype == torch.int64:
        return torch.zeros(shape, dtype=dtype)
    return torch.randn(shape)


def export(name, out):
    import onnx
    build, ins, dyn, scripted = MODELS[name]
    torch.manual_seed(0)
    model = build().eval()
    inputs = tuple(example(s, d) for _, s, d in ins)
    path = os.path.join(out, name + ".onnx")
    if scripted:
        model = torch.jit.script(model)
    with torch.no_grad():
        outs = model(*inputs)
    n_out = len(outs) if isinstance(outs, tuple) else 1
    out_names = [f"out{i}" for i in range(n_out)]
    torch.onnx.export(model, inputs, path, export_params=False, opset_version=17,
                      input_names=[n for n, _, _ in ins], output_names=out_names, dynamic_axes=dyn,
                      do_constant_folding=False)
    m = onnx.load(path)
    with open(os.path.join(out, name + ".inputs"), "w") as f:
        for n, s, _ in ins:
            f.write(f"{n}={','.join(map(str, s))}\n")
    # Every graph input (data at the shapes above, weights at their exported shapes) for ONNX Runtime.
    given = {n: list(s) for n, s, _ in ins}
    feeds = []
    for vi in m.graph.input:
        t = vi.type.tensor_type
        shape = given.get(vi.name, [d.dim_value for d in t.shape.dim])
        feeds.append({"name": vi.name, "elem_type": t.elem_type, "shape": shape})
    with open(os.path.join(out, name + ".feeds.json"), "w") as f:
        json.dump(feeds, f)
    seen = {o.name for o in m.graph.output}
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
