"""PyTorch builders for the networks measured in ../shared/datasets, and a fast parameter-free ONNX exporter.

Each builder follows the rebuild recipe in the data set's PROVENANCE.md; the docstrings say which one.
Used by tools/convert_datasets.py; importable on its own for tests.
"""
import ast
import math
import os
import re
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 0

# ---------------------------------------------------------------------------------------------------------------
# NAS-Bench-201 (help-nas-latency/PROVENANCE.md; xautodl TinyNetwork(C=16, N=5) with InferCell)

NB201_OPS = ("none", "skip_connect", "nor_conv_1x1", "nor_conv_3x3", "avg_pool_3x3")


def parse_nb201(arch_str):
    """'|op~0|+|op~0|op~1|+|op~0|op~1|op~2|' -> [[(op, j)], [(op, j), (op, j)], [...x3]]; raises ValueError."""
    nodes = []
    for part in arch_str.split("+"):
        part = part.strip("|")
        edges = []
        for tok in part.split("|"):
            m = re.fullmatch(r"([a-z_0-9]+)~(\d+)", tok)
            if not m or m.group(1) not in NB201_OPS:
                raise ValueError(f"bad NAS-Bench-201 edge {tok!r} in {arch_str!r}")
            edges.append((m.group(1), int(m.group(2))))
        nodes.append(edges)
    if [len(n) for n in nodes] != [1, 2, 3] or any(j > i for i, n in enumerate(nodes) for _, j in n):
        raise ValueError(f"bad NAS-Bench-201 arch string {arch_str!r} (want 3 nodes with 1, 2, 3 edges)")
    return nodes


class ReLUConvBN(nn.Sequential):
    def __init__(self, c_in, c_out, k, stride, pad):
        super().__init__(nn.ReLU(inplace=False), nn.Conv2d(c_in, c_out, k, stride, pad, bias=False),
                         nn.BatchNorm2d(c_out))


class Zero(nn.Module):
    """NATS-Bench's `none` op inside a cell (stride 1, C_in == C_out): `x.mul(0.)`, a real kernel in eager mode."""

    def forward(self, x):
        return x.mul(0.0)


class NB201Cell(nn.Module):
    """NATS-Bench's InferCell: node i = sum(op(node j) for its edges), with Python's `sum()` starting from 0 (one
    extra full-tensor add per node) and `none` edges kept as `x.mul(0.)`: the ops the measured eager model ran."""

    def __init__(self, nodes, c):
        super().__init__()
        self.edges = []
        self.layers = nn.ModuleList()
        for i, node in enumerate(nodes):
            for op, j in node:
                if op == "none":
                    layer = Zero()
                elif op == "skip_connect":
                    layer = nn.Identity()
                elif op == "nor_conv_1x1":
                    layer = ReLUConvBN(c, c, 1, 1, 0)
                elif op == "nor_conv_3x3":
                    layer = ReLUConvBN(c, c, 3, 1, 1)
                else:
                    layer = nn.AvgPool2d(3, stride=1, padding=1, count_include_pad=False)
                self.edges.append((i + 1, j, len(self.layers)))
                self.layers.append(layer)

    def forward(self, x):
        values = [x]
        for i in range(1, 4):
            values.append(sum(self.layers[li](values[j]) for (node, j, li) in self.edges if node == i))
        return values[3]


class ResNetBasicBlock(nn.Module):
    """xautodl ResNetBasicblock(stride 2): ReLU-Conv3x3-BN x2, shortcut AvgPool2x2 + Conv1x1."""

    def __init__(self, c_in, c_out):
        super().__init__()
        self.conv_a = ReLUConvBN(c_in, c_out, 3, 2, 1)
        self.conv_b = ReLUConvBN(c_out, c_out, 3, 1, 1)
        self.downsample = nn.Sequential(nn.AvgPool2d(kernel_size=2, stride=2, padding=0),
                                        nn.Conv2d(c_in, c_out, 1, 1, 0, bias=False))

    def forward(self, x):
        return self.downsample(x) + self.conv_b(self.conv_a(x))


class NB201Net(nn.Module):
    def __init__(self, arch_str, c=16, n=5, num_classes=10):
        super().__init__()
        nodes = parse_nb201(arch_str)
        self.stem = nn.Sequential(nn.Conv2d(3, c, 3, padding=1, bias=False), nn.BatchNorm2d(c))
        cells = []
        c_prev = c
        for stage, cs in enumerate((c, 2 * c, 4 * c)):
            if stage > 0:
                cells.append(ResNetBasicBlock(c_prev, cs))
            for _ in range(n):
                cells.append(NB201Cell(nodes, cs))
            c_prev = cs
        self.cells = nn.Sequential(*cells)
        self.lastact = nn.Sequential(nn.BatchNorm2d(c_prev), nn.ReLU(inplace=False))
        self.global_pooling = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(c_prev, num_classes)

    def forward(self, x):
        x = self.lastact(self.cells(self.stem(x)))
        x = self.global_pooling(x).flatten(1)
        return self.classifier(x)


# ---------------------------------------------------------------------------------------------------------------
# FBNet (help-nas-latency/PROVENANCE.md; HW-NAS-Bench fbnet_models, CIFAR-100 setting)

FBNET_OPS = ("k3_e1", "k3_e1_g2", "k3_e3", "k3_e6", "k5_e1", "k5_e1_g2", "k5_e3", "k5_e6", "skip")
FBNET_STAGES = (1, 4, 4, 4, 4, 4, 1)
FBNET_CHANNELS = (16, 24, 32, 64, 112, 184, 352)
FBNET_STRIDES = (1, 1, 2, 2, 1, 2, 1)


def parse_fbnet(op_idx_list):
    idx = [int(t) for t in str(op_idx_list).split()]
    if len(idx) != 22 or any(i < 0 or i >= len(FBNET_OPS) for i in idx):
        raise ValueError(f"bad FBNet op_idx_list {op_idx_list!r} (want 22 integers 0..8)")
    return [FBNET_OPS[i] for i in idx]


