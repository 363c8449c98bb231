#pragma once
/// The C entry points of the CUDA harness plugin (libperfpred_cuda_backend.so, built from src/cuda).
/// perfpred does not link cuDNN, cuBLAS, CUPTI or the CUDA runtime: `perfpred profile --backend cuda`
/// dlopens the plugin, which does. Every other command starts without loading them.
///
/// The plugin and the executable are built together from one tree and share libstdc++, so a
/// ProfileBackend created by the plugin is used and deleted by the executable; the plugin is never
/// unloaded. The ABI number changes whenever CudaBackendOptions or ProfileBackend change layout.
#include <cstddef>

#include "perfpred/profile/backend.hpp"

namespace perfpred {

inline constexpr int k_cuda_plugin_abi = 1;
inline constexpr const char* k_cuda_plugin_file = "libperfpred_cuda_backend.so";
/// Environment variable naming the plugin file explicitly (tests, unusual installs).
inline constexpr const char* k_cuda_plugin_env = "PERFPRED_CUDA_PLUGIN";

}  // namespace perfpred

extern "C" {
/// k_cuda_plugin_abi of the build that produced the plugin.
using perfpred_cuda_plugin_abi_fn = int (*)();
/// Number of CUDA devices (0 when there is none or no driver).
using perfpred_cuda_plugin_device_count_fn = int (*)();
/// A new backend, or nullptr with a one-line reason in `error` (NUL-terminated, truncated to error_size).
using perfpred_cuda_plugin_make_backend_fn = perfpred::ProfileBackend* (*)(const perfpred::CudaBackendOptions* o,
                                                                            char* error, std::size_t error_size);
}
