#!/usr/bin/python3
"""Export the perfpred model zoo as parameter-free ONNX graphs.

Every model is exported with export_params=False (weights are graph inputs without data, so the files
stay small), a symbolic batch dimension named "batch" on dim 0 of every graph input and output, and
gradients enabled (torch 1.13 refuses to trace TransformerEncoder / ViT through their no-grad fast paths).

    /usr/bin/python3 tools/export_zoo.py --out models/zoo [--only NAME[,NAME...]] [--list]

The output is deterministic: every model is built after torch.manual_seed(0) and the exporter writes
no timestamps.
"""
import argparse
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 0


class LeNet5(nn.Module):
    """Classic LeNet-5 (LeCun et al. 1998) on a 1x32x32 image: C1-S2-C3-S4-C5(FC)-F6-output."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, kernel_size=5)
        self.conv2 = nn.Conv2d(6, 16, kernel_size=5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, num_classes)

    def forward(self, x):
        x = F.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = F.max_pool2d(torch.relu(self.conv2(x)), 2)
        x = x.view(x.size(0), -1)
        x = torch.relu(self.fc1(x))
        x = torch.relu(self.fc2(x))
        return self.fc3(x)


class BertBaseLike(nn.Module):
    """BERT-base-shaped encoder: token + learned position embeddings, LayerNorm, 12 post-norm
    nn.TransformerEncoder layers (d=768, 12 heads, ff 3072, GELU), no pooler/heads."""

    def __init__(self, vocab=30522, seq=128, d_model=768, heads=12, ff=3072, layers=12):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(seq, d_model)
        self.norm = nn.LayerNorm(d_model, eps=1e-12)
        layer = nn.TransformerEncoderLayer(d_model, heads, ff, dropout=0.1, activation="gelu",
                                           batch_first=True, norm_first=False)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)

    def forward(self, input_ids):
        positions = torch.arange(input_ids.size(1), device=input_ids.device).unsqueeze(0)
        x = self.norm(self.tok(input_ids) + self.pos(positions))
        return self.encoder(x)


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.qkv(x).split(c, dim=2)
        hd = c // self.heads
        q = q.view(b, t, self.heads, hd).transpose(1, 2)
        k = k.view(b, t, self.heads, hd).transpose(1, 2)
        v = v.view(b, t, self.heads, hd).transpose(1, 2)
        att = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        # causal mask built in the graph: Trilu + Equal + Where after export
        ones = torch.ones(t, t, device=x.device)
        future = torch.triu(ones, diagonal=1)
        att = att.masked_fill(future == 1, float("-inf"))
        att = torch.softmax(att, dim=-1)
        y = torch.matmul(att, v).transpose(1, 2).contiguous().view(b, t, c)
        return self.proj(y)


class GPT2Block(nn.Module):
    def __init__(self, d_model, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.fc = nn.Linear(d_model, 4 * d_model)
        self.proj = nn.Linear(4 * d_model, d_model)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        x = x + self.proj(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))
        return x


class GPT2SmallLike(nn.Module):
    """GPT-2 small shape: 12 pre-norm decoder blocks, d=768, 12 heads, seq 128, vocab 50257,
    LM head tied to the token embedding (as GPT-2)."""

    def __init__(self, vocab=50257, seq=128, d_model=768, heads=12, layers=12):
        super().__init__()
        self.wte = nn.Embedding(vocab, d_model)
        self.wpe = nn.Embedding(seq, d_model)
        self.blocks = nn.ModuleList([GPT2Block(d_model, heads) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, input_ids):
        positions = torch.arange(input_ids.size(1), device=input_ids.device).unsqueeze(0)
        x = self.wte(input_ids) + self.wpe(positions)
        for blk in self.blocks:
            x = blk(x)
        return self.lm_head(self.ln_f(x))


class LstmModel(nn.Module):
    """Word-level LSTM language model: embedding 10000x256 -> 2-layer LSTM hidden 512 -> linear
    to the 10000-word vocabulary at every step."""

    def __init__(self, vocab=10000, emb=256, hidden=512, layers=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, num_layers=layers, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, input_ids):
        y, _ = self.lstm(self.emb(input_ids))
        return self.out(y)


def _tv(name, **kw):
    import torchvision.models as tvm
    return lambda: getattr(tvm, name)(weights=None, **kw)


# name -> (builder, [(input name, shape, dtype)], opset, published reference)
ZOO = {
    "lenet5": (LeNet5, [("input", (1, 1, 32, 32), torch.float32)], 13,
               "LeCun et al. 1998: ~0.06 M params, ~0.42 M multiply-adds"),
    "alexnet": (_tv("alexnet"), [("input", (1, 3, 224, 224), torch.float32)], 13,
                "torchvision: 61.1 M params, 0.71 GFLOPS"),
    "vgg16": (_tv("vgg16"), [("input", (1, 3, 224, 224), torch.float32)], 13,
              "torchvision: 138.4 M params, 15.47 GFLOPS"),
    "resnet18": (_tv("resnet18"), [("input", (1, 3, 224, 224), torch.float32)], 13,
                 "torchvision: 11.7 M params, 1.81 GFLOPS"),
    "resnet50": (_tv("resnet50"), [("input", (1, 3, 224, 224), torch.float32)], 13,
                 "torchvision: 25.6 M params, 4.09 GFLOPS"),
    "mobilenet_v2": (_tv("mobilenet_v2"), [("input", (1, 3, 224, 224), torch.float32)], 13,
                     "torchvision: 3.5 M params, 0.30 GFLOPS"),
    "googlenet": (_tv("googlenet", aux_logits=False, init_weights=False),
                  [("input", (1, 3, 224, 224), torch.float32)], 13,
                  "torchvision: 6.6 M params, 1.50 GFLOPS"),
    "densenet121": (_tv("densenet121"), [("input", (1, 3, 224, 224), torch.float32)], 13,
                    "torchvision: 8.0 M params, 2.83 GFLOPS"),
    "squeezenet1_0": (_tv("squeezenet1_0"), [("input", (1, 3, 224, 224), torch.float32)], 13,
                      "torchvision: 1.2 M params, 0.82 GFLOPS"),
    "efficientnet_b0": (_tv("efficientnet_b0"), [("input", (1, 3, 224, 224), torch.float32)], 13,
                        "torchvision: 5.3 M params, 0.39 GFLOPS"),
    "vit_b_16": (_tv("vit_b_16"), [("input", (1, 3, 224, 224), torch.float32)], 14,
                 "torchvision: 86.6 M params, 17.56 GFLOPS"),
    "bert_base_like": (BertBaseLike, [("input_ids", (1, 128), torch.int64)], 13,
                       "BERT-base: 110 M params (with pooler); ~11.2 G multiply-adds at seq 128"),
    "gpt2_small_like": (GPT2SmallLike, [("input_ids", (1, 128), torch.int64)], 14,
                        "GPT-2 small: 124 M params (tied LM head); ~11.2 G multiply-adds in the "
                        "blocks + 4.9 G in the LM head at seq 128"),
    "lstm_model": (LstmModel, [("input_ids", (1, 64), torch.int64)], 13,
                   "no published reference; ~0.56 G multiply-adds per sample (LSTM 0.24 G + head 0.33 G)"),
}


def make_distinct(model):
    """Perturb every float parameter and buffer by a small positive random amount.

    The exporter merges graph inputs whose tensors hold equal values (its initializer de-duplication
    runs even with export_params=False): identically initialised layers (the deep copies inside
    nn.TransformerEncoder, every BatchNorm's ones/zeros) would collapse into one weight input and the
    graph would under-count parameters. Tensors that are the same object (tied weights) stay tied."""
    g = torch.Generator().manual_seed(SEED + 1)
    seen = set()
    with torch.no_grad():
        for t in list(model.parameters()) + list(model.buffers()):
            if id(t) in seen or not t.is_floating_point():
                continue
            seen.add(id(t))
            t.add_(torch.rand(t.shape, generator=g, dtype=t.dtype) * 1e-3)


def build(name):
    torch.manual_seed(SEED)
    model = ZOO[name][0]()
    model.eval()
    make_distinct(model)
    return model


def example_inputs(name):
    g = torch.Generator().manual_seed(SEED)
    out = []
    for _, shape, dtype in ZOO[name][1]:
        if dtype == torch.int64:
            out.append(torch.randint(0, 1000, shape, generator=g, dtype=torch.int64))
        else:
            out.append(torch.randn(shape, generator=g, dtype=dtype))
    return tuple(out)


def export(name, path):
    """Export one zoo model; returns (seconds, params, file bytes)."""
    t0 = time.time()
    model = build(name)
    inputs = example_inputs(name)
    in_names = [n for n, _, _ in ZOO[name][1]]
    dyn = {n: {0: "batch"} for n in in_names}
    dyn["output"] = {0: "batch"}
    with torch.enable_grad():
        torch.onnx.export(model, inputs, path, export_params=False, opset_version=ZOO[name][2],
                          input_names=in_names, output_names=["output"], dynamic_axes=dyn,
                          do_constant_folding=False,
                          # PRESERVE on an eval() model: inference semantics, but BatchNorm stays a
                          # node (EVAL would fold it into the preceding Conv, which PyTorch eager
                          # does not do; the predictor's runtime profile decides fusion)
                          training=torch.onnx.TrainingMode.PRESERVE)
    with torch.no_grad():
        outputs = model(*inputs)
    finalize(path, in_names, [tuple(outputs.shape)])
    params = sum(p.numel() for p in model.parameters())
    return time.time() - t0, params, os.path.getsize(path)


def finalize(path, data_inputs, output_shapes):
    """Pin output dims the tracer left symbolic (e.g. "Addoutput_dim_1") to the traced size, keep
    "batch" symbolic, and record which graph inputs are data (the rest are parameters, since
    export_params=False turns every weight into a graph input without data)."""
    import onnx
    m = onnx.load(path)
    for out, shape in zip(m.graph.output, output_shapes):
        dims = out.type.tensor_type.shape.dim
        for i, d in enumerate(dims):
            if i == 0:
                d.dim_param = "batch"
            elif d.dim_param:
                d.dim_value = shape[i]
    del m.metadata_props[:]
    for k, v in (("perfpred.data_inputs", ",".join(data_inputs)), ("perfpred.export_params", "0")):
        e = m.metadata_props.add()
        e.key, e.value = k, v
    onnx.checker.check_model(m)
    onnx.save(m, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="models/zoo", help="output folder (default models/zoo)")
    ap.add_argument("--only", default="", help="comma-separated model names (default: all)")
    ap.add_argument("--list", action="store_true", help="print the zoo and exit")
    args = ap.parse_args(argv)
    if args.list:
        for n, (_, ins, opset, ref) in ZOO.items():
            print(f"{n}\topset {opset}\t" + ";".join(f"{i}={'x'.join(map(str, s))}" for i, s, _ in ins)
                  + f"\t{ref}")
        return 0
    names = [n for n in args.only.split(",") if n] or list(ZOO)
    unknown = [n for n in names if n not in ZOO]
    if unknown:
        print(f"export_zoo: unknown model {unknown[0]!r} in --only; known: {', '.join(ZOO)}",
              file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    for n in names:
        path = os.path.join(args.out, n + ".onnx")
        secs, params, size = export(n, path)
        print(f"{n}: {path} {size} bytes, {params} params, {secs:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
