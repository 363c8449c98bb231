// Sustained clocks of power-limited cards (perfpred/hw/sustained_clock.hpp).
#include "perfpred/hw/sustained_clock.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace perfpred {

double sustained_clock_scale(const GpuSpec& gpu) {
  if (gpu.segment == "embedded" || !(gpu.tdp_w > 0) || !(gpu.fp32_tflops > 0)) return 1.0;
  for (const auto& ref : k_full_power_w_per_tflop) {
    if (gpu.compute_capability != ref.compute_capability) continue;
    const double share = (gpu.tdp_w / gpu.fp32_tflops) / ref.w_per_fp32_tflop;
    return share >= 1 ? 1.0 : std::pow(share, 1.0 / k_power_clock_exponent);
  }
  return 1.0;  // a chip family without a full-power reference: its boost clock is taken as sustained
}

double full_load_power_w(const GpuSpec& gpu) {
  if (gpu.segment == "embedded" || !(gpu.tdp_w > 0) || !(gpu.fp32_tflops > 0)) return gpu.tdp_w;
  for (const auto& sib : k_fp32_power_siblings) {
    if (gpu.compute_capability != sib.compute_capability) continue;
    for (const auto& ref : k_full_power_w_per_tflop)
      if (std::string_view(ref.compute_capability) == sib.sibling)
        return std::min(gpu.tdp_w, ref.w_per_fp32_tflop * gpu.fp32_tflops);
  }
  return gpu.tdp_w;
}

double partial_load_clock_gain(double busy, double clock_scale) {
  if (!(clock_scale < 1) || !(busy < 1)) return 1.0;
  return std::min(1.0 / clock_scale, std::pow(busy, -1.0 / k_power_clock_exponent));
}

}  // namespace perfpred
