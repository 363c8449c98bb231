#pragma once
// `perfpred report MODEL.onnx --gpu ID [--gpu ID ...] --out report.html`: self-contained HTML report.
#include <string>
#include <vector>

#include "predict_choices.hpp"

namespace perfpred::cli {

/// The shared prediction options come from PredictChoices.
struct ReportCliOptions : PredictChoices {
  std::string model;
  std::vector<std::string> gpus;
  std::string out;
  long long max_layer_bars = 60;
};

/// 0 on success; InputError (2) on bad input; 1 when the file cannot be written.
int run_report(const ReportCliOptions& opts);

}  // namespace perfpred::cli
