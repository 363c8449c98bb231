#pragma once
/// The energy target of whole-network bundles: a correction on the analytical energy, log(measured /
/// analytical), learned from features that mean the same on every GPU (the sustained clock a power limit
/// leaves, the analytical draw against the limit, idle power against the limit, the GPU-busy share of a
/// step, the batch) and no GPU spec or absolute time. With absolute features (the
/// first design, network_feature_names()) the booster split on values that identify a GPU, such as the
/// analytical optimizer time, which only the memory bandwidth sets: a GPU held out beyond the training
/// range took the correction of the training GPU at that end (docs/accuracy.md, "Learned model").
/// Outside the training range of a feature the correction shrinks toward 1 (k_shrink_decades, as the kernel
/// boosters do); an unseen precision, mode or runtime keeps the analytical energy.
#include <string>
#include <vector>

#include "perfpred/learn/train.hpp"

namespace perfpred::learn {

/// Bundle field `network_target` of bundles whose network booster is the energy correction on
/// energy_feature_names() (older bundles: "log_ratio" on network_feature_names()).
inline constexpr const char* k_energy_target = "energy_ratio";

/// Energy features, in order.
const std::vector<std::string>& energy_feature_names();
/// Features of one analytical prediction on `gpu` (size energy_feature_names().size()); NaN = missing.
void energy_features(const Prediction& p, const GpuSpec& gpu, const PredictOptions& opts, float* out);
/// Continuous features whose training range a bundle records (the correction shrinks outside it).
const std::vector<std::string>& energy_range_features();
/// Code features whose seen values a bundle records (an unseen value keeps the analytical energy).
const std::vector<std::string>& energy_code_features();
/// XGBoost monotone_constraints: the correction does not rise with the sustained clock (below the lowest
/// voltage a board's power falls about linearly with its clock, not as the cube, so the deeper the limit,
/// the more the analytical clock law understates the slowdown).
std::string energy_monotone_constraints();
/// `ranges` and `codes` resolved to columns of energy_feature_names().
std::vector<RangeColumn> energy_range_columns(const FeatureRanges& ranges, const FeatureCodes& codes);

/// The physical GPU of a spec: a power-limited or MIG variant counts as its parent (leave-one-GPU-out
/// folds group a board's power limits together).
std::string physical_gpu(const GpuSpec& gpu);

/// Fit the energy correction: rounds chosen by leave-one-GPU-out over the training GPUs among multiples of
/// opts.early_stopping_every, 0 included (no correction: the bundle predicts the analytical energy), each
/// held-out GPU scored with the shrinkage of its fold's ranges. Sets out.network_model, network_target,
/// network_ranges and network_codes, and records the curve in out.params["early_stopping"].
void train_energy_model(const std::vector<NetworkSample>& samples, const TrainOptions& opts, Bundle& out);

}  // namespace perfpred::learn
