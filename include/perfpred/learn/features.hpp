#pragma once
/// The learned model's features, defined once here and used by both training and prediction.
/// Feature names are stable: a bundle records them and refuses to load when they differ.
#include <string>
#include <vector>

#include "perfpred/analysis/cost.hpp"
#include "perfpred/hw/gpu_spec.hpp"
#include "perfpred/predict/predictor.hpp"

namespace perfpred::learn {

/// Version of the feature definitions; bump when a feature changes meaning.
inline constexpr int k_feature_version = 4;  ///< 2: node attributes are analysis feature::names(); 3: the efficiency roofline runs math at the sustained clock; 4: runtime_code is the kernel library (runtime_library_code) and bundles record the codes seen
/// Oldest feature_version still read: version 3 bundles predict as trained (their runtime_code is the raw
/// runtime enum) and have no seen codes (ranges only).
inline constexpr int k_oldest_feature_version = 3;

/// What a bundle predicts (always the log of measured over analytical).
enum class Target { latency, energy, memory };
std::string to_string(Target t);
/// Throws InputError naming `what` and the accepted values.
Target target_from_string(const std::string& s, const std::string& what = "--target");

/// Booster family of an op family: conv_transpose shares conv's booster; view and unknown have none ("").
std::string booster_family(OpFamily f);
/// Every booster family name, in a fixed order.
const std::vector<std::string>& booster_families();
/// Name of the booster used for families without their own data.
inline constexpr const char* k_fallback_family = "fallback";

/// Kernel features, in order.
const std::vector<std::string>& kernel_feature_names();
/// Features of one kernel on one GPU (size kernel_feature_names().size()); NaN = missing.
void kernel_features(const KernelEstimate& k, const GpuSpec& gpu, const PredictOptions& opts, float* out);
std::vector<float> kernel_features(const KernelEstimate& k, const GpuSpec& gpu, const PredictOptions& opts);

/// Host-overhead features (what KernelCorrector::host_overhead_s sees): analytical overhead, GPU, options.
const std::vector<std::string>& host_feature_names();
void host_features(double analytical_host_s, const GpuSpec& gpu, const PredictOptions& opts, float* out);

/// Whole-network features for the energy and memory targets: the analytical prediction's terms.
const std::vector<std::string>& network_feature_names();
void network_features(const Prediction& p, const GpuSpec& gpu, const PredictOptions& opts, float* out);

/// GPU spec features normalised per SM (shared by the three sets above); names prefixed "gpu_".
const std::vector<std::string>& gpu_feature_names();
void gpu_features(const GpuSpec& gpu, const PredictOptions& opts, float* out);

/// Attribute names of NodeCost::attrs that become features (others are ignored).
const std::vector<std::string>& attr_feature_names();
/// Stable numeric code of an op type (index in a fixed list; new ops are appended), -1 when not listed.
int op_code(const std::string& op);

}  // namespace perfpred::learn
