#pragma once
// `perfpred report MODEL.onnx --gpu ID [--gpu ID ...] --out report.html`: self-contained HTML report.
#include <string>
#include <vector>

namespace perfpred::cli {

struct ReportCliOptions {
  std::string model;
  std::vector<std::string> gpus;
  std::string out;
  long long batch = 1;
  std::string precision = "fp32";
  std::string mode = "inference";
  std::string runtime = "pytorch";
  std::string optimizer;
  std::vector<std::string> input_shapes;
  bool allow_unknown = false;
  std::string bundle;
  bool analytical = false;
  long long max_layer_bars = 60;
};

/// 0 on success; InputError (2) on bad input; 1 when the file cannot be written.
int run_report(const ReportCliOptions& opts);

}  // namespace perfpred::cli