class ChannelShuffle(nn.Module):
    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, x):
        b, c, h, w = x.size()
        return x.view(b, self.groups, c // self.groups, h, w).transpose(1, 2).reshape(b, c, h, w)


class FBNetBlock(nn.Module):
    def __init__(self, op, c_in, c_out, stride):
        super().__init__()
        self.residual = c_in == c_out and stride == 1
        if op == "skip":
            self.body = None if self.residual else nn.Sequential(
                nn.Conv2d(c_in, c_out, 1, stride, 0, bias=False), nn.BatchNorm2d(c_out), nn.ReLU())
            return
        m = re.fullmatch(r"k(\d)_e(\d)(?:_g(\d))?", op)
        k, e, g = int(m.group(1)), int(m.group(2)), int(m.group(3) or 1)
        mid = c_in * e
        layers = [nn.Conv2d(c_in, mid, 1, 1, 0, groups=g, bias=False), nn.BatchNorm2d(mid), nn.ReLU()]
        if g > 1:
            layers.append(ChannelShuffle(g))
        layers += [nn.Conv2d(mid, mid, k, stride, k // 2, groups=mid, bias=False), nn.BatchNorm2d(mid), nn.ReLU(),
                   nn.Conv2d(mid, c_out, 1, 1, 0, groups=g, bias=False), nn.BatchNorm2d(c_out)]
        self.body = nn.Sequential(*layers)

    def forward(self, x):
        if self.body is None:
            return x
        y = self.body(x)
        return x + y if self.residual else y


class FBNet(nn.Module):
    def __init__(self, ops, num_classes=100):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        blocks = []
        c_in, i = 16, 0
        for n, c, s in zip(FBNET_STAGES, FBNET_CHANNELS, FBNET_STRIDES):
            for b in range(n):
                blocks.append(FBNetBlock(ops[i], c_in, c, s if b == 0 else 1))
                c_in, i = c, i + 1
        self.blocks = nn.Sequential(*blocks)
        self.header = nn.Sequential(nn.Conv2d(352, 1504, 1, bias=False), nn.BatchNorm2d(1504), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(1504, num_classes)

    def forward(self, x):
        x = self.header(self.blocks(self.stem(x)))
        return self.fc(self.pool(x).flatten(1))


# ---------------------------------------------------------------------------------------------------------------
# iCAS Jetson Nano ConvNets (jetson-nano-trt-energy-icas/PROVENANCE.md, model_generation/*.py with padding quirks)

def parse_icas(name):
    """Returns (input_w, [(kind, k, pad)...], filters); kind 'conv' or 'dws'. Raises ValueError."""
    m = re.fullmatch(r"convnet_L(\d+)_F(\d+)_(.+)_W(\d+)(_DWS)?", name)
    if not m:
        raise ValueError(f"not an iCAS ConvNet name: {name!r}")
    layers, filters, kspec, width, dws = int(m.group(1)), int(m.group(2)), m.group(3), int(m.group(4)), m.group(5)
    single = re.fullmatch(r"K(\d)x\1", kspec)
    mixed = re.fullmatch(r"K(\d)x\1_(\d+)_K(\d)x\3_(\d+)", kspec)
    plan = []
    if single:
        k = int(single.group(1))
        pad = 1 if (k == 3 if dws else k in (1, 3)) else 2
        plan = [("dws" if dws else "conv", k, pad)] * layers
    elif mixed and not dws:
        k1, n1, k2, n2 = int(mixed.group(1)), int(mixed.group(2)), int(mixed.group(3)), int(mixed.group(4))
        if n1 + n2 != layers:
            raise ValueError(f"{name}: kernel counts {n1}+{n2} differ from L{layers}")
        # alternate k1, k2, k1, ... starting with k1; when one kind is used up the other continues
        seq, a, b = [], n1, n2
        while a or b:
            if a and (len(seq) % 2 == 0 or not b):
                seq.append(k1)
                a -= 1
            else:
                seq.append(k2)
                b -= 1
        pad = 2
        for k in seq:
            if k % 2 == 1:
                pad = 1  # becomes 1 permanently at the first odd kernel
            plan.append(("conv", k, pad))
    else:
        raise ValueError(f"{name}: unrecognised kernel spec {kspec!r}")
    return width, plan, filters


class IcasConvNet(nn.Module):
    def __init__(self, name, num_classes=10):
        super().__init__()
        width, plan, filters = parse_icas(name)
        layers, c, w = [], 3, width
        for kind, k, pad in plan:
            if kind == "conv":
                layers += [nn.Conv2d(c, filters, k, 1, pad), nn.ReLU()]
            else:
                layers += [nn.Conv2d(c, c, k, 1, pad, groups=c), nn.Conv2d(c, filters, 1), nn.ReLU()]
            w = w + 2 * pad - k + 1
            if w <= 0:
                raise ValueError(f"{name}: feature map vanishes")
            c = filters
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(c * w * w, num_classes)
        self.input_w = width

    def forward(self, x):
        return self.head(torch.flatten(self.body(x), 1))


def icas_param_count(name):
    """Parameters of the rebuilt ConvNet, computed without building it (for checks against `Total Parameters`)."""
    width, plan, f = parse_icas(name)
    total, c, w = 0, 3, width
    for kind, k, pad in plan:
        if kind == "conv":
            total += c * f * k * k + f
        else:
            total += c * k * k + c + c * f + f
        w = w + 2 * pad - k + 1
        c = f
    return total + c * w * w * 10 + 10


# ---------------------------------------------------------------------------------------------------------------
# GPUMemNet MLPs (gpumemnet-a100-memory/PROVENANCE.md)

_ACTS = {"ReLU": nn.ReLU, "LeakyReLU": nn.LeakyReLU, "PReLU": nn.PReLU, "ELU": nn.ELU, "SELU": nn.SELU,
         "Tanh": nn.Tanh, "Softplus": nn.Softplus, "Mish": nn.Mish, "GELU": nn.GELU, "SiLU": nn.SiLU,
         "Identity": nn.Identity, "Sigmoid": nn.Sigmoid}


def parse_mlp(filename, layer_list):
    m = re.search(r"input:(\d+)_", filename)
    if not m:
        raise ValueError(f"GPUMemNet filename {filename!r} has no input:<n>")
    layers = ast.literal_eval(layer_list)
    return int(m.group(1)), [(str(t), int(o), int(p)) for t, o, p in layers]


class GpuMemNetMLP(nn.Module):
    def __init__(self, in_features, layers):
        super().__init__()
        mods, c = [], in_features
        for kind, out, params in layers:
            if kind == "linear":
                mods.append(nn.Linear(c, out))
                if c * out + out != params:
                    raise ValueError(f"linear {c}->{out} has {c * out + out} params, the list says {params}")
                c = out
            elif kind == "batch_normalization":
                mods.append(nn.BatchNorm1d(out))
            elif kind == "dropout":
                mods.append(nn.Dropout(0.5))
            elif kind == "Softmax":
                mods.append(nn.Softmax(dim=1))
            elif kind in _ACTS:
                mods.append(_ACTS[kind]())
            else:
                raise ValueError(f"unknown GPUMemNet layer type {kind!r}")
        self.net = nn.Sequential(*mods)

    def forward(self, x):
        return self.net(x)


# ---------------------------------------------------------------------------------------------------------------
# OFA MobileNetV3 subnets (help-nas-latency/PROVENANCE.md: ofa_mbv3_d234_e346_k357_w1.2, set_active_subnet(ks, e, d)
# then get_active_subnet()), written out as plain modules because the `ofa` package is not a Debian package.
#
# The search space and its source are in OfaMobileNetV3's docstring.

OFA_STAGES = ((32, 2, "relu", False), (48, 2, "relu", True), (96, 2, "h_swish", False), (136, 1, "h_swish", True),
              (192, 2, "h_swish", True))  # (width, first stride, activation, SE) after make_divisible(. * 1.2, 8)
OFA_STEM, OFA_FINAL_EXPAND, OFA_FEATURE_MIX, OFA_CLASSES = 24, 1152, 1536, 1000


def ofa_make_divisible(v, divisor=8):
    """OFA's (TF slim's) make_divisible: round to the nearest multiple, never more than 10% down."""
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


def parse_ofa(recipe):
    """'r=R ks=k,k,... e=e,e,... d=d,d,d,d,d' (or the CSV's space-separated lists) -> (r, [(k, e) per active block
    per stage]); raises ValueError."""
    m = re.fullmatch(r"(?:ofa_mbv3_d234_e346_k357_w1\.2 )?r=(\d+) ks=([\d ,]+) e=([\d ,]+) d=([\d ,]+)", recipe.strip())
    if not m:
        raise ValueError(f"bad OFA recipe {recipe!r} (want 'r=R ks=20 ints e=20 ints d=5 ints')")
    r = int(m.group(1))
    ks, es, ds = ([int(t) for t in re.split(r"[ ,]+", m.group(i).strip())] for i in (2, 3, 4))
    if len(ks) != 20 or len(es) != 20 or len(ds) != 5 or any(k not in (3, 5, 7) for k in ks) or \
            any(e not in (3, 4, 6) for e in es) or any(d not in (2, 3, 4) for d in ds) or not 32 <= r <= 1024:
        raise ValueError(f"bad OFA recipe {recipe!r} (want 20 ks in 3/5/7, 20 e in 3/4/6, 5 d in 2..4, r 32..1024)")
    return r, [[(ks[4 * i + j], es[4 * i + j]) for j in range(ds[i])] for i in range(5)]


def ofa_recipe(resolution, ks, e, d):
    """The recipe string of a HELP OFA row (CSV columns resolution, ks, e, d; lists space-separated)."""
    return f"ofa_mbv3_d234_e346_k357_w1.2 r={resolution} ks={ks} e={e} d={d}"


class OfaHswish(nn.Module):
    def forward(self, x):
        return x * F.relu6(x + 3.0) / 6.0


class OfaHsigmoid(nn.Module):
    def forward(self, x):
        return F.relu6(x + 3.0) / 6.0


def _ofa_act(name):
    return nn.ReLU() if name == "relu" else OfaHswish()


class OfaSE(nn.Module):
    def __init__(self, c):
        super().__init__()
        mid = ofa_make_divisible(c // 4)
        self.reduce = nn.Conv2d(c, mid, 1)
        self.relu = nn.ReLU()
        self.expand = nn.Conv2d(mid, c, 1)
        self.h_sigmoid = OfaHsigmoid()

    def forward(self, x):
        y = x.mean(3, keepdim=True).mean(2, keepdim=True)
        return x * self.h_sigmoid(self.expand(self.relu(self.reduce(y))))


class OfaMBConv(nn.Module):
    def __init__(self, c_in, c_out, k, stride, e, act, se):
        super().__init__()
        mid = c_in if e == 1 else ofa_make_divisible(round(c_in * e))
        self.inverted_bottleneck = None if e == 1 else nn.Sequential(
            nn.Conv2d(c_in, mid, 1, bias=False), nn.BatchNorm2d(mid), _ofa_act(act))
        layers = [nn.Conv2d(mid, mid, k, stride, k // 2, groups=mid, bias=False), nn.BatchNorm2d(mid), _ofa_act(act)]
        if se:
            layers.append(OfaSE(mid))
        self.depth_conv = nn.Sequential(*layers)
        self.point_linear = nn.Sequential(nn.Conv2d(mid, c_out, 1, bias=False), nn.BatchNorm2d(c_out))
        self.residual = stride == 1 and c_in == c_out

    def forward(self, x):
        y = self.inverted_bottleneck(x) if self.inverted_bottleneck is not None else x
        y = self.point_linear(self.depth_conv(y))
        return y + x if self.residual else y


class OfaMobileNetV3(nn.Module):
    """The active subnet of OFA's w1.2 MobileNetV3 supernet for one (ks, e, d).

    Search space, from mit-han-lab/once-for-all (MIT), ofa/imagenet_classification/elastic_nn/networks/ofa_mbv3.py
    (OFAMobileNetV3.__init__), ofa/imagenet_classification/elastic_nn/modules/dynamic_layers.py
    (DynamicMBConvLayer.get_active_subnet_config), ofa/utils/layers.py (ConvLayer, MBConvLayer, ResidualBlock) and
    ofa/utils/pytorch_modules.py (make_divisible, Hswish, Hsigmoid, SEModule), commit 80a2e26e; the older layout
    (ofa/elastic_nn/networks/ofa_mbv3.py, commit 191bbe0b, HELP's era) has the same widths, strides, activations and
    SE placement:
      base_stage_width [16, 16, 24, 40, 80, 112, 160, 960, 1280], each make_divisible(w * 1.2, 8)
        -> 24 (first conv), 24 (first block), 32, 48, 96, 136, 192, final expand 1152, feature mix 1536
      stride_stages [1, 2, 2, 2, 1, 2]; act_stages [relu, relu, relu, h_swish, h_swish, h_swish];
      se_stages [False, False, True, False, True, True] (first block, then the 5 elastic stages of 4 blocks)
      first conv: Conv3x3 s2 (3 -> 24, no bias) BN h_swish; first block: MBConv e=1 k3 s1 ReLU (depthwise 3x3 -> BN
      -> ReLU -> 1x1 24 -> 24 -> BN) + identity shortcut
      elastic block: [1x1 in -> mid, BN, act] (mid = make_divisible(round(in * e), 8)), depthwise kxk stride s pad
      k//2, BN, act, [SE: mean(3).mean(2) -> 1x1 mid -> make_divisible(mid // 4, 8) with bias -> ReLU -> 1x1 back
      with bias -> h_sigmoid -> x * y], 1x1 mid -> out, BN; identity shortcut when stride 1 and in == out
      head: 1x1 192 -> 1152 BN h_swish, mean(3).mean(2), 1x1 1152 -> 1536 (no bias, no BN) h_swish, flatten,
      Linear(1536 -> 1000) (dropout 0.1 before it is a no-op in inference and left out)
      h_swish(x) = x * relu6(x + 3) / 6, h_sigmoid(x) = relu6(x + 3) / 6 (OFA's own modules: 4 and 3 eager kernels,
      not nn.Hardswish); BN eps 1e-5.
      ks and e list 20 entries (5 stages x 4 blocks), d 5 depths in 2..4: stage i uses its first d[i] entries.
    """

    def __init__(self, stages):
        super().__init__()
        self.first_conv = nn.Sequential(nn.Conv2d(3, OFA_STEM, 3, 2, 1, bias=False), nn.BatchNorm2d(OFA_STEM),
                                        OfaHswish())
        blocks = [OfaMBConv(OFA_STEM, OFA_STEM, 3, 1, 1, "relu", False)]
        c = OFA_STEM
        for (width, s, act, se), stage in zip(OFA_STAGES, stages):
            for j, (k, e) in enumerate(stage):
                blocks.append(OfaMBConv(c, width, k, s if j == 0 else 1, e, act, se))
                c = width
        self.blocks = nn.Sequential(*blocks)
        self.final_expand_layer = nn.Sequential(nn.Conv2d(c, OFA_FINAL_EXPAND, 1, bias=False),
                                                nn.BatchNorm2d(OFA_FINAL_EXPAND), OfaHswish())
        self.feature_mix_layer = nn.Sequential(nn.Conv2d(OFA_FINAL_EXPAND, OFA_FEATURE_MIX, 1, bias=False), OfaHswish())
        self.classifier = nn.Linear(OFA_FEATURE_MIX, OFA_CLASSES)

    def forward(self, x):
        x = self.final_expand_layer(self.blocks(self.first_conv(x)))
        x = self.feature_mix_layer(x.mean(3, keepdim=True).mean(2, keepdim=True))
        return self.classifier(x.flatten(1))


# ---------------------------------------------------------------------------------------------------------------
# export

# ---------------------------------------------------------------------------------------------------------------
# YOLOv8 detect (trtutils-yolo-jetson/PROVENANCE.md; ultralytics yolov8.yaml, scales n/s/m, 80 classes), written
# out here because ultralytics is not a Debian package. Checked against ultralytics' published parameter counts.

YOLOV8_SCALES = {"n": (0.33, 0.25, 1024), "s": (0.33, 0.50, 1024), "m": (0.67, 0.75, 768)}
YOLOV8_PARAMS = {"n": 3157200, "s": 11166560, "m": 25902640}  # ultralytics model.info(), unfused


class YConv(nn.Module):
    """ultralytics Conv: Conv2d without bias, BatchNorm (eps 1e-3), SiLU."""

    def __init__(self, c1, c2, k=1, s=1):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c2, eps=0.001, momentum=0.03)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class YBottleneck(nn.Module):
    def __init__(self, c1, c2, shortcut=True):
        super().__init__()
        self.cv1 = YConv(c1, c2, 3)
        self.cv2 = YConv(c2, c2, 3)
        self.add = shortcut and c1 == c2

    def forward(self, x):
        y = self.cv2(self.cv1(x))
        return x + y if self.add else y


class C2f(nn.Module):
    def __init__(self, c1, c2, n=1, shortcut=False):
        super().__init__()
        self.c = int(c2 * 0.5)
        self.cv1 = YConv(c1, 2 * self.c, 1)
        self.cv2 = YConv((2 + n) * self.c, c2, 1)
        self.m = nn.ModuleList(YBottleneck(self.c, self.c, shortcut) for _ in range(n))

    def forward(self, x):
        y = list(self.cv1(x).chunk(2, 1))
        for m in self.m:
            y.append(m(y[-1]))
        return self.cv2(torch.cat(y, 1))


class SPPF(nn.Module):
    def __init__(self, c1, c2, k=5):
        super().__init__()
        c_ = c1 // 2
        self.cv1 = YConv(c1, c_, 1)
        self.cv2 = YConv(c_ * 4, c2, 1)
        self.m = nn.MaxPool2d(k, 1, k // 2)

    def forward(self, x):
        x = self.cv1(x)
        y1 = self.m(x)
        y2 = self.m(y1)
        return self.cv2(torch.cat((x, y1, y2, self.m(y2)), 1))


class YDetect(nn.Module):
    """Detect head with DFL box decoding (exported graph: boxes and class scores per anchor)."""

    def __init__(self, ch, nc=80, reg_max=16):
        super().__init__()
        self.nc, self.reg_max = nc, reg_max
        c2, c3 = max(16, ch[0] // 4, reg_max * 4), max(ch[0], min(nc, 100))
        self.cv2 = nn.ModuleList(nn.Sequential(YConv(x, c2, 3), YConv(c2, c2, 3), nn.Conv2d(c2, 4 * reg_max, 1))
                                 for x in ch)
        self.cv3 = nn.ModuleList(nn.Sequential(YConv(x, c3, 3), YConv(c3, c3, 3), nn.Conv2d(c3, nc, 1)) for x in ch)
        self.dfl = nn.Conv2d(reg_max, 1, 1, bias=False)

    def forward(self, xs):
        b = xs[0].shape[0]
        outs, anchors, strides = [], [], []
        for i, x in enumerate(xs):
            h, w = x.shape[2], x.shape[3]
            outs.append(torch.cat((self.cv2[i](x), self.cv3[i](x)), 1).view(b, 4 * self.reg_max + self.nc, -1))
            sy, sx = torch.meshgrid(torch.arange(h) + 0.5, torch.arange(w) + 0.5, indexing="ij")
            anchors.append(torch.stack((sx, sy), -1).view(-1, 2))
            strides.append(torch.full((h * w, 1), 8.0 * 2 ** i))
        y = torch.cat(outs, 2)
        box, cls = y.split((4 * self.reg_max, self.nc), 1)
        a = box.shape[2]
        dist = self.dfl(box.view(b, 4, self.reg_max, a).transpose(2, 1).softmax(1)).view(b, 4, a)
        anc = torch.cat(anchors).transpose(0, 1).unsqueeze(0)
        lt, rb = dist.chunk(2, 1)
        x1y1, x2y2 = anc - lt, anc + rb
        dbox = torch.cat(((x1y1 + x2y2) / 2, x2y2 - x1y1), 1) * torch.cat(strides).transpose(0, 1)
        return torch.cat((dbox, cls.sigmoid()), 1)


class YOLOv8(nn.Module):
    def __init__(self, scale):
        super().__init__()
        if scale not in YOLOV8_SCALES:
            raise ValueError(f"unknown YOLOv8 scale {scale!r}; known: {', '.join(YOLOV8_SCALES)}")
        d, wd, mc = YOLOV8_SCALES[scale]
        ch = lambda c: int(math.ceil(min(c, mc) * wd / 8) * 8)  # noqa: E731 - ultralytics make_divisible
        n = lambda k: max(round(k * d), 1)  # noqa: E731
        self.b = nn.ModuleList([YConv(3, ch(64), 3, 2), YConv(ch(64), ch(128), 3, 2), C2f(ch(128), ch(128), n(3), True),
                                YConv(ch(128), ch(256), 3, 2), C2f(ch(256), ch(256), n(6), True),
                                YConv(ch(256), ch(512), 3, 2), C2f(ch(512), ch(512), n(6), True),
                                YConv(ch(512), ch(1024), 3, 2), C2f(ch(1024), ch(1024), n(3), True),
                                SPPF(ch(1024), ch(1024))])
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.h12 = C2f(ch(1024) + ch(512), ch(512), n(3))
        self.h15 = C2f(ch(512) + ch(256), ch(256), n(3))
        self.h16 = YConv(ch(256), ch(256), 3, 2)
        self.h18 = C2f(ch(256) + ch(512), ch(512), n(3))
        self.h19 = YConv(ch(512), ch(512), 3, 2)
        self.h21 = C2f(ch(512) + ch(1024), ch(1024), n(3))
        self.detect = YDetect((ch(256), ch(512), ch(1024)))

    def forward(self, x):
        feats = []
        for i, m in enumerate(self.b):
            x = m(x)
            feats.append(x)
        p4 = self.h12(torch.cat((self.up(feats[9]), feats[6]), 1))
        p3 = self.h15(torch.cat((self.up(p4), feats[4]), 1))
        p4 = self.h18(torch.cat((self.h16(p3), p4), 1))
        p5 = self.h21(torch.cat((self.h19(p4), feats[9]), 1))
        return self.detect([p3, p4, p5])


def parse_yolov8(recipe):
    """'yolov8n@640' -> ('n', 640); raises ValueError."""
    m = re.fullmatch(r"yolov8([nsm])@(\d+)", recipe)
    if not m:
        raise ValueError(f"want yolov8<n|s|m>@<size>, got {recipe!r}")
    return m.group(1), int(m.group(2))


def make_distinct(model):
    """Small positive random perturbation of every float parameter/buffer, so torch's exporter does not merge
    equal-valued weights into one graph input (it de-duplicates by value even with export_params=False)."""
    g = torch.Generator().manual_seed(SEED + 1)
    seen = set()
    with torch.no_grad():
        for t in list(model.parameters()) + list(model.buffers()):
            if id(t) in seen or not t.is_floating_point():
                continue
            seen.add(id(t))
            if t.numel() > (1 << 20):  # big tensors: a distinct random scalar is enough and much cheaper
                t.add_(float(torch.rand((), generator=g)) * 1e-3 + len(seen) * 1e-7)
            else:
                t.add_(torch.rand(t.shape, generator=g, dtype=t.dtype) * 1e-3)


class _NoInit:
    """Turns torch.nn.init's initialisers into no-ops while a model is built: the exporter needs shapes, not
    values, and initialising VGG/ViT-sized weights costs seconds."""
    NAMES = ("uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_", "dirac_",
             "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_")

    def __enter__(self):
        import torch.nn.init as init
        self.saved = {n: getattr(init, n) for n in self.NAMES}
        for n in self.NAMES:
            setattr(init, n, lambda t, *a, **k: t)
        return self

    def __exit__(self, *exc):
        import torch.nn.init as init
        for n, f in self.saved.items():
            setattr(init, n, f)


def _finish_export(tmp, path, data_input):
    """Symbolic batch on every graph output, perfpred's metadata (data input, no parameters), then the
    atomic rename of the exported tmp file to `path`."""
    import onnx
    m = onnx.load(tmp)
    for out in m.graph.output:
        dims = out.type.tensor_type.shape.dim
        if dims:
            dims[0].dim_param = "batch"
    del m.metadata_props[:]
    for k, v in (("perfpred.data_inputs", data_input), ("perfpred.export_params", "0")):
        e = m.metadata_props.add()
        e.key, e.value = k, v
    onnx.save(m, tmp)
    os.replace(tmp, path)


def export_onnx(model, example, path, data_input="input", opset=13):
    """Parameter-free ONNX export with a symbolic batch, written atomically (tmp file + rename)."""
    model.eval()
    make_distinct(model)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".onnx", dir=os.path.dirname(path) or ".")
    os.close(fd)
    try:
        with torch.enable_grad():
            torch.onnx.export(model, (example,), tmp, export_params=False, opset_version=opset,
                              input_names=[data_input], output_names=["output"],
                              dynamic_axes={data_input: {0: "batch"}, "output": {0: "batch"}},
                              do_constant_folding=False, training=torch.onnx.TrainingMode.PRESERVE)
        _finish_export(tmp, path, data_input)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def build(family, recipe):
    """(model, example input) for a family and recipe string, seeded; raises ValueError on a bad recipe."""
    torch.manual_seed(SEED)
    if family == "nasbench201":
        return NB201Net(recipe), torch.randn(1, 3, 32, 32)
    if family == "fbnet":
        return FBNet(parse_fbnet(recipe)), torch.randn(1, 3, 32, 32)
    if family == "icas-convnet":
        net = IcasConvNet(recipe)
        return net, torch.randn(1, 3, net.input_w, net.input_w)
    if family == "gpumemnet-mlp":
        in_f, layers = parse_mlp(*recipe.split("|", 1))
        return GpuMemNetMLP(in_f, layers), torch.randn(2, in_f)
    if family == "ofa-mbv3":
        r, stages = parse_ofa(recipe)
        return OfaMobileNetV3(stages), torch.randn(1, 3, r, r)
    if family == "yolov8":
        scale, size = parse_yolov8(recipe)
        return YOLOv8(scale), torch.randn(1, 3, size, size)
    if family == "torchvision":
        import torchvision.models as tvm
        name, _, size = recipe.partition("@")
        size = int(size or 224)
        kw = {"aux_logits": False, "init_weights": False} if name in ("googlenet", "inception_v3") else {}
        with _NoInit():
            model = getattr(tvm, name)(weights=None, **kw)
        with torch.no_grad():  # uninitialised memory may hold NaN/Inf; zero it so tracing computes finite values
            for t in list(model.parameters()) + list(model.buffers()):
                if t.is_floating_point():
                    t.zero_()
        return model, torch.randn(1, 3, size, size)
    raise ValueError(f"unknown model family {family!r}")


# ---------------------------------------------------------------------------------------------------------------
# Direct ONNX construction (no tracing): the same graphs torch.onnx.export writes for the networks above, built
# with onnx.helper in milliseconds. tests/tools checks them against the torch exports (ops, parameters, shapes).

class OnnxGraph:
    """Parameter-free ONNX graph under construction: every weight is a graph input with a declared shape."""

    def __init__(self, data_input, shape):
        from onnx import TensorProto, helper
        self.h, self.tp = helper, TensorProto
        self.nodes, self.inputs, self.n = [], [], 0
        self.data_input = data_input
        self.inputs.append(helper.make_tensor_value_info(data_input, TensorProto.FLOAT, ["batch"] + list(shape[1:])))

    def _name(self, op):
        self.n += 1
        return f"/{op}_{self.n}"

    def param(self, name, shape):
        self.inputs.append(self.h.make_tensor_value_info(name, self.tp.FLOAT, list(shape)))
        return name

    def node(self, op, ins, **attrs):
        name = self._name(op)
        out = name + "_output_0"
        self.nodes.append(self.h.make_node(op, ins, [out], name=name, **attrs))
        return out

    def const(self, values, dtype="int64"):
        import numpy as _np
        from onnx import numpy_helper
        arr = _np.array(values, dtype=dtype)
        name = self._name("Constant")
        out = name + "_output_0"
        self.nodes.append(self.h.make_node("Constant", [], [out], name=name, value=numpy_helper.from_array(arr)))
        return out

    def conv(self, x, prefix, c_in, c_out, k, stride, pad, groups=1, bias=False):
        ins = [x, self.param(prefix + ".weight", (c_out, c_in // groups, k, k))]
        if bias:
            ins.append(self.param(prefix + ".bias", (c_out,)))
        return self.node("Conv", ins, dilations=[1, 1], group=groups, kernel_shape=[k, k], pads=[pad] * 4,
                         strides=[stride, stride])

    def bn(self, x, prefix, c):
        ins = [x] + [self.param(f"{prefix}.{p}", (c,)) for p in ("weight", "bias", "running_mean", "running_var")]
        return self.node("BatchNormalization", ins, epsilon=1e-5, momentum=0.9)

    def linear(self, x, prefix, c_in, c_out):
        return self.node("Gemm", [x, self.param(prefix + ".weight", (c_out, c_in)), self.param(prefix + ".bias", (c_out,))],
                         alpha=1.0, beta=1.0, transB=1)

    def model(self, out_shape, opset=13):
        h = self.h
        out = h.make_tensor_value_info("output", self.tp.FLOAT, ["batch"] + list(out_shape[1:]))
        last = self.nodes[-1]
        last.output[0] = "output"
        g = h.make_graph(self.nodes, "main_graph", self.inputs, [out])
        m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)], producer_name="perfpred-tools")
        m.ir_version = 7
        for k, v in (("perfpred.data_inputs", self.data_input), ("perfpred.export_params", "0")):
            e = m.metadata_props.add()
            e.key, e.value = k, v
        return m


def nb201_onnx(arch_str, c=16, n=5, num_classes=10):
    nodes = parse_nb201(arch_str)
    g = OnnxGraph("input", (1, 3, 32, 32))

    def relu_conv_bn(x, p, ci, co, k, s, pad):
        return g.bn(g.conv(g.node("Relu", [x]), p + ".1", ci, co, k, s, pad), p + ".2", co)

    x = g.bn(g.conv("input", "stem.0", 3, c, 3, 1, 1), "stem.1", c)
    ci, cell = c, 0
    for stage, cs in enumerate((c, 2 * c, 4 * c)):
        if stage > 0:
            p = f"cells.{cell}"
            a = relu_conv_bn(x, p + ".conv_a.op", ci, cs, 3, 2, 1)
            b = relu_conv_bn(a, p + ".conv_b.op", cs, cs, 3, 1, 1)
            d = g.conv(g.node("AveragePool", [x], kernel_shape=[2, 2], pads=[0, 0, 0, 0], strides=[2, 2]),
                       p + ".downsample.1", ci, cs, 1, 1, 0)
            x, cell = g.node("Add", [d, b]), cell + 1
        for _ in range(n):
            vals, li = [x], 0
            for node in nodes:
                terms = []
                for op, j in node:
                    pre = f"cells.{cell}.layers.{li}"
                    li += 1
                    if op == "none":
                        terms.append(g.node("Mul", [vals[j], g.const(0.0, "float32")]))
                    elif op == "skip_connect":
                        terms.append(vals[j])
                    elif op == "avg_pool_3x3":
                        terms.append(g.node("AveragePool", [vals[j]], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                                            strides=[1, 1]))
                    else:
                        k = 3 if op == "nor_conv_3x3" else 1
                        terms.append(relu_conv_bn(vals[j], pre + ".op", cs, cs, k, 1, k // 2))
                # Python's sum() starts from 0: `0 + t0` is one more full-tensor add in eager mode.
                s = g.node("Add", [terms[0], g.const(0.0, "float32")])
                for t in terms[1:]:
                    s = g.node("Add", [s, t])
                vals.append(s)
            x, cell = vals[3], cell + 1
        ci = cs
    x = g.node("Relu", [g.bn(x, "lastact.0", ci)])
    x = g.node("Flatten", [g.node("GlobalAveragePool", [x])], axis=1)
    g.linear(x, "classifier", ci, num_classes)
    return g.model((1, num_classes))


def fbnet_onnx(ops, num_classes=100):
    g = OnnxGraph("input", (1, 3, 32, 32))
    x = g.node("Relu", [g.bn(g.conv("input", "stem.0", 3, 16, 3, 1, 1), "stem.1", 16)])
    c_in, i, hw = 16, 0, 32
    for n, c, s0 in zip(FBNET_STAGES, FBNET_CHANNELS, FBNET_STRIDES):
        for b in range(n):
            s = s0 if b == 0 else 1
            op, p = ops[i], f"blocks.{i}.body"
            residual = c_in == c and s == 1
            if op == "skip":
                if not residual:
                    x = g.node("Relu", [g.bn(g.conv(x, p + ".0", c_in, c, 1, s, 0), p + ".1", c)])
            else:
                m = re.fullmatch(r"k(\d)_e(\d)(?:_g(\d))?", op)
                k, e, gr = int(m.group(1)), int(m.group(2)), int(m.group(3) or 1)
                mid = c_in * e
                y = g.node("Relu", [g.bn(g.conv(x, p + ".0", c_in, mid, 1, 1, 0, groups=gr), p + ".1", mid)])
                j = 3
                if gr > 1:
                    y = g.node("Reshape", [y, g.const([0, gr, mid // gr, hw, hw])])
                    y = g.node("Transpose", [y], perm=[0, 2, 1, 3, 4])
                    y = g.node("Reshape", [y, g.const([0, mid, hw, hw])])
                    j = 4
                y = g.node("Relu", [g.bn(g.conv(y, f"{p}.{j}", mid, mid, k, s, k // 2, groups=mid), f"{p}.{j + 1}", mid)])
                y = g.bn(g.conv(y, f"{p}.{j + 3}", mid, c, 1, 1, 0, groups=gr), f"{p}.{j + 4}", c)
                x = g.node("Add", [x, y]) if residual else y
            hw = (hw + 2 * 0 - 1) // s + 1 if op == "skip" else (hw + 2 * (int(op[1]) // 2) - int(op[1])) // s + 1
            c_in, i = c, i + 1
    x = g.node("Relu", [g.bn(g.conv(x, "header.0", 352, 1504, 1, 1, 0), "header.1", 1504)])
    x = g.node("Flatten", [g.node("GlobalAveragePool", [x])], axis=1)
    g.linear(x, "fc", 1504, num_classes)
    return g.model((1, num_classes))


def icas_onnx(name, num_classes=10):
    width, plan, f = parse_icas(name)
    g = OnnxGraph("input", (1, 3, width, width))
    x, c, w, li = "input", 3, width, 0
    for kind, k, pad in plan:
        if kind == "conv":
            x = g.node("Relu", [g.conv(x, f"body.{li}", c, f, k, 1, pad, bias=True)])
            li += 2
        else:
            x = g.conv(x, f"body.{li}", c, c, k, 1, pad, groups=c, bias=True)
            x = g.node("Relu", [g.conv(x, f"body.{li + 1}", c, f, 1, 1, 0, bias=True)])
            li += 3
        w, c = w + 2 * pad - k + 1, f
    x = g.node("Flatten", [x], axis=1)
    g.linear(x, "head", c * w * w, num_classes)
    return g.model((1, num_classes))


def ofa_onnx(recipe):
    """OFA MobileNetV3 subnet graph as OfaMobileNetV3 runs it in eager mode: relu6 is one Clip (torch's exporter
    writes Relu + Clip for it; eager PyTorch runs one hardtanh kernel)."""
    r, stages = parse_ofa(recipe)
    g = OnnxGraph("input", (1, 3, r, r))

    def act(x, name):
        if name == "relu":
            return g.node("Relu", [x])
        y = g.node("Clip", [g.node("Add", [x, g.const(3.0, "float32")]), g.const(0.0, "float32"),
                            g.const(6.0, "float32")])
        return g.node("Div", [g.node("Mul", [x, y]), g.const(6.0, "float32")])

    def gap(x):
        return g.node("ReduceMean", [g.node("ReduceMean", [x], axes=[3], keepdims=1)], axes=[2], keepdims=1)

    def se(x, p, c):
        mid = ofa_make_divisible(c // 4)
        y = g.node("Relu", [g.conv(gap(x), p + ".reduce", c, mid, 1, 1, 0, bias=True)])
        y = g.conv(y, p + ".expand", mid, c, 1, 1, 0, bias=True)
        y = g.node("Div", [g.node("Clip", [g.node("Add", [y, g.const(3.0, "float32")]), g.const(0.0, "float32"),
                                           g.const(6.0, "float32")]), g.const(6.0, "float32")])
        return g.node("Mul", [x, y])

    def mbconv(x, p, c_in, c_out, k, s, e, a, use_se):
        mid, y = c_in, x
        if e != 1:
            mid = ofa_make_divisible(round(c_in * e))
            y = act(g.bn(g.conv(y, p + ".inverted_bottleneck.0", c_in, mid, 1, 1, 0), p + ".inverted_bottleneck.1",
                         mid), a)
        y = act(g.bn(g.conv(y, p + ".depth_conv.0", mid, mid, k, s, k // 2, groups=mid), p + ".depth_conv.1", mid), a)
        if use_se:
            y = se(y, p + ".depth_conv.3", mid)
        y = g.bn(g.conv(y, p + ".point_linear.0", mid, c_out, 1, 1, 0), p + ".point_linear.1", c_out)
        return g.node("Add", [y, x]) if s == 1 and c_in == c_out else y

    x = act(g.bn(g.conv("input", "first_conv.0", 3, OFA_STEM, 3, 2, 1), "first_conv.1", OFA_STEM), "h_swish")
    x = mbconv(x, "blocks.0", OFA_STEM, OFA_STEM, 3, 1, 1, "relu", False)
    c, b = OFA_STEM, 1
    for (width, s, a, use_se), stage in zip(OFA_STAGES, stages):
        for j, (k, e) in enumerate(stage):
            x = mbconv(x, f"blocks.{b}", c, width, k, s if j == 0 else 1, e, a, use_se)
            c, b = width, b + 1
    x = act(g.bn(g.conv(x, "final_expand_layer.0", c, OFA_FINAL_EXPAND, 1, 1, 0), "final_expand_layer.1",
                 OFA_FINAL_EXPAND), "h_swish")
    x = act(g.conv(gap(x), "feature_mix_layer.0", OFA_FINAL_EXPAND, OFA_FEATURE_MIX, 1, 1, 0), "h_swish")
    g.linear(g.node("Flatten", [x], axis=1), "classifier", OFA_FEATURE_MIX, OFA_CLASSES)
    return g.model((1, OFA_CLASSES))


DIRECT = {"nasbench201": lambda r: nb201_onnx(r), "fbnet": lambda r: fbnet_onnx(parse_fbnet(r)),
          "icas-convnet": lambda r: icas_onnx(r), "ofa-mbv3": lambda r: ofa_onnx(r)}


def write_direct(family, recipe, path):
    """Build the ONNX graph directly (families in DIRECT) and write it atomically."""
    import onnx
    m = DIRECT[family](recipe)
    onnx.checker.check_model(m)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    onnx.save(m, tmp)
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------------------------------------
# NeuSight whole-model transformer labels (neusight-gpu-kernels/PROVENANCE.md, label/<GPU>/<model>-<mode>-<seq>-
# <batch>.json). HuggingFace `transformers` is not a Debian package, so the measured HF models are written out
# here as plain PyTorch, op for op as the per-node CSVs next to the labels (the torch.fx graph of the HF model with
# one layer) show them: which embeddings, mask arithmetic and heads ran. Hyper-parameters are those of
# data/DLmodel_configs/<model>.json (tests/tools checks them against the files when ../shared is present).

NEUSIGHT_CONFIGS = {
    # BertForSequenceClassification (the CSV ends in pooler.dense, tanh, classifier -> (B, 2)), not the LM head
    # the config's `architectures` names.
    "bert_large": dict(arch="bert", vocab=30522, d=1024, heads=16, layers=24, ff=4096, positions=512, types=2,
                       eps=1e-12, labels=2, head="classification"),
    # The training labels ran BertForPreTraining instead (cls.predictions: dense, GELU, LN, decoder to the vocabulary
    # tied to the word embeddings, with bias; cls.seq_relationship on the pooled output).
    "bert_large_pretraining": dict(arch="bert", vocab=30522, d=1024, heads=16, layers=24, ff=4096, positions=512,
                                   types=2, eps=1e-12, labels=2, head="pretraining"),
    # GPT2LMHeadModel, gelu_new; GPT-3 XL / 2.7B are GPT-2 configs with other widths (n_inner = 4 d).
    "gpt2_large": dict(arch="gpt2", vocab=50257, d=1280, heads=20, layers=36, ff=5120, positions=1024, eps=1e-5),
    "gpt3_xl": dict(arch="gpt2", vocab=50257, d=3072, heads=24, layers=24, ff=12288, positions=2048, eps=1e-5),
    "gpt3_27": dict(arch="gpt2", vocab=50257, d=2560, heads=32, layers=32, ff=10240, positions=2048, eps=1e-5),
    # OPTForCausalLM, pre-LN (do_layer_norm_before), ReLU, learned positions with offset 2, LM head without bias.
    "opt_13": dict(arch="opt", vocab=50272, d=2048, heads=32, layers=24, ff=8192, positions=2048, eps=1e-5),
}


def parse_neusight_transformer(recipe):
    """'gpt2_large@1024' -> (config dict, seq_len); raises ValueError."""
    m = re.fullmatch(r"([a-z0-9_]+)@(\d+)", recipe)
    if not m or m.group(1) not in NEUSIGHT_CONFIGS:
        raise ValueError(f"want <model>@<seq_len> with model one of {', '.join(NEUSIGHT_CONFIGS)}, got {recipe!r}")
    cfg, seq = NEUSIGHT_CONFIGS[m.group(1)], int(m.group(2))
    if not 1 <= seq <= cfg["positions"]:
        raise ValueError(f"{recipe}: seq_len {seq} outside 1..{cfg['positions']} (max positions of {m.group(1)})")
    return cfg, seq


def _heads(x, b, s, h):
    """(B, S, D) -> (B, H, S, D/H), as HF's transpose_for_scores / _split_heads (view + permute)."""
    return x.view(b, s, h, x.size(-1) // h).permute(0, 2, 1, 3)


def _merge(x, b, s):
    """(B, H, S, hd) -> (B, S, H*hd): permute, contiguous (a copy kernel in eager), view."""
    return x.permute(0, 2, 1, 3).contiguous().view(b, s, -1)


class BertLayer(nn.Module):
    """HF BertLayer (post-LN): Q/K/V linears, QK^T / sqrt(hd) + extended mask, softmax, PV, dense + residual + LN,
    intermediate dense, exact GELU, output dense + residual + LN."""

    def __init__(self, c, dev):
        super().__init__()
        d, self.h, self.hd = c["d"], c["heads"], c["d"] // c["heads"]
        self.q, self.k, self.v = (nn.Linear(d, d, device=dev) for _ in range(3))
        self.o = nn.Linear(d, d, device=dev)
        self.ln1 = nn.LayerNorm(d, eps=c["eps"], device=dev)
        self.fc1 = nn.Linear(d, c["ff"], device=dev)
        self.fc2 = nn.Linear(c["ff"], d, device=dev)
        self.ln2 = nn.LayerNorm(d, eps=c["eps"], device=dev)

    def forward(self, x, mask):
        b, s = x.shape[:2]
        q, k, v = (_heads(f(x), b, s, self.h) for f in (self.q, self.k, self.v))
        att = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.hd) + mask
        y = _merge(torch.matmul(torch.softmax(att, dim=-1), v), b, s)
        x = self.ln1(self.o(y) + x)
        return self.ln2(self.fc2(F.gelu(self.fc1(x))) + x)


class Bert(nn.Module):
    """BertModel (embeddings with token types, all-ones extended mask, encoder, tanh pooler) with the head the label
    ran: BertForSequenceClassification (classifier on the pooled output) or BertForPreTraining."""
    OUTPUTS = {"classification": ["output"], "pretraining": ["output", "seq_relationship"]}

    def __init__(self, c, seq, dev="meta"):
        super().__init__()
        d = c["d"]
        self.word = nn.Embedding(c["vocab"], d, device=dev)
        self.pos = nn.Embedding(c["positions"], d, device=dev)
        self.token_type = nn.Embedding(c["types"], d, device=dev)
        self.register_buffer("position_ids", torch.arange(c["positions"], device=dev).unsqueeze(0))
        self.register_buffer("token_type_ids", torch.zeros(1, c["positions"], dtype=torch.long, device=dev))
        self.ln = nn.LayerNorm(d, eps=c["eps"], device=dev)
        self.layers = nn.ModuleList(BertLayer(c, dev) for _ in range(c["layers"]))
        self.pooler = nn.Linear(d, d, device=dev)
        self.head = c["head"]
        self.output_names = self.OUTPUTS[self.head]
        self.classifier = nn.Linear(d, c["labels"], device=dev)  # pretraining: cls.seq_relationship
        if self.head == "pretraining":
            self.transform = nn.Linear(d, d, device=dev)
            self.transform_ln = nn.LayerNorm(d, eps=c["eps"], device=dev)
            self.decoder_bias = nn.Parameter(torch.empty(c["vocab"], device=dev))

    def forward(self, input_ids):
        b, s = input_ids.shape
        mask = torch.ones(b, s, device=input_ids.device)  # no attention_mask passed: HF makes an all-ones one
        ext = (1.0 - mask[:, None, None, :]) * torch.finfo(torch.float32).min
        types = self.token_type_ids[:, :s].expand(b, s)
        x = self.word(input_ids) + self.token_type(types)
        x = self.ln(x + self.pos(self.position_ids[:, :s]))
        for layer in self.layers:
            x = layer(x, ext)
        pooled = torch.tanh(self.pooler(x[:, 0]))
        if self.head == "classification":
            return self.classifier(pooled)
        y = self.transform_ln(F.gelu(self.transform(x)))
        return F.linear(y, self.word.weight, self.decoder_bias), self.classifier(pooled)


def _conv1d(x, w, bias):
    """HF GPT-2's Conv1D: addmm(bias, x.view(-1, in), W[in, out]) viewed back."""
    return torch.addmm(bias, x.reshape(-1, x.size(-1)), w).view(*x.shape[:-1], w.size(1))


class GPT2Block(nn.Module):
    """HF GPT2Block (pre-LN): c_attn, split, QK^T / sqrt(hd), where(causal, w, finfo.min), softmax, PV,
    c_proj + residual; ln_2, c_fc, gelu_new as its eight eager element-wise ops, c_proj + residual."""

    def __init__(self, c, dev):
        super().__init__()
        d, ff, self.h, self.hd = c["d"], c["ff"], c["heads"], c["d"] // c["heads"]
        self.ln1 = nn.LayerNorm(d, eps=c["eps"], device=dev)
        self.ln2 = nn.LayerNorm(d, eps=c["eps"], device=dev)
        p = lambda *shape: nn.Parameter(torch.empty(*shape, device=dev))  # noqa: E731
        self.attn_w, self.attn_b, self.proj_w, self.proj_b = p(d, 3 * d), p(3 * d), p(d, d), p(d)
        self.fc_w, self.fc_b, self.out_w, self.out_b = p(d, ff), p(ff), p(ff, d), p(d)
        pos = c["positions"]
        # HF keeps the lower-triangular `bias` buffer and selects where it is True; this keeps its complement
        self.register_buffer("future", torch.ones(pos, pos, dtype=torch.bool, device=dev).triu(1).view(1, 1, pos, pos))

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = _conv1d(self.ln1(x), self.attn_w, self.attn_b).split(d, dim=2)
        q, k, v = (_heads(t, b, s, self.h) for t in (q, k, v))
        # HF divides by torch.full([], hd ** 0.5) and takes where(causal, w, finfo.min): one Div and one Where
        # over (B, H, S, S) each, written here with Python scalars (tensor constants cannot live on 'meta')
        w = torch.matmul(q, k.transpose(-1, -2)) / self.hd ** 0.5
        w = w.masked_fill(self.future[:, :, :s, :s], torch.finfo(torch.float32).min)
        y = _merge(torch.matmul(torch.softmax(w, dim=-1), v), b, s)
        x = _conv1d(y, self.proj_w, self.proj_b) + x
        h = _conv1d(self.ln2(x), self.fc_w, self.fc_b)
        h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * torch.pow(h, 3.0))))
        return _conv1d(h, self.out_w, self.out_b) + x


class GPT2LMHeadModel(nn.Module):
    def __init__(self, c, seq, dev="meta"):
        super().__init__()
        self.wte = nn.Embedding(c["vocab"], c["d"], device=dev)
        self.wpe = nn.Embedding(c["positions"], c["d"], device=dev)
        self.blocks = nn.ModuleList(GPT2Block(c, dev) for _ in range(c["layers"]))
        self.ln_f = nn.LayerNorm(c["d"], eps=c["eps"], device=dev)

    def forward(self, input_ids):
        s = input_ids.size(1)
        pos = torch.arange(0, s, dtype=torch.long, device=input_ids.device).unsqueeze(0)
        x = self.wte(input_ids) + self.wpe(pos)
        for blk in self.blocks:
            x = blk(x)
        return F.linear(self.ln_f(x), self.wte.weight)  # lm_head tied to wte, no bias


class OPTLayer(nn.Module):
    """HF OPTDecoderLayer (pre-LN): q_proj * hd^-0.5, k/v proj, bmm, + causal mask, max(., finfo.min), softmax,
    bmm, out_proj + residual; final_layer_norm on (B*S, D), fc1, ReLU, fc2 + residual."""

    def __init__(self, c, dev):
        super().__init__()
        d, self.h = c["d"], c["heads"]
        self.ln1 = nn.LayerNorm(d, eps=c["eps"], device=dev)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, device=dev) for _ in range(4))
        self.ln2 = nn.LayerNorm(d, eps=c["eps"], device=dev)
        self.fc1 = nn.Linear(d, c["ff"], device=dev)
        self.fc2 = nn.Linear(c["ff"], d, device=dev)

    def forward(self, x, mask):
        b, s, d = x.shape
        h, hd = self.h, d // self.h
        y = self.ln1(x)
        q = self.q(y) * hd ** -0.5
        shape = lambda t: t.view(b, s, h, hd).transpose(1, 2).contiguous().view(b * h, s, hd)  # noqa: E731
        q, k, v = shape(q), shape(self.k(y)), shape(self.v(y))
        w = torch.bmm(q, k.transpose(1, 2)).view(b, h, s, s) + mask
        w = w.clamp_min(torch.finfo(torch.float32).min).view(b * h, s, s)  # HF: torch.max(w, tensor(finfo.min))
        o = torch.bmm(torch.softmax(w, dim=-1), v).view(b, h, s, hd).transpose(1, 2).reshape(b, s, d)
        x = self.o(o) + x
        x2 = x.reshape(-1, d)
        x2 = self.fc2(torch.relu(self.fc1(self.ln2(x2)))) + x2
        return x2.view(b, s, d)


class OPTForCausalLM(nn.Module):
    def __init__(self, c, seq, dev="meta"):
        super().__init__()
        self.embed = nn.Embedding(c["vocab"], c["d"], device=dev)
        self.pos = nn.Embedding(c["positions"] + 2, c["d"], device=dev)  # OPTLearnedPositionalEmbedding offset 2
        self.layers = nn.ModuleList(OPTLayer(c, dev) for _ in range(c["layers"]))
        self.ln_f = nn.LayerNorm(c["d"], eps=c["eps"], device=dev)

    def forward(self, input_ids):
        b, s = input_ids.shape
        dev = input_ids.device
        x = self.embed(input_ids)
        attn = torch.ones(b, s, device=dev)
        neg = torch.finfo(torch.float32).min
        # _make_causal_mask + _expand_mask, as the CSV lists them (full, arange, lt, masked_fill, expand, sub, ...)
        causal = torch.full((s, s), neg, device=dev)
        idx = torch.arange(s, device=dev)
        causal = causal.masked_fill(idx < (idx + 1).view(s, 1), 0.0)[None, None].expand(b, 1, s, s)
        inverted = 1.0 - attn[:, None, None, :].expand(b, 1, s, s)
        expanded = inverted.masked_fill(inverted.bool(), neg)
        mask = expanded.masked_fill(causal.bool(), neg)
        positions = (torch.cumsum(attn, dim=1).type_as(attn) * attn).long() - 1
        x = x + self.pos(positions + 2)
        for layer in self.layers:
            x = layer(x, mask)
        return F.linear(self.ln_f(x), self.embed.weight)  # lm_head tied to embed_tokens, no bias


NEUSIGHT_ARCHS = {"bert": Bert, "gpt2": GPT2LMHeadModel, "opt": OPTForCausalLM}


def build_neusight_transformer(recipe, dev="meta"):
    """(model on `dev`, example input_ids) for a NeuSight label; on 'meta' nothing is allocated."""
    cfg, seq = parse_neusight_transformer(recipe)
    model = NEUSIGHT_ARCHS[cfg["arch"]](cfg, seq, dev)
    return model, torch.zeros(1, seq, dtype=torch.long, device=dev)


def export_onnx_meta(model, example, path, data_input="input", opset=17):
    """Parameter-free ONNX export of a model whose weights live on the 'meta' device (no storage: a 2.7B-parameter
    model exports in seconds and without 11 GB of RAM). The exporter's two passes that read weight values are
    bypassed: initializer de-duplication (every weight stays its own input; tied weights are one parameter
    anyway) and constant propagation of weights in shape inference (shapes come from the traced types).
    Opset 17 keeps LayerNormalization one node, as the one eager kernel it is."""
    model.eval()
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".onnx", dir=os.path.dirname(path) or ".")
    os.close(fd)
    dedup, infer = torch._C._jit_pass_onnx_deduplicate_initializers, torch._C._jit_pass_onnx_graph_shape_type_inference
    torch._C._jit_pass_onnx_deduplicate_initializers = lambda graph, params, training: params
    torch._C._jit_pass_onnx_graph_shape_type_inference = lambda graph, params, opset_: infer(graph, {}, opset_)
    try:
        outputs = getattr(model, "output_names", ["output"])
        torch.onnx.export(model, (example,), tmp, export_params=False, opset_version=opset,
                          input_names=[data_input], output_names=outputs,
                          dynamic_axes={n: {0: "batch"} for n in [data_input] + outputs},
                          do_constant_folding=False)
        _finish_export(tmp, path, data_input)
    finally:
        torch._C._jit_pass_onnx_deduplicate_initializers = dedup
        torch._C._jit_pass_onnx_graph_shape_type_inference = infer
        if os.path.exists(tmp):
            os.unlink(tmp)


META_EXPORT = {"neusight-transformer": build_neusight_transformer}
