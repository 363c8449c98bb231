#pragma once
// `perfpred sweep MODEL.onnx --base-gpu ID --vary FIELD=START:STOP:STEP ...`: hypothetical-GPU grid.
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "predict_choices.hpp"

namespace perfpred::cli {

/// The shared prediction options come from PredictChoices.
struct SweepCliOptions : PredictChoices {
  std::string model;
  std::string base_gpu;
  std::vector<std::string> vary;
  long long max_points = 100000;
  bool csv = false;
  bool json = false;
};

/// 0 on success; InputError (2) on bad input.
int run_sweep(const SweepCliOptions& opts);

/// The document `sweep --json` prints (the Python module's sweep()).
nlohmann::json sweep_document(const SweepCliOptions& opts);

}  // namespace perfpred::cli
