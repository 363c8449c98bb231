// Sustained clocks of power-limited cards (perfpred/hw/sustained_clock.hpp).
#include "perfpred/hw/sustained_clock.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "perfpred/hw/power_limit.hpp"

namespace perfpred {

namespace {

/// The clock at the TDP (no power limit set).
double rated_clock_scale(const GpuSpec& gpu) {
  for (const auto& ref : k_full_power_w_per_tflop) {
    if (gpu.compute_capability != ref.compute_capability) continue;
    const double share = (gpu.tdp_w / gpu.fp32_tflops) / ref.w_per_fp32_tflop;
    return share >= 1 ? 1.0 : std::pow(share, 1.0 / k_power_clock_exponent);
  }
  return 1.0;  // a chip family without a full-power reference: its boost clock is taken as sustained
}

/// The full-power reference of a compute capability, directly or through its process sibling; null if none.
const PowerReference* power_reference(const std::string& compute_capability) {
  std::string_view cc = compute_capability;
  for (const auto& sib : k_fp32_power_siblings)
    if (cc == sib.compute_capability) cc = sib.sibling;
  for (const auto& ref : k_full_power_w_per_tflop)
    if (cc == ref.compute_capability) return &ref;
  return nullptr;
}

}  // namespace

double fp32_power_demand_w(const GpuSpec& gpu) {
  if (gpu.segment == "embedded" || !(gpu.tdp_w > 0) || !(gpu.fp32_tflops > 0)) return gpu.tdp_w;
  const PowerReference* ref = power_reference(gpu.compute_capability);
  return ref ? ref->w_per_fp32_tflop * gpu.fp32_tflops : gpu.tdp_w;
}

double full_load_power_w(const GpuSpec& gpu) { return std::min(board_power_limit_w(gpu), fp32_power_demand_w(gpu)); }

// Under a power limit below what the board draws flat out at its TDP, the same power-vs-clock law from there:
// clock = clock at the TDP x (limit / that draw)^(1/3). At the TDP this is the rated clock, so the limit and
// the TDP machinery agree where they meet; on graphics chips it equals the TDP rule with the limit for the TDP.
double sustained_clock_scale(const GpuSpec& gpu) {
  if (gpu.segment == "embedded" || !(gpu.tdp_w > 0) || !(gpu.fp32_tflops > 0)) return 1.0;
  const double rated = rated_clock_scale(gpu);
  const double limit = board_power_limit_w(gpu);
  const double at_tdp = std::min(gpu.tdp_w, fp32_power_demand_w(gpu));  // what the board draws flat out at its TDP
  if (!(limit < at_tdp)) return rated;
  return rated * std::pow(limit / at_tdp, 1.0 / k_power_clock_exponent);
}

double partial_load_clock_gain(double busy, double clock_scale) {
  if (!(clock_scale < 1) || !(busy < 1)) return 1.0;
  return std::min(1.0 / clock_scale, std::pow(busy, -1.0 / k_power_clock_exponent));
}

}  // namespace perfpred
