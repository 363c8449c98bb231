#!/usr/bin/env bash
# An LLM as ONNX Runtime GenAI exports it (tools/genai_decoder.py: RMSNorm, 4-bit MatMulNBits, GroupQueryAttention
# with a KV cache and rotary embedding, SkipSimplifiedLayerNormalization), weights as external data never written:
# inspect counts the logical weights (N x K a projection, not the packed bytes) and reads the 4-bit bytes; a decode
# step is never faster than streaming those bytes at the GPU's bandwidth and grows with the past; a 512-token prompt
# costs more than one decode step; the generator refuses a shape that does not divide into heads.
# Usage: bash test_genai_decoder.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=${2:?repository root}
PY=/usr/bin/python3
"$PY" -c "import onnx" 2>/dev/null || { echo "skip: $PY has no onnx module"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
M="$TMP/decoder.onnx"
"$PY" "$ROOT/tools/genai_decoder.py" --out "$M" --layers 2 2>"$TMP/err" || { echo "FAIL: generator: $(cat "$TMP/err")"; exit 1; }
if "$PY" "$ROOT/tools/genai_decoder.py" --out "$TMP/bad.onnx" --hidden 100 2>"$TMP/err" || ! grep -q "divide" "$TMP/err"; then
  echo "FAIL: --hidden 100 over 32 heads was not refused: $(cat "$TMP/err")"; fail=1
fi
"$BIN" inspect "$M" --dim seq=1 --dim past=1023 --json >"$TMP/inspect.json" 2>"$TMP/err" ||
  { echo "FAIL: inspect: $(cat "$TMP/err")"; exit 1; }
P=(--runtime onnxruntime --precision fp16 --no-copies --json)
for spec in "rtx-4090 1 127" "rtx-4090 1 1023" "rtx-4090 1 8000" "rtx-4090 512 1" "jetson-agx-orin-64gb 1 1023"; do
  set -- $spec
  "$BIN" predict "$M" --gpu "$1" --dim seq="$2" --dim past="$3" "${P[@]}" >"$TMP/$1.$2.$3.json" 2>"$TMP/err" ||
    { echo "FAIL: predict $spec: $(cat "$TMP/err")"; fail=1; }
done
"$BIN" devices --json >"$TMP/devices.json" || fail=1
"$PY" - "$TMP" <<'EOF2' || fail=1
import json, sys
d = sys.argv[1]
load = lambda n: json.load(open(f"{d}/{n}.json"))
ok = True
def check(cond, msg):
    global ok
    if not cond:
        print("FAIL: " + msg)
        ok = False
ins = load("inspect")
hidden, kv, ffn, vocab, layers = 4096, 8 * 128, 14336, 128256, 2
weights = layers * (2 * hidden * hidden + 2 * hidden * kv + 3 * hidden * ffn) + hidden * vocab
norms = (2 * layers + 1) * hidden
check(ins["totals"]["params"] == weights + norms, f"params {ins['totals']['params']} vs {weights + norms}")
q = [n for n in ins["nodes"] if n["name"] == "layers.0.attn.q_proj"][0]
check(q["op"] == "MatMulNBits" and q["params"] == hidden * hidden, f"q_proj {q['op']} params {q['params']}")
gqa = [n for n in ins["nodes"] if n["name"] == "layers.0.attn"][0]
shapes = {o["name"]: o["shape"] for o in gqa["outputs"]}
check(shapes.get("present_key_0") == [1, 8, 1024, 128], f"present_key_0 {shapes.get('present_key_0')}")
check(not [n for n in ins["nodes"] if n["op"].endswith("*")], "an op was not known")
bw = {g["id"]: g["mem_bandwidth_gbps"] for g in load("devices")["devices"]}
floor_ms = weights * 0.5 / (bw["rtx-4090"] * 1e9) * 1e3  # the 4-bit weights, streamed once
lat = {k: load(f"rtx-4090.{k}")["latency_ms"] for k in ("1.127", "1.1023", "1.8000", "512.1")}
check(lat["1.1023"] >= floor_ms, f"decode {lat['1.1023']:.3f} ms below the weight-streaming floor {floor_ms:.3f} ms")
check(lat["1.127"] < lat["1.1023"] < lat["1.8000"], f"decode does not grow with the past: {lat}")
check(lat["512.1"] > 3 * lat["1.1023"], f"a 512-token prompt {lat['512.1']:.2f} ms vs one decode step {lat['1.1023']:.2f} ms")
orin = load("jetson-agx-orin-64gb.1.1023")["latency_ms"]
check(orin > 2 * lat["1.1023"], f"AGX Orin {orin:.2f} ms vs RTX 4090 {lat['1.1023']:.2f} ms (5x less bandwidth)")
sys.exit(0 if ok else 1)
EOF2
exit $fail
