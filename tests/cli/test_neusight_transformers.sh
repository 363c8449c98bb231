#!/usr/bin/env bash
# NeuSight whole-model transformer labels: the PyTorch rebuilds in tools/dataset_models.py (hyper-parameters = the
# HF configs in ../shared, parameter counts = HuggingFace's published ones, a two-layer variant exported from
# 'meta' weights is accepted by perfpred with the ops HF's eager model runs) and the converter
# (tools/convert_datasets.py neusight-transformers: rows, statuses, values against the label files).
# Usage: bash test_neusight_transformers.sh PERFPRED_BINARY REPO_ROOT. Exit 77 (skip) when ../shared/datasets or
# Debian's python3 with torch and onnx is missing.
set -euo pipefail
bin="${1:?usage: $0 PERFPRED_BINARY REPO_ROOT}"
repo="${2:?usage: $0 PERFPRED_BINARY REPO_ROOT}"
shared="$repo/../shared/datasets"
py=/usr/bin/python3
if [[ ! -d "$shared/neusight-gpu-kernels/label" ]]; then echo "skip: $shared/neusight-gpu-kernels/label not found"; exit 77; fi
if [[ ! -x "$py" ]] || ! "$py" -c "import torch, onnx" 2>/dev/null; then
  echo "skip: /usr/bin/python3 with torch and onnx not available"; exit 77
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

"$py" - "$repo/tools" "$shared/neusight-gpu-kernels/data/DLmodel_configs" "$tmp" <<'PY' || { echo "FAIL: builders"; exit 1; }
import collections, json, os, sys
sys.path.insert(0, sys.argv[1])
import onnx
import torch
import dataset_models as dm
cfg_dir, tmp = sys.argv[2], sys.argv[3]
fails = []
# hyper-parameters against the HF configs the labels were measured with
keys = {"bert": dict(vocab="vocab_size", d="hidden_size", heads="num_attention_heads", layers="num_hidden_layers",
                     ff="intermediate_size", positions="max_position_embeddings", types="type_vocab_size",
                     eps="layer_norm_eps"),
        "gpt2": dict(vocab="vocab_size", d="n_embd", heads="n_head", layers="n_layer", positions="n_positions",
                     eps="layer_norm_epsilon"),
        "opt": dict(vocab="vocab_size", d="hidden_size", heads="num_attention_heads", layers="num_hidden_layers",
                    ff="ffn_dim", positions="max_position_embeddings")}
for name, c in dm.NEUSIGHT_CONFIGS.items():
    hf = json.load(open(os.path.join(cfg_dir, name.replace("_pretraining", "") + ".json")))
    for k, hk in keys[c["arch"]].items():
        if c[k] != hf[hk]:
            fails.append(f"{name}: {k} = {c[k]}, config {hk} = {hf[hk]}")
    if c["arch"] == "gpt2" and c["ff"] != (hf.get("n_inner") or 4 * hf["n_embd"]):
        fails.append(f"{name}: ff {c['ff']} != n_inner / 4 n_embd")
    if c["arch"] == "opt" and (hf["activation_function"] != "relu" or not hf["do_layer_norm_before"]
                               or hf["word_embed_proj_dim"] != hf["hidden_size"]):
        fails.append(f"{name}: OPT config is not the pre-LN ReLU one rebuilt")
# parameter counts of the HF models (model.num_parameters(), tied LM heads counted once)
published = {"bert_large@512": 335141888 + 1024 * 2 + 2,  # bert-large BertModel + the 2-label classifier
             "gpt2_large@1024": 774030080, "opt_13@2048": 1315758080}
for recipe, want in published.items():
    model, _ = dm.build_neusight_transformer(recipe)
    got = sum(p.numel() for p in model.parameters())
    if got != want:
        fails.append(f"{recipe}: {got} parameters, HF has {want}")
    if next(model.parameters()).device.type != "meta":
        fails.append(f"{recipe}: weights were allocated")
for bad in ("gpt2_large", "gpt2_large@4096", "t5@128"):
    try:
        dm.parse_neusight_transformer(bad)
        fails.append(f"{bad!r} accepted")
    except ValueError:
        pass
# two-layer variants, exported from 'meta': every weight a graph input, the eager op structure of each layer
want_ops = {"gpt2": {"Softmax": 2, "Tanh": 2, "Pow": 2, "Where": 2, "LayerNormalization": 5, "Gemm": 8},
            "opt": {"Softmax": 2, "Relu": 2, "LayerNormalization": 5, "CumSum": 1},
            "bert": {"Softmax": 2, "Erf": 2, "Tanh": 1, "LayerNormalization": 5}}
