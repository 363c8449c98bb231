#pragma once
// `perfpred eval --model BUNDLE --data PATH... [--json]`: accuracy of a bundle beside the analytical model.
// Also the --model option of `perfpred predict` (run_predict_with_model).
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cmd_predict.hpp"

namespace perfpred::cli {

struct EvalCmdOptions {
  std::string model;
  std::vector<std::string> data;
  std::vector<std::string> holdout_gpus;
  std::vector<std::string> holdout_families;
  double network_fraction = 1.0;
  bool json = false;
  std::string rows;  ///< write every evaluated row here (CSV)
};

int run_eval(const EvalCmdOptions& opts);

/// `predict --model BUNDLE...`: at most one bundle per target (`default`: the shipped latency bundle). A
/// latency bundle corrects the kernel and host times; an energy or memory bundle scales the analytical value
/// of its target. Without a latency bundle the analytical model times the network; `analytical` excludes
/// --model.
int run_predict_with_model(const PredictCmdOptions& opts, const std::vector<std::string>& models, bool analytical);

/// The document run_predict_with_model prints with --json (the Python module's predict()).
nlohmann::json predict_document_with_model(const PredictCmdOptions& opts, const std::vector<std::string>& models,
                                           bool analytical);

/// Which per-machine factor a fit varies: the host's (--host-factor) or the GPU's (--gpu-factor).
enum class MachineFactor { host, gpu };

/// predict's latency as a function of the host or the GPU factor (the other one held at opts'), with the
/// bundles run_predict_with_model uses for `models` and `analytical`: the model is imported and costed once (at
/// opts), then predicted at any value.
struct LatencyByFactor {
  PredictRun run;                              ///< the prediction at opts (its host_factor and gpu_factor)
  std::function<double(double)> latency_ms;    ///< latency_ms(F): run.prediction.latency_ms at F = opts'
};
LatencyByFactor latency_by_factor(const PredictCmdOptions& opts, const std::vector<std::string>& models,
                                  bool analytical, MachineFactor which);

}  // namespace perfpred::cli
