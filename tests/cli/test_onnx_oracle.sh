#!/usr/bin/env bash
# Real-world architectures, shaped exactly: models exported by Debian's torch (tools/export_oracle_models.py:
# torchvision swin_t, maxvit_t, convnext_tiny, vit_b_16, efficientnet_v2_s, regnet, mobilenet_v3,
# deeplabv3, a torch.jit.script model with Loop + If, a decoder step with a KV cache) are run in ONNX
# Runtime (npm onnxruntime-node, installed into <repo>/cache/node) with every node output made a graph
# output; perfpred's `inspect --json` must give every node output the same shape, and predict must run
# (at the exported shapes, and at batch 2 where the batch is symbolic). Also ONNX Runtime-optimized graphs
# (com.microsoft FusedConv, FusedMatMul, SkipLayerNormalization, Gelu) and a contrib-op graph (Attention
# with a KV cache, FastGelu, BiasGelu, opset-18 GroupNormalization), a QOperator-quantised graph
# (quantized_ops: QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger and the com.microsoft QLinear* ops), a
# decoder layer as ONNX Runtime GenAI writes it (llm_contrib_ops: RMSNorm, MatMulNBits, GroupQueryAttention with a
# KV cache, SkipSimplifiedLayerNormalization, RotaryEmbedding, MultiHeadAttention with a past), the rarer ops of
# real exports (misc_ops: DeformConv, MaxUnpool, STFT with its window and mel matrix, the losses, LpNormalization),
# and the ops revised or added in opsets 18-26 (opset18_ops, opset20_ops, opset21_ops, opset23_ops: Attention,
# RMSNormalization, RotaryEmbedding; opset26_ops: TensorScatter, Attention-24, CumProd, BitCast).
# Exports, the npm package and ONNX Runtime's shapes (oracle/ort_node.sh, ort_shapes) are cached under
# <repo>/cache (git-ignored).
# Usage: bash test_onnx_oracle.sh PERFPRED_BINARY REPO_ROOT [MODEL...]   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=${2:?repository root}
shift 2
PY=/usr/bin/python3
"$PY" -c "import torch, torchvision, onnx" 2>/dev/null || { echo "skip: $PY lacks torch, torchvision or onnx"; exit 77; }
. "$ROOT/tests/cli/oracle/ort_node.sh"
OUT="$ROOT/cache/oracle"
models=("$@")
[ ${#models[@]} -gt 0 ] || mapfile -t models < <("$PY" "$ROOT/tools/export_oracle_models.py" --out "$OUT" --list)
list=$(IFS=,; echo "${models[*]}")
ORT_NODE_PATH="$NODE_DIR/node_modules" "$PY" "$ROOT/tools/export_oracle_models.py" --out "$OUT" --only "$list" >"$OUT.export.log" 2>&1 ||
  { echo "FAIL: export failed, see $OUT.export.log"; tail -5 "$OUT.export.log"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
for m in "${models[@]}"; do
  for v in "" .b2; do
    [ -f "$OUT/$m$v.inputs" ] || continue
    label="$m${v:+ (batch 2)}"
    shapes=()
    while IFS= read -r line; do [ -n "$line" ] && shapes+=(--input-shape "$line"); done <"$OUT/$m$v.inputs"
    if ! ort_shapes "$OUT/$m.all.onnx" "$OUT/$m$v.feeds.json" "$OUT/$m$v.ort.json" >"$TMP/ort.json" 2>"$TMP/err"; then
      echo "FAIL: $label: onnxruntime: $(cat "$TMP/err")"; fail=1; continue
    fi
    if ! "$BIN" inspect "$OUT/$m.onnx" "${shapes[@]}" --json >"$TMP/pp.json" 2>"$TMP/err"; then
      echo "FAIL: $label: perfpred inspect: $(cat "$TMP/err")"; fail=1; continue
    fi
    "$PY" "$ROOT/tests/cli/oracle/compare.py" "$TMP/pp.json" "$TMP/ort.json" "$label" || fail=1
    if ! "$BIN" predict "$OUT/$m.onnx" "${shapes[@]}" --gpu a100-sxm4-40gb --json >"$TMP/pred.json" 2>"$TMP/err"; then
      echo "FAIL: $label: perfpred predict: $(cat "$TMP/err")"; fail=1
    fi
  done
done
exit $fail
