// cuBLAS products: GEMM, batched matmul and attention products, row-major as frameworks store
// them (computed as the column-major transpose), with the compute type each precision implies.
#include "check.hpp"
#include "context.hpp"

namespace perfpred::cuda {

namespace {

cudaDataType_t cuda_type(Precision p) {
  switch (p) {
    case Precision::fp16: return CUDA_R_16F;
    case Precision::bf16: return CUDA_R_16BF;
    case Precision::int8: return CUDA_R_8I;
    default: return CUDA_R_32F;
  }
}

/// FP32 is strict FP32; TF32 opts into tensor cores; half types accumulate in FP32 (as PyTorch);
/// int8 accumulates and writes int32 (IMMA tensor cores, or dp4a before Turing).
cublasComputeType_t compute_type(Precision p) {
  switch (p) {
    case Precision::fp32: return CUBLAS_COMPUTE_32F_PEDANTIC;
    case Precision::tf32: return CUBLAS_COMPUTE_32F_FAST_TF32;
    case Precision::int8: return CUBLAS_COMPUTE_32I;
    default: return CUBLAS_COMPUTE_32F;
  }
}

const char* compute_name(Precision p) {
  switch (p) {
    case Precision::fp32: return "CUBLAS_COMPUTE_32F_PEDANTIC";
    case Precision::tf32: return "CUBLAS_COMPUTE_32F_FAST_TF32";
    case Precision::int8: return "CUBLAS_COMPUTE_32I";
    default: return "CUBLAS_COMPUTE_32F";
  }
}

int to_int(int64_t v) {
  if (v > 0x7fffffff) throw Unsupported("matrix dimension exceeds the 32-bit range of cublasGemmEx");
  return static_cast<int>(v);
}

}  // namespace

Prepared prepare_cublas(Context& c, const PlanEntry& e) {
  Prepared p;
  p.runtime = "cublas";
  p.runtime_version = c.cublas_version;
  const Precision prec = e.precision;
  const bool int8 = prec == Precision::int8;
  if (int8 && e.phase != "forward") throw Unsupported("int8 GEMM is inference only (forward)");
  // The plan's gemm view: C[M,N] = op(A)[M,K] . op(B)[K,N], `batch` times.
  const int64_t batch = e.gemm_batch, m = e.gemm_m, n = e.gemm_n, k = e.gemm_k;
  // Which operand is stored transposed: backward_data multiplies by B^T (and attention's QK^T
  // reads K transposed), backward_weight by A^T.
  bool trans_a = e.phase == "backward_weight";
  bool trans_b = e.phase == "backward_data";
  if (e.op_kind == "attention" && e.label("product") == "qk" && e.phase == "forward") trans_b = true;
  void* a = int8 ? alloc_filled_i8(p, batch * m * k, 1, c.stream) : alloc_filled(p, elem_type(prec), batch * m * k, 1, c.stream);
  void* b = int8 ? alloc_filled_i8(p, batch * k * n, 2, c.stream) : alloc_filled(p, elem_type(prec), batch * k * n, 2, c.stream);
  void* out = alloc(p, batch * m * n * (int8 ? 4 : elem_size(elem_type(prec))));
  const int M = to_int(m), N = to_int(n), K = to_int(k);
  const int lda = trans_a ? M : K, ldb = trans_b ? K : N, ldc = N;
  const cublasOperation_t op_a = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, op_b = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cudaDataType_t dt = cuda_type(prec), dt_out = int8 ? CUDA_R_32I : dt;
  const cublasComputeType_t ct = compute_type(prec);
  // alpha and beta are of the compute type: float, or int32 for CUBLAS_COMPUTE_32I.
  static const float f_one = 1.0f, f_zero = 0.0f;
  static const int32_t i_one = 1, i_zero = 0;
  const void* one = int8 ? static_cast<const void*>(&i_one) : &f_one;
  const void* zero = int8 ? static_cast<const void*>(&i_zero) : &f_zero;
  p.notes.push_back(std::string("compute=") + compute_name(prec) + "; trans_a=" + (trans_a ? "1" : "0") +
                    "; trans_b=" + (trans_b ? "1" : "0"));
  if (batch <= 1) {
    p.run = [=, &c] {
      // Row-major C = A.B is column-major C^T = B^T.A^T: swap the operands and M/N.
      PERFPRED_CUBLAS_CHECK(cublasGemmEx(c.cublas, op_b, op_a, N, M, K, one, b, dt, ldb, a, dt, lda, zero, out, dt_out, ldc, ct,
                                         CUBLAS_GEMM_DEFAULT));
    };
  } else {
    const long long sa = m * k, sb = k * n, sc = m * n;
    const int count = to_int(batch);
    p.run = [=, &c] {
      PERFPRED_CUBLAS_CHECK(cublasGemmStridedBatchedEx(c.cublas, op_b, op_a, N, M, K, one, b, dt, ldb, sb, a, dt, lda, sa,
                                                       zero, out, dt_out, ldc, sc, count, ct, CUBLAS_GEMM_DEFAULT));
    };
  }
  return p;
}

}  // namespace perfpred::cuda
