#!/usr/bin/env bash
# Compile the CUDA harness (src/cuda, its plugin and its unit tests) against another CUDA toolkit and
# cuDNN than the machine's default, to check the version guards (CUPTI record layouts, cuDNN 8/9
# status codes and APIs). No GPU is needed: the GPU tests skip themselves.
#
# Usage: scripts/check-cuda-portability.sh NVCC CUDNN_INCLUDE_DIR [CUDNN_LIBRARY]
#   NVCC               the nvcc of the toolkit to check (its toolkit root must hold include/, lib64/
#                      and nvvm/libdevice, as NVIDIA's installers lay them out)
#   CUDNN_INCLUDE_DIR  the folder holding that cuDNN's cudnn.h
#   CUDNN_LIBRARY      its libcudnn.so; without it the plugin and tests are linked against a stub
#                      made of the cuDNN symbols the harness uses, which checks every other library's
#                      symbols (cudart, cuBLAS, CUPTI) but not cuDNN's.
# Environment: PERFPRED_BUILD_DIR (default build-portability), PERFPRED_JOBS (default 2).
# docs/profiling.md ("Portability") says how CUDA 11.8 with cuDNN 8 was checked this way.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 2 ]; then
  sed -n 2,15p "$0" >&2
  exit 2
fi
nvcc=$1
cudnn_include=$2
cudnn_library=${3:-}
build=${PERFPRED_BUILD_DIR:-$root/build-portability}
jobs=${PERFPRED_JOBS:-2}
[ -x "$nvcc" ] || { echo "check-cuda-portability: $nvcc is not an executable nvcc" >&2; exit 2; }
[ -f "$cudnn_include/cudnn.h" ] || { echo "check-cuda-portability: $cudnn_include has no cudnn.h" >&2; exit 2; }
toolkit=$(cd "$(dirname "$nvcc")/.." && pwd)
cupti_include=$toolkit/include
[ -f "$cupti_include/cupti.h" ] || cupti_include=$toolkit/extras/CUPTI/include
cupti_library=$(ls "$toolkit"/lib64/libcupti.so "$toolkit"/extras/CUPTI/lib64/libcupti.so 2>/dev/null | head -1 || true)
[ -n "$cupti_library" ] || { echo "check-cuda-portability: no libcupti.so under $toolkit" >&2; exit 2; }

mkdir -p "$build"
stub_dir=""
if [ -z "$cudnn_library" ]; then
  stub_dir=$build/cudnn-stub
  mkdir -p "$stub_dir"
  cudnn_library=$stub_dir/libcudnn.so
  # A placeholder first, so CMake's configure finds a library; replaced by the stub once the
  # harness objects exist and name the cuDNN symbols they use.
  [ -f "$cudnn_library" ] || echo 'void perfpred_cudnn_stub(void) {}' | cc -shared -fPIC -x c - -o "$cudnn_library"
fi

echo "check-cuda-portability: configure ($("$nvcc" --version | grep -o 'release [0-9.]*'), cuDNN headers $cudnn_include)" >&2
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$nvcc" -DCUDAToolkit_ROOT="$toolkit" \
  -DCUDNN_INCLUDE_DIR="$cudnn_include" -DCUDNN_LIBRARY="$cudnn_library" \
  -DCUPTI_INCLUDE_DIR="$cupti_include" -DCUPTI_LIBRARY="$cupti_library" >"$build/configure.log" 2>&1
grep "perfpred: CUDA" "$build/configure.log" >&2
grep -q "CUDA harness enabled" "$build/configure.log" || { echo "check-cuda-portability: harness not enabled" >&2; exit 1; }

echo "check-cuda-portability: compile src/cuda" >&2
cmake --build "$build" -j "$jobs" --target perfpred_cuda
if [ -n "$stub_dir" ]; then
  nm -u "$build"/src/cuda/CMakeFiles/perfpred_cuda.dir/*.o | awk '$2 ~ /^cudnn/ {print $2}' | sort -u >"$stub_dir/symbols.txt"
  while read -r s; do
    grep -qw "$s" "$cudnn_include"/cudnn*.h || { echo "check-cuda-portability: $s is not declared by this cuDNN" >&2; exit 1; }
  done <"$stub_dir/symbols.txt"
  awk '{print "void " $1 "(void) {}"}' "$stub_dir/symbols.txt" | cc -shared -fPIC -Wl,-soname,libcudnn.so.8 -x c - -o "$cudnn_library"
  ln -sf libcudnn.so "$stub_dir/libcudnn.so.8"
  ln -sf libcudnn.so "$stub_dir/libcudnn.so.9"
fi
export LD_LIBRARY_PATH=${stub_dir:+$stub_dir:}$toolkit/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "check-cuda-portability: link the plugin and the harness tests" >&2
cmake --build "$build" -j "$jobs" --target perfpred_cuda_backend test_cuda
"$build/tests/test_cuda"
echo "check-cuda-portability: ok" >&2
