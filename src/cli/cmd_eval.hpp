#pragma once
// `perfpred eval --model BUNDLE --data PATH... [--json]`: accuracy of a bundle beside the analytical model.
// Also the --model option of `perfpred predict` (run_predict_with_model).
#include <string>
#include <vector>

#include "cmd_predict.hpp"

namespace perfpred::cli {

struct EvalCmdOptions {
  std::string model;
  std::vector<std::string> data;
  std::vector<std::string> holdout_gpus;
  std::vector<std::string> holdout_families;
  double network_fraction = 1.0;
  bool json = false;
};

int run_eval(const EvalCmdOptions& opts);

/// `predict --model BUNDLE`: a latency bundle corrects the prediction. Without --model the shipped
/// default bundle is used when present (a default that cannot be used is skipped with a warning);
/// `analytical` forces the analytical model alone.
int run_predict_with_model(const PredictCmdOptions& opts, const std::string& model, bool analytical);

}  // namespace perfpred::cli
