#pragma once
/// A loaded bundle, ready to predict: the boosters are deserialised once (lazily per family) and
/// kernels are predicted in batches, one XGBoost call per family.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "perfpred/learn/bundle.hpp"
#include "perfpred/learn/policy.hpp"
#include "perfpred/learn/train.hpp"
#include "perfpred/predict/predictor.hpp"

namespace perfpred::learn {

class LearnedModel {
 public:
  explicit LearnedModel(Bundle bundle);
  ~LearnedModel();
  LearnedModel(const LearnedModel&) = delete;
  LearnedModel& operator=(const LearnedModel&) = delete;

  /// When the boosters are decoded and checked: `now`, at load (a bundle the user named: a damaged one fails
  /// at once), or `on_use` (the shipped bundle `predict` consults by default, whose policy may use none).
  enum class Boosters { now, on_use };
  static std::shared_ptr<LearnedModel> load(const std::filesystem::path& path, Boosters when = Boosters::now);

  const Bundle& bundle() const;
  struct Impl;
  /// Predicted log(measured / analytical) per kernel (0 where no booster applies). `weights`, when given,
  /// gets each kernel's weight of the learned time in [0, 1]: 0 where no booster applies or the kernel is
  /// outside what its booster saw (range_weight: it keeps the analytical time), 1 fully learned.
  std::vector<double> kernel_log_ratios(const std::vector<KernelEstimate>& ks, const GpuSpec& gpu,
                                        const PredictOptions& opts, std::vector<double>* weights = nullptr) const;
  /// Same for kernels on different GPUs and options (evaluation of kernel data sets). Efficiency bundles
  /// cost each sample with its source's settings and, for a source whose timer has a per-op floor, predict
  /// what that timer measures (the kernel plus the bundle's floor for the op, with_timer_floor).
  std::vector<double> sample_log_ratios(const std::vector<KernelSample>& samples,
                                        std::vector<double>* weights = nullptr) const;
  /// The timer floor sample_log_ratios adds to a sample of a source whose labels carry one (the bundle's
  /// floor for the op's floor_key, Bundle::timer_floors); 0 for other sources and non-efficiency bundles.
  /// Evaluation adds the same floor to the analytical time, so both predictors face the same timer.
  double timer_floor_s(const KernelSample& s) const;
  /// Corrected host overhead (seconds) for an analytical one; unchanged when the runtime has no booster.
  double host_overhead_s(double analytical_s, const GpuSpec& gpu, const PredictOptions& opts) const;
  /// Whether a host-overhead booster exists for this runtime.
  bool has_host_model(Runtime r) const;
  /// Factor for the bundle's whole-network target (energy or memory); 1 when the bundle has none.
  double network_factor(const Prediction& p, const GpuSpec& gpu, const PredictOptions& opts) const;
  bool gpu_seen(const std::string& gpu_id) const;

 private:
  std::unique_ptr<Impl> m_impl;
};

/// KernelCorrector backed by a latency bundle.
class BundleCorrector : public KernelCorrector {
 public:
  explicit BundleCorrector(std::shared_ptr<const LearnedModel> model) : m_model(std::move(model)) {}
  double factor(const KernelEstimate& k, const GpuSpec& gpu, const PredictOptions& opts) const override;
  void factors(const std::vector<KernelEstimate>& ks, const GpuSpec& gpu, const PredictOptions& opts,
               std::vector<double>& out) const override;
  double host_overhead_s(double analytical_s, const GpuSpec& gpu, const PredictOptions& opts) const override;
  std::string label() const override;
  bool gpu_seen(const GpuSpec& gpu) const override;
  const LearnedModel& model() const { return *m_model; }
  /// Which predictor the part (k_part_kernels, k_part_host) uses for this GPU and these options: the
  /// bundle's policy, or, for a bundle without one, the bundle wherever it has boosters for the part.
  PartDecision decision(const std::string& part, const GpuSpec& gpu, const PredictOptions& opts) const;

 private:
  std::shared_ptr<const LearnedModel> m_model;
};

/// Apply a bundle to a prediction: energy/memory bundles scale energy_mj (and avg_power_w) or
/// peak_memory_bytes (and fits/shortfall); latency bundles are applied through BundleCorrector.
/// Sets model_bundle and gpu_seen_in_training.
void apply_network_target(const LearnedModel& m, Prediction& p, const GpuSpec& gpu, const PredictOptions& opts);

}  // namespace perfpred::learn
