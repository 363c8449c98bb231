// Device kernels of the harness. Plain, readable kernels: they are what a framework's own
// elementwise/softmax/norm kernels look like, not tuned competitors of them.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "check.hpp"
#include "kernels.hpp"

namespace perfpred::cuda {

namespace {

template <typename T> __device__ __forceinline__ float to_f(T v);
template <> __device__ __forceinline__ float to_f<float>(float v) { return v; }
template <> __device__ __forceinline__ float to_f<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_f<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T> __device__ __forceinline__ T from_f(float v);
template <> __device__ __forceinline__ float from_f<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_f<__half>(float v) { return __float2half(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) { return __float2bfloat16(v); }

constexpr int k_threads = 256;

unsigned grid_for(int64_t n) {
  int64_t blocks = (n + k_threads - 1) / k_threads;
  if (blocks > 65535LL * 32) blocks = 65535LL * 32;  // grid-stride loops cover the rest
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

void check_launch() { PERFPRED_CUDA_CHECK(cudaGetLastError()); }

/// A deterministic hash of an element index: the fill kernels' source of values.
__device__ __forceinline__ uint32_t element_hash(int64_t i, uint32_t seed) {
  uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed;
  h ^= h >> 16;
  h *= 2246822519u;
  h ^= h >> 13;
  return h;
}

template <typename T>
__global__ void fill_kernel(T* p, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    p[i] = from_f<T>(static_cast<float>(element_hash(i, seed) & 0xffff) / 32768.0f - 1.0f);
}

__global__ void fill_i8_kernel(int8_t* p, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    p[i] = static_cast<int8_t>(static_cast<int>(element_hash(i, seed) & 0x7f) - 64);
}

__global__ void flush_kernel(uint4* p, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    p[i] = make_uint4(static_cast<unsigned>(i), 0u, 1u, 2u);
}

__global__ void empty_kernel() {}

__global__ void copy_kernel(uint4* dst, const uint4* src, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

__global__ void fma_f32_kernel(float* out, int64_t n, int64_t iters) {
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  // Four independent chains hide the FMA latency; the result is stored so nothing is dead code.
  float a = 1.0f + i * 1e-7f, b = 0.999f, c0 = 0.1f, c1 = 0.2f, c2 = 0.3f, c3 = 0.4f;
  for (int64_t k = 0; k < iters; k += 4) {
    c0 = fmaf(a, c0, b);
    c1 = fmaf(a, c1, b);
    c2 = fmaf(a, c2, b);
    c3 = fmaf(a, c3, b);
  }
  out[i] = c0 + c1 + c2 + c3;
}

__global__ void fma_f16_kernel(float* out, int64_t n, int64_t iters) {
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  __half2 a = __floats2half2_rn(0.999f, 0.998f), b = __floats2half2_rn(0.001f, 0.002f);
  __half2 c0 = __floats2half2_rn(0.1f, 0.2f), c1 = c0, c2 = c0, c3 = c0;
  for (int64_t k = 0; k < iters; k += 4) {
    c0 = __hfma2(a, c0, b);
    c1 = __hfma2(a, c1, b);
    c2 = __hfma2(a, c2, b);
    c3 = __hfma2(a, c3, b);
  }
  __half2 r = __hadd2(__hadd2(c0, c1), __hadd2(c2, c3));
  out[i] = __low2float(r) + __high2float(r);
}

__device__ __forceinline__ float act(Activation f, float x) {
  switch (f) {
    case Activation::relu: return x > 0 ? x : 0;
    case Activation::sigmoid: return 1.0f / (1.0f + __expf(-x));
    case Activation::tanh: return tanhf(x);
    case Activation::gelu: return 0.5f * x * (1.0f + erff(x * 0.70710678f));
  }
  return x;
}

__device__ __forceinline__ float act_grad(Activation f, float x) {
  switch (f) {
    case Activation::relu: return x > 0 ? 1.0f : 0.0f;
    case Activation::sigmoid: {
      float s = 1.0f / (1.0f + __expf(-x));
      return s * (1 - s);
    }
    case Activation::tanh: {
      float t = tanhf(x);
      return 1 - t * t;
    }
    case Activation::gelu: {
      float cdf = 0.5f * (1.0f + erff(x * 0.70710678f));
      float pdf = 0.39894228f * __expf(-0.5f * x * x);
      return cdf + x * pdf;
    }
  }
  return 1.0f;
}

template <typename T>
__global__ void act_fwd_kernel(Activation f, const T* x, T* y, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    y[i] = from_f<T>(act(f, to_f(x[i])));
}

template <typename T>
__global__ void act_bwd_kernel(Activation f, const T* x, const T* dy, T* dx, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    dx[i] = from_f<T>(to_f(dy[i]) * act_grad(f, to_f(x[i])));
}

template <typename T>
__global__ void binary_kernel(Binary op, const T* a, const T* b, T* c, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    float x = to_f(a[i]), y = to_f(b[i]);
    c[i] = from_f<T>(op == Binary::add ? x + y : x * y);
  }
}

/// Block-wide sum or max of one value per thread (k_threads threads).
template <bool Max>
__device__ float block_reduce(float v) {
  __shared__ float buf[32];
  for (int o = 16; o > 0; o >>= 1) {
    float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = Max ? fmaxf(v, w) : v + w;
  }
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();
  if (lane == 0) buf[warp] = v;
  __syncthreads();
  int warps = (blockDim.x + 31) / 32;
  v = threadIdx.x < warps ? buf[threadIdx.x] : (Max ? -INFINITY : 0.0f);
  if (warp == 0)
    for (int o = 16; o > 0; o >>= 1) {
      float w = __shfl_xor_sync(0xffffffffu, v, o);
      v = Max ? fmaxf(v, w) : v + w;
    }
  if (threadIdx.x == 0) buf[0] = v;
  __syncthreads();
  return buf[0];
}

template <typename T>
__global__ void softmax_fwd_kernel(const T* x, T* y, int64_t cols) {
  const T* row = x + blockIdx.x * cols;
  T* out = y + blockIdx.x * cols;
  float m = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, to_f(row[c]));
  m = block_reduce<true>(m);
  float s = 0;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(to_f(row[c]) - m);
  s = block_reduce<false>(s);
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) out[c] = from_f<T>(__expf(to_f(row[c]) - m) / s);
}

template <typename T>
__global__ void softmax_bwd_kernel(const T* y, const T* dy, T* dx, int64_t cols) {
  const int64_t off = blockIdx.x * cols;
  float d = 0;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) d += to_f(dy[off + c]) * to_f(y[off + c]);
  d = block_reduce<false>(d);
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
    dx[off + c] = from_f<T>(to_f(y[off + c]) * (to_f(dy[off + c]) - d));
}

template <typename T>
__global__ void ln_fwd_kernel(const T* x, const T* g, const T* b, T* y, float* mean, float* rstd, int64_t cols) {
  const int64_t off = blockIdx.x * cols;
  float s = 0, ss = 0;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    float v = to_f(x[off + c]);
    s += v;
    ss += v * v;
  }
  s = block_reduce<false>(s);
  ss = block_reduce<false>(ss);
  float mu = s / cols, var = fmaxf(ss / cols - mu * mu, 0.0f), r = rsqrtf(var + 1e-5f);
  if (threadIdx.x == 0) {
    mean[blockIdx.x] = mu;
    rstd[blockIdx.x] = r;
  }
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
    y[off + c] = from_f<T>((to_f(x[off + c]) - mu) * r * to_f(g[c]) + to_f(b[c]));
}

