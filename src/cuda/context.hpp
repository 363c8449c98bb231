#pragma once
// Shared state of the CUDA harness (stream, library handles, L2 flush buffer) and the pieces each
// op preparation returns. Only src/cuda includes this.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels.hpp"
#include "perfpred/profile/backend.hpp"

namespace perfpred::cuda {

/// Device memory released on destruction (also during stack unwinding after a failure).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(int64_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept : m_ptr(o.m_ptr), m_bytes(o.m_bytes) { o.m_ptr = nullptr; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return m_ptr; }
  template <typename T> T* as() const { return static_cast<T*>(m_ptr); }
  int64_t bytes() const { return m_bytes; }

 private:
  void* m_ptr = nullptr;
  int64_t m_bytes = 0;
};

struct Context {
  int device = 0;
  cudaStream_t stream = nullptr;
  cudnnHandle_t cudnn = nullptr;
  cublasHandle_t cublas = nullptr;
  DeviceBuffer flush;            ///< 2 x L2 bytes
  int64_t l2_bytes = 0;
  int sm_count = 0;
  bool integrated = false;       ///< cudaDeviceProp::integrated: GPU and CPU share DRAM (Jetson)
  std::string cudnn_version;     ///< "9.19.0"
  std::string cublas_version;
  std::string cuda_version;      ///< runtime
  int64_t workspace_limit_bytes = 0;
};

/// One op ready to run: `run` enqueues it on the context's stream; `keep` owns its buffers and
/// descriptors until the measurement is done.
struct Prepared {
  std::function<void()> run;
  std::string runtime;           ///< "cudnn", "cublas", "cuda"
  std::string runtime_version;
  std::vector<std::string> notes;
  std::vector<std::shared_ptr<void>> keep;
  /// Time per call divided by this (launch overhead: many launches per call).
  int64_t calls_per_run = 1;
  /// False for host copies and launch overhead, where a cold L2 means nothing.
  bool flush_l2 = true;
};

/// A zero-filled or random-filled device buffer of `count` elements, owned by `p.keep`.
void* alloc(Prepared& p, int64_t bytes);
void* alloc_filled(Prepared& p, ElemType t, int64_t count, uint32_t seed, cudaStream_t s);
/// int8 operands (conv and GEMM int8 paths): `count` bytes filled with values in [-64, 63].
void* alloc_filled_i8(Prepared& p, int64_t count, uint32_t seed, cudaStream_t s);
/// Buffer type of a precision; throws Unsupported for int8, which only the conv and GEMM paths take.
ElemType elem_type(Precision p);
/// Bytes per element of a buffer type.
int64_t elem_size(ElemType t);

/// Builders per op family. Throw CudaError (status decided by the caller) or InputError-free
/// std::runtime_error with a reason for configurations they cannot express.
Prepared prepare_cudnn(Context& c, const PlanEntry& e);   // conv, pool, batch_norm, lstm
Prepared prepare_cublas(Context& c, const PlanEntry& e);  // gemm, attention
Prepared prepare_kernels(Context& c, const PlanEntry& e); // activation, elementwise, softmax, layer_norm
Prepared prepare_microbench(Context& c, const PlanEntry& e);  // copy, launch, bandwidth, peak_flops

/// A configuration the harness cannot measure here: becomes an `unsupported` row.
class Unsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace perfpred::cuda
