#pragma once
// Checking macros for every CUDA, cuDNN, cuBLAS and CUPTI call: a failure throws CudaError with
// file, line, the call's text and the library's error name. The throwing functions live in
// check.cpp so the macros stay small at each call site.
#include <stdexcept>
#include <string>

namespace perfpred::cuda {

/// Which library reported the error.
enum class CudaLibrary { runtime, cudnn, cublas, cupti };

/// A failed CUDA/cuDNN/cuBLAS/CUPTI call.
class CudaError : public std::runtime_error {
 public:
  CudaError(const std::string& what, CudaLibrary lib, int code, bool out_of_memory, bool not_supported)
      : std::runtime_error(what), m_lib(lib), m_code(code), m_oom(out_of_memory), m_not_supported(not_supported) {}
  CudaLibrary library() const { return m_lib; }
  int code() const { return m_code; }
  bool out_of_memory() const { return m_oom; }
  bool not_supported() const { return m_not_supported; }

 private:
  CudaLibrary m_lib;
  int m_code;
  bool m_oom;
  bool m_not_supported;
};

[[noreturn]] void throw_cuda_error(int code, const char* call, const char* file, int line);
[[noreturn]] void throw_cudnn_error(int code, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(int code, const char* call, const char* file, int line);
[[noreturn]] void throw_cupti_error(int code, const char* call, const char* file, int line);
/// The message a failure produces (tests; also used by the throwing functions).
std::string format_cuda_error(CudaLibrary lib, int code, const char* call, const char* file, int line);

}  // namespace perfpred::cuda

#define PERFPRED_CUDA_CHECK(call)                                                                      \
  do {                                                                                                 \
    const auto perfpred_status_ = (call);                                                              \
    if (static_cast<int>(perfpred_status_) != 0)                                                       \
      ::perfpred::cuda::throw_cuda_error(static_cast<int>(perfpred_status_), #call, __FILE__, __LINE__); \
  } while (0)
#define PERFPRED_CUDNN_CHECK(call)                                                                      \
  do {                                                                                                  \
    const auto perfpred_status_ = (call);                                                               \
    if (static_cast<int>(perfpred_status_) != 0)                                                        \
      ::perfpred::cuda::throw_cudnn_error(static_cast<int>(perfpred_status_), #call, __FILE__, __LINE__); \
  } while (0)
#define PERFPRED_CUBLAS_CHECK(call)                                                                      \
  do {                                                                                                   \
    const auto perfpred_status_ = (call);                                                                \
    if (static_cast<int>(perfpred_status_) != 0)                                                         \
      ::perfpred::cuda::throw_cublas_error(static_cast<int>(perfpred_status_), #call, __FILE__, __LINE__); \
  } while (0)
#define PERFPRED_CUPTI_CHECK(call)                                                                      \
  do {                                                                                                  \
    const auto perfpred_status_ = (call);                                                               \
    if (static_cast<int>(perfpred_status_) != 0)                                                        \
      ::perfpred::cuda::throw_cupti_error(static_cast<int>(perfpred_status_), #call, __FILE__, __LINE__); \
  } while (0)