template <typename T>
__global__ void ln_bwd_dx_kernel(const T* x, const T* dy, const T* g, const float* mean, const float* rstd, T* dx,
                                 int64_t cols) {
  const int64_t off = blockIdx.x * cols;
  const float mu = mean[blockIdx.x], r = rstd[blockIdx.x];
  float a = 0, bsum = 0;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    float xh = (to_f(x[off + c]) - mu) * r, gy = to_f(dy[off + c]) * to_f(g[c]);
    a += gy;
    bsum += gy * xh;
  }
  a = block_reduce<false>(a);
  bsum = block_reduce<false>(bsum);
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    float xh = (to_f(x[off + c]) - mu) * r, gy = to_f(dy[off + c]) * to_f(g[c]);
    dx[off + c] = from_f<T>(r * (gy - (a + xh * bsum) / cols));
  }
}

template <typename T>
__global__ void ln_bwd_params_kernel(const T* x, const T* dy, const float* mean, const float* rstd, float* dg, float* db,
                                     int64_t rows, int64_t cols) {
  int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (c >= cols) return;
  float sg = 0, sb = 0;
  for (int64_t r = 0; r < rows; ++r) {
    float d = to_f(dy[r * cols + c]);
    sg += d * (to_f(x[r * cols + c]) - mean[r]) * rstd[r];
    sb += d;
  }
  dg[c] = sg;
  db[c] = sb;
}

