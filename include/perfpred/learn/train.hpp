#pragma once
/// Fitting bundles: per-family kernel boosters on log(measured / analytical), a host-overhead booster
/// per runtime, and a whole-network booster for the energy and memory targets.
#include <cstddef>
#include <string>
#include <vector>

#include "perfpred/learn/bundle.hpp"
#include "perfpred/predict/predictor.hpp"

namespace perfpred::learn {

struct TrainOptions {
  int rounds = 300;
  int max_depth = 6;
  double eta = 0.08;
  double subsample = 0.8;
  double colsample_bytree = 0.8;
  double min_child_weight = 2;
  int nthread = 2;
  int seed = 0;
  /// A family with fewer rows gets no booster of its own and uses the fallback.
  size_t min_family_rows = 30;
  /// Features left out of training (their columns are set missing, so no tree splits on them and a
  /// bundle needs no mask at prediction time). A name, or a prefix ending in '*' ("gpu_*").
  std::vector<std::string> drop_features;
  /// A network row trains the host-overhead booster only when doubling the analytical host cost moves its
  /// predicted latency by at least this share. In GPU-bound rows the fit would otherwise push any GPU-side
  /// under-prediction into a large host factor (seen at NAS-Bench-201 batch 256).
  double min_host_sensitivity = 0.25;
};

/// Column indices of `names` matched by `drop` (exact name or prefix ending in '*').
std::vector<size_t> dropped_columns(const std::vector<std::string>& names, const std::vector<std::string>& drop);
/// Throws InputError naming an entry of `drop` that matches no kernel, host or network feature.
void check_drop_features(const std::vector<std::string>& drop);

nlohmann::json to_json(const TrainOptions& o);

/// One measured kernel with its analytical estimate (KernelEstimate terms filled by estimate_kernel).
struct KernelSample {
  KernelEstimate kernel;
  GpuSpec gpu;
  PredictOptions opts;
  double measured_s = 0;
};

/// log(measured / analytical) of a kernel, the kernel boosters' label.
double kernel_label(const KernelSample& s);

/// Fit one booster per booster family with at least min_family_rows rows, and a fallback booster on
/// every row. Replaces out.kernel_models. Samples with a non-positive measurement or estimate are skipped.
void train_kernel_models(const std::vector<KernelSample>& samples, const TrainOptions& opts, Bundle& out);

/// One whole-network measurement of host overhead: the measured latency minus everything the
/// prediction attributes to other terms (kernels, copies, optimizer), against the analytical overhead.
struct HostSample {
  double analytical_host_s = 0;
  double measured_host_s = 0;
  GpuSpec gpu;
  PredictOptions opts;
};

/// Host sample of a network: `p` predicted (kernels already corrected), `measured_latency_s` measured.
/// The measured host share is floored at `floor_share` of the measured latency.
HostSample host_sample(const Prediction& p, double measured_latency_s, const GpuSpec& gpu, const PredictOptions& opts,
                       double floor_share = 0.02);

/// Fit one host-overhead booster per runtime present. Replaces out.host_models.
void train_host_models(const std::vector<HostSample>& samples, const TrainOptions& opts, Bundle& out);

/// One whole-network measurement of the energy or memory target.
struct NetworkSample {
  Prediction prediction;  ///< analytical (latency-corrected when a latency bundle was applied)
  GpuSpec gpu;
  PredictOptions opts;
  double measured = 0;  ///< energy_mj or peak_memory_bytes
};

/// The analytical value of a target in a prediction (latency_ms, energy_mj, peak_memory_bytes).
double analytical_value(const Prediction& p, Target t);

/// Fit the whole-network booster on log(measured / analytical). Sets out.network_model.
void train_network_model(const std::vector<NetworkSample>& samples, Target t, const TrainOptions& opts, Bundle& out);

}  // namespace perfpred::learn
