// The efficiency target of the kernel boosters: roofline, dimensionless features, per-source label
// settings, out-of-range shrinkage. Training (train_efficiency.cpp) and prediction (model.cpp) call these.
#include "perfpred/learn/efficiency.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "perfpred/hw/sustained_clock.hpp"
#include "perfpred/learn/features.hpp"

namespace perfpred::learn {
namespace {

constexpr float k_nan = std::numeric_limits<float>::quiet_NaN();
// Reference tile edge for the GEMM tile-tail features (the common cuBLAS/cuDNN block edge).
constexpr double k_tile_edge = 128;

float lg(double v) { return (v > 0 && std::isfinite(v)) ? static_cast<float>(std::log10(v)) : k_nan; }
// log10 of a size-like quantity, saturated at `cap` (log10): past it a kernel is simply large. Without the
// cap the largest values occur only on the slowest training GPU (P4: fewest SMs, longest kernels), and a
// tree that splits there learns that GPU's efficiency for every large kernel of an unseen one.
float lg_capped(double v, double cap) {
  const float l = lg(v);
  return std::isnan(l) ? l : std::min(l, static_cast<float>(cap));
}
// Saturation points: 100 waves, 100x the launch floor, 1 GFLOP and 100 MB per SM.
constexpr double k_cap_log_waves = 2, k_cap_log_over_launch = 2, k_cap_log_flops_per_sm = 9,
                 k_cap_log_bytes_per_sm = 8;
float f(double v) { return std::isfinite(v) ? static_cast<float>(v) : k_nan; }

double attr_or(const KernelEstimate& k, const char* name, double def) {
  for (const auto& [key, v] : k.attrs)
    if (key == name) return v;
  return def;
}

// Arithmetic a 3x3 stride-1 dense convolution needs with Winograd F(2x2, 3x3), the transform cuDNN picks
// for such layers: 2.25x fewer multiplies than the direct count (measured convs beat the direct roofline).
constexpr double k_winograd_flop_share = 1.0 / 2.25;

bool winograd_eligible(const KernelEstimate& k) {
  const double kh = attr_or(k, "kernel_h", 0), kw = attr_or(k, "kernel_w", kh);
  const double sh = attr_or(k, "stride_h", 1), sw = attr_or(k, "stride_w", sh);
  return attr_or(k, "groups", 1) == 1 && kh == 3 && kw == 3 && sh == 1 && sw == 1 &&
         attr_or(k, "dilation_h", 1) == 1;
}

// One input channel per group, as the analytical model counts it (ATen's ConvParams::is_depthwise): two or more
// are cuDNN's grouped convolution, a GEMM per group (docs/model.md, "Grouped convolutions").
bool depthwise(const KernelEstimate& k) {
  const double groups = attr_or(k, "groups", 1), cin = attr_or(k, "in_channels", 0);
  return groups > 1 && cin > 0 && cin / groups == 1;
}

int phase_code(const std::string& phase) {
  static const std::vector<std::string> phases = {"forward", "backward_data", "backward_weight",
                                                  "backward", "loss", "optimizer"};
  auto it = std::find(phases.begin(), phases.end(), phase);
  return it == phases.end() ? -1 : static_cast<int>(it - phases.begin());
}

// Share of the last tile of an edge of `n` elements that holds work (1 when n is a multiple of the edge).
double tile_fill(double n) {
  if (!(n > 0)) return std::numeric_limits<double>::quiet_NaN();
  const double tiles = std::ceil(n / k_tile_edge);
  return n / (tiles * k_tile_edge);
}

const std::vector<std::string> k_own = {
    "family_code", "op_code", "fused_ops", "phase_code", "precision_code", "runtime_code", "tensor_path",
    "matrix_path", "log_ai_over_ridge", "log_compute_over_memory", "log_waves", "tail_fraction",
    "log_ws_over_l2", "log_work_per_sm", "log_bytes_per_sm", "log_roofline_over_launch", "log_batch",
    "gemm_log_batch", "gemm_log_m", "gemm_log_n", "gemm_log_k", "gemm_log_m_over_n", "gemm_log_k_over_mn",
    "gemm_m_tile_fill", "gemm_n_tile_fill"};

// A function-local static: attr_feature_names() lives in another translation unit, whose statics may
// not be initialised yet when this one's are.
const std::vector<std::string>& names() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> n = k_own;
    for (const auto& a : attr_feature_names()) n.push_back("attr_" + a);
    return n;
  }();
  return v;
}

}  // namespace