for name in ("bert_large", "gpt2_large", "opt_13"):
    c = dict(dm.NEUSIGHT_CONFIGS[name], layers=2)
    dm.NEUSIGHT_CONFIGS["tiny_" + name] = c
    model, ex = dm.build_neusight_transformer(f"tiny_{name}@128")
    path = os.path.join(tmp, f"tiny_{name}.onnx")
    dm.export_onnx_meta(model, ex, path)
    m = onnx.load(path)
    ops = collections.Counter(n.op_type for n in m.graph.node)
    for op, n in want_ops[c["arch"]].items():
        if ops[op] != n:
            fails.append(f"tiny {name}: {ops[op]} {op} nodes, want {n}")
    params = sum(p.numel() for p in model.parameters())
    inputs = {i.name: i for i in m.graph.input}
    floats = 0
    for i in m.graph.input:
        if i.name != "input" and i.type.tensor_type.elem_type == onnx.TensorProto.FLOAT:
            n = 1
            for d in i.type.tensor_type.shape.dim:
                n *= d.dim_value
            floats += n
    if floats != params:
        fails.append(f"tiny {name}: graph inputs hold {floats} float elements, the model {params} parameters")
    if inputs["input"].type.tensor_type.shape.dim[0].dim_param != "batch":
        fails.append(f"tiny {name}: batch not symbolic")
if fails:
    print("\n".join(fails)); sys.exit(1)
PY
for m in bert_large gpt2_large opt_13; do
  "$bin" -q predict "$tmp/tiny_$m.onnx" --gpu v100-pcie-32gb --batch 2 --runtime pytorch --json --no-meta \
    --analytical >"$tmp/$m.json" 2>"$tmp/$m.err" || { echo "FAIL: perfpred predict tiny $m"; cat "$tmp/$m.err"; exit 1; }
done

# converter: every single-GPU label of the five NVIDIA GPUs, nothing exported (--sample ...=0)
"$py" "$repo/tools/convert_datasets.py" neusight-transformers --sample neusight-transformer=0 --out "$tmp/out" \
  --shared "$shared" >"$tmp/conv.out" 2>"$tmp/conv.err" || { echo "FAIL: conversion"; cat "$tmp/conv.err"; exit 1; }
"$py" - "$tmp/out/datasets/neusight-transformers/labels.csv" "$shared/neusight-gpu-kernels/label" "$repo" <<'PY' || exit 1
import csv, glob, json, os, sys
path, label, repo = sys.argv[1:4]
first = open(path).readline()
assert first == "#perfpred network-dataset schema_version=1\n", first
rows = {r["id"]: r for r in csv.DictReader(l for l in open(path) if not l.startswith("#"))}
gpus = {os.path.basename(p)[:-5] for p in glob.glob(os.path.join(repo, "data", "gpus", "*.json"))}
src = [f for f in glob.glob(os.path.join(label, "*", "*.json")) if "AMD_" not in f]
assert len(rows) == len(src) > 30, (len(rows), len(src))
assert all(r["gpu_id"] in gpus for r in rows.values()), "gpu ids must be catalog ids"
r = rows["v100-pcie-32gb-bert_large-train-512-8"]
lab = json.load(open(os.path.join(label, "Tesla_V100-PCIE-32GB", "bert_large-train-512-8.json")))
assert abs(float(r["latency_ms"]) - lab["e2e_latency"]) < 1e-6 * lab["e2e_latency"], r["latency_ms"]
assert (r["status"], r["mode"], r["batch"], r["precision"], r["runtime"], r["includes_h2d"]) == \
    ("ok", "training", "8", "fp32", "pytorch", "0"), r
assert r["model_family"] == "neusight-transformer" and r["recipe"] == "bert_large_pretraining@512", r
assert rows["a100-pcie-40gb-gpt3_27-inf-2048-8"]["recipe"] == "gpt3_27@2048"
for rid, r in rows.items():
    suffix = rid.rsplit("-", 1)[-1]
    if suffix in ("fusion", "dp4", "tp4", "pp4_1") or "switchxl4" in rid:
        assert r["status"] == "skipped" and r["reason"], rid
    else:
        assert r["status"] == "ok" and r["model"] == "" and float(r["latency_ms"]) > 0, rid
ok = sum(r["status"] == "ok" for r in rows.values())
assert ok == 34, f"{ok} ok rows, want 34 (single-GPU eager labels of bert/gpt2/gpt3/opt on 5 GPUs)"
print(f"ok: {len(rows)} label rows, {ok} usable")
PY
echo "ok: NeuSight transformer builders and converter"
