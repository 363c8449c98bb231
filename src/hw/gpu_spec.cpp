#include "perfpred/hw/gpu_spec.hpp"

#include <algorithm>

namespace perfpred {

// Which path each precision takes (docs/gpus.md, "Peak rates per precision"):
//  fp32: plain FP32 (frameworks' "fp32" convolutions on Ampere+ may use TF32: that is Precision::tf32).
//  tf32: TF32 tensor cores when present, else FP32 math.
//  fp16: tensor cores when present; else packed FP16, but never below FP32: where packed FP16 is
//        crippled (consumer Pascal GP102/GP104 run it at 1/64) runtimes compute in FP32.
//  bf16: tensor cores when present (sm_80+); else non-tensor BF16; before sm_80 there is no BF16
//        arithmetic at all, and frameworks emulate it with FP32 math, so the FP32 rate is used.
//  int8: INT8 tensor cores; else dp4a (sm_61+, GV100); else FP32 (no INT8 dot product).
bool GpuSpec::uses_tensor_cores(Precision p) const {
  if (tensor_cores <= 0) return false;
  switch (p) {
    case Precision::fp32: return false;
    case Precision::tf32: return tensor_tf32_tflops > 0;
    case Precision::fp16: return tensor_fp16_tflops > 0;
    case Precision::bf16: return tensor_bf16_tflops > 0;
    case Precision::int8: return tensor_int8_tops > 0;
  }
  return false;
}

double GpuSpec::vector_flops(Precision p) const {
  double tflops = fp32_tflops;
  switch (p) {
    case Precision::fp32:
    case Precision::tf32: break;
    case Precision::fp16: tflops = std::max(fp16_tflops, fp32_tflops); break;
    case Precision::bf16: tflops = std::max(bf16_tflops, fp32_tflops); break;
    // Elementwise INT8 ops run on the INT32/FP32 pipes; dp4a helps only dot products.
    case Precision::int8: break;
  }
  return tflops * 1e12;
}

double GpuSpec::peak_flops(Precision p) const {
  if (uses_tensor_cores(p)) {
    switch (p) {
      case Precision::tf32: return tensor_tf32_tflops * 1e12;
      case Precision::fp16: return tensor_fp16_tflops * 1e12;
      case Precision::bf16: return tensor_bf16_tflops * 1e12;
      case Precision::int8: return tensor_int8_tops * 1e12;
      case Precision::fp32: break;
    }
  }
  if (p == Precision::int8) return std::max(int8_tops, fp32_tflops) * 1e12;
  return vector_flops(p);
}

}  // namespace perfpred
