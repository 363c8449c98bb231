#pragma once
/// The efficiency target of the kernel boosters: a kernel's time is its wave-quantised roofline on the
/// GPU divided by an efficiency in (0, 1] that the booster predicts from dimensionless features only
/// (waves, tail, arithmetic intensity over the ridge point, working set over L2, work per SM, shape
/// ratios, precision/phase/runtime codes). An unseen GPU moves the roofline; the booster says how close
/// to it a kernel of that shape gets, and a prediction can never beat the hardware.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "perfpred/hw/gpu_spec.hpp"
#include "perfpred/predict/predictor.hpp"

namespace perfpred::learn {

/// Bundle field `kernel_target` of efficiency bundles (legacy bundles: "log_ratio").
inline constexpr const char* k_efficiency_target = "efficiency";
/// Smallest efficiency a booster may predict (its log label is clamped to [log(this), 0]).
inline constexpr double k_min_efficiency = 1e-3;
/// Decades outside the training range at which the correction has shrunk all the way to the analytical time.
inline constexpr double k_shrink_decades = 1.0;

/// The roofline of one kernel on one GPU: peak math rate of the path the kernel runs on, DRAM bandwidth.
struct Roofline {
  double peak_flops = 0;  ///< FLOP/s of the path (tensor, TF32 or SIMT for matrix kernels; vector otherwise)
                          ///< at the sustained clock (perfpred/hw/sustained_clock.hpp)
  double clock_scale = 1; ///< sustained / rated boost clock of the GPU
  double dram_bps = 0;
  double compute_s = 0;   ///< flops / (peak x useful share of the last wave) for tiled matrix kernels
  double memory_s = 0;    ///< bytes / bandwidth
  double time_s = 0;      ///< max(compute_s, memory_s), at least 1 ns
  bool matrix = false;    ///< a tiled GEMM view (conv, gemm, rnn; not depthwise)
  bool tensor = false;    ///< runs on tensor cores
};

/// How a data source measured, as far as its labels need correcting (docs/accuracy.md, "Learned model").
struct SourceSettings {
  bool tf32_conv = true;     ///< FP32 convolutions may use TF32 tensor cores (PyTorch's default; NeuSight turned it off)
  bool timer_floor = false;  ///< a label includes a per-op launch and dispatch floor (one op timed with CUDA events)
  /// Its convolution rows train the boosters. NeuSight's do not: its random-shape convolutions (odd channel
  /// counts, 5-64 px, batch 11-42) run at about half the efficiency of network-shaped ones on the same GPUs
  /// (DeepBench), and a booster trained on them predicts DeepBench's FP32 forward convolutions 2.4-3.4x too
  /// slow (docs/accuracy.md, "Label corrections"). They are still evaluated.
  bool trains_conv = true;
};
/// Settings of a data source by its name (the rows' `source`): neusight, perfpred-profile (the CUDA harness:
/// FP32 convolutions on FMA math), deepbench and anything else (defaults).
SourceSettings source_settings(const std::string& source);

/// Roofline of `k` on `gpu`; `tf32_conv` lets an FP32 convolution use TF32 where the GPU has it.
Roofline kernel_roofline(const KernelEstimate& k, const GpuSpec& gpu, const PredictOptions& opts, bool tf32_conv = true);

/// The `runtime_code` feature: the kernel library a runtime's kernels come from, not the runtime. PyTorch,
/// ONNX Runtime (CUDA provider) and a bare cuDNN/cuBLAS call run the same cuDNN/cuBLAS kernels (0); the
/// per-op dispatch that separates them is charged on the host timeline, and floored labels have it removed.
/// TensorRT picks its own tactics (1). Bundles of feature_version 3 saw the raw runtime enum instead.
int runtime_library_code(Runtime r);

/// Efficiency-booster features, in order (all dimensionless; no GPU identity or absolute spec).
const std::vector<std::string>& efficiency_feature_names();
/// Features of `k` against its roofline `r` (size efficiency_feature_names().size()); NaN = missing.
void efficiency_features(const KernelEstimate& k, const GpuSpec& gpu, const PredictOptions& opts, const Roofline& r,
                         float* out);
/// XGBoost monotone_constraints string: +1 where efficiency cannot fall as the feature grows (waves,
/// roofline time over the launch floor), 0 elsewhere.
std::string efficiency_monotone_constraints();
/// Features whose training range a bundle records; outside it the correction shrinks toward the analytical time.
const std::vector<std::string>& efficiency_range_features();

/// Categorical features (codes and path flags) whose seen values a bundle records: a value no training row
/// had keeps the analytical time even when it lies between seen values (TF32 between FP32 and FP16). The op
/// code is one: an op its family's booster never trained on (BatchNorm under a norm booster of LayerNorm
/// rows) keeps the analytical time, and so does every kernel of a family served by the fallback booster
/// whose ops no training row had (a held-out family). Bundles without a recorded op_code check ops not.
const std::vector<std::string>& efficiency_code_features();

/// Per-feature [lo, hi] of efficiency_range_features() over training rows.
using FeatureRanges = std::map<std::string, std::pair<double, double>>;
/// Per-feature sorted distinct values of efficiency_code_features() over training rows.
using FeatureCodes = std::map<std::string, std::vector<double>>;
/// Weight in [0, 1] of the learned time against the analytical one: 1 inside `ranges`, falling linearly
/// to 0 at k_shrink_decades outside on the worst feature; 0 where a code feature holds a value not in
/// `codes`. `features` is one row of efficiency_features.
double range_weight(const FeatureRanges& ranges, const float* features, const FeatureCodes& codes = {});
/// `ranges` (and `codes`) resolved to feature columns once, for many rows: (column, lo, hi, seen values).
struct RangeColumn {
  size_t column;
  double lo, hi;
  std::vector<double> seen;  ///< code features: the values training saw (empty: a range only)
};
std::vector<RangeColumn> range_columns(const FeatureRanges& ranges, const FeatureCodes& codes = {});
double range_weight(const std::vector<RangeColumn>& ranges, const float* features);

/// The learned kernel time from a predicted log efficiency: the roofline over the efficiency, never below
/// the kernel's launch floor, blended in log space with the analytical time by `weight` (and never below
/// the roofline, even where the analytical time is).
double efficiency_time_s(const KernelEstimate& k, const Roofline& r, double log_efficiency, double weight);
/// What a timer with a per-op floor measures for a kernel of time `kernel_s`: sqrt(floor^2 + kernel^2)
/// (docs/accuracy.md: measured small ops sit on the floor, large ones on their body, and between the two
/// the timer sees partial overlap).
double with_timer_floor(double kernel_s, double floor_s);
/// A floored measurement says what the kernel took only when it is at least this multiple of the floor:
/// nearer the floor the body could be anything from 0.15x (additive) to 0.57x (quadrature) of the floor at
/// 1.15x, and kernels faster than the floor would be learned as slow as the floor's noise.
inline constexpr double k_floor_identifiable = 2.0;
/// The kernel body behind a floored measurement, inverse of with_timer_floor; 0 when the measurement is
/// under k_floor_identifiable times the floor (not identifiable: such rows do not train).
double body_behind_floor(double measured_s, double floor_s);

}  // namespace perfpred::learn
