#pragma once
// `perfpred sweep MODEL.onnx --base-gpu ID --vary FIELD=START:STOP:STEP ...`: hypothetical-GPU grid.
#include <string>
#include <vector>

namespace perfpred::cli {

struct SweepCliOptions {
  std::string model;
  std::string base_gpu;
  std::vector<std::string> vary;
  long long batch = 1;
  std::string precision = "fp32";
  std::string mode = "inference";
  std::string runtime = "pytorch";
  std::string optimizer;
  std::vector<std::string> input_shapes;
  bool allow_unknown = false;
  std::string bundle;
  bool analytical = false;
  long long max_points = 1000000;
  bool csv = false;
  bool json = false;
};

/// 0 on success; InputError (2) on bad input.
int run_sweep(const SweepCliOptions& opts);

}  // namespace perfpred::cli
