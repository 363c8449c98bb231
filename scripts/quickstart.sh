#!/usr/bin/env bash
# Set up (Debian packages), build, and run perfpred's main job on a bundled model: predict ResNet-50
# inference and a training step on an A100, then compare a few catalogued GPUs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" --no-python
"$root/scripts/build.sh"
bin=${PERFPRED_BUILD_DIR:-$root/build}/src/cli/perfpred
model=$root/models/zoo/resnet50.onnx

echo
echo "== perfpred inspect (first layers of ResNet-50)"
# No pipe into head: with pipefail, inspect's SIGPIPE would end the script.
layers=$("$bin" inspect "$model" --batch 1)
head -n 12 <<<"$layers"
echo
echo "== perfpred predict: ResNet-50, batch 32, fp16 inference on an A100-SXM4-40GB"
"$bin" predict "$model" --gpu a100-sxm4-40gb --batch 32 --precision fp16
echo
echo "== perfpred predict: one training step with Adam, fp32, batch 64, JSON for scripts"
"$bin" predict "$model" --gpu a100-sxm4-40gb --batch 64 --mode training --optimizer adam --json --no-meta
echo
echo "== the same model, batch 1, on a Jetson Orin Nano at 15 W with TensorRT"
"$bin" predict "$model" --gpu jetson-orin-nano-8gb --runtime tensorrt --precision fp16
