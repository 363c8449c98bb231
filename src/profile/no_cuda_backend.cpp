// Built instead of src/cuda when the CUDA harness is not (no nvcc, cuDNN or CUPTI at configure time).
#include "perfpred/profile/backend.hpp"

namespace perfpred {

bool cuda_backend_built() { return false; }

int cuda_device_count() { return 0; }

std::unique_ptr<ProfileBackend> make_cuda_backend(const CudaBackendOptions&) {
  throw BackendUnavailable(
      "the CUDA harness is not built into this perfpred (configure on a machine with nvcc, cuDNN and CUPTI, "
      "or use --backend simulated --gpu ID)");
}

}  // namespace perfpred
