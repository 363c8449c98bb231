#pragma once
// Kernels the harness needs that cuDNN/cuBLAS lack or that measure the device itself. Host-side
// launchers, callable from plain C++ (.cpp) files.
#include <cstdint>

#include <cuda_runtime.h>

namespace perfpred::cuda {

/// Element type of a buffer the kernels operate on.
enum class ElemType { f32, f16, bf16 };

/// Fill n elements with deterministic values in [-1, 1] (no NaNs: timings of math on garbage vary).
void launch_fill(void* p, ElemType t, int64_t n, uint32_t seed, cudaStream_t s);
/// Fill n int8 elements with deterministic values in [-64, 63] (int8 convolution and GEMM operands).
void launch_fill_i8(void* p, int64_t n, uint32_t seed, cudaStream_t s);
/// Write `bytes` of a buffer: evicts every line of an L2 of at most bytes/2.
void launch_l2_flush(void* p, int64_t bytes, cudaStream_t s);
/// An empty kernel (launch overhead).
void launch_empty(cudaStream_t s);
/// dst = src over `bytes` (achieved DRAM bandwidth).
void launch_device_copy(void* dst, const void* src, int64_t bytes, cudaStream_t s);
/// Dependent FMA chains: 2 * threads * iterations FLOPs (x2 for half2). `out` holds one value per thread.
void launch_peak_fma(void* out, ElemType t, int64_t threads, int64_t iterations, cudaStream_t s);

enum class Activation { relu, sigmoid, tanh, gelu };
/// y = f(x) over n elements.
void launch_activation_forward(Activation f, ElemType t, const void* x, void* y, int64_t n, cudaStream_t s);
/// dx = dy * f'(x).
void launch_activation_backward(Activation f, ElemType t, const void* x, const void* dy, void* dx, int64_t n, cudaStream_t s);

enum class Binary { add, mul };
/// c = a op b.
void launch_binary(Binary op, ElemType t, const void* a, const void* b, void* c, int64_t n, cudaStream_t s);

/// Row-wise softmax of a rows x cols matrix.
void launch_softmax_forward(ElemType t, const void* x, void* y, int64_t rows, int64_t cols, cudaStream_t s);
/// dx = y * (dy - sum(dy * y)) per row.
void launch_softmax_backward(ElemType t, const void* y, const void* dy, void* dx, int64_t rows, int64_t cols, cudaStream_t s);

/// Layer norm over the last dim: y = (x - mean) / sqrt(var + eps) * gamma + beta; saves mean and
/// rstd (float, one per row) for backward.
void launch_layer_norm_forward(ElemType t, const void* x, const void* gamma, const void* beta, void* y, float* mean,
                               float* rstd, int64_t rows, int64_t cols, cudaStream_t s);
/// dx from dy, x, gamma, mean, rstd; dgamma/dbeta (float) by a column reduction.
void launch_layer_norm_backward(ElemType t, const void* x, const void* dy, const void* gamma, const float* mean,
                                const float* rstd, void* dx, float* dgamma, float* dbeta, int64_t rows, int64_t cols,
                                cudaStream_t s);

}  // namespace perfpred::cuda