template <template <typename> class F, typename... Args>
void dispatch(ElemType t, Args&&... args) {
  switch (t) {
    case ElemType::f32: F<float>::run(args...); break;
    case ElemType::f16: F<__half>::run(args...); break;
    case ElemType::bf16: F<__nv_bfloat16>::run(args...); break;
  }
}

template <typename T> struct Fill {
  static void run(void* p, int64_t n, uint32_t seed, cudaStream_t s) {
    fill_kernel<T><<<grid_for(n), k_threads, 0, s>>>(static_cast<T*>(p), n, seed);
  }
};
template <typename T> struct ActFwd {
  static void run(Activation f, const void* x, void* y, int64_t n, cudaStream_t s) {
    act_fwd_kernel<T><<<grid_for(n), k_threads, 0, s>>>(f, static_cast<const T*>(x), static_cast<T*>(y), n);
  }
};
template <typename T> struct ActBwd {
  static void run(Activation f, const void* x, const void* dy, void* dx, int64_t n, cudaStream_t s) {
    act_bwd_kernel<T><<<grid_for(n), k_threads, 0, s>>>(f, static_cast<const T*>(x), static_cast<const T*>(dy),
                                                       static_cast<T*>(dx), n);
  }
};
template <typename T> struct Bin {
  static void run(Binary op, const void* a, const void* b, void* c, int64_t n, cudaStream_t s) {
    binary_kernel<T><<<grid_for(n), k_threads, 0, s>>>(op, static_cast<const T*>(a), static_cast<const T*>(b),
                                                      static_cast<T*>(c), n);
  }
};
template <typename T> struct SmFwd {
  static void run(const void* x, void* y, int64_t rows, int64_t cols, cudaStream_t s) {
    softmax_fwd_kernel<T><<<static_cast<unsigned>(rows), k_threads, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(y), cols);
  }
};
template <typename T> struct SmBwd {
  static void run(const void* y, const void* dy, void* dx, int64_t rows, int64_t cols, cudaStream_t s) {
    softmax_bwd_kernel<T><<<static_cast<unsigned>(rows), k_threads, 0, s>>>(static_cast<const T*>(y),
                                                                            static_cast<const T*>(dy), static_cast<T*>(dx), cols);
  }
};
template <typename T> struct LnFwd {
  static void run(const void* x, const void* g, const void* b, void* y, float* mean, float* rstd, int64_t rows,
                  int64_t cols, cudaStream_t s) {
    ln_fwd_kernel<T><<<static_cast<unsigned>(rows), k_threads, 0, s>>>(static_cast<const T*>(x), static_cast<const T*>(g),
                                                                       static_cast<const T*>(b), static_cast<T*>(y), mean,
                                                                       rstd, cols);
  }
};
template <typename T> struct LnBwd {
  static void run(const void* x, const void* dy, const void* g, const float* mean, const float* rstd, void* dx,
                  float* dg, float* db, int64_t rows, int64_t cols, cudaStream_t s) {
    ln_bwd_dx_kernel<T><<<static_cast<unsigned>(rows), k_threads, 0, s>>>(
        static_cast<const T*>(x), static_cast<const T*>(dy), static_cast<const T*>(g), mean, rstd, static_cast<T*>(dx), cols);
    ln_bwd_params_kernel<T><<<grid_for(cols), k_threads, 0, s>>>(static_cast<const T*>(x), static_cast<const T*>(dy), mean,
                                                                rstd, dg, db, rows, cols);
  }
};

}  // namespace

