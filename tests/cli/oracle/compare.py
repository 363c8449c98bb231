#!/usr/bin/python3
"""Compare perfpred's `inspect --json` shapes with ONNX Runtime's (ort_shapes.js output) for every node
output. Usage: compare.py PERFPRED.json ORT.json LABEL. Prints one line; exit 1 on any mismatch, or on a
node output ONNX Runtime computed that perfpred has no node for (an If of which perfpred took the
other branch), listing the first few."""
import json
import sys

pp = json.load(open(sys.argv[1]))
ort = json.load(open(sys.argv[2]))
label = sys.argv[3]
ours = {}
for n in pp["nodes"]:
    for o in n["outputs"]:
        ours[o["name"]] = (n["name"], n["op"], o["shape"])
inputs = {i["name"] for i in pp.get("inputs", [])}
bad = []
absent = []
compared = 0
for name, dims in ort.items():
    if name not in ours:
        if name not in inputs:  # a graph input re-listed as an output is no node's
            absent.append(name)
        continue
    node, op, shape = ours[name]
    compared += 1
    if shape != dims:
        bad.append(f"{node} ({op}) output '{name}': perfpred {shape}, onnxruntime {dims}")
missing = [name for name in ours if name not in ort]
if compared == 0:
    print(f"{label}: no node output compared")
    sys.exit(1)
if absent:
    print(f"{label}: {len(absent)} node outputs onnxruntime computed are not in perfpred's graph (another branch"
          " taken?); first: " + ", ".join(absent[:4]))
    sys.exit(1)
if bad:
    print(f"{label}: {len(bad)} of {compared} node outputs differ from onnxruntime; first: " + "; ".join(bad[:4]))
    sys.exit(1)
print(f"{label}: {compared} node outputs shaped as onnxruntime shapes them"
      + (f" ({len(missing)} outputs onnxruntime did not report)" if missing else ""))
