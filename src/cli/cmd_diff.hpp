#pragma once
// `perfpred diff OLD.onnx NEW.onnx --gpu ID`: what a model change does to latency, memory and energy.
#include <optional>
#include <string>
#include <vector>

#include "predict_choices.hpp"

namespace perfpred::cli {

/// The shared prediction options come from PredictChoices.
struct DiffCliOptions : PredictChoices {
  std::string old_model;
  std::string new_model;
  std::string gpu;
  std::optional<double> fail_over_pct;
  long long top = 10;
  bool json = false;
};

/// 0, or 1 when --fail-over is given and latency or peak memory grew by more than it; 2 on bad input.
int run_diff(const DiffCliOptions& opts);

}  // namespace perfpred::cli