void launch_fill(void* p, ElemType t, int64_t n, uint32_t seed, cudaStream_t s) {
  dispatch<Fill>(t, p, n, seed, s);
  check_launch();
}

void launch_fill_i8(void* p, int64_t n, uint32_t seed, cudaStream_t s) {
  fill_i8_kernel<<<grid_for(n), k_threads, 0, s>>>(static_cast<int8_t*>(p), n, seed);
  check_launch();
}

void launch_l2_flush(void* p, int64_t bytes, cudaStream_t s) {
  int64_t n = bytes / static_cast<int64_t>(sizeof(uint4));
  flush_kernel<<<grid_for(n), k_threads, 0, s>>>(static_cast<uint4*>(p), n);
  check_launch();
}

void launch_empty(cudaStream_t s) {
  empty_kernel<<<1, 1, 0, s>>>();
  check_launch();
}

void launch_device_copy(void* dst, const void* src, int64_t bytes, cudaStream_t s) {
  int64_t n = bytes / static_cast<int64_t>(sizeof(uint4));
  copy_kernel<<<grid_for(n), k_threads, 0, s>>>(static_cast<uint4*>(dst), static_cast<const uint4*>(src), n);
  check_launch();
}

void launch_peak_fma(void* out, ElemType t, int64_t threads, int64_t iterations, cudaStream_t s) {
  unsigned blocks = static_cast<unsigned>((threads + k_threads - 1) / k_threads);
  if (t == ElemType::f16)
    fma_f16_kernel<<<blocks, k_threads, 0, s>>>(static_cast<float*>(out), threads, iterations);
  else
    fma_f32_kernel<<<blocks, k_threads, 0, s>>>(static_cast<float*>(out), threads, iterations);
  check_launch();
}

void launch_activation_forward(Activation f, ElemType t, const void* x, void* y, int64_t n, cudaStream_t s) {
  dispatch<ActFwd>(t, f, x, y, n, s);
  check_launch();
}

void launch_activation_backward(Activation f, ElemType t, const void* x, const void* dy, void* dx, int64_t n,
                                cudaStream_t s) {
  dispatch<ActBwd>(t, f, x, dy, dx, n, s);
  check_launch();
}

void launch_binary(Binary op, ElemType t, const void* a, const void* b, void* c, int64_t n, cudaStream_t s) {
  dispatch<Bin>(t, op, a, b, c, n, s);
  check_launch();
}

void launch_softmax_forward(ElemType t, const void* x, void* y, int64_t rows, int64_t cols, cudaStream_t s) {
  dispatch<SmFwd>(t, x, y, rows, cols, s);
  check_launch();
}

void launch_softmax_backward(ElemType t, const void* y, const void* dy, void* dx, int64_t rows, int64_t cols,
                             cudaStream_t s) {
  dispatch<SmBwd>(t, y, dy, dx, rows, cols, s);
  check_launch();
}

void launch_layer_norm_forward(ElemType t, const void* x, const void* gamma, const void* beta, void* y, float* mean,
                               float* rstd, int64_t rows, int64_t cols, cudaStream_t s) {
  dispatch<LnFwd>(t, x, gamma, beta, y, mean, rstd, rows, cols, s);
  check_launch();
}

void launch_layer_norm_backward(ElemType t, const void* x, const void* dy, const void* gamma, const float* mean,
                                const float* rstd, void* dx, float* dgamma, float* dbeta, int64_t rows, int64_t cols,
                                cudaStream_t s) {
  dispatch<LnBwd>(t, x, dy, gamma, mean, rstd, dx, dgamma, dbeta, rows, cols, s);
  check_launch();
}

}  // namespace perfpred::cuda