SourceSettings source_settings(const std::string& source) {
  SourceSettings s;
  if (source == "neusight") {
    s.tf32_conv = false;   // collect.py sets cudnn.allow_tf32 = False
    s.timer_floor = true;  // one PyTorch op between two CUDA events: dispatch and launch are in the label
    s.trains_conv = false; // random-shape convolutions, half as efficient as network-shaped ones (efficiency.hpp)
  }
  if (source == "perfpred-profile") {
    // perfpred's own CUDA harness runs `fp32` convolutions with CUDNN_FMA_MATH (src/cuda/ops_cudnn.cpp):
    // TF32 is its own precision there. Costing them on the TF32 roofline made the H200's FP32 convolutions
    // look 3-4x slower than the model (data/measured/h200-harness).
    s.tf32_conv = false;
  }
  // deepbench: cuDNN/cuBLAS called directly and timed over many repeats; no floor, no TF32 on its GPUs.
  return s;
}

Roofline kernel_roofline(const KernelEstimate& k, const GpuSpec& gpu, const PredictOptions& opts, bool tf32_conv) {
  Roofline r;
  const double simt = std::max(0.0, gpu.fp32_tflops) * 1e12;
  const bool conv = k.family == OpFamily::conv || k.family == OpFamily::conv_transpose;
  const bool matrix_family = conv || k.family == OpFamily::gemm || k.family == OpFamily::rnn;
  r.matrix = matrix_family && k.gemm && !(conv && depthwise(k));
  if (r.matrix) {
    if (opts.precision == Precision::fp32 && conv && tf32_conv && gpu.uses_tensor_cores(Precision::tf32)) {
      r.peak_flops = gpu.peak_flops(Precision::tf32);
      r.tensor = true;
    } else {
      r.peak_flops = std::max(gpu.peak_flops(opts.precision), simt);
      r.tensor = opts.precision != Precision::fp32 && gpu.uses_tensor_cores(opts.precision);
    }
  } else {
    r.peak_flops = std::max(gpu.vector_flops(opts.precision), simt);
  }
  // Math at the clock the card sustains under its power limit (DRAM bandwidth does not follow it).
  r.clock_scale = sustained_clock_scale(gpu);
  r.peak_flops *= r.clock_scale;
  r.dram_bps = std::max(0.0, gpu.mem_bandwidth_gbps) * 1e9;
  const double wave_share = (r.matrix && k.waves > 0) ? std::clamp(k.wave_efficiency, 0.05, 1.0) : 1.0;
  const double flops = (conv && r.matrix && winograd_eligible(k)) ? k.flops * k_winograd_flop_share : k.flops;
  r.compute_s = r.peak_flops > 0 ? flops / (r.peak_flops * wave_share) : 0;
  r.memory_s = r.dram_bps > 0 ? k.bytes / r.dram_bps : 0;
  r.time_s = std::max({r.compute_s, r.memory_s, 1e-9});
  return r;
}

const std::vector<std::string>& efficiency_feature_names() { return names(); }

int runtime_library_code(Runtime r) { return r == Runtime::tensorrt ? 1 : 0; }

void efficiency_features(const KernelEstimate& k, const GpuSpec& gpu, const PredictOptions& opts, const Roofline& r,
                         float* out) {
  size_t i = 0;
  const std::string fam = booster_family(k.family);
  const auto& fams = booster_families();
  auto fit = std::find(fams.begin(), fams.end(), fam);
  const double sms = gpu.sm_count > 0 ? gpu.sm_count : std::numeric_limits<double>::quiet_NaN();
  const double ridge = r.dram_bps > 0 ? r.peak_flops / r.dram_bps : 0;
  out[i++] = fit == fams.end() ? -1.0f : static_cast<float>(fit - fams.begin());
  out[i++] = static_cast<float>(op_code(k.op));
  out[i++] = static_cast<float>(std::count(k.op.begin(), k.op.end(), '+') + 1);
  out[i++] = static_cast<float>(phase_code(k.phase));
  out[i++] = static_cast<float>(static_cast<int>(opts.precision));
  out[i++] = static_cast<float>(runtime_library_code(opts.runtime));
  out[i++] = r.tensor ? 1.0f : 0.0f;
  out[i++] = r.matrix ? 1.0f : 0.0f;
  out[i++] = (k.bytes > 0 && k.flops > 0 && ridge > 0) ? lg(k.flops / k.bytes / ridge) : k_nan;
  out[i++] = (r.compute_s > 0 && r.memory_s > 0) ? lg(r.compute_s / r.memory_s) : k_nan;
  out[i++] = (r.matrix && k.waves > 0) ? lg_capped(k.waves, k_cap_log_waves) : k_nan;
  out[i++] = (r.matrix && k.waves > 0) ? f(1.0 - k.wave_efficiency) : k_nan;
  out[i++] = gpu.l2_cache_mb > 0 ? lg(k.bytes / (gpu.l2_cache_mb * 1024 * 1024)) : k_nan;
  out[i++] = lg_capped(k.flops / sms, k_cap_log_flops_per_sm);
  out[i++] = lg_capped(k.bytes / sms, k_cap_log_bytes_per_sm);
  out[i++] = k.launch_s > 0 ? lg_capped(r.time_s / k.launch_s, k_cap_log_over_launch) : k_nan;
  out[i++] = lg(static_cast<double>(opts.batch));
  if (k.gemm) {
    const double m = static_cast<double>(k.gemm->m), n = static_cast<double>(k.gemm->n);
    const double kk = static_cast<double>(k.gemm->k);
    out[i++] = lg(static_cast<double>(k.gemm->batch));
    out[i++] = lg(m);
    out[i++] = lg(n);
    out[i++] = lg(kk);
    out[i++] = (m > 0 && n > 0) ? lg(m / n) : k_nan;
    out[i++] = (m > 0 && n > 0 && kk > 0) ? lg(kk / std::sqrt(m * n)) : k_nan;
    out[i++] = f(tile_fill(m));
    out[i++] = f(tile_fill(n));
  } else {
    for (int j = 0; j < 8; ++j) out[i++] = k_nan;
  }
  const auto& attrs = attr_feature_names();
  for (size_t a = 0; a < attrs.size(); ++a) out[i + a] = k_nan;
  static const std::unordered_map<std::string, size_t> attr_index = [&] {
    std::unordered_map<std::string, size_t> m;
    for (size_t a = 0; a < attrs.size(); ++a) m.emplace(attrs[a], a);
    return m;
  }();
  for (const auto& [name, value] : k.attrs) {
    auto it = attr_index.find(name);
    if (it != attr_index.end()) out[i + it->second] = f(value);
  }
}

