#pragma once
// A synthetic Turing-like GPU whose rates scale with its SM count, for the learn tests that train on many
// GPUs (test_learn_train.cpp, test_learn_energy.cpp).
#include <string>

#include "perfpred/hw/gpu_spec.hpp"

namespace perfpred::learn::test_support {

inline GpuSpec synthetic_gpu(int sms) {
  GpuSpec g;
  g.id = "synthetic-" + std::to_string(sms);
  g.sm_count = sms;
  g.boost_clock_mhz = 1500;
  g.fp32_tflops = sms * 0.2;
  g.mem_bandwidth_gbps = sms * 10.0;
  g.l2_cache_mb = 4;
  g.compute_capability = "7.5";
  return g;
}

}  // namespace perfpred::learn::test_support
