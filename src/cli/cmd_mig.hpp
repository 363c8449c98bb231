#pragma once
// `perfpred mig MODEL.onnx --gpu ID`: predict every MIG profile of a GPU and recommend one.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "predict_choices.hpp"

namespace perfpred::cli {

/// The shared prediction options come from PredictChoices.
struct MigCliOptions : PredictChoices {
  std::string model;
  std::string gpu;
  std::optional<double> slo_ms;
  double memory_headroom = 0.10;
  bool max_batch = false;
  long long max_batch_limit = 65536;
  bool json = false;
};

/// 0: a profile is recommended; 1: none fits/meets the SLO; InputError (2) on bad input.
int run_mig(const MigCliOptions& opts);

/// The document `mig --json` prints (the Python module's mig()); no recommendation is not an error here.
nlohmann::json mig_document(const MigCliOptions& opts);

}  // namespace perfpred::cli