std::string efficiency_monotone_constraints() {
  std::string s = "(";
  const auto& n = names();
  for (size_t i = 0; i < n.size(); ++i) {
    if (i) s += ",";
    s += (n[i] == "log_waves" || n[i] == "log_roofline_over_launch") ? "1" : "0";
  }
  return s + ")";
}

const std::vector<std::string>& efficiency_range_features() {
  // The codes are here too: a precision, phase, runtime or path (tensor cores) outside the codes seen keeps
  // the analytical time; one between seen codes is caught by the seen values (efficiency_code_features()).
  static const std::vector<std::string> v = {"log_ai_over_ridge", "log_waves", "log_ws_over_l2", "log_work_per_sm",
                                             "log_bytes_per_sm", "log_roofline_over_launch", "precision_code",
                                             "phase_code", "runtime_code", "tensor_path", "matrix_path"};
  return v;
}

const std::vector<std::string>& efficiency_code_features() {
  // op_code too: a family's booster that learned from some ops only (the norm booster from NeuSight's
  // LayerNorm rows) says nothing about another op of the family (BatchNorm), which keeps the analytical time.
  static const std::vector<std::string> v = {"precision_code", "phase_code", "runtime_code", "tensor_path",
                                             "matrix_path", "op_code"};
  return v;
}

std::vector<RangeColumn> range_columns(const FeatureRanges& ranges, const FeatureCodes& codes) {
  const auto& n = names();
  std::vector<RangeColumn> out;
  for (const auto& [name, lohi] : ranges) {
    auto it = std::find(n.begin(), n.end(), name);
    if (it != n.end()) out.push_back({static_cast<size_t>(it - n.begin()), lohi.first, lohi.second, {}});
  }
  for (const auto& [name, seen] : codes) {
    auto it = std::find(n.begin(), n.end(), name);
    if (it == n.end() || seen.empty()) continue;
    out.push_back({static_cast<size_t>(it - n.begin()), seen.front(), seen.back(), seen});
  }
  return out;
}

double range_weight(const std::vector<RangeColumn>& ranges, const float* features) {
  double worst = 0;
  for (const auto& r : ranges) {
    const double v = features[r.column];
    if (!std::isfinite(v)) continue;
    if (!r.seen.empty() && std::find(r.seen.begin(), r.seen.end(), v) == r.seen.end()) return 0;
    worst = std::max({worst, r.lo - v, v - r.hi});
  }
  return std::clamp(1.0 - worst / k_shrink_decades, 0.0, 1.0);
}

double range_weight(const FeatureRanges& ranges, const float* features, const FeatureCodes& codes) {
  return range_weight(range_columns(ranges, codes), features);
}

double efficiency_time_s(const KernelEstimate& k, const Roofline& r, double log_efficiency, double weight) {
  const double le = std::clamp(log_efficiency, std::log(k_min_efficiency), 0.0);
  const double learned = std::max(r.time_s / std::exp(le), k.launch_s);
  if (!(k.time_s > 0) || weight >= 1) return learned;
  // Shrunk toward the analytical time, but never faster than the roofline.
  return std::max(std::exp(weight * std::log(learned) + (1 - weight) * std::log(k.time_s)), r.time_s);
}

double with_timer_floor(double kernel_s, double floor_s) {
  return floor_s > 0 ? std::sqrt(floor_s * floor_s + kernel_s * kernel_s) : kernel_s;
}

double body_behind_floor(double measured_s, double floor_s) {
  if (!(floor_s > 0)) return measured_s;
  if (measured_s < k_floor_identifiable * floor_s) return 0;
  return std::sqrt(measured_s * measured_s - floor_s * floor_s);
}

}  // namespace perfpred::learn
