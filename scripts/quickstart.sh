#!/usr/bin/env bash
# Set up (Debian packages), build, and run perfpred's main job on a bundled model: predict ResNet-50
# inference and a training step on an A100, then compare a few catalogued GPUs; from Python too when
# torch is there.
# A first run builds only what this needs (the binary and the Python module; no tests, no CUDA plugin,
# no debug info, ccache when installed): scripts/test.sh later builds the rest in the same folder. An
# existing build folder is built as configured.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" --no-torch --no-browser
build=${PERFPRED_BUILD_DIR:-$root/build}
jobs=${PERFPRED_JOBS:-$(nproc)}
if [ ! -f "$build/CMakeCache.txt" ]; then
  args=(-DCMAKE_BUILD_TYPE=${PERFPRED_BUILD_TYPE:-Release} -DPERFPRED_BUILD_TESTS=OFF -DPERFPRED_WITH_CUDA=OFF)
  if command -v ccache >/dev/null; then
    args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S "$root" -B "$build" "${args[@]}" >/dev/null
fi
targets=(perfpred)
# (grep reads all of it: -q would end the pipe early, and pipefail would fail it)
if cmake --build "$build" --target help | grep -w perfpred_python >/dev/null; then targets+=(perfpred_python); fi
cmake --build "$build" -j "$jobs" --target "${targets[@]}"
bin=$build/src/cli/perfpred
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

py=/usr/bin/python3
[ -x "$py" ] || py=python3
echo
if [[ " ${targets[*]} " != *" perfpred_python "* ]]; then
  echo "== no Python module: pybind11 was not found (scripts/setup.sh installs pybind11-dev python3-pybind11)"
elif ! "$py" -c "import torch, torchvision" 2>/dev/null; then
  echo "== Python: PYTHONPATH=$build/python $py -c \"import perfpred; print(perfpred.predict('$model', gpu='l4').latency_ms)\""
  PYTHONPATH="$build/python" "$py" -c "import perfpred; print(perfpred.predict('$model', gpu='l4').latency_ms)"
  echo "   (with torch and torchvision, scripts/setup.sh: a live torchvision model; docs/python.md)"
else
  echo "== Python, a live torchvision ResNet-50 on an L4 (docs/python.md):"
  code="import perfpred, torch, torchvision; print(perfpred.predict(torchvision.models.resnet50(), example_inputs=torch.randn(1,3,224,224), gpu='l4').latency_ms)"
  echo "   PYTHONPATH=$build/python $py -c \"$code\""
  PYTHONPATH="$build/python" "$py" -c "$code"
fi
