#include "check.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <cupti.h>

namespace perfpred::cuda {

namespace {

const char* cublas_name(int code) {
  switch (static_cast<cublasStatus_t>(code)) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

std::string where(const char* call, const char* file, int line) {
  return std::string(file) + ":" + std::to_string(line) + ": " + call;
}

}  // namespace

std::string format_cuda_error(CudaLibrary lib, int code, const char* call, const char* file, int line) {
  std::string name;
  switch (lib) {
    case CudaLibrary::runtime:
      name = std::string(cudaGetErrorName(static_cast<cudaError_t>(code))) + " (" +
             cudaGetErrorString(static_cast<cudaError_t>(code)) + ")";
      break;
    case CudaLibrary::cudnn: name = cudnnGetErrorString(static_cast<cudnnStatus_t>(code)); break;
    case CudaLibrary::cublas: name = cublas_name(code); break;
    case CudaLibrary::cupti: {
      const char* s = nullptr;
      if (cuptiGetResultString(static_cast<CUptiResult>(code), &s) != CUPTI_SUCCESS || !s) s = "CUPTI_ERROR_UNKNOWN";
      name = s;
      break;
    }
  }
  return where(call, file, line) + " failed: " + name + " [" + std::to_string(code) + "]";
}

void throw_cuda_error(int code, const char* call, const char* file, int line) {
  auto c = static_cast<cudaError_t>(code);
  throw CudaError(format_cuda_error(CudaLibrary::runtime, code, call, file, line), CudaLibrary::runtime, code,
                  c == cudaErrorMemoryAllocation, c == cudaErrorNotSupported || c == cudaErrorInvalidDeviceFunction);
}

void throw_cudnn_error(int code, const char* call, const char* file, int line) {
#if CUDNN_MAJOR >= 9
  // cuDNN 9 reports sub-codes (CUDNN_STATUS_NOT_SUPPORTED_SHAPE = 3002, ...): the family is code / 1000.
  const int family = (code / 1000) * 1000;
  bool oom = code == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
             code == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED;
  bool unsupported = family == CUDNN_STATUS_NOT_SUPPORTED || family == CUDNN_STATUS_BAD_PARAM;
#else
  auto c = static_cast<cudnnStatus_t>(code);
  bool oom = c == CUDNN_STATUS_ALLOC_FAILED;
  bool unsupported = c == CUDNN_STATUS_NOT_SUPPORTED || c == CUDNN_STATUS_BAD_PARAM || c == CUDNN_STATUS_ARCH_MISMATCH;
#endif
  throw CudaError(format_cuda_error(CudaLibrary::cudnn, code, call, file, line), CudaLibrary::cudnn, code, oom, unsupported);
}

void throw_cublas_error(int code, const char* call, const char* file, int line) {
  auto c = static_cast<cublasStatus_t>(code);
  throw CudaError(format_cuda_error(CudaLibrary::cublas, code, call, file, line), CudaLibrary::cublas, code,
                  c == CUBLAS_STATUS_ALLOC_FAILED, c == CUBLAS_STATUS_NOT_SUPPORTED || c == CUBLAS_STATUS_ARCH_MISMATCH);
}

void throw_cupti_error(int code, const char* call, const char* file, int line) {
  throw CudaError(format_cuda_error(CudaLibrary::cupti, code, call, file, line), CudaLibrary::cupti, code, false,
                  false);
}

}  // namespace perfpred::cuda
