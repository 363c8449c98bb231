#pragma once
// `perfpred diff OLD.onnx NEW.onnx --gpu ID`: what a model change does to latency, memory and energy.
#include <optional>
#include <string>
#include <vector>

namespace perfpred::cli {

struct DiffCliOptions {
  std::string old_model;
  std::string new_model;
  std::string gpu;
  long long batch = 1;
  std::string precision = "fp32";
  std::string mode = "inference";
  std::string runtime = "pytorch";
  std::string optimizer;
  std::vector<std::string> input_shapes;
  bool allow_unknown = false;
  std::string bundle;
  bool analytical = false;
  std::optional<double> fail_over_pct;
  long long top = 10;
  bool json = false;
};

/// 0, or 1 when --fail-over is given and latency or peak memory grew by more than it; 2 on bad input.
int run_diff(const DiffCliOptions& opts);

}  // namespace perfpred::cli
