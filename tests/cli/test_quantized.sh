#!/usr/bin/env bash
# Quantised models (ONNX Runtime's QOperator format): a QLinearConv/QLinearMatMul network costs the work of its
# float twin, with its 8-bit weights and int32 biases as parameters; predicted at a float precision, the JSON
# notes name the first integer node and --precision int8, which prices them as INT8 kernels (faster than FP32 on
# a GPU with INT8 tensor cores); a QLinearConv whose filter does not match its input is exit 2 naming the node.
# Usage: bash test_quantized.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
PY=/usr/bin/python3
"$PY" -c "import onnx, numpy" 2>/dev/null || { echo "skip: $PY has no onnx or numpy module"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
# Four 3x3 convolutions of 64 channels at 56x56, a global pool and a classifier: float, and quantised as
# quantize_static writes it (QuantizeLinear, QLinearConv with an int32 bias, QLinearGlobalAveragePool,
# QLinearMatMul, DequantizeLinear); a third copy whose second filter has 32 input channels.
"$PY" - "$TMP" <<'EOF2' || { echo "FAIL: model generation"; exit 1; }
import sys, numpy as np, onnx
from onnx import helper as h, numpy_helper as nh, TensorProto as T
out = sys.argv[1]
rng = np.random.default_rng(0)
def build(quant, bad=False):
    nodes, inits = [], []
    cur = "x"
    if quant:
        inits += [nh.from_array(np.array(0.05, np.float32), "s"), nh.from_array(np.array(128, np.uint8), "z"),
                  nh.from_array(np.array(0.01, np.float32), "ws"), nh.from_array(np.array(0, np.int8), "wz")]
        nodes.append(h.make_node("QuantizeLinear", ["x", "s", "z"], ["xq"], name="quantize"))
        cur = "xq"
    for i in range(4):
        cin = 32 if bad and i == 1 else 64
        w, b, y = f"w{i}", f"b{i}", f"c{i}"
        if quant:
            inits += [nh.from_array(rng.integers(-127, 127, (64, cin, 3, 3)).astype(np.int8), w),
                      nh.from_array(rng.integers(-100, 100, 64).astype(np.int32), b)]
            nodes.append(h.make_node("QLinearConv", [cur, "s", "z", w, "ws", "wz", "s", "z", b], [y],
                                     pads=[1, 1, 1, 1], name=f"conv{i}"))
        else:
            inits += [nh.from_array(rng.standard_normal((64, cin, 3, 3)).astype(np.float32), w),
                      nh.from_array(rng.standard_normal(64).astype(np.float32), b)]
            nodes.append(h.make_node("Conv", [cur, w, b], [y], pads=[1, 1, 1, 1], name=f"conv{i}"))
        cur = y
    if quant:
        nodes += [h.make_node("QLinearGlobalAveragePool", [cur, "s", "z", "s", "z"], ["gap"], domain="com.microsoft",
                              name="pool"),
                  h.make_node("Flatten", ["gap"], ["flat"], name="flatten"),
                  h.make_node("QLinearMatMul", ["flat", "s", "z", "fc", "ws", "wz", "s", "z"], ["yq"], name="fc"),
                  h.make_node("DequantizeLinear", ["yq", "s", "z"], ["y"], name="dequantize")]
        inits.append(nh.from_array(rng.integers(-127, 127, (64, 10)).astype(np.int8), "fc"))
    else:
        nodes += [h.make_node("GlobalAveragePool", [cur], ["gap"], name="pool"),
                  h.make_node("Flatten", ["gap"], ["flat"], name="flatten"),
                  h.make_node("MatMul", ["flat", "fc"], ["y"], name="fc")]
        inits.append(nh.from_array(rng.standard_normal((64, 10)).astype(np.float32), "fc"))
    g = h.make_graph(nodes, "net", [h.make_tensor_value_info("x", T.FLOAT, ["batch", 64, 56, 56])],
                     [h.make_tensor_value_info("y", T.FLOAT, None)], inits)
    ops = [h.make_opsetid("", 13)] + ([h.make_opsetid("com.microsoft", 1)] if quant else [])
    return h.make_model(g, opset_imports=ops, ir_version=8)
onnx.save(build(False), f"{out}/float.onnx")
onnx.save(build(True), f"{out}/quant.onnx")
onnx.save(build(True, bad=True), f"{out}/bad.onnx")
EOF2
P=(--gpu a100-sxm4-40gb --batch 32 --runtime onnxruntime --no-copies)
for m in float quant; do
  "$BIN" inspect "$TMP/$m.onnx" --batch 32 --json >"$TMP/$m.inspect.json" 2>"$TMP/err" ||
    { echo "FAIL: inspect $m: $(cat "$TMP/err")"; fail=1; }
  for p in fp32 int8; do
    "$BIN" predict "$TMP/$m.onnx" "${P[@]}" --precision $p --json >"$TMP/$m.$p.json" 2>"$TMP/err" ||
      { echo "FAIL: predict $m --precision $p: $(cat "$TMP/err")"; fail=1; }
  done
done
"$PY" - "$TMP" <<'EOF2' || fail=1
import json, sys
d = sys.argv[1]
load = lambda n: json.load(open(f"{d}/{n}.json"))
fi, qi = load("float.inspect"), load("quant.inspect")
ok = True
def check(cond, msg):
    global ok
    if not cond:
        print("FAIL: " + msg)
        ok = False
conv = lambda doc: [n for n in doc["nodes"] if n["name"].startswith("conv")]
for f, q in zip(conv(fi), conv(qi)):
    check(q["op"] == "QLinearConv", f"{q['name']} is {q['op']}")
    # the float conv's MACs and bias, plus 2 a output for the requantisation
    outs = 32 * 64 * 56 * 56
    check(abs(q["flops"] - (f["flops"] + 2 * outs)) < 1, f"{q['name']}: flops {q['flops']} vs float {f['flops']} + {2 * outs}")
    check(q["params"] == f["params"] == 64 * 64 * 9 + 64, f"{q['name']}: params {q['params']} vs float {f['params']}")
    check(q["bytes_written"] * 4 == f["bytes_written"], f"{q['name']}: 8-bit output {q['bytes_written']} vs {f['bytes_written']}")
fc = [n for n in qi["nodes"] if n["name"] == "fc"][0]
check(fc["params"] == 640, f"QLinearMatMul params {fc['params']}")
check(qi["totals"]["params"] == fi["totals"]["params"], f"total params {qi['totals']['params']} vs {fi['totals']['params']}")
q32, q8, f8 = load("quant.fp32"), load("quant.int8"), load("float.int8")
note = [n for n in q32["notes"] if n.startswith("quantised model")]
check(note and "QLinearConv 'conv0' (and 4 more integer nodes)" in note[0] and "--precision int8" in note[0],
      f"the fp32 prediction's notes: {q32['notes']}")
check(not [n for n in q8["notes"] if n.startswith("quantised model")], f"the int8 prediction's notes: {q8['notes']}")
check(q8["latency_ms"] < q32["latency_ms"], f"int8 {q8['latency_ms']} ms not faster than fp32 {q32['latency_ms']} ms")
# the same convolutions as INT8 kernels: within 25% of the float twin predicted at int8 (the quantised one adds
# the quantise/dequantise ops and the requantisation)
check(abs(q8["latency_ms"] / f8["latency_ms"] - 1) < 0.25, f"quantised {q8['latency_ms']} vs float {f8['latency_ms']} ms at int8")
sys.exit(0 if ok else 1)
EOF2
"$BIN" predict "$TMP/bad.onnx" "${P[@]}" >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -ne 2 ] || ! grep -q "conv1" "$TMP/err" || [ "$(wc -l <"$TMP/err")" -ne 1 ]; then
  echo "FAIL: a QLinearConv with a mismatched filter: exit $rc, $(cat "$TMP/err")"; fail=1
fi
exit $fail
