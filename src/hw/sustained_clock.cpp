// Sustained clocks of power-limited cards (perfpred/hw/sustained_clock.hpp).
#include "perfpred/hw/sustained_clock.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include "perfpred/hw/power_limit.hpp"

namespace perfpred {

namespace {

/// Whether the board's power sets its clock here: not an embedded board (its power modes give its clocks),
/// and a spec with a TDP and an FP32 rate.
bool power_sets_clock(const GpuSpec& gpu) {
  return gpu.segment != "embedded" && gpu.tdp_w > 0 && gpu.fp32_tflops > 0;
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
  if (!power_sets_clock(gpu)) return gpu.tdp_w;
  const PowerReference* ref = power_reference(gpu.compute_capability);
  return ref ? ref->w_per_fp32_tflop * gpu.fp32_tflops : gpu.tdp_w;
}

double full_load_power_w(const GpuSpec& gpu) { return std::min(board_power_limit_w(gpu), fp32_power_demand_w(gpu)); }

double clock_under_limit(double limit_w, double draw_w) {
  if (!(limit_w < draw_w) || !(draw_w > 0)) return 1.0;
  const double share = (limit_w / draw_w - k_clock_independent_power_share) / (1 - k_clock_independent_power_share);
  if (!(share > 0)) return k_min_clock_scale;
  return std::max(k_min_clock_scale, std::pow(share, 1.0 / k_power_clock_exponent));
}

// The card's W per TFLOP at its TDP over its chip family's reference; infinity without a reference (the compute
// chips: their boost clock is taken as sustained) or where power does not set the clock.
double rated_power_share(const GpuSpec& gpu) {
  if (!power_sets_clock(gpu)) return std::numeric_limits<double>::infinity();
  for (const auto& ref : k_full_power_w_per_tflop)
    if (gpu.compute_capability == ref.compute_capability) return (gpu.tdp_w / gpu.fp32_tflops) / ref.w_per_fp32_tflop;
  return std::numeric_limits<double>::infinity();
}

// The card against its chip family's reference, both at their TDP: the cube root of their W per TFLOP.
double rated_clock_scale(const GpuSpec& gpu) {
  const double share = rated_power_share(gpu);
  return share >= 1 ? 1.0 : std::pow(share, 1.0 / k_power_clock_exponent);
}

// Under a power limit below what the board draws flat out at its TDP, the same power-vs-clock law from there
// (clock_under_limit). At the TDP this is the rated clock, so the limit and the TDP machinery agree where they
// meet.
double sustained_clock_scale(const GpuSpec& gpu) {
  if (!power_sets_clock(gpu)) return 1.0;
  const double at_tdp = std::min(gpu.tdp_w, fp32_power_demand_w(gpu));  // what the board draws flat out at its TDP
  return rated_clock_scale(gpu) * clock_under_limit(board_power_limit_w(gpu), at_tdp);
}

double partial_load_clock_gain(double busy, double clock_scale) {
  if (!(clock_scale < 1) || !(busy < 1)) return 1.0;
  return std::min(1.0 / clock_scale, std::pow(busy, -1.0 / k_power_clock_exponent));
}

}  // namespace perfpred
