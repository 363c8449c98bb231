// The exported C entry points of libperfpred_cuda_backend.so (see perfpred/profile/cuda_plugin.hpp).
// No exception crosses the boundary: failures come back as a message.
#include <algorithm>
#include <cstring>
#include <exception>
#include <string>

#include "perfpred/profile/cuda_plugin.hpp"

namespace perfpred::cuda {
int harness_device_count();
std::unique_ptr<ProfileBackend> make_harness(const CudaBackendOptions& o);
}  // namespace perfpred::cuda

namespace {
void copy_error(const std::string& what, char* error, std::size_t error_size) {
  if (!error || error_size == 0) return;
  std::size_t n = std::min(what.size(), error_size - 1);
  std::memcpy(error, what.data(), n);
  error[n] = '\0';
}
}  // namespace

extern "C" __attribute__((visibility("default"))) int perfpred_cuda_plugin_abi() { return perfpred::k_cuda_plugin_abi; }

extern "C" __attribute__((visibility("default"))) int perfpred_cuda_plugin_device_count() {
  try {
    return perfpred::cuda::harness_device_count();
  } catch (...) {
    return 0;
  }
}

extern "C" __attribute__((visibility("default"))) perfpred::ProfileBackend* perfpred_cuda_plugin_make_backend(
    const perfpred::CudaBackendOptions* o, char* error, std::size_t error_size) {
  try {
    return perfpred::cuda::make_harness(o ? *o : perfpred::CudaBackendOptions{}).release();
  } catch (const std::exception& e) {
    copy_error(e.what(), error, error_size);
  } catch (...) {
    copy_error("the CUDA harness failed with an unknown exception", error, error_size);
  }
  return nullptr;
}
